"""What `simulate` returns and how it keeps many games small.

A `SimulationResult` holds the per-bot statistics (`BotStats`) and every
game's numbers in a `GameStore` (two flat integer arrays); its `games` are
read as `GameSummary` objects made on demand. The classes are exported by
`abyss_rules.simulation`.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, Final, overload

import attrs

from ..config import MAX_PLAYERS, Variant, variant_fields
from ..errors import ArgumentError
from ..randomness import secret_repr

__all__ = [
    "Z95",
    "BotStats",
    "GameStore",
    "GameSummaries",
    "GameSummary",
    "RoundSummary",
    "SimulationInterrupted",
    "SimulationResult",
    "wilson_interval",
]


@attrs.frozen(slots=True)
class RoundSummary:
    """The numbers of one round that `simulate` keeps (rules 6.4-6.7).

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> result = simulate(["random", "random"], games=1, seed=5, variant="short")
        >>> first = result.games[0].rounds[0]
        >>> first.closer in (0, 1), first.capped, len(first.scores)
        (True, False, 2)
    """

    scores: tuple[int, ...]
    """Round scores by seat, after the closer penalty."""
    closer: int | None
    """The closer's seat, or `None` (stalling cap)."""
    penalized: bool
    """Whether the closer's score was multiplied (rule 6.5)."""
    capped: bool
    """Whether the stalling cap ended the round (rule 6.7)."""
    turns: int
    """Turns played in the round."""


@attrs.frozen(slots=True)
class GameSummary:
    """One game of a simulation: who sat where and how it went.

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> result = simulate(["greedy", "random"], games=2, seed=5, variant="short")
        >>> [g.lineup for g in result.games]             # the seats rotate
        [(0, 1), (1, 0)]
        >>> result.games[1].seed == derive_seed(5, "game", 1)
        True
    """

    index: int
    """The game's number in the simulation, from 0."""
    seed: int = attrs.field(repr=secret_repr)
    """The game's seed, derived from the master seed and `index`."""
    lineup: tuple[int, ...]
    """For each seat, the index of the line-up entry that played it."""
    totals: tuple[int, ...]
    """Final totals by seat (rule 7.1)."""
    winners: tuple[int, ...]
    """Winning seats (rule 7.4)."""
    rounds: tuple[RoundSummary, ...]
    """Every round."""
    actions: int
    """The number of actions in the game."""


@attrs.frozen(slots=True)
class BotStats:
    """How one line-up entry did over a simulation.

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> greedy, rand = simulate(["greedy", "random"], games=4, seed=1, variant="short").bots
        >>> greedy.label, greedy.wins, greedy.win_rate, greedy.closes
        ('greedy', Fraction(4, 1), 1.0, 3)
    """

    label: str
    """The entry's name (with its line-up position when a bot plays itself, e.g. `greedy#1`)."""
    games: int
    """Games played."""
    wins: Fraction
    """Games won, a shared win counting `1 / number of winners` (rule 7.4)."""
    rounds: int
    """Rounds played."""
    points: int
    """Sum of the final totals."""
    round_points: int
    """Sum of the round scores (closer penalty included)."""
    closes: int
    """Rounds this entry closed (rule 6.1)."""
    penalties: int
    """Rounds in which this entry closed and was penalized (rule 6.5)."""
    seat_games: tuple[int, ...] = ()
    """Games played from each seat."""
    seat_wins: tuple[Fraction, ...] = ()
    """Games won from each seat (shared wins counted fractionally)."""

    @property
    def seat_win_rates(self) -> tuple[float | None, ...]:
        """Wins per game from each seat (`None` for a seat it never played)."""
        pairs = zip(self.seat_wins, self.seat_games, strict=True)
        return tuple(float(w / g) if g else None for w, g in pairs)

    @property
    def win_rate(self) -> float:
        """Wins per game."""
        return float(self.wins / self.games) if self.games else 0.0

    @property
    def win_rate_interval(self) -> tuple[float, float]:
        """The 95% confidence interval of `win_rate`: the Wilson score interval, which stays
        inside 0 to 1 and is right at the edges (no win in 20 games is 0% to 16.1%, not 0% +/- 0%).

        `(0.0, 1.0)` when no game was played. See
        `wilson_interval`.
        """
        return wilson_interval(float(self.wins), self.games)

    @property
    def mean_total(self) -> float:
        """Mean final total per game."""
        return self.points / self.games if self.games else 0.0

    @property
    def mean_round_score(self) -> float:
        """Mean round score (closer penalty included)."""
        return self.round_points / self.rounds if self.rounds else 0.0

    @property
    def close_rate(self) -> float:
        """Share of the rounds this entry closed."""
        return self.closes / self.rounds if self.rounds else 0.0

    @property
    def penalty_rate(self) -> float:
        """Share of this entry's closes that were penalized (0 when it never closed)."""
        return self.penalties / self.closes if self.closes else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers (`wins` as a float)."""
        return {
            "bot": self.label, "games": self.games, "wins": float(self.wins), "win_rate": self.win_rate,
            "win_rate_low95": self.win_rate_interval[0],
            "win_rate_high95": self.win_rate_interval[1], "mean_total": self.mean_total,
            "rounds": self.rounds, "mean_round_score": self.mean_round_score, "closes": self.closes,
            "close_rate": self.close_rate, "penalties": self.penalties, "penalty_rate": self.penalty_rate,
            "seat_games": list(self.seat_games), "seat_win_rates": list(self.seat_win_rates),
        }


Z95: Final = 1.959963984540054
"""The 97.5th percentile of the standard normal distribution: a two-sided 95% interval."""


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate: `wins` (a shared win counting fractionally) in
    `games`, at the confidence `z` gives (95% by default); `(0.0, 1.0)` for no game.

    Unlike the normal approximation (`p +/- z * sqrt(p(1-p)/n)`), it never leaves 0 to 1 and
    is not empty at 0% or 100%.

    Examples:
        >>> [round(x, 3) for x in wilson_interval(0, 20)]       # no win in 20 games
        [0.0, 0.161]
        >>> [round(x, 3) for x in wilson_interval(20, 20)]      # 20 wins in 20 games
        [0.839, 1.0]
        >>> [round(x, 4) for x in wilson_interval(26.1, 100)]
        [0.1849, 0.3548]
    """
    if type(games) is not int:
        raise ArgumentError(f"games must be an int, got {type(games).__name__}")
    for name, number in (("wins", wins), ("z", z)):
        if type(number) not in (int, float, Fraction) or not math.isfinite(number):
            raise ArgumentError(f"{name} must be a finite number, got {number!r}")
    if games <= 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, wins / games))
    z2 = z * z
    scale = 1 + z2 / games
    center = (p + z2 / (2 * games)) / scale
    half = z / scale * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    low = 0.0 if p == 0.0 else max(0.0, center - half)   # (exact at the edges, whatever the rounding)
    high = 1.0 if p == 1.0 else min(1.0, center + half)
    return low, high


def _interval_text(interval: tuple[float, float]) -> str:
    low, high = interval
    return f"{low:.1%}-{high:.1%}"


@attrs.frozen(slots=True)
class SimulationResult:
    """What `simulate` returns: the set-up, per-bot statistics and every game's summary.

    Two results of the same line-up, variant, number of games and seed are
    equal, whatever executor played them.

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> result = simulate(["greedy", "random"], games=4, seed=1, variant="short")
        >>> result.players, result.rounds_per_game, result.seat_win_rates
        (2, 1.0, (0.5, 0.5))
        >>> sorted(result.to_dict())[:4]
        ['bots', 'capped_rounds', 'games', 'penalty_rate']
    """

    seed: int | bytes = attrs.field(repr=secret_repr)
    """The master seed (each game's seed is `derive_seed(seed, "game", index)`)."""
    variant: Variant
    """The rules played."""
    rotate: bool
    """Whether the seats rotate: in game `i` seat `s` is played by entry `(s + i) % players`."""
    bots: tuple[BotStats, ...]
    """Per line-up entry, in line-up order."""
    store: GameStore = attrs.field(repr=lambda store: f"<{len(store)} games>")
    """Every game's numbers, compactly (see `GameStore`); read them as `games`."""

    @property
    def games(self) -> GameSummaries:
        """Every game, by index: a sequence of `GameSummary`, each made when it is read (the result
        keeps a few integers per game and round)."""
        return GameSummaries(self.store, self.rotate)

    @property
    def players(self) -> int:
        """Players per game."""
        return len(self.bots)

    @property
    def rounds(self) -> int:
        """Rounds played in all."""
        return sum(self.store.round_counts())

    @property
    def rounds_per_game(self) -> float:
        """Mean rounds per game."""
        return self.rounds / len(self.store) if len(self.store) else 0.0

    @property
    def turns_per_round(self) -> float:
        """Mean turns per round."""
        rounds = self.rounds
        return sum(r[-1] for r in self.store.round_records()) / rounds if rounds else 0.0

    @property
    def capped_rounds(self) -> int:
        """Rounds ended by the stalling cap (rule 6.7)."""
        return sum(r[-2] >> 1 for r in self.store.round_records())

    @property
    def penalty_rate(self) -> float:
        """Share of the closed rounds whose closer was penalized (rule 6.5)."""
        closed = sum(r[-3] >= 0 for r in self.store.round_records())
        penalized = sum(r[-2] & 1 for r in self.store.round_records())
        return penalized / closed if closed else 0.0

    @property
    def seat_win_rates(self) -> tuple[float, ...]:
        """Wins per game by seat, whoever sat there (shared wins counted fractionally)."""
        wins = [Fraction(0)] * self.players
        for _, winners, _, _ in self.store.game_records():
            for seat in winners:
                wins[seat] += Fraction(1, len(winners))
        games = len(self.store)
        return tuple(float(w / games) if games else 0.0 for w in wins)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (without the per-game summaries)."""
        seed = self.seed.hex() if isinstance(self.seed, bytes) else self.seed
        return {
            "games": len(self.store), "seed": seed, "variant": variant_fields(self.variant),
            "players": self.players, "rotate": self.rotate,
            "rounds_per_game": self.rounds_per_game, "turns_per_round": self.turns_per_round,
            "capped_rounds": self.capped_rounds, "penalty_rate": self.penalty_rate,
            "seat_win_rates": list(self.seat_win_rates),
            "bots": [b.to_dict() for b in self.bots],
        }

    def table(self) -> str:
        """The per-bot statistics as a text table.

        `95% interval` is the win rate's Wilson score interval
        (`wilson_interval`); `by seat` is the win rate from seat 0,
        seat 1, ...; `closed` is the share of its rounds a bot closed,
        `penalized` the share of its closes that were penalized (rule
        6.5).

        Examples:
            >>> from abyss_rules.simulation import simulate
            >>> print(simulate(["greedy", "random"], games=4, seed=1, variant="short").table())
            bot     games  win rate  95% interval    by seat  mean total  mean round score  closed  penalized
            greedy      4    100.0%  51.0%-100.0%  100%/100%        15.2             15.25   75.0%       0.0%
            random      4      0.0%    0.0%-49.0%      0%/0%        89.2             89.25   25.0%     100.0%
            4 games, 1.00 rounds per game, 27.8 turns per round, closer penalized in 25.0% of closed rounds
        """
        head = ("bot", "games", "win rate", "95% interval", "by seat", "mean total", "mean round score",
                "closed", "penalized")
        rows = [head]
        for b in self.bots:
            by_seat = "/".join("-" if r is None else f"{r:.0%}" for r in b.seat_win_rates)
            rows.append((
                b.label, str(b.games), f"{b.win_rate:.1%}", _interval_text(b.win_rate_interval), by_seat,
                f"{b.mean_total:.1f}", f"{b.mean_round_score:.2f}", f"{b.close_rate:.1%}",
                f"{b.penalty_rate:.1%}",
            ))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = []
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
            lines.append("  ".join(cells))
        lines.append(
            f"{len(self.store)} games, {self.rounds_per_game:.2f} rounds per game, "
            f"{self.turns_per_round:.1f} turns per round, closer penalized in {self.penalty_rate:.1%} of "
            f"closed rounds" + (f", {self.capped_rounds} rounds capped" if self.capped_rounds else "")
        )
        return "\n".join(lines)


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (`KeyboardInterrupt`) stopped `simulate`: `result` holds the games that had
    finished, in game order (a `KeyboardInterrupt`, so code that catches that still
    does).

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> partial = simulate(["random", "random"], games=3, seed=1, variant="short")
        >>> stopped = SimulationInterrupted(partial, requested=10)
        >>> isinstance(stopped, KeyboardInterrupt), len(stopped.result.games), stopped.requested
        (True, 3, 10)
    """

    def __init__(self, result: SimulationResult, requested: int) -> None:
        super().__init__(f"simulation interrupted after {len(result.games)} of {requested} games")
        self.result = result
        """What finished before the interruption."""
        self.requested = requested
        """How many games were asked for."""


_PENALIZED: Final = 1
_CAPPED: Final = 2


class GameStore:
    """The numbers of many games in two flat integer arrays: what a simulation keeps.

    Game `n`'s record is `data[starts[n]:starts[n + 1]]`: its number of actions, the bit
    mask of its winning seats, its totals by seat, its number of rounds, then for each
    round its scores by seat, the closer's seat (`-1` for none), its flags (1: the closer
    was penalized, 2: the stalling cap ended it) and its turns. About 8 bytes a number:
    some 100 bytes for a two-player game of two rounds, where a tree of summary objects
    takes some 2 KB. The games' seeds are in `seeds`; a game's line-up follows from its
    index (see `lineup`).

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> store = GameStore(2)
        >>> store.add(seed=7, actions=90, winners=(1,), totals=(120, 40),
        ...           rounds=[((120, 40), 0, _PENALIZED, 21)])
        >>> len(store), list(store.game_records())
        (1, [(90, (1,), (120, 40), 1)])
    """

    __slots__ = ("players", "seeds", "starts", "data")

    PENALIZED: Final = _PENALIZED
    """A round's flag: the closer was penalized (rule 6.5)."""
    CAPPED: Final = _CAPPED
    """A round's flag: the stalling cap ended the round (rule 6.7)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.seeds = array("Q")
        self.starts = array("q", [0])
        self.data = array("q")

    def add(self, seed: int, actions: int, winners: Sequence[int], totals: Sequence[int],
            rounds: Sequence[tuple[Sequence[int], int, int, int]]) -> None:
        """Keep one game: `rounds` holds `(scores, closer or -1, flags, turns)` per round."""
        self.seeds.append(seed)
        data = self.data
        data.append(actions)
        data.append(sum(1 << seat for seat in winners))
        data.extend(totals)
        data.append(len(rounds))
        for scores, closer, flags, turns in rounds:
            data.extend(scores)
            data.append(closer)
            data.append(flags)
            data.append(turns)
        self.starts.append(len(data))

    def extend(self, other: GameStore) -> None:
        """Keep every game of `other` after these."""
        base = len(self.data)
        self.seeds.extend(other.seeds)
        self.data.extend(other.data)
        self.starts.extend(base + s for s in other.starts[1:])

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameStore):
            return NotImplemented
        mine, theirs = (self.players, self.seeds, self.starts, self.data), (other.players, other.seeds,
                                                                            other.starts, other.data)
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[int, array[int], array[int], array[int]]:
        return self.players, self.seeds, self.starts, self.data

    def __setstate__(self, state: tuple[int, array[int], array[int], array[int]]) -> None:
        self.players, self.seeds, self.starts, self.data = state

    def record(self, n: int) -> array[int]:
        """Game `n`'s numbers (see the class docs)."""
        return self.data[self.starts[n]:self.starts[n + 1]]

    def game_records(self) -> Iterator[tuple[int, tuple[int, ...], tuple[int, ...], int]]:
        """`(actions, winners, totals, rounds)` of every game, in order."""
        data, starts, p = self.data, self.starts, self.players
        for n in range(len(self)):
            at = starts[n]
            mask = data[at + 1]
            yield (data[at], tuple(s for s in range(p) if mask >> s & 1), tuple(data[at + 2:at + 2 + p]),
                   data[at + 2 + p])

    def round_counts(self) -> Iterator[int]:
        """The number of rounds of every game."""
        data, starts, p = self.data, self.starts, self.players
        return (data[starts[n] + 2 + p] for n in range(len(self)))

    def round_records(self) -> Iterator[array[int]]:
        """`scores..., closer, flags, turns` of every round of every game, in order."""
        data, starts, p = self.data, self.starts, self.players
        width = p + 3
        for n in range(len(self)):
            at = starts[n] + 3 + p
            for _ in range(data[at - 1]):
                yield data[at:at + width]
                at += width

    def summary(self, n: int, rotate: bool) -> GameSummary:
        """Game `n` as a `GameSummary`."""
        data, at, p = self.data, self.starts[n], self.players
        mask = data[at + 1]
        rounds = []
        r = at + 3 + p
        for _ in range(data[at + 2 + p]):
            flags = data[r + p + 1]
            closer = data[r + p]
            rounds.append(RoundSummary(scores=tuple(data[r:r + p]), closer=None if closer < 0 else closer,
                                       penalized=bool(flags & _PENALIZED), capped=bool(flags & _CAPPED),
                                       turns=data[r + p + 2]))
            r += p + 3
        return GameSummary(
            index=n, seed=self.seeds[n], lineup=lineup(n, p, rotate),
            totals=tuple(data[at + 2:at + 2 + p]), winners=tuple(s for s in range(p) if mask >> s & 1),
            rounds=tuple(rounds), actions=data[at],
        )


class GameSummaries(Sequence[GameSummary]):
    """The games of a `SimulationResult`, in order: each `GameSummary` is made from the
    kept numbers when it is read, so a result of 100,000 games stays small.

    Examples:
        >>> from abyss_rules.simulation import derive_seed, simulate
        >>> result = simulate(["random", "random"], games=3, seed=1, variant="short")
        >>> len(result.games), result.games[-1].index, [g.index for g in result.games[:2]]
        (3, 2, [0, 1])
    """

    __slots__ = ("_store", "_rotate")

    def __init__(self, store: GameStore, rotate: bool) -> None:
        self._store, self._rotate = store, rotate

    def __len__(self) -> int:
        return len(self._store)

    @overload
    def __getitem__(self, n: int) -> GameSummary: ...
    @overload
    def __getitem__(self, n: slice) -> list[GameSummary]: ...

    def __getitem__(self, n: int | slice) -> GameSummary | list[GameSummary]:
        size = len(self._store)
        if isinstance(n, slice):
            return [self._store.summary(i, self._rotate) for i in range(*n.indices(size))]
        if not -size <= n < size:
            raise IndexError(f"game {n} of {size}")
        return self._store.summary(n % size, self._rotate)

    def __iter__(self) -> Iterator[GameSummary]:
        store, rotate = self._store, self._rotate
        return (store.summary(n, rotate) for n in range(len(store)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GameSummaries):
            return (self._store, self._rotate) == (other._store, other._rotate)
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} game summaries>"


def lineup(index: int, players: int, rotate: bool) -> tuple[int, ...]:
    """For each seat of game `index`, the line-up entry that plays it."""
    if type(index) is not int or type(players) is not int or index < 0 or not 1 <= players <= MAX_PLAYERS:
        raise ArgumentError(f"a game's index is an int from 0 and its players an int from 1 to "
                            f"{MAX_PLAYERS}, got {index!r} and {players!r}")
    return tuple((seat + index) % players for seat in range(players)) if rotate else tuple(range(players))


def aggregate(labels: Sequence[str], store: GameStore, rotate: bool) -> tuple[BotStats, ...]:
    """Every line-up entry's `BotStats` over the kept games."""
    n = len(labels)
    games, rounds, points, round_points, closes, penalties = ([0] * n for _ in range(6))
    wins = [Fraction(0)] * n
    seat_games = [[0] * n for _ in range(n)]
    seat_wins = [[Fraction(0)] * n for _ in range(n)]
    data, starts, width = store.data, store.starts, n + 3
    for index, (_, winners, totals, played) in enumerate(store.game_records()):
        # in game order: the sums are exact, so the order does not matter anyway
        seats = lineup(index, n, rotate)
        first = starts[index] + 3 + n
        for seat, entry in enumerate(seats):
            games[entry] += 1
            seat_games[entry][seat] += 1
            points[entry] += totals[seat]
            rounds[entry] += played
            for r in range(first, first + played * width, width):
                round_points[entry] += data[r + seat]
                if data[r + n] == seat:
                    closes[entry] += 1
                    penalties[entry] += data[r + n + 1] & _PENALIZED
        for seat in winners:
            wins[seats[seat]] += Fraction(1, len(winners))
            seat_wins[seats[seat]][seat] += Fraction(1, len(winners))
    return tuple(
        BotStats(label=labels[i], games=games[i], wins=wins[i], rounds=rounds[i], points=points[i],
                 round_points=round_points[i], closes=closes[i], penalties=penalties[i],
                 seat_games=tuple(seat_games[i]), seat_wins=tuple(seat_wins[i]))
        for i in range(n)
    )
