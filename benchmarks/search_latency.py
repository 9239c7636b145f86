"""How long a bot takes a decision on the standard game: CPU time per decision (SearchBot's
searched or not).

    python benchmarks/search_latency.py [--games 4] [--rollouts 32] [--seed 1] [--bot search]

Plays `--games` games of `--bot` (`search` by default, any built-in bot) against `counting`
(seats swapped) and times every call of its `choose` with `time.process_time` (CPU time: a
shared machine's load does not count). Prints the mean, median, 95th percentile and maximum:
for `search`, for the decisions it searched, for the others, and for all of them.

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import statistics
import time

from compiled import describe  # benchmarks/compiled.py, beside this script

import abyss_rules as ar
from abyss_rules.bots import BOTS, SearchBot
from abyss_rules.simulation import play_game


class Timed(SearchBot):
    def __init__(self, seed: int | None = None, **kwargs: object) -> None:
        super().__init__(seed, **kwargs)  # type: ignore[arg-type]
        self.times: dict[bool, list[float]] = {True: [], False: []}

    def choose(self, view: ar.View) -> ar.Action:
        before, start = self.searched, time.process_time()
        action = super().choose(view)
        self.times[self.searched > before].append(time.process_time() - start)
        return action


class Timer:
    """Any bot, each call of its `choose` timed."""

    def __init__(self, bot: ar.bots.Bot) -> None:
        self.bot = bot
        self.times: list[float] = []
        self.name = getattr(bot, "name", "bot")

    def choose(self, view: ar.View) -> ar.Action:
        start = time.process_time()
        action = self.bot.choose(view)
        self.times.append(time.process_time() - start)
        return action


def summary(times: list[float]) -> str:
    if not times:
        return "none"
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return (f"{len(ms)} decisions: mean {statistics.mean(ms):.2f} ms, median {statistics.median(ms):.2f}, "
            f"95% {p95:.2f}, max {ms[-1]:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", default="search", choices=list(BOTS))
    args = parser.parse_args(argv)
    if args.games < 1 or args.rollouts < 1:
        parser.error("--games and --rollouts must be at least 1")
    if args.bot != "search":
        every: list[float] = []
        start = time.process_time()
        for g in range(args.games):
            timed = Timer(BOTS[args.bot](args.seed + g))
            play_game([timed, "counting"] if g % 2 == 0 else ["counting", timed], seed=args.seed * 1000 + g)
            every += timed.times
        spent = time.process_time() - start
        print(f"{args.bot} against counting, {args.games} standard games, {spent / args.games:.2f} s of CPU "
              f"a game ({describe()})")
        print(f"  every decision: {summary(every)}")
        return 0
    times: dict[bool, list[float]] = {True: [], False: []}
    start = time.process_time()
    for g in range(args.games):
        bot = Timed(args.seed + g, rollouts=args.rollouts)
        lineup: list[ar.bots.Bot | str] = [bot, "counting"] if g % 2 == 0 else ["counting", bot]
        play_game(lineup, seed=args.seed * 1000 + g)
        for searched in (True, False):
            times[searched] += bot.times[searched]
    spent = time.process_time() - start
    print(f"SearchBot(rollouts={args.rollouts}) against counting, {args.games} standard games, "
          f"{spent / args.games:.2f} s of CPU a game ({describe()})")
    print(f"  searched: {summary(times[True])}")
    print(f"  counting's move: {summary(times[False])}")
    print(f"  every decision: {summary(times[True] + times[False])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
