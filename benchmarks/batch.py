"""Random playouts on the batch engine beside the reference engine (and other engines), in one run.

Plays uniformly random legal games of the standard variant with
``abyss_rules.batch.random_playouts`` at N = 64, 256, 1,024, 4,096 and 16,384 games in lockstep,
``--per-lane`` games per lane (8: ``8 * N`` games per run, so that the ramp-down at the end,
when the last games step fewer and fewer lanes, is a small part of the run), and with the
reference engine (``legal_actions`` + ``apply``, as ``benchmarks/playouts.py`` does) before the
first batch run and after each one. Each size runs ``--repeat`` times (5), alternating with the
reference runs; each batch run's ratio is taken against the mean of the two reference runs
around it (by wall-clock time and by CPU time), and the table shows the median run of each size
(by its wall-clock ratio) with every ratio listed below it. Peak memory is that of one run of
``N`` games. Turns are counted as in ``benchmarks/playouts.py``: a draw and the action after it
are one turn; opening flips are not turns.

    python benchmarks/batch.py [--players 2] [--seconds 3] [--sizes 64 256 1024 4096 16384]
                               [--per-lane 8] [--repeat 5] [--profile] [--peer NAME=COMMAND ...]

``--peer NAME=COMMAND`` adds another engine to the same run, measured the same way: COMMAND (split
as a shell splits words, run without a shell) plays random games and prints the turns and the
games it played, two integers, on its last line, and may add a third number, the CPU seconds of
the games it timed (a JIT's warm-up left out); without it the CPU time is the child process's, as
the operating system counts it (start-up included). Each peer runs ``--repeat`` times,
alternating with the reference runs like a batch size.

The first lines say how the streams run: compiled (a wheel's build: the SHA-256 blocks and the
shuffles in C; ``ABYSS_RULES_PURE=1`` at import forces the pure path) or pure Python (an editable
install).

``--profile`` also runs the playouts of N = 4,096 once more and prints where their CPU time goes
(hashing, the shuffles, the deals, the steps, the masks, the random policy), each part timed
with ``time.process_time`` around the engine's functions.

Not a test: the machines are shared and noisy. Compare the ratios of one run, not absolute
figures of different runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import shlex
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from functools import partial
from time import perf_counter, process_time
from typing import Any

import numpy as np
from arguments import at_least  # benchmarks/arguments.py, beside this script
from playouts import playouts  # benchmarks/playouts.py, beside this script

import abyss_rules as ar
from abyss_rules import batch


def reference(players: int, seconds: float, seed: int) -> tuple[float, float, float]:
    """Random games through the reference engine for ``seconds``: (turns/s, games/s, turns per CPU
    second), measured by ``benchmarks/playouts.py`` itself (so both scripts count turns the same way)."""
    cpu, wall = process_time(), perf_counter()
    turns, games, _ = playouts(players, seconds, random.Random(seed))
    cpu, wall = process_time() - cpu, perf_counter() - wall
    return turns, games, turns * wall / max(cpu, 1e-9)


def batched(players: int, width: int, games: int, seed: int) -> tuple[float, float, float]:
    """``games`` random games ``width`` at a time: (turns/s, games/s, turns per CPU second)."""
    cpu, wall = process_time(), perf_counter()
    stats = batch.random_playouts(games=games, players=players, seed=seed, width=width)
    cpu, wall = process_time() - cpu, perf_counter() - wall
    return stats.turns / wall, stats.games / wall, stats.turns / max(cpu, 1e-9)


def peer(command: str) -> tuple[float, float, float]:
    """One run of another engine's ``command``: (turns/s, games/s, turns per CPU second), from the
    two integers of its last line and its CPU time (the third number there, else the child
    process's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = perf_counter()
    run = subprocess.run(shlex.split(command), capture_output=True, text=True, check=True)
    wall = perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    words = run.stdout.strip().splitlines()[-1].split()
    turns, games = int(words[0]), int(words[1])
    if len(words) > 2:
        cpu = float(words[2])
    return turns / wall, games / wall, turns / max(cpu, 1e-9)


def peak_memory(players: int, width: int, seed: int) -> float:
    """Peak MiB traced (NumPy's arrays included) while ``width`` games play to their end."""
    tracemalloc.start()
    batch.random_playouts(games=width, players=players, seed=seed, width=width)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def peak_memory_text(players: int, width: int, seed: int) -> str:
    """``peak_memory`` for the table."""
    return f"{peak_memory(players, width, seed):.1f}"


def profile(players: int, width: int, games: int, seed: int) -> None:
    """Where the CPU time of one run of ``random_playouts`` goes: the engine's functions timed with
    ``time.process_time`` around each call (cProfile's cost per Python call would overstate the
    hashing, which makes one call per block)."""
    from abyss_rules.batch import _playouts as playouts
    from abyss_rules.batch import _rounds as rounds
    from abyss_rules.batch import _shuffle as shuffle
    from abyss_rules.batch import _stepping as stepping

    parts = [  # (label, the names its callers look up: (module, attribute) pairs)
        ("SHA-256 blocks (randomness.many_stream_blocks)",
         [(shuffle, "many_stream_blocks"), (playouts, "many_stream_blocks")]),
        ("shuffles, hashing included (shuffle.shuffle_rows)", [(rounds, "shuffle_rows")]),
        ("deals, shuffles included (rounds.deal, shuffled_decks, lay_out)",
         [(playouts, "deal"), (playouts, "shuffled_decks"), (playouts, "lay_out")]),
        ("steps up to the ends of turns (stepping.advance)", [(playouts, "advance")]),
        ("  ends of turns (rounds.end_turns)", [(stepping, "end_turns")]),
        ("  opening flips (stepping._opening_flips)", [(stepping, "_opening_flips")]),
        ("ends of rounds (rounds.end_rounds)", [(playouts, "end_rounds")]),
        ("legal masks, folded (stepping.legal_folded)", [(playouts, "legal_folded")]),
        ("the random policy (playouts._choose)", [(playouts, "_choose")]),
    ]
    spent = [0.0] * len(parts)
    originals = [(owner, name, getattr(owner, name)) for _, names in parts for owner, name in names]

    def timed(n: int, function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[n] += process_time() - start
        return wrapper

    for n, (_, names) in enumerate(parts):
        for owner, name in names:
            setattr(owner, name, timed(n, getattr(owner, name)))
    try:
        start = process_time()
        batch.random_playouts(games=games, players=players, seed=seed, width=width)
        total = max(process_time() - start, 1e-9)
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
    print(f"\nwhere the CPU time goes, N = {width:,}, {games:,} games ({total:.2f} s of CPU in all):")
    for (label, _), seconds in zip(parts, spent, strict=True):
        print(f"  {label:<60} {100 * seconds / total:5.1f} %")


def hashing() -> str:
    """How this process runs the streams: compiled (and with what) or pure Python."""
    from abyss_rules import randomness

    if not getattr(randomness, "COMPILED", False):  # (an older package has no flag: pure)
        return "pure Python (hashlib, one call per block; the shuffles' swaps in NumPy)"
    from abyss_rules import _sha256_blocks

    shuffles = "in C" if getattr(randomness, "compiled_row_shuffle", lambda: None)() else "in NumPy"
    return f"compiled, {_sha256_blocks.implementation()} (randomness.COMPILED); the shuffles {shuffles}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=at_least(1), default=2)
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each reference run")
    parser.add_argument("--sizes", type=at_least(1), nargs="+", default=[64, 256, 1024, 4096, 16384])
    parser.add_argument("--per-lane", "--rounds", dest="per_lane", type=at_least(1), default=8,
                        help="games per lane of each batch run (N * per-lane games)")
    parser.add_argument("--repeat", type=at_least(1), default=5, help="batch runs per size")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profile", action="store_true", help="also profile one run at N = 4,096")
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=COMMAND",
                        help="another engine's command, run beside these (see above)")
    args = parser.parse_args(argv)
    peers = [tuple(spec.split("=", 1)) for spec in args.peer]
    if any(len(p) != 2 or not all(p) for p in peers):
        parser.error("--peer takes NAME=COMMAND")
    print(f"abyss-rules {ar.__version__}, NumPy {np.__version__}, Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}, {platform.system()}")
    print(f"the streams (SHA-256 blocks and shuffles): {hashing()}")
    print(f"random playouts of the standard variant, {args.players} players, {args.per_lane} games per lane, "
          f"{args.repeat} runs per engine")
    refs = [reference(args.players, args.seconds, args.seed)]
    print(f"{'engine':>16}  {'turns/s':>10}  {'games/s':>9}  {'x ref':>6}  {'x ref CPU':>9}  {'peak MiB':>8}")
    print(f"{'reference':>16}  {refs[0][0]:>10,.0f}  {refs[0][1]:>9,.1f}  {1:>6.2f}  {1:>9.2f}  {'':>8}")
    players, seed, per_lane = args.players, args.seed, args.per_lane
    engines: list[tuple[str, Callable[[], tuple[float, float, float]], Callable[[], str]]] = [
        (f"batch N={width:,}", partial(batched, players, width, width * per_lane, seed),
         partial(peak_memory_text, players, width, seed))
        for width in args.sizes]
    engines += [(name, partial(peer, command), str) for name, command in peers]
    every: list[str] = []
    for label, run, memory in engines:
        runs = []
        for _ in range(args.repeat):
            turns, games, per_cpu = run()
            refs.append(reference(args.players, args.seconds, args.seed + len(refs)))
            # Against the mean of the reference runs just before and just after this one.
            ref_wall = (refs[-2][0] + refs[-1][0]) / 2
            ref_cpu = (refs[-2][2] + refs[-1][2]) / 2
            runs.append((turns / ref_wall, per_cpu / ref_cpu, turns, games))
        runs.sort()
        wall, cpu, turns, games = runs[len(runs) // 2]
        print(f"{label:>16}  {turns:>10,.0f}  {games:>9,.1f}  {wall:>6.2f}  {cpu:>9.2f}  {memory():>8}")
        every.append(f"{label}: " + ", ".join(f"{w:.2f} ({c:.2f})" for w, c, _, _ in runs))
    print("every run's ratio, by wall-clock time (by CPU time): " + "; ".join(every))
    print("reference runs (turns/s; one before the first run and one after each, the two around "
          "each run averaged for its ratio): " + ", ".join(f"{wall:,.0f}" for wall, _, _ in refs))
    if args.profile:
        profile(args.players, 4096, 4096 * args.per_lane, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
