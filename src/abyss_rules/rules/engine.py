"""`apply`: the one way to move a game forward (spec section 3).

[`apply`][abyss_rules.apply] checks the action itself -- each rule function first tests the
conditions of its rule and, if one fails, raises the error
[`diagnose`][abyss_rules.rules.illegal.diagnose] names -- so it never changes its input and never
returns a half-applied state. The property tests check that it accepts
exactly the actions [`legal_actions`][abyss_rules.legal_actions] lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..actions import DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..errors import AbyssError
from ..state import State
from .illegal import diagnose, not_a_state, rejection
from .turn import discard_drawn, draw, flip, place_drawn, take_discard

__all__ = ["apply", "check"]

_HANDLERS: Final[dict[type, Callable[[State, Any], State]]] = {
    Flip: flip,
    TakeDiscard: take_discard,
    Draw: draw,
    PlaceDrawn: place_drawn,
    DiscardDrawn: discard_drawn,
}


def apply(state: State, action: object) -> State:
    """Apply `action` to `state` and return the new state; `state` is untouched.

    When the action ends a round, the returned state is already the opening of the
    next round (or the game's end); the finished round is in `history` (rule 6.6).

    Args:
        state: The game state.
        action: One of the five actions, naming the acting player.

    Returns:
        The state after the action.

    Raises:
        IllegalActionError: The action is not legal now (a `ValueError`); its `code` is
            stable and `rule` names the rule it enforces (spec section 3, "Rejecting an
            action", gives the order of the checks).
        MalformedActionError: It is not a well-formed action at all (a `TypeError`), or
            `state` is not a [`State`][abyss_rules.State] (code `invalid_state`).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> after = ar.apply(state, ar.Flip(0, 0, 0))
        >>> after.face_up, state.face_up
        (1, 0)
        >>> try:
        ...     ar.apply(state, ar.Draw(0))
        ... except ar.IllegalActionError as error:
        ...     print(error.code, error.rule)
        wrong_phase 3.2
    """
    handler = _HANDLERS.get(type(action))
    if handler is None or type(state) is not State:
        raise rejection(state, action)
    try:
        return handler(state, action)
    except AbyssError:
        raise
    except TypeError:  # a field forged past the action's own check (e.g. None): malformed_action
        raise rejection(state, action) from None


def check(state: State, action: object) -> AbyssError | None:
    """Whether `action` is legal, without raising.

    Returns `None` if it is, else the error [`apply`][abyss_rules.apply] would raise.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> ar.check(state, ar.Flip(0, 0, 0)) is None
        True
        >>> ar.check(state, ar.Flip(9, 0, 0)).code
        'no_such_player'
    """
    if type(state) is not State:
        return not_a_state("check", state)
    return diagnose(state, action)
