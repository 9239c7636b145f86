"""A turn: take the discard, draw, or flip (spec section 3).

Each function first tests the conditions of its rule and raises the error
[`rejection`][abyss_rules.rules.illegal.rejection] names if one fails; then it builds the
next state directly (`tuple.__new__`), because this is the engine's hot path. Call them
through [`apply`][abyss_rules.apply].
"""

from __future__ import annotations

from ..actions import DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..state import Phase, State
from .columns import swallow_column
from .draw_pile import reshuffle
from .illegal import rejection
from .opening import choose_opener
from .round_end import end_round

__all__ = ["discard_drawn", "draw", "end_turn", "flip", "place_drawn", "take_discard"]

_new = tuple.__new__
_OPENING = Phase.OPENING
_TURN = Phase.TURN
_DRAWN = Phase.DRAWN


def take_discard(s: State, a: TakeDiscard) -> State:
    """Place the top discard on a remaining space; the replaced card goes face up on the discard
    (rules 3.3, 3.8, 3.10)."""
    player = a.player
    if s.phase is not _TURN or player != s.turn:
        raise rejection(s, a)
    g = s.variant._geometry
    try:
        space = g.space_of[(a.row, a.col)]
    except (KeyError, TypeError):
        raise rejection(s, a) from None
    i = player * g.cells + space
    cards, discard = s.cards, s.discard_pile
    if s.swallowed >> i & 1 or not discard:
        raise rejection(s, a)
    replaced = cards[i]
    return end_turn(s, player, space, cards[:i] + (discard[0],) + cards[i + 1:], s.face_up | 1 << i,
                    (replaced,) + discard[1:])


def draw(s: State, a: Draw) -> State:
    """Take the top card of the draw pile, reshuffling first if it is empty (rules 3.4, 5.1, 5.2, 5.4).

    The drawn card is public (rule 8.1); the same player acts again.
    """
    if s.phase is not _TURN or a.player != s.turn:
        raise rejection(s, a)
    pile, discard, dealer = s.draw_pile, s.discard_pile, s.dealer
    if not pile:
        if len(discard) < 2:
            raise rejection(s, a)
        pile, discard, dealer = reshuffle(s.variant, discard, dealer)
    return _new(State, (
        s.variant, _DRAWN, s.round, s.turn, s.cards, s.face_up, s.swallowed, pile[1:], discard,
        pile[0], s.closer, s.opening, s.turns, s.totals, s.history, dealer, s.seq + 1,
    ))


def place_drawn(s: State, a: PlaceDrawn) -> State:
    """Place the drawn card on a remaining space; the replaced card goes face up on the discard
    (rules 3.5, 3.8, 3.10)."""
    player = a.player
    if s.phase is not _DRAWN or player != s.turn:
        raise rejection(s, a)
    g = s.variant._geometry
    try:
        space = g.space_of[(a.row, a.col)]
    except (KeyError, TypeError):
        raise rejection(s, a) from None
    i = player * g.cells + space
    if s.swallowed >> i & 1:
        raise rejection(s, a)
    cards = s.cards
    replaced = cards[i]
    drawn: int = s.drawn  # type: ignore[assignment]  # the drawn phase always holds a card
    return end_turn(s, player, space, cards[:i] + (drawn,) + cards[i + 1:], s.face_up | 1 << i,
                    (replaced,) + s.discard_pile)


def discard_drawn(s: State, a: DiscardDrawn) -> State:
    """Discard the drawn card and flip one of your face-down cards (rules 3.6, 3.10)."""
    player = a.player
    if s.phase is not _DRAWN or player != s.turn:
        raise rejection(s, a)
    g = s.variant._geometry
    try:
        space = g.space_of[(a.row, a.col)]
    except (KeyError, TypeError):
        raise rejection(s, a) from None
    i = player * g.cells + space
    if (s.face_up | s.swallowed) >> i & 1:
        raise rejection(s, a)
    drawn: int = s.drawn  # type: ignore[assignment]
    return end_turn(s, player, space, s.cards, s.face_up | 1 << i, (drawn,) + s.discard_pile)


def flip(s: State, a: Flip) -> State:
    """Flip a face-down card: an opening flip (rule 2.1) or the flip-only turn (rules 3.7, 3.10)."""
    player = a.player
    phase = s.phase
    if phase is _TURN:
        if player != s.turn or not s.variant.flip_turn:
            raise rejection(s, a)
    elif phase is not _OPENING or not 0 <= player < len(s.totals) or \
            len(s.opening[player]) >= s.variant.initial_flips:
        raise rejection(s, a)
    g = s.variant._geometry
    try:
        space = g.space_of[(a.row, a.col)]
    except (KeyError, TypeError):
        raise rejection(s, a) from None
    i = player * g.cells + space
    if (s.face_up | s.swallowed) >> i & 1:
        raise rejection(s, a)
    if phase is _OPENING:
        return opening_flip(s, player, space, i)
    return end_turn(s, player, space, s.cards, s.face_up | 1 << i, s.discard_pile)


def opening_flip(s: State, player: int, space: int, i: int) -> State:
    """Record one opening flip; when every player has made theirs, the opener's turn begins (rules 2.1-2.4).

    A column completed by opening flips is swallowed like any other (rule 4.1).
    """
    v = s.variant
    g = v._geometry
    cards, up, gone, discard = s.cards, s.face_up | 1 << i, s.swallowed, s.discard_pile
    opening = s.opening
    opening = opening[:player] + (opening[player] + (cards[i],),) + opening[player + 1:]
    col = g.column_of[space]
    mask = g.column_masks[col] << (player * g.cells)
    if up & mask == mask:
        cards, up, gone, discard = swallow_column(g, player, col, cards, up, gone, discard)
    if sum(map(len, opening)) == v.initial_flips * len(opening):
        phase, turn = _TURN, choose_opener(v, opening, s.history)
    else:
        phase, turn = _OPENING, -1
    return _new(State, (
        v, phase, s.round, turn, cards, up, gone, s.draw_pile, discard,
        None, None, opening, 0, s.totals, s.history, s.dealer, s.seq + 1,
    ))


def end_turn(
    before: State, player: int, space: int, cards: tuple[int, ...], up: int, discard: tuple[int, ...]
) -> State:
    """Finish `player`'s turn after a card was placed or turned at `space`.

    `cards`, `up` and `discard` are the grids and pile after the action;
    the swallowed spaces and the draw pile are still those of `before`. In
    order: swallow the column if it is now complete (rules 4.1, 4.2); close
    the round if the player has no face-down card left and nobody has closed
    it (rule 6.1); pass the turn to the next seat (rule 3.1); end the round
    when the turn would come back to the closer (rule 6.2) or when the
    stalling cap is reached (rule 6.7).
    """
    v = before.variant
    g = v._geometry
    base = player * g.cells
    gone = before.swallowed
    col = g.column_of[space]
    mask = g.column_masks[col] << base
    if up & mask == mask:  # the column is all face up: swallow it if its cards are equal
        column = cards[base + col:base + g.cells:g.cols]
        if column.count(column[0]) == len(column):
            cards, up, gone, discard = swallow_column(g, player, col, cards, up, gone, discard)
    closer = before.closer
    if closer is None and not g.full_mask & ~((up | gone) >> base):
        closer = player
    turns = before.turns + 1
    nxt = player + 1
    if nxt == len(before.totals):
        nxt = 0
    if nxt == closer or turns == v.max_turns_per_round:
        return end_round(before, cards, up, gone, before.draw_pile, discard, closer, turns)
    return _new(State, (
        v, _TURN, before.round, nxt, cards, up, gone, before.draw_pile, discard,
        None, closer, before.opening, turns, before.totals, before.history, before.dealer, before.seq + 1,
    ))
