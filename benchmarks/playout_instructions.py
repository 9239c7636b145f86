"""The work of `playouts.py` in a fixed amount: for instruction counts, not timings.

`playouts.py` plays random games for a number of seconds, so the work it does depends on
the machine. This script plays a fixed number of random games (2 and 4 players, the same
policy: `legal[int(random() * n)]`, seeded) through the public API, so that callgrind counts
the same work before and after a change:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        python benchmarks/playout_instructions.py --games 100

Run it with `--games 0` too and subtract: what is left is the games' own instructions,
without the interpreter's start-up and the imports.
"""

from __future__ import annotations

import argparse
import random
import sys

import abyss_rules as ar


def play(players: int, games: int, rng: random.Random) -> int:
    """Play `games` random games of `players`; return the number of actions applied."""
    apply, legal_actions, random_ = ar.apply, ar.legal_actions, rng.random
    game_over = ar.Phase.GAME_OVER
    actions = 0
    for _ in range(games):
        state = ar.new_game(players, seed=rng.getrandbits(128))
        while state.phase is not game_over:
            legal = legal_actions(state)
            state = apply(state, legal[int(random_() * len(legal))])
            actions += 1
    return actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per player count (default: 100)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the benchmark's own choices")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    actions = sum(play(players, args.games, rng) for players in (2, 4))
    print(f"{args.games} games each of 2 and 4 players: {actions} actions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
