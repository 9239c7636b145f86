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

Examples:
    >>> main(["demo", "--seed", "3", "--variant", "short", "--bots", "random", "random", "--quiet"])
    Game over after 1 round. Winner: seat 0 (random) with 48 points.
    0
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, Final, TextIO

from . import __version__
from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .bots import BOTS, make_bot
from .codec import MAX_DOCUMENT_BYTES, DecodeError, state_from_dict, state_hash
from .config import FIELD_NAMES, Variant
from .errors import AbyssError, Code
from .grid import Grid
from .records import Record, ReplayError
from .rules.dealing import new_game
from .rules.engine import apply, check
from .rules.legal import legal_actions
from .server import Verdict, validate
from .simulation import GameResult, derive_seed, play_game, simulate
from .state import Phase, RoundResult, State
from .views import view

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


class _UsageError(Exception):
    """A bad command line: reported on stderr with exit status 2."""


# ---------------------------------------------------------------------------
# Text rendering
# ---------------------------------------------------------------------------


def _cell(grid: Grid, space: int) -> str:
    if grid.swallowed[space]:
        return "   "
    if not grid.face_up[space]:
        return " ??"
    return f"{grid.cards[space]:>3}"


def _grid_lines(title: str, grid: Grid) -> list[str]:
    """A grid as text lines: a title, column numbers, then one line per row with its number."""
    header = "   " + "".join(f"{c:>3}" for c in range(grid.cols))
    lines = [title, header]
    for r in range(grid.rows):
        lines.append(f"{r:>3}" + "".join(_cell(grid, r * grid.cols + c) for c in range(grid.cols)))
    return lines


def render_grids(blocks: Sequence[tuple[str, Grid]], width: int = 100, indent: str = "  ") -> str:
    """Grids side by side as text: `??` face down, values face up, blanks where a column
    was swallowed (rule 4.1). Rows and columns are numbered from 0, as spaces are (rule 1.2).

    Args:
        blocks: `(title, grid)` pairs.
        width: Wrap to a new band of grids beyond this many characters.
        indent: Put before every line.

    Returns:
        The text, without a final newline.

    Examples:
        >>> g = Grid(rows=2, cols=2, cards=(5, None, None, None), face_up=(True, False, False, False),
        ...          swallowed=(False, True, False, True))
        >>> print(render_grids([("seat 0", g), ("seat 1", g)]))
          seat 0       seat 1
               0  1         0  1
            0  5         0  5
            1 ??         1 ??
    """
    rendered = [_grid_lines(title, grid) for title, grid in blocks]
    out: list[str] = []
    line: list[list[str]] = []
    used = 0
    for lines in rendered:
        w = max(len(s) for s in lines) + 4
        if line and used + w > width:
            out.append(_join(line))
            line, used = [], 0
        line.append(lines)
        used += w
    if line:
        out.append(_join(line))
    return "\n\n".join("\n".join(indent + s for s in part.split("\n")) for part in out)


def _join(blocks: list[list[str]]) -> str:
    widths = [max(len(s) for s in lines) + 4 for lines in blocks]
    height = max(len(lines) for lines in blocks)
    rows = []
    for i in range(height):
        parts = [(lines[i] if i < len(lines) else "").ljust(w)
                 for lines, w in zip(blocks, widths, strict=True)]
        rows.append("".join(parts).rstrip())
    return "\n".join(rows)


def _a(value: int | None) -> str:
    """`value` with its article: "a 7", "an 8", "an 11"."""
    return f"an {value}" if value in (8, 11, 18) or (value is not None and 80 <= value < 90) else f"a {value}"


def _space(row: int, col: int) -> str:
    return f"({row},{col})"


def _seat_label(seat: int, names: Sequence[str] | None) -> str:
    return f"seat {seat} ({names[seat]})" if names else f"seat {seat}"


def _variant_summary(v: Variant) -> str:
    ends = []
    if v.max_rounds is not None:
        ends.append(f"{v.max_rounds} round{'s' if v.max_rounds != 1 else ''}")
    if v.target_score is not None and (v.max_rounds is None or v.max_rounds > 1):
        ends.append(f"until a total reaches {v.target_score}")
    return f"{v.name} ({v.rows}x{v.cols} grids, {' or '.join(ends)})"


class _Effect:
    """What one action did, worked out from the state before it (the round may end with it)."""

    def __init__(self, before: State, action: Action) -> None:
        v = before.variant
        g = v.geometry
        self.action = action
        player = action.player
        self.card: int | None = None      # the card placed, or turned face up
        self.replaced: int | None = None  # the card a placement sent to the discard pile
        self.replaced_up = False
        self.discarded: int | None = None  # a drawn card that was discarded
        self.swallowed: tuple[int, int] | None = None  # (column, value)
        if isinstance(action, Draw):
            return
        space = g.index(action.row, action.col)
        i = player * v.cells + space
        cards = list(before.cards)
        up = before.face_up | 1 << i
        if isinstance(action, (TakeDiscard, PlaceDrawn)):
            self.card = before.top_discard if isinstance(action, TakeDiscard) else before.drawn
            self.replaced = before.cards[i]
            self.replaced_up = bool(before.face_up >> i & 1)
            assert self.card is not None
            cards[i] = self.card
        else:
            self.card = before.cards[i]
            if isinstance(action, DiscardDrawn):
                self.discarded = before.drawn
        col = g.column_of[space]
        base = player * v.cells
        column = [base + s for s in g.column_spaces[col]]
        if all(up >> j & 1 for j in column) and len({cards[j] for j in column}) == 1:
            self.swallowed = (col, cards[i])
            for j in column:
                up &= ~(1 << j)
        self.cards = tuple(cards)
        self.face_up = up
        self.gone = before.swallowed | (sum(1 << j for j in column) if self.swallowed else 0)

    def grids(self, before: State) -> list[Grid]:
        """Every grid right after the action, before any end-of-round reveal."""
        v = before.variant
        if isinstance(self.action, Draw):
            return list(before.grids())
        return [Grid.from_flat(v.rows, v.cols, self.cards, self.face_up, self.gone, p)
                for p in range(before.players)]


def _describe(before: State, action: Action) -> str:
    """One turn (or opening flip) in words, e.g. "seat 1 draws a 7 and places it on (2,3), discarding 11"."""
    e = _Effect(before, action)
    who = f"seat {action.player}"
    if isinstance(action, Flip):
        text = f"{who} flips {_space(action.row, action.col)}: {e.card}"
    elif isinstance(action, TakeDiscard):
        text = (f"{who} takes the {e.card} from the discard pile and places it on "
                f"{_space(action.row, action.col)}, discarding {_replaced(e)}")
    elif isinstance(action, PlaceDrawn):
        text = (f"{who} draws {_a(e.card)} and places it on {_space(action.row, action.col)}, "
                f"discarding {_replaced(e)}")
    elif isinstance(action, DiscardDrawn):
        text = (f"{who} draws {_a(e.discarded)}, discards it and flips "
                f"{_space(action.row, action.col)}: {e.card}")
    else:
        text = f"{who} draws"
    if e.swallowed is not None:
        col, value = e.swallowed
        text += f"; column {col} ({before.variant.rows} x {value}) is swallowed"
    return text


def _replaced(e: _Effect) -> str:
    return f"{e.replaced}" if e.replaced_up else f"a face-down {e.replaced}"


def _opener_reason(state: State, opener: int) -> str:
    v = state.variant
    if v.opener.value == "previous_closer" and len(state.history) >= 1 and state.history[-1].closer == opener:
        return "it closed the previous round"
    if not v.initial_flips:
        return "no opening flips: seat 0 opens"
    sums = [sum(f) for f in state.opening]
    best = max(sums)
    tied = [p for p, s in enumerate(sums) if s == best]
    text = f"opening flips {' + '.join(map(str, state.opening[opener]))} = {best}"
    if len(tied) == 1:
        return text + ", the highest sum"
    highs = [max(state.opening[p]) for p in tied]
    top = max(highs)
    if highs.count(top) == 1:
        return text + f", tied on the sum; highest single card {top}"
    return text + ", tied on the sum and the highest card; lowest seat"


def _round_scores(result: RoundResult, v: Variant) -> str:
    parts = []
    for seat, (raw, score) in enumerate(zip(result.raw_scores, result.scores, strict=True)):
        text = f"seat {seat}: {raw}"
        if seat == result.closer:
            if result.penalized:
                low = min(s for p, s in enumerate(result.raw_scores) if p != seat)
                text += (f" x {v.closer_multiplier} = {score} (closer penalty: another seat scored "
                         f"{low} <= {raw})")
            elif v.closer_multiplier != 1:
                text += " (closer, no penalty)" if raw <= 0 else " (closer, strictly lowest: no penalty)"
        parts.append(text)
    return "; ".join(parts)


def _winners_line(state: State, names: Sequence[str] | None) -> str:
    winners = state.winners
    rounds = len(state.history)
    head = f"Game over after {rounds} round{'s' if rounds != 1 else ''}."
    total = state.totals[winners[0]]
    if len(winners) == 1:
        return f"{head} Winner: {_seat_label(winners[0], names)} with {total} points."
    who = ", ".join(_seat_label(p, names) for p in winners)
    return f"{head} Shared win: {who} with {total} points each."


class Narrator:
    """Prints a game as it goes: deals, opening flips, turns, reveals, scores.

    It tells what a spectator sees (rule 8.1): a face-down card is `??` until it is flipped,
    placed over or revealed at the end of the round. Call
    [`round_start`][abyss_rules.cli.Narrator.round_start] with the first state, then
    [`action`][abyss_rules.cli.Narrator.action] for every action applied.

    Args:
        out: Where to print.
        names: A name per seat (e.g. the bots'), shown as `seat 1 (greedy)`.
        width: Line width for the grids.

    Examples:
        >>> import io
        >>> import abyss_rules as ar
        >>> out = io.StringIO()
        >>> narrator = Narrator(out, ["ann", "bob"])
        >>> state = ar.new_game(2, seed=1)
        >>> narrator.round_start(state)
        >>> after = ar.apply(state, ar.Flip(0, 1, 2))
        >>> narrator.action(state, ar.Flip(0, 1, 2), after)
        >>> print(out.getvalue().strip())
        === Round 1 ===
        Deal: 12 cards face down to each seat; the discard pile opens with a 9; 125 cards in the draw pile.
        Opening: every seat flips 2 of its cards.
          seat 0 flips (1,2): 0
    """

    def __init__(self, out: TextIO, names: Sequence[str] | None = None, width: int = 100) -> None:
        self.out = out
        self.names = names
        self.width = width
        self.turn_number = 0
        self.grids_shown_at = -1
        """The `seq` of the state whose grids were printed last (-1: none)."""

    def say(self, text: str = "") -> None:
        """Print one line (or several)."""
        print(text, file=self.out)

    def grids(self, grids: Sequence[Grid], note: dict[int, str] | None = None) -> None:
        """Print every seat's grid, side by side, titled with the seat (and `note[seat]`)."""
        blocks = []
        for seat, grid in enumerate(grids):
            title = _seat_label(seat, self.names)
            if note and seat in note:
                title += f" {note[seat]}"
            blocks.append((title, grid))
        self.say(render_grids(blocks, width=self.width))

    def round_start(self, state: State) -> None:
        """Announce the round `state` was just dealt (rule 1.4)."""
        v = state.variant
        self.turn_number = 0
        self.say()
        self.say(f"=== Round {state.round} ===")
        self.say(f"Deal: {v.cells} cards face down to each seat; the discard pile opens with "
                 f"{_a(state.top_discard)}; {state.draw_pile_size} cards in the draw pile.")
        if v.initial_flips:
            self.say(f"Opening: every seat flips {v.initial_flips} of its cards.")

    def opening_done(self, state: State) -> None:
        """Show the grids after the opening flips and who opens, and why (rules 2.3, 2.4)."""
        opener = state.turn
        self.grids(_public_grids(state))
        self.grids_shown_at = state.seq
        self.say(f"Seat {opener} opens the round ({_opener_reason(state, opener)}).")

    def action(self, before: State, action: Action, after: State) -> None:
        """Tell `action`, applied to `before` and giving `after`: one line per turn (a draw
        is told with the placement or discard that follows it), the closing (rule 6.1), and
        at the end of a round the grids before and after the final reveal, the scores with
        the closer penalty (rules 6.3-6.5, 7.1) and the next deal or the winners (rule 7.4).
        """
        if before.phase is Phase.OPENING and isinstance(action, Flip):
            self.say("  " + _describe(before, action))
            if after.phase is not Phase.OPENING and after.round == before.round:
                self.opening_done(after)
            elif after.round != before.round:  # pragma: no cover - a round cannot end in its opening
                self.round_end(before, action, after)
            return
        if isinstance(action, Draw):
            if not before.draw_pile:
                how = ("the discard pile under its top card was shuffled into a new draw pile"
                       if before.variant.reshuffle_keeps_top else
                       "the whole discard pile was shuffled; its first card opens a new discard pile")
                self.say(f"     (the draw pile is empty: {how}; {after.draw_pile_size + 1} cards)")
            return
        self.turn_number += 1
        self.say(f"{self.turn_number:>4}. " + _describe(before, action))
        ended = after.round != before.round or after.is_over
        closer = after.history[-1].closer if ended else after.closer
        if before.closer is None and closer == action.player:
            self.say(f"      seat {action.player} has no face-down card left and closes the round; "
                     "every other seat plays one last turn")
        if ended:
            self.round_end(before, action, after)

    def round_end(self, before: State, action: Action, after: State) -> None:
        """Tell the end of the round that `action` ended (see [`action`][abyss_rules.cli.Narrator.action])."""
        v = before.variant
        result = after.history[-1]
        self.say()
        if result.capped:
            self.say(f"Round {result.round} ends: the stalling cap of {v.max_turns_per_round} turns "
                     "is reached (no closer, no penalty).")
        else:
            self.say(f"Round {result.round} ends after {result.turns} turns; "
                     f"seat {result.closer} closed it.")
        self.say("Before the final reveal:")
        self.grids(_Effect(before, action).grids(before))
        self.say("After the final reveal" + (" (and its swallows):" if v.swallow_on_final_reveal else ":"))
        self.grids(result.grids)
        self.say(f"Round scores: {_round_scores(result, v)}")
        totals = ", ".join(f"seat {p}: {t}" for p, t in enumerate(result.totals))
        self.say(f"Totals after round {result.round}: {totals}")
        if after.is_over:
            self.say()
            self.say(_winners_line(after, self.names))
        else:
            self.round_start(after)
            if after.phase is not Phase.OPENING:
                self.opening_done(after)


def _public_grids(state: State) -> list[Grid]:
    """Every grid as the table sees it: face-down values left out (rules 8.1, 8.2)."""
    return [_hide(grid) for grid in state.grids()]


def _hide(grid: Grid) -> Grid:
    cards = tuple(c if up else None for c, up in zip(grid.cards, grid.face_up, strict=True))
    return Grid(rows=grid.rows, cols=grid.cols, cards=cards, face_up=grid.face_up, swallowed=grid.swallowed)


def narrate(result: GameResult, out: TextIO, width: int = 100) -> None:
    """Print a whole game with a [`Narrator`][abyss_rules.cli.Narrator].

    Args:
        result: The game, played with `keep_states=True`.
        out: Where to print.
        width: Line width for the grids.

    Raises:
        ValueError: `result` holds no states.

    Examples:
        >>> import io
        >>> import abyss_rules as ar
        >>> out = io.StringIO()
        >>> narrate(ar.play_game(["random", "random"], "short", seed=3, keep_states=True), out)
        >>> out.getvalue().splitlines()[-1]
        'Game over after 1 round. Winner: seat 0 (random) with 48 points.'
    """
    states = result.states
    if states is None:
        raise ValueError("narrate() needs a game played with keep_states=True")
    narrator = Narrator(out, result.bots, width=width)
    narrator.round_start(states[0])
    if states[0].phase is not Phase.OPENING:
        narrator.opening_done(states[0])
    for before, action, after in zip(states, result.actions, states[1:], strict=False):
        narrator.action(before, action, after)


# ---------------------------------------------------------------------------
# Arguments shared by the subcommands
# ---------------------------------------------------------------------------


def _seed_arg(text: str) -> int:
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


def _add_variant_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="standard", choices=sorted(Variant.presets()),
                   help="the preset to play (default: standard; rule 10.2)")
    p.add_argument("--set", dest="changes", metavar="FIELD=VALUE", type=_set_arg, action="append", default=[],
                   help="change one variant field, value as JSON (e.g. --set max_turns_per_round=200, "
                        "--set flip_turn=false); repeatable (rule 10.1)")


def _add_width_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--width", type=_width_arg, default=100, help="line width for the grids (default: 100)")


def _variant(args: argparse.Namespace) -> Variant:
    v = Variant.presets()[args.variant]
    if args.changes:
        try:
            v = v.replace(**dict(args.changes))
        except AbyssError as error:
            raise _UsageError(f"invalid variant: {error}") from None
    return v


def _bot_names(names: Sequence[str], v: Variant) -> list[str]:
    for name in names:
        if name not in BOTS:
            raise _UsageError(f"unknown bot {name!r}; built-in bots: {', '.join(BOTS)}")
    if not v.min_players <= len(names) <= v.max_players:
        raise _UsageError(f"the variant takes {v.min_players} to {v.max_players} players, got {len(names)} "
                         "bot(s)")
    return list(names)


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------


def _cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    v = _variant(args)
    names = _bot_names(args.bots, v)
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    result = play_game(names, v, seed, keep_states=not args.quiet)
    if args.record is not None:
        _write_record(args.record, Record.start(len(names), v, seed).with_actions(*result.actions))
    if args.quiet:
        print(_winners_line(result.final, result.bots), file=out)
        return EXIT_OK
    print("Abyss: a game between built-in bots", file=out)
    print("  " + "   ".join(_seat_label(p, names) for p in range(len(names))), file=out)
    print(f"  variant: {_variant_summary(v)}; seed: {seed}", file=out)
    again = ["python -m abyss_rules demo", "--seed", str(seed), "--variant", args.variant,
             *[f"--set {k}={json.dumps(val)}" for k, val in args.changes], "--bots", *names]
    print(f"  to watch this game again: {' '.join(again)}", file=out)
    print("  spaces are (row,col), counted from 0; ?? is a face-down card; a blank column was swallowed",
          file=out)
    narrate(result, out, width=args.width)
    return EXIT_OK


# ---------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------

_PLAY_HELP = """\
Spaces are (row, col), counted from 0 as on the grids: "t 1 2" is row 1, column 2.
  t R C   take the top discard and place it on (R, C)      (rule 3.3)
  d       draw the top card of the draw pile                (rule 3.4)
  p R C   place the drawn card on (R, C)                    (rule 3.5)
  x R C   discard the drawn card and flip (R, C)            (rule 3.6)
  f R C   flip (R, C): an opening flip, or a flip-only turn (rules 2.1, 3.7)
  g       show the table again
  ?       this help
  q       leave the game
Long forms work too (take, draw, place, discard, flip), and "1,2" or "(1,2)" for a space."""

_WORDS: Final[dict[str, str]] = {
    "t": "t", "take": "t", "d": "d", "draw": "d", "p": "p", "place": "p", "x": "x", "discard": "x",
    "f": "f", "flip": "f", "g": "g", "grids": "g", "show": "g", "?": "?", "h": "?", "help": "?",
    "q": "q", "quit": "q", "exit": "q",
}


_SPACE_ACTIONS: Final[dict[str, type[TakeDiscard | PlaceDrawn | DiscardDrawn | Flip]]] = {
    "t": TakeDiscard, "p": PlaceDrawn, "x": DiscardDrawn, "f": Flip,
}


def parse_move(text: str, seat: int) -> Action | str:
    """A move typed in `play`, as an action of `seat`.

    Spaces are `row col`, counted from 0 (rule 1.2); `1,2` and `(1,2)` work too. Whether
    the move is legal is for the engine to say.

    Args:
        text: `t R C` (take the discard), `d` (draw), `p R C` (place the drawn card),
            `x R C` (discard it and flip), `f R C` (flip), or the words `g` (show the
            table), `?` (help), `q` (quit); long forms (`take`, `draw`, ...) work too.
        seat: The seat that plays.

    Returns:
        The action, or `"g"`, `"?"` or `"q"`.

    Raises:
        ValueError: The text is not a move; the message says why.

    Examples:
        >>> parse_move("t 1 2", 0)
        TakeDiscard(player=0, row=1, col=2)
        >>> parse_move("flip (2,3)", 1)
        Flip(player=1, row=2, col=3)
        >>> parse_move("d", 0)
        Draw(player=0)
        >>> parse_move("t 1", 0)
        Traceback (most recent call last):
        ...
        ValueError: 't' needs a space: row and column, e.g. "t 1 2"
    """
    cleaned = text.strip().lower()
    for ch in "(),;":
        cleaned = cleaned.replace(ch, " ")
    parts = cleaned.split()
    if not parts:
        raise ValueError("type a move, or ? for help")
    word = parts[0]
    if word[0] in "tpxf" and word[1:].isdigit() and len(parts) == 2:  # "t1 2"
        parts = [word[0], word[1:], parts[1]]
        word = parts[0]
    kind = _WORDS.get(word)
    if kind is None:
        raise ValueError(f"unknown move {parts[0]!r}: type ? for help")
    if kind in ("g", "?", "q", "d"):
        if len(parts) != 1:
            raise ValueError(f"{parts[0]!r} takes no space")
        return Draw(seat) if kind == "d" else kind
    numbers = parts[1:]
    if len(numbers) != 2 or not all(n.lstrip("-").isdigit() for n in numbers):
        raise ValueError(f"{parts[0]!r} needs a space: row and column, e.g. \"{kind} 1 2\"")
    row, col = int(numbers[0]), int(numbers[1])
    cls: type[TakeDiscard | PlaceDrawn | DiscardDrawn | Flip] = _SPACE_ACTIONS[kind]
    return cls(seat, row, col)


def _choices(state: State, seat: int) -> str:
    """The moves open to `seat` now, in words."""
    v = state.variant
    if state.phase is Phase.OPENING:
        left = v.initial_flips - len(state.opening[seat])
        return f"opening: flip one of your face-down cards ({left} left): f R C"
    if state.phase is Phase.DRAWN:
        return f"you drew {_a(state.drawn)}: p R C place it | x R C discard it and flip (R, C)"
    options = [f"t R C take the {state.top_discard}"]
    if any(isinstance(a, Draw) for a in legal_actions(state)):
        options.append("d draw")
    if v.flip_turn:
        options.append("f R C flip only")
    return "your turn: " + " | ".join(options)


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _show_table(state: State, narrator: Narrator) -> None:
    """The status line and, unless the narrator has just drawn them, the grids."""
    narrator.say()
    narrator.say(f"Round {state.round}: discard pile {state.top_discard} on top "
                 f"({_cards(len(state.discard_pile))}); draw pile {_cards(state.draw_pile_size)}; totals "
                 + ", ".join(f"seat {p}: {t}" for p, t in enumerate(state.totals)))
    if narrator.grids_shown_at != state.seq:
        narrator.grids(_public_grids(state))


def _cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    v = _variant(args)
    players = len(args.bots) + 1
    if not v.min_players <= players <= v.max_players:
        raise _UsageError(f"the variant takes {v.min_players} to {v.max_players} players; you and "
                         f"{len(args.bots)} bot(s) make {players}")
    _bot_names(args.bots, v.replace(min_players=1))
    if not 0 <= args.seat < players:
        raise _UsageError(f"--seat must be from 0 to {players - 1}, got {args.seat}")
    me = args.seat
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    names = list(args.bots)
    names.insert(me, "you")
    bots = {p: make_bot(name, derive_seed(seed, "bot", p)) for p, name in enumerate(names) if p != me}
    stdin: TextIO = args.stdin
    narrator = Narrator(out, names, width=args.width)
    narrator.say(f"Abyss: you are seat {me}, against " + ", ".join(f"seat {p} ({n})" for p, n in
                                                                   enumerate(names) if p != me))
    narrator.say(f"  variant: {_variant_summary(v)}; seed: {seed}. Type ? for help.")
    state = new_game(players, v, seed)
    record = Record.start(players, v, seed)
    try:
        return _play_loop(state, me, bots, narrator, stdin, out, record_to := [record])
    finally:
        if args.record is not None:
            _write_record(args.record, record_to[0])


def _play_loop(state: State, me: int, bots: dict[int, Any], narrator: Narrator, stdin: TextIO, out: TextIO,
               record: list[Record]) -> int:
    """The game loop of `play`; `record[0]` is kept up to date with every action."""
    narrator.round_start(state)
    if state.phase is not Phase.OPENING:
        narrator.opening_done(state)
    shown = -1
    while not state.is_over:
        waiting = [p for p in state.to_act if p != me]
        if waiting:  # bots first (in the opening they flip before you)
            p = waiting[0]
            action = bots[p].choose(view(state, p))
        else:
            if shown != state.seq and state.phase is not Phase.DRAWN:
                _show_table(state, narrator)
                shown = state.seq
            narrator.say(_choices(state, me))
            out.write("> ")
            out.flush()
            line = stdin.readline()
            if not line:
                narrator.say()
                narrator.say("The input ended before the game was over.")
                return EXIT_INPUT_ENDED
            if not out.isatty():
                out.write(line if line.endswith("\n") else line + "\n")  # echo scripted input
            try:
                move = parse_move(line, me)
            except ValueError as error:
                narrator.say(f"  {error}")
                continue
            if move == "?":
                narrator.say(_PLAY_HELP)
                continue
            if move == "g":
                shown = narrator.grids_shown_at = -1
                continue
            if move == "q":
                narrator.say("You left the game.")
                return EXIT_OK
            assert not isinstance(move, str)
            action = move
            problem = check(state, action)
            if problem is not None:
                rule = f", rule {problem.rule}" if problem.rule else ""
                narrator.say(f"  rejected: {problem.message} [{problem.code}{rule}]")
                continue
        after = apply(state, action)
        record[0] = record[0].with_actions(action)
        narrator.action(state, action, after)
        state = after
    return EXIT_OK


# ---------------------------------------------------------------------------
# Game documents: records, replay, validate, schema
# ---------------------------------------------------------------------------


class _BadInput(Exception):
    """Input that cannot be read or parsed: exit status 3."""

    def __init__(self, message: str, error: AbyssError | None = None) -> None:
        super().__init__(message)
        self.error = error


def _read_text(path: str, stdin: TextIO) -> str:
    """The text of `path` (`-`: standard input), at most `MAX_DOCUMENT_BYTES`-ish long."""
    if path == "-":
        text = stdin.read(MAX_DOCUMENT_BYTES * 4 + 1)
    else:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_DOCUMENT_BYTES * 4 + 1)
        except OSError as error:
            raise _BadInput(f"cannot read {path}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise _BadInput(f"cannot read {path}: not UTF-8 text") from None
    return text


def _write_record(path: str, record: Record) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(record.sealed().to_json() + "\n")
    except OSError as error:
        raise _BadInput(f"cannot write the record to {path}: {error.strerror or error}") from None


def _cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    stdin: TextIO = args.stdin
    if args.step and args.file == "-":
        raise _UsageError("--step reads Enter from standard input: give the record as a file")
    text = _read_text(args.file, stdin)
    try:
        record = Record.from_json(text, verify=False)
    except DecodeError as error:
        raise _BadInput(f"{args.file} is not a record document: {error}", error) from None
    if record.is_redacted:
        raise ReplayError(Code.RECORD_REDACTED, "the record is redacted (it has no seed): its cards are "
                                                "unknown, so it cannot be replayed", "/seed")
    narrator = Narrator(io.StringIO() if args.quiet else out, None, width=args.width)
    narrator.say(f"Replay of a record: {record.players} players, variant {_variant_summary(record.variant)}, "
                 f"{len(record.actions)} actions")
    states = record.states()
    before = next(states)
    narrator.round_start(before)
    if before.phase is not Phase.OPENING:
        narrator.opening_done(before)
    for index, action in enumerate(record.actions):
        try:
            after = next(states)
        except ReplayError:  # replay_failed: an illegal action; tell a pending draw first
            if before.phase is Phase.DRAWN:
                narrator.say(f"      (seat {before.turn} drew {_a(before.drawn)})")
            raise
        narrator.action(before, action, after)
        before = after
        if args.step and not isinstance(action, Draw) and index + 1 < len(record.actions):
            out.write("  [Enter: next, q: stop] ")
            out.flush()
            answer = stdin.readline()
            if not answer or answer.strip().lower() in ("q", "quit"):
                narrator.say("Replay stopped.")
                return EXIT_OK
    final = before
    if record.final_hash is not None and state_hash(final) != record.final_hash:
        raise ReplayError(Code.REPLAY_MISMATCH, "the replayed final state does not have the recorded hash",
                          "/final_hash")
    if not final.is_over:
        narrator.say(f"The record ends here: round {final.round}, phase {final.phase.value}"
                     + (f", seat {final.turn} to play" if final.turn >= 0 else "") + ".")
    summary = _winners_line(final, None) if final.is_over else \
        f"Replayed {len(record.actions)} actions; the game is not over."
    if args.quiet:
        print(summary, file=out)
    print(f"Final state hash: {state_hash(final)}" + (" (matches the record)" if record.final_hash else ""),
          file=out)
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace, out: TextIO) -> int:
    stdin: TextIO = args.stdin
    if [args.state, args.action].count("-") > 1:
        raise _UsageError("only one of STATE and ACTION can be read from standard input ('-')")
    if args.notation is not None and args.action is not None:
        raise _UsageError("give the action as ACTION or as --notation, not both")
    if args.state is not None and args.action is None and args.notation is None:
        raise _UsageError("give the action: ACTION (a file, or '-') or --notation TEXT")
    try:
        if args.state is None:
            if args.notation is not None:
                raise _UsageError("--notation needs a STATE file")
            pair = _parse_pair(_read_text("-", stdin))
            state_doc, action = pair["state"], pair["action"]
        else:
            state_doc = _parse_document(_read_text(args.state, stdin), args.state)
            action = args.notation if args.notation is not None else _read_text(args.action, stdin)
        try:
            state = state_from_dict(state_doc)
        except DecodeError as error:
            raise _BadInput(f"the state is not a valid state document: {error}", error) from None
    except _BadInput as bad:
        problem = bad.error or AbyssError(Code.UNREADABLE_INPUT, str(bad))
        print(Verdict.from_error(problem, None).to_json(), file=out)
        print(f"abyss-rules: error: {bad}", file=args.stderr)
        return EXIT_BAD_INPUT
    verdict = validate(state, action, seq=args.seq, player=args.player, require_seq=args.require_seq)
    print(verdict.to_json(), file=out)
    return EXIT_OK if verdict.legal else EXIT_NO


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate field {key!r}")
        out[key] = value
    return out


def _parse_document(text: str, where: str) -> Any:
    if len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES:
        error = DecodeError(Code.DOCUMENT_TOO_LARGE, f"{where} is larger than {MAX_DOCUMENT_BYTES} bytes")
        raise _BadInput(str(error), error)
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicates)
    except ValueError as problem:
        error = DecodeError(Code.INVALID_JSON, f"{where} is not valid JSON: {problem}")
        raise _BadInput(error.message, error) from None


def _parse_pair(text: str) -> dict[str, Any]:
    doc = _parse_document(text, "standard input")
    if not isinstance(doc, dict) or set(doc) != {"state", "action"}:
        error = DecodeError(Code.WRONG_FORMAT, 'standard input must be a JSON object {"state": <state '
                                               'document>, "action": <action document or notation>}')
        raise _BadInput(error.message, error)
    return doc


def _schema_dir() -> Any:
    """Where the JSON Schemas are: packaged with the library, or in the source tree's spec/schemas."""
    from importlib import resources
    from pathlib import Path

    packaged = resources.files("abyss_rules") / "schemas"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parent.parent.parent / "spec" / "schemas"
    if source.is_dir():
        return source
    raise _BadInput("the JSON Schemas are not installed with this copy of abyss-rules "
                    "(they are spec/schemas/ in the source repository)")


def _schemas() -> dict[str, Any]:
    folder = _schema_dir()
    out = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".schema.json"):
            out[entry.name.removesuffix(".schema.json")] = json.loads(entry.read_text(encoding="utf-8"))
    return out


def _cmd_schema(args: argparse.Namespace, out: TextIO) -> int:
    schemas = _schemas()
    if args.list:
        for name in schemas:
            print(name, file=out)
        return EXIT_OK
    if args.name is None:
        json.dump(schemas, out, indent=2, ensure_ascii=False)
    elif args.name in schemas:
        json.dump(schemas[args.name], out, indent=2, ensure_ascii=False)
    else:
        raise _UsageError(f"no schema {args.name!r}; the documents are: {', '.join(schemas)}")
    out.write("\n")
    return EXIT_OK


# ---------------------------------------------------------------------------
# simulate
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


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
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="watch built-in bots play a whole game (the default command)",
                          description="Play a whole game between built-in bots and print it turn by turn: "
                                      "each round's deal and opening flips, every turn in words, the grids "
                                      "before and after the final reveal, the scores and the winner.")
    demo.add_argument("--bots", nargs="+", default=["greedy", "counting"], metavar="BOT",
                      help=f"one bot per seat, from: {', '.join(BOTS)} (default: greedy counting)")
    demo.add_argument("--seed", type=_seed_arg, default=None,
                      help="the game's seed (default: a fresh random one, printed so you can replay it)")
    _add_variant_args(demo)
    demo.add_argument("--quiet", action="store_true", help="print only the result")
    demo.add_argument("--record", metavar="FILE", default=None,
                      help="also write the game's record (a JSON record document) to FILE, for replay")
    _add_width_arg(demo)
    demo.set_defaults(handler=_cmd_demo)

    play = sub.add_parser("play", help="play a game against bots in the terminal",
                          description="Play a whole game against built-in bots. Before each of your moves "
                                      "the grids are drawn (?? face down, blanks where a column was "
                                      "swallowed), with the discard pile's top card, the draw pile and the "
                                      "totals. Type a move and press Enter; spaces are (row, col) counted "
                                      "from 0, as on the grids:\n\n" + _PLAY_HELP,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    play.add_argument("--bots", nargs="+", default=["counting"], metavar="BOT",
                      help=f"your opponents, from: {', '.join(BOTS)} (default: counting)")
    play.add_argument("--seat", type=int, default=0, help="your seat (default: 0)")
    play.add_argument("--seed", type=_seed_arg, default=None, help="the game's seed (default: random)")
    play.add_argument("--record", metavar="FILE", default=None,
                      help="write the game's record (a JSON record document) to FILE when it stops, "
                           "for replay")
    _add_variant_args(play)
    _add_width_arg(play)
    play.set_defaults(handler=_cmd_play)

    rp = sub.add_parser("replay", help="replay a game record, told turn by turn",
                        description="Replay a record document (written by 'demo --record' or "
                                    "'play --record', or by abyss_rules.Record.to_json) and tell the game "
                                    "as 'demo' does; every action is checked by the engine, and the final "
                                    "state's hash against the record's final_hash.")
    rp.add_argument("file", metavar="RECORD", help="the record document, or '-' for standard input")
    rp.add_argument("--step", action="store_true",
                    help="stop after every turn: Enter goes on, q stops (RECORD must be a file)")
    rp.add_argument("--quiet", action="store_true", help="print only the result and the final hash")
    _add_width_arg(rp)
    rp.set_defaults(handler=_cmd_replay)

    va = sub.add_parser("validate", help="say whether an action is legal in a state (JSON verdict)",
                        description="Read a state document and an action (an action document or notation "
                                    "such as 0f12) and print the verdict document: "
                                    '{"legal": ..., "code": ..., "rule": ..., "message": ..., ...}. '
                                    "Without STATE, standard input must hold "
                                    '{"state": <state document>, "action": <action document or notation>}. '
                                    "Exit status: 0 legal; 1 illegal or a malformed action; 3 an unreadable "
                                    "file or an invalid state document (the verdict names the problem).")
    va.add_argument("state", metavar="STATE", nargs="?", default=None,
                    help="the state document file, or '-' for standard input")
    va.add_argument("action", metavar="ACTION", nargs="?", default=None,
                    help="the action document file, or '-' for standard input")
    va.add_argument("--notation", metavar="TEXT", default=None,
                    help="the action in notation instead of a file, e.g. 0f12 or 1d")
    va.add_argument("--player", type=int, default=None,
                    help="the seat the sender is known to play: another seat's action is seat_mismatch")
    va.add_argument("--seq", type=int, default=None,
                    help="the seq the sender saw: another seq than the state's is stale_action")
    va.add_argument("--require-seq", action="store_true",
                    help="reject an action that does not say which seq it was made for")
    va.set_defaults(handler=_cmd_validate)

    sc = sub.add_parser("schema", help="print the JSON Schemas of the game documents",
                        description="Print the JSON Schemas (draft 2020-12) of the documents: all of them "
                                    "as one JSON object keyed by document kind, or the one named.")
    sc.add_argument("name", metavar="KIND", nargs="?", default=None,
                    help="one document kind, e.g. state or action (see --list)")
    sc.add_argument("--list", action="store_true", help="list the document kinds")
    sc.set_defaults(handler=_cmd_schema)

    sim = sub.add_parser("simulate", help="play many games between bots and print win rates",
                         description="Play many games between built-in bots and print a results table: "
                                     "win rate (a shared win counts 1/number of winners) with its 95% "
                                     "margin, mean final total, mean round score, share of rounds closed "
                                     "and of closes penalized (rule 6.5), rounds per game. The results "
                                     "depend only on the bots, the variant, --games and --seed, not on "
                                     "--jobs.")
    sim.add_argument("--bots", nargs="+", default=["greedy", "counting"], metavar="BOT",
                     help=f"the line-up, one bot per seat, from: {', '.join(BOTS)} "
                          "(default: greedy counting)")
    sim.add_argument("--games", type=int, default=100, help="number of games (default: 100)")
    sim.add_argument("--seed", type=_seed_arg, default=None,
                     help="master seed (default: a fresh random one, printed); game i's seed is derived "
                          "from it and i")
    _add_variant_args(sim)
    sim.add_argument("--jobs", type=int, default=1,
                     help="worker processes; 0 = one per CPU core (default: 1, no extra process)")
    sim.add_argument("--fixed-seats", action="store_true",
                     help="keep every bot in its seat (default: seats rotate from game to game)")
    sim.add_argument("--json", action="store_true", help="print the results as JSON")
    bar = sim.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None,
                     help="show a progress bar on stderr (default: only on a terminal, for 20+ games)")
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")
    sim.set_defaults(handler=_cmd_simulate)
    return parser


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
        abyss-rules: error: unknown bot 'nobody'; built-in bots: random, greedy, counting
        2
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    parser = build_parser()
    args_list = list(sys.argv[1:] if argv is None else argv)
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
    except _UsageError as error:
        print(f"abyss-rules: error: {error}", file=err)
        return EXIT_USAGE
    except _BadInput as error:
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
