"""The observation encoding: a fixed-size vector of one agent's `View`.

An `Observation` encoder is made for one variant and player count;
`abyss_rules.batch.Observation.encode` turns a view into a `float32` vector of
`abyss_rules.batch.Observation.size` numbers. It reads the view only -- never the `State`
-- so an observation holds public facts only (rules 8.1-8.3): two states that differ only
in secrets give identical observations for every agent.

Seats are *relative*: position `k` of every per-seat field is the seat `k` places after the
viewer in turn order (`k = 0` is the viewer), so one policy can play every seat. Card values
are one-hot over the deck's distinct values in ascending order (`K` of them: 15 for the
standard deck). The layout below, written once in `_FIELDS`, gives both the encoder's positions
and the table of the documentation (`abyss_rules.batch.Observation.table`); it is versioned
with the environments' ids (`OBSERVATION_VERSION`).

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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

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

__all__ = ["OBSERVATION_VERSION", "TOTAL_CLIP", "Field", "Observation"]

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
    """What the encoders need besides the view: the layout's sizes and the deck's values."""

    __slots__ = ("players", "cells", "rank", "kinds", "block", "down", "gone", "row", "head", "flips_at",
                 "totals_at", "deck_counts", "deck_list", "deck_size", "need", "scale", "cap", "values",
                 "low", "ranks")

    def __init__(self, variant: Variant, players: int) -> None:
        self.players = players
        self.cells = variant.cells
        self.rank = {value: k for k, (value, _) in enumerate(variant.deck)}
        self.kinds = len(variant.deck)
        self.block = variant.cells * (self.kinds + 2)  # the entries of one grid
        # A face-up card's entry among a space's K + 2 (0: face down, 1: swallowed), and each
        # entry's one-hot row.
        # A space's K + 2 entries as bytes: face down, swallowed, or face up with a value (by value;
        # None, what a public grid shows on a face-down space, gives the face-down row).
        width = self.kinds + 2
        self.down, self.gone = bytes([1] + [0] * (width - 1)), bytes([0, 1] + [0] * (width - 2))
        self.row: dict[int | None, bytes] = {value: bytes(2 + k == j for j in range(width))
                                             for value, k in self.rank.items()}
        self.row[None] = self.down
        self.head = self.flips_at = self.totals_at = 0  # set by the Observation: field starts
        self.deck_counts = np.array([count for _, count in variant.deck], dtype=np.float32)
        self.deck_list = [count for _, count in variant.deck]
        self.deck_size = variant.deck_size
        self.need = variant.initial_flips
        self.scale = totals_scale(variant)
        self.cap = variant.max_turns_per_round
        # For the batch encoder: a card's rank by table lookup when the values span little.
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
    Used by `Observation.encode` and by the environments' `envs._seat_observation`.

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


class _Memo:
    """What `abyss_rules.batch.Observation.encode` remembers of the last view it encoded: its
    discard counts (a `DiscardShares`), its opening flips and its totals (as entries).

    The opening flips and the totals change once or twice a round: their entries are kept for
    the last such fields each viewer saw, compared by identity (the memo holds them, so that an
    identity cannot be reused while they are remembered)."""

    __slots__ = ("context", "discards", "static")

    def __init__(self, context: _Context) -> None:
        self.context = context
        # By viewer: the last opening flips and totals seen, and their entries.
        self.static: dict[int, tuple[object, object, list[tuple[int, float]]]] = {}
        self.discards = DiscardShares(context.rank, context.deck_list)

    def seats(self, opening: tuple[tuple[int, ...], ...], totals: tuple[int, ...], me: int
              ) -> list[tuple[int, float]]:
        """The non-zero entries of the fields `opening_flips` and `totals`, as `(index, value)`, the
        seats in relative order from `me`."""
        found = self.static.get(me)
        if found is not None and found[0] is opening and found[1] is totals:
            return found[2]
        c = self.context
        p, need, scale = c.players, c.need, c.scale
        order = [(me + k) % p for k in range(p)]
        entries = [(c.flips_at + k, len(opening[seat]) / need) for k, seat in enumerate(order) if need]
        entries += [(c.totals_at + k, min(TOTAL_CLIP, max(-TOTAL_CLIP, totals[seat] / scale)))
                    for k, seat in enumerate(order)]
        entries = [(at, value) for at, value in entries if value]
        self.static[me] = (opening, totals, entries)
        return entries


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

    __slots__ = ("variant", "players", "fields", "size", "low", "high", "_context", "_by_name", "_starts",
                 "_memo")

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
        self._context = _Context(variant, players)
        self._by_name = {f.name: f for f in fields}
        starts = {f.name: f.start for f in fields}
        self._starts = tuple(starts[name] for name in ("phase", "to_act", "turn", "closer", "drawn",
                                                       "top_discard", "discard_counts", "draw_pile", "turns"))
        self._context.head = starts["grids"]
        self._context.flips_at, self._context.totals_at = starts["opening_flips"], starts["totals"]
        self._memo = _Memo(self._context)

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__}
        del state["_memo"]  # a cache: rebuilt empty
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._memo = _Memo(self._context)

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
        c, p, memo = self._context, self.players, self._memo
        phase_at, to_act_at, turn_at, closer_at, drawn_at, top_at, counts_at, draw_at, turns_at = self._starts
        viewer = view.viewer
        me = 0 if viewer is None else viewer
        # The one-hot fields before the grids, as bytes (one store per entry is cheapest there) ...
        head = bytearray(c.head)
        head[phase_at + PHASE_CODE[view.phase]] = 1
        if viewer is not None and viewer in view.to_act:
            head[to_act_at] = 1
        if view.turn is not None:
            head[turn_at + (view.turn - me) % p] = 1
        if view.closer is not None:
            head[closer_at + (view.closer - me) % p] = 1
        if view.drawn is not None:
            head[drawn_at + c.rank[view.drawn]] = 1
        pile = view.discard_pile
        if pile:
            head[top_at + c.rank[pile[0]]] = 1
        # ... then the grids, a row of K + 2 bytes per space (the viewer's grid first) ...
        grids, row = view.grids, c.row
        parts: list[bytes | bytearray] = [head]
        for k in range(p):
            grid = grids[(me + k) % p]
            cards = grid.cards
            if True in grid.swallowed or grid.face_up.count(True) + cards.count(None) != len(cards):
                # A swallowed space (or a grid that is not a public snapshot): space by space.
                parts += [c.gone if gone else row[card] if up else c.down
                          for card, up, gone in zip(cards, grid.face_up, grid.swallowed, strict=True)]
            else:
                parts += map(row.__getitem__, cards)
        out: Vector = np.frombuffer(b"".join(parts), dtype=np.uint8).astype(np.float32)
        # ... and the fields of other values, entry by entry.
        for at, value in memo.seats(view.opening, view.totals, me):
            out[at] = value
        if pile:
            out[counts_at:counts_at + c.kinds] = memo.discards.of(pile)
        out[draw_at] = view.draw_pile_size / c.deck_size
        if c.cap is not None:
            out[turns_at] = min(view.turns, c.cap) / c.cap
        return out

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
