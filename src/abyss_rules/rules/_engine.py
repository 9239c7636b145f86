"""`apply`: the one way to move a game forward (spec section 3).

`apply` checks the action itself -- each rule function first tests the
conditions of its rule and, if one fails, raises the error `diagnose`
names -- so it never changes its input and never returns a
half-applied state. The property tests check that it accepts exactly
the actions `legal_actions` lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .._event_types import Event
from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..errors import AbyssError
from ..state import COUNTER_LIMIT, State, counter_limit
from ._illegal import diagnose, not_a_state, rejection
from ._turn import discard_drawn, draw, flip, place_drawn, take_discard

__all__ = ["apply", "apply_with_events", "check"]

_HANDLERS: Final[dict[type, Callable[[State, Any, list[Event] | None], State]]] = {
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
            action", gives the order of the checks). Code `counter_limit` (rule 3.12, the last
            check): the game has taken 2**40 - 1 actions, the most a game may take, which no
            real game comes near; `legal_actions` then lists nothing.
        MalformedActionError: It is not a well-formed action at all (a `TypeError`).
        InvalidStateError: `state` is not a `State` (code `invalid_state`; a `TypeError`).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> after = ar.apply(state, ar.Flip(0, 0, 0))
        >>> after.face_up[0], state.face_up[0]
        (True, False)
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
        after = handler(state, action, None)
    except AbyssError:
        raise
    except TypeError:  # a field forged past the action's own check (e.g. None): malformed_action
        raise rejection(state, action) from None
    if after.seq >= COUNTER_LIMIT:  # the last check of section 3 (rule 3.12), from public `seq` alone
        raise counter_limit()
    return after


def apply_with_events(state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply `action` like `apply`; also return the events it caused, in order.

    Raises exactly what `apply` raises. The events are reported by the rule functions as
    they apply the action (the same functions `apply` runs), so applying them to the old
    view gives the new one.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=3)
        >>> for action in [ar.Flip(0, 0, 0), ar.Flip(0, 0, 1), ar.Flip(1, 0, 0)]:
        ...     state = ar.apply(state, action)
        >>> state, events = ar.apply_with_events(state, ar.Flip(1, 2, 3))
        >>> [event.TYPE for event in events]
        ['card_revealed', 'opening_done']
    """
    handler = _HANDLERS.get(type(action))
    if handler is None or type(state) is not State:
        raise rejection(state, action)
    log: list[Event] = []
    try:
        after = handler(state, action, log)
    except TypeError as error:  # as in apply: a field forged past the action's own check
        if isinstance(error, AbyssError):
            raise
        raise rejection(state, action) from None
    if after.seq >= COUNTER_LIMIT:
        raise counter_limit()
    return after, tuple(log)


def check(state: State, action: object) -> AbyssError | None:
    """Whether `action` is legal, without raising.

    Returns `None` if it is, else the error `apply` would raise.

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
