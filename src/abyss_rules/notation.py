"""A compact text notation for actions, for logs, records and command lines.

An action is written `<seat><letter>[<space>]`:

| letter | action | example | meaning |
|---|---|---|---|
| `f` | `Flip` | `0f12` | seat 0 flips (1, 2) (rules 2.1, 3.7) |
| `t` | `TakeDiscard` | `1t00` | seat 1 takes the discard onto (0, 0) (rule 3.3) |
| `d` | `Draw` | `1d` | seat 1 draws (rule 3.4) |
| `p` | `PlaceDrawn` | `1p23` | seat 1 places the drawn card on (2, 3) (rule 3.5) |
| `x` | `DiscardDrawn` | `1x23` | seat 1 discards it and flips (2, 3) (rule 3.6) |

* The seat is a decimal number (`0`, `1`, ... `15`); the letter ends it.
* The space is the row digit then the column digit (`12` is row 1, column 2)
  when both are below 10; otherwise row and column are written in decimal with
  a dot between them (`0f10.3` is row 10, column 3). `Draw` has no space.
* Every action has exactly one spelling: lower-case letters, no leading zeros,
  no spaces, and the dotted form only when a number has two digits or more.

Examples:
    >>> to_notation(Flip(0, 1, 2)), to_notation(Draw(1)), to_notation(DiscardDrawn(3, 10, 2))
    ('0f12', '1d', '3x10.2')
    >>> parse_notation("1p23")
    PlaceDrawn(player=1, row=2, col=3)
    >>> parse_notation("0F12")
    Traceback (most recent call last):
    ...
    abyss_rules.errors.DecodeError: [bad_notation] '0F12' is not an action in notation: ...
"""

from __future__ import annotations

import re
from typing import Final

from .actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .errors import Code, DecodeError, MalformedActionError

__all__ = ["MAX_NOTATION_LENGTH", "parse_notation", "to_notation"]

MAX_NOTATION_LENGTH: Final = 24
"""The longest text `parse_notation` reads (longer is refused at once)."""

_LETTER: Final[dict[type, str]] = {Flip: "f", TakeDiscard: "t", Draw: "d", PlaceDrawn: "p", DiscardDrawn: "x"}
_KIND: Final[dict[str, type[Action]]] = {letter: kind for kind, letter in _LETTER.items()}
_NUMBER: Final = r"(?:0|[1-9][0-9]{0,5})"
_LARGEST: Final = 999_999  # the largest number _NUMBER matches
_PATTERN: Final = re.compile(
    rf"({_NUMBER})([ftdpx])(?:([0-9])([0-9])|({_NUMBER})\.({_NUMBER}))?", re.ASCII
)
_HELP: Final = ("expected <seat><letter><row><col> such as '0f12' or '1d' (letters f t d p x; "
                "row and col as '10.3' when one is 10 or more)")


def to_notation(action: Action) -> str:
    """The notation of `action` (see the module docs).

    Raises `MalformedActionError` for something that is not an action, or an action with a
    negative number or one above 999999 (no legal action has one).

    Examples:
        >>> to_notation(TakeDiscard(1, 0, 0))
        '1t00'
    """
    kind = type(action)
    letter = _LETTER.get(kind)
    if letter is None or kind not in ACTION_TYPES:
        raise MalformedActionError(f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), "
                                   f"got {kind.__name__}")
    player = action.player
    if kind is Draw:
        numbers: tuple[int, ...] = (player,)
    else:
        numbers = (player, action.row, action.col)  # type: ignore[union-attr]
    if any(type(n) is not int or not 0 <= n <= _LARGEST for n in numbers):
        raise MalformedActionError(f"{action!r} has no notation: its numbers must be from 0 to {_LARGEST}")
    if kind is Draw:
        return f"{player}d"
    row, col = numbers[1], numbers[2]
    if row < 10 and col < 10:
        return f"{player}{letter}{row}{col}"
    return f"{player}{letter}{row}.{col}"


def parse_notation(text: str) -> Action:
    """The action written `text` in notation (see the module docs).

    Raises `DecodeError` with code `bad_notation` for anything that is not
    exactly one action's spelling. Whether the action is legal is for `apply`
    to decide.

    Examples:
        >>> parse_notation("0f10.3")
        Flip(player=0, row=10, col=3)
        >>> parse_notation("0f1.2")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [bad_notation] '0f1.2' is not an action in notation: write (1, 2) ...
    """
    if type(text) is not str:
        raise DecodeError(Code.BAD_NOTATION, f"notation must be a string, got {type(text).__name__}")
    if len(text) > MAX_NOTATION_LENGTH:
        raise DecodeError(Code.BAD_NOTATION, f"notation is at most {MAX_NOTATION_LENGTH} characters, "
                                             f"got {len(text)}")
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise _bad(text, _HELP)
    seat, letter, row_digit, col_digit, row_text, col_text = match.groups()
    kind = _KIND[letter]
    player = int(seat)
    if kind is Draw:
        if row_digit is not None or row_text is not None:
            raise _bad(text, f"a draw names no space: write '{player}d'")
        return Draw(player)
    if row_digit is not None:
        return kind(player, int(row_digit), int(col_digit))  # type: ignore[call-arg]
    if row_text is None:
        raise _bad(text, f"'{letter}' needs a space, e.g. '{player}{letter}12' for (1, 2)")
    row, col = int(row_text), int(col_text)
    if row < 10 and col < 10:
        raise _bad(text, f"write ({row}, {col}) as '{player}{letter}{row}{col}'")
    return kind(player, row, col)  # type: ignore[call-arg]


def _bad(text: str, why: str) -> DecodeError:
    return DecodeError(Code.BAD_NOTATION, f"{text!r} is not an action in notation: {why}")
