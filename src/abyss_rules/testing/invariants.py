"""The invariant checker: `check_invariants`.

Every state the engine produces passes it; a state that breaks an invariant raises
`InvariantError` (an `AssertionError`) naming it.
"""

from __future__ import annotations

from collections import Counter

from ..config import Variant
from ..errors import Code, InvalidStateError, InvariantError
from ..loadability import impossibility
from ..rules.columns import complete_column
from ..rules.legal import legal_actions as _legal_actions
from ..state import Phase, RoundResult, State

__all__ = ["InvariantError", "check_invariants", "need_state"]


def need_state(state: object, who: str) -> State:
    if type(state) is not State:
        raise InvalidStateError(Code.INVALID_STATE, f"{who} needs a State, got {type(state).__name__}")
    return state


def check_invariants(state: State) -> None:
    """Raise `InvariantError` naming the first invariant `state` breaks; return `None` if it
    breaks none.

    Every state the engine produces must pass. The invariants, in the order
    they are checked (the name is `InvariantError.invariant`):

    * `shape`: one grid, one opening record and one total per player, the
      player count in the variant's range (rule 1.3), masks within the grids;
    * `swallowed_spaces`: a swallowed space holds 0 and is not face up,
      swallowed spaces form whole columns, and no column is face up and all
      equal without being swallowed (rule 4.1; after the game only with
      `swallow_on_final_reveal`, rule 4.3);
    * `card_conservation`: the cards on the grids (swallowed spaces
      excluded), the draw pile, the discard pile and the drawn card are
      exactly the deck, as a multiset (rules 1.1, 1.4);
    * `discard_pile`: the discard pile is never empty (rules 1.4, 5.1, 5.2);
    * `drawn_card`: a drawn card is held exactly in the drawn phase (rule 3.4);
    * `turn`: `turn` is a seat in the turn and drawn phases, else `-1` (rule 3.1);
    * `turns`: no turn is completed in the opening; while a round is played,
      fewer turns than the stalling cap (rule 6.7);
    * `opening_flips`: nobody makes more than `initial_flips` opening flips;
      in the opening someone still owes one and each player's face-up and
      swallowed spaces are exactly their flips; after it, all are made
      (rules 2.1, 2.2);
    * `closer`: no closer in the opening; the closer has no face-down card
      and is not to play; with no closer, everybody still has a face-down
      card (rules 6.1, 6.2); after the game, the closer is the last round's;
    * `history`: one round result per finished round, with cumulative totals
      that are the state's totals, and no round after the game was over
      (rules 6.6, 7.1, 7.2);
    * `game_over`: once the game is over, every remaining card is face up
      (rule 6.3) and an end condition holds (rules 7.2, 7.3);
    * `legal_actions`: there is a legal action exactly when the game is not
      over (rules 3.2, 7.5);
    * `winners`: after the game, the winners are exactly the seats with the
      lowest total; before it, nobody (rule 7.4);
    * `loadable`: what the loaders check too (rule 3.11, see `abyss_rules.loadability`): the
      seat to act can act, the opening flips are cards of the deck and chose the opener, no
      finished grid shows a column the final reveal would have swallowed, `seq` fits the flips
      and turns taken, and the counters are below 2**48.

    Raises:
        MalformedActionError: code `invalid_state`, if `state` is not a
            `State`.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=5)
        >>> check_invariants(state)
        >>> try:
        ...     check_invariants(state._replace(draw_pile=state.draw_pile[1:]))   # lose a card
        ... except InvariantError as error:
        ...     print(error.invariant, error.rule)
        card_conservation 1.1
    """
    s = need_state(state, "check_invariants()")
    _check_shape(s)
    _check_cards(s)
    _check_phase(s)
    _check_results(s)
    problem = impossibility(s)  # the loaders' own check of reachability (rule 3.11)
    if problem is not None:
        _, path, message = problem
        raise _fail("loadable", f"{path}: {message}", "3.11")


def _fail(invariant: str, message: str, rule: str | None = None) -> InvariantError:
    return InvariantError(invariant, message, rule)


def _check_shape(s: State) -> None:
    v = s.variant
    if not isinstance(v, Variant):
        raise _fail("shape", f"variant is a {type(v).__name__}, not a Variant")
    if not isinstance(s.phase, Phase):
        raise _fail("shape", f"phase is {s.phase!r}, not a Phase")
    players = len(s.totals)
    if not v.min_players <= players <= v.max_players:
        raise _fail("shape", f"{players} totals: the variant takes {v.min_players} to "
                             f"{v.max_players} players", "1.3")
    if len(s.opening) != players:
        raise _fail("shape", f"{len(s.opening)} opening records for {players} players", "2.1")
    positions = players * v.cells
    if len(s.cards) != positions:
        raise _fail("shape", f"{len(s.cards)} grid cards for {players} grids of {v.cells} spaces", "1.2")
    if s.face_up >> positions or s.swallowed >> positions or s.face_up < 0 or s.swallowed < 0:
        raise _fail("shape", "face-up or swallowed bits outside the grids", "1.2")
    if s.round < 1 or s.seq < 0:
        raise _fail("shape", f"round {s.round}, seq {s.seq}: round starts at 1, seq at 0")


def _check_cards(s: State) -> None:
    v = s.variant
    g = v.geometry
    cells = g.cells
    gone = s.swallowed
    if s.face_up & gone:
        raise _fail("swallowed_spaces", "a swallowed space is face up", "4.1")
    for p in range(len(s.totals)):
        mine = gone >> (p * cells) & g.full_mask
        for col, mask in enumerate(g.column_masks):
            part = mine & mask
            if part and part != mask:
                raise _fail("swallowed_spaces", f"seat {p}: column {col} is only partly swallowed", "4.1")
    for i, card in enumerate(s.cards):
        if gone >> i & 1 and card != 0:
            raise _fail("swallowed_spaces", f"swallowed position {i} holds {card}, not 0", "4.1")
    if s.phase is not Phase.GAME_OVER or v.swallow_on_final_reveal:
        for p in range(len(s.totals)):
            for col in range(g.cols):
                value = complete_column(g, p, col, s.cards, s.face_up)
                if value is not None:
                    raise _fail("swallowed_spaces", f"seat {p}: column {col} is face up and all "
                                                    f"{value}, but not swallowed", "4.1")
    in_play: Counter[int] = Counter(card for i, card in enumerate(s.cards) if not gone >> i & 1)
    in_play.update(s.draw_pile)
    in_play.update(s.discard_pile)
    if s.drawn is not None:
        in_play[s.drawn] += 1
    deck = Counter(v.unshuffled_deck)
    if in_play != deck:
        missing = sorted((deck - in_play).elements())
        extra = sorted((in_play - deck).elements())
        raise _fail("card_conservation",
                    f"the cards in play are not the deck: missing {missing}, extra {extra}", "1.1")
    if not s.discard_pile:
        raise _fail("discard_pile", "the discard pile is empty", "1.4")


def _check_phase(s: State) -> None:
    v = s.variant
    phase = s.phase
    players = len(s.totals)
    playing = phase is Phase.TURN or phase is Phase.DRAWN
    if (s.drawn is not None) != (phase is Phase.DRAWN):
        raise _fail("drawn_card", f"phase {phase.value} with drawn card {s.drawn!r}", "3.4")
    if playing:
        if not 0 <= s.turn < players:
            raise _fail("turn", f"phase {phase.value} with turn {s.turn} in a {players}-player game", "3.1")
    elif s.turn != -1:
        raise _fail("turn", f"phase {phase.value} with turn {s.turn}, not -1", "3.1")
    cap = v.max_turns_per_round
    if phase is Phase.OPENING and s.turns != 0:
        raise _fail("turns", f"{s.turns} turns completed in the opening", "6.7")
    if playing and cap is not None and not 0 <= s.turns < cap:
        raise _fail("turns", f"{s.turns} turns completed in a round capped at {cap}", "6.7")
    need = v.initial_flips
    counts = [len(flips) for flips in s.opening]
    if any(n > need for n in counts):
        raise _fail("opening_flips", f"opening flips {counts}: more than {need}", "2.2")
    if phase is Phase.OPENING:
        if all(n == need for n in counts):
            raise _fail("opening_flips", f"phase opening but every flip is made ({counts})", "2.1")
        cells = v.cells
        for p, n in enumerate(counts):
            shown = ((s.face_up | s.swallowed) >> (p * cells) & v.geometry.full_mask).bit_count()
            if shown != n:
                raise _fail("opening_flips", f"seat {p} made {n} opening flips but shows {shown} spaces "
                                             "face up or swallowed", "2.1")
    elif any(n != need for n in counts):
        raise _fail("opening_flips", f"phase {phase.value} with opening flips owed ({counts})", "2.1")
    closer = s.closer
    if closer is not None and not 0 <= closer < players:
        raise _fail("closer", f"closer {closer} is not a seat", "6.1")
    if phase is Phase.OPENING and closer is not None:
        raise _fail("closer", f"closer {closer} during the opening", "6.1")
    if playing and closer is not None:
        if s.face_down_count(closer) != 0:
            raise _fail("closer", f"closer {closer} still has a face-down card", "6.1")
        if s.turn == closer:
            raise _fail("closer", f"closer {closer} is to play again", "6.2")
    if phase is not Phase.GAME_OVER and closer is None:
        for p in range(players):
            if s.face_down_count(p) == 0:
                raise _fail("closer", f"seat {p} has no face-down card but nobody closed the round", "6.1")


def _check_results(s: State) -> None:
    v = s.variant
    players = len(s.totals)
    over = s.phase is Phase.GAME_OVER
    history = s.history
    finished = s.round if over else s.round - 1
    if len(history) != finished:
        raise _fail("history", f"round {s.round} ({s.phase.value}) with {len(history)} round results", "6.6")
    running = (0,) * players
    for n, result in enumerate(history, start=1):
        if not isinstance(result, RoundResult) or result.round != n:
            raise _fail("history", f"round result {n} is {result!r}", "6.6")
        if len(result.scores) != players or len(result.raw_scores) != players or len(result.grids) != players:
            raise _fail("history", f"round {n} has results for the wrong number of players", "6.6")
        running = tuple(t + score for t, score in zip(running, result.scores, strict=True))
        if result.totals != running:
            raise _fail("history", f"round {n} totals {list(result.totals)} are not the sum of the round "
                                   f"scores {list(running)}", "7.1")
        if (n < len(history) or not over) and _game_ends(v, n, result.totals):
            raise _fail("history", f"the game went on after round {n} although it was over", "7.2")
    if s.totals != running:
        raise _fail("history", f"totals {list(s.totals)} are not the sum of the round scores "
                               f"{list(running)}", "7.1")
    if over:
        full = (1 << players * v.cells) - 1
        if (s.face_up | s.swallowed) != full:
            raise _fail("game_over", "a card is still face down after the game", "6.3")
        if not _game_ends(v, s.round, s.totals):
            raise _fail("game_over", f"the game is over after round {s.round} with totals {list(s.totals)}, "
                                     "but no end condition holds", "7.2")
        if s.closer != history[-1].closer:
            raise _fail("closer", f"closer {s.closer} is not the last round's ({history[-1].closer})", "6.6")
    legal = _legal_actions(s)
    if over and legal:
        raise _fail("legal_actions", f"{len(legal)} legal actions after the game is over", "7.5")
    if not over and not legal:
        raise _fail("legal_actions", f"no legal action in phase {s.phase.value}", "3.2")
    expected = tuple(p for p, t in enumerate(s.totals) if t == min(s.totals)) if over else ()
    if s.winners != expected:
        raise _fail("winners", f"winners {s.winners} with totals {list(s.totals)}, expected {expected}",
                    "7.4")


def _game_ends(v: Variant, round_number: int, totals: tuple[int, ...]) -> bool:
    """Rules 7.2 and 7.3, restated."""
    if v.max_rounds is not None and round_number >= v.max_rounds:
        return True
    return v.target_score is not None and max(totals) >= v.target_score
