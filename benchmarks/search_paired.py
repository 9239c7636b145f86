"""SearchBot against counting, paired with counting against counting on the same games.

    python benchmarks/search_paired.py [--games 400] [--seed 7] [--rollouts 32] [--horizon 2]
                                       [--confidence 1] [--win-bonus 20]

Plays `--games` heads-up games of `search` (with these settings) against `counting` on the
standard variant, the seats swapped from game to game, and the same games (the same seeds,
hence the same deals) of `counting` against `counting`. Where `search` plays `counting`'s move
the two games are the same, so the difference of the first entry's win shares, game by game,
measures only what the searched decisions changed: its interval is far narrower than that of
a win share over as many games, which makes it the cheap screen of a setting before a long
match. Prints the two shares, the mean paired difference with its 95% interval (normal
approximation), the number of games that came out differently and the CPU time per game.

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import functools
import math
import time

from abyss_rules.bots import SearchBot
from abyss_rules.simulation import SimulationResult, simulate


def shares(result: SimulationResult) -> list[float]:
    """The first entry's share of each game's win (1/2 each for a shared win)."""
    out = []
    for game in result.games:
        seat = game.lineup.index(0)
        out.append(1 / len(game.winners) if seat in game.winners else 0.0)
    return out


def paired(got: list[float], base: list[float]) -> tuple[float, float]:
    """The mean of the game-by-game differences of two lists of win shares, and the half-width of
    its 95% interval (normal approximation)."""
    diffs = [x - y for x, y in zip(got, base, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    return mean, 1.96 * math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=2)
    parser.add_argument("--confidence", type=float, default=1.0)
    parser.add_argument("--win-bonus", type=float, default=20.0)
    args = parser.parse_args(argv)
    if args.games < 2 or args.rollouts < 1 or args.horizon < 0:
        parser.error("--games must be at least 2, --rollouts at least 1, --horizon at least 0")
    base = shares(simulate(["counting", "counting"], games=args.games, seed=args.seed))
    bot = functools.partial(SearchBot, rollouts=args.rollouts, horizon=args.horizon,
                            confidence=args.confidence, win_bonus=args.win_bonus)
    start = time.process_time()
    searched = shares(simulate([bot, "counting"], games=args.games, seed=args.seed))
    cpu = time.process_time() - start
    n = len(base)
    mean, half = paired(searched, base)
    differ = sum(x != y for x, y in zip(searched, base, strict=True))
    print(f"search (rollouts={args.rollouts} horizon={args.horizon} confidence={args.confidence:g} "
          f"win_bonus={args.win_bonus:g}) vs counting, {n} games, seed {args.seed}: "
          f"share {sum(searched) / n:.1%}; counting vs counting on the same games {sum(base) / n:.1%}; "
          f"paired difference {mean:+.1%} +/- {half:.1%} (95%); {differ} games "
          f"came out differently; {cpu / n:.2f} s of CPU a game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
