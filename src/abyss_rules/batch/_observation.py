"""The observation encoding: a fixed-size vector of one agent's `View`.

An `Observation` encoder is made for one variant and player count;
`abyss_rules.batch.Observation.encode` turns a view into a `float32` vector of
`abyss_rules.batch.Observation.size` numbers. It reads the view only -- never the `State`
-- so an observation holds public facts only (rules 8.1-8.3): two states that differ only
in secrets give identical observations for every agent.

Seats are *relative*: position `k` of every per-seat field is the seat `k` places after the
viewer in turn order (`k = 0` is the viewer), so one policy can play every seat. Card values
are one-hot over the deck's distinct values in ascending order (`K` of them: 15 for the
standard deck). The layout below, written once in `_FIELDS`, gives the encoders' positions and
the table of the documentation (`abyss_rules.batch.Observation.table`); it is versioned with the
environments' ids (`OBSERVATION_VERSION`). One `Writer` writes a vector from public facts
(`Facts`): `Observation.encode` hands it a view's, the environments' `envs._seat_observation` the
same fields of a `State`. `Observation.encode_batch` writes the same layout for a whole `Batch`
from its arrays (equal row by row, a differential test checks it).

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.batch import Observation
    >>> obs = Observation(ar.Variant.standard(), players=2)
    >>> obs.size
    468
    >>> vector = obs.encode(ar.view(ar.new_game(players=2, seed=1), 0))
    >>> vector.dtype, vector.shape, float(vector[obs.slice("phase")][0])   # the opening
    (dtype('float32'), (468,), 1.0)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from itertools import chain, compress
from operator import ne
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import attrs
import numpy as np
import numpy.typing as npt

from ..config import Variant
from ..errors import Code, ConfigError
from ..rules._dealing import player_count_problem
from ..state import Phase
from ..views import View

if TYPE_CHECKING:
    from ._engine import Batch

__all__ = ["LAYOUT", "OBSERVATION_VERSION", "TOTAL_CLIP", "Facts", "Field", "Observation", "Writer",
           "view_facts"]

OBSERVATION_VERSION: Final = 0
"""The version of the observation layout; the `-v0` of `abyss_rules/Solo-v0` and of the AEC
environment's name `abyss_rules_v0`. A change of the layout bumps it and the ids together."""

TOTAL_CLIP: Final = 4.0
"""Totals are encoded as `total / scale`, clipped to `[-TOTAL_CLIP, TOTAL_CLIP]`."""


def totals_scale(variant: Variant) -> float:
    """The scale of the field `totals`: the variant's `target_score`, or 100 without one."""
    return float(variant.target_score or 100)

PHASES: Final = (Phase.OPENING, Phase.TURN, Phase.DRAWN, Phase.GAME_OVER)
"""The phases in the order of the one-hot field `phase` (its codes; `envs._seat_observation` writes
the same field)."""

Vector = npt.NDArray[np.float32]
Array = np.ndarray[Any, Any]


@attrs.frozen(slots=True)
class Field:
    """One field of the layout: `vector[start:stop]`, its meaning and its range."""

    name: str
    """The field's name (the key of `Observation.slice`)."""
    start: int
    """The first index."""
    stop: int
    """One past the last index."""
    low: float
    """The least value an entry takes."""
    high: float
    """The greatest value an entry takes."""
    meaning: str
    """What the entries say, for the documentation's table."""


class _Context:
    """What the batch encoder needs besides the arrays: the deck's values and the variant's numbers."""

    __slots__ = ("deck_counts", "deck_size", "need", "scale", "cap", "values", "low", "ranks")

    def __init__(self, variant: Variant) -> None:
        self.deck_counts = np.array([count for _, count in variant.deck], dtype=np.float32)
        self.deck_size = variant.deck_size
        self.need = variant.initial_flips
        self.scale = totals_scale(variant)
        self.cap = variant.max_turns_per_round
        # A card's rank by table lookup when the values span little.
        self.values = np.array([value for value, _ in variant.deck], dtype=np.int64)
        self.low = int(self.values[0])
        span = int(self.values[-1]) - self.low + 1
        self.ranks: Array | None = None
        if span <= 1 << 12:
            self.ranks = np.zeros(span, dtype=np.int64)
            self.ranks[self.values - self.low] = np.arange(len(self.values))

    def rank_of(self, cards: Array) -> Array:
        """The ranks of `cards` (deck values, any shape) among the deck's values."""
        if self.ranks is not None:
            found: Array = self.ranks[np.asarray(cards, dtype=np.int64) - self.low]
            return found
        return np.searchsorted(self.values, cards)


PHASE_CODE: Final = {phase: code for code, phase in enumerate(PHASES)}
"""Each phase's entry in the one-hot field `phase`."""

class DiscardShares:
    """The field `discard_counts` of one deck: per value, its cards in a discard pile / its cards
    in the deck (`of(pile)`).

    A discard pile changes by its top card at most per action: the counts are those of the last
    pile asked for, updated by its top card when that is all that changed, or counted afresh.
    Used by `Writer`.

    Args:
        rank: Each card value's entry.
        deck: Each entry's cards in the deck.
    """

    __slots__ = ("rank", "deck", "pile", "counts", "shares")

    def __init__(self, rank: dict[int, int], deck: list[int]) -> None:
        self.rank, self.deck = rank, deck
        self.pile: tuple[int, ...] = ()
        self.counts = [0] * len(deck)
        self.shares: Vector = np.zeros(len(deck), dtype=np.float32)

    def of(self, pile: tuple[int, ...]) -> Vector:
        """The entries of `pile` (not empty): a new array when the pile changed, else the last one
        (read it, do not write it)."""
        last = self.pile
        if pile is last:
            return self.shares
        rank, totals = self.rank, self.deck
        counts = list(self.counts)
        shares = self.shares.copy()
        n, m = len(pile), len(last)
        if n == m + 1 and pile[1:] == last:                     # a card put on top
            changed = [rank[pile[0]]]
            counts[changed[0]] += 1
        elif n == m and pile[1:] == last[1:]:                   # the top card replaced
            changed = [rank[last[0]], rank[pile[0]]]
            counts[changed[0]] -= 1
            counts[changed[1]] += 1
        else:                                                   # counted afresh
            counts = [0] * len(totals)
            for card in pile:
                counts[rank[card]] += 1
            changed = list(range(len(totals)))
        for k in changed:
            shares[k] = counts[k] / totals[k]
        self.pile, self.counts, self.shares = pile, counts, shares
        return shares


_Size = Callable[[int, int, int], int]
"""The length of a field from `(players P, cells C, distinct values K)`."""

_FIELDS: Final[tuple[tuple[str, _Size, float, float, str], ...]] = (
    ("phase", lambda p, c, k: 4, 0, 1,
     "one-hot phase: opening, turn, drawn, game over"),
    ("to_act", lambda p, c, k: 1, 0, 1,
     "1 when the viewer may act now (owes an opening flip, or it is its turn)"),
    ("turn", lambda p, c, k: p, 0, 1,
     "one-hot relative seat of the player to move (turn and drawn phases; else all 0)"),
    ("opening_flips", lambda p, c, k: p, 0, 1,
     "per relative seat, opening flips made this round / `initial_flips` (0 when that is 0)"),
    ("closer", lambda p, c, k: p, 0, 1,
     "one-hot relative seat of this round's closer (all 0 before someone closes)"),
    ("drawn", lambda p, c, k: k, 0, 1,
     "one-hot value of the drawn card (drawn phase; else all 0)"),
    ("top_discard", lambda p, c, k: k, 0, 1,
     "one-hot value of the top discard (all 0 when the pile is empty)"),
    ("discard_counts", lambda p, c, k: k, 0, 1,
     "per value, its cards in the discard pile / its cards in the deck"),
    ("draw_pile", lambda p, c, k: 1, 0, 1,
     "cards in the draw pile / cards in the deck"),
    ("turns", lambda p, c, k: 1, 0, 1,
     "turns of this round / `max_turns_per_round` (0 without that cap)"),
    ("totals", lambda p, c, k: p, -TOTAL_CLIP, TOTAL_CLIP,
     f"per relative seat, total / scale (scale: `target_score`, or 100 without one), "
     f"clipped to +-{TOTAL_CLIP:g}"),
    ("grids", lambda p, c, k: p * c * (k + 2), 0, 1,
     "per relative seat, per space (row-major), `K + 2` entries: face down, swallowed, "
     "then the one-hot value of a face-up card"),
)


_FLOAT: Final = np.dtype(np.float32)
_OPENING: Final = Phase.OPENING
_UNSEEN: Final = object()
"""What a viewer's vector was written from before its first call: equal to no fact."""
_PILES: Final = struct.Struct("=2f").pack
_ONE: Final = np.float32(1.0).tobytes()

LAYOUT: Final = tuple(name for name, *_ in _FIELDS)
"""The fields' names in index order."""

Facts: TypeAlias = tuple[Phase, int | None, tuple[int | None, ...], int, int, object, tuple[int, ...],
                         int | None, int | None, tuple[tuple[int, ...], ...], int, tuple[int, ...]]
"""The public facts an observation is written from, in the order of `State`'s fields `phase, turn,
cards, face_up_mask, swallowed_mask, draw_pile, discard_pile, drawn, closer, opening, turns, totals`
(the draw pile's entry is not read: its size is passed apart). `view` exposes each of them."""


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


# How the writer works: each viewer's vector is kept, a `float32` array, with the facts it was
# last written from (a `_Seen`), and a call writes (through the array's bytes) only what changed
# since that viewer's last call, then hands out a copy: the first three fields when the phase,
# `to_act` or the turn changed; the opening flips and the closer when the `opening` tuple or the
# closer did; the drawn card; the top discard and the discard counts when the pile did; the draw
# pile and the turns; the totals when the `totals` tuple did; and of the grids, only the spaces
# whose face-up or swallowed bit or card changed. A step changes one or two spaces, so a call
# writes a few short byte runs instead of the 468 entries of a standard two-player vector.
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
        self.cards: tuple[int | None, ...] | None = None  # None: the grids were never written
        self.up, self.gone = 0, 0


class Writer:
    """The observation of one variant and player count, written from public facts (`Facts`): the
    one definition of a vector that `Observation.encode` (from a `View`) and the environments'
    `envs._seat_observation` (from a `State`'s public fields) both call.

    What reaches the vector comes from the facts `view` copies (rule 8.1). Face-down values never
    reach it: a seat's cards are compared with the last ones seen, face down or not, but that only
    decides which spaces are written again; what a space gets is chosen by its mask bits and, for
    a face-up space alone, its value (rule 8.2).

    Args:
        variant: The rules in play.
        players: The number of players.
        starts: Each field's first index, by name (the fields in the order of `LAYOUT`).
        size: The vector's length.
    """

    __slots__ = ("_size", "_players", "_need", "_cap", "_deck_size", "_scale", "_values", "_none", "_rows",
                 "_at", "_heads", "_orders", "_seen", "_spaces", "_all", "_places", "_discards")

    def __init__(self, variant: Variant, players: int, starts: dict[str, int], size: int) -> None:
        p, k, cells = players, len(variant.deck), variant.cells
        rank = {value: r for r, (value, _) in enumerate(variant.deck)}
        self._size, self._players = size, p
        self._need, self._cap = variant.initial_flips, variant.max_turns_per_round
        self._deck_size = variant.deck_size
        self._scale = totals_scale(variant)
        # The one-hot fields by value: a card's K entries (None: all 0), a space's K + 2 entries.
        self._values: dict[int | None, bytes] = {value: _one_hot(k, r) for value, r in rank.items()}
        self._values[None] = self._none = _one_hot(k, None)
        self._rows: dict[int | str | None, bytes] = {c: _one_hot(k + 2, 2 + r) for c, r in rank.items()}
        self._rows["down"], self._rows["gone"] = _one_hot(k + 2, 0), _one_hot(k + 2, 1)
        self._rows[None] = self._rows["down"]  # a face-up space whose value a hand-built view hides
        # The byte offsets of the fields after the first three (LAYOUT's fields follow one another).
        at = {name: 4 * start for name, start in starts.items()}
        self._at = tuple(at[name] for name in LAYOUT[3:])
        self._heads: dict[tuple[Phase, bool, int], bytes] = {}
        self._orders = tuple(tuple((seat + k) % p for k in range(p)) for seat in range(p))  # viewer first
        self._seen = [_Seen(size) for _ in range(p)]
        # The grids' spaces: the state's space i (seat i // cells) is at byte _places[viewer][i].
        row = 4 * (k + 2)
        self._spaces = range(p * cells)
        self._all = (1 << p * cells) - 1
        self._places = tuple(tuple(at["grids"] + row * (((i // cells - viewer) % p) * cells + i % cells)
                                   for i in self._spaces) for viewer in range(p))
        self._discards = DiscardShares(rank, [count for _, count in variant.deck])

    def write(self, seat: int, acts: bool | None, facts: Facts, draw_size: int) -> Vector:
        """The observation of `seat` (its seat first in every per-seat field): a new `float32` vector.

        Args:
            seat: The viewer (0 for a spectator, with `acts` False).
            acts: The field `to_act`; `None` for the viewer's own: it owes an opening flip, or it
                is its turn.
            facts: The public facts (`Facts`), of this writer's variant and player count.
            draw_size: The number of cards in the draw pile.
        """
        p = self._players
        at_flips, _, at_drawn, at_top, at_shares, at_draw, _, at_totals, at_grids = self._at
        phase, turn, cards, up, gone, _, pile, drawn, closer, opening, turns, totals = facts
        seen = self._seen[seat]
        out = seen.out
        # phase, to_act, turn
        if acts is None:
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
        if draw_size != seen.draw or turns != seen.turns:
            cap = self._cap
            out[at_draw:at_totals] = _PILES(
                draw_size / self._deck_size, min(turns, cap) / cap if cap is not None else 0.0)
            seen.draw, seen.turns = draw_size, turns
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

    def _grids(self, seen: _Seen, seat: int, cards: tuple[int | None, ...], up: int, gone: int) -> None:
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


def view_facts(view: View, bits: tuple[int, ...]) -> Facts:
    """The public facts of `view`, in the order of `Facts`: its grids' cards flattened (`None` on a
    face-down space) and their flags as masks (`bits`: each space's bit), no draw pile."""
    grids = view.grids
    cards = tuple(chain.from_iterable([g.cards for g in grids]))
    up = sum(compress(bits, chain.from_iterable([g.face_up for g in grids])))
    gone = sum(compress(bits, chain.from_iterable([g.swallowed for g in grids])))
    return (view.phase, view.turn, cards, up, gone, None, view.discard_pile, view.drawn, view.closer,
            view.opening, view.turns, view.totals)


class Observation:
    """The observation encoding of one variant and player count (layout version 0).

    Args:
        variant: The rules in play, or a preset's name (the deck's values and the grid's shape
            set the sizes).
        players: The number of players (rule 1.3).

    Raises:
        ConfigError: `invalid_variant` when `variant` is neither a `Variant` nor a preset's name,
            `invalid_players` for
            a player count the variant does not allow.

    Examples:
        >>> import abyss_rules as ar
        >>> obs = Observation(ar.Variant.standard(), players=3)
        >>> obs.slice("grids"), obs.size
        (slice(64, 676, None), 676)
        >>> [f.name for f in obs.fields][:3]
        ['phase', 'to_act', 'turn']
    """

    __slots__ = ("variant", "players", "fields", "size", "low", "high", "_context", "_by_name", "_writer",
                 "_bits")

    def __init__(self, variant: Variant | str, players: int) -> None:
        variant = Variant.resolve(variant)
        if (problem := player_count_problem(variant, players)) is not None:
            raise ConfigError(Code.INVALID_PLAYERS, problem)
        self.variant = variant
        self.players = players
        k = len(variant.deck)
        fields: list[Field] = []
        at = 0
        for name, size, low, high, meaning in _FIELDS:
            n = size(players, variant.cells, k)
            fields.append(Field(name, at, at + n, float(low), float(high), meaning))
            at += n
        self.fields: tuple[Field, ...] = tuple(fields)
        """The layout, in index order."""
        self.size = at
        """The length of an observation vector."""
        self.low: Vector = np.concatenate([np.full(f.stop - f.start, f.low, np.float32) for f in fields])
        """The least value of each entry (the `low` of the observation `Box`)."""
        self.high: Vector = np.concatenate([np.full(f.stop - f.start, f.high, np.float32) for f in fields])
        """The greatest value of each entry (the `high` of the observation `Box`)."""
        self._context = _Context(variant)
        self._by_name = {f.name: f for f in fields}
        self._writer = Writer(variant, players, {f.name: f.start for f in fields}, at)
        self._bits = tuple(1 << i for i in range(players * variant.cells))  # a space's bit in a mask

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__}
        del state["_writer"]  # its memo of the last vectors: rebuilt empty
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._writer = Writer(self.variant, self.players, {f.name: f.start for f in self.fields}, self.size)

    def slice(self, name: str) -> slice:
        """The indices of field `name` in a vector.

        Raises:
            KeyError: There is no such field.
        """
        field = self._by_name[name]
        return slice(field.start, field.stop)

    def encode(self, view: View) -> Vector:
        """The observation of `view`: a new `float32` vector of `size`.

        The viewer's seat comes first in every per-seat field; a spectator's view (viewer
        `None`) is encoded in absolute seat order, with `to_act` 0.

        Raises:
            ConfigError: `view` is not a `View` of this encoder's variant and player count
                (`invalid_variant`, `invalid_players`).

        Examples:
            >>> import abyss_rules as ar
            >>> obs = Observation(ar.Variant.standard(), players=2)
            >>> state = ar.apply(ar.new_game(players=2, seed=1), ar.Flip(1, 0, 0))
            >>> mine, theirs = obs.encode(ar.view(state, 1)), obs.encode(ar.view(state, 0))
            >>> float(mine[obs.slice("opening_flips")][0]), float(theirs[obs.slice("opening_flips")][1])
            (0.5, 0.5)
        """
        if not isinstance(view, View) or (view.variant is not self.variant and view.variant != self.variant):
            raise ConfigError(Code.INVALID_VARIANT, "encode needs a View of this Observation's variant, got "
                              f"{type(view).__name__ if not isinstance(view, View) else 'another variant'}")
        if view.players != self.players:
            raise ConfigError(Code.INVALID_PLAYERS, f"this Observation encodes {self.players}-player games, "
                              f"got a {view.players}-player view")
        viewer = view.viewer
        facts = view_facts(view, self._bits)
        if viewer is None:
            return self._writer.write(0, False, facts, view.draw_pile_size)
        return self._writer.write(viewer, viewer in view.to_act, facts, view.draw_pile_size)

    def encode_batch(self, batch: Batch, viewers: Any) -> npt.NDArray[np.float32]:
        """The observations of every game of a `Batch` at once: row `i` is
        `encode(view(batch.state(i), viewers[i]))`, byte for byte (a differential test checks it).

        Read from the batch's public arrays only: face-down values are masked out before they
        are looked at, the draw pile is a size, the seeds are never read.

        Args:
            batch: `N` games of this encoder's variant and player count.
            viewers: `N` seats, the viewer of each game.

        Returns:
            `(N, size)` `float32`.

        Raises:
            ConfigError: `batch` is of another variant or player count (`invalid_variant`,
                `invalid_players`), or `viewers` is not `N` seats (`invalid_env_option`).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules import batch
            >>> games = batch.Batch.new(players=2, seeds=[4, 5])
            >>> obs = Observation(ar.Variant.standard(), 2)
            >>> rows = obs.encode_batch(games, [0, 1])
            >>> rows.shape, bool((rows[1] == obs.encode(ar.view(games.state(1), 1))).all())
            ((2, 468), True)
        """
        if batch.variant != self.variant:
            raise ConfigError(Code.INVALID_VARIANT,
                              "encode_batch needs a Batch of this Observation's variant")
        p = self.players
        if batch.players != p:
            raise ConfigError(Code.INVALID_PLAYERS, f"this Observation encodes {p}-player games, "
                              f"got a batch of {batch.players}-player games")
        n = len(batch)
        seat = np.asarray(viewers)
        if seat.shape != (n,) or seat.dtype.kind not in "iu" or ((seat < 0) | (seat >= p)).any():
            raise ConfigError(Code.INVALID_ENV_OPTION, f"viewers must be {n} seats from 0 to {p - 1}")
        seat = seat.astype(np.int64)
        c = self._context
        v = self.variant
        low, rank_of = c.low, c.rank_of
        k, cells = len(c.values), v.cells
        rows = np.arange(n)
        order = (seat[:, None] + np.arange(p)) % p                  # (N, P): the seats, viewer first
        out = np.zeros((n, self.size), dtype=np.float32)
        at = {f.name: f.start for f in self.fields}

        phase = np.asarray(batch.phase).astype(np.int64)            # the codes of PHASES
        opening, moving = phase == 0, (phase == 1) | (phase == 2)
        out[rows, at["phase"] + phase] = 1
        up, gone = np.asarray(batch.face_up), np.asarray(batch.swallowed)    # (N, P, C)
        # In the opening every face-up or swallowed card is an opening flip; later, all are made.
        made = np.where(opening[:, None], (up | gone).sum(axis=2), c.need)   # (N, P)
        actor = np.asarray(batch.actor)
        owes = made[rows, seat] < c.need
        out[:, at["to_act"]] = (opening & owes) | (moving & (actor == seat))
        relative = (actor - seat) % p
        out[rows[moving], at["turn"] + relative[moving]] = 1
        if c.need:
            out[:, at["opening_flips"]:at["opening_flips"] + p] = made[rows[:, None], order] / c.need
        closer = np.asarray(batch.closer)
        closed = closer >= 0
        out[rows[closed], at["closer"] + ((closer - seat) % p)[closed]] = 1
        drawn = phase == 2
        out[rows[drawn], at["drawn"] + rank_of(np.asarray(batch.drawn)[drawn])] = 1
        size = np.asarray(batch.discard_size)
        some = size > 0
        out[rows[some], at["top_discard"] + rank_of(np.asarray(batch.top_discard)[some])] = 1
        longest = int(size.max())
        pile = np.asarray(batch.discard_pile)[:, :longest]
        held = np.arange(longest) < size[:, None]
        if c.ranks is not None:  # count by value, then pick the deck's values
            span = len(c.ranks)
            flat = (rows[:, None] * span + (pile.astype(np.int64) - low))[held]
            counts = np.bincount(flat, minlength=n * span).reshape(n, span)[:, c.values - low]
        else:
            flat = (rows[:, None] * k + rank_of(np.where(held, pile, low)))[held]
            counts = np.bincount(flat, minlength=n * k).reshape(n, k)
        out[:, at["discard_counts"]:at["discard_counts"] + k] = counts / c.deck_counts
        out[:, at["draw_pile"]] = np.asarray(batch.draw_size) / c.deck_size
        if c.cap is not None:
            out[:, at["turns"]] = np.minimum(np.asarray(batch.turns), c.cap) / c.cap
        totals = np.asarray(batch.totals)[rows[:, None], order] / c.scale
        out[:, at["totals"]:at["totals"] + p] = np.clip(totals, -TOTAL_CLIP, TOTAL_CLIP)
        # Grids: face-down values are replaced before anything reads them (rule 8.2).
        up, gone = up[rows[:, None], order], gone[rows[:, None], order]
        shown = np.where(up, np.asarray(batch.cards)[rows[:, None], order], low)
        entry = np.where(gone, 1, np.where(up, 2 + rank_of(shown), 0))
        spaces = np.arange(p * cells).reshape(p, cells) * (k + 2) + at["grids"]
        out.reshape(-1)[(rows[:, None, None] * self.size + spaces + entry).ravel()] = 1
        return out

    def table(self) -> str:
        """The layout as a Markdown table: index range, field, length (in `P` players, `C` spaces
        per grid and `K` distinct card values), range and meaning.

        The documentation shows this table for the standard variant and two players; a test
        keeps the two equal.

        Examples:
            >>> import abyss_rules as ar
            >>> print(Observation(ar.Variant.standard(), players=2).table().splitlines()[2])
            | 0-3 | phase | 4 | 0 to 1 | one-hot phase: opening, turn, drawn, game over |
        """
        lines = ["| indices | field | length | range | meaning |", "|---|---|---|---|---|"]
        for f, (_, size, *_rest) in zip(self.fields, _FIELDS, strict=True):
            lines.append(f"| {f.start}-{f.stop - 1} | {f.name} | {_symbolic(size)} | {f.low:g} to {f.high:g} "
                         f"| {f.meaning} |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Observation(players={self.players}, size={self.size}, version={OBSERVATION_VERSION})"


def _symbolic(size: _Size) -> str:
    """A field length as a formula in `P`, `C`, `K` (found by evaluating it at independent values)."""
    base = size(0, 0, 0)
    dp, dc, dk = size(1, 0, 0) - base, size(0, 1, 0) - base, size(0, 0, 1) - base
    if size(1, 1, 0) - base != dp + dc:  # the one product in the layout: P * C * (K + 2)
        return "P*C*(K+2)"
    terms = [f"{d}*{x}" if d != 1 else x for d, x in ((dp, "P"), (dc, "C"), (dk, "K")) if d]
    if base or not terms:
        terms.append(str(base))
    return " + ".join(terms)
