"""States are values: apply never changes its input, rejected actions change nothing, equal states hash
equal (spec section 3, "Rejecting an action")."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.testing import Game, actions, games


def snapshot(value: Any) -> Any:
    """A deep, plain copy of a state: tuples, ints, strings and bytes only (no shared objects)."""
    if isinstance(value, ar.Variant):
        return ("Variant", repr(value.to_dict()))
    if attrs.has(type(value)):
        fields = attrs.fields(type(value))
        return (type(value).__name__,) + tuple(snapshot(getattr(value, f.name)) for f in fields)
    if isinstance(value, tuple):
        return tuple(snapshot(item) for item in value)
    assert value is None or isinstance(value, (int, str, bytes)), type(value)
    return value


@pytest.mark.rule("3.2", "3.9", "3.10", "7.5")
@given(games(max_actions=40), st.data())
def test_apply_never_changes_its_input_even_when_it_rejects(game: Game, data: st.DataObject) -> None:
    arbitrary = actions(game.variant, game.players)
    for before, action, after in game.steps():
        frozen = snapshot(before)
        assert ar.apply(before, action) == after
        for _ in range(3):
            other = data.draw(arbitrary)
            error = ar.check(before, other)
            if error is None:
                ar.apply(before, other)
            else:
                with pytest.raises(ar.IllegalActionError):
                    ar.apply(before, other)
        assert snapshot(before) == frozen
    final = game.final
    frozen = snapshot(final)
    other = data.draw(arbitrary)
    if final.is_over:
        with pytest.raises(ar.IllegalActionError) as info:
            ar.apply(final, other)
        assert info.value.code == "game_over"
    assert snapshot(final) == frozen


@given(games(max_actions=80))
def test_replayed_states_are_equal_and_hash_equal(game: Game) -> None:
    state = ar.new_game(game.players, game.variant, game.seed)
    for original, action in zip(game.states, game.actions + (None,), strict=True):
        assert state == original and hash(state) == hash(original)
        assert snapshot(state) == snapshot(original)
        if action is not None:
            state = ar.apply(state, action)


@given(games(max_actions=80))
def test_states_are_hashable_values(game: Game) -> None:
    seen: dict[ar.State, int] = {}
    for i, state in enumerate(game.states):
        rebuilt = ar.State(*state)  # a distinct object with the same fields
        assert rebuilt == state and hash(rebuilt) == hash(state)
        assert state != tuple(state)  # a State is not a plain tuple
        seen.setdefault(state, i)
    # every action advances seq, so no two states of one game are equal
    assert len(seen) == len(game.states)
