"""Every built-in bot against every other: win shares with 95% intervals, and a rating per bot.

    python benchmarks/bot_table.py [--games 400] [--seed 2026] [--jobs 2] [--bots NAME ...]
                                   [--pairs A:B ...] [--rollouts 32] [--horizon 2] [--confidence 1]
                                   [--chunk 200] [--json out.json] [--svg ratings.svg]
                                   [--merge earlier.json ...]

Each pairing is one `simulate` of two bots, heads-up on the standard variant, the seats
swapped from one game to the next, played in chunks of `--chunk` games (chunk `k` of every
pairing seeded `seed + k`, so every pairing meets the same deals; a progress line on stderr
after each). A shared win counts 1/2 to each. The interval is Wilson's score interval at 95%.
`--pairs A:B ...` plays only those pairings; `--rollouts`, `--horizon` and `--confidence` set
`SearchBot`'s. Prints a Markdown table of the pairings, the time per game of each (wall time:
on a shared machine it moves), and, when every bot met another, a Markdown table of
Bradley-Terry ratings on the Elo scale (`counting` at 1500 when it plays) with 95% intervals
(`ratings`); `--svg` also draws them. `--merge` adds the rows of earlier runs' `--json` files
(pairings played separately, with their own `--games`) to the tables and the ratings.

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from itertools import combinations
from typing import Any

from abyss_rules.bots import BOTS, SearchBot
from abyss_rules.simulation import simulate, wilson_interval

ELO: float = 400 / math.log(10)
"""Elo points per unit of the Bradley-Terry log-odds."""


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


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """`matrix^-1 vector` by Gauss-Jordan elimination with partial pivoting (a few unknowns)."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(rows[r][c]))
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(n):
            if r != c:
                f = rows[r][c] / rows[c][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def ratings(rows: list[dict[str, Any]], anchor: str = "counting",
            prior: float = 1.0) -> dict[str, tuple[float, float]]:
    """Bradley-Terry ratings of the bots of `rows` on the Elo scale, `anchor` at 1500 (or the
    first bot, if `anchor` did not play), each with the half-width of its 95% interval relative
    to the anchor: P(A beats B) = 1 / (1 + 10^((R_B - R_A) / 400)). The fit maximizes the
    likelihood of the win shares with `prior` games won half by each side added to every
    pairing (a bot that never won, such as `random`, gets a finite rating); the intervals come
    from the curvature of that likelihood at its maximum (the observed information)."""
    bots = list(dict.fromkeys([r["a"] for r in rows] + [r["b"] for r in rows]))
    base = anchor if anchor in bots else bots[0]
    free = [b for b in bots if b != base]
    index = {b: i for i, b in enumerate(free)}
    theta = [0.0] * len(free)

    def strength(bot: str) -> float:
        return 0.0 if bot == base else theta[index[bot]]

    for _ in range(100):  # Newton's method on the log-likelihood
        grad = [0.0] * len(free)
        info = [[0.0] * len(free) for _ in free]
        for r in rows:
            a, b = r["a"], r["b"]
            n, w = r["games"] + prior, r["a_wins"] + prior / 2
            p = 1 / (1 + math.exp(strength(b) - strength(a)))
            for bot, sign in ((a, 1.0), (b, -1.0)):
                if bot in index:
                    grad[index[bot]] += sign * (w - n * p)
            v = n * p * (1 - p)
            for x in (a, b):
                for y in (a, b):
                    if x in index and y in index:
                        info[index[x]][index[y]] += v if x == y else -v
        step = _solve(info, grad)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max(map(abs, step), default=0.0) < 1e-10:
            break
    out = {base: (1500.0, 0.0)}
    for bot in free:
        unit = [1.0 if b == bot else 0.0 for b in free]
        variance = _solve(info, unit)[index[bot]]
        out[bot] = (1500 + ELO * theta[index[bot]], 1.96 * ELO * math.sqrt(variance))
    return dict(sorted(out.items(), key=lambda item: item[1][0]))


def connected(rows: list[dict[str, Any]]) -> bool:
    """Whether the pairings of `rows` connect every bot that played (else no rating compares them)."""
    bots = {r["a"] for r in rows} | {r["b"] for r in rows}
    reached, frontier = set(), [next(iter(bots))] if bots else []
    while frontier:
        bot = frontier.pop()
        if bot not in reached:
            reached.add(bot)
            frontier += [r["b"] for r in rows if r["a"] == bot] + [r["a"] for r in rows if r["b"] == bot]
    return bool(bots) and reached == bots


def svg(rated: dict[str, tuple[float, float]]) -> str:
    """The ratings drawn as a dot per bot on one axis, with its 95% interval, weakest at the top."""
    width, left, right, row = 640, 110, 30, 34
    top = 30
    height = top + row * len(rated) + 40
    low = min(r - h for r, h in rated.values())
    high = max(r + h for r, h in rated.values())
    step = 250 if high - low > 1000 else 100
    start, end = math.floor(low / step) * step, math.ceil(high / step) * step

    def x(value: float) -> float:
        return left + (value - start) / (end - start) * (width - left - right)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" font-family="sans-serif" font-size="13" role="img" '
             'aria-label="Ratings of the built-in bots (Bradley-Terry, Elo scale) with 95% intervals">',
             '<rect width="100%" height="100%" fill="white"/>']
    axis = top + row * len(rated)
    for tick in range(start, end + 1, step):
        at = f"{x(tick):.1f}"
        parts.append(f'<line x1="{at}" y1="{top - 10}" x2="{at}" y2="{axis}" stroke="#ddd"/>')
        parts.append(f'<text x="{at}" y="{axis + 16}" text-anchor="middle" fill="#444">{tick}</text>')
    parts.append(f'<text x="{(left + width - right) / 2:.1f}" y="{axis + 34}" text-anchor="middle" '
                 'fill="#444">rating (Elo scale, counting = 1500), 95% interval</text>')
    for i, (bot, (value, half)) in enumerate(rated.items()):
        y = top + row * i + row / 2 - 6
        parts.append(f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">{bot}</text>')
        if half:
            parts.append(f'<line x1="{x(value - half):.1f}" y1="{y:.1f}" x2="{x(value + half):.1f}" '
                         f'y2="{y:.1f}" stroke="#1f5f99" stroke-width="2"/>')
        parts.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="5" fill="#1f5f99"/>')
        parts.append(f'<text x="{x(value):.1f}" y="{y - 9:.1f}" text-anchor="middle" fill="#222">'
                     f'{value:.0f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


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
    parser.add_argument("--json", default=None, help="also write the rows and ratings to this file")
    parser.add_argument("--svg", default=None, help="also draw the ratings into this SVG file")
    parser.add_argument("--merge", nargs="+", default=[], metavar="JSON",
                        help="rows of earlier runs (their --json files) to add to the tables and ratings")
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
    earlier: list[dict[str, Any]] = []
    for name in args.merge:
        with open(name, encoding="utf-8") as kept:
            earlier += json.load(kept)["rows"]
    pairs += [(r["a"], r["b"]) for r in earlier if (r["a"], r["b"]) not in pairs]
    print(f"{args.games} games per pairing, standard variant, heads-up, seats swapped; seed {args.seed}; "
          f"search: rollouts={args.rollouts} horizon={args.horizon} confidence={args.confidence}; "
          f"Python {sys.version.split()[0]}", flush=True)
    print("| A vs B | A's win share | 95% interval (Wilson) | A by seat (0 / 1) | A / B mean total "
          "| A / B mean round score | rounds per game | wall s per game |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    rows: list[dict[str, Any]] = []
    executor: Executor | None = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for a, b in pairs:
            search = (args.rollouts, args.horizon, args.confidence)
            row = next((r for r in earlier if (r["a"], r["b"]) == (a, b)), None) or play(
                a, b, args.games, args.seed, executor, search, args.chunk)
            rows.append(row)
            seat0, seat1 = row["a_by_seat"]
            wall = "-" if row.get("wall_seconds") is None else f"{row['wall_seconds'] / row['games']:.3f}"
            print(f"| `{a}` vs `{b}` | {row['a_share']:.1%} | {row['a_low95']:.1%} - {row['a_high95']:.1%} "
                  f"| {seat0:.0%} / {seat1:.0%} | {row['a_mean_total']:.1f} / {row['b_mean_total']:.1f} "
                  f"| {row['a_mean_round']:.2f} / {row['b_mean_round']:.2f} | {row['rounds_per_game']:.2f} "
                  f"| {wall} |", flush=True)
    finally:
        if executor is not None:
            executor.shutdown()
    rated = ratings(rows) if connected(rows) else {}
    if rated:
        print("\n| bot | rating (Elo scale) | 95% interval |\n|---|---:|---:|")
        for bot, (value, half) in rated.items():
            interval = "(anchor)" if not half else f"{value - half:.0f} - {value + half:.0f}"
            print(f"| `{bot}` | {value:.0f} | {interval} |")
    else:
        print("\n(no ratings: the pairings played do not connect every bot)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"args": vars(args), "rows": rows, "ratings": rated}, out, indent=1)
    if args.svg and rated:
        with open(args.svg, "w", encoding="utf-8") as out:
            out.write(svg(rated))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
