"""A seat's observation straight from the `State`: the single-game environments' fast path.

`SeatObservation(observation).encode(state, seat)` is `observation.encode(view(state, seat))`,
byte for byte, without building the `View`: the environments encode one seat's observation
per step, and the view cost as much as its encoding. It is a shortcut, so it states its
conditions and a property test proves it equal to the long way:

* `state` is a `State` of the encoder's variant and player count and `seat` one of its seats
  (the environments' own states and seats: nothing is checked);
* the layout is that of `Observation` (layout version 0: the fields in the order of
  `Observation.fields`, checked when a `SeatObservation` is made);
* it reads the fields `view` copies (rule 8.1) and nothing else: the phase, the turn, the
  closer, the drawn card, the discard pile, the size of the draw pile, the turns, the totals,
  the opening flips and, of the grids, the masks and the values of face-up spaces. Face-down
  values, the draw pile's cards and the dealer are never read into the vector (rule 8.2; the
  secrecy test runs on this path too).

How: the vector is joined from `float32` byte blocks -- the fields before the grids in a few
blocks, each seat's grid in one -- and every block that did not change since the last call is
reused: a seat's grid block is kept with that seat's masks and cards (the key holds the grid's
face-down values too, which only decides whether the block is built again, never what it says),
the opening flips with the `opening` tuple, the totals with the `totals` tuple, the discard
counts with the pile (updated by its top card, as `Observation.encode` does).

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.envs import Observation
    >>> from abyss_rules.envs.seat_observation import SeatObservation
    >>> obs = Observation(ar.Variant.standard(), players=2)
    >>> fast = SeatObservation(obs)
    >>> state = ar.apply(ar.new_game(players=2, seed=1), ar.Flip(1, 0, 0))
    >>> fast.encode(state, 0).tobytes() == obs.encode(ar.view(state, 0)).tobytes()
    True
"""

from __future__ import annotations

import struct
from typing import Any, Final

import numpy as np

from ..errors import Code, ConfigError
from ..state import Phase, State
from .observation import TOTAL_CLIP, Observation, Vector

__all__ = ["SeatObservation"]

LAYOUT: Final = ("phase", "to_act", "turn", "opening_flips", "closer", "drawn", "top_discard",
                 "discard_counts", "draw_pile", "turns", "totals", "grids")
"""The fields in the order this encoder writes them: those of `Observation` (layout version 0)."""

_PHASE_CODE: Final = {Phase.OPENING: 0, Phase.TURN: 1, Phase.DRAWN: 2, Phase.GAME_OVER: 3}
"""The entry of each phase in the one-hot field `phase` (the order of its meaning)."""

_FLOAT: Final = np.dtype(np.float32)
_ONE: Final = np.float32(1.0).tobytes()


def _floats(values: list[float]) -> bytes:
    """`values` as `float32` bytes, each rounded to the nearest `float32` as NumPy rounds a Python
    float stored in a `float32` array (`struct` and NumPy both use the C conversion)."""
    return struct.pack(f"={len(values)}f", *values)


def _one_hot(n: int, at: int | None) -> bytes:
    """`n` `float32` zeros, with a one at `at` (none when `at` is `None`)."""
    out = bytearray(4 * n)
    if at is not None:
        out[4 * at:4 * at + 4] = _ONE
    return bytes(out)


class SeatObservation:
    """The fast path of one `Observation`: `encode(state, seat)` (see
    `abyss_rules.envs.seat_observation`).

    Args:
        observation: The encoding to reproduce.

    Raises:
        ConfigError: `observation` is not an `Observation` of the layout this path writes
            (`invalid_env_option`).
    """

    __slots__ = ("observation", "_players", "_cells", "_full", "_need", "_cap", "_deck_size", "_rank",
                 "_deck_list", "_kinds", "_heads", "_values", "_grids", "_rows", "_down", "_gone", "_flips",
                 "_totals", "_pile", "_counts", "_shares", "_none", "_scale")

    def __init__(self, observation: Observation) -> None:
        if not isinstance(observation, Observation) or tuple(f.name for f in observation.fields) != LAYOUT:
            raise ConfigError(Code.INVALID_ENV_OPTION, "a SeatObservation needs an Observation of layout "
                                                       f"{LAYOUT}")
        self.observation = observation
        """The encoding reproduced."""
        v = observation.variant
        p, k = observation.players, len(v.deck)
        self._players, self._cells, self._full = p, v.cells, (1 << v.cells) - 1
        self._need, self._cap, self._deck_size = v.initial_flips, v.max_turns_per_round, v.deck_size
        self._scale = float(v.target_score or 100)
        self._rank = {value: r for r, (value, _) in enumerate(v.deck)}
        self._deck_list = [count for _, count in v.deck]
        self._kinds = k
        # The one-hot fields by value: a card's K entries (None: all 0), a space's K + 2 entries.
        self._values: dict[int | None, bytes] = {value: _one_hot(k, r) for value, r in self._rank.items()}
        self._values[None] = self._none = _one_hot(k, None)
        self._rows = {value: _one_hot(k + 2, 2 + r) for value, r in self._rank.items()}
        self._down, self._gone = _one_hot(k + 2, 0), _one_hot(k + 2, 1)
        # Memos (see the module's docstring).
        self._heads: dict[tuple[int, bool, int], bytes] = {}
        self._grids: list[tuple[object, int, int, tuple[int, ...], bytes]] = [(None, -1, -1, (), b"")] * p
        self._flips: dict[int, tuple[object, object, bytes]] = {}
        self._totals: dict[int, tuple[object, bytes]] = {}
        self._pile: tuple[int, ...] = ()
        self._counts = [0] * k
        self._shares = self._none

    def __getstate__(self) -> dict[str, Any]:
        return {"observation": self.observation}  # the memos are rebuilt empty

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["observation"])  # type: ignore[misc]

    def encode(self, state: State, seat: int) -> Vector:
        """`observation.encode(view(state, seat))`: a new `float32` vector, from public facts only.

        Under the conditions of `abyss_rules.envs.seat_observation` (not checked).
        """
        p = self._players
        phase, turn, opening = state.phase, state.turn, state.opening
        # phase, to_act, turn
        acts = len(opening[seat]) < self._need if phase is Phase.OPENING else turn == seat
        key = (_PHASE_CODE[phase], acts, (turn - seat) % p if turn >= 0 else -1)
        head = self._heads.get(key)
        if head is None:
            head = self._heads[key] = (_one_hot(4, key[0]) + (_ONE if acts else bytes(4))
                                       + _one_hot(p, key[2] if key[2] >= 0 else None))
        # opening_flips, closer
        closer = state.closer
        flips = self._flips.get(seat)
        if flips is None or flips[0] is not opening or flips[1] != closer:
            need = self._need
            order = [(seat + k) % p for k in range(p)]
            block = _floats([len(opening[s]) / need if need else 0.0 for s in order]) + _one_hot(
                p, None if closer is None else (closer - seat) % p)
            flips = self._flips[seat] = (opening, closer, block)
        # drawn, top_discard, discard_counts
        pile = state.discard_pile
        values = self._values
        if pile:
            top, shares = values[pile[0]], self._discard_counts(pile)
        else:
            top = shares = self._none
        # draw_pile, turns
        cap = self._cap
        piles = struct.pack("=2f", len(state.draw_pile) / self._deck_size,
                            min(state.turns, cap) / cap if cap is not None else 0.0)
        # totals
        totals = state.totals
        scores = self._totals.get(seat)
        if scores is None or scores[0] is not totals:
            scale = self._scale
            scores = self._totals[seat] = (totals, _floats(
                [min(TOTAL_CLIP, max(-TOTAL_CLIP, totals[(seat + k) % p] / scale)) for k in range(p)]))
        parts = [head, flips[2], values[state.drawn], top, shares, piles, scores[1]]
        # grids, the viewer's first
        cards, up, gone = state.cards, state.face_up, state.swallowed
        cells, full, grids = self._cells, self._full, self._grids
        for k in range(p):
            s = (seat + k) % p
            base = s * cells
            mine_up, mine_gone = up >> base & full, gone >> base & full
            last = grids[s]
            if last[1] == mine_up and last[2] == mine_gone:
                if last[0] is cards:
                    parts.append(last[4])
                    continue
                mine = cards[base:base + cells]
                if mine == last[3]:
                    grids[s] = (cards, mine_up, mine_gone, mine, last[4])
                    parts.append(last[4])
                    continue
            else:
                mine = cards[base:base + cells]
            block = self._grid(mine, mine_up, mine_gone)
            grids[s] = (cards, mine_up, mine_gone, mine, block)
            parts.append(block)
        out: Vector = np.frombuffer(bytearray().join(parts), dtype=_FLOAT)
        return out

    def _grid(self, cards: tuple[int, ...], up: int, gone: int) -> bytes:
        """One seat's grid entries: per space, swallowed, the face-up value, or face down (never
        a face-down value)."""
        rows, down, swallowed = self._rows, self._down, self._gone
        return b"".join([swallowed if gone >> s & 1 else rows[card] if up >> s & 1 else down
                         for s, card in enumerate(cards)])

    def _discard_counts(self, pile: tuple[int, ...]) -> bytes:
        """Per value, its cards in `pile` / its cards in the deck (`pile` not empty), kept from the
        last pile and updated by its top card when that is all that changed."""
        last = self._pile
        if pile is last:
            return self._shares
        rank = self._rank
        counts = self._counts
        n, m = len(pile), len(last)
        if n == m + 1 and pile[1:] == last:         # a card put on top
            counts[rank[pile[0]]] += 1
        elif n == m and pile[1:] == last[1:]:       # the top card replaced
            counts[rank[last[0]]] -= 1
            counts[rank[pile[0]]] += 1
        else:                                       # counted afresh
            counts = self._counts = [0] * self._kinds
            for card in pile:
                counts[rank[card]] += 1
        self._pile = pile
        self._shares = _floats([c / t for c, t in zip(counts, self._deck_list, strict=True)])
        return self._shares
