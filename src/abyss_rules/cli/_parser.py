"""The argument parser: every subcommand, its options, its help text and its handler.

A new subcommand is added here (its options) and given a handler in the module that runs it
(`commands.py`, `play.py`, `simulate.py`, or a module of its own).
"""

from __future__ import annotations

import argparse
import platform
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from .._compiled import report
from .._versions import __version__
from ..bots import BOTS, LEVELS
from ._commands import cmd_demo, cmd_replay, cmd_schema, cmd_validate
from ._options import add_variant_args, add_width_arg, seed_arg
from ._play import PLAY_HELP, cmd_play
from ._simulate import cmd_simulate


class _Version(argparse.Action):
    """`--version`: the version, the Python, and which parts run compiled (`abyss_rules._compiled`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> NoReturn:
        print(f"abyss-rules {__version__} (Python {platform.python_version()}, "
              f"{platform.python_implementation()})\n{report()}", file=sys.stdout)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `abyss-rules` (every subcommand has `--help`).

    Examples:
        >>> build_parser().parse_args(["demo", "--seed", "5"]).seed
        5
    """
    parser = argparse.ArgumentParser(
        prog="abyss-rules",
        description="The Abyss rules engine on the command line. Without a command, watch two built-in "
                    "bots play a whole game (the same as 'abyss-rules demo').",
        epilog="Exit status: 0 ok; 1 illegal action or invalid document; 2 usage error; 3 bad input "
               "(unreadable file, bad JSON); 4 the input of 'play' ended early; 130 interrupted.",
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version, and which parts of the library run compiled, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="watch built-in bots play a whole game (the default command)",
                          description="Play a whole game between built-in bots and print it turn by turn: "
                                      "each round's deal and opening flips, every turn in words, the grids "
                                      "before and after the final reveal, the scores and the winner.")
    demo.add_argument("--bots", nargs="+", default=["greedy", "counting"], metavar="BOT",
                      help=f"one bot per seat, from: {', '.join(BOTS)} (default: greedy counting)")
    demo.add_argument("--seed", type=seed_arg, default=None,
                      help="the game's seed (default: a fresh random one, printed so you can replay it)")
    add_variant_args(demo)
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.add_argument("--record", metavar="FILE", default=None,
                      help="also write the game's record (a JSON record document) to FILE, for replay")
    add_width_arg(demo)
    demo.set_defaults(handler=cmd_demo)

    play = sub.add_parser("play", help="play a game against bots in the terminal",
                          description=textwrap.fill(
                              "Play a whole game against built-in bots: the lowest total wins. Before "
                              "each of your moves the grids are drawn (?? face down, blanks where a "
                              "column was swallowed), with the discard pile's top card, the draw pile "
                              "and the totals. Type a move and press Enter; ? shows the moves and the "
                              "scoring rules.", 78) + "\n\n" + PLAY_HELP,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    opponents = play.add_mutually_exclusive_group()
    opponents.add_argument("--bots", nargs="+", default=None, metavar="BOT",
                           help=f"your opponents, from: {', '.join(BOTS)} (default: counting)")
    opponents.add_argument("--level", choices=list(LEVELS), default=None,
                           help="your opponents' level instead, weakest first: "
                                + ", ".join(f"{level} ({bot})" for level, bot in LEVELS.items()))
    play.add_argument("--opponents", type=int, default=1, metavar="N",
                      help="with --level: how many opponents (default: 1)")
    play.add_argument("--seat", type=int, default=0, help="your seat (default: 0)")
    play.add_argument("--seed", type=seed_arg, default=None, help="the game's seed (default: random)")
    play.add_argument("--record", metavar="FILE", default=None,
                      help="write the game's record (a JSON record document) to FILE when it stops, "
                           "for replay")
    add_variant_args(play)
    add_width_arg(play)
    play.set_defaults(handler=cmd_play)

    rp = sub.add_parser("replay", help="replay a game record, told turn by turn",
                        description="Replay a record document (written by 'demo --record' or "
                                    "'play --record', or by abyss_rules.Record.to_json) and tell the game "
                                    "as 'demo' does; every action is checked by the engine, and the final "
                                    "state's hash against the record's final_hash.")
    rp.add_argument("file", metavar="RECORD", help="the record document, or '-' for standard input")
    rp.add_argument("--step", action="store_true",
                    help="stop after every turn: Enter goes on, q stops (RECORD must be a file)")
    rp.add_argument("--quiet", action="store_true", help="print only the result and the final hash")
    rp.add_argument("--html", metavar="FILE", default=None,
                    help="write one self-contained HTML page to FILE that steps through the game with "
                         "pictures (no network needed to view it); prints only the result")
    add_width_arg(rp)
    rp.set_defaults(handler=cmd_replay)

    va = sub.add_parser("validate", help="say whether an action is legal in a state (JSON verdict)",
                        description="Read a state document and an action (an action document or notation "
                                    "such as 0f12) and print the verdict document: "
                                    '{"legal": ..., "code": ..., "rule": ..., "message": ..., ...}. '
                                    "Without STATE, standard input must hold "
                                    '{"state": <state document>, "action": <action document or notation>}. '
                                    "Exit status: 0 legal; 1 illegal or a malformed action; 3 an unreadable "
                                    "file or an invalid state document (the verdict names the problem).")
    va.add_argument("state", metavar="STATE", nargs="?", default=None,
                    help="the state document file, or '-' for standard input; a game record file "
                         "('demo --record' and 'play --record' write one) stands for its final state, "
                         "or see --at")
    va.add_argument("action", metavar="ACTION", nargs="?", default=None,
                    help="the action document file, or '-' for standard input")
    va.add_argument("--notation", metavar="TEXT", default=None,
                    help="the action in notation instead of a file, e.g. 0f12 or 1d")
    va.add_argument("--player", type=int, default=None,
                    help="the seat the sender is known to play: another seat's action is seat_mismatch")
    va.add_argument("--seq", type=int, default=None,
                    help="the seq the sender saw: another seq than the state's is stale_action")
    va.add_argument("--at", type=int, default=None, metavar="N",
                    help="with a record as STATE: the state after its first N actions (0: the start)")
    va.add_argument("--require-seq", action="store_true",
                    help="reject an action that does not say which seq it was made for")
    va.set_defaults(handler=cmd_validate)

    sc = sub.add_parser("schema", help="print the JSON Schemas of the game documents",
                        description="Print the JSON Schemas (draft 2020-12) of the documents: all of them "
                                    "as one JSON object keyed by document kind, or the one named.")
    sc.add_argument("name", metavar="KIND", nargs="?", default=None,
                    help="one document kind, e.g. state or action (see --list)")
    sc.add_argument("--list", action="store_true", help="list the document kinds")
    sc.set_defaults(handler=cmd_schema)

    sim = sub.add_parser("simulate", help="play many games between bots and print win rates",
                         description="Play many games between built-in bots and print a results table: "
                                     "win rate (a shared win counts 1/number of winners) with its 95% "
                                     "interval (Wilson score), mean final total, mean round score, share of "
                                     "rounds closed and of closes penalized (rule 6.5), rounds per game. "
                                     "The results depend only on the bots, the variant, --games and "
                                     "--seed, not on --jobs.")
    sim.add_argument("--bots", nargs="+", default=["greedy", "counting"], metavar="BOT",
                     help=f"the line-up, one bot per seat, from: {', '.join(BOTS)} "
                          "(default: greedy counting)")
    sim.add_argument("--games", type=int, default=100, help="number of games (default: 100)")
    sim.add_argument("--seed", type=seed_arg, default=None,
                     help="master seed (default: a fresh random one, printed); game i's seed is derived "
                          "from it and i")
    add_variant_args(sim)
    sim.add_argument("--jobs", type=int, default=1,
                     help="worker processes; 0 = one per CPU core (default: 1, no extra process)")
    sim.add_argument("--dask", metavar="SCHEDULER", default=None,
                     help="play on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' "
                          "for a cluster of --jobs worker processes on this machine (needs the dask "
                          "extra: pip install 'abyss-rules[dask]')")
    sim.add_argument("--fixed-seats", action="store_true",
                     help="keep every bot in its seat (default: seats rotate from game to game)")
    sim.add_argument("--json", action="store_true", help="print the results as JSON")
    bar = sim.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="show a progress bar on stderr (default: only on a terminal, for 20+ games)")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")
    sim.set_defaults(handler=cmd_simulate)
    return parser
