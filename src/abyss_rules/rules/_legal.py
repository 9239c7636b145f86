"""What may be played: the legal actions of a state (spec rules 2.2, 3.2-3.10, 5.4, 7.5).

`legal_actions` lists every legal action in canonical order:

* opening -- `Flip` for every seat that owes flips, by seat, then space;
* turn -- `TakeDiscard` on every remaining space, then `Draw` (if a card
  can be had, rule 5.4), then `Flip` on every face-down space (if
  `flip_turn`);
* drawn -- `PlaceDrawn` on every remaining space, then `DiscardDrawn` on
  every face-down space;
* game over -- nothing (rule 7.5);
* nothing either once the game has taken `COUNTER_LIMIT - 1` actions (rule 3.12).

Spaces go in index order (row-major). Action objects are built once per grid
shape and seat; the legal tuples are cached per seat by the grid's masks.
`seat_legal_actions` (not exported: the RL environments' helper) gives one seat's share of
them as one of those cached tuples.
"""

from __future__ import annotations

from typing import Final

from .._grid import Geometry
from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..caches import BoundedCache, Memo
from ..config import Variant
from ..state import COUNTER_LIMIT, Phase, State
from ._draw_pile import can_draw
from ._illegal import not_a_state

__all__ = ["legal_actions"]

_OPENING = Phase.OPENING
_TURN = Phase.TURN
_DRAWN = Phase.DRAWN
_LAST_SEQ: Final = COUNTER_LIMIT - 1
"""A game that has taken this many actions takes no more (rule 3.12)."""
_CACHE_LIMIT: Final = 1 << 16
"""Entries per cache; a standard grid has 13,122 reachable turn keys per seat."""

Actions = tuple[Action, ...]


class _BySpaces:
    """One seat's actions of one kind, and their sub-tuples by space mask (cached)."""

    __slots__ = ("actions", "geometry", "by_mask")

    def __init__(self, actions: Actions, geometry: Geometry) -> None:
        self.actions = actions
        self.geometry = geometry
        self.by_mask: dict[int, Actions] = {}

    def on(self, mask: int) -> Actions:
        found = self.by_mask.get(mask)
        if found is None:
            actions = self.actions
            found = tuple(actions[s] for s in self.geometry.spaces(mask))
            if len(self.by_mask) >= _CACHE_LIMIT:
                self.by_mask.clear()
            self.by_mask[mask] = found
        return found


class _Seat:
    """Every action object of one seat, by kind, and the seat's caches of legal lists."""

    __slots__ = ("flips", "takes", "places", "discards", "draw", "turn_cache", "drawn_cache")

    def __init__(self, seat: int, geometry: Geometry) -> None:
        positions = geometry.positions
        self.flips = _BySpaces(tuple(Flip(seat, r, c) for r, c in positions), geometry)
        self.takes = _BySpaces(tuple(TakeDiscard(seat, r, c) for r, c in positions), geometry)
        self.places = _BySpaces(tuple(PlaceDrawn(seat, r, c) for r, c in positions), geometry)
        self.discards = _BySpaces(tuple(DiscardDrawn(seat, r, c) for r, c in positions), geometry)
        self.draw: Actions = (Draw(seat),)
        self.turn_cache: dict[int, Actions] = {}
        self.drawn_cache: dict[int, Actions] = {}


def _forget_masks(seats: tuple[_Seat, ...]) -> None:
    for seat in seats:
        seat.turn_cache.clear()
        seat.drawn_cache.clear()
        for kind in (seat.flips, seat.takes, seat.places, seat.discards):
            kind.by_mask.clear()


_SHARED: Final = BoundedCache[tuple[int, int, int], tuple[_Seat, ...]](
    "legal.seats", max_entries=8, max_size=8 * 16, on_clear=_forget_masks)
"""The action tables of the last (rows, cols, max_players) (size: seats); each seat bounds its own caches."""


def _seats(variant: Variant) -> tuple[_Seat, ...]:
    """The action tables of `variant`'s seats, shared by every variant of the same shape and size."""
    key = (variant.rows, variant.cols, variant.max_players)
    seats = _SHARED.get(key)
    if seats is None:
        geometry = variant.geometry
        seats = _SHARED.put(key, tuple(_Seat(p, geometry) for p in range(variant.max_players)),
                            variant.max_players)
    return seats


def _tables(v: Variant) -> tuple[int, int, tuple[_Seat, ...]]:
    """`(cells, full_mask, seats)` of `v`: what the hot path reads."""
    g = v.geometry
    return (g.cells, g.full_mask, _seats(v))


_TABLES: Final = Memo[Variant, tuple[int, int, tuple[_Seat, ...]]](
    "rules.legal.variants", _tables, max_entries=64, max_size=64)
"""`_tables` of the last variants (size: 1; the seats are `_SHARED`'s), the last one in front."""


def _turn_actions(seat: _Seat, v: Variant, key: int, down: int, gone: int) -> Actions:
    """The turn phase's legal actions of `seat` (a cache miss of `legal_actions`)."""
    full = v.geometry.full_mask
    found = seat.takes.on(full & ~gone) if key & 2 else ()
    if key & 4:
        found += seat.draw
    if v.flip_turn:
        found += seat.flips.on(down)
    _store(seat.turn_cache, key, found)
    return found


def _drawn_actions(seat: _Seat, v: Variant, key: int, down: int, gone: int) -> Actions:
    """The drawn phase's legal actions of `seat` (a cache miss of `legal_actions`)."""
    full = v.geometry.full_mask
    found = seat.places.on(full & ~gone) + seat.discards.on(down)
    _store(seat.drawn_cache, key, found)
    return found


def _store(cache: dict[int, Actions], key: int, actions: Actions) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = actions


def _opening_actions(s: State) -> Actions:
    v = s.variant
    seats = _TABLES(v)[2]
    g = v.geometry
    cells, full, need = g.cells, g.full_mask, v.initial_flips
    up_or_gone = s.face_up_mask | s.swallowed_mask
    out: Actions = ()
    for p, flips in enumerate(s.opening):
        if len(flips) < need:
            out += _owed_flips(seats[p], full, up_or_gone >> p * cells)
    return out


def _owed_flips(seat: _Seat, full: int, up_or_gone: int) -> Actions:
    """The opening's legal actions of a seat that still owes flips: `Flip` on each of its face-down
    spaces (rules 2.1, 2.2; `up_or_gone` holds the seat's face-up and swallowed spaces)."""
    return seat.flips.on(full & ~up_or_gone)


def legal_actions(state: State) -> tuple[Action, ...]:
    """Every action that may be applied to `state` now, in canonical order.

    `apply` accepts exactly these (rules 2.2, 3.2-3.10, 3.13, 5.4, 7.5). The
    canonical order is that of spec section 3: by seat, kind and space index;
    `()` once the game is over, and once it has taken `COUNTER_LIMIT - 1` actions (rule 3.12).

    Raises:
        InvalidStateError: `state` is not a `State` (code `invalid_state`; a `TypeError`).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> len(ar.legal_actions(state))        # 2 seats x 12 face-down spaces
        24
        >>> ar.legal_actions(state)[0]
        Flip(player=0, row=0, col=0)
    """
    if type(state) is not State:
        raise not_a_state("legal_actions", state)
    # The hot path: a cache lookup keyed by the player's face-down and swallowed spaces.
    v, phase, _, p, _, up, gone, pile, discard, _, _, _, _, _, _, _, seq = state
    if seq >= _LAST_SEQ:
        return ()
    if phase is _TURN or phase is _DRAWN:
        assert p is not None  # a seat is to act in these phases (rule 3.1)
        last = _TABLES.last
        cells, full, seats = last[1] if last[0] is v else _TABLES(v)
        base = p * cells
        gone = gone >> base & full
        down = full & ~(up >> base | gone)
        seat = seats[p]
        if phase is _TURN:
            key = ((down << cells | gone) << 3 | (4 if can_draw(pile, discard) else 0)
                   | (2 if discard else 0) | v.flip_turn)
            return seat.turn_cache.get(key) or _turn_actions(seat, v, key, down, gone)
        key = down << cells | gone
        return seat.drawn_cache.get(key) or _drawn_actions(seat, v, key, down, gone)
    if phase is _OPENING:
        return _opening_actions(state)
    return ()


def seat_legal_actions(state: State, seat: int) -> tuple[Action, ...]:
    """The legal actions of seat `seat` now: those of `legal_actions(state)` whose player is `seat`,
    in the same order (`()` when the seat may not act).

    The tuple is one of the engine's cached ones, so the same situation gives the same object --
    also in the opening, where `legal_actions` joins every seat's flips into a new tuple.

    No checks (for the engine's own callers): `state` is a `State` and `seat` one of its seats.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.apply(ar.new_game(players=2, seed=1), ar.Flip(1, 0, 0))
        >>> mine = seat_legal_actions(state, 1)
        >>> mine == tuple(a for a in ar.legal_actions(state) if a.player == 1), len(mine)
        (True, 11)
        >>> mine is seat_legal_actions(state, 1)
        True
    """
    phase = state.phase
    if state.seq >= _LAST_SEQ:
        return ()
    if phase is _OPENING:
        v = state.variant
        if len(state.opening[seat]) >= v.initial_flips:
            return ()
        g = v.geometry
        return _owed_flips(_TABLES(v)[2][seat], g.full_mask,
                           (state.face_up_mask | state.swallowed_mask) >> seat * g.cells)
    if (phase is _TURN or phase is _DRAWN) and seat == state.turn:  # every legal action is the mover's
        return legal_actions(state)
    return ()
