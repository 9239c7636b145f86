"""`python -m examples.server [--port N] ...`: run the example game server (see `app.main`)."""

from .app import main

raise SystemExit(main())
