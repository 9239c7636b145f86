"""Telling a game in words and drawing grids as text: what `demo`, `play` and `replay` print.

[`Narrator`][abyss_rules.cli.Narrator] tells a game action by action, as a spectator sees it
(rule 8.1); [`narrate`][abyss_rules.cli.narrate] tells a whole played game;
[`render_grids`][abyss_rules.cli.render_grids] draws grids side by side. Nothing here reads
input or parses arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..config import Variant
from ..grid import Grid
from ..simulation import GameResult
from ..state import Phase, RoundResult, State


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
        self.penalty_told = False
        """Whether the closer penalty (rule 6.5) has been explained (the first time a seat closes)."""

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
            m = before.variant.closer_multiplier
            if m != 1 and not self.penalty_told:
                self.penalty_told = True
                self.say(f"      (closer penalty, rule 6.5: the closer's round score is multiplied by {m} "
                         "unless it is strictly the lowest or not above 0)")
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
        shown = _Effect(before, action).grids(before)
        if list(shown) == list(result.grids):
            self.say("The final reveal changes nothing (no face-down card is left):")
            self.grids(shown)
        else:
            self.say("Before the final reveal:")
            self.grids(shown)
            swallows = " (and its swallows)" if v.swallow_on_final_reveal else ""
            self.say(f"After the final reveal{swallows}:")
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
