"""State and view JSON costs, for instruction counting (callgrind) or a quick look.

Samples states from seeded random 2-player games (the same ones every run), then runs
``loads_state(dumps_state(state))`` over all of them (and ``dumps_view`` of seat 0's view
with ``--views``). Compare versions by the instructions callgrind counts for this script
with and without ``--skip-work`` (the difference is the work itself)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        python benchmarks/json_roundtrip.py --states 300
    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg0.out \\
        python benchmarks/json_roundtrip.py --states 300 --skip-work

Without valgrind it prints the mean µs per round trip (wall clock: noisy on a shared machine).
Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import random
import sys
from time import perf_counter

import abyss_rules as ar


def sample(count: int, seed: int) -> list[ar.State]:
    """``count`` states from seeded random 2-player games, opening states and finished rounds included."""
    rng = random.Random(seed)
    out: list[ar.State] = []
    while len(out) < count:
        state = ar.new_game(2, seed=rng.getrandbits(128))
        while not state.is_over and len(out) < count:
            out.append(state)
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--views", action="store_true", help="time dumps_view instead of the round trip")
    parser.add_argument("--skip-work", action="store_true", help="sample only (the baseline to subtract)")
    args = parser.parse_args(argv)
    states = sample(args.states, args.seed)
    views = [ar.view(s, 0) for s in states] if args.views else []
    if args.skip_work:
        return 0
    start = perf_counter()
    if args.views:
        for v in views:
            ar.dumps_view(v)
    else:
        for state in states:
            ar.loads_state(ar.dumps_state(state))
    elapsed = perf_counter() - start
    what = "dumps_view" if args.views else "state round trip"
    print(f"{what}: {elapsed / len(states) * 1e6:.1f} µs per state over {len(states)} states")
    return 0


if __name__ == "__main__":
    sys.exit(main())
