"""``apply``: the one way to move a game forward (spec section 3).

:func:`apply` checks the action itself -- each rule function first tests the
conditions of its rule and, if one fails, raises the error
:func:`~.illegal.diagnose` names -- so it never changes its input and never
returns a half-applied state. The property tests prove that it accepts
exactly the actions :func:`~.legal.legal_actions` lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..actions import DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..errors import AbyssError, Code, MalformedActionError
from ..state import State
from .illegal import diagnose, rejection
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
    """Apply ``action`` to ``state`` and return the new state; ``state`` is untouched.

    Raises :class:`~abyss_rules.IllegalActionError` (a ``ValueError``) with
    a stable ``code`` and the ``rule`` it enforces when the action is not
    legal now, and :class:`~abyss_rules.MalformedActionError` (a
    ``TypeError``) when it is not a well-formed action at all.

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
    """Whether ``action`` is legal, without raising.

    Returns ``None`` if it is, else the error :func:`apply` would raise.

    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=1)
    >>> ar.check(state, ar.Flip(0, 0, 0)) is None
    True
    >>> ar.check(state, ar.Flip(9, 0, 0)).code
    'no_such_player'
    """
    if type(state) is not State:
        return MalformedActionError(
            f"check() needs a State as its first argument, got {type(state).__name__}",
            code=Code.INVALID_STATE,
        )
    return diagnose(state, action)
