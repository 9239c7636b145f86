"""What a stranger's document can cost: each public loader on the largest hostile inputs under 1 MiB.

Runs every loader of `tests/test_hostile_input.py` on every hostile document there (deep
nesting, huge numbers and strings, decks of 90,000 pairs of 10,000 cards, piles of 500,000
cards, long histories, records of too many actions...) and prints, per loader, the slowest
input, its time (median of `--repeats` runs) and the peak memory it allocated (tracemalloc).
Run from the repository root::

    python benchmarks/hostile_input.py [--repeats 3]

Wall-clock times on a shared machine move with its load: read them as orders of magnitude.
Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_hostile_input import HOSTILE, LOADERS  # needs the repository root on the path


def cost(load: Any, text: str, repeats: int) -> tuple[float, int, str]:
    """Median seconds, peak bytes allocated, and the outcome of `load(text)`."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            load(text)
            outcome = "accepted"
        except Exception as error:  # every refusal is an AbyssError; anything else is shown
            outcome = getattr(error, "code", type(error).__name__)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    with contextlib.suppress(Exception):
        load(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{len(HOSTILE)} hostile documents of up to 1 MiB, {len(LOADERS)} loaders; "
          f"median of {args.repeats} runs\n")
    print(f"{'loader':<18} {'slowest input':<30} {'ms':>7} {'peak MB':>8}  outcome")
    for name, load in LOADERS.items():
        worst = max(((cost(load, text, args.repeats), label) for label, text in HOSTILE.items()),
                    key=lambda item: item[0][0])
        (seconds, peak, outcome), label = worst
        print(f"{name:<18} {label:<30} {seconds * 1e3:>7.1f} {peak / 1e6:>8.1f}  {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
