"""Telling a game in words and drawing grids as text: what `demo`, `play` and `replay` print.

`Narrator` tells a game action by action, as a spectator sees it (rule
8.1); `narrate` tells a whole played game; `render_grids` draws grids side
by side. Nothing here reads input or parses arguments.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import TextIO

from .. import _event_types as ev
from .._grid import Grid
from ..actions import Action
from ..config import Variant
from ..pictures._words import (
    closing_words,
    deal_words,
    game_over_words,
    opener_words,
    reshuffle_words,
    round_scores_words,
    turn_words,
)
from ..rules._engine import apply_with_events
from ..rules._opening import opener_decision
from ..simulation import GameResult
from ..state import Phase, State
from ..views import View, view


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


def _wrapped(line: str, width: int) -> str:
    """`line` wrapped at word boundaries to `width`, the rest indented two more than its start."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.fill(line, width, initial_indent="", subsequent_indent=indent + "  ",
                         break_on_hyphens=False, break_long_words=True)


def seat_label(seat: int, names: Sequence[str] | None) -> str:
    return f"seat {seat} ({names[seat]})" if names else f"seat {seat}"


def variant_summary(v: Variant) -> str:
    ends = []
    if v.max_rounds is not None:
        ends.append(f"{v.max_rounds} round{'s' if v.max_rounds != 1 else ''}")
    if v.target_score is not None and (v.max_rounds is None or v.max_rounds > 1):
        ends.append(f"until a total reaches {v.target_score}")
    return f"{v.name} ({v.rows}x{v.cols} grids, {' or '.join(ends)})"


def winners_line(game: State | View, names: Sequence[str] | None) -> str:
    """The last line of a finished game (rule 7.4)."""
    return game_over_words(ev.GameOver(winners=game.winners, totals=game.totals), len(game.history),
                           lambda seat: seat_label(seat, names))


def _grids_after(grids: Sequence[Grid], events: Sequence[ev.Event]) -> list[Grid]:
    """The public `grids` with the cards the `events` placed, turned over or swallowed, up to
    the final reveal: the table right after an action, before the end of the round (rule 8.1)."""
    out = list(grids)
    for event in events:
        if isinstance(event, ev.FinalReveal):
            break
        if isinstance(event, (ev.CardPlaced, ev.CardRevealed)):
            grid = out[event.seat]
            out[event.seat] = _changed(grid, [event.row * grid.cols + event.col], event.value, True, False)
        elif isinstance(event, ev.ColumnSwallowed):
            grid = out[event.seat]
            out[event.seat] = _changed(grid, [r * grid.cols + event.col for r in range(grid.rows)],
                                       None, False, True)
    return out


def _changed(grid: Grid, spaces: list[int], card: int | None, up: bool, gone: bool) -> Grid:
    cards, face_up, swallowed = list(grid.cards), list(grid.face_up), list(grid.swallowed)
    for i in spaces:
        cards[i], face_up[i], swallowed[i] = card, up, gone
    return Grid(rows=grid.rows, cols=grid.cols, cards=tuple(cards), face_up=tuple(face_up),
                swallowed=tuple(swallowed))


class Narrator:
    """Prints a game as it goes: deals, opening flips, turns, reveals, scores.

    It tells what a spectator sees (rule 8.1): a face-down card is `??` until it is flipped,
    placed over or revealed at the end of the round. Call `round_start` with the first
    state, then `action` for every action applied.

    Args:
        out: Where to print.
        names: A name per seat (e.g. the bots'), shown as `seat 1 (greedy)`.
        width: Line width for the grids (and for the text, with `wrap`); or a function that gives
            it, called for every line (a terminal's width, which a resize changes).
        wrap: Wrap lines longer than `width` at word boundaries (a wrapped line goes on
            indented); grids are never wrapped, they go side by side up to `width`.

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

    def __init__(self, out: TextIO, names: Sequence[str] | None = None, width: int | Callable[[], int] = 100,
                 wrap: bool = False) -> None:
        self.out = out
        self.names = names
        self._width = width
        self.wrap = wrap
        self.turn_number = 0
        self.grids_shown_at = -1
        """The `seq` of the state whose grids were printed last (-1: none)."""
        self.penalty_told = False
        """Whether the closer penalty (rule 6.5) has been explained (the first time a seat closes)."""

    @property
    def width(self) -> int:
        """The line width now."""
        return self._width() if callable(self._width) else self._width

    def say(self, text: str = "") -> None:
        """Print one line (or several), wrapped to the width if the narrator wraps."""
        width = self.width
        if self.wrap and any(len(line) > width for line in text.split("\n")):
            text = "\n".join(_wrapped(line, width) for line in text.split("\n"))
        print(text, file=self.out)

    def _grid_text(self, text: str) -> None:
        print(text, file=self.out)

    def grids(self, grids: Sequence[Grid], note: dict[int, str] | None = None) -> None:
        """Print every seat's grid, side by side, titled with the seat (and `note[seat]`)."""
        blocks = []
        for seat, grid in enumerate(grids):
            title = seat_label(seat, self.names)
            if note and seat in note:
                title += f" {note[seat]}"
            blocks.append((title, grid))
        self._grid_text(render_grids(blocks, width=self.width))

    def round_start(self, state: State) -> None:
        """Announce the round `state` was just dealt (rule 1.4)."""
        v = state.variant
        self.turn_number = 0
        self.say()
        self.say(f"=== Round {state.round} ===")
        for line in deal_words(v, state.discard_pile[0], state.draw_pile_size):
            self.say(line)

    def opening_done(self, state: State) -> None:
        """Show the grids after the opening flips and who opens, and why (rules 2.3, 2.4)."""
        public = view(state)
        opener, step = opener_decision(public.variant, public.opening, public.history)
        self.grids(public.grids)
        self.grids_shown_at = state.seq
        self.say(f"Seat {opener} opens the round ({opener_words(step, public.opening[opener])}).")

    def action(self, before: State, action: Action, after: State) -> None:
        """Tell `action`, applied to `before` and giving `after`: one line per turn (a draw
        is told with the placement or discard that follows it), the closing (rule 6.1), and
        at the end of a round the grids before and after the final reveal, the scores with
        the closer penalty (rules 6.3-6.5, 7.1) and the next deal or the winners (rule 7.4).

        The words come from the events the action caused
        (`apply_with_events`, worded by `abyss_rules.pictures._words`)
        and the grids from `view`: nothing is worked out
        again here.
        """
        self._tell(before, apply_with_events(before, action)[1], after)

    def _tell(self, before: State, events: Sequence[ev.Event], after: State) -> None:
        kinds = {type(event): event for event in reversed(events)}  # the first event of each kind
        revealed = kinds.get(ev.CardRevealed)
        if isinstance(revealed, ev.CardRevealed) and revealed.cause == "opening_flip":
            self.say("  " + turn_words(events))
            if ev.OpeningDone in kinds:
                self.opening_done(after)
            return
        if ev.CardDrawn in kinds:
            reshuffled = kinds.get(ev.Reshuffled)
            if isinstance(reshuffled, ev.Reshuffled):
                self.say("     " + reshuffle_words(reshuffled, before.variant))
            return
        self.turn_number += 1
        self.say(f"{self.turn_number:>4}. " + turn_words(events))
        closed = kinds.get(ev.RoundClosed)
        if isinstance(closed, ev.RoundClosed):
            self.say("      " + closing_words(closed))
            m = before.variant.closer_multiplier
            if m != 1 and not self.penalty_told:
                self.penalty_told = True
                self.say(f"      (closer penalty, rule 6.5: the closer's round score is multiplied by {m} "
                         "unless it is strictly the lowest or not above 0)")
        if ev.RoundScored in kinds:
            self._round_end(before, events, kinds, after)

    def _round_end(self, before: State, events: Sequence[ev.Event], kinds: dict[type, ev.Event],
                   after: State) -> None:
        """`kinds`: the first of `events` of each kind. The history, totals and winners are
        public (rule 8.1): read from `after` itself."""
        v = before.variant
        result = after.history[-1]
        self.say()
        if result.capped:
            self.say(f"Round {result.round} ends: the stalling cap of {v.max_turns_per_round} turns "
                     "is reached (no closer, no penalty).")
        else:
            self.say(f"Round {result.round} ends after {result.turns} turns; "
                     f"seat {result.closer} closed it.")
        shown = _grids_after(view(before).grids, events)
        reveal = kinds[ev.FinalReveal]
        assert isinstance(reveal, ev.FinalReveal)
        if not reveal.cards:
            self.say("The final reveal changes nothing (no face-down card is left):")
            self.grids(shown)
        else:
            self.say("Before the final reveal:")
            self.grids(shown)
            swallows = " (and its swallows)" if v.swallow_on_final_reveal else ""
            self.say(f"After the final reveal{swallows}:")
            self.grids(result.grids)
        scored = kinds[ev.RoundScored]
        assert isinstance(scored, ev.RoundScored)
        self.say(f"Round scores: {round_scores_words(scored, v)}")
        totals = ", ".join(f"seat {p}: {t}" for p, t in enumerate(scored.totals))
        self.say(f"Totals after round {scored.round}: {totals}")
        if after.is_over:
            self.say()
            self.say(winners_line(after, self.names))
        else:
            self.round_start(after)
            if ev.OpeningDone in kinds:  # no opening flips: the opener plays
                self.opening_done(after)


def narrate(result: GameResult, out: TextIO, width: int = 100, wrap: bool = False) -> None:
    """Print a whole game with a `Narrator`.

    Args:
        result: The game, played with `keep_states=True`.
        out: Where to print.
        width: Line width for the grids (and for the text, with `wrap`); or a function that gives
            it, called for every line (a terminal's width, which a resize changes).
        wrap: Wrap long lines to `width` (see `Narrator`).

    Raises:
        ValueError: `result` holds no states.

    Examples:
        >>> import io
        >>> from abyss_rules.simulation import play_game
        >>> out = io.StringIO()
        >>> narrate(play_game(["random", "random"], "short", seed=3, keep_states=True), out)
        >>> out.getvalue().splitlines()[-1]
        'Game over after 1 round. Winner: seat 0 (random) with 48 points.'
    """
    states = result.states
    if states is None:
        raise ValueError("narrate() needs a game played with keep_states=True")
    narrator = Narrator(out, result.bots, width=width, wrap=wrap)
    narrator.round_start(states[0])
    if states[0].phase is not Phase.OPENING:
        narrator.opening_done(states[0])
    for before, action, after in zip(states, result.actions, states[1:], strict=False):
        narrator.action(before, action, after)
