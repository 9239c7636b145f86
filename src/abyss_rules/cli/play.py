"""`play`: a game against bots in the terminal, one typed move at a time.

[`parse_move`][abyss_rules.cli.parse_move] reads a typed move; the game is told by a
[`Narrator`][abyss_rules.cli.Narrator].
"""

from __future__ import annotations

import argparse
import re
import secrets
import textwrap
from typing import Any, Final, TextIO

from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..bots import make_bot
from ..config import Variant
from ..records import Record
from ..rules.dealing import new_game
from ..rules.engine import apply, check
from ..rules.legal import legal_actions
from ..simulation import derive_seed
from ..state import Phase, State
from ..views import view
from .narration import Narrator, _a, _public_grids, _variant_summary
from .options import EXIT_INPUT_ENDED, EXIT_OK, _bot_names, _UsageError, _variant, _write_record

_PLAY_HELP = """\
Moves (spaces are row and column, counted from 0 as on the grids: "t 1 2" is row 1, column 2):
  t R C   take the top discard and place it on (R, C)      (rule 3.3)
  d       draw the top card of the draw pile                (rule 3.4)
  p R C   place the drawn card on (R, C)                    (rule 3.5)
  x R C   discard the drawn card and flip (R, C)            (rule 3.6)
  f R C   flip (R, C): an opening flip, or a flip-only turn (rules 2.1, 3.7)
  g       show the table again
  ?       this help
  q       leave the game
Long forms work too (take, draw, place, discard, flip), and "1,2" or "(1,2)" for a space."""



def _rules_help(v: Variant) -> str:
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
    return "\n".join(textwrap.fill(line, 100, subsequent_indent="  ") for line in lines)


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
            done = len(record_to[0].actions)
            actions = f"{done} action" + ("" if done == 1 else "s")
            narrator.say(f"The record of the game ({actions}) is in {args.record}: "
                         f"abyss-rules replay {args.record}")


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
                narrator.say(_rules_help(state.variant))
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
                narrator.say(f"  rejected: {_to_you(problem.message, me)} [{problem.code}{rule}]")
                continue
        after = apply(state, action)
        record[0] = record[0].with_actions(action)
        narrator.action(state, action, after)
        state = after
    return EXIT_OK
