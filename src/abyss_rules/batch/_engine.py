"""`Batch`: many games of one variant stepped in lockstep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from ..action_space import ActionSpace
from ..caches import BoundedCache
from ..config import Variant
from ..errors import BatchStepError, Code, ConfigError, MalformedActionError, SeedError
from ..randomness import SEED_BYTES, Seed, normalize_seed
from ..rules._dealing import player_count_problem
from ..rules._illegal import rejection
from ..state import State
from ._arrays import (
    DRAWN,
    OVER,
    Arrays,
    Tables,
    flat,
)
from ._convert import to_state
from ._rounds import HistoryLog, deal, end_rounds
from ._stepping import advance, legal, restart

__all__ = ["Batch", "action_indices", "tables_for"]

Array = np.ndarray[Any, Any]

_STEPPED = ("phase", "actor", "cards", "up", "gone", "disc", "disc_len", "draw_len", "drawn", "closer",
            "turns", "seq", "hidden")
"""The arrays every step copies; the others are copied only by a step that writes them."""
_RESET = ("phase", "actor", "round", "cards", "up", "gone", "disc", "disc_len", "draw_len", "closer", "turns",
          "totals", "seq", "prev_closer", "gid")
"""The arrays a reset writes directly (a deal copies the others it writes)."""


class Batch:
    """`N` games of one variant and player count, stepped together by action index.

    Build one with `new`. A batch never changes: `step` and `reset` return a new
    one, and the arrays it shows are read only. Game `i` is dealt exactly as
    `ar.new_game(players, variant, seed=seeds[i])` deals it, and `state(i)` is,
    after any steps, the reference state reached by the same actions, every
    field included.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules import batch
        >>> b = batch.Batch.new(players=2, variant=ar.Variant.standard(), seeds=[0, 1, 2])
        >>> b.state(1) == ar.new_game(2, ar.Variant.standard(), seed=1)
        True
        >>> b.actor.tolist(), b.legal_mask().shape
        ([0, 0, 0], (3, 49))
        >>> b = b.step([5, 6, 7])                     # seat 0 flips space 5, 6 or 7
        >>> b.state(2) == ar.apply(ar.new_game(2, seed=2), ar.Flip(0, 1, 3))
        True
    """

    __slots__ = ("_t", "_a", "_seeds", "_log", "_next_gid", "_dead", "_mask")

    def __init__(self, tables: Tables, arrays: Arrays, seeds: tuple[bytes, ...], log: HistoryLog,
                 next_gid: int, dead: int) -> None:
        """Internal: use `Batch.new`."""
        self._t = tables
        self._a = arrays
        self._seeds = seeds
        self._log = log
        self._next_gid = next_gid
        self._dead = dead
        self._mask: Array | None = None  # the (size, N) legal mask, once computed

    # -- making batches -------------------------------------------------------------

    @classmethod
    def new(cls, players: int = 2, variant: Variant | str | None = None, *,
            seeds: Sequence[Seed | None]) -> Batch:
        """Deal one game per seed, each exactly as `ar.new_game(players, variant, seed=seed)` does.

        Args:
            players: The number of players of every game (rule 1.3).
            variant: The rules, or a preset's name; `None` means `Variant.standard`.
            seeds: One seed per game: an int in `[0, 2**256)`, 32 bytes, or `None` for a fresh
                secret seed (rule 9.1). At least one.

        Raises:
            ConfigError: `invalid_variant` or `invalid_players`.
            SeedError: `invalid_seed`, naming the first bad seed's position.

        Examples:
            >>> from abyss_rules import batch
            >>> len(batch.Batch.new(players=3, seeds=range(5)))
            5
        """
        tables = tables_for(players, variant)
        normalized = _seeds(seeds)
        n = len(normalized)
        arrays = tables.empty(n)
        arrays.gid = np.arange(n, dtype=np.int64)
        deal(tables, arrays, np.arange(n), normalized)
        return cls(tables, arrays.freeze(), normalized, HistoryLog(None, None), n, 0)

    def reset(self, where: Any, seeds: Sequence[Seed | None]) -> Batch:
        """A batch in which the games at `where` are replaced by new games, one per seed.

        The other games are unchanged. Use it to keep a batch full when games end.

        Args:
            where: `N` booleans: the games to replace.
            seeds: One seed per `True` entry of `where`, in row order.

        Raises:
            MalformedActionError: `where` is not `N` booleans.
            SeedError: a bad seed, or not one seed per replaced game.

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules import batch
            >>> b = batch.Batch.new(players=2, seeds=[0, 1]).reset([False, True], seeds=[7])
            >>> b.state(1) == ar.new_game(2, seed=7), b.state(0) == ar.new_game(2, seed=0)
            (True, True)
        """
        mask = np.asarray(where)
        if mask.dtype != bool or mask.shape != (len(self),):
            raise MalformedActionError(f"where must be {len(self)} booleans, got an array of {mask.dtype} "
                                       f"with shape {mask.shape}")
        rows = np.flatnonzero(mask)
        fresh = _seeds(seeds, allow_empty=True)
        if len(fresh) != len(rows):
            raise SeedError(f"reset needs one seed per replaced game: {len(rows)} games, {len(fresh)} seeds")
        t, a = self._t, self._a
        w = a.copy(_RESET)
        log, dead = self._log, self._dead
        finished = int(np.count_nonzero(a.phase[rows] == OVER))
        dead += int(a.round[rows].sum()) - len(rows) + finished  # the replaced games' logged rounds
        all_seeds = list(self._seeds)
        for row, seed in zip(rows.tolist(), fresh, strict=True):
            all_seeds[row] = seed
        restart(t, w, rows, self._next_gid, all_seeds)
        if dead > max(1024, log.rows // 2):  # drop the rounds of replaced games from the log
            log, dead = log.keep(w.gid), 0
        return Batch(t, w.freeze(), tuple(all_seeds), log, self._next_gid + len(rows), dead)

    # -- reading ----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._seeds)

    def __repr__(self) -> str:
        live = int(np.count_nonzero(self._a.phase != OVER))
        return (f"<Batch games={len(self)} players={self._t.players} variant={self._t.variant.name!r} "
                f"live={live}>")

    @property
    def variant(self) -> Variant:
        """The variant of every game."""
        return self._t.variant

    @property
    def players(self) -> int:
        """The number of players of every game."""
        return self._t.players

    @property
    def space(self) -> ActionSpace:
        """The `ActionSpace` whose indices `step` takes."""
        return self._t.space

    @property
    def actor(self) -> Array:
        """`(N,)` int: the seat to act -- in the opening the lowest seat still owing a flip --,
        `-1` once the game is over."""
        return self._a.actor

    @property
    def done(self) -> Array:
        """`(N,)` bool: whether each game is over."""
        done: Array = self._a.phase == OVER
        return done

    @property
    def phase(self) -> Array:
        """`(N,)` int8 phase codes: `PHASES[code]` is the `Phase` (0 opening, 1 turn,
        2 drawn, 3 game over)."""
        return self._a.phase

    @property
    def round(self) -> Array:
        """`(N,)` int: the round number, from 1."""
        return self._a.round

    @property
    def turns(self) -> Array:
        """`(N,)` int: turns completed in the current round (rule 6.7)."""
        return self._a.turns

    @property
    def seq(self) -> Array:
        """`(N,)` int: actions applied since each game began."""
        return self._a.seq

    @property
    def totals(self) -> Array:
        """`(N, players)` int: each seat's total of the rounds already scored (rule 7.1)."""
        return self._a.totals

    @property
    def closer(self) -> Array:
        """`(N,)` int: the seat that closed the current round, `-1` for none (rule 6.1)."""
        return self._a.closer

    @property
    def drawn(self) -> Array:
        """`(N,)`: the drawn card, meaningful where the phase is drawn (else 0)."""
        return np.where(self._a.phase == DRAWN, self._a.drawn, 0)

    @property
    def top_discard(self) -> Array:
        """`(N,)`: the top card of each discard pile."""
        a = self._a
        top: Array = a.disc[np.arange(len(self)), np.maximum(a.disc_len - 1, 0)]
        return top

    @property
    def discard_pile(self) -> Array:
        """`(N, deck size)`: each discard pile, bottom first; only the first `discard_size[i]` entries
        of row `i` are cards (public, rule 8.1). Read by the RL environments' observations."""
        return self._a.disc

    @property
    def draw_size(self) -> Array:
        """`(N,)` int: the cards in each draw pile."""
        return self._a.draw_len

    @property
    def discard_size(self) -> Array:
        """`(N,)` int: the cards in each discard pile."""
        return self._a.disc_len

    @property
    def cards(self) -> Array:
        """`(N, players, cells)`: every card on the grids, face down ones included (secret!);
        a swallowed space holds 0."""
        return self._a.cards.reshape(len(self), self._t.players, self._t.cells)

    @property
    def face_up(self) -> Array:
        """`(N, players, cells)` bool: the face-up spaces."""
        return self._a.up.reshape(len(self), self._t.players, self._t.cells)

    @property
    def swallowed(self) -> Array:
        """`(N, players, cells)` bool: the swallowed spaces."""
        return self._a.gone.reshape(len(self), self._t.players, self._t.cells)

    @property
    def winners(self) -> Array:
        """`(N, players)` bool: the seats with the lowest total of each finished game (rule 7.4);
        all false while a game goes on."""
        totals = self._a.totals
        lowest: Array = (totals == totals.min(axis=1, keepdims=True)) & self.done[:, None]
        return lowest

    def state(self, i: int) -> State:
        """Game `i` as a reference `State`, every field (history and dealer too).

        Raises:
            IndexError: `i` is not a game of the batch.
        """
        if type(i) is not int and not isinstance(i, np.integer):
            raise IndexError(f"a game number must be an int, got {i!r}")
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"no game {i} in a batch of {n}")
        i = int(i) % n
        return to_state(self._t, self._a, i, self._seeds[i], self._log)

    def states(self) -> list[State]:
        """Every game as a reference state, by row."""
        return [self.state(i) for i in range(len(self))]

    def legal_mask(self) -> Array:
        """`(N, space.size)` bool, read only: which action indices are legal for each game's
        actor now (rule 11.3); all false for a finished game.

        The array is the transpose of a C-ordered `(space.size, N)` one (one row per index over
        all games, the fast layout for NumPy); copy it with `np.ascontiguousarray` if you need
        C order. `step` checks its indices against the same mask.
        """
        legal: Array = self._legal().T
        return legal

    def _legal(self) -> Array:
        """The legal mask as `(space.size, N)`, computed once per batch."""
        if self._mask is not None:
            return self._mask
        mask = legal(self._t, self._a)
        mask.flags.writeable = False
        self._mask = mask
        return mask

    # -- stepping ---------------------------------------------------------------------

    def step(self, indices: Any, skip: Any = None) -> Batch:
        """Apply one action index per game for its actor; return the new batch.

        Entries for finished games, and for the games `skip` names, are ignored: those games
        are left as they are. Nothing is applied unless every other game's index is legal.

        Args:
            indices: `N` integers, indices of `space`.
            skip: `None`, or `N` booleans: the games not to step.

        Raises:
            BatchStepError: a live game's index is not legal now: `game` and `index` name the
                first such game, `code` and `rule` are the reference engine's for that action
                (`no_such_action_index` for an index out of range).
            MalformedActionError: `indices` is not `N` integers.
        """
        t, a = self._t, self._a
        n = len(self)
        k = action_indices(indices, n)
        phase = a.phase
        live = phase != OVER
        if skip is not None:
            held = np.asarray(skip)
            if held.dtype != bool or held.shape != (n,):
                raise MalformedActionError(f"skip must be {n} booleans, got an array of {held.dtype} "
                                           f"with shape {held.shape}")
            if held.any():  # the held games read as finished to the step: it leaves them alone
                live = live & ~held
                a = a.copy(())
                a.phase = np.where(held, OVER, phase).astype(phase.dtype)
        outside = (k < 0) | (k >= t.size)
        k = np.where(outside, 0, k)
        allowed = flat(self._legal()).take(k * n + np.arange(n)) & ~outside
        refused = live & ~allowed
        if refused.any():
            raise self._refusal(int(np.argmax(refused)), indices)
        w = self._a.copy(_STEPPED)
        ended, _ = advance(t, a, w, k, self._seeds)
        log, going = end_rounds(t, w, ended, self._log)
        deal(t, w, going, self._seeds)
        return Batch(t, w.freeze(), self._seeds, log, self._next_gid, self._dead)

    def _refusal(self, game: int, indices: Any) -> BatchStepError:
        index = int(np.asarray(indices)[game])
        space = self._t.space
        if not 0 <= index < space.size:
            return BatchStepError(Code.NO_SUCH_ACTION_INDEX,
                                  f"game {game}: action index {index} is not in [0, {space.size})",
                                  game=game, index=index)
        state = self.state(game)
        action = space.action(index, int(self._a.actor[game]))
        error = rejection(state, action)
        return BatchStepError(error.code, f"game {game}: action index {index} ({action!r}) is not legal: "
                                          f"{error.message}", error.rule, game=game, index=index)


def action_indices(indices: Any, n: int) -> Array:
    """`indices`, one action index per game of `n`, as an `int64` array (`Batch.step`'s check).

    Raises:
        MalformedActionError: `indices` is not `n` integers.
    """
    try:
        k = np.asarray(indices)
    except (TypeError, ValueError) as error:  # e.g. ragged lists
        raise MalformedActionError(f"step needs {n} action indices: {error}") from None
    if k.shape != (n,):
        raise MalformedActionError(f"step needs one action index per game, shape ({n},); got shape {k.shape}")
    if k.dtype.kind not in "iu":
        raise MalformedActionError(f"action indices must be integers, got an array of {k.dtype}")
    if k.dtype.kind == "u":
        k = np.minimum(k, np.iinfo(np.int64).max)
    out: Array = k.astype(np.int64)
    return out


# The fixed tables of each (variant, players) seen: one of the library's bounded caches, sized by
# the numbers their arrays hold (the unshuffled deck and the column table), cleared by clear_caches().
_TABLES: Final = BoundedCache[tuple[Variant, int], Tables]("batch.tables", max_entries=64, max_size=1 << 18)


def tables_for(players: object, variant: object) -> Tables:
    """The tables of `players` players of `variant` (a preset's name, or `None`: the standard
    variant), checked and kept in one of the library's bounded caches.

    Raises:
        ConfigError: `invalid_variant` or `invalid_players`.
    """
    variant = Variant.resolve(variant)
    problem = player_count_problem(variant, players)
    if problem is not None or type(players) is not int:  # (the second test only narrows the type)
        raise ConfigError(Code.INVALID_PLAYERS, str(problem))
    key = (variant, players)
    found = _TABLES.get(key)
    if found is None:
        found = Tables(variant, players)
        _TABLES.put(key, found, found.unshuffled.size + found.kind_of.size)
    return found


def _seeds(seeds: object, allow_empty: bool = False) -> tuple[bytes, ...]:
    if isinstance(seeds, (str, bytes, bytearray)) or not isinstance(seeds, (Sequence, range, np.ndarray)):
        raise SeedError(f"seeds must be a sequence of seeds, got {type(seeds).__name__}")
    if all(type(seed) is bytes and len(seed) == SEED_BYTES for seed in seeds):  # already normalized
        out = list(seeds)
    else:
        out = [_seed(n, seed) for n, seed in enumerate(seeds)]
    if not out and not allow_empty:
        raise SeedError("a batch needs at least one seed")
    return tuple(out)


def _seed(n: int, seed: object) -> bytes:
    if isinstance(seed, np.integer):
        seed = int(seed)
    try:
        return normalize_seed(seed)  # type: ignore[arg-type]
    except SeedError as error:
        raise SeedError(f"seeds[{n}]: {error.message}") from None

