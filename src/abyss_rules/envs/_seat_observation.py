"""A seat's observation straight from the `State`: the single-game environments' fast path.

`SeatObservation(observation).encode(state, seat)` is `observation.encode(view(state, seat))`,
byte for byte, without building the `View`: the environments encode one seat's observation
per step, and the view cost as much as its encoding. It is a shortcut, so it states its
conditions and a property test proves it equal to the long way:

* `state` is a `State` of the encoder's variant and player count and `seat` one of its seats
  (the environments' own states and seats: nothing is checked);
* the layout is that of `Observation` (layout version 0: the fields in the order of
  `Observation.fields`, checked when a `SeatObservation` is made);
* what reaches the vector comes from the facts `view` copies (rule 8.1): the phase, the turn,
  the closer, the drawn card, the discard pile, the size of the draw pile, the turns, the
  totals, the opening flips and, of the grids, the masks and the values of face-up spaces.
  Face-down values never reach it (a seat's cards are compared with the last ones seen, face
  down or not, but that only decides which spaces are written again; what a space gets is
  chosen by its mask bits and, for a face-up space alone, its value), nor do the draw pile's
  cards or the dealer (rule 8.2; the secrecy tests run on this path too).

Two tiers write the same bytes. The compiled one (`_seat_encode.c`, built with the wheel; the
default where it is, see `COMPILED`) writes the whole vector in C from the state's public
fields, reading a space's card only when the space is face up. The pure one is the reference
and the fallback.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.envs import Observation
    >>> from abyss_rules.envs._seat_observation import SeatObservation
    >>> obs = Observation(ar.Variant.standard(), players=2)
    >>> fast = SeatObservation(obs)
    >>> state = ar.apply(ar.new_game(players=2, seed=1), ar.Flip(1, 0, 0))
    >>> fast.encode(state, 0).tobytes() == obs.encode(ar.view(state, 0)).tobytes()
    True
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Callable
from itertools import compress
from operator import attrgetter, ne
from typing import Any, Final

import numpy as np

from ..batch._observation import PHASE_CODE, PHASES, DiscardShares, totals_scale
from ..errors import Code, ConfigError
from ..state import Phase, State
from ._observation import TOTAL_CLIP, Observation, Vector

__all__ = ["COMPILED", "SeatObservation"]

_encode_into: Callable[[Vector, int, tuple[Any, ...], tuple[Any, ...], bytes, bytes], None] | None = None
"""The compiled tier (`_seat_encode.c`, built with the wheel), or None: the pure tier only."""
if os.environ.get("ABYSS_RULES_PURE") != "1":
    with contextlib.suppress(ImportError):  # (an editable install or a pure wheel: the pure tier)
        from .._seat_encode import encode_into as _encode_into

COMPILED: Final[bool] = _encode_into is not None
"""Whether `SeatObservation` writes its vectors in compiled code by default: a wheel's build
compiles `_seat_encode.c` beside the bots, and the same bytes come out either way (the tests
compare both tiers with the view's encoding). `False` in an editable install, a pure wheel, or
when the environment sets `ABYSS_RULES_PURE=1` at import."""

LAYOUT: Final = ("phase", "to_act", "turn", "opening_flips", "closer", "drawn", "top_discard",
                 "discard_counts", "draw_pile", "turns", "totals", "grids")
"""The fields in the order this encoder writes them: those of `Observation` (layout version 0)."""

_FLOAT: Final = np.dtype(np.float32)
_EMPTY: Final = np.empty
_OPENING: Final = Phase.OPENING
_UNSEEN: Final = object()
"""What a viewer's vector was written from before its first call: equal to no fact."""
_READ: Final = attrgetter("phase", "turn", "cards", "face_up_mask", "swallowed_mask", "draw_pile",
                          "discard_pile", "drawn", "closer", "opening", "turns", "totals")
"""The fields `encode` reads, in one call (the dealer and the history are not among them)."""
_PILES: Final = struct.Struct("=2f").pack
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


# How the pure tier works: each viewer's vector is kept, a `float32` array, with the facts it was
# last written from (a `_Seen`), and a call writes (through the array's bytes) only what changed
# since that viewer's last call, then hands out a copy: the first three fields when the phase,
# `to_act` or the turn changed; the opening flips and the closer when the `opening` tuple or the
# closer did; the drawn card; the top discard and the discard counts when the pile did (the counts
# from the `DiscardShares` that `Observation.encode` uses too); the draw pile and the turns; the
# totals when the `totals` tuple did; and of the grids, only the spaces whose face-up or swallowed
# bit or card changed. A step changes one or two spaces, so a call writes a few short byte runs
# instead of the 468 entries of a standard two-player vector.
class _Seen:
    """One viewer's vector as it stands (its `float32` bytes) and the facts it was written from."""

    __slots__ = ("vector", "out", "head", "opening", "closer", "drawn", "pile", "draw", "turns", "totals",
                 "cards", "up", "gone")

    def __init__(self, size: int) -> None:
        self.vector: Vector = np.zeros(size, _FLOAT)
        self.out = self.vector.data.cast("B")  # its bytes, written in place
        self.head: object = _UNSEEN
        self.opening: object = _UNSEEN
        self.closer: object = _UNSEEN
        self.drawn: object = _UNSEEN
        self.pile: object = _UNSEEN
        self.draw, self.turns = -1, -1
        self.totals: object = _UNSEEN
        self.cards: tuple[int, ...] | None = None  # None: the grids were never written
        self.up, self.gone = 0, 0


class SeatObservation:
    """The fast path of one `Observation`: `encode(state, seat)` (see
    `abyss_rules.envs._seat_observation`).

    Args:
        observation: The encoding to reproduce.
        compiled: Write the vectors in compiled code (`True`), in Python (`False`), or in
            compiled code where the wheel has it (`None`, the default: see `COMPILED`).

    Raises:
        ConfigError: `observation` is not an `Observation` of the layout this path writes, or
            `compiled=True` where there is no compiled tier (`invalid_env_option`).
    """

    __slots__ = ("observation", "compiled", "_option", "_c", "_size", "_mask_bytes", "_players", "_need",
                 "_cap", "_deck_size", "_rank", "_deck_list", "_kinds",
                 "_heads", "_values", "_rows", "_orders", "_seen", "_at", "_spaces", "_all", "_places",
                 "_discards", "_none", "_scale")

    def __init__(self, observation: Observation, compiled: bool | None = None) -> None:
        if not isinstance(observation, Observation) or tuple(f.name for f in observation.fields) != LAYOUT:
            raise ConfigError(Code.INVALID_ENV_OPTION, "a SeatObservation needs an Observation of layout "
                                                       f"{LAYOUT}")
        if compiled not in (None, True, False):
            raise ConfigError(Code.INVALID_ENV_OPTION,
                              f"compiled must be None, True or False, got {compiled!r}")
        if compiled and not COMPILED:
            raise ConfigError(Code.INVALID_ENV_OPTION, "compiled=True, but this installation has no compiled "
                                                       "observation (an editable install, a pure wheel or "
                                                       "ABYSS_RULES_PURE=1)")
        self.observation = observation
        """The encoding reproduced."""
        self.compiled: bool = COMPILED if compiled is None else compiled
        """Whether the vectors are written in compiled code."""
        self._option = compiled
        v = observation.variant
        p, k, cells = observation.players, len(v.deck), v.cells
        self._size, self._mask_bytes = observation.size, (p * cells + 7) // 8
        self._players = p
        self._need, self._cap, self._deck_size = v.initial_flips, v.max_turns_per_round, v.deck_size
        self._scale = totals_scale(v)
        self._rank = {value: r for r, (value, _) in enumerate(v.deck)}
        self._deck_list = [count for _, count in v.deck]
        self._c: tuple[Any, ...] | None = None
        if self.compiled:  # the compiled tier's constants (see _seat_encode.c), from the same tables
            low, high = min(self._rank), max(self._rank)
            ranks = [self._rank.get(value, -1) for value in range(low, high + 1)]
            cap = -1 if self._cap is None else self._cap
            table = [p, cells, k, self._need, cap, self._deck_size, low, high - low + 1, *ranks,
                     *self._deck_list]
            self._c = (PHASES, np.array(table, np.int32).tobytes(), self._scale, float(TOTAL_CLIP))
        self._kinds = k
        # The one-hot fields by value: a card's K entries (None: all 0), a space's K + 2 entries.
        self._values: dict[int | None, bytes] = {value: _one_hot(k, r) for value, r in self._rank.items()}
        self._values[None] = self._none = _one_hot(k, None)
        self._rows: dict[int | str, bytes] = {c: _one_hot(k + 2, 2 + r) for c, r in self._rank.items()}
        self._rows["down"], self._rows["gone"] = _one_hot(k + 2, 0), _one_hot(k + 2, 1)
        # The byte offsets of the fields after the first three (LAYOUT's fields follow one another).
        starts = {f.name: 4 * f.start for f in observation.fields}
        self._at = tuple(starts[name] for name in LAYOUT[3:])
        self._heads: dict[tuple[Phase, bool, int], bytes] = {}
        self._orders = tuple(tuple((seat + k) % p for k in range(p)) for seat in range(p))  # viewer first
        self._seen = [_Seen(observation.size) for _ in range(p)]
        # The grids' spaces: the state's space i (seat i // cells) is at byte _places[viewer][i].
        row = 4 * (k + 2)
        self._spaces = range(p * cells)
        self._all = (1 << p * cells) - 1
        self._places = tuple(tuple(starts["grids"] + row * (((i // cells - viewer) % p) * cells + i % cells)
                                   for i in self._spaces) for viewer in range(p))
        self._discards = DiscardShares(self._rank, self._deck_list)

    def __getstate__(self) -> dict[str, Any]:
        return {"observation": self.observation, "compiled": self._option}  # the memos are rebuilt empty

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["observation"], state.get("compiled"))  # type: ignore[misc]

    def encode(self, state: State, seat: int) -> Vector:
        """`observation.encode(view(state, seat))`: a new `float32` vector, from public facts only.

        Under the conditions of `abyss_rules.envs._seat_observation` (not checked).
        """
        c = self._c
        if c is not None:  # the compiled tier: the whole vector, from the same public fields
            assert _encode_into is not None
            fields = _READ(state)
            vector: Vector = _EMPTY(self._size, _FLOAT)
            n = self._mask_bytes
            _encode_into(vector, seat, fields, c, fields[3].to_bytes(n, "little"),
                         fields[4].to_bytes(n, "little"))
            return vector
        p = self._players
        at_flips, _, at_drawn, at_top, at_shares, at_draw, _, at_totals, at_grids = self._at
        # The state's public fields at once, by name (of the draw pile only its length is used).
        phase, turn, cards, up, gone, draw, pile, drawn, closer, opening, turns, totals = _READ(state)
        seen = self._seen[seat]
        out = seen.out
        # phase, to_act, turn
        acts = len(opening[seat]) < self._need if phase is _OPENING else turn == seat
        key = (phase, acts, (turn - seat) % p if turn is not None else -1)
        if key != seen.head:
            head = self._heads.get(key)
            if head is None:
                head = self._heads[key] = (_one_hot(4, PHASE_CODE[phase]) + (_ONE if acts else bytes(4))
                                           + _one_hot(p, key[2] if key[2] >= 0 else None))
            out[:at_flips] = head
            seen.head = key
        # opening_flips, closer
        if opening is not seen.opening or closer != seen.closer:
            need = self._need
            out[at_flips:at_drawn] = _floats(
                [len(opening[s]) / need if need else 0.0 for s in self._orders[seat]]) + _one_hot(
                p, None if closer is None else (closer - seat) % p)
            seen.opening, seen.closer = opening, closer
        # drawn
        if drawn != seen.drawn:
            out[at_drawn:at_top] = self._values[drawn]
            seen.drawn = drawn
        # top_discard, discard_counts
        if pile is not seen.pile:
            if pile:
                out[at_top:at_shares] = self._values[pile[0]]
                out[at_shares:at_draw] = self._discards.of(pile).tobytes()
            else:
                out[at_top:at_shares] = out[at_shares:at_draw] = self._none
            seen.pile = pile
        # draw_pile, turns
        size = len(draw)
        if size != seen.draw or turns != seen.turns:
            cap = self._cap
            out[at_draw:at_totals] = _PILES(
                size / self._deck_size, min(turns, cap) / cap if cap is not None else 0.0)
            seen.draw, seen.turns = size, turns
        # totals
        if totals is not seen.totals:
            scale = self._scale
            out[at_totals:at_grids] = _floats(
                [min(TOTAL_CLIP, max(-TOTAL_CLIP, totals[s] / scale)) for s in self._orders[seat]])
            seen.totals = totals
        # grids, the viewer's first
        if cards is not seen.cards or up != seen.up or gone != seen.gone:
            self._grids(seen, seat, cards, up, gone)
        return seen.vector.copy()

    def _grids(self, seen: _Seen, seat: int, cards: tuple[int, ...], up: int, gone: int) -> None:
        """Rewrite the entries of the spaces whose mask bits or cards changed since `seen` was
        written: per space, swallowed, the face-up value, or face down. A face-down value only
        decides whether a space is rewritten (it is compared with the last one), never what is
        written."""
        before = seen.cards
        if before is None:
            changed = self._all
        else:
            changed = (up ^ seen.up) | (gone ^ seen.gone)
            if cards is not before:
                for i in compress(self._spaces, map(ne, cards, before)):
                    changed |= 1 << i
        rows, places, out = self._rows, self._places[seat], seen.out
        down, swallowed = rows["down"], rows["gone"]
        while changed:
            bit = changed & -changed
            changed ^= bit
            i = bit.bit_length() - 1
            at = places[i]
            out[at:at + len(down)] = swallowed if gone & bit else rows[cards[i]] if up & bit else down
        seen.cards, seen.up, seen.gone = cards, up, gone
