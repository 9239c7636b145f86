"""``python -m abyss_rules``: the command line (see :mod:`abyss_rules.cli`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
