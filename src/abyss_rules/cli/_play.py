"""`play`: a game against bots in the terminal, one typed move at a time.

`parse_move` reads a typed move; the game is told by a
`Narrator`.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import secrets
import sys
import textwrap
from collections.abc import Callable
from typing import Final, TextIO

from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..bots import LEVELS, Bot
from ..config import Variant
from ..pictures._words import a_card
from ..records import Record
from ..rules._dealing import new_game, player_count_problem
from ..rules._engine import check
from ..simulation import play_game
from ..state import Phase, State
from ..views import View, unseen_counts
from ._narration import Narrator, seat_label, variant_summary
from ._options import (
    EXIT_INPUT_ENDED,
    EXIT_OK,
    UsageError,
    bot_names,
    terminal_width,
    variant_of,
    width_of,
    write_record,
)

PLAY_HELP = """\
Moves (spaces are row and column, counted from 0 as on the grids: "t 1 2" is row 1, column 2):
  t R C   take the top discard and place it on (R, C)      (rule 3.3)
  d       draw the top card of the draw pile                (rule 3.4)
  p R C   place the drawn card on (R, C)                    (rule 3.5)
  x R C   discard the drawn card and flip (R, C)            (rule 3.6)
  f R C   flip (R, C): an opening flip, or a flip-only turn (rules 2.1, 3.7)
  g       show the table again
  l       list the discard pile (newest first) and count the unseen cards  (rules 5.3, 8.1)
  ?       this help
  q       leave the game (after a y to confirm)
Long forms work too (take, draw, place, discard, flip, list), and "1,2" or "(1,2)" for a space."""


def _rules_help(v: Variant, width: int) -> str:
    """The goal and the scoring rules in a few lines, for `?` in `play` (rules 4.1, 6.5, 7.4)."""
    ends = (f"when a total reaches {v.target_score} or more" if v.target_score is not None
            else f"after {v.max_rounds} rounds")
    if v.target_score is not None and v.max_rounds is not None:
        ends += f" (or after {v.max_rounds} round{'s' if v.max_rounds != 1 else ''})"
    lines = [
        "Goal: the lowest total wins. A round scores the face-up cards left in your grid; "
        f"the game ends {ends}.",
        f"Swallowing: {v.rows} equal face-up cards in a column are swallowed: the column is "
        "removed and scores nothing.",
        "Closing: turning up your last face-down card closes the round; every other seat then "
        "plays one last turn and all grids are revealed.",
    ]
    if v.closer_multiplier != 1:
        lines.append(f"Closer penalty: the closer's round score is multiplied by {v.closer_multiplier} "
                     "unless it is strictly the lowest or not above 0.")
    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ") for line in lines)


def _to_you(message: str, me: int) -> str:
    """An engine message about seat `me`, reworded for the human who plays it ("you")."""
    for pattern, words in ((rf"\bseat {me}'s turn\b", "your turn"), (rf"\bnot seat {me}'s", "not yours"),
                           (rf"\bof seat {me}\b", "of your grid"),
                           (rf"\bseat {me} has already made its\b", "you have already made your"),
                           (rf"\bseat {me} has\b", "you have"),
                           (rf"\bseat {me} holds\b", "you hold"), (rf"\bseat {me}\b", "you")):
        message = re.sub(pattern, words, message)
    return message


_WORDS: Final[dict[str, str]] = {
    "t": "t", "take": "t", "d": "d", "draw": "d", "p": "p", "place": "p", "x": "x", "discard": "x",
    "f": "f", "flip": "f", "g": "g", "grids": "g", "show": "g", "l": "l", "list": "l", "pile": "l",
    "discards": "l", "?": "?", "h": "?", "help": "?",
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
            table), `l` (list the discard pile), `?` (help), `q` (quit); long forms
            (`take`, `draw`, ...) work too.
        seat: The seat that plays.

    Returns:
        The action, or `"g"`, `"l"`, `"?"` or `"q"`.

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
    if kind in ("g", "l", "?", "q", "d"):
        if len(parts) != 1:
            raise ValueError(f"{parts[0]!r} takes no space")
        return Draw(seat) if kind == "d" else kind
    numbers = parts[1:]
    if len(numbers) != 2 or not all(n.lstrip("-").isdigit() for n in numbers):
        raise ValueError(f"{parts[0]!r} needs a space: row and column, e.g. \"{kind} 1 2\"")
    row, col = int(numbers[0]), int(numbers[1])
    cls: type[TakeDiscard | PlaceDrawn | DiscardDrawn | Flip] = _SPACE_ACTIONS[kind]
    return cls(seat, row, col)


def _choices(table: View, seat: int, names: list[str] | None = None) -> str:
    """The moves open to `seat` now, in words (from its view's legal actions); once another seat has
    closed the round, the words say that this is the last turn (rule 6.1).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> _choices(ar.view(state, 0), 0)
        'opening: flip one of your face-down cards (2 left): f R C'
    """
    v = table.variant
    if table.phase is Phase.OPENING:
        left = v.initial_flips - len(table.opening[seat])
        return f"opening: flip one of your face-down cards ({left} left): f R C"
    last = ""
    if table.closer is not None and table.closer != seat:
        last = (f"YOUR LAST TURN ({seat_label(table.closer, names)} closed the round; then every grid is "
                "revealed and scored): ")
    if table.phase is Phase.DRAWN and table.drawn is not None:
        return f"{last}you drew {a_card(table.drawn)}: p R C place it | x R C discard it and flip (R, C)"
    options = [f"t R C take the {table.top_discard}"]
    if any(isinstance(a, Draw) for a in table.legal_actions):
        options.append("d draw")
    if v.flip_turn:
        options.append("f R C flip only")
    return (last or "your turn: ") + " | ".join(options)


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _face_up_sums(table: View, names: list[str]) -> str:
    """Every seat's face-up sum and face-down count, from the public grids (rule 8.1)."""
    parts = []
    for p, grid in enumerate(table.grids):
        shown = sum(c for c, up in zip(grid.cards, grid.face_up, strict=True) if up and c is not None)
        parts.append(f"{seat_label(p, names)} {shown} ({len(grid.face_down)} face down)")
    return "face-up sums: " + "; ".join(parts)


def _show_table(table: View, narrator: Narrator, names: list[str]) -> None:
    """The status lines and, unless the narrator has just drawn them, the grids."""
    narrator.say()
    narrator.say(f"Round {table.round}: discard pile {table.top_discard} on top "
                 f"({_cards(len(table.discard_pile))}); draw pile {_cards(table.draw_pile_size)}")
    narrator.say("totals: " + ", ".join(f"{seat_label(p, names)} {t}" for p, t in enumerate(table.totals)))
    narrator.say(_face_up_sums(table, names))
    if narrator.grids_shown_at != table.seq:
        narrator.grids(table.grids)


def discard_pile_words(table: View, width: int = 100) -> list[str]:
    """The `l` command of `play`: the discard pile, newest first, since the last reshuffle (rules
    5.3, 8.1), and how many cards of each value are still unseen (`unseen_counts`: public facts
    only), in aligned columns.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.apply(ar.new_game(players=2, variant=ar.Variant.short(), seed=42), ar.Flip(0, 0, 3))
        >>> for line in discard_pile_words(ar.view(state, 0)):
        ...     print(line)
        Discard pile, newest first (1 card since the last reshuffle): -1
        Unseen cards (148: the face-down cards and the draw pile), by value:
          value   -2 -1  0  1  2  3  4  5  6  7  8  9 10 11 12
          unseen   5  9 15 10 10 10 10 10 10 10  9 10 10 10 10
    """
    pile = table.discard_pile
    lines = [f"Discard pile, newest first ({_cards(len(pile))} since the last reshuffle): "
             + ", ".join(str(card) for card in pile)]
    counts = unseen_counts(table)
    lines.append(f"Unseen cards ({sum(n for _, n in counts)}: the face-down cards and the draw pile), "
                 "by value:")
    cells = [(str(value), str(n)) for value, n in counts]
    w = max(len(text) for pair in cells for text in pair) + 1
    head, row, used = "  value  ", "  unseen ", 9
    for value, n in cells:
        if used + w > width and used > 9:  # a new pair of lines
            lines += [head.rstrip(), row.rstrip()]
            head, row, used = "  value  ", "  unseen ", 9
        head += value.rjust(w)
        row += n.rjust(w)
        used += w
    lines += [head.rstrip(), row.rstrip()]
    return lines


class _Stop(Exception):
    """The human left the game, or the input ended: `play` stops with `status`."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _terminal_reader(stdin: TextIO, out: TextIO) -> Callable[[str], str] | None:
    """`input` with line editing (the `readline` module, where Python has it), when `play` reads
    the real terminal; `None` otherwise (scripted input is read line by line)."""
    try:
        if not (stdin is sys.stdin and out is sys.stdout and stdin.isatty() and out.isatty()):
            return None
    except (AttributeError, ValueError):
        return None
    with contextlib.suppress(ImportError):  # e.g. Windows: input() without editing
        import readline  # noqa: F401  # (imported for its effect: input() gets line editing)

    def read(prompt: str) -> str:
        try:
            return input(prompt) + "\n"
        except EOFError:
            return ""

    return read


class _Human:
    """The seat of the person at the terminal: a bot (for `play_game`) whose moves are typed.

    `state` is the game's state, kept up to date by `play_game`'s `on_action` hook, so that a
    typed move the engine refuses is told with the engine's own reason (`check`) and asked
    again.
    """

    name = "you"

    def __init__(self, me: int, state: State, narrator: Narrator, names: list[str], stdin: TextIO,
                 out: TextIO) -> None:
        self.me, self.state, self.narrator, self.names = me, state, narrator, names
        self.stdin, self.out = stdin, out
        self.shown = -1
        self.read = _terminal_reader(stdin, out)

    def _line(self) -> str:
        if self.read is not None:
            return self.read("> ")
        self.out.write("> ")
        self.out.flush()
        line = self.stdin.readline()
        if line and not self.out.isatty():
            self.out.write(line if line.endswith("\n") else line + "\n")  # echo scripted input
        return line

    def choose(self, table: View) -> Action:
        narrator, me = self.narrator, self.me
        while True:
            if self.shown != table.seq and table.phase is not Phase.DRAWN:  # (a draw changes no grid)
                _show_table(table, narrator, self.names)
                self.shown = table.seq
            narrator.say(_choices(table, me, self.names))
            line = self._line()
            if not line:
                narrator.say()
                narrator.say("The input ended before the game was over.")
                raise _Stop(EXIT_INPUT_ENDED)
            try:
                move = parse_move(line, me)
            except ValueError as error:
                narrator.say(f"  {error}")
                continue
            if move == "?":
                narrator.say(PLAY_HELP)
                narrator.say(_rules_help(table.variant, narrator.width))
                continue
            if move == "g":
                narrator.grids_shown_at = -1
                _show_table(table, narrator, self.names)
                continue
            if move == "l":
                for text in discard_pile_words(table, narrator.width):
                    narrator.say(text)
                continue
            if move == "q":
                narrator.say("Leave the game? Type y to leave, anything else to play on.")
                answer = self._line()
                if not answer:
                    narrator.say()
                    narrator.say("The input ended before the game was over.")
                    raise _Stop(EXIT_INPUT_ENDED)
                if answer.strip().lower() not in ("y", "yes"):
                    continue
                narrator.say("You left the game.")
                raise _Stop(EXIT_OK)
            assert not isinstance(move, str)
            problem = check(self.state, move)
            if problem is None:
                return move
            rule = f", rule {problem.rule}" if problem.rule else ""
            narrator.say(f"  rejected: {_to_you(problem.message, me)} [{problem.code}{rule}]")


def _opening_order(me: int) -> Callable[[State], int]:
    """Who flips next in the opening: you first, then the bots (rule 2.2: flips may be made in any
    order), so that no bot's flip is shown before you have chosen yours."""
    return lambda s: me if me in s.to_act else s.to_act[0]


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    v = variant_of(args)
    if args.level is not None:
        if args.opponents < 1:
            raise UsageError(f"--opponents must be at least 1, got {args.opponents}")
        args.bots = [LEVELS[args.level]] * args.opponents
    elif args.opponents != 1:
        raise UsageError("--opponents goes with --level (with --bots, name one bot per opponent)")
    elif args.bots is None:
        args.bots = ["counting"]
    players = len(args.bots) + 1
    if (problem := player_count_problem(v, players)) is not None:
        raise UsageError(f"{problem} (you and {len(args.bots)} bot(s) make {players})")
    bot_names(args.bots, v.replace(min_players=1))
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be from 0 to {players - 1}, got {args.seat}")
    me = args.seat
    # The seed gives away every face-down card and the draw pile (rule 8.2): it is told only
    # once the game is over (or left), never while it is played.
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    names = list(args.bots)
    names.insert(me, "you")
    width, wrap = width_of(args, out)
    # (on a terminal, the width is read again for every line: a resized window is followed)
    narrator = Narrator(out, names, width=terminal_width(args, out) or width, wrap=wrap)
    narrator.say(f"Abyss: you are seat {me}, against " + ", ".join(f"seat {p} ({n})" for p, n in
                                                                   enumerate(names) if p != me))
    narrator.say(f"  variant: {variant_summary(v)}. Type ? for help, l for the discard pile.")
    state = new_game(players, v, seed)  # the deal play_game makes from the same seed (rule 9.1)
    human = _Human(me, state, narrator, names, args.stdin, out)
    record = Record.start(players, v, seed).with_names(names)

    def told(before: State, action: Action, after: State) -> None:
        nonlocal record
        record = record.with_actions(action)
        narrator.action(before, action, after)
        human.state = after

    narrator.round_start(state)
    if state.phase is not Phase.OPENING:
        narrator.opening_done(state)
    seats: list[Bot | str] = [human if p == me else name for p, name in enumerate(names)]
    try:
        play_game(seats, v, seed, on_action=told, next_seat=_opening_order(me))
        return EXIT_OK
    except _Stop as stop:
        return stop.status
    except KeyboardInterrupt:
        out.write("\n")  # after the terminal's "^C", so that what follows starts a line of its own
        raise
    finally:
        narrator.say(f"The game's seed was {seed} (kept secret while you played, rule 8.2).")
        if args.record is not None:
            write_record(args.record, record)
            done = len(record.actions)
            actions = f"{done} action" + ("" if done == 1 else "s")
            narrator.say(f"The record of the game ({actions}) is in {args.record}: "
                         f"abyss-rules replay {args.record}")
