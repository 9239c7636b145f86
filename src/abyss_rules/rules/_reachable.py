"""Which states a saved game may be (rule 3.11): the one answer to "is this state possible?".

`state_problem` is asked by every part of the library that meets a state it did not make
itself: the loaders (`loads_state`, `state_from_dict`, through
`codec._state.assemble_state`), `abyss_rules.rules.impossibility` and
`abyss_rules.testing.check_invariants`. Each check below is a function of a well-formed
`State` (one grid, one opening record and one total per seat) that returns the first
`Problem` it finds; the loaders turn it into a `DecodeError` (its code and JSON pointer),
the invariant checker into an `InvariantError` (its invariant name and rule). Together with
the codec's checks of each field, they are exactly the facts rule 3.11 lists: a state that
shows none of them is loaded. The checks, in order:

* `counters` (3.12): `seq` and `turns` below `COUNTER_LIMIT` (2**40), the dealer's position at
  most `WORDS_PER_ACTION * (seq + 1)`;
* `swallowed_spaces` (4.1): swallowed spaces are whole columns, hold 0 and are not face up;
  no column that play would have swallowed is left face up with equal cards;
* `history` (6.2, 6.6, 7.1-7.3): one result per finished round, its totals the running sums,
  no round after the game was over, no round with a closer in fewer than
  `(cells - initial_flips) * players` turns, no finished grid holding more copies of a card
  than the deck;
* `drawn_card` (3.4), `turn` (3.1), `turns` (6.7), `opening_flips` (2.1, 2.2), `closer`
  (6.1, 6.2), `game_over` (6.3, 6.6, 7.2): the phase machine;
* `discard_pile` (1.4, 4.1): never empty; at most one card a completed turn besides the
  first card and the swallowed ones, exactly those before the first turn ends;
* `card_conservation` (1.1): the grids, the piles and the drawn card are exactly the deck;
* `loadable` (3.11): the seat to act can act; the opening flips are cards of the deck and
  chose the seat to act; seat by seat, what a grid shows fits the flips and the turns that
  seat took; no finished grid shows a column the final reveal swallows; `seq` fits the flips
  and turns taken;
* `legal_actions` (3.2, 3.12, 7.5): a legal action exists exactly when the game is not over
  and has not reached the bound of the counters.

Examples:
    >>> from abyss_rules.rules._dealing import new_game
    >>> state = new_game(2, seed=1)
    >>> state_problem(state) is None
    True
    >>> state_problem(state._replace(discard_pile=state.draw_pile[:1] + state.discard_pile,
    ...                              draw_pile=state.draw_pile[1:]))[:3]
    ('discard_pile', '1.4', '/discard_pile')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Final, NamedTuple

from .._grid import Grid
from ..caches import BoundedCache, Memo
from ..cards import deck_difference
from ..config import Variant
from ..errors import Code
from ..state import COUNTER_LIMIT, WORDS_PER_ACTION, Phase, RoundResult, State
from ._columns import complete_column
from ._legal import legal_actions
from ._opening import choose_opener
from ._scoring import game_is_over

__all__ = ["CHECKS", "COUNTER_LIMIT", "Problem", "impossibility", "state_problem"]

class Problem(NamedTuple):
    """The first reason a state is not one play can reach."""

    invariant: str
    """The name `abyss_rules.testing.check_invariants` reports."""
    rule: str
    """The id of the rule it breaks."""
    path: str
    """A JSON pointer into the state's document."""
    message: str
    code: str = Code.IMPOSSIBLE_STATE.value
    """The error code the loaders report."""


def state_problem(state: State) -> Problem | None:
    """The first reason `state` could not have been reached by play (rule 3.11), or `None`.

    `state` must be well formed (the loaders read its fields one by one first;
    `check_invariants` checks its shape first).
    """
    for check in CHECKS:
        problem = check(state)
        if problem is not None:
            return problem
    return None


def impossibility(state: State) -> tuple[str, str, str] | None:
    """The first reason `state` is not loadable as `(code, JSON pointer, message)`, or `None`.

    `state_problem` told the way a loader reports it (`DecodeError.code`, `DecodeError.path`);
    `state` must be well formed (one grid, opening record and total per seat).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(2, seed=1)
        >>> impossibility(state) is None
        True
        >>> impossibility(state._replace(seq=5))[:2]
        ('impossible_state', '/seq')
    """
    problem = state_problem(state)
    return None if problem is None else (problem.code, problem.path, problem.message)


# -- the checks, in order ---------------------------------------------------------------------


def _swallowed_spaces(s: State) -> Problem | None:
    g = s.variant.geometry
    cells, gone, up = g.cells, s.swallowed_mask, s.face_up_mask
    if up & gone:
        return Problem("swallowed_spaces", "4.1", "/grids", "a swallowed space cannot be face up")
    players = len(s.totals)
    if gone:
        for p in range(players):
            mine = gone >> (p * cells) & g.full_mask
            for col, mask in enumerate(g.column_masks):
                part = mine & mask
                if part and part != mask:
                    return Problem("swallowed_spaces", "4.1", f"/grids/{p}",
                                   f"column {col} is only partly swallowed: a column is swallowed whole")
        for i, card in enumerate(s.cards):
            if gone >> i & 1 and card != 0:
                return Problem("swallowed_spaces", "4.1", f"/grids/{i // cells}/{i % cells}",
                               "a swallowed space holds no card")
    if s.phase is not Phase.GAME_OVER or s.variant.swallow_on_final_reveal:
        for p in range(players):
            for col in range(g.cols):
                if complete_column(g, p, col, s.cards, up) is not None:
                    return Problem("swallowed_spaces", "4.1", f"/grids/{p}/{col}",
                                   f"column {col} is face up with equal cards: it would have been swallowed "
                                   "(rule 4.1)")
    return None


def _history(s: State) -> Problem | None:
    v, history, players = s.variant, s.history, len(s.totals)
    live = s.phase is not Phase.GAME_OVER
    finished = s.round - 1 if live else s.round
    if len(history) != finished:
        return Problem("history", "6.6", "/history",
                       f"round {s.round} {'is being played' if live else 'was the last'}: the history must "
                       f"hold {finished} rounds, it holds {len(history)}")
    running = (0,) * players
    deck = _deck_counts(v)
    for n, result in enumerate(history):
        if (not isinstance(result, RoundResult) or result.round != n + 1 or len(result.scores) != players
                or len(result.grids) != players or len(result.totals) != players):
            return Problem("history", "6.6", f"/history/{n}", f"round result {n + 1} is {result!r}")
        running = tuple(t + score for t, score in zip(running, result.scores, strict=True))
        if result.totals != running:
            return Problem("history", "7.1", f"/history/{n}/totals",
                           f"round {n + 1}'s totals {list(result.totals)} are not the sums of the round "
                           f"scores {list(running)} (rule 7.1)")
        fewest = (v.cells - v.initial_flips) * players
        if not result.capped and result.turns < fewest:
            return Problem("history", "6.2", f"/history/{n}/turns",
                           f"round {n + 1} had a closer after {result.turns} turns, but its closer "
                           f"turned its {v.cells - v.initial_flips} face-down cards one a turn and every "
                           f"seat played after each of its turns: at least {fewest} turns (rules 6.1, 6.2)")
        if (n + 1 < len(history) or live) and game_is_over(v, n + 1, result.totals):
            return Problem("history", "7.2", f"/history/{n}/totals",
                           f"the game was over after round {n + 1} (rules 7.2, 7.3)")
        if _known_good(result, v, _COPIES):
            continue
        held: Counter[int | None] = Counter()
        for grid in result.grids:
            held.update(grid.cards)
        held.pop(None, None)
        for card, count in held.items():
            if count > deck.get(card, 0):  # type: ignore[arg-type]
                return Problem("history", "1.1", f"/history/{n}/grids",
                               f"round {n + 1}'s grids hold {count} cards of value {card}; the deck has "
                               f"{deck.get(card, 0)} (rule 1.1)")  # type: ignore[arg-type]
        _GOOD_ROUNDS.put((id(result), _COPIES), (result, v))
    if s.totals != running:
        return Problem("history", "7.1", "/totals",
                       "the totals must be those after the last finished round (rule 7.1)")
    return None


def _count_deck(v: Variant) -> dict[int, int]:
    return dict(v.deck)


_DECK_COUNTS: Final = Memo[Variant, dict[int, int]]("rules.reachable.decks", _count_deck, max_entries=16,
                                                    max_size=16 * 256, size=len)
"""How many cards of each value the deck of each of the last variants has (size: values)."""


def _deck_counts(v: Variant) -> dict[int, int]:
    """How many cards of each value the deck has (cached)."""
    return _DECK_COUNTS(v)


def _phase(s: State) -> Problem | None:
    v, phase, players = s.variant, s.phase, len(s.totals)
    playing = phase is Phase.TURN or phase is Phase.DRAWN
    if (phase is Phase.DRAWN) != (s.drawn is not None):
        return Problem("drawn_card", "3.4", "/drawn",
                       "a drawn card is held exactly in the drawn phase (rule 3.4)")
    turn = s.turn
    if (playing and (type(turn) is not int or not 0 <= turn < players)) or (not playing and turn is not None):
        return Problem("turn", "3.1", "/turn",
                       "turn names the player to act in the turn and drawn phases, else it is null")
    closer = s.closer
    if closer is not None and not 0 <= closer < players:
        return Problem("closer", "6.1", "/closer", f"closer {closer} is not a seat")
    need = v.initial_flips
    for p, flips in enumerate(s.opening):
        if len(flips) > need or (phase is not Phase.OPENING and len(flips) != need):
            return Problem("opening_flips", "2.1", f"/opening/{p}",
                           f"seat {p} made {len(flips)} opening flips; every seat makes exactly {need} "
                           "(rule 2.1)")
    cells = v.cells
    full = (1 << cells) - 1
    shown = s.face_up_mask | s.swallowed_mask
    if phase is Phase.OPENING:
        if all(len(flips) == need for flips in s.opening):
            return Problem("opening_flips", "2.2", "/phase",
                           "every opening flip is made: the opening is over (rule 2.2)")
        for p, flips in enumerate(s.opening):
            count = (shown >> (p * cells) & full).bit_count()
            if count != len(flips):
                return Problem("opening_flips", "2.1", f"/opening/{p}",
                               f"seat {p} has {count} face-up or swallowed spaces but made {len(flips)} "
                               "opening flips (rule 2.1)")
        if closer is not None:
            return Problem("closer", "6.1", "/closer", "nobody closes in the opening")
        if s.turns:
            return Problem("turns", "6.7", "/turns", "no turn is taken in the opening")
        return None
    if playing:
        return _play(s, shown, full)
    return _game_over(s)


def _play(s: State, shown: int, full: int) -> Problem | None:
    v, players, closer = s.variant, len(s.totals), s.closer
    cap = v.max_turns_per_round
    if cap is not None and s.turns >= cap:
        return Problem("turns", "6.7", "/turns", f"the round would have ended after {cap} turns (rule 6.7)")
    if v.max_rounds is not None and s.round > v.max_rounds:
        return Problem("history", "7.3", "/round",
                       f"this variant plays at most {v.max_rounds} rounds (rule 7.3)")
    cells, need = v.cells, v.initial_flips
    for p in range(players):
        mine = shown >> (p * cells) & full
        count = mine.bit_count()
        if count < need:
            # Cards turned face up stay face up (or are swallowed) until the round ends.
            return Problem("opening_flips", "2.1", f"/grids/{p}",
                           f"seat {p} made {need} opening flips but shows {count} spaces face up or "
                           "swallowed (rule 2.1)")
        hidden = mine != full
        if closer is None and not hidden:
            return Problem("closer", "6.1", "/closer",
                           f"seat {p} has no face-down card left, so the round has a closer (rule 6.1)")
        if p == closer and hidden:
            return Problem("closer", "6.1", "/closer",
                           f"the closer (seat {p}) has no face-down card left (rule 6.1)")
    if closer is not None and s.turn == closer:
        return Problem("closer", "6.2", "/turn",
                       "the round ends before the turn comes back to the closer (rule 6.2)")
    return None


def _game_over(s: State) -> Problem | None:
    v, last = s.variant, s.history[-1]
    if not game_is_over(v, s.round, s.totals):
        return Problem("game_over", "7.2", "/phase", "the game is not over after this round (rules 7.2, 7.3)")
    for p in range(len(s.totals)):
        if Grid.from_flat(v.rows, v.cols, s.cards, s.face_up_mask, s.swallowed_mask, p) != last.grids[p]:
            return Problem("game_over", "6.6", f"/grids/{p}",
                           "at the end of the game the grids are those of the last round's result (rule 6.6)")
    if s.closer != last.closer:
        return Problem("closer", "6.6", "/closer", "closer and turns are those of the last round's result")
    if s.turns != last.turns:
        return Problem("turns", "6.6", "/turns", "closer and turns are those of the last round's result")
    return None


def _discard_pile(s: State) -> Problem | None:
    if not s.discard_pile:
        return Problem("discard_pile", "1.4", "/discard_pile",
                       "the discard pile always holds a card (rules 1.4, 5.1, 5.2)")
    # A turn adds at most one card to the pile besides the cards of a column it swallows, and a
    # reshuffle leaves one (rules 3.3-3.6, 4.2, 5.1, 5.2); until the first turn of the round is
    # complete nothing is discarded: the pile is the card dealt onto it and the swallowed cards
    # (rules 1.4, 4.1). Which card was dealt onto it is not recorded: only the count is checked.
    swallowed = s.swallowed_mask.bit_count()
    most = 1 + swallowed + s.turns
    held = len(s.discard_pile)
    if s.turns == 0 and s.phase is not Phase.GAME_OVER and held != most:
        return Problem("discard_pile", "1.4", "/discard_pile",
                       f"before the first turn of the round is complete the discard pile holds the card "
                       f"dealt onto it and the swallowed cards ({most}), not {held} (rules 1.4, 4.1)")
    if held > most:
        return Problem("discard_pile", "3.11", "/discard_pile",
                       f"the discard pile holds {held} cards, but the card dealt onto it, the {swallowed} "
                       f"swallowed cards and one card a turn for {s.turns} turns make at most {most}")
    return None


def _cards(s: State) -> Problem | None:
    gone = s.swallowed_mask
    found = [card for i, card in enumerate(s.cards) if not gone >> i & 1] if gone else list(s.cards)
    found += s.draw_pile
    found += s.discard_pile
    if s.drawn is not None:
        found.append(s.drawn)
    found.sort()
    differ = deck_difference(found, s.variant.unshuffled_deck)
    if differ is not None:
        return Problem("card_conservation", "1.1", "",
                       f"the grids, piles and drawn card are not the variant's deck (rule 1.1): {differ}",
                       Code.CARDS_MISMATCH.value)
    return None


def _counters(s: State) -> Problem | None:
    for path, value in (("/seq", s.seq), ("/turns", s.turns)):
        if value >= COUNTER_LIMIT:
            return Problem("loadable", "3.12", path, f"a game takes fewer than 2**40 actions (rule 3.12), "
                                                     f"got {value}")
    most = WORDS_PER_ACTION * (s.seq + 1)
    if s.dealer.position > most:
        return Problem("loadable", "3.12", "/dealer/position",
                       f"a game of {s.seq} actions has consumed at most {most} words of the stream (4096 for "
                       f"the first deal and each action, rule 3.12), not {s.dealer.position}")
    return None


def _acting_seat(s: State) -> Problem | None:
    if s.turn is not None:
        cells = s.variant.cells
        if not ~(s.swallowed_mask >> (s.turn * cells)) & ((1 << cells) - 1):
            return Problem("loadable", "3.11", "/turn",
                           f"seat {s.turn} has every space swallowed: it could not act, and no such seat is "
                           "ever to act (rules 3.10, 6.1, 3.11)")
    return None


def _opening(s: State) -> Problem | None:
    values = _deck_counts(s.variant)
    for p, flips in enumerate(s.opening):
        for i, card in enumerate(flips):
            if card not in values:
                return Problem("loadable", "2.1", f"/opening/{p}/{i}",
                               f"{card} is not a card of the deck (rule 2.1)", Code.CARDS_MISMATCH.value)
    cells = s.variant.cells
    if s.phase is Phase.OPENING:
        for p, flips in enumerate(s.opening):
            base = p * cells
            shown = [s.cards[base + i] for i in range(cells) if s.face_up_mask >> (base + i) & 1]
            if Counter(shown) - Counter(flips):
                return Problem("loadable", "2.1", f"/opening/{p}",
                               f"seat {p}'s face-up cards {sorted(shown)} are not its opening flips "
                               f"{sorted(flips)} (rule 2.1)")
        return None
    if s.phase is Phase.GAME_OVER:
        return None
    opener = choose_opener(s.variant, s.opening, s.history)
    players = len(s.totals)
    expected = (opener + s.turns) % players
    if s.turn != expected:
        return Problem("loadable", "3.1", "/turn",
                       f"the opening flips choose seat {opener} to open (rules 2.3, 2.4) and {s.turns} turns "
                       f"were taken, so seat {expected} is to act, not {s.turn} (rule 3.1)")
    # Turn k of the round (from 0) was seat (opener + k) mod P's (rule 3.1), and a turn puts at
    # most one card face up, on its own seat's grid: seat by seat, what the grid shows is bounded.
    need, full, up = s.variant.initial_flips, (1 << cells) - 1, s.face_up_mask
    showing = up | s.swallowed_mask
    for p, flips in enumerate(s.opening):
        took = (s.turns - (p - opener) % players + players - 1) // players
        count = (showing >> (p * cells) & full).bit_count()
        if count > need + took:
            return Problem("loadable", "3.11", f"/grids/{p}",
                           f"seat {p} shows {count} spaces face up or swallowed, but its {need} opening "
                           f"flips and its {took} turns turn at most {need + took} (each turn turns one)")
        base = p * cells
        cards = [s.cards[base + i] for i in range(cells) if up >> (base + i) & 1]
        other = (Counter(cards) - Counter(flips)).total()
        if other > took:
            return Problem("loadable", "3.11", f"/grids/{p}",
                           f"{other} of seat {p}'s face-up cards are not among its opening flips "
                           f"{sorted(flips)}, but its {took} turns put at most {took} cards face up")
    return None


def _final_columns(s: State) -> Problem | None:
    if not s.variant.swallow_on_final_reveal:
        return None
    v = s.variant
    for n, result in enumerate(s.history):
        if _known_good(result, v, _COLUMNS):
            continue
        for p, grid in enumerate(result.grids):
            for col in range(grid.cols):
                spaces = range(col, grid.rows * grid.cols, grid.cols)
                if (all(grid.face_up[i] and not grid.swallowed[i] for i in spaces)
                        and len({grid.cards[i] for i in spaces}) == 1):
                    return Problem("loadable", "4.3", f"/history/{n}/grids/{p}",
                                   f"column {col} is face up with equal cards: the final reveal swallows it "
                                   "(rule 4.3)")
        _GOOD_ROUNDS.put((id(result), _COLUMNS), (result, v))
    return None


# A finished round's own checks (its cards against the deck, its columns against the final
# reveal) depend on the round result and the variant only, and the codec hands back the same
# result objects for the same text: each is checked once while it is remembered here. An entry
# holds its result, so its id cannot name another object while it is kept.
_COPIES: Final = 0
_COLUMNS: Final = 1
_GOOD_ROUNDS: Final = BoundedCache[tuple[int, int], tuple[RoundResult, Variant]](
    "rules.good_rounds", max_entries=1024, max_size=1024
)


def _known_good(result: RoundResult, v: Variant, which: int) -> bool:
    """Whether `result` passed the check `which` under variant `v` already."""
    found = _GOOD_ROUNDS.get((id(result), which))
    return found is not None and found[0] is result and found[1] is v


def _actions_taken(s: State) -> Problem | None:
    flips_per_round = len(s.totals) * s.variant.initial_flips
    low = high = 0
    for result in s.history:
        low += flips_per_round + result.turns
        high += flips_per_round + 2 * result.turns
    if s.phase is not Phase.GAME_OVER:
        made = sum(map(len, s.opening))
        held = 1 if s.phase is Phase.DRAWN else 0
        low += made + s.turns + held
        high += made + 2 * s.turns + held
    if not low <= s.seq <= high:
        return Problem("loadable", "3.11", "/seq",
                       f"a game with these rounds, flips and turns has taken {low} to {high} actions, not "
                       f"{s.seq} (rule 3.11)")
    return None


def _legal_actions(s: State) -> Problem | None:
    legal = legal_actions(s)
    if s.phase is Phase.GAME_OVER:
        if legal:
            return Problem("legal_actions", "7.5", "/phase",
                           f"{len(legal)} legal actions after the game is over")
        return None
    if not legal and s.seq < COUNTER_LIMIT - 1:  # a game at the bound takes no more actions (rule 3.12)
        return Problem("legal_actions", "3.11", "/phase",
                       f"no legal action in phase {s.phase.value}: the game is not over but nobody can act "
                       "(rule 3.11)")
    return None


CHECKS: Final[tuple[Callable[[State], Problem | None], ...]] = (
    _counters, _swallowed_spaces, _history, _phase, _discard_pile, _cards, _acting_seat, _opening,
    _final_columns, _actions_taken, _legal_actions,
)
"""The checks of `state_problem`, in the order they are asked."""
