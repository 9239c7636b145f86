"""Columns: swallowing three equal face-up cards (spec section 4).

Functions here work on the flat representation of `abyss_rules.state`:
`cards` (a flat tuple), the `up` and `gone` bit masks, and the discard
pile listed top first.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._event_types import ColumnSwallowed, Event
from .._grid import Geometry

__all__ = ["complete_column", "partly_swallowed", "swallow_column", "swallow_complete_columns"]

Piles = tuple[tuple[int, ...], int, int, tuple[int, ...]]


def complete_column(geometry: Geometry, player: int, col: int, cards: Sequence[int], up: int) -> int | None:
    """The value of `player`'s column `col` if it is complete -- every space face up, every card
    the same value (rule 4.1) -- else `None`.

    The one statement of the test: the rules, the events, the narration and the checks of a
    loaded or generated state all ask it here.

    Examples:
        >>> from abyss_rules._grid import Geometry
        >>> g = Geometry.of(2, 1)
        >>> complete_column(g, 0, 0, (4, 4), 0b11), complete_column(g, 0, 0, (4, 4), 0b01)
        (4, None)
    """
    base = player * geometry.cells
    mask = geometry.column_masks[col] << base
    if up & mask != mask:
        return None
    column = cards[base + col:base + geometry.cells:geometry.cols]
    value = column[0]
    return value if column.count(value) == len(column) else None


def partly_swallowed(geometry: Geometry, gone: int) -> int | None:
    """The first column of a grid whose swallowed spaces `gone` (a grid's bit mask) hold only part
    of it, else `None`: a column is swallowed whole (rule 4.1).

    The one statement of the test: the checks of a loaded state and of a state's reachability
    ask it here.

    Examples:
        >>> from abyss_rules._grid import Geometry
        >>> g = Geometry.of(2, 2)                 # spaces 0 1 / 2 3: column 1 is spaces 1 and 3
        >>> partly_swallowed(g, 0b1010), partly_swallowed(g, 0b0010)
        (None, 1)
    """
    for col, mask in enumerate(geometry.column_masks):
        part = gone & mask
        if part and part != mask:
            return col
    return None


def swallow_column(
    geometry: Geometry,
    player: int,
    col: int,
    cards: tuple[int, ...],
    up: int,
    gone: int,
    discard: tuple[int, ...],
) -> Piles:
    """Swallow column `col` of `player` if it is complete (rules 4.1, 4.2).

    A column is complete when every one of its spaces is face up and all hold
    the same value (three 0s included). Its cards go onto the discard pile
    from the top row to the bottom row -- after whatever card the action
    itself discarded, so the new top discard is a card of the column -- and its
    spaces become swallowed: no longer face up, holding 0, gone for the rest of
    the round. Returns `(cards, up, gone, discard)`, unchanged when the
    column is not complete.

    Examples:
        A 2 x 1 grid whose column shows 4 and 4, face up (mask `0b11`):

        >>> from abyss_rules._grid import Geometry
        >>> swallow_column(Geometry.of(2, 1), 0, 0, (4, 4), 0b11, 0, (9,))
        ((0, 0), 0, 3, (4, 4, 9))
    """
    value = complete_column(geometry, player, col, cards, up)
    if value is None:
        return cards, up, gone, discard
    base = player * geometry.cells
    mask = geometry.column_masks[col] << base
    spaces = geometry.column_spaces[col]
    as_list = list(cards)
    for space in spaces:
        as_list[base + space] = 0
    # Listed top first: the bottom row's card ends up on top (rule 4.2).
    discard = (value,) * len(spaces) + discard
    return tuple(as_list), up & ~mask, gone | mask, discard


def swallow_complete_columns(
    geometry: Geometry,
    players: int,
    cards: tuple[int, ...],
    up: int,
    gone: int,
    discard: tuple[int, ...],
    log: list[Event] | None = None,
) -> Piles:
    """Swallow every complete column, seat 0 first, columns left to right (rule 4.3).

    Used after the final reveal (rule 6.3) when `swallow_on_final_reveal`
    is on. Each swallow is reported to `log`, when given, as a
    `ColumnSwallowed` event of the final reveal.

    Examples:
        Two players with 2 x 1 grids, all face up; only seat 1's column matches:

        >>> from abyss_rules._grid import Geometry
        >>> swallow_complete_columns(Geometry.of(2, 1), 2, (1, 2, 5, 5), 0b1111, 0, (9,))
        ((1, 2, 0, 0), 3, 12, (5, 5, 9))
    """
    for player in range(players):
        for col in range(geometry.cols):
            before = gone
            cards, up, gone, discard = swallow_column(geometry, player, col, cards, up, gone, discard)
            if log is not None and gone != before:
                log.append(ColumnSwallowed(seat=player, col=col, value=discard[0], count=geometry.rows,
                                           final_reveal=True))
    return cards, up, gone, discard
