"""Bot games per second, bytes per state, and the memory of a simulation.

    python benchmarks/bots_and_memory.py [--seconds 5] [--repeats 3] [--games 10000] [--compiled]

(`--compiled`: the bots of the wheel's build, compiled by mypyc; see benchmarks/compiled.py.)

* games per second between two ``GreedyBot``s and between two ``CountingBot``s
  (each move: a view, the bot's choice, ``apply``), median of ``--repeats`` runs;
* bytes per state: what one more state costs when it shares its variant and
  history with the state before it (the usual case), measured with
  ``tracemalloc`` over the states of whole games;
* peak memory (``tracemalloc``) of ``simulate`` over ``--games`` games between
  random bots, in this process (no executor), and the bytes per game that its result
  holds (what is freed when the result is dropped).

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import tracemalloc
from time import perf_counter

from compiled import describe, rerun_compiled  # benchmarks/compiled.py, beside this script

import abyss_rules as ar
from abyss_rules.bots import CountingBot, GreedyBot
from abyss_rules.simulation import play_game, simulate


def games_per_second(bot: type[GreedyBot] | type[CountingBot], seconds: float, rng: random.Random) -> float:
    games = 0
    start = perf_counter()
    while perf_counter() - start < seconds:
        play_game([bot(), bot()], seed=rng.getrandbits(64))
        games += 1
    return games / (perf_counter() - start)


def bytes_per_state(games: int, rng: random.Random) -> float:
    """Mean bytes allocated per state kept alive, over every state of ``games`` random games."""
    kept: list[ar.State] = []
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(games):
        state = ar.new_game(2, seed=rng.getrandbits(64))
        kept.append(state)
        while not state.is_over:
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
            kept.append(state)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    return grown / len(kept)


def simulation_memory(games: int, seed: int) -> tuple[float, float]:
    """Peak MiB (tracemalloc) of ``simulate`` over ``games`` random-bot games in this
    process, and the bytes per game its result holds.

    tracemalloc slows allocation-heavy code several times over, so no time is reported.
    """
    tracemalloc.start()
    result = simulate(["random", "random"], games=games, seed=seed)
    with_result, peak = tracemalloc.get_traced_memory()
    del result
    gc.collect()
    held = with_result - tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return peak / 2**20, held / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=10_000, help="games in the simulation")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--compiled", action="store_true",
                        help="measure the compiled bots (the wheel's build), not the sources")
    args = parser.parse_args(argv)
    if args.compiled:
        given = sys.argv[1:] if argv is None else argv
        return rerun_compiled([__file__, *[a for a in given if a != "--compiled"]])
    rng = random.Random(args.seed)
    print(f"abyss-rules {ar.__version__}, Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}, {platform.system()}; {describe()}")
    for bot in (GreedyBot, CountingBot):
        rate = statistics.median(games_per_second(bot, args.seconds, rng) for _ in range(args.repeats))
        print(f"{bot.name} vs {bot.name} (2 players): {rate:,.1f} games/s (median of {args.repeats})")
    size = statistics.median(bytes_per_state(50, rng) for _ in range(args.repeats))
    print(f"bytes per state kept (states of whole random games): {size:,.0f}")
    peak, held = simulation_memory(args.games, args.seed)
    print(f"simulate({args.games:,} random-bot games, one process): peak {peak:,.1f} MiB traced; "
          f"the result holds {held:,.0f} bytes per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
