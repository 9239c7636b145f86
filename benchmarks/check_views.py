"""What auditing a long game costs: `Record.check_views` on the longest record a document holds.

Builds a record of `--actions` legal actions (by default `MAX_RECORD_ACTIONS`, 100,000), writes
it as a `record` document, reads it back without replaying it, and checks
`--views` views of seat 0 spread over the game (the last one included). Prints the document's
size, the time `check_views` took and how much the process's peak resident memory grew while
it ran (with `--traced`, also the peak it allocated, from a second check under tracemalloc).
Two games (`--game`):

* `swaps` (the default): 2 seats of the standard variant; the opening, then swaps that take
  the discard onto a face-up space, which never end a round (a 700 KB record);
* `largest`: 16 seats and the largest deck a variant may hold (1,950 cards); every turn draws
  and places the card on a face-up space, so the draw pile runs out and is reshuffled again and
  again, and every state holds piles of about a thousand cards (a 640 KB record).

Run from the repository root::

    python benchmarks/check_views.py [--game largest] [--actions 100000] [--views 100] [--traced]

Wall-clock times on a shared machine move with its load: read them as orders of magnitude.
Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.builders import long_record  # needs the repository root on the path

import abyss_rules as ar
from abyss_rules.records import MAX_RECORD_ACTIONS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("swaps", "largest"), default="swaps")
    parser.add_argument("--actions", type=int, default=MAX_RECORD_ACTIONS)
    parser.add_argument("--views", type=int, default=100)
    parser.add_argument("--traced", action="store_true",
                        help="check again under tracemalloc and print the peak it allocated (slower)")
    args = parser.parse_args(argv)
    if args.actions < 0 or args.views < 1:
        parser.error("--actions must be at least 0 and --views at least 1")
    text = long_record(args.actions, args.game).to_json()
    record = ar.Record.from_json(text, verify=False)
    last = len(record.actions)
    step = max(1, last // args.views)
    wanted = sorted({*range(0, last + 1, step), last})[-args.views:]
    views, at = [], set(wanted)
    for state in record.states():  # the views a client of seat 0 saved
        if state.seq in at:
            views.append(ar.view(state, 0))
    print(f"record ({args.game}): {len(record.actions):,} actions of {record.players} seats, "
          f"{len(text.encode()):,} bytes; "
          f"{len(views)} views of seat 0 to check")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    record.check_views(views)
    elapsed = time.perf_counter() - start
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(f"check_views: {elapsed:.2f} s; the process's peak resident memory grew by {grown / 1e3:.1f} MB")
    if args.traced:
        tracemalloc.start()
        record.check_views(views)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"check_views again under tracemalloc: peak allocated {peak / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
