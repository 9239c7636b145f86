"""The observation encoding: a fixed-size vector of one agent's `View`.

An `Observation` encoder is made for one variant and player count;
`abyss_rules.envs.Observation.encode` turns a view into a `float32` vector of
`abyss_rules.envs.Observation.size` numbers. It reads the view only -- never the `State`
-- so an observation holds public facts only (rules 8.1-8.3): two states that differ
only in secrets give identical observations for every agent.

Seats are *relative*: position `k` of every per-seat field is the seat `k` places after the
viewer in turn order (`k = 0` is the viewer), so one policy can play every seat. Card values
are one-hot over the deck's distinct values in ascending order (`K` of them: 15 for the
standard deck). The layout below, written once in `_FIELDS`, gives both the encoder and the
table of the documentation (`abyss_rules.envs.Observation.table`); it is versioned with the
environments' ids (`OBSERVATION_VERSION`).

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.envs import Observation
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
from ..rules.dealing import player_count_problem
from ..state import Phase
from ..views import View

if TYPE_CHECKING:  # the batch engine is imported by the vector environment only
    from ..batch import Batch

__all__ = ["OBSERVATION_VERSION", "TOTAL_CLIP", "Field", "Observation"]

OBSERVATION_VERSION: Final = 0
"""The version of the observation layout; the `-v0` of `abyss_rules/Solo-v0` and of the AEC
environment's name `abyss_rules_v0`. A change of the layout bumps it and the ids together."""

TOTAL_CLIP: Final = 4.0
"""Totals are encoded as `total / scale`, clipped to `[-TOTAL_CLIP, TOTAL_CLIP]`."""

_PHASES: Final = (Phase.OPENING, Phase.TURN, Phase.DRAWN, Phase.GAME_OVER)

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
    """What a field writer needs besides the view: the layout's sizes and the viewer's seat order."""

    __slots__ = ("players", "cells", "rank", "deck_counts", "deck_list", "deck_size", "need", "scale", "cap",
                 "values", "low", "ranks")

    def __init__(self, variant: Variant, players: int) -> None:
        self.players = players
        self.cells = variant.cells
        self.rank = {value: k for k, (value, _) in enumerate(variant.deck)}
        self.deck_counts = np.array([count for _, count in variant.deck], dtype=np.float32)
        self.deck_list = [count for _, count in variant.deck]
        self.deck_size = variant.deck_size
        self.need = variant.initial_flips
        self.scale = float(variant.target_score or 100)
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


class _Out:
    """What the field writers produce: the indices holding 1 and the few other non-zero entries
    (made into a `float32` vector at the end: one store per entry in NumPy costs more)."""

    __slots__ = ("hot", "index", "value")

    def __init__(self) -> None:
        self.hot: list[int] = []
        self.index: list[int] = []
        self.value: list[float] = []

    def set(self, at: int, value: float) -> None:
        self.index.append(at)
        self.value.append(value)


Writer = Callable[[_Context, View, tuple[int, ...], _Out, int], None]
"""Writes one field of `view` from index `at` on, given the seats in relative order (the viewer first)."""


def _phase(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    out.hot.append(at + _PHASES.index(v.phase))


def _to_act(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    if v.viewer is not None and v.viewer in v.to_act:
        out.hot.append(at)


def _seat_hot(pick: Callable[[View], int | None]) -> Writer:
    """A writer of a one-hot over relative seats: the seat `pick(view)` names, if any."""

    def write(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
        seat = pick(v)
        if seat is not None:
            out.hot.append(at + order.index(seat))

    return write


def _value_hot(pick: Callable[[View], int | None]) -> Writer:
    """A writer of a one-hot over the deck's values: the card `pick(view)` names, if any."""

    def write(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
        card = pick(v)
        if card is not None:
            out.hot.append(at + c.rank[card])

    return write


def _opening_flips(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    if c.need:
        for k, seat in enumerate(order):
            out.set(at + k, len(v.opening[seat]) / c.need)


def _discard_counts(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    rank = c.rank
    counts = [0] * len(rank)
    for card in v.discard_pile:
        counts[rank[card]] += 1
    for k, (n, total) in enumerate(zip(counts, c.deck_list, strict=True)):
        if n:
            out.set(at + k, n / total)


def _draw_pile(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    out.set(at, v.draw_pile_size / c.deck_size)


def _turns(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    if c.cap is not None:
        out.set(at, min(v.turns, c.cap) / c.cap)


def _grids(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    rank, hot = c.rank, out.hot
    width = len(rank) + 2
    for seat in order:
        grid = v.grids[seat]
        for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True):
            if gone:
                hot.append(at + 1)
            elif up:
                assert card is not None
                hot.append(at + 2 + rank[card])
            else:
                hot.append(at)
            at += width


def _totals(c: _Context, v: View, order: tuple[int, ...], out: _Out, at: int) -> None:
    scale = c.scale
    for k, seat in enumerate(order):
        out.set(at + k, min(TOTAL_CLIP, max(-TOTAL_CLIP, v.totals[seat] / scale)))


_Size = Callable[[int, int, int], int]
"""The length of a field from `(players P, cells C, distinct values K)`."""

_FIELDS: Final[tuple[tuple[str, _Size, float, float, str, Writer], ...]] = (
    ("phase", lambda p, c, k: 4, 0, 1,
     "one-hot phase: opening, turn, drawn, game over", _phase),
    ("to_act", lambda p, c, k: 1, 0, 1,
     "1 when the viewer may act now (owes an opening flip, or it is its turn)", _to_act),
    ("turn", lambda p, c, k: p, 0, 1,
     "one-hot relative seat of the player to move (turn and drawn phases; else all 0)",
     _seat_hot(lambda v: v.turn)),
    ("opening_flips", lambda p, c, k: p, 0, 1,
     "per relative seat, opening flips made this round / `initial_flips` (0 when that is 0)",
     _opening_flips),
    ("closer", lambda p, c, k: p, 0, 1,
     "one-hot relative seat of this round's closer (all 0 before someone closes)",
     _seat_hot(lambda v: v.closer)),
    ("drawn", lambda p, c, k: k, 0, 1,
     "one-hot value of the drawn card (drawn phase; else all 0)", _value_hot(lambda v: v.drawn)),
    ("top_discard", lambda p, c, k: k, 0, 1,
     "one-hot value of the top discard (all 0 when the pile is empty)",
     _value_hot(lambda v: v.top_discard)),
    ("discard_counts", lambda p, c, k: k, 0, 1,
     "per value, its cards in the discard pile / its cards in the deck", _discard_counts),
    ("draw_pile", lambda p, c, k: 1, 0, 1,
     "cards in the draw pile / cards in the deck", _draw_pile),
    ("turns", lambda p, c, k: 1, 0, 1,
     "turns of this round / `max_turns_per_round` (0 without that cap)", _turns),
    ("totals", lambda p, c, k: p, -TOTAL_CLIP, TOTAL_CLIP,
     f"per relative seat, total / scale (scale: `target_score`, or 100 without one), "
     f"clipped to +-{TOTAL_CLIP:g}", _totals),
    ("grids", lambda p, c, k: p * c * (k + 2), 0, 1,
     "per relative seat, per space (row-major), `K + 2` entries: face down, swallowed, "
     "then the one-hot value of a face-up card", _grids),
)


class Observation:
    """The observation encoding of one variant and player count (layout version 0).

    Args:
        variant: The rules in play (the deck's values and the grid's shape set the sizes).
        players: The number of players (rule 1.3).

    Raises:
        ConfigError: `invalid_variant` when `variant` is not a `Variant`, `invalid_players` for
            a player count the variant does not allow.

    Examples:
        >>> import abyss_rules as ar
        >>> obs = Observation(ar.Variant.standard(), players=3)
        >>> obs.slice("grids"), obs.size
        (slice(64, 676, None), 676)
        >>> [f.name for f in obs.fields][:3]
        ['phase', 'to_act', 'turn']
    """

    __slots__ = ("variant", "players", "fields", "size", "low", "high", "_context", "_writers", "_by_name")

    def __init__(self, variant: Variant, players: int) -> None:
        if not isinstance(variant, Variant):
            raise ConfigError(Code.INVALID_VARIANT,
                              f"an Observation needs a Variant, got {type(variant).__name__}")
        if (problem := player_count_problem(variant, players)) is not None:
            raise ConfigError(Code.INVALID_PLAYERS, problem)
        self.variant = variant
        self.players = players
        k = len(variant.deck)
        fields: list[Field] = []
        writers: list[tuple[int, int, Writer]] = []
        at = 0
        for name, size, low, high, meaning, writer in _FIELDS:
            n = size(players, variant.cells, k)
            fields.append(Field(name, at, at + n, float(low), float(high), meaning))
            writers.append((at, at + n, writer))
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
        self._writers = tuple(writers)
        self._by_name = {f.name: f for f in fields}

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
        c = self._context
        viewer = 0 if view.viewer is None else view.viewer
        order = tuple((viewer + k) % self.players for k in range(self.players))
        parts = _Out()
        for start, _, write in self._writers:
            write(c, view, order, parts, start)
        out = np.zeros(self.size, dtype=np.float32)
        out[parts.hot] = 1
        out[parts.index] = parts.value
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

        phase = np.asarray(batch.phase).astype(np.int64)            # the codes of _PHASES
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
