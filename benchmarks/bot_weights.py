"""CountingBot's planner with other weights against counting, paired with counting against counting.

    python benchmarks/bot_weights.py [--games 800] [--seed 14] WEIGHTS [WEIGHTS ...]

Each WEIGHTS is a JSON object of the planner's class attributes (`flip_bonus`,
`closing_margin`, `feed_weight`, ...; see `bots._planner.Params`), for instance
'{"flip_bonus": 2.0, "closing_margin": 10.0}' (`ExpertBot`'s). For each, a `CountingBot` with
these weights plays `--games` heads-up games against `counting` on the standard variant, the
seats swapped from game to game, and the same games (the same seeds, hence the same deals) are
played by `counting` against `counting`: the difference of the first entry's win shares, game by
game, measures what the weights changed, with a far narrower interval than a win share over as
many games. Prints each setting's share, the mean paired difference with its 95% interval
(normal approximation) and the CPU time.

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from abyss_rules.bots import CountingBot
from abyss_rules.simulation import SimulationResult, simulate


def shares(result: SimulationResult) -> list[float]:
    """The first entry's share of each game's win (1/2 each for a shared win)."""
    out = []
    for game in result.games:
        seat = game.lineup.index(0)
        out.append(1 / len(game.winners) if seat in game.winners else 0.0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("weights", nargs="+", help="JSON objects of weights")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    settings = [json.loads(text) for text in args.weights]
    base = shares(simulate(["counting", "counting"], games=args.games, seed=args.seed))
    for text, weights in zip(args.weights, settings, strict=True):
        bot = type("Weighted", (CountingBot,), dict(weights))
        start = time.process_time()
        got = shares(simulate([bot, "counting"], games=args.games, seed=args.seed))
        cpu = time.process_time() - start
        diffs = [x - y for x, y in zip(got, base, strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        half = 1.96 * math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
        print(f"{text}: {n} games, seed {args.seed}: share {sum(got) / n:.1%}; counting vs counting "
              f"{sum(base) / n:.1%}; paired difference {mean:+.1%} +/- {half:.1%} (95%); "
              f"{cpu / n:.3f} s of CPU a game", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
