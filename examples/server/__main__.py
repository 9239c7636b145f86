"""`python -m examples.server --db sqlite:///games.db --port 0`: run the example game server (`cli.main`)."""

from .cli import main

raise SystemExit(main())
