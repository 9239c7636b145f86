"""Per-operation costs: median microseconds of each public operation.

Samples states from seeded random 2-player games, then times each operation
over all of them, in batches, several times; prints the median per call. The
times are CPU times of this process (``time.process_time``), so that a busy
machine slows the figures less than it would wall-clock times; the first lines
printed say on what machine and Python they were measured.

    python benchmarks/operations.py [--states 4000] [--repeats 5]

Operations: ``apply`` by action kind, ``legal_actions``, ``check``,
``view``, and -- where those modules are installed -- state JSON round trip,
action from JSON and a view to JSON. Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from time import process_time
from typing import Any

import abyss_rules as ar
from abyss_rules.actions import ACTION_TYPES


def sample(count: int, rng: random.Random) -> list[tuple[ar.State, Any]]:
    """``count`` (state, chosen legal action) pairs from random games, opening states included."""
    out: list[tuple[ar.State, Any]] = []
    while len(out) < count:
        state = ar.new_game(2, seed=rng.getrandbits(128))
        while not state.is_over and len(out) < count:
            action = rng.choice(ar.legal_actions(state))
            out.append((state, action))
            state = ar.apply(state, action)
    return out


def median_us(fn: Callable[[Any], object], items: Sequence[Any], repeats: int) -> float:
    """Median over ``repeats`` runs of the mean µs per call of ``fn`` over ``items``."""
    runs = []
    for _ in range(repeats):
        start = process_time()
        for item in items:
            fn(item)
        runs.append((process_time() - start) / len(items) * 1e6)
    return statistics.median(runs)


def machine() -> str:
    """The processor's model name (Linux), the number of CPUs and the load average, where known."""
    model = platform.processor() or "unknown processor"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        load = "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        load = "load average unknown"
    return f"{model}, {os.cpu_count()} CPUs, {load}"


def optional(module: str, name: str) -> Any:
    """``module.name`` if that module exists (the JSON layer is optional here), else ``None``."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=4000, help="states sampled from random games")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (the median is shown)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    pairs = sample(args.states, rng)
    print(f"abyss-rules {ar.__version__}, Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}, {platform.system()}")
    print(machine())
    print(f"{len(pairs)} states from random 2-player games; median of {args.repeats} runs "
          "of the mean CPU time per call\n")
    rows: list[tuple[str, float, int]] = []

    def measure(label: str, fn: Callable[[Any], object], items: Sequence[Any]) -> None:
        if items:
            rows.append((label, median_us(fn, items, args.repeats), len(items)))

    for kind in ACTION_TYPES:
        items = [(s, a) for s, a in pairs if type(a) is kind]
        # Round ends (rare, and they deal a new round) are timed separately below.
        ordinary = [(s, a) for s, a in items if ar.apply(s, a).round == s.round]
        measure(f"apply {kind.__name__}", lambda p: ar.apply(p[0], p[1]), ordinary)
    ends = [(s, a) for s, a in pairs if (n := ar.apply(s, a)).round != s.round or n.is_over]
    measure("apply (ending a round)", lambda p: ar.apply(p[0], p[1]), ends)
    states = [s for s, _ in pairs]
    measure("legal_actions", ar.legal_actions, states)
    measure("check (legal action)", lambda p: ar.check(p[0], p[1]), pairs)
    measure("view", lambda s: ar.view(s, 0), states)

    dumps, loads = optional("abyss_rules", "dumps_state"), optional("abyss_rules", "loads_state")
    if dumps and loads:
        measure("state to JSON and back", lambda s: loads(dumps(s)), states[:1000])
    action_from = optional("abyss_rules", "loads_action")
    action_to = optional("abyss_rules", "dumps_action")
    if action_from and action_to:
        docs = [action_to(a) for _, a in pairs[:2000]]
        measure("action from JSON", action_from, docs)
    view_json = optional("abyss_rules", "dumps_view")
    if view_json:
        measure("view to JSON", lambda s: view_json(ar.view(s, 0)), states[:1000])

    width = max(len(label) for label, _, _ in rows)
    print(f"{'operation':<{width}}  {'median µs':>9}  {'calls':>6}")
    for label, us, n in rows:
        print(f"{label:<{width}}  {us:>9.2f}  {n:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
