"""`simulate`: many games between bots, a results table and a progress bar.

`ProgressBar` is the `progress` callback it passes to
`simulate`.
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import secrets
import signal
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import nullcontext
from multiprocessing.process import BaseProcess
from typing import Any, TextIO

from ..simulation import SimulationInterrupted, simulate
from ._narration import variant_summary
from ._options import EXIT_INTERRUPTED, EXIT_OK, UsageError, bot_names, variant_of


class ProgressBar:
    """A one-line progress display on a terminal stream:
    `[#####.....] 120/400 games  30%  12 s, about 28 s left`.

    Call it as `progress(done, total)` (the `progress` callback of `simulate`, which
    calls it at the start, as games finish and at least once a second); it redraws the
    line when the count changes or a second has passed, with the time so far and an
    estimate of the time left (from the pace so far), and ends it with a newline when
    `done == total`.

    Examples:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = ProgressBar(out, 4, width=4)
        >>> for done in range(5):
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
        self.drawn = -1.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done == self.shown and now - self.drawn < 1.0 and done != total:
            return
        self.shown, self.drawn = done, now
        elapsed = now - self.start
        filled = self.width * done // max(total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        percent = 100 * done // max(total, 1)
        if done == total:
            left = ""
        elif done:
            left = f", about {elapsed / done * (total - done):.0f} s left"
        else:
            left = ", estimating the time left"
        self.stream.write(f"\r[{bar}] {done}/{total} games {percent:3d}% {elapsed:5.0f} s{left}   ")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _ignore_interrupts() -> None:
    """A worker process's initializer: Ctrl-C is the parent's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    """Stop a process pool now: cancel what waits and end the worker processes (they would
    otherwise finish the games they are playing before the program can exit: the pool's exit
    hook waits for them).

    The processes are read before `shutdown`, which forgets them."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    # The pool's call queue has a feeder thread that exit joins; with its readers killed it can
    # block forever on a full pipe. What it still holds is for games nobody will play.
    call_queue = getattr(executor, "_call_queue", None)
    if call_queue is not None:
        call_queue.cancel_join_thread()
    executor.shutdown(wait=False, cancel_futures=True)
    _end_processes(processes, kill=False)


def _end_processes(processes: Sequence[BaseProcess], *, kill: bool) -> None:
    """Signal every worker process (SIGKILL with `kill`, else SIGTERM), then reap each: a
    process not joined stays a zombie of this process group."""
    for process in processes:
        if kill:
            process.kill()
        else:
            process.terminate()
    for process in processes:
        process.join(timeout=1)


class _SafeInterrupts:
    """`simulate`'s progress callback while games run on an executor, wrapping the display (if
    any), with Ctrl-C held back to it: the signal only sets a flag, and the next call (at least
    once a second, between two waits on the tasks) raises the `KeyboardInterrupt`. Raised at
    any instant, it could land inside the executor's own code (a submit holding a lock) and
    leave the executor unable to stop. A second Ctrl-C raises at once."""

    def __init__(self, display: ProgressBar | None) -> None:
        self.display = display
        self.asked = False
        self.calls = 0
        self.previous: Any = None

    def __enter__(self) -> _SafeInterrupts:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._ask)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    def _ask(self, signum: int, frame: object) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def __call__(self, done: int, total: int) -> None:
        self.calls += 1
        if self.asked and self.calls > 1:  # the first call comes before simulate can stop
            raise KeyboardInterrupt
        if self.display is not None:
            self.display(done, total)


def _ignoring_interrupts(base: Any) -> Any:
    """A Dask worker plugin (an instance of a subclass of `base`, Dask's `WorkerPlugin`) that
    makes the worker ignore SIGINT, as `_ignore_interrupts` does for a process pool."""

    class IgnoreInterrupts(base):  # type: ignore[misc]
        def setup(self, worker: Any) -> None:
            _ignore_interrupts()

    return IgnoreInterrupts()


class _Dask:
    """A Dask client for `--dask`: a scheduler's address, or `local` for a LocalCluster of
    worker processes on this machine (on 127.0.0.1, without a dashboard)."""

    def __init__(self, address: str, jobs: int) -> None:
        try:
            from dask import distributed as imported
        except ImportError:
            raise UsageError("--dask needs Dask: pip install 'abyss-rules[dask]'") from None
        distributed: Any = imported  # (Dask is not typed)
        self.cluster: Any = None
        self.client: Any = None
        try:
            if address == "local":
                # silence_logs: the workers' WARNING lines (a task cancelled by Ctrl-C) and the
                # ERROR a worker logs, traceback included, when its scheduler stops first (a
                # heartbeat that fails after Ctrl-C) are noise on the user's terminal. A task's
                # own error still reaches the user: it is raised through its future.
                self.cluster = distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                        host="127.0.0.1", dashboard_address=None,
                                                        silence_logs=logging.CRITICAL)
                self.client = distributed.Client(self.cluster)
                # The workers share the terminal's process group: a Ctrl-C reaches them too, and
                # each would print a KeyboardInterrupt traceback. This process stops them.
                self.client.register_plugin(_ignoring_interrupts(distributed.WorkerPlugin))
            else:
                self.client = distributed.Client(address, timeout=10)
        except OSError as error:
            raise UsageError(f"--dask {address}: cannot reach the scheduler ({error})") from None

    def close(self, err: TextIO, *, interrupted: bool) -> None:
        """Disconnect, and stop a local cluster: quickly after Ctrl-C, patiently after a finished
        run (a loaded machine can take more than a few seconds to stop the worker processes).
        A cluster slow to stop is said on stderr; it never turns a finished run into a failure."""
        timeout = 0.5 if interrupted else 30
        try:
            self.client.close(timeout=timeout)
            if self.cluster is not None:
                self.cluster.close(timeout=timeout)
        except (TimeoutError, OSError) as error:
            if not interrupted:  # after Ctrl-C, a quick kill is the plan, not news
                print(f"abyss-rules: the Dask cluster did not stop in {timeout} s"
                      f" ({type(error).__name__}); its worker processes are killed", file=err, flush=True)
            if self.cluster is not None:
                # Its nannies are closing (they restart no worker now). Without this, a worker busy
                # in a game, and Dask's own close at exit (10 s more), would keep this process
                # alive for seconds after Ctrl-C.
                _end_processes(multiprocessing.active_children(), kill=True)
                self.cluster.shutdown_on_close = False


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    v = variant_of(args)
    names = bot_names(args.bots, v)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU core) or more, got {args.jobs}")
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    err: TextIO = args.stderr
    show = args.progress or (args.progress is None and err.isatty() and args.games >= 20)
    header = (f"{args.games} games of {variant_summary(v)} between {' and '.join(names)}; seed {seed}"
              + ("" if args.fixed_seats else "; seats rotate from game to game"))
    if show:  # the seed first: an interrupted run can be run again
        print(f"simulating {header}", file=err, flush=True)
    progress = ProgressBar(err, args.games) if show else None
    workers = max(jobs, 2) if args.jobs != 1 else 2
    if show and args.dask == "local":  # a few seconds before the first game: say why
        print(f"starting a local Dask cluster of {workers} worker processes", file=err, flush=True)
    dask = _Dask(args.dask, workers) if args.dask else None
    executor: Executor | None = None
    if dask is not None:
        executor = dask.client.get_executor()
    elif jobs > 1:
        executor = ProcessPoolExecutor(jobs, initializer=_ignore_interrupts)
    stopped: SimulationInterrupted | None = None
    try:
        # Without an executor the games run in this thread: Ctrl-C stops them where they are.
        guard = nullcontext(progress) if executor is None else _SafeInterrupts(progress)
        with guard as checked:
            result = simulate(names, args.games, seed, executor, variant=v, rotate=not args.fixed_seats,
                              progress=checked)
    except SimulationInterrupted as error:
        stopped, result = error, error.result
    finally:
        if isinstance(executor, ProcessPoolExecutor):
            if stopped is None:
                executor.shutdown(cancel_futures=True)
            else:
                _stop_workers(executor)
        if dask is not None:
            dask.close(err, interrupted=stopped is not None)
    if stopped is not None:
        print(f"\nabyss-rules: interrupted: {len(result.games)} of {args.games} games finished",
              file=err, flush=True)
    if args.json:
        data = result.to_dict()
        data["bots_requested"] = names
        if stopped is not None:
            data["interrupted"] = True
        json.dump(data, out, indent=2)
        out.write("\n")
    else:
        print(header if stopped is None else f"{header}; interrupted after {len(result.games)} games",
              file=out)
        if result.games:
            print(result.table(), file=out)
    return EXIT_OK if stopped is None else EXIT_INTERRUPTED
