"""Actions: the five moves of spec section 3, as small frozen values."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import abyss_rules as ar
from abyss_rules.actions import ACTION_TYPES

SPACE_ACTIONS = (ar.Flip, ar.TakeDiscard, ar.PlaceDrawn, ar.DiscardDrawn)


@pytest.mark.rule("3.2")
def test_the_five_actions_in_canonical_order() -> None:
    expected = (ar.Flip, ar.TakeDiscard, ar.Draw, ar.PlaceDrawn, ar.DiscardDrawn)
    assert expected == ACTION_TYPES
    kinds = [t.KIND for t in ACTION_TYPES]
    assert kinds == ["flip", "take_discard", "draw", "place_drawn", "discard_drawn"]


@pytest.mark.rule("3.9", "1.2")
def test_every_action_names_its_player_and_space_actions_a_space() -> None:
    for kind in SPACE_ACTIONS:
        action = kind(2, 1, 3)
        assert (action.player, action.row, action.col) == (2, 1, 3)
        assert attrs.fields(kind).__len__() == 3
    assert ar.Draw(4).player == 4
    assert [f.name for f in attrs.fields(ar.Draw)] == ["player"]


@pytest.mark.rule("3.2")
def test_actions_are_values() -> None:
    assert ar.Flip(0, 1, 2) == ar.Flip(0, 1, 2)
    assert hash(ar.Flip(0, 1, 2)) == hash(ar.Flip(0, 1, 2))
    assert ar.Flip(0, 1, 2) != ar.TakeDiscard(0, 1, 2)
    assert ar.PlaceDrawn(0, 1, 2) != ar.DiscardDrawn(0, 1, 2)
    assert ar.Flip(0, 1, 2) != (0, 1, 2)
    assert len({ar.Draw(0), ar.Draw(0), ar.Draw(1)}) == 2
    assert repr(ar.Flip(0, 1, 2)) == "Flip(player=0, row=1, col=2)"
    assert repr(ar.Draw(1)) == "Draw(player=1)"


def test_actions_are_frozen() -> None:
    action = ar.TakeDiscard(0, 0, 0)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        action.row = 1  # type: ignore[misc]


BAD_VALUES: list[Any] = ["1", 1.0, None, True, False, [1], (1,), 2**0.5]


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
@pytest.mark.parametrize("kind", SPACE_ACTIONS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("field", [0, 1, 2])
def test_a_field_that_is_not_an_int_is_malformed(kind: type, field: int, bad: Any) -> None:
    args: list[Any] = [0, 1, 2]
    args[field] = bad
    with pytest.raises(ar.MalformedActionError) as caught:
        kind(*args)
    error = caught.value
    assert isinstance(error, TypeError)
    assert error.code == ar.Code.MALFORMED_ACTION and error.rule is None
    name = ("player", "row", "col")[field]
    assert f"{kind.__name__}.{name}" in error.message


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
def test_draw_with_a_player_that_is_not_an_int_is_malformed(bad: Any) -> None:
    with pytest.raises(ar.MalformedActionError) as caught:
        ar.Draw(bad)
    assert caught.value.code == "malformed_action" and "Draw.player" in caught.value.message


def test_int_subclasses_other_than_bool_are_malformed_too() -> None:
    class MyInt(int):
        pass

    with pytest.raises(ar.MalformedActionError):
        ar.Flip(MyInt(0), 0, 0)


def test_negative_and_large_ints_are_well_formed() -> None:
    # Whether they are legal is for apply to decide (no_such_player / no_such_space).
    assert ar.Flip(-1, 99, -7).row == 99
    assert ar.Draw(10**30).player == 10**30
