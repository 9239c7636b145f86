"""What pictures cost: `to_svg` against `view` and `dumps_view`, and the replay page of whole games.

    python benchmarks/pictures.py [--games 5]

* for the states of `--games` whole games between built-in bots (2, 3 and 5 players): the
  time of `to_svg(state)` as a ratio of `view(state)` and of `dumps_view(view(state))`, all
  measured in this one run over the same states (ratios, not absolute times, are what
  compare across machines), and the picture's size in bytes;
* for each game: the replay page's size, the size of its steps before compression, and the
  time to build it, as a number of `to_svg` calls per action (same run).

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any

import abyss_rules as ar
from abyss_rules.pictures import replay_frames, replay_html, to_svg
from abyss_rules.simulation import play_game


def _each(fn: Callable[[Any], object], items: Sequence[Any]) -> float:
    start = perf_counter()
    for item in items:
        fn(item)
    return perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    for players in (2, 3, 5):
        states: list[ar.State] = []
        pages = []
        for seed in range(args.games):
            bots = ["greedy", "counting", "random", "greedy", "counting"][:players]
            result = play_game(bots, seed=seed, keep_states=True)
            states += result.states
            record = ar.Record.start(players, seed=seed).with_actions(*result.actions)
            start = perf_counter()
            page = replay_html(record)
            built = perf_counter() - start
            raw = sum(len(f.svg) + sum(map(len, f.words)) for f in replay_frames(record))
            pages.append((len(result.actions), len(page), raw, built))
        t_view = _each(ar.view, states)
        t_json = _each(lambda s: ar.dumps_view(ar.view(s)), states)
        t_svg = _each(to_svg, states)
        size = statistics.mean(len(to_svg(s)) for s in states[::10])
        per_step = t_svg / len(states)
        print(f"{players} players, {len(states)} states: to_svg = {t_svg / t_view:.0f} x view, "
              f"{t_svg / t_json:.1f} x dumps_view(view); {size / 1024:.1f} KB per picture")
        for actions, page, raw, built in pages:
            calls = built / (per_step * actions)
            print(f"    replay page of {actions} actions: {page / 1024:.0f} KB, {raw / page:.0f} x smaller "
                  f"than its {raw / 1024:.0f} KB of steps; building it costs {calls:.1f} to_svg per action")


if __name__ == "__main__":
    main()
