"""Every built-in bot against every other: win shares with 95% intervals, mean scores.

    python benchmarks/bot_table.py [--games 400] [--seed 2026] [--jobs 2] [--bots NAME ...]
                                   [--pairs A:B ...] [--rollouts 32] [--horizon 2] [--confidence 2]
                                   [--json out.json]

Each pairing is one `simulate` of two bots, heads-up on the standard variant, the seats
swapped from one game to the next, played in chunks of `--chunk` games (chunk `k` seeded
`seed + k`; a progress line on stderr after each). A shared win counts 1/2 to each. The interval is
Wilson's score interval at 95%. `--pairs A:B ...` plays only those pairings (the
two-thousand-game match of `search` against `counting` is `--pairs search:counting --games
2000`); `--rollouts` and `--horizon` set `SearchBot`'s budget. Prints a Markdown table, and
the time per game of each pairing (process CPU time of this process and its workers is not
summed: the wall time is given, on a shared machine it moves).

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from itertools import combinations
from typing import Any

from abyss_rules.bots import BOTS, SearchBot
from abyss_rules.simulation import simulate
from abyss_rules.simulation._results import wilson_interval


def factory(name: str, rollouts: int, horizon: int, confidence: float) -> Any:
    if name == "search":
        return functools.partial(SearchBot, rollouts=rollouts, horizon=horizon, confidence=confidence)
    return name


def play(a: str, b: str, games: int, seed: int, executor: Executor | None,
         search: tuple[int, int, float], chunk: int) -> dict[str, Any]:
    """One pairing, in chunks of `chunk` games (chunk `k` seeded `seed + k`; the seats swapped
    from game to game within each), a cumulative line on stderr after each chunk."""
    start = time.perf_counter()
    played, wins, rounds = 0, 0.0, 0
    seat_games, seat_wins = [0, 0], [0.0, 0.0]
    points, round_points = [0, 0], [0, 0]
    k = 0
    while played < games:
        n = min(chunk, games - played)
        result = simulate([factory(a, *search), factory(b, *search)], games=n, seed=seed + k,
                          executor=executor, rotate=True)
        first, second = result.bots
        played += first.games
        wins += float(first.wins)
        rounds += first.rounds
        for s in (0, 1):
            seat_games[s] += first.seat_games[s]
            seat_wins[s] += float(first.seat_wins[s])
        for i, stats in enumerate((first, second)):
            points[i] += stats.points
            round_points[i] += stats.round_points
        k += 1
        if n < games:
            low, high = wilson_interval(wins, played)
            print(f"  {a} vs {b}: {played} games, {a} {wins / played:.1%} ({low:.1%} - {high:.1%}), "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - start
    low, high = wilson_interval(wins, played)
    return {
        "a": a, "b": b, "games": played, "a_wins": wins, "a_share": wins / played,
        "a_low95": low, "a_high95": high,
        "a_by_seat": [w / g if g else 0.0 for w, g in zip(seat_wins, seat_games, strict=True)],
        "a_mean_total": points[0] / played, "b_mean_total": points[1] / played,
        "a_mean_round": round_points[0] / rounds, "b_mean_round": round_points[1] / rounds,
        "rounds_per_game": rounds / played, "wall_seconds": wall,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing (default 400)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (1: play in this process)")
    parser.add_argument("--bots", nargs="+", default=list(BOTS), choices=list(BOTS))
    parser.add_argument("--pairs", nargs="+", default=None, help="A:B pairings instead of every pair")
    parser.add_argument("--rollouts", type=int, default=32, help="SearchBot's rollouts per searched decision")
    parser.add_argument("--horizon", type=int, default=2, help="SearchBot's horizon")
    parser.add_argument("--confidence", type=float, default=1.0, help="SearchBot's confidence")
    parser.add_argument("--chunk", type=int, default=200, help="games per chunk (a progress line each)")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args(argv)
    if min(args.games, args.jobs, args.rollouts, args.chunk) < 1 or args.horizon < 0:
        parser.error("--games, --jobs, --rollouts and --chunk must be at least 1, --horizon at least 0")
    if args.pairs:
        pairs = []
        for text in args.pairs:
            a, _, b = text.partition(":")
            if a not in BOTS or b not in BOTS:
                parser.error(f"--pairs: {text!r} is not two built-in bots A:B")
            pairs.append((a, b))
    else:
        pairs = list(combinations(args.bots, 2))
    print(f"{args.games} games per pairing, standard variant, heads-up, seats swapped; seed {args.seed}; "
          f"search: rollouts={args.rollouts} horizon={args.horizon} confidence={args.confidence}; "
          f"Python {sys.version.split()[0]}", flush=True)
    print("| A vs B | A's win share | 95% interval (Wilson) | A by seat (0 / 1) | A / B mean total "
          "| A / B mean round score | rounds per game | wall s per game |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    rows = []
    executor: Executor | None = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for a, b in pairs:
            row = play(a, b, args.games, args.seed, executor, (args.rollouts, args.horizon, args.confidence),
                       args.chunk)
            rows.append(row)
            seat0, seat1 = row["a_by_seat"]
            print(f"| `{a}` vs `{b}` | {row['a_share']:.1%} | {row['a_low95']:.1%} - {row['a_high95']:.1%} "
                  f"| {seat0:.0%} / {seat1:.0%} | {row['a_mean_total']:.1f} / {row['b_mean_total']:.1f} "
                  f"| {row['a_mean_round']:.2f} / {row['b_mean_round']:.2f} | {row['rounds_per_game']:.2f} "
                  f"| {row['wall_seconds'] / args.games:.3f} |", flush=True)
    finally:
        if executor is not None:
            executor.shutdown()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"args": vars(args), "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
