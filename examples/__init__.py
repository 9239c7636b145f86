"""Example programs built on abyss-rules (they ship with the sources, not with the installed package)."""
