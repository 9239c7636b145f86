"""The words of the game: how a card, a seat, a space and every event are said in English.

One home for the wording of events (`abyss_rules.events`), used by everything that tells
a
game in words:

- `event_words`: one event as a sentence (the steps of the
  replay page, `abyss_rules.pictures._pages`);
- `caption_words`: what one action did, in one line, for a picture's
  caption (`to_svg` with `events=`);
- `action_words`: an action as it is asked for (before the engine says what it did);
- `turn_words`, `closing_words`, `reshuffle_words`,
  `opener_words`, `round_scores_words` and
  `game_over_words`: the lines of the command line's
  narration (`abyss_rules.cli`), one line per action, made
  of the events the action caused.

Everything here is worded from the events and the public facts they carry (rule 8.1): no
rule is worked out again. Why the opener was chosen comes from
`abyss_rules.rules.opener_decision`, the rule function that chooses it.

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=3)
    >>> _, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    >>> event_words(events[0]), turn_words(events)
    ('Seat 0 turns over (1,2): 5.', 'seat 0 flips (1,2): 5')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .. import _event_types as ev
from ..actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..config import Variant
from ..errors import ArgumentError, MalformedActionError, PictureError

__all__ = [
    "a_card",
    "action_words",
    "caption_words",
    "closing_words",
    "deal_words",
    "event_words",
    "game_over_words",
    "opener_words",
    "reshuffle_words",
    "round_scores_words",
    "seats_text",
    "space",
    "space_words",
    "turn_words",
]


def a_card(value: int) -> str:
    """`value` with its article: "a 7", "an 8", "an 11", "a -2".

    Examples:
        >>> a_card(8), a_card(11), a_card(12), a_card(-2), a_card(83)
        ('an 8', 'an 11', 'a 12', 'a -2', 'an 83')
    """
    return f"an {value}" if value >= 0 and (str(value).startswith("8") or value in (11, 18)) else f"a {value}"


def space(row: int, col: int) -> str:
    """A space as the narration writes it: `(row,col)`, counted from 0 (rule 1.2).

    Examples:
        >>> space(1, 2)
        '(1,2)'
    """
    return f"({row},{col})"


def space_words(seat: int, row: int, col: int, kind: str, value: int | None = None) -> str:
    """What a picture says of one space of a grid (its `<title>`): `kind` is `"up"` (showing
    `value`), `"down"`, `"secret"` (face down, `value` shown to a state's picture only) or `"gone"`
    (swallowed, rule 4.1).

    Examples:
        >>> space_words(0, 1, 2, "down")
        'seat 0, row 1, column 2: face down'
        >>> space_words(1, 0, 3, "up", -2)
        'seat 1, row 0, column 3: -2'
    """
    where = f"seat {seat}, row {row}, column {col}: "
    if kind == "gone":
        return where + "swallowed"
    if kind == "down":
        return where + "face down"
    if kind == "secret":
        return where + f"face down, secretly {value}"
    return where + f"{value}"


def seats_text(seats: Iterable[int]) -> str:
    """Seats in words: "seat 2", "seats 0 and 2", "seats 0, 1 and 3".

    Examples:
        >>> seats_text([0, 1, 3])
        'seats 0, 1 and 3'
    """
    names = [str(p) for p in seats]
    if len(names) == 1:
        return f"seat {names[0]}"
    return "seats " + ", ".join(names[:-1]) + " and " + names[-1]


def action_words(action: Action) -> str:
    """An action in words, e.g. "seat 0 flips (1,2)" (spaces are `(row,col)`, from 0): what was
    asked for, before the engine says what it did (see `caption_words`).

    Examples:
        >>> action_words(TakeDiscard(1, 2, 3))
        'seat 1 takes the top discard and places it on (2,3)'
    """
    if type(action) not in ACTION_TYPES:
        raise MalformedActionError(f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), "
                                   f"got {type(action).__name__}")
    who = f"seat {action.player}"
    if isinstance(action, Draw):
        return f"{who} draws a card"
    where = space(action.row, action.col)
    if isinstance(action, Flip):
        return f"{who} flips {where}"
    if isinstance(action, TakeDiscard):
        return f"{who} takes the top discard and places it on {where}"
    if isinstance(action, PlaceDrawn):
        return f"{who} places the drawn card on {where}"
    assert isinstance(action, DiscardDrawn)
    return f"{who} discards the drawn card and flips {where}"


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _swallowed(event: ev.ColumnSwallowed, mover: int | None) -> str:
    whose = "" if event.seat == mover else f"seat {event.seat}'s "
    when = " at the final reveal" if event.final_reveal else ""
    count = _COUNTS.get(event.count, str(event.count))
    return f"{whose}column {event.col} swallowed{when}: {count} {event.value}s"


def caption_words(events: Sequence[ev.Event]) -> str:
    """What one action did, in one line, from the events it caused (public facts only, rule 8.1):
    a picture's caption.

    E.g. "seat 2 took the 5 from the discard pile and placed it on (2,1), replacing a face-down 9;
    column 1 swallowed: three 5s". Then, if the action caused them: the closing of the round,
    the opener, the round's scores and the end of the game.

    Raises:
        PictureError: the events moved no card (they are not what an action caused; code
            `invalid_picture`, a `ValueError`).
        ArgumentError: `events` is not a list or tuple of events.

    Examples:
        >>> print(caption_words([ev.CardPlaced(2, 2, 1, 5, "discard"),
        ...                      ev.CardDiscarded(2, 9, "replaced", 2, 1, was_face_down=True),
        ...                      ev.ColumnSwallowed(2, 1, 5, 3, final_reveal=False)]))
        seat 2 took the 5 from the discard pile and placed it on (2,1), replacing a face-down 9; column 1 swallowed: three 5s
        >>> caption_words([ev.CardDrawn(1, 7)])
        'seat 1 drew a 7'
    """  # noqa: E501  (the doctest's output line)
    _check_events(events)
    placed = next((e for e in events if isinstance(e, ev.CardPlaced)), None)
    revealed = next((e for e in events if isinstance(e, ev.CardRevealed)), None)
    replaced = next((e for e in events if isinstance(e, ev.CardDiscarded) and e.source != "drawn"), None)
    discarded = next((e for e in events if isinstance(e, ev.CardDiscarded) and e.source == "drawn"), None)
    drawn = next((e for e in events if isinstance(e, ev.CardDrawn)), None)
    if placed is not None and replaced is not None:
        mover = placed.seat
        where = space(placed.row, placed.col)
        if placed.source == "discard":
            text = f"seat {mover} took the {placed.value} from the discard pile and placed it on {where}"
        else:
            text = f"seat {mover} placed the drawn {placed.value} on {where}"
        text += (f", replacing a face-down {replaced.value}" if replaced.was_face_down
                 else f", replacing {a_card(replaced.value)}")
    elif revealed is not None:
        mover = revealed.seat
        where = space(revealed.row, revealed.col)
        if discarded is not None:
            text = (f"seat {mover} discarded the drawn {discarded.value} and flipped {where}: "
                    f"{a_card(revealed.value)}")
        elif revealed.cause == "opening_flip":
            text = f"seat {mover} flipped {where} in the opening: {a_card(revealed.value)}"
        else:
            text = f"seat {mover} flipped {where}: {a_card(revealed.value)}"
    elif drawn is not None:
        mover = drawn.seat
        text = f"seat {mover} drew {a_card(drawn.value)}"
    else:
        raise _no_card_moved(events)
    parts = [text]
    for event in events:
        if isinstance(event, ev.ColumnSwallowed):
            parts.append(_swallowed(event, mover))
        elif isinstance(event, ev.Reshuffled):
            parts.append(f"the discards were shuffled into a new draw pile of {event.draw_pile_size}")
        elif isinstance(event, ev.RoundClosed):
            parts.append(f"seat {event.closer} closed the round")
        elif isinstance(event, ev.OpeningDone):
            parts.append(f"seat {event.opener} opens the round")
        elif isinstance(event, ev.RoundScored):
            scores = ", ".join(f"seat {p} {score}" for p, score in enumerate(event.scores))
            parts.append(f"round {event.round} scored: {scores}")
        elif isinstance(event, ev.GameOver):
            verb = "wins" if len(event.winners) == 1 else "share the win"
            parts.append(f"game over: {seats_text(event.winners)} {verb}")
    return "; ".join(parts)


def _check_events(events: object) -> None:
    if not isinstance(events, (list, tuple)):
        raise ArgumentError(f"expected the events of one action (a list or tuple), "
                            f"got {type(events).__name__}")
    for event in events:
        if type(event) not in ev.EVENT_TYPES:
            raise ArgumentError(f"expected events, got {type(event).__name__}")


def _no_card_moved(events: Sequence[ev.Event]) -> PictureError:
    listed = repr(list(events))
    shown = listed if len(listed) <= 200 else listed[:200] + "..."
    return PictureError(f"no card was moved by these events: {shown}")


def _replaced(event: ev.CardDiscarded) -> str:
    return f"a face-down {event.value}" if event.was_face_down else f"{event.value}"


def event_words(event: ev.Event) -> str:
    """One event in words: a sentence a spectator could be told (public facts only).

    Examples:
        >>> event_words(ev.ColumnSwallowed(seat=1, col=2, value=5, count=3, final_reveal=False))
        'Column 2 of seat 1 holds three 5s: it is swallowed and its cards go onto the discard pile.'
    """
    if type(event) not in ev.EVENT_TYPES:
        raise ArgumentError(f"expected an event, got {type(event).__name__}")
    if isinstance(event, ev.CardRevealed):
        how = {"opening_flip": "turns over", "flip": "flips", "discard_drawn": "flips"}.get(event.cause,
                                                                                          "turns over")
        return f"Seat {event.seat} {how} {space(event.row, event.col)}: {event.value}."
    if isinstance(event, ev.CardDrawn):
        return f"Seat {event.seat} draws {a_card(event.value)}."
    if isinstance(event, ev.Reshuffled):
        return (f"The draw pile is empty: the discards are shuffled into a new draw pile of "
                f"{event.draw_pile_size} cards; {a_card(event.top_discard)} stays on the discard pile.")
    if isinstance(event, ev.CardPlaced):
        source = "the top discard" if event.source == "discard" else "the drawn card"
        return f"Seat {event.seat} places {source}, {a_card(event.value)}, on {space(event.row, event.col)}."
    if isinstance(event, ev.CardDiscarded):
        if event.source == "drawn":
            return f"Seat {event.seat} discards the drawn {event.value}."
        was = " (face down until now)" if event.was_face_down else ""
        return f"The card it replaces, {a_card(event.value)}{was}, goes onto the discard pile."
    if isinstance(event, ev.ColumnSwallowed):
        count = {2: "two", 3: "three", 4: "four"}.get(event.count, str(event.count))
        when = " after the final reveal" if event.final_reveal else ""
        return (f"Column {event.col} of seat {event.seat} holds {count} {event.value}s{when}: it is "
                "swallowed and its cards go onto the discard pile.")
    if isinstance(event, ev.OpeningDone):
        return f"The opening is over: seat {event.opener} plays first."
    if isinstance(event, ev.RoundClosed):
        return (f"Seat {event.closer} has no face-down card left: it closes the round, and every other "
                "seat plays one last turn.")
    if isinstance(event, ev.FinalReveal):
        if not event.cards:
            return "The round ends: no face-down card is left to turn over."
        cards = "; ".join(f"seat {seat} {space(row, col)} {value}" for seat, row, col, value in event.cards)
        return f"The round ends: the face-down cards are turned over: {cards}."
    if isinstance(event, ev.RoundScored):
        parts = []
        for seat, (raw, score) in enumerate(zip(event.raw_scores, event.scores, strict=True)):
            parts.append(f"seat {seat} {raw}" + (f" (closer, \u00d7 {score // raw} = {score})"
                                                  if score != raw and raw else ""))
        ending = " (the stalling cap ended it)" if event.capped else ""
        totals = ", ".join(str(t) for t in event.totals)
        return f"Round {event.round} is scored{ending}: {'; '.join(parts)}. Totals: {totals}."
    if isinstance(event, ev.NewRound):
        return (f"Round {event.round} is dealt, every card face down; the discard pile opens with "
                f"{a_card(event.top_discard)}, {event.draw_pile_size} cards in the draw pile.")
    assert isinstance(event, ev.GameOver)
    best = event.totals[event.winners[0]]
    verb = "wins" if len(event.winners) == 1 else "share the win"
    return f"The game is over: {seats_text(event.winners)} {verb} with a total of {best}."


def turn_words(events: Sequence[ev.Event]) -> str:
    """The narration's line for one action, from the events it caused (before the end of the round).

    E.g. "seat 1 draws a 7 and places it on (2,3), discarding 11": the card placed and the
    card it replaced, or the card turned over (and the drawn card discarded), and the column
    the action swallowed. A draw alone is "seat 1 draws" (the narration tells the drawn card
    with the action that follows it).

    Examples:
        >>> for part in turn_words([ev.CardPlaced(0, 2, 3, 4, "discard"),
        ...                         ev.CardDiscarded(0, 9, "replaced", 2, 3, was_face_down=True),
        ...                         ev.ColumnSwallowed(0, 3, 4, 3, final_reveal=False)]).split("; "):
        ...     print(part)
        seat 0 takes the 4 from the discard pile and places it on (2,3), discarding a face-down 9
        column 3 (3 x 4) is swallowed
    """
    _check_events(events)
    placed: ev.CardPlaced | None = None
    revealed: ev.CardRevealed | None = None
    replaced: ev.CardDiscarded | None = None
    discarded: ev.CardDiscarded | None = None
    swallowed: ev.ColumnSwallowed | None = None
    drawn: ev.CardDrawn | None = None
    for event in events:
        if isinstance(event, ev.CardPlaced):
            placed = event
        elif isinstance(event, ev.CardRevealed):
            revealed = event
        elif isinstance(event, ev.CardDiscarded):
            if event.source == "drawn":
                discarded = event
            else:
                replaced = event
        elif isinstance(event, ev.ColumnSwallowed) and not event.final_reveal and swallowed is None:
            swallowed = event
        elif isinstance(event, ev.CardDrawn):
            drawn = event
    if placed is not None and replaced is not None:
        where = space(placed.row, placed.col)
        if placed.source == "discard":
            text = (f"seat {placed.seat} takes the {placed.value} from the discard pile and places it on "
                    f"{where}, discarding {_replaced(replaced)}")
        else:
            text = (f"seat {placed.seat} draws {a_card(placed.value)} and places it on {where}, "
                    f"discarding {_replaced(replaced)}")
    elif revealed is not None:
        where = space(revealed.row, revealed.col)
        if discarded is not None:
            text = (f"seat {revealed.seat} draws {a_card(discarded.value)}, discards it and flips {where}: "
                    f"{revealed.value}")
        else:
            text = f"seat {revealed.seat} flips {where}: {revealed.value}"
    elif drawn is not None:
        text = f"seat {drawn.seat} draws"
    else:
        raise _no_card_moved(events)
    if swallowed is not None:
        text += f"; column {swallowed.col} ({swallowed.count} x {swallowed.value}) is swallowed"
    return text


def deal_words(variant: Variant, top_discard: int, draw_pile_size: int) -> list[str]:
    """The narration's lines when a round is dealt (rule 1.4), and the opening flips it asks for
    (rule 2.1), if any.

    Examples:
        >>> for line in deal_words(Variant.standard(), 9, 125):
        ...     print(line)
        Deal: 12 cards face down to each seat; the discard pile opens with a 9; 125 cards in the draw pile.
        Opening: every seat flips 2 of its cards.
    """
    lines = [f"Deal: {variant.cells} cards face down to each seat; the discard pile opens with "
             f"{a_card(top_discard)}; {draw_pile_size} cards in the draw pile."]
    if variant.initial_flips:
        lines.append(f"Opening: every seat flips {variant.initial_flips} of its cards.")
    return lines


def reshuffle_words(event: ev.Reshuffled, variant: Variant) -> str:
    """The narration's note on a reshuffle (rules 5.1, 5.2), in brackets.

    Examples:
        >>> reshuffle_words(ev.Reshuffled(draw_pile_size=41, top_discard=3), Variant.standard())[-31:]
        'into a new draw pile; 41 cards)'
    """
    how = ("the discard pile under its top card was shuffled into a new draw pile"
           if variant.reshuffle_keeps_top else
           "the whole discard pile was shuffled; its first card opens a new discard pile")
    return f"(the draw pile is empty: {how}; {event.draw_pile_size} cards)"


def closing_words(event: ev.RoundClosed) -> str:
    """The narration's line when a seat closes the round (rules 6.1, 6.2).

    Examples:
        >>> closing_words(ev.RoundClosed(1))
        'seat 1 has no face-down card left and closes the round; every other seat plays one last turn'
    """
    return (f"seat {event.closer} has no face-down card left and closes the round; "
            "every other seat plays one last turn")


def opener_words(step: str, flips: tuple[int, ...]) -> str:
    """Why a seat opens the round, in words (rules 2.3, 2.4).

    Args:
        step: What chose the opener, as `abyss_rules.rules.opener_decision`
            says: `"previous_closer"`, `"no_flips"`, `"sum"`, `"highest_card"` or `"lowest_seat"`.
        flips: The opener's opening flips (rule 2.1).

    Examples:
        >>> opener_words("highest_card", (9, 1))
        'opening flips 9 + 1 = 10, tied on the sum; highest single card 9'
    """
    if step == "previous_closer":
        return "it closed the previous round"
    if step == "no_flips":
        return "no opening flips: seat 0 opens"
    text = f"opening flips {' + '.join(map(str, flips))} = {sum(flips)}"
    if step == "sum":
        return text + ", the highest sum"
    if step == "highest_card":
        return text + f", tied on the sum; highest single card {max(flips)}"
    return text + ", tied on the sum and the highest card; lowest seat"


def round_scores_words(event: ev.RoundScored, variant: Variant) -> str:
    """The narration's round scores: each seat's, with the closer penalty explained (rule 6.5).

    Examples:
        >>> round_scores_words(ev.RoundScored(1, (12, 9), (24, 9), True, 0, False, (24, 9)),
        ...                    Variant.standard())
        'seat 0: 12 x 2 = 24 (closer penalty: another seat scored 9 <= 12); seat 1: 9'
    """
    parts = []
    for seat, (raw, score) in enumerate(zip(event.raw_scores, event.scores, strict=True)):
        text = f"seat {seat}: {raw}"
        if seat == event.closer:
            if event.penalized:
                low = min(s for p, s in enumerate(event.raw_scores) if p != seat)
                text += (f" x {variant.closer_multiplier} = {score} (closer penalty: another seat scored "
                         f"{low} <= {raw})")
            elif variant.closer_multiplier != 1:
                text += " (closer, no penalty)" if raw <= 0 else " (closer, strictly lowest: no penalty)"
        parts.append(text)
    return "; ".join(parts)


def game_over_words(event: ev.GameOver, rounds: int, label: Callable[[int], str] | None = None) -> str:
    """The narration's last line: how many rounds were played and who won (rule 7.4).

    Args:
        event: The game's end.
        rounds: The number of rounds played.
        label: How to name a seat (by default "seat N").

    Examples:
        >>> game_over_words(ev.GameOver(winners=(1,), totals=(104, 61)), 5)
        'Game over after 5 rounds. Winner: seat 1 with 61 points.'
    """
    name = label if label is not None else (lambda seat: f"seat {seat}")
    head = f"Game over after {rounds} round{'s' if rounds != 1 else ''}."
    total = event.totals[event.winners[0]]
    if len(event.winners) == 1:
        return f"{head} Winner: {name(event.winners[0])} with {total} points."
    who = ", ".join(name(p) for p in event.winners)
    return f"{head} Shared win: {who} with {total} points each."
