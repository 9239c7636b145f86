"""Instructions per `apply`: the machine-independent cost of applying one checked action.

Wall-clock figures on a shared machine move with its load; instruction counts do not. This
script records the (state, action) pairs of `--games` seeded random 2-player games, then runs
itself twice under callgrind (valgrind): once applying every pair `--repeats` times and once
applying none. The difference, divided by the number of applies, is what one `apply` costs
(interpreter start-up and the games' recording cancel out).

    PYTHONHASHSEED=0 python benchmarks/apply_instructions.py [--games 40] [--repeats 3]

Compare two versions of the engine by running it on each (same Python, same arguments).
Needs valgrind; the hash seed is fixed for the child runs (dictionary layouts change the
counts by about 1% otherwise).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

import abyss_rules as ar


def pairs(games: int) -> list[tuple[ar.State, ar.Action]]:
    """Every (state, action) of `games` random 2-player games, seeds 0 to games - 1."""
    out = []
    for seed in range(games):
        state = ar.new_game(players=2, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            action = rng.choice(ar.legal_actions(state))
            out.append((state, action))
            state = ar.apply(state, action)
    return out


def _child(games: int, repeats: int) -> None:
    recorded = pairs(games)
    apply = ar.apply
    for _ in range(repeats):
        for state, action in recorded:
            apply(state, action)


def _instructions(games: int, repeats: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
             "--child", "--games", str(games), "--repeats", str(repeats)],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.games, args.repeats)
        return
    applies = len(pairs(args.games)) * args.repeats
    with_applies = _instructions(args.games, args.repeats)
    without = _instructions(args.games, 0)
    print(f"abyss-rules {ar.__version__}, Python {sys.version.split()[0]}")
    print(f"{args.games} games, {applies:,} applies: {(with_applies - without) / applies:,.0f} "
          "instructions per apply")


if __name__ == "__main__":
    main()
