"""The invariant checker: `check_invariants`.

Every state the engine produces passes it; a state that breaks an invariant raises
`InvariantError` (an `AssertionError`) naming it.
"""

from __future__ import annotations

from ..config import Variant
from ..errors import Code, InvalidStateError, InvariantError
from ..rules._dealing import player_count_problem
from ..rules._reachable import state_problem
from ..state import Phase, State

__all__ = ["InvariantError", "check_invariants", "need_state"]


def need_state(state: object, who: str) -> State:
    if type(state) is not State:
        raise InvalidStateError(Code.INVALID_STATE, f"{who} needs a State, got {type(state).__name__}")
    return state


def check_invariants(state: State) -> None:
    """Raise `InvariantError` naming the first invariant `state` breaks; return `None` if it
    breaks none.

    Every state the engine produces must pass. First `shape`: one grid, one opening record
    and one total per player, the player count in the variant's range (rule 1.3), masks
    within the grids, counters not negative. Then the rule function every loader asks too,
    `state_problem` (rule 3.11; its module lists the checks in order), whose problems are
    named `swallowed_spaces`, `history`, `drawn_card`, `turn`, `turns`, `opening_flips`,
    `closer`, `game_over`, `discard_pile`, `card_conservation`, `loadable` and
    `legal_actions`. Last `winners`: after the game, the winners are exactly the seats with
    the lowest total; before it, nobody (rule 7.4).

    Raises:
        InvalidStateError: code `invalid_state`, if `state` is not a
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
    problem = state_problem(s)  # the one answer to "could play reach this state?" (rule 3.11)
    if problem is not None:
        where = f"{problem.path}: " if problem.path else ""
        raise _fail(problem.invariant, f"{where}{problem.message}", problem.rule)
    over = s.phase is Phase.GAME_OVER
    expected = tuple(p for p, t in enumerate(s.totals) if t == min(s.totals)) if over else ()
    if s.winners != expected:
        raise _fail("winners", f"winners {s.winners} with totals {list(s.totals)}, expected {expected}",
                    "7.4")


def _fail(invariant: str, message: str, rule: str | None = None) -> InvariantError:
    return InvariantError(invariant, message, rule)


def _check_shape(s: State) -> None:
    v = s.variant
    if not isinstance(v, Variant):
        raise _fail("shape", f"variant is a {type(v).__name__}, not a Variant")
    if not isinstance(s.phase, Phase):
        raise _fail("shape", f"phase is {s.phase!r}, not a Phase")
    players = len(s.totals)
    problem = player_count_problem(v, players)
    if problem is not None:
        raise _fail("shape", problem, "1.3")
    if len(s.opening) != players:
        raise _fail("shape", f"{len(s.opening)} opening records for {players} players", "2.1")
    positions = players * v.cells
    if len(s.cards) != positions:
        raise _fail("shape", f"{len(s.cards)} grid cards for {players} grids of {v.cells} spaces", "1.2")
    up, gone = s.face_up_mask, s.swallowed_mask
    if up >> positions or gone >> positions or up < 0 or gone < 0:
        raise _fail("shape", "face-up or swallowed bits outside the grids", "1.2")
    if s.round < 1 or s.seq < 0 or s.turns < 0 or s.dealer.position < 0:
        raise _fail("shape", f"round {s.round}, seq {s.seq}, turns {s.turns}: round starts at 1, the "
                             "counters at 0")
