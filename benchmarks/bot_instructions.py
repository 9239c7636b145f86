"""What a bot's decisions cost: instructions (callgrind) and CPU time, against another version.

The workload is the views of `--games` recorded games (standard variant, 2 players, seeds
0 to games - 1, played by the bots of this checkout: the old bots must make the same
decisions, which is checked), one fresh bot per seat and game handed its views in order, as
`play_game` does.

Instructions: the script runs itself under callgrind (valgrind, `PYTHONHASHSEED=0`) twice per
bot version and line-up, once calling `choose` on every recorded view and once not (the
views are built in both runs, before any bot is asked), and prints the difference: the bot's
instructions alone. `--warm N` plays N other games with the same bots first, in both runs,
so that the tables a bot keeps per variant are filled (what a long simulation sees).

    PYTHONHASHSEED=0 python benchmarks/bot_instructions.py --old OLD_BOTS.py [--warm 60]
    python benchmarks/bot_instructions.py --old OLD_BOTS.py --time [--play] [--games 120]
    python benchmarks/bot_instructions.py --opcodes [--games 10] [--top 12]

`--old` is the `bots.py` of an older version (for instance
`git show d9a8905:src/abyss_rules/bots.py > /work/scratch-bots/old_bots.py`, the bots before
any speed work), loaded as a module of today's package, so both versions run on today's engine.
`--time` interleaves the two versions decision by decision in one process (the machine's load
moves both alike) and prints their CPU time (`time.process_time`) by phase, and the ratio;
with `--play` each game is instead played for real by each version in turn (the engine
building the views between decisions, as in `simulate`), and only the bots' time is summed.
`--opcodes` counts the Python opcodes of this checkout's bots per decision, by phase and by
function (`sys.settrace`): deterministic, quick, and where to look first.

Not a test: read the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from time import process_time
from types import FrameType, ModuleType
from typing import Any

from arguments import at_least  # benchmarks/arguments.py, beside this script
from compiled import describe, rerun_compiled  # benchmarks/compiled.py

import abyss_rules as ar
from abyss_rules import bots as new_bots

LINEUPS = ("greedy", "counting")


def load_old(path: str) -> ModuleType:
    """`path` (an older `bots.py`) as the module `abyss_rules._old_bots` of today's package."""
    spec = importlib.util.spec_from_file_location("abyss_rules._old_bots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def record(name: str, seeds: range) -> list[list[int]]:
    """For each seeded game between two `name` bots (of this checkout): the index of every
    chosen action in its view's legal actions."""
    games = []
    for seed in seeds:
        state = ar.new_game(2, seed=seed)
        players = [new_bots.BOTS[name](), new_bots.BOTS[name]()]
        chosen = []
        while not state.is_over:
            seat = state.to_act[0]
            v = ar.view(state, seat)
            action = players[seat].choose(v)
            chosen.append(v.legal_actions.index(action))
            state = ar.apply(state, action)
        games.append(chosen)
    return games


def replay(seed: int, chosen: list[int]) -> list[tuple[int, ar.View, ar.Action]]:
    """The (seat, view, recorded action) of every decision of one recorded game."""
    out = []
    state = ar.new_game(2, seed=seed)
    for i in chosen:
        seat = state.to_act[0]
        v = ar.view(state, seat)
        action = v.legal_actions[i]
        out.append((seat, v, action))
        state = ar.apply(state, action)
    return out


def _child(args: argparse.Namespace) -> None:
    module = new_bots if args.old is None else load_old(args.old)
    factory: Callable[[], ar.bots.Bot] = module.BOTS[args.lineup]
    with open(args.recorded) as f:
        recorded = json.load(f)
    for seed, chosen in enumerate(recorded["warm"], start=recorded["warm_start"]):
        players = [factory(), factory()]
        for seat, v, _ in replay(seed, chosen):
            players[seat].choose(v)
    games = [replay(seed, chosen) for seed, chosen in enumerate(recorded["games"])]
    wrong = 0
    for game in games:
        players = [factory(), factory()]
        if args.measure:
            for seat, v, action in game:
                wrong += players[seat].choose(v) != action
        else:
            for _seat, v, _action in game:
                wrong += v is not v
    if wrong:
        raise SystemExit(f"{wrong} decisions differ from the recorded ones")


def _instructions(args: argparse.Namespace, recorded: str, lineup: str, old: bool, measure: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                   __file__, "--child", "--recorded", recorded, "--lineup", lineup]
        if old:
            command += ["--old", args.old]
        if measure:
            command.append("--measure")
        run = subprocess.run(command, capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": "0"})
    if run.returncode:
        raise SystemExit(f"the child run failed:\n{run.stderr[-3000:]}")
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr}")
    return int(found.group(1))


def instructions(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for lineup in args.lineups:
            recorded = os.path.join(tmp, f"{lineup}.json")
            with open(recorded, "w") as f:
                json.dump({"games": record(lineup, range(args.games)), "warm_start": 1000,
                           "warm": record(lineup, range(1000, 1000 + args.warm))}, f)
            counts = {}
            for old in ([True, False] if args.old else [False]):
                counts[old] = (_instructions(args, recorded, lineup, old, True)
                               - _instructions(args, recorded, lineup, old, False))
            line = f"{lineup} vs {lineup}, {args.games} games, warm {args.warm}: "
            line += f"new {counts[False] / 1e6:,.1f} M instructions"
            if args.old:
                line += f", old {counts[True] / 1e6:,.1f} M, {counts[True] / counts[False]:.2f}x fewer"
            print(line, flush=True)


def times(args: argparse.Namespace) -> None:
    old = load_old(args.old)
    phases = ("opening", "turn", "drawn")
    for lineup in args.lineups:
        spent = {(version, phase): 0.0 for version in ("old", "new") for phase in phases}
        for seed, chosen in enumerate(record(lineup, range(args.games))):
            versions = {"old": [old.BOTS[lineup](), old.BOTS[lineup]()],
                        "new": [new_bots.BOTS[lineup](), new_bots.BOTS[lineup]()]}
            for seat, v, action in replay(seed, chosen):
                phase = v.phase.value
                for version, players in versions.items():
                    start = process_time()
                    got = players[seat].choose(v)
                    spent[version, phase] += process_time() - start
                    if got != action:
                        raise SystemExit(f"{version} {lineup} bot: a different decision in game {seed}")
        total = {version: sum(spent[version, p] for p in phases) for version in ("old", "new")}
        parts = ", ".join(f"{p} {spent['old', p] / spent['new', p]:.1f}x" for p in phases)
        print(f"{lineup} vs {lineup}, {args.games} games, CPU: old {total['old']:.2f} s, new "
              f"{total['new']:.2f} s, {total['old'] / total['new']:.2f}x ({parts})", flush=True)


def played(args: argparse.Namespace) -> None:
    """`--time --play`: every game is played for real twice, by the old bots and by the new
    ones (which goes first alternates), the engine building each view between decisions as
    `simulate` does; the bots' CPU time is summed around `choose`."""
    old = load_old(args.old)
    for lineup in args.lineups:
        spent = {"old": 0.0, "new": 0.0}
        for seed in range(args.games):
            versions = [("old", old), ("new", new_bots)]
            games = {}
            for version, module in versions if seed % 2 else versions[::-1]:
                state = ar.new_game(2, seed=seed)
                players = [module.BOTS[lineup](), module.BOTS[lineup]()]
                actions, t = [], 0.0
                while not state.is_over:
                    seat = state.to_act[0]
                    v = ar.view(state, seat)
                    start = process_time()
                    action = players[seat].choose(v)
                    t += process_time() - start
                    actions.append(action)
                    state = ar.apply(state, action)
                spent[version] += t
                games[version] = actions
            if games["old"] != games["new"]:
                raise SystemExit(f"{lineup} bots: game {seed} differs between the versions")
        print(f"{lineup} vs {lineup}, {args.games} games played, CPU: old {spent['old']:.2f} s, new "
              f"{spent['new']:.2f} s, {spent['old'] / spent['new']:.2f}x", flush=True)


def count_opcodes(lineup: str, games: int) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Per phase, the opcodes and the decisions of `games` recorded games of `lineup`, and the
    opcodes per function (`module:function`)."""
    phases: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    current = [""]

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            phases[current[0]] += 1
            code = frame.f_code
            functions[f"{os.path.basename(code.co_filename)}:{code.co_name}"] += 1
        return trace

    for seed, chosen in enumerate(record(lineup, range(games))):
        players = [new_bots.BOTS[lineup](), new_bots.BOTS[lineup]()]
        for seat, v, action in replay(seed, chosen):
            current[0] = v.phase.value
            decisions[current[0]] += 1
            before = sys.gettrace()
            sys.settrace(trace)
            try:
                got = players[seat].choose(v)
            finally:
                sys.settrace(before)
            if got != action:
                raise SystemExit(f"{lineup} bot: a different decision in game {seed}")
    return phases, decisions, functions


def opcodes(args: argparse.Namespace) -> None:
    """`--opcodes`: the Python opcodes the bots run per decision (a `sys.settrace` hook with
    `f_trace_opcodes`), by phase, and the functions that run most of them. Deterministic and
    quick (no valgrind); an opcode is not a fixed cost (a C call inside one can be long), but
    it shows where a decision goes."""
    for lineup in args.lineups:
        phases, decisions, functions = count_opcodes(lineup, args.games)
        total = sum(decisions.values())
        parts = ", ".join(f"{p} {phases[p] / n:,.0f} ({n})" for p, n in decisions.items())
        print(f"{lineup} vs {lineup}, {args.games} games, {total} decisions: "
              f"{sum(phases.values()) / total:,.0f} opcodes per decision; by phase (decisions): {parts}",
              flush=True)
        for name, n in functions.most_common(args.top):
            print(f"  {n / total:8,.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="an older bots.py to compare with")
    parser.add_argument("--games", type=at_least(1), default=None,
                        help="recorded games (10; 120 with --time)")
    parser.add_argument("--warm", type=at_least(0), default=0, help="games played first (instructions)")
    parser.add_argument("--lineups", nargs="+", choices=LINEUPS, default=list(LINEUPS))
    parser.add_argument("--time", action="store_true", help="CPU time, old and new interleaved")
    parser.add_argument("--play", action="store_true",
                        help="with --time: play each game for real, old and new game by game")
    parser.add_argument("--opcodes", action="store_true",
                        help="Python opcodes per decision, by phase and function (sys.settrace)")
    parser.add_argument("--top", type=at_least(1), default=12, help="with --opcodes: functions listed")
    parser.add_argument("--compiled", action="store_true",
                        help="measure the compiled bots (the wheel's build), not the sources")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--recorded", help=argparse.SUPPRESS)
    parser.add_argument("--lineup", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    if args.compiled:
        raise SystemExit(rerun_compiled([__file__, *[a for a in sys.argv[1:] if a != "--compiled"]]))
    print(f"abyss-rules {ar.__version__}, Python {sys.version.split()[0]}; {describe()}", flush=True)
    if args.opcodes:
        args.games = args.games or 10
        opcodes(args)
        return
    if args.time:
        if not args.old:
            parser.error("--time needs --old")
        args.games = args.games or 120
        (played if args.play else times)(args)
    else:
        args.games = args.games or 10
        instructions(args)


if __name__ == "__main__":
    main()
