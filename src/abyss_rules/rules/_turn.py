"""A turn: take the discard, draw, or flip (spec section 3).

Each function first tests the conditions of its rule and raises the error `rejection`
names if one fails; then it builds the next state by position (`rules._positional`), because
this is the engine's hot path. Call them through `apply`.
"""

from __future__ import annotations

from typing import Final

from .._event_types import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardRevealed,
    ColumnSwallowed,
    Event,
    OpeningDone,
    Reshuffled,
    RoundClosed,
)
from .._grid import Geometry
from ..actions import DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..caches import Memo
from ..config import Variant
from ..state import Phase, State
from ._columns import complete_column, swallow_column
from ._draw_pile import can_draw, reshuffle
from ._illegal import rejection
from ._opening import choose_opener
from ._positional import new_state
from ._round_end import end_round

__all__ = ["discard_drawn", "draw", "end_turn", "flip", "place_drawn", "take_discard"]

Log = list[Event] | None
"""Where a rule function reports the events it causes (rules of `abyss_rules.events`), or `None`."""

_OPENING = Phase.OPENING
_TURN = Phase.TURN
_DRAWN = Phase.DRAWN


def _position(s: State, a: TakeDiscard | PlaceDrawn | DiscardDrawn | Flip, g: Geometry, taken: int) -> int:
    """The position of `a`'s space in the flat grids, if it is a space of `a.player`'s grid that is
    not in the bit mask `taken` (rules 1.2, 3.10); else the rejection is raised.

    `taken` is the swallowed spaces for a placement, the swallowed and face-up ones for a flip.
    """
    player, row, col = a.player, a.row, a.col
    try:
        i: int = g.space_of[(row, col)] + player * g.cells
    except (KeyError, TypeError):
        raise rejection(s, a) from None
    # A field forged after construction (True, 1.0) equals an int as a key: refuse it by its class.
    if taken >> i & 1 or player.__class__ is not int or row.__class__ is not int or \
            col.__class__ is not int:
        raise rejection(s, a)
    return i


def take_discard(s: State, a: TakeDiscard, log: Log = None) -> State:
    """Place the top discard on a remaining space; the replaced card goes face up on the discard
    (rules 3.3, 3.8, 3.10)."""
    v, phase, _, turn, cards, up, gone, _, discard, _, _, _, _, _, _, _, _ = s
    player = a.player
    if phase is not _TURN or player != turn or not discard:
        raise rejection(s, a)
    i = _position(s, a, v.geometry, gone)
    grid = list(cards)
    replaced = grid[i]
    grid[i] = discard[0]
    if log is not None:
        log += (CardPlaced(seat=player, row=a.row, col=a.col, value=discard[0], source="discard"),
                CardDiscarded(seat=player, value=replaced, source="replaced", row=a.row, col=a.col,
                              was_face_down=not up >> i & 1))
    return end_turn(s, player, i, tuple(grid), up | 1 << i, (replaced,) + discard[1:], log)


def draw(s: State, a: Draw, log: Log = None) -> State:
    """Take the top card of the draw pile, reshuffling first if it is empty (rules 3.4, 5.1, 5.2, 5.4).

    The drawn card is public (rule 8.1); the same player acts again.
    """
    v, phase, rnd, turn, cards, up, gone, pile, discard, _, closer, opening, turns, totals, history, \
        dealer, seq = s
    if phase is not _TURN or a.player != turn or a.player.__class__ is not int or \
            not can_draw(pile, discard):
        raise rejection(s, a)
    if not pile:
        pile, discard, dealer = reshuffle(v, discard, dealer)
        if log is not None:
            log.append(Reshuffled(draw_pile_size=len(pile), top_discard=discard[0]))
    if log is not None:
        log.append(CardDrawn(seat=turn, value=pile[0]))
    return new_state((
        v, _DRAWN, rnd, turn, cards, up, gone, pile[1:], discard,
        pile[0], closer, opening, turns, totals, history, dealer, seq + 1,
    ))


def place_drawn(s: State, a: PlaceDrawn, log: Log = None) -> State:
    """Place the drawn card on a remaining space; the replaced card goes face up on the discard
    (rules 3.5, 3.8, 3.10)."""
    v, phase, _, turn, cards, up, gone, _, discard, drawn, _, _, _, _, _, _, _ = s
    player = a.player
    if phase is not _DRAWN or player != turn or drawn is None:
        raise rejection(s, a)
    i = _position(s, a, v.geometry, gone)
    grid = list(cards)
    replaced = grid[i]
    grid[i] = drawn
    if log is not None:
        log += (CardPlaced(seat=player, row=a.row, col=a.col, value=drawn, source="drawn"),
                CardDiscarded(seat=player, value=replaced, source="replaced", row=a.row, col=a.col,
                              was_face_down=not up >> i & 1))
    return end_turn(s, player, i, tuple(grid), up | 1 << i, (replaced,) + discard, log)


def discard_drawn(s: State, a: DiscardDrawn, log: Log = None) -> State:
    """Discard the drawn card and flip one of your face-down cards (rules 3.6, 3.10)."""
    v, phase, _, turn, cards, up, gone, _, discard, drawn, _, _, _, _, _, _, _ = s
    player = a.player
    if phase is not _DRAWN or player != turn or drawn is None:
        raise rejection(s, a)
    i = _position(s, a, v.geometry, up | gone)
    if log is not None:
        log += (CardDiscarded(seat=player, value=drawn, source="drawn", row=None, col=None,
                              was_face_down=False),
                CardRevealed(seat=player, row=a.row, col=a.col, value=cards[i], cause="discard_drawn"))
    return end_turn(s, player, i, cards, up | 1 << i, (drawn,) + discard, log)


def flip(s: State, a: Flip, log: Log = None) -> State:
    """Flip a face-down card: an opening flip (rule 2.1) or the flip-only turn (rules 3.7, 3.10)."""
    v, phase, _, turn, cards, up, gone, _, discard, _, _, opening, _, _, _, _, _ = s
    player = a.player
    if phase is _TURN:
        if player != turn or not v.flip_turn:
            raise rejection(s, a)
    elif phase is not _OPENING or not 0 <= player < len(opening) or \
            len(opening[player]) >= v.initial_flips:
        raise rejection(s, a)
    i = _position(s, a, v.geometry, up | gone)
    if log is not None:
        log.append(CardRevealed(seat=player, row=a.row, col=a.col, value=cards[i],
                                cause="opening_flip" if phase is _OPENING else "flip"))
    if phase is _OPENING:
        return opening_flip(s, player, i, log)
    return end_turn(s, player, i, cards, up | 1 << i, discard, log)


def _swallow(g: Geometry, player: int, col: int, cards: tuple[int, ...], up: int, gone: int,
             discard: tuple[int, ...], log: Log) -> tuple[tuple[int, ...], int, int, tuple[int, ...]]:
    """`swallow_column` during play, reporting the swallow."""
    before = gone
    cards, up, gone, discard = swallow_column(g, player, col, cards, up, gone, discard)
    if log is not None and gone != before:
        log.append(ColumnSwallowed(seat=player, col=col, value=discard[0], count=g.rows, final_reveal=False))
    return cards, up, gone, discard


def opening_flip(s: State, player: int, i: int, log: Log = None) -> State:
    """Record one opening flip at position `i` of the flat grids; when every player has made theirs,
    the opener's turn begins (rules 2.1-2.4).

    A column completed by opening flips is swallowed like any other (rule 4.1).
    """
    v = s.variant
    g = v.geometry
    cards, up, gone, discard = s.cards, s.face_up_mask | 1 << i, s.swallowed_mask, s.discard_pile
    opening = s.opening
    opening = opening[:player] + (opening[player] + (cards[i],),) + opening[player + 1:]
    col = g.column_of[i - player * g.cells]
    cards, up, gone, discard = _swallow(g, player, col, cards, up, gone, discard, log)
    if sum(map(len, opening)) == v.initial_flips * len(opening):
        phase, turn = _TURN, choose_opener(v, opening, s.history)
        if log is not None:
            log.append(OpeningDone(opener=turn))
    else:
        phase, turn = _OPENING, None
    return new_state((
        v, phase, s.round, turn, cards, up, gone, s.draw_pile, discard,
        None, None, opening, 0, s.totals, s.history, s.dealer, s.seq + 1,
    ))


def end_turn(
    before: State, player: int, i: int, cards: tuple[int, ...], up: int, discard: tuple[int, ...],
    log: Log = None,
) -> State:
    """Finish `player`'s turn after a card was placed or turned at position `i` of the flat grids.

    `cards`, `up` and `discard` are the grids and pile after the action;
    the swallowed spaces and the draw pile are still those of `before`. In
    order: swallow the column if it is now complete (rules 4.1, 4.2); close
    the round if the player has no face-down card left and nobody has closed
    it (rule 6.1); pass the turn to the next seat (rule 3.1); end the round
    when the turn would come back to the closer (rule 6.2) or when the
    stalling cap is reached (rule 6.7).
    """
    v, _, rnd, _, _, _, gone, pile, _, _, closer, opening, turns, totals, history, dealer, seq = before
    last = _SPACES.last
    column, seat, other = (last[1] if last[0] is v else _SPACES(v))[i]
    # A swallow needs the column all face up and the card at `i` equal to another of its column:
    # two cheap tests that save the call of the full test (complete_column) on most turns.
    if up & column == column and cards[other] == cards[i]:
        g = v.geometry
        col = g.column_of[i - player * g.cells]
        if complete_column(g, player, col, cards, up) is not None:
            cards, up, gone, discard = _swallow(g, player, col, cards, up, gone, discard, log)
    if closer is None and (up | gone) & seat == seat:
        closer = player
    turns += 1
    nxt = player + 1
    if nxt == len(totals):
        nxt = 0
    if nxt == closer or turns == v.max_turns_per_round:
        return end_round(before, cards, up, gone, pile, discard, closer, turns, log)
    if log is not None and before.closer is None and closer is not None:
        log.append(RoundClosed(closer=closer))
    return new_state((
        v, _TURN, rnd, nxt, cards, up, gone, pile, discard,
        None, closer, opening, turns, totals, history, dealer, seq + 1,
    ))


def _space_table(v: Variant) -> tuple[tuple[int, int, int], ...]:
    """For each position of the flat grids (every seat `v` allows): the bit masks of its column
    and of its seat's whole grid, and the position of the next space down its column (the top
    one for the bottom row)."""
    g = v.geometry
    return tuple(
        (g.column_masks[g.column_of[space]] << seat * g.cells, g.full_mask << seat * g.cells,
         seat * g.cells + (space + g.cols) % g.cells)
        for seat in range(v.max_players) for space in range(g.cells)
    )


_SPACES: Final = Memo[Variant, tuple[tuple[int, int, int], ...]](
    "rules.turn.spaces", _space_table, max_entries=16, max_size=16 * 1024, size=len)
"""`_space_table` of the last variants (size: positions), the last one in front."""
