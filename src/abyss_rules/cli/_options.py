"""What the commands share: exit statuses, the command line's own errors, common options.

The exit statuses are re-exported by `abyss_rules.cli`. `UsageError` (exit 2) and
`BadInput` (exit 3) are raised by the commands and turned into a message on stderr by
`abyss_rules.cli.main`. The option helpers (`--seed`, `--variant`/`--set`, `--width`,
bot names) are used by several subcommands of `abyss_rules.cli.build_parser`.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable, Sequence
from typing import Any, Final, TextIO

from ..bots import BOTS
from ..codec import MAX_DOCUMENT_BYTES
from ..config import FIELD_NAMES, Variant
from ..errors import AbyssError
from ..records import Record
from ..rules._dealing import player_count_problem

EXIT_OK: Final = 0
"""Success."""
EXIT_NO: Final = 1
"""A "no" verdict: the action is illegal, or the document is invalid."""
EXIT_USAGE: Final = 2
"""A usage error: bad arguments or options, an unknown bot or variant."""
EXIT_BAD_INPUT: Final = 3
"""Bad input: a file that cannot be read, or is not valid JSON."""
EXIT_INPUT_ENDED: Final = 4
"""`play`: the input ended before the game was over."""
EXIT_INTERRUPTED: Final = 130
"""Interrupted (Ctrl-C)."""


class UsageError(Exception):
    """A bad command line: reported on stderr with exit status 2."""


def seed_arg(text: str) -> int:
    try:
        seed = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= seed < 1 << 256:
        raise argparse.ArgumentTypeError(f"a seed is an integer from 0 to 2**256 - 1 (rule 9.1), got {text}")
    return seed


def _width_arg(text: str) -> int:
    try:
        width = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if width < 20:
        raise argparse.ArgumentTypeError(f"the width must be at least 20, got {width}")
    return width


def _set_arg(text: str) -> tuple[str, Any]:
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected FIELD=VALUE, got {text!r}")
    if name not in FIELD_NAMES:
        raise argparse.ArgumentTypeError(f"unknown variant field {name!r}; fields: {', '.join(FIELD_NAMES)}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw  # a bare word, e.g. opener=previous_closer
    return name, value


def add_variant_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="standard", choices=sorted(Variant.presets()),
                   help="the preset to play (default: standard; rule 10.2)")
    p.add_argument("--set", dest="changes", metavar="FIELD=VALUE", type=_set_arg, action="append", default=[],
                   help="change one variant field, value as JSON (e.g. --set max_turns_per_round=200, "
                        "--set flip_turn=false); repeatable (rule 10.1)")


DEFAULT_WIDTH: Final = 100
"""The line width when `--width` is not given and the output is not a terminal."""


def add_width_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--width", type=_width_arg, default=None,
                   help=f"line width (default: the terminal's width, or {DEFAULT_WIDTH} when the output "
                        "is not a terminal)")


def width_of(args: argparse.Namespace, out: TextIO) -> tuple[int, bool]:
    """The line width to print at, and whether long lines are to be wrapped to it.

    `--width` if given; else, on a terminal, the terminal's width (`shutil.get_terminal_size`,
    which the `COLUMNS` variable overrides), at least 20; else `DEFAULT_WIDTH`, without
    wrapping (so that piped output is the same on every machine). Lines are wrapped at word
    boundaries on a terminal or with `--width`.
    """
    if args.width is not None:
        return args.width, True
    if _is_terminal(out):
        return max(20, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns), True
    return DEFAULT_WIDTH, False


def terminal_width(args: argparse.Namespace, out: TextIO) -> Callable[[], int] | None:
    """On a terminal without `--width`: a function that reads the terminal's width each time it is
    called (as `width_of` does), so that a resized window is followed; `None` otherwise."""
    if args.width is not None or not _is_terminal(out):
        return None
    return lambda: max(20, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # a closed stream, or a stand-in without isatty
        return False


def variant_of(args: argparse.Namespace) -> Variant:
    v = Variant.presets()[args.variant]
    if args.changes:
        try:
            v = v.replace(**dict(args.changes))
        except AbyssError as error:
            raise UsageError(f"invalid variant: {error}") from None
    return v


def bot_names(names: Sequence[str], v: Variant) -> list[str]:
    for name in names:
        if name not in BOTS:
            raise UsageError(f"unknown bot {name!r}; built-in bots: {', '.join(BOTS)}")
    if (problem := player_count_problem(v, len(names))) is not None:
        raise UsageError(f"{problem} (one bot per seat)")
    return list(names)


class BadInput(Exception):
    """Input that cannot be read or parsed: exit status 3."""

    def __init__(self, message: str, error: AbyssError | None = None) -> None:
        super().__init__(message)
        self.error = error


def read_input_text(path: str, stdin: TextIO) -> str:
    """The text of `path` (`-`: standard input), at most `MAX_DOCUMENT_BYTES`-ish long."""
    if path == "-":
        text = stdin.read(MAX_DOCUMENT_BYTES * 4 + 1)
    else:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_DOCUMENT_BYTES * 4 + 1)
        except OSError as error:
            raise BadInput(f"cannot read {path}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise BadInput(f"cannot read {path}: not UTF-8 text") from None
    return text


def write_record(path: str, record: Record) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(record.sealed().to_json() + "\n")
    except OSError as error:
        raise BadInput(f"cannot write the record to {path}: {error.strerror or error}") from None
