"""`simulate`: many games between bots, a results table and a progress bar.

[`ProgressBar`][abyss_rules.cli.ProgressBar] is the `progress` callback it passes to
[`simulate`][abyss_rules.simulate].
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TextIO

from ..simulation import simulate
from .narration import _variant_summary
from .options import EXIT_OK, _bot_names, _UsageError, _variant


class ProgressBar:
    """A one-line progress bar on a terminal stream: `[#####.....] 120/400 games  30%    12 s`.

    Call it as `progress(done, total)` (the `progress` callback of
    [`simulate`][abyss_rules.simulate]); it redraws the line only when the bar grows, and
    ends it with a newline when `done == total`.

    Examples:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = ProgressBar(out, 4, width=4)
        >>> for done in range(1, 5):
        ...     bar(done, 4)
        >>> out.getvalue().split(chr(13))[-1][:22]     # the last redraw (after a carriage return)
        '[####] 4/4 games 100% '
    """

    def __init__(self, stream: TextIO, total: int, width: int = 30) -> None:
        self.stream = stream
        self.total = total
        self.width = width
        self.start = time.monotonic()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        if filled == self.shown and done != total:
            return
        self.shown = filled
        elapsed = time.monotonic() - self.start
        bar = "#" * filled + "." * (self.width - filled)
        percent = 100 * done // max(total, 1)
        self.stream.write(f"\r[{bar}] {done}/{total} games {percent:3d}% {elapsed:5.0f} s")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    v = _variant(args)
    names = _bot_names(args.bots, v)
    if args.games < 1:
        raise _UsageError(f"--games must be at least 1, got {args.games}")
    if args.jobs < 0:
        raise _UsageError(f"--jobs must be 0 (one per CPU core) or more, got {args.jobs}")
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    err: TextIO = args.stderr
    show = args.progress or (args.progress is None and err.isatty() and args.games >= 20)
    progress = ProgressBar(err, args.games) if show else None
    executor: Executor | None = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        result = simulate(names, args.games, seed, executor, variant=v, rotate=not args.fixed_seats,
                          progress=progress)
    finally:
        if executor is not None:
            executor.shutdown(cancel_futures=True)
    if args.json:
        data = result.to_dict()
        data["bots_requested"] = names
        json.dump(data, out, indent=2)
        out.write("\n")
        return EXIT_OK
    print(f"{args.games} games of {_variant_summary(v)} between {' and '.join(names)}; seed {seed}"
          + ("" if args.fixed_seats else "; seats rotate from game to game"), file=out)
    print(result.table(), file=out)
    return EXIT_OK
