"""CPU time per SHA-256 stream block: the compiled bulk hash against the pure path.

    python benchmarks/hashing.py [--games 4096] [--blocks 30] [--repeat 5]

Hashes ``--blocks`` blocks of each of ``--games`` random seeds (30 is about a random 2-player
game's worth: one block per game seed, and 19 per deal) with ``randomness.many_stream_blocks``'s
three ways -- the compiled module with the CPU's SHA extensions where it has them, the compiled
module's portable C, and the pure path (one hashlib call per block) -- alternating, ``--repeat``
rounds, and prints the median nanoseconds of CPU per block of each. Needs the compiled module
(a wheel's build: see benchmarks/installed.py or `pip install .`); the pure path runs anyway.

Not a test: the machines are shared and noisy; read the ratios of one run.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
from collections.abc import Callable
from time import process_time

from arguments import at_least  # benchmarks/arguments.py, beside this script

from abyss_rules import randomness


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=at_least(1), default=4096)
    parser.add_argument("--blocks", type=at_least(1), default=30)
    parser.add_argument("--repeat", type=at_least(1), default=5)
    args = parser.parse_args()
    rng = random.Random(2026)
    requests = [(rng.randbytes(32), 0, args.blocks) for _ in range(args.games)]
    ways: dict[str, Callable[[list[tuple[bytes, int, int]]], bytes]] = {
        "pure Python (hashlib per block)": randomness._many_stream_blocks_pure}
    try:
        from abyss_rules import _sha256_blocks
    except ImportError:
        print("!!! no compiled module here (an editable install?): the pure path only !!!")
    else:
        ways[f"compiled, default ({_sha256_blocks.implementation()})"] = _sha256_blocks.many_stream_blocks
        ways["compiled, portable C"] = _sha256_blocks.many_stream_blocks_portable
    expected = randomness._many_stream_blocks_pure(requests)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.repeat):
        for name, way in ways.items():
            start = process_time()
            got = way(requests)
            times[name].append(process_time() - start)
            assert got == expected, name
    blocks = args.games * args.blocks
    print(f"Python {platform.python_version()}, {platform.machine()}: {args.games:,} seeds x {args.blocks} "
          f"blocks, {args.repeat} rounds alternating; CPU ns per block (median):")
    for name, seconds in times.items():
        print(f"  {name:<36} {1e9 * statistics.median(seconds) / blocks:8.1f}")


if __name__ == "__main__":
    main()
