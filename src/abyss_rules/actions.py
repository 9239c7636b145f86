"""Actions: small frozen values that name the acting player (spec section 3).

| action | meaning | rules |
|---|---|---|
| `Flip` | an opening flip, or the flip-only turn | 2.1, 3.7 |
| `TakeDiscard` | take the top discard and place it on a space | 3.3, 3.8 |
| `Draw` | draw the top card of the draw pile | 3.4, 5.1 |
| `PlaceDrawn` | place the drawn card on a space | 3.5, 3.8 |
| `DiscardDrawn` | discard the drawn card and flip that space | 3.6 |

Spaces are `(row, col)`, 0-based. Constructing an action with a field that
is not an `int` raises `MalformedActionError`; whether the action is
*legal* is decided by `apply`.

Examples:
    >>> Flip(0, 1, 2)
    Flip(player=0, row=1, col=2)
    >>> Flip(0, 1, 2) == Flip(0, 1, 2), Flip(0, 1, 2) == TakeDiscard(0, 1, 2)
    (True, False)
    >>> Flip(0, "1", 2)
    Traceback (most recent call last):
    ...
    abyss_rules.errors.MalformedActionError: [malformed_action] Flip.row must be an int, got '1'
"""

from __future__ import annotations

from typing import ClassVar, Final, TypeAlias

import attrs

from .errors import MalformedActionError

__all__ = ["ACTION_TYPES", "Action", "DiscardDrawn", "Draw", "Flip", "PlaceDrawn", "TakeDiscard"]


def _check_ints(action: object, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(action, name)
        if type(value) is not int:
            raise MalformedActionError(f"{type(action).__name__}.{name} must be an int, got {value!r}")


@attrs.frozen(slots=True, cache_hash=True)
class _SpaceAction:
    """The fields of an action on one of the acting player's spaces (rule 1.2)."""

    player: int
    """The acting seat (rule 3.9)."""
    row: int
    """The space's row, from 0."""
    col: int
    """The space's column, from 0."""

    def __attrs_post_init__(self) -> None:
        _check_ints(self, ("player", "row", "col"))


@attrs.frozen(slots=True, cache_hash=True)
class Flip(_SpaceAction):
    """Turn one of your face-down cards face up.

    In the opening it is one of your opening flips (rule 2.1); on your turn it
    is the whole turn (rule 3.7, only when `flip_turn` is on).

    Examples:
        >>> Flip(player=1, row=0, col=3)
        Flip(player=1, row=0, col=3)
        >>> Flip.KIND
        'flip'
    """

    KIND: ClassVar[str] = "flip"


@attrs.frozen(slots=True, cache_hash=True)
class TakeDiscard(_SpaceAction):
    """Take the top discard and place it on `(row, col)` (rule 3.3).

    The replaced card goes face up on top of the discard pile (rule 3.8).

    Examples:
        >>> TakeDiscard(0, 2, 1)
        TakeDiscard(player=0, row=2, col=1)
    """

    KIND: ClassVar[str] = "take_discard"


@attrs.frozen(slots=True, cache_hash=True)
class Draw:
    """Draw the top card of the draw pile, reshuffling first if it is empty (rules 3.4, 5.1).

    The drawn card is public; the same player then plays
    `PlaceDrawn` or `DiscardDrawn`.

    Examples:
        >>> Draw(3)
        Draw(player=3)
    """

    KIND: ClassVar[str] = "draw"
    player: int

    def __attrs_post_init__(self) -> None:
        _check_ints(self, ("player",))


@attrs.frozen(slots=True, cache_hash=True)
class PlaceDrawn(_SpaceAction):
    """Place the drawn card on `(row, col)` (rule 3.5).

    The replaced card goes face up on top of the discard pile (rule 3.8).

    Examples:
        >>> PlaceDrawn(3, 0, 0)
        PlaceDrawn(player=3, row=0, col=0)
    """

    KIND: ClassVar[str] = "place_drawn"


@attrs.frozen(slots=True, cache_hash=True)
class DiscardDrawn(_SpaceAction):
    """Discard the drawn card and flip the face-down card at `(row, col)` (rule 3.6).

    Examples:
        >>> DiscardDrawn(1, 1, 3)
        DiscardDrawn(player=1, row=1, col=3)
    """

    KIND: ClassVar[str] = "discard_drawn"


Action: TypeAlias = Flip | TakeDiscard | Draw | PlaceDrawn | DiscardDrawn
"""Any action."""

ACTION_TYPES: Final[tuple[type[Action], ...]] = (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn)
"""Every action class, in canonical order."""
