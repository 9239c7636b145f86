"""Random playouts: how fast does abyss-rules play complete games?

Plays uniformly random legal games through the public API -- every action is
chosen from ``legal_actions`` and applied with ``apply``, which checks it --
and prints completed player turns per second, games per second, and the
median microseconds per ``apply`` and per ``legal_actions``.

    python benchmarks/playouts.py [--seconds 5] [--repeats 3]

A figure is the median of ``--repeats`` runs. Not a test: the machines are
shared and noisy; read the figures, don't assert on them.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
from time import perf_counter

import abyss_rules as ar


def playouts(players: int, seconds: float, rng: random.Random) -> tuple[float, float, float]:
    """Random games for ``seconds``: (turns/s, games/s, actions/s)."""
    # The policy's own cost is kept small so that the figures measure the engine:
    # legal[int(random() * n)] is uniform to within 2**-53 and twice as fast as choice().
    apply, legal_actions, random_ = ar.apply, ar.legal_actions, rng.random
    game_over = ar.Phase.GAME_OVER
    turns = games = actions = 0
    start = perf_counter()
    deadline = start + seconds
    while perf_counter() < deadline:
        state = ar.new_game(players, seed=rng.getrandbits(128))
        while state.phase is not game_over:
            legal = legal_actions(state)
            state = apply(state, legal[int(random_() * len(legal))])
            actions += 1
        turns += sum(_round_turns(state))
        games += 1
    elapsed = perf_counter() - start
    return turns / elapsed, games / elapsed, actions / elapsed


def _round_turns(state: ar.State) -> list[int]:
    return [result.turns for result in state.history]


def per_operation(rng: random.Random, samples: int = 20_000) -> tuple[float, float]:
    """Median µs of ``apply`` and of ``legal_actions`` over states of random games.

    Each is timed on fresh states (not the one-entry cache of the previous
    call), in batches of 10 calls.
    """
    states: list[ar.State] = []
    while len(states) < samples:
        state = ar.new_game(2, seed=rng.getrandbits(128))
        while not state.is_over and len(states) < samples:
            if state.phase is not ar.Phase.OPENING:
                states.append(state)
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    pairs = [(s, rng.choice(ar.legal_actions(s))) for s in states]
    rng.shuffle(pairs)
    apply_times, legal_times = [], []
    for i in range(0, len(pairs) - 10, 10):
        batch = pairs[i:i + 10]
        other = pairs[i + 10:i + 20]
        t0 = perf_counter()
        for s, a in batch:
            ar.apply(s, a)
        t1 = perf_counter()
        for s, _ in other:
            ar.legal_actions(s)
        t2 = perf_counter()
        apply_times.append((t1 - t0) / len(batch))
        legal_times.append((t2 - t1) / len(other))
    return statistics.median(apply_times) * 1e6, statistics.median(legal_times) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each playout run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (the median is shown)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the benchmark's own choices")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"abyss-rules {ar.__version__}, Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}, {platform.system()}")
    print(f"random playouts, {args.seconds:g} s per run, median of {args.repeats} runs")
    print(f"{'players':>7}  {'turns/s':>10}  {'games/s':>9}  {'actions/s':>10}")
    for players in (2, 4):
        runs = [playouts(players, args.seconds, rng) for _ in range(args.repeats)]
        turns, games, actions = (statistics.median(col) for col in zip(*runs, strict=True))
        print(f"{players:>7}  {turns:>10,.0f}  {games:>9,.1f}  {actions:>10,.0f}")
    apply_us, legal_us = (statistics.median(col) for col in zip(
        *(per_operation(rng) for _ in range(args.repeats)), strict=True))
    print(f"median apply: {apply_us:.2f} µs, median legal_actions: {legal_us:.2f} µs "
          "(2 players, states from random games)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
