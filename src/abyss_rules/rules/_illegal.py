"""Why an action is not legal: the error for each broken rule (spec sections 2, 3, 5, 7).

`diagnose` returns the error `apply` raises for an action that
`legal_actions` does not list, or `None` for a legal action. The
checks go from the most general to the most specific, so each
illegal action gets exactly one, stable code; the bound of the
counters (rule 3.12) is the last.
"""

from __future__ import annotations

from ..actions import ACTION_TYPES, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..errors import AbyssError, Code, IllegalActionError, InvalidStateError, MalformedActionError
from ..state import COUNTER_LIMIT, Phase, State, counter_limit
from ._draw_pile import can_draw

__all__ = ["diagnose", "not_a_state", "rejection"]

_FIELDS: dict[type, tuple[str, ...]] = {Draw: ("player",)}
_SPACE_FIELDS = ("player", "row", "col")
_WORD = {
    Flip: "flip", TakeDiscard: "take the discard", Draw: "draw",
    PlaceDrawn: "place a drawn card", DiscardDrawn: "discard a drawn card",
}


def _illegal(code: Code, message: str) -> IllegalActionError:
    return IllegalActionError(code, message)


def diagnose(state: State, action: object) -> AbyssError | None:
    """The error that applying `action` to `state` raises, or `None` if it is legal.

    The checks are made in the order of spec section 3, "Rejecting an action".

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> diagnose(state, ar.Draw(0)).code
        'wrong_phase'
        >>> diagnose(state, ar.Flip(0, 5, 0)).code
        'no_such_space'
        >>> diagnose(state, ar.Flip(0, 0, 0)) is None
        True
    """
    kind = type(action)
    if kind not in ACTION_TYPES:
        return MalformedActionError(
            f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), got {kind.__name__}"
        )
    for name in _FIELDS.get(kind, _SPACE_FIELDS):
        value = getattr(action, name)
        if type(value) is not int:
            return MalformedActionError(f"{kind.__name__}.{name} must be an int, got {value!r}")
    v = state.variant
    phase = state.phase
    player: int = action.player  # type: ignore[attr-defined]
    if phase is Phase.GAME_OVER:
        return _illegal(Code.GAME_OVER, "the game is over: no action is legal")
    if not 0 <= player < state.players:
        return _illegal(Code.NO_SUCH_PLAYER, f"there is no seat {player} in a {state.players}-player game")
    if phase is Phase.OPENING:
        if kind is not Flip:
            return _illegal(Code.WRONG_PHASE, f"the round is in its opening: only opening flips are legal, "
                                              f"seat {player} cannot {_WORD[kind]}")
        if len(state.opening[player]) >= v.initial_flips:
            return _illegal(Code.NO_FLIPS_OWED, f"seat {player} has already made its "
                                                f"{v.initial_flips} opening flips")
    else:
        # Spec section 3, "Rejecting an action": the phase (check 4) before the turn (check 5).
        if phase is Phase.TURN:
            if kind is PlaceDrawn or kind is DiscardDrawn:
                return _illegal(Code.WRONG_PHASE, f"seat {state.turn} holds no drawn card: draw first")
        elif kind is not PlaceDrawn and kind is not DiscardDrawn:
            return _illegal(Code.WRONG_PHASE, f"seat {state.turn} holds a drawn card to place or discard: "
                                              f"seat {player} cannot {_WORD[kind]}")
        if player != state.turn:
            return _illegal(Code.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {player}'s")
        if phase is Phase.TURN:
            if kind is Flip and not v.flip_turn:
                return _illegal(Code.FLIP_TURN_DISABLED,
                                "this variant has no flip-only turn (flip_turn is off)")
            if kind is Draw and not can_draw(state.draw_pile, state.discard_pile):
                return _illegal(Code.NO_CARD_TO_DRAW, "the draw pile is empty and the discard pile "
                                                      "is too small to reshuffle")
            if kind is TakeDiscard and not state.discard_pile:
                return _illegal(Code.DISCARD_EMPTY, "the discard pile is empty")
    if kind is Draw:
        return _at_the_bound(state)
    row: int = action.row  # type: ignore[attr-defined]
    col: int = action.col  # type: ignore[attr-defined]
    if not (0 <= row < v.rows and 0 <= col < v.cols):
        return _illegal(Code.NO_SUCH_SPACE, f"there is no space ({row}, {col}) in a {v.rows}x{v.cols} grid")
    bit = 1 << (player * v.cells + row * v.cols + col)
    if state.swallowed_mask & bit:
        return _illegal(Code.SPACE_SWALLOWED, f"space ({row}, {col}) of seat {player} was swallowed")
    if (kind is Flip or kind is DiscardDrawn) and state.face_up_mask & bit:
        return _illegal(Code.SPACE_FACE_UP, f"space ({row}, {col}) of seat {player} is already face up: "
                                            "only a face-down card can be flipped")
    return _at_the_bound(state)


def _at_the_bound(state: State) -> AbyssError | None:
    """The last check: a game that has taken `COUNTER_LIMIT - 1` actions takes no more (rule 3.12)."""
    return counter_limit() if state.seq >= COUNTER_LIMIT - 1 else None


def rejection(state: object, action: object) -> AbyssError:
    """The error to raise for an action a rule function refused.

    It is the error `diagnose` names, or `illegal_action` if `diagnose` finds the action legal
    (a bug in the engine, reported as such).

    Examples:
        >>> import abyss_rules as ar
        >>> rejection(ar.new_game(seed=1), ar.Draw(0)).code
        'wrong_phase'
        >>> rejection("not a state", ar.Draw(0)).code
        'invalid_state'
    """
    if type(state) is not State:
        return not_a_state("apply", state)
    error = diagnose(state, action)
    if error is None:  # a rule function and diagnose disagree: a bug, reported as such
        return IllegalActionError(Code.ILLEGAL_ACTION, f"{action!r} is not legal in this state")
    return error


def not_a_state(function: str, value: object) -> InvalidStateError:
    """The error for a first argument of `apply` or `check` that is not a `State` (code `invalid_state`)."""
    return InvalidStateError(Code.INVALID_STATE,
                             f"{function}() needs a State as its first argument, got {type(value).__name__}")
