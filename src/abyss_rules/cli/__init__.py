"""The `abyss-rules` command line (also `python -m abyss_rules`).

Run without arguments, it plays a whole game between two built-in bots and prints it
turn by turn. Subcommands (each has `--help`):

- `demo` -- watch bots play a game (the default command);
- `play` -- play a game against bots in the terminal;
- `simulate` -- play many games between bots and print win rates;
- `replay` -- replay a game record, told turn by turn;
- `validate` -- say whether an action is legal in a state, as a JSON verdict;
- `schema` -- print the JSON Schemas of the game documents.

Exit status: 0 success; 1 a "no" verdict (an illegal action or an invalid document);
2 a usage error (bad arguments, an unknown bot or variant); 3 bad input (an unreadable
file, bad JSON); 4 the input of `play` ended before the game did; 130 interrupted. The
CLI page of the documentation describes every command.

The package's private modules: `_parser` (the arguments of every subcommand), `_commands`
(`demo`, `replay`, `validate`, `schema`), `_play`, `_simulate`, `_narration` (the game told in
words, the grids drawn as text) and `_options` (exit statuses and what the commands share).

Examples:
    >>> main(["demo", "--seed", "3", "--variant", "short", "--bots", "random", "random", "--quiet"])
    Game over after 1 round. Winner: seat 0 (random) with 48 points.
    0
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from ..errors import AbyssError
from ._narration import Narrator, narrate, render_grids
from ._options import (
    EXIT_BAD_INPUT,
    EXIT_INPUT_ENDED,
    EXIT_INTERRUPTED,
    EXIT_NO,
    EXIT_OK,
    EXIT_USAGE,
    BadInput,
    UsageError,
)
from ._parser import build_parser
from ._play import parse_move
from ._simulate import ProgressBar

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INPUT_ENDED",
    "EXIT_INTERRUPTED",
    "EXIT_NO",
    "EXIT_OK",
    "EXIT_USAGE",
    "Narrator",
    "ProgressBar",
    "build_parser",
    "main",
    "narrate",
    "parse_move",
    "render_grids",
]


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Run the command line; return the exit status (the `abyss-rules` entry point).

    Args:
        argv: The arguments (default: `sys.argv[1:]`); none, or options only, mean `demo`.
        stdin: Input for `play` (default: `sys.stdin`).
        stdout: Output (default: `sys.stdout`).
        stderr: Errors and the progress bar (default: `sys.stderr`).

    Returns:
        The exit status: 0 ok, 1 a "no" verdict, 2 a usage error, 3 bad input, 4 the input
        of `play` ended early, 130 interrupted.

    Examples:
        >>> main(["demo", "--bots", "greedy", "nobody"], stderr=sys.stdout)
        abyss-rules: error: unknown bot 'nobody'; built-in bots: random, greedy, counting, search, expert
        2
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["serve"]:  # the game server (the `server` extra): abyss_rules.serve parses the rest
        from ..serve import serve_command

        return serve_command(args_list[1:], err)
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["demo", *args_list]  # the default command, e.g. `abyss-rules --seed 5`
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse has printed the usage and the error (or the help)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    args.stdin = stdin if stdin is not None else sys.stdin
    args.stderr = err
    try:
        status: int = args.handler(args, out)
    except UsageError as error:
        print(f"abyss-rules: error: {error}", file=err)
        return EXIT_USAGE
    except BadInput as error:
        print(f"abyss-rules: error: {error}", file=err)
        return EXIT_BAD_INPUT
    except AbyssError as error:  # e.g. a game that never ends (game_too_long)
        print(f"abyss-rules: error: {error}", file=err)
        return EXIT_NO
    except KeyboardInterrupt:
        print("abyss-rules: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `abyss-rules | head`
        return EXIT_OK
    return status
