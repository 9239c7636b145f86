"""What an action caused: events a server can animate or log without diffing states.

[`apply_with_events`][abyss_rules.apply_with_events] applies an action like
[`apply`][abyss_rules.apply] and also returns the *events* it caused, in the
order they happened:

| event | when | rules |
|---|---|---|
| `Reshuffled` | a draw found the draw pile empty: the discards became the pile | 5.1, 5.2 |
| `CardDrawn` | the drawn card (public once drawn) | 3.4 |
| `CardPlaced` | a card was placed on a space (from the discard or drawn) | 3.3, 3.5 |
| `CardDiscarded` | a card went onto the discard pile: a replaced card or the drawn card | 3.6, 3.8 |
| `CardRevealed` | a face-down card was turned over by an action | 2.1, 3.6, 3.7 |
| `ColumnSwallowed` | a column of equal face-up cards was swallowed | 4.1-4.3 |
| `OpeningDone` | the last opening flip was made: the opener plays | 2.3, 2.4 |
| `RoundClosed` | a player ended an action with no face-down card | 6.1 |
| `FinalReveal` | the round ended: every face-down card turned over | 6.3 |
| `RoundScored` | the round's scores (the round just added to `state.history`) | 6.4-7.1 |
| `NewRound` | the next round was dealt (sizes and the public top discard) | 1.4 |
| `GameOver` | the game ended | 7.2-7.4 |

Events hold only facts that are public once the action is made (rule 8.1):
a value appears only when the card has just been turned face up, drawn,
placed or discarded; the deal of a new round names no card but the one that
opens the discard pile. So the events of an action may be sent to every
client, like views.

Every event is a frozen value with a `TYPE` string and a `to_dict()` method;
[`events_to_dict`][abyss_rules.events_to_dict] and
[`dumps_events`][abyss_rules.dumps_events] give the `events` document.

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=3)
    >>> state, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    >>> events
    (CardRevealed(seat=0, row=1, col=2, value=5, cause='opening_flip'),)
    >>> events[0].to_dict()
    {'type': 'card_revealed', 'seat': 0, 'row': 1, 'col': 2, 'value': 5, 'cause': 'opening_flip'}
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, TypeAlias

import attrs

from .actions import Action, DiscardDrawn, Draw, Flip, TakeDiscard
from .codec import _action_body, _check_action, _header, canonical_json
from .grid import Geometry
from .rules.engine import apply
from .state import Phase, State

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
    "apply_with_events",
    "dumps_events",
    "events_to_dict",
]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


class _Event:
    """Shared behaviour of the event classes."""

    __slots__ = ()
    TYPE: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data: `{"type": TYPE, <fields>}` (tuples become lists)."""
        out: dict[str, Any] = {"type": self.TYPE}
        for field in attrs.fields(type(self)):  # type: ignore[arg-type]  # every subclass is an attrs class
            out[field.name] = _plain(getattr(self, field.name))
        return out


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

    The same facts as its [`RoundResult`][abyss_rules.RoundResult] in `state.history`.

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


def apply_with_events(state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply `action` like [`apply`][abyss_rules.apply]; also return the events it caused, in order.

    Raises exactly what [`apply`][abyss_rules.apply] raises. The events are
    derived from `state` and `action` (and the new state), so applying
    them to the old view gives the new one.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=3)
        >>> for action in [ar.Flip(0, 0, 0), ar.Flip(0, 0, 1), ar.Flip(1, 0, 0)]:
        ...     state = ar.apply(state, action)
        >>> state, events = ar.apply_with_events(state, ar.Flip(1, 2, 3))
        >>> [event.TYPE for event in events]
        ['card_revealed', 'opening_done']
    """
    after = apply(state, action)
    return after, _derive(state, action, after)


def _column(g: Geometry, cards: list[int], up: int, base: int, col: int) -> int | None:
    """The value of column `col` (grid at `base`) if it is face up with equal cards, else `None`."""
    mask = g.column_masks[col] << base
    if up & mask != mask:
        return None
    values = {cards[base + space] for space in g.column_spaces[col]}
    return values.pop() if len(values) == 1 else None


def _derive(s: State, action: Action, t: State) -> tuple[Event, ...]:
    out: list[Event] = []
    kind = type(action)
    player = action.player
    if kind is Draw:
        if not s.draw_pile:
            out.append(Reshuffled(len(t.draw_pile) + 1, t.discard_pile[0]))
        out.append(CardDrawn(player, t.drawn))  # type: ignore[arg-type]  # the drawn phase holds a card
        return tuple(out)
    v = s.variant
    g = v.geometry
    cells = g.cells
    players = len(s.totals)
    row: int = action.row  # type: ignore[union-attr]
    col: int = action.col  # type: ignore[union-attr]
    base = player * cells
    i = base + row * g.cols + col
    bit = 1 << i
    cards = list(s.cards)
    up, gone = s.face_up, s.swallowed
    if kind is Flip:
        cause = "opening_flip" if s.phase is Phase.OPENING else "flip"
        out.append(CardRevealed(player, row, col, cards[i], cause))
    elif kind is DiscardDrawn:
        drawn: int = s.drawn  # type: ignore[assignment]
        out.append(CardDiscarded(player, drawn, "drawn", None, None, False))
        out.append(CardRevealed(player, row, col, cards[i], "discard_drawn"))
    else:  # TakeDiscard, PlaceDrawn
        placed: int = s.discard_pile[0] if kind is TakeDiscard else s.drawn  # type: ignore[assignment]
        out.append(CardPlaced(player, row, col, placed, "discard" if kind is TakeDiscard else "drawn"))
        out.append(CardDiscarded(player, cards[i], "replaced", row, col, not up & bit))
        cards[i] = placed
    up |= bit
    value = _column(g, cards, up, base, col)
    if value is not None:  # rule 4.1
        out.append(ColumnSwallowed(player, col, value, v.rows, False))
        mask = g.column_masks[col] << base
        up, gone = up & ~mask, gone | mask
    if s.phase is Phase.OPENING:
        if t.phase is not Phase.OPENING:
            out.append(OpeningDone(t.turn))
        return tuple(out)
    ended = len(t.history) > len(s.history)
    closer = t.history[-1].closer if ended else t.closer
    if s.closer is None and closer is not None:
        out.append(RoundClosed(closer))
    if not ended:
        return tuple(out)
    # The round ended (rules 6.2, 6.7): final reveal, swallows, scores, then the end or a new round.
    shown = up | gone
    revealed = []
    for q in range(players):
        for space in range(cells):
            if not shown >> (q * cells + space) & 1:
                r, c = g.positions[space]
                revealed.append((q, r, c, cards[q * cells + space]))
    out.append(FinalReveal(tuple(revealed)))
    up = ((1 << players * cells) - 1) & ~gone
    if v.swallow_on_final_reveal:  # rule 4.3: seat by seat, columns left to right
        for q in range(players):
            for c in range(g.cols):
                value = _column(g, cards, up, q * cells, c)
                if value is not None:
                    out.append(ColumnSwallowed(q, c, value, v.rows, True))
                    up &= ~(g.column_masks[c] << (q * cells))
    result = t.history[-1]
    out.append(RoundScored(result.round, result.raw_scores, result.scores, result.penalized, result.closer,
                           result.capped, result.totals))
    if t.phase is Phase.GAME_OVER:
        out.append(GameOver(t.winners, t.totals))
    else:
        out.append(NewRound(t.round, len(t.draw_pile), t.discard_pile[0]))
        if t.phase is not Phase.OPENING:  # initial_flips = 0: the opener plays at once
            out.append(OpeningDone(t.turn))
    return tuple(out)


def events_to_dict(events: tuple[Event, ...], *, action: Action, seq: int) -> dict[str, Any]:
    """The `events` document: what `action` caused, leading to the state numbered `seq`.

    Public information only (see the module docs): safe to send to every client.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=3)
        >>> after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
        >>> doc = events_to_dict(events, action=ar.Flip(0, 1, 2), seq=after.seq)
        >>> doc["format"], doc["seq"], doc["action"], doc["events"][0]["value"]
        ('events', 1, {'type': 'flip', 'player': 0, 'row': 1, 'col': 2}, 5)
    """
    if type(seq) is not int or seq < 0:
        raise TypeError(f"seq must be an int >= 0, got {seq!r}")
    items = []
    for event in events:
        if type(event) not in EVENT_TYPES:
            raise TypeError(f"expected events, got {type(event).__name__}")
        items.append(event.to_dict())
    return {**_header("events"), "action": _action_body(_check_action(action)), "events": items, "seq": seq}


def dumps_events(events: tuple[Event, ...], *, action: Action, seq: int) -> str:
    """The canonical JSON text of the `events` document (see [`events_to_dict`][abyss_rules.events_to_dict]).

    Examples:
        >>> import abyss_rules as ar
        >>> after, events = ar.apply_with_events(ar.new_game(players=2, seed=3), ar.Flip(0, 1, 2))
        >>> dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq)[:64]
        '{"action":{"col":2,"player":0,"row":1,"type":"flip"},"events":[{'
    """
    return canonical_json(events_to_dict(events, action=action, seq=seq))
