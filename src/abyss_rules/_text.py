"""Text that UTF-8 can hold: the one test of strings every reader and writer of documents makes.

A Python `str` may hold a *lone surrogate*, a code point from U+D800 to U+DFFF (JSON text spells
one as the escape `"\\ud800"`), but no UTF-8 text can: a string holding one can be read and
never written back. The documents' reader refuses such text at the door, the writers refuse it
before they write, and an error shows it escaped (rule 10.5). A surrogate *pair* in JSON
(`"\\ud83c\\udccf"`) is read as the one character it encodes, so it is text.

Examples:
    >>> is_text("é🃏"), is_text("\\ud800")
    (True, False)
    >>> shown("seat \\ud800")
    'seat \\\\ud800'
"""

from __future__ import annotations

import re
from typing import Final

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def is_text(value: str) -> bool:
    """Whether `value` holds no lone surrogate, so that UTF-8 can hold it (ASCII: at once)."""
    return value.isascii() or _SURROGATE.search(value) is None


def shown(value: str) -> str:
    """`value` with each lone surrogate written as its escape (`\\ud800`): text UTF-8 can hold."""
    return value if is_text(value) else value.encode("utf-8", "backslashreplace").decode("utf-8")
