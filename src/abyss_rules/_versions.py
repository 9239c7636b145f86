"""The versions: of the library, of the rules it implements, and of its document formats.

One home for the three numbers, imported by every module that writes or checks them (the
codec's document headers, `abyss-rules --version`); the package re-exports them.

Examples:
    >>> import abyss_rules as ar
    >>> RULES_VERSION == ar.RULES_VERSION, FORMAT_VERSION == ar.FORMAT_VERSION
    (True, True)
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["FORMAT_VERSION", "RULES_VERSION", "__version__"]

__version__: Final = "0.1.0"
"""The version of the abyss-rules library."""
RULES_VERSION: Final = "1.2.0"
"""The version of `spec/rules.md` (its `rules_version` line) this engine implements."""
FORMAT_VERSION: Final = 1
"""The version of the document formats described in `docs/json.md`."""


def header(kind: str) -> dict[str, Any]:
    """The header every document starts with: its `format`, `format_version` and `rules_version`.

    Examples:
        >>> header("variant")["format"], header("variant")["format_version"] == FORMAT_VERSION
        ('variant', True)
    """
    return {"format": kind, "format_version": FORMAT_VERSION, "rules_version": RULES_VERSION}
