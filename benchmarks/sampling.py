"""How fast states are sampled from a view: `StateSampler.sample` and `StateSampler(view)`.

    python benchmarks/sampling.py [--seconds 2] [--repeats 3]

The view: seat 0 of a standard 2-player game after the opening (145 unseen cards). Prints the
median of `--repeats` runs of each, per second (process CPU time).

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import abyss_rules as ar
from abyss_rules.sampling import StateSampler


def per_second(work: object, seconds: float) -> float:
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(100):
            work()  # type: ignore[operator]
        count += 100
    return count / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    state = ar.new_game(players=2, seed=1)
    for action in [ar.Flip(0, 0, 0), ar.Flip(0, 1, 0), ar.Flip(1, 0, 0), ar.Flip(1, 1, 0)]:
        state = ar.apply(state, action)
    mine = ar.view(state, 0)
    sampler = StateSampler(mine)
    rng = random.Random(1)
    samples = statistics.median(per_second(lambda: sampler.sample(rng), args.seconds)
                                for _ in range(args.repeats))
    checked = statistics.median(per_second(lambda: StateSampler(mine), args.seconds)
                                for _ in range(args.repeats))
    print(f"{sampler.unseen} unseen cards ({sampler.hidden_spaces} face down, "
          f"{sampler.draw_pile_size} to draw)")
    print(f"StateSampler.sample: {samples:,.0f} samples/s")
    print(f"StateSampler(view):  {checked:,.0f} views/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
