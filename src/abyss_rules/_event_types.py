"""The events: what an action caused, as values (see `abyss_rules.events`).

The rule functions in `rules/` report these as they apply an action (when asked to, by
`apply_with_events`), so this module imports nothing of the engine: it sits below
`rules/`, like `actions`. `abyss_rules.events` re-exports every class and writes the
`events` document.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, TypeAlias

import attrs

__all__ = [
    "EVENT_TYPES",
    "CardDiscarded",
    "CardDrawn",
    "CardPlaced",
    "CardRevealed",
    "ColumnSwallowed",
    "Event",
    "FinalReveal",
    "GameOver",
    "NewRound",
    "OpeningDone",
    "Reshuffled",
    "RoundClosed",
    "RoundScored",
]


class _Event:
    """Shared behaviour of the event classes."""

    __slots__ = ()
    TYPE: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data: `{"type": TYPE, <fields>}` (tuples become lists), as the
        `events` document holds it."""
        from .codec._events import event_data  # on use: the codec imports this module

        return event_data(self)  # type: ignore[arg-type]  # every subclass is an Event


@attrs.frozen(slots=True)
class CardRevealed(_Event):
    """A face-down card was turned face up by an action (rules 2.1, 3.6, 3.7).

    Examples:
        >>> CardRevealed(seat=0, row=1, col=2, value=7, cause="flip").to_dict()["type"]
        'card_revealed'
    """

    TYPE: ClassVar[str] = "card_revealed"
    seat: int
    row: int
    col: int
    value: int
    cause: str
    """`"opening_flip"` (rule 2.1), `"flip"` (rule 3.7) or `"discard_drawn"` (rule 3.6)."""


@attrs.frozen(slots=True)
class CardDrawn(_Event):
    """`seat` drew `value` from the draw pile; the drawn card is public (rule 3.4).

    Examples:
        >>> CardDrawn(1, 11).to_dict()
        {'type': 'card_drawn', 'seat': 1, 'value': 11}
    """

    TYPE: ClassVar[str] = "card_drawn"
    seat: int
    value: int


@attrs.frozen(slots=True)
class Reshuffled(_Event):
    """The draw pile was empty: the discards were shuffled into a new one (rules 5.1, 5.2).

    Sizes only: the new order is secret (rule 8.2). The discard pile is left
    with one face-up card: the old top (rule 5.1) or the first card of the
    shuffle (rule 5.2, `reshuffle_keeps_top` off).

    Examples:
        >>> Reshuffled(draw_pile_size=41, top_discard=3).to_dict()
        {'type': 'reshuffled', 'draw_pile_size': 41, 'top_discard': 3}
    """

    TYPE: ClassVar[str] = "reshuffled"
    draw_pile_size: int
    """Cards in the new draw pile, before the card is drawn from it."""
    top_discard: int
    """The one card left on the discard pile (public)."""


@attrs.frozen(slots=True)
class CardPlaced(_Event):
    """`seat` placed `value` face up on `(row, col)` (rules 3.3, 3.5).

    Examples:
        >>> CardPlaced(0, 2, 3, -1, "discard").source
        'discard'
    """

    TYPE: ClassVar[str] = "card_placed"
    seat: int
    row: int
    col: int
    value: int
    source: str
    """`"discard"` (taken from the discard pile, rule 3.3) or `"drawn"` (rule 3.5)."""


@attrs.frozen(slots=True)
class CardDiscarded(_Event):
    """`value` went face up onto the discard pile (rules 3.6, 3.8).

    `source` is `"replaced"` for the card a placed card replaced, at
    `(row, col)` of `seat` (`was_face_down` says whether its value was
    secret until now), or `"drawn"` for the drawn card `seat` discarded
    (`row` and `col` are then `None`).

    Examples:
        >>> CardDiscarded(0, 9, "replaced", 1, 1, was_face_down=True).to_dict()["was_face_down"]
        True
    """

    TYPE: ClassVar[str] = "card_discarded"
    seat: int
    value: int
    source: str
    row: int | None
    col: int | None
    was_face_down: bool


@attrs.frozen(slots=True)
class ColumnSwallowed(_Event):
    """Column `col` of `seat` held equal face-up cards and was swallowed (rules 4.1-4.3).

    Its `count` cards of `value` went onto the discard pile.

    Examples:
        >>> ColumnSwallowed(seat=1, col=0, value=4, count=3, final_reveal=False).count
        3
    """

    TYPE: ClassVar[str] = "column_swallowed"
    seat: int
    col: int
    value: int
    count: int
    final_reveal: bool
    """Whether the final reveal completed it (rule 4.3)."""


@attrs.frozen(slots=True)
class OpeningDone(_Event):
    """The opening is over; `opener` takes the first turn (rules 2.3, 2.4).

    Examples:
        >>> OpeningDone(2).to_dict()
        {'type': 'opening_done', 'opener': 2}
    """

    TYPE: ClassVar[str] = "opening_done"
    opener: int


@attrs.frozen(slots=True)
class RoundClosed(_Event):
    """`closer` has no face-down card left: every other player takes one more turn (rules 6.1, 6.2).

    Examples:
        >>> RoundClosed(0).to_dict()
        {'type': 'round_closed', 'closer': 0}
    """

    TYPE: ClassVar[str] = "round_closed"
    closer: int


@attrs.frozen(slots=True)
class FinalReveal(_Event):
    """The round ended: its remaining face-down cards were turned over (rule 6.3).

    `cards` lists `(seat, row, col, value)` by seat, then space.

    Examples:
        >>> FinalReveal(((0, 2, 1, 12), (1, 0, 0, -2))).to_dict()["cards"]
        [[0, 2, 1, 12], [1, 0, 0, -2]]
    """

    TYPE: ClassVar[str] = "final_reveal"
    cards: tuple[tuple[int, int, int, int], ...]


@attrs.frozen(slots=True)
class RoundScored(_Event):
    """Round `round` was scored (rules 6.4-7.1).

    The same facts as its `RoundResult` in `state.history`.

    Examples:
        >>> RoundScored(1, (12, 9), (24, 9), True, 0, False, (24, 9)).to_dict()["scores"]
        [24, 9]
    """

    TYPE: ClassVar[str] = "round_scored"
    round: int
    raw_scores: tuple[int, ...]
    scores: tuple[int, ...]
    penalized: bool
    closer: int | None
    capped: bool
    totals: tuple[int, ...]


@attrs.frozen(slots=True)
class NewRound(_Event):
    """Round `round` was dealt, all face down (rule 1.4); no value but the open discard is public.

    Examples:
        >>> NewRound(round=2, draw_pile_size=125, top_discard=6).to_dict()["top_discard"]
        6
    """

    TYPE: ClassVar[str] = "new_round"
    round: int
    draw_pile_size: int
    top_discard: int


@attrs.frozen(slots=True)
class GameOver(_Event):
    """The game ended (rules 7.2, 7.3); `winners` have the lowest total (rule 7.4).

    Examples:
        >>> GameOver(winners=(1,), totals=(104, 61)).to_dict()
        {'type': 'game_over', 'winners': [1], 'totals': [104, 61]}
    """

    TYPE: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Event: TypeAlias = (
    CardRevealed | CardDrawn | Reshuffled | CardPlaced | CardDiscarded | ColumnSwallowed | OpeningDone
    | RoundClosed | FinalReveal | RoundScored | NewRound | GameOver
)
"""Any event."""

EVENT_TYPES: Final[tuple[type[Event], ...]] = (
    CardRevealed, CardDrawn, Reshuffled, CardPlaced, CardDiscarded, ColumnSwallowed, OpeningDone,
    RoundClosed, FinalReveal, RoundScored, NewRound, GameOver,
)
"""Every event class."""
