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
import time

from search_paired import paired, shares  # benchmarks/search_paired.py, beside this script

from abyss_rules.bots import CountingBot
from abyss_rules.simulation import simulate


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
        n = len(base)
        mean, half = paired(got, base)
        print(f"{text}: {n} games, seed {args.seed}: share {sum(got) / n:.1%}; counting vs counting "
              f"{sum(base) / n:.1%}; paired difference {mean:+.1%} +/- {half:.1%} (95%); "
              f"{cpu / n:.3f} s of CPU a game", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
