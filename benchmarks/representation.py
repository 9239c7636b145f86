"""CPU time of the engine's value representations against the plain ways, as ratios of one run.

    python benchmarks/representation.py [--calls 200000] [--repeat 5]

Why the engine builds its values the way it does, measured:

* a `State` (17 fields) built as the tuple it is (`rules/_positional.py`'s `new_state`) against
  a frozen attrs class of the same 17 fields;
* a `View` built without attrs' `__init__` (`views.py`'s `_fast_view`) against `View(...)`;
* with NumPy, the batch engine's flat indexing (`batch/_arrays.py`'s `flat`): reading through
  one array of flat indices against NumPy's indexing by a pair of index arrays, and
  `flat[i] = v` against `flat.put(i, v)`.

Each pair runs alternately, ``--repeat`` rounds; the median CPU time of each is printed, and the
ratio. Not a test: the machines are shared and noisy; read the ratios of one run.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from time import process_time

import attrs
from arguments import at_least  # benchmarks/arguments.py, beside this script

import abyss_rules as ar
from abyss_rules import views
from abyss_rules.rules._positional import ORDER, new_state


def _time(function: Callable[[], object], calls: int) -> float:
    start = process_time()
    for _ in range(calls):
        function()
    return process_time() - start


def compare(title: str, ways: dict[str, Callable[[], object]], calls: int, repeat: int) -> None:
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(repeat):
        for name, way in ways.items():
            times[name].append(_time(way, calls))
    medians = {name: statistics.median(values) * 1e9 / calls for name, values in times.items()}
    print(title)
    for name, value in medians.items():
        print(f"  {name:48} {value:9.0f} ns per call")
    slow, fast = list(medians.values())
    print(f"  ratio: {slow / fast:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=at_least(1), default=200_000)
    parser.add_argument("--repeat", type=at_least(1), default=5)
    args = parser.parse_args()

    state = ar.new_game(players=2, seed=1)
    fields = tuple(getattr(state, name) for name in ORDER)
    Frozen = attrs.make_class("Frozen", list(ORDER), frozen=True, slots=True)
    compare("a State of 17 fields", {
        "a frozen attrs class": lambda: Frozen(*fields),
        "the tuple (new_state)": lambda: new_state(fields),
    }, args.calls, args.repeat)

    seen = ar.view(state, 0)
    names = [field.name for field in attrs.fields(ar.View)]
    values = [getattr(seen, name) for name in names]
    keywords = dict(zip(names, values, strict=True))
    fast_view = views._fast_view
    compare("a View", {
        "View(...) (attrs' __init__)": lambda: ar.View(**keywords),
        "the fast constructor": lambda: fast_view(*values),
    }, args.calls, args.repeat)

    try:
        import numpy as np
    except ImportError:
        print("(NumPy is not installed: the batch engine's indexing is not measured)")
        return
    rng = np.random.default_rng(0)
    table = rng.integers(0, 100, size=(4096, 48)).astype(np.int16)
    rows, cols = rng.integers(0, 4096, size=4096), rng.integers(0, 48, size=4096)
    flat_index = rows * 48 + cols
    flat = table.reshape(-1)
    batch_calls = max(1, args.calls // 100)
    compare("reading 4096 entries of a (4096, 48) array", {
        "a pair of index arrays": lambda: table[rows, cols],
        "one array of flat indices": lambda: flat.take(flat_index),
    }, batch_calls, args.repeat)
    compare("writing 4096 entries", {
        "flat.put(i, v)": lambda: flat.put(flat_index, 7),
        "flat[i] = v": lambda: flat.__setitem__(flat_index, 7),
    }, batch_calls, args.repeat)


if __name__ == "__main__":
    main()
