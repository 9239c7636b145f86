"""Uniformly random games on the batch engine: `random_playouts`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from ..config import Variant
from ..errors import Code, ConfigError
from ..randomness import SEED_BYTES, Seed, many_stream_blocks, normalize_seed
from ._arrays import OVER, WAITING, Arrays, Tables
from ._engine import tables_for
from ._rounds import deal, end_rounds, lay_out, shuffled_decks
from ._stepping import advance, legal_folded, new_games

__all__ = ["PlayoutStats", "choose_uniformly", "play", "random_playouts"]

Array = np.ndarray[Any, Any]


@attrs.frozen(slots=True)
class PlayoutStats:
    """What `random_playouts` played.

    Turns are counted as in `benchmarks/playouts.py`: a draw and the action after it are one
    turn, opening flips are not turns (the sum of `RoundResult.turns` over every round).
    """

    games: int
    """Games played to their end."""
    turns: int
    """Turns completed, over every round of every game."""
    actions: int
    """Actions applied (draws and opening flips included)."""
    rounds: int
    """Rounds finished."""
    steps: int
    """Lockstep steps of the batch."""
    totals: Array = attrs.field(eq=False, repr=False)
    """`(games, players)` int: each game's final totals (rule 7.1), game `n` in row `n`: the
    final scores, lowest wins (rule 7.4)."""

    @property
    def winners(self) -> Array:
        """`(games, players)` bool: the seats with the lowest final total of each game (rule 7.4:
        ties share the win)."""
        lowest: Array = self.totals == self.totals.min(axis=1, keepdims=True)
        return lowest


def choose_uniformly(mask: Array, rng: np.random.Generator) -> Array:
    """One legal index per row of `mask`, uniformly at random (0 for a row with none).

    Draws one float per row (`rng.random(N)`), scales it by the row's number of legal indices
    and takes the legal index of that rank. The work runs along the first axis of `mask.T`, the
    layout in which `abyss_rules.batch.Batch.legal_mask` builds its masks: one NumPy call per
    index over all `N` games, instead of reductions along each short row.

    Examples:
        >>> import numpy as np
        >>> choose_uniformly(np.array([[False, True, True], [False, False, False]]),
        ...                  np.random.default_rng(0)).tolist()
        [2, 0]
    """
    wide = mask.shape[1] >= 255
    return _choose(np.array(mask.T, dtype=np.int32 if wide else np.uint8, order="C"), rng)


def _choose_legal(t: Tables, a: Arrays, rng: np.random.Generator) -> Array:
    """`choose_uniformly(legal(t, a).T, rng)`: the same indices from the same random numbers,
    ranked on the folded mask of `legal_folded` (the legal indices in the same order, half
    the rows to count)."""
    folded, drawn = legal_folded(t, a)
    chosen = _choose(folded.view(np.uint8), rng)  # at most 129 rows (rule 10.4): counts fit bytes
    chosen[drawn] += t.space.place_drawn
    return chosen


def _choose(seen: Array, rng: np.random.Generator) -> Array:
    """The work of `choose_uniformly` on `seen`, the `(size, N)` mask as integers, overwritten."""
    size = seen.shape[0]
    wide = seen.dtype != np.uint8
    add = np.add
    for index in range(1, size):  # seen[i]: the legal indices among 0..i
        add(seen[index - 1], seen[index], out=seen[index])
    count = seen[-1]
    pick = (rng.random(len(count)) * count).astype(seen.dtype)
    below = (seen <= pick).view(np.uint8)  # the indices whose rank is at most pick: a prefix
    chosen: Array = below.sum(axis=0, dtype=np.int64 if wide else np.uint8).astype(np.int64)
    chosen[count == 0] = 0
    return chosen


def _seeds(root: bytes, first: int, count: int) -> list[bytes]:
    """The seeds of games `first` to `first + count - 1`: `stream_blocks(root, n, 1)` for each."""
    data = many_stream_blocks([(root, first, count)])
    return [data[at:at + SEED_BYTES] for at in range(0, len(data), SEED_BYTES)]


class _Starts:
    """The first deals of the games still to start, made ahead `chunk` games at a time: one
    large shuffle (rule 9.4) instead of a small one at every service. Game `n`'s seed is block
    `n` of `root`'s stream; its first round is shuffled at position 0 (rule 9.5)."""

    __slots__ = ("t", "root", "games", "chunk", "first", "used", "seeds", "orders", "positions")

    def __init__(self, t: Tables, root: bytes, games: int, chunk: int) -> None:
        self.t, self.root, self.games, self.chunk = t, root, games, chunk
        self.first = self.used = 0  # the game of the arrays' first row; the games taken
        self.seeds: list[bytes] = []
        self.orders: Array = np.empty((0, t.deck), t.dtype)
        self.positions: Array = np.empty(0, np.int64)

    def take(self, count: int) -> tuple[list[bytes], Array, Array]:
        """The seeds, shuffled decks and stream positions of the next `count` games."""
        at = self.used - self.first  # the first unused row
        if at + count > len(self.seeds):  # shuffle more, and drop the rows already taken
            made = self.first + len(self.seeds)
            more = min(max(self.chunk, count), self.games - made)
            seeds = _seeds(self.root, made, more)
            orders, positions = shuffled_decks(self.t, seeds, np.zeros(more, np.int64))
            self.seeds = self.seeds[at:] + seeds
            self.orders = np.concatenate([self.orders[at:], orders])
            self.positions = np.concatenate([self.positions[at:], positions])
            self.first, at = self.used, 0
        self.used += count
        return (self.seeds[at:at + count], self.orders[at:at + count], self.positions[at:at + count])


def random_playouts(games: int, players: int = 2, variant: Variant | str | None = None, seed: Seed = 0, *,
                    width: int | None = None) -> PlayoutStats:
    """Play `games` games to the end with uniformly random legal actions, `width` at a time; return
    the counts and every game's final totals (`PlayoutStats`).

    Game `n` is dealt from the seed `stream_blocks(normalize_seed(seed), n, 1)` (block `n` of
    `seed`'s stream, rule 9.2); the choices come from `numpy.random.default_rng` seeded with
    `seed`. The games are stepped in place, by the functions that
    `abyss_rules.batch.Batch.step` uses, without a history. A game whose round ends waits
    (its lane idle) until a quarter of the lanes (at least one) wait -- rounds ended, or
    games finished while there are games left to start --; then those rounds are scored and
    their next rounds dealt, and the new games take their place, their first deals shuffled
    ahead `width` games at a time: a few large shuffles instead of many small ones. Once
    every game has been started, the finished games are dropped from the lanes whenever half
    the lanes are idle, so that the last games do not step idle lanes.

    Args:
        games: How many games to play, at least 1.
        players: Players per game.
        variant: The rules, or a preset's name; `None` means the standard variant.
        seed: The seed of the whole run (rule 9.1).
        width: Games in lockstep; `None` means `min(games, 4096)`.

    Raises:
        ConfigError: `invalid_simulation` for a bad `games` or `width`; `invalid_variant`,
            `invalid_players` as `abyss_rules.batch.Batch.new`.
        SeedError: `invalid_seed`.
    """
    for name, value in (("games", games), ("width", 1 if width is None else width)):
        if type(value) is not int or value < 1:
            raise ConfigError(Code.INVALID_SIMULATION, f"{name} must be an int of at least 1, got {value!r}")
    return play(games, players, variant, normalize_seed(seed), min(games, 4096 if width is None else width))


def play(games: int, players: int, variant: Variant | str | None, root: bytes, lanes: int,
         watch: Callable[[Tables, Arrays, Array], None] | None = None) -> PlayoutStats:
    """`random_playouts` with checked arguments; `watch`, if given, sees the arrays and the
    chosen indices before each step (the tests replay every game through the reference engine
    with it)."""
    rng = np.random.default_rng(int.from_bytes(root, "big"))
    t = tables_for(players, variant)
    w = t.empty(lanes)
    starts = _Starts(t, root, games, lanes)
    seeds, order, position = starts.take(lanes)
    every = np.arange(lanes)
    new_games(t, w, every, 0)
    lay_out(t, w, every, order, position)
    started = lanes
    turns = actions = rounds = steps = 0
    totals = np.zeros((games, t.players), np.int64)  # by game number (a lane's gid)
    waiting = finished = 0  # lanes whose round ended, lanes whose game is over
    while True:
        spare = games - started
        idle = waiting + min(finished, spare)
        if idle and (idle >= max(1, len(seeds) // 4) or waiting + finished == len(seeds)):
            # Score the waiting rounds, then deal their next rounds and the new games at once.
            _, going = end_rounds(t, w, np.flatnonzero(w.phase == WAITING), None)
            done = w.phase == OVER
            fresh = np.flatnonzero(done)[:spare]
            totals[w.gid[fresh]] = w.totals[fresh]
            rounds += int(w.round[fresh].sum())
            actions += int(w.seq[fresh].sum())
            deal(t, w, going, seeds)
            if len(fresh):
                more, order, position = starts.take(len(fresh))
                for row, seed in zip(fresh.tolist(), more, strict=True):
                    seeds[row] = seed
                new_games(t, w, fresh, started)
                lay_out(t, w, fresh, order, position)
            started += len(fresh)
            waiting, finished = 0, int(np.count_nonzero(done)) - len(fresh)
            continue
        if not spare and 2 * finished >= len(seeds):  # the last games: drop the finished ones
            if finished == len(seeds):
                break
            done = w.phase == OVER
            totals[w.gid[done]] = w.totals[done]
            rounds += int(w.round[done].sum())
            actions += int(w.seq[done].sum())
            kept = np.flatnonzero(~done)
            w = w.rows(kept)
            seeds = [seeds[i] for i in kept.tolist()]
            finished = 0
            continue
        chosen = _choose_legal(t, w, rng)
        if watch is not None:
            watch(t, w, chosen)
        ended, ending = advance(t, w, w, chosen, seeds)
        turns += ending
        w.phase[ended] = WAITING  # games end only when their rounds are scored, in a service
        waiting += len(ended)
        steps += 1
    rounds += int(w.round.sum())
    actions += int(w.seq.sum())
    totals[w.gid] = w.totals
    totals.flags.writeable = False
    return PlayoutStats(games=games, turns=turns, actions=actions, rounds=rounds, steps=steps, totals=totals)
