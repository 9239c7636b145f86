"""Rejected actions: every error code apply raises, with its rule, in the spec's order of checks
(spec section 3, "Rejecting an action"), and never a change to the state."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from tests.builders import finish_round, hand_built, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar
from abyss_rules.errors import RULE_OF_CODE, InvalidStateError

RULES = Path(ar.__file__).parent / "rules"

@cache
def opening() -> ar.State:
    """Seat 0 has made both its flips; seat 1 has flipped (0, 0) and owes one more."""
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    return play(state, [ar.Flip(0, 0, 0), ar.Flip(0, 0, 1), ar.Flip(1, 0, 0)])


@cache
def turn(flip_turn: bool = True) -> ar.State:
    """Seat 0 to play: column 0 swallowed (two 4s), (0, 1) face up, (1, 1) face down."""
    v = tiny(initial_flips=3, flip_turn=flip_turn)
    state = stacked(v, 2, grids=[[4, 9, 4, 2], [1, 2, 3, 5]], discard=6, draw=[7])
    state = open_round(state, [[(0, 0), (1, 0), (0, 1)], [(0, 0), (0, 1), (1, 0)]])
    assert state.turn == 0 and state.grid(0).swallowed == (True, False, True, False)
    return state


@cache
def drawn() -> ar.State:
    return ar.apply(turn(), ar.Draw(0))


@cache
def nothing_to_draw() -> ar.State:
    return hand_built(turn(), draw_pile=(), discard_pile=(6,))


@cache
def empty_discard() -> ar.State:
    return hand_built(turn(), discard_pile=())


@cache
def over() -> ar.State:
    return finish_round(stacked(tiny(max_rounds=1), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]]))


CASES: list[tuple[str, Callable[[], ar.State], ar.Action, str, str]] = [
    # name, state, action, code, rule
    ("over-flip", over, ar.Flip(0, 0, 0), "game_over", "7.5"),
    ("over-bad-seat", over, ar.Flip(9, 9, 9), "game_over", "7.5"),
    ("over-draw", over, ar.Draw(1), "game_over", "7.5"),
    ("opening-seat-2", opening, ar.Flip(2, 0, 0), "no_such_player", "1.3"),
    ("opening-seat-minus-1", opening, ar.Flip(-1, 0, 0), "no_such_player", "1.3"),
    ("turn-seat-2", turn, ar.Draw(2), "no_such_player", "1.3"),
    ("drawn-seat-9", drawn, ar.PlaceDrawn(9, 0, 0), "no_such_player", "1.3"),
    ("opening-draw", opening, ar.Draw(1), "wrong_phase", "3.2"),
    ("opening-take", opening, ar.TakeDiscard(1, 1, 1), "wrong_phase", "3.2"),
    ("opening-place", opening, ar.PlaceDrawn(1, 1, 1), "wrong_phase", "3.2"),
    ("opening-discard", opening, ar.DiscardDrawn(1, 1, 1), "wrong_phase", "3.2"),
    ("opening-draw-by-done-seat", opening, ar.Draw(0), "wrong_phase", "3.2"),  # 4 before 5
    ("turn-place", turn, ar.PlaceDrawn(0, 1, 1), "wrong_phase", "3.2"),
    ("turn-discard", turn, ar.DiscardDrawn(0, 1, 1), "wrong_phase", "3.2"),
    ("drawn-take", drawn, ar.TakeDiscard(0, 1, 1), "wrong_phase", "3.2"),
    ("drawn-flip", drawn, ar.Flip(0, 1, 1), "wrong_phase", "3.2"),
    ("drawn-draw", drawn, ar.Draw(0), "wrong_phase", "3.2"),
    ("opening-flip-owed-none", opening, ar.Flip(0, 1, 1), "no_flips_owed", "2.2"),
    ("opening-owed-none-before-space", opening, ar.Flip(0, 7, 7), "no_flips_owed", "2.2"),
    ("turn-other-draws", turn, ar.Draw(1), "not_your_turn", "3.9"),
    ("turn-other-takes", turn, ar.TakeDiscard(1, 1, 1), "not_your_turn", "3.9"),
    ("turn-other-flips", turn, ar.Flip(1, 1, 1), "not_your_turn", "3.9"),
    ("drawn-other-places", drawn, ar.PlaceDrawn(1, 1, 1), "not_your_turn", "3.9"),
    # the phase (check 4) before the player (check 5), outside the opening too
    ("turn-other-places", turn, ar.PlaceDrawn(1, 1, 1), "wrong_phase", "3.2"),
    ("turn-other-discards", turn, ar.DiscardDrawn(1, 1, 1), "wrong_phase", "3.2"),
    ("drawn-other-takes", drawn, ar.TakeDiscard(1, 1, 1), "wrong_phase", "3.2"),
    ("drawn-other-draws", drawn, ar.Draw(1), "wrong_phase", "3.2"),
    ("no-flip-turn", lambda: turn(False), ar.Flip(0, 1, 1), "flip_turn_disabled", "3.7"),
    ("no-flip-turn-before-space", lambda: turn(False), ar.Flip(0, 5, 5), "flip_turn_disabled", "3.7"),
    ("no-flip-turn-before-swallowed", lambda: turn(False), ar.Flip(0, 0, 0), "flip_turn_disabled", "3.7"),
    ("no-card", nothing_to_draw, ar.Draw(0), "no_card_to_draw", "5.4"),
    ("no-card-other-seat", nothing_to_draw, ar.Draw(1), "not_your_turn", "3.9"),
    ("discard-empty", empty_discard, ar.TakeDiscard(0, 1, 1), "discard_empty", "3.3"),
    ("opening-row-2", opening, ar.Flip(1, 2, 0), "no_such_space", "1.2"),
    ("opening-col-minus-1", opening, ar.Flip(1, 0, -1), "no_such_space", "1.2"),
    ("turn-take-col-2", turn, ar.TakeDiscard(0, 0, 2), "no_such_space", "1.2"),
    ("turn-flip-far", turn, ar.Flip(0, 10**9, 0), "no_such_space", "1.2"),
    ("drawn-place-row-minus-1", drawn, ar.PlaceDrawn(0, -1, 1), "no_such_space", "1.2"),
    ("drawn-discard-2-2", drawn, ar.DiscardDrawn(0, 2, 2), "no_such_space", "1.2"),
    ("turn-take-swallowed", turn, ar.TakeDiscard(0, 0, 0), "space_swallowed", "3.10"),
    ("turn-flip-swallowed", turn, ar.Flip(0, 1, 0), "space_swallowed", "3.10"),
    ("drawn-place-swallowed", drawn, ar.PlaceDrawn(0, 1, 0), "space_swallowed", "3.10"),
    ("drawn-discard-swallowed", drawn, ar.DiscardDrawn(0, 0, 0), "space_swallowed", "3.10"),
    ("opening-flip-face-up", opening, ar.Flip(1, 0, 0), "space_face_up", "3.10"),
    ("turn-flip-face-up", turn, ar.Flip(0, 0, 1), "space_face_up", "3.10"),
    ("drawn-discard-face-up", drawn, ar.DiscardDrawn(0, 0, 1), "space_face_up", "3.10"),
]


@pytest.mark.rule("1.2", "1.3", "2.2", "3.2", "3.3", "3.7", "3.9", "3.10", "5.4", "7.5")
@pytest.mark.parametrize(("name", "make", "action", "code", "rule"), CASES, ids=[c[0] for c in CASES])
def test_rejected_with_code_and_rule(
    name: str, make: Callable[[], ar.State], action: ar.Action, code: str, rule: str
) -> None:
    state = make()
    snapshot = tuple(state)
    error = rule_error(state, action)  # apply raises it, check returns the same, state unchanged
    assert isinstance(error, ar.IllegalActionError) and isinstance(error, ValueError)
    assert (error.code, error.rule) == (code, rule)
    assert error.rule == RULE_OF_CODE[ar.Code(code)]
    assert action not in ar.legal_actions(state)
    assert tuple(state) == snapshot


def test_every_code_apply_can_raise_is_covered() -> None:
    # the codes the engine's apply/check path names (rules/_illegal.py, rules/_engine.py)
    source = "".join((RULES / name).read_text(encoding="utf-8") for name in ("_illegal.py", "_engine.py"))
    named = {ar.Code[m].value for m in re.findall(r"Code\.([A-Z_]+)", source)} | {"malformed_action"}
    covered = {c[3] for c in CASES} | {"malformed_action", "invalid_state"}
    # illegal_action is only the engine's report of its own inconsistency: never raised by design
    assert named - {"illegal_action"} == covered
    assert "illegal_action" in named


@pytest.mark.rule("3.2", "3.10")
def test_the_same_actions_are_legal_where_the_cases_are_not() -> None:
    assert ar.check(turn(), ar.Flip(0, 1, 1)) is None
    assert ar.check(turn(), ar.TakeDiscard(0, 0, 1)) is None  # face up is fine for a take
    assert ar.check(drawn(), ar.PlaceDrawn(0, 0, 1)) is None
    assert ar.check(drawn(), ar.DiscardDrawn(0, 1, 1)) is None
    assert ar.check(opening(), ar.Flip(1, 1, 1)) is None
    assert ar.check(nothing_to_draw(), ar.TakeDiscard(0, 1, 1)) is None


# -- malformed actions and states ------------------------------------------------------------------


class Unhashable:
    __hash__ = None  # type: ignore[assignment]


NOT_ACTIONS: list[Any] = [
    None, "Draw(0)", "flip", 42, 1.5, True, b"draw", [], [0, 0, 0], {}, {"player": 0}, set(), (0, 0, 0),
    Unhashable(), object(), ar.Flip, ar.Draw, ar.Phase.TURN,
]


@pytest.mark.parametrize("make", [opening, turn, drawn, over], ids=lambda f: f.__name__)
@pytest.mark.parametrize("thing", NOT_ACTIONS, ids=lambda t: type(t).__name__)
def test_not_an_action_is_malformed(make: Callable[[], ar.State], thing: Any) -> None:
    state = make()
    error = rule_error(state, thing)  # before game_over too: check 1 comes first
    assert isinstance(error, ar.MalformedActionError) and isinstance(error, TypeError)
    assert (error.code, error.rule) == ("malformed_action", None)


def test_a_subclass_of_an_action_is_malformed() -> None:
    class MyDraw(ar.Draw):
        pass

    error = rule_error(turn(), MyDraw(0))
    assert error.code == "malformed_action"


def _forged(action: ar.Action, field: str, value: Any) -> ar.Action:
    """An action with a field set past its constructor's check."""
    object.__setattr__(action, field, value)
    return action


FORGED = [
    ("opening-player-none", opening, lambda: _forged(ar.Flip(1, 1, 1), "player", None)),
    ("opening-player-str", opening, lambda: _forged(ar.Flip(1, 1, 1), "player", "1")),
    ("opening-player-float", opening, lambda: _forged(ar.Flip(1, 1, 1), "player", 0.5)),
    ("opening-row-str", opening, lambda: _forged(ar.Flip(1, 1, 1), "row", "1")),
    ("opening-col-list", opening, lambda: _forged(ar.Flip(1, 1, 1), "col", [1])),
    ("turn-row-none", turn, lambda: _forged(ar.TakeDiscard(0, 1, 1), "row", None)),
    ("turn-col-float", turn, lambda: _forged(ar.Flip(0, 1, 1), "col", 1.5)),
    ("turn-draw-player-none", turn, lambda: _forged(ar.Draw(0), "player", None)),
    ("drawn-row-list", drawn, lambda: _forged(ar.PlaceDrawn(0, 1, 1), "row", [1])),
    ("drawn-col-none", drawn, lambda: _forged(ar.DiscardDrawn(0, 1, 1), "col", None)),
]


@pytest.mark.parametrize(("name", "make", "forge"), FORGED, ids=[f[0] for f in FORGED])
def test_forged_non_int_fields_are_malformed(name: str, make: Callable[[], ar.State],
                                             forge: Callable[[], ar.Action]) -> None:
    error = rule_error(make(), forge())
    assert isinstance(error, ar.MalformedActionError)
    assert (error.code, error.rule) == ("malformed_action", None)


# Fields forged to a value equal to the int they replace (True == 1, 1.0 == 1): each would name a
# legal space or seat, so only their type is wrong. apply refuses them as check() does.
INT_LIKE = [
    ("opening-row", opening, lambda v: _forged(ar.Flip(1, 1, 1), "row", v)),
    ("opening-col", opening, lambda v: _forged(ar.Flip(1, 1, 1), "col", v)),
    ("opening-player", opening, lambda v: _forged(ar.Flip(1, 1, 1), "player", v)),
    ("turn-take-row", turn, lambda v: _forged(ar.TakeDiscard(0, 1, 1), "row", v)),
    ("turn-take-col", turn, lambda v: _forged(ar.TakeDiscard(0, 1, 1), "col", v)),
    ("turn-flip-row", turn, lambda v: _forged(ar.Flip(0, 1, 1), "row", v)),
    ("turn-flip-col", turn, lambda v: _forged(ar.Flip(0, 1, 1), "col", v)),
    ("drawn-place-row", drawn, lambda v: _forged(ar.PlaceDrawn(0, 1, 1), "row", v)),
    ("drawn-place-col", drawn, lambda v: _forged(ar.PlaceDrawn(0, 1, 1), "col", v)),
    ("drawn-discard-row", drawn, lambda v: _forged(ar.DiscardDrawn(0, 1, 1), "row", v)),
    ("drawn-discard-col", drawn, lambda v: _forged(ar.DiscardDrawn(0, 1, 1), "col", v)),
]
# Seat 0 acts in the turn and drawn phases: its int-like forgeries are False and 0.0.
SEAT_ZERO = [
    ("turn-take-player", turn, lambda v: _forged(ar.TakeDiscard(0, 1, 1), "player", v)),
    ("turn-flip-player", turn, lambda v: _forged(ar.Flip(0, 1, 1), "player", v)),
    ("turn-draw-player", turn, lambda v: _forged(ar.Draw(0), "player", v)),
    ("drawn-place-player", drawn, lambda v: _forged(ar.PlaceDrawn(0, 1, 1), "player", v)),
    ("drawn-discard-player", drawn, lambda v: _forged(ar.DiscardDrawn(0, 1, 1), "player", v)),
]


@pytest.mark.parametrize("value", [True, 1.0], ids=repr)
@pytest.mark.parametrize(("name", "make", "forge"), INT_LIKE, ids=[f[0] for f in INT_LIKE])
def test_forged_int_like_fields_are_malformed(name: str, make: Callable[[], ar.State],
                                              forge: Callable[[Any], ar.Action], value: Any) -> None:
    state = make()
    assert ar.check(state, forge(1)) is None  # the same action with the int itself is legal
    error = rule_error(state, forge(value))
    assert isinstance(error, ar.MalformedActionError)
    assert (error.code, error.rule) == ("malformed_action", None)


@pytest.mark.parametrize("value", [False, 0.0], ids=repr)
@pytest.mark.parametrize(("name", "make", "forge"), SEAT_ZERO, ids=[f[0] for f in SEAT_ZERO])
def test_forged_int_like_seat_zero_is_malformed(name: str, make: Callable[[], ar.State],
                                                forge: Callable[[Any], ar.Action], value: Any) -> None:
    state = make()
    assert ar.check(state, forge(0)) is None
    error = rule_error(state, forge(value))
    assert (type(error), error.code) == (ar.MalformedActionError, "malformed_action")


@pytest.mark.parametrize("thing", [None, "state", (), [], 42], ids=repr)
def test_apply_to_something_that_is_not_a_state(thing: Any) -> None:
    with pytest.raises(InvalidStateError) as caught:
        ar.apply(thing, ar.Draw(0))
    assert (caught.value.code, caught.value.rule) == ("invalid_state", None)
    reported = ar.check(thing, ar.Draw(0))
    assert reported is not None and reported.code == "invalid_state"


def test_a_plain_tuple_of_a_state_is_not_a_state() -> None:
    with pytest.raises(InvalidStateError) as caught:
        ar.apply(tuple(turn()), ar.Draw(0))  # type: ignore[arg-type]
    assert caught.value.code == "invalid_state"


@pytest.mark.rule("3.5", "3.6")
@pytest.mark.parametrize("action", [ar.PlaceDrawn(0, 1, 1), ar.DiscardDrawn(0, 1, 1)], ids=repr)
def test_a_drawn_phase_forged_without_its_card_is_refused_not_filled_with_none(action: ar.Action) -> None:
    forged = drawn()._replace(drawn=None)
    with pytest.raises(ar.IllegalActionError) as caught:
        ar.apply(forged, action)
    # diagnose finds no rule broken, so it is refused as an engine-level illegal action
    assert caught.value.code == "illegal_action"
