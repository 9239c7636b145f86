"""Every state reached by play from a loaded state can be saved and loaded again (rule 3.11).

A loaded state's counters (`seq`, `turns`, the dealer's position) are below 2**48; `apply`
refuses (`counter_limit`) the action after which `seq` or the dealer's position would reach
it. So play from a loaded state at the edge of the bound never makes a state the loaders
refuse: the property below plays legal actions from such states and reloads each one.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.rules import COUNTER_LIMIT
from abyss_rules.testing import check_invariants

# Small grids and a small deck: rounds end (and the next is dealt, using words of the stream)
# within a few dozen actions.
EDGE_VARIANT = ar.Variant(name="edge", deck=((0, 6), (1, 6), (2, 6), (5, 4)), rows=2, cols=2, max_players=3,
                          initial_flips=1, target_score=10**6, max_rounds=None)


def edge_state(seed: int, players: int, turn_slack: int, seq_extra: int, position_slack: int) -> ar.State:
    """A state of a real game with its counters moved to the edge of the bound (still possible)."""
    state = ar.new_game(players, EDGE_VARIANT, seed=seed)
    while state.phase is not ar.Phase.TURN:
        state = ar.apply(state, ar.legal_actions(state)[0])
    # `players` more turns bring the turn back to the same seat; each takes one to two actions.
    more = (COUNTER_LIMIT - 1 - state.seq - turn_slack) // (2 * players) * players
    state = state._replace(turns=state.turns + more, seq=state.seq + more + min(seq_extra, more))
    position = COUNTER_LIMIT - position_slack
    return state._replace(dealer=attrs.evolve(state.dealer, position=position))


@pytest.mark.rule("3.11", "9.2")
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), players=st.integers(2, 3), turn_slack=st.integers(0, 30),
       seq_extra=st.integers(0, 2**48), position_slack=st.integers(1, 400),
       choices=st.lists(st.integers(0, 2**16), min_size=1, max_size=80))
def test_play_from_a_loaded_edge_state_never_makes_an_unloadable_state(
    seed: int, players: int, turn_slack: int, seq_extra: int, position_slack: int, choices: list[int]
) -> None:
    state = ar.loads_state(ar.dumps_state(edge_state(seed, players, turn_slack, seq_extra, position_slack)))
    for choice in choices:
        if state.is_over:
            break
        legal = ar.legal_actions(state)
        action = legal[choice % len(legal)]
        try:
            after = ar.apply(state, action)
        except ar.IllegalActionError as error:
            assert error.code == "counter_limit" and error.rule == "3.11"
            checked = ar.check(state, action)  # check() says what apply() does
            assert checked is not None and (checked.code, checked.message) == (error.code, error.message)
            with pytest.raises(ar.IllegalActionError, match="counter_limit"):
                ar.apply_with_events(state, action)
            return
        assert ar.check(state, action) is None
        assert after.seq < COUNTER_LIMIT and after.dealer.position < COUNTER_LIMIT
        assert ar.loads_state(ar.dumps_state(after)) == after
        check_invariants(after)
        state = after


@pytest.mark.rule("3.11")
def test_the_action_that_would_reach_the_bound_is_refused() -> None:
    state = edge_state(seed=1, players=2, turn_slack=0, seq_extra=2**48, position_slack=10**6)
    state = ar.loads_state(ar.dumps_state(state))  # possible: every turn of it took two actions
    for _ in range(100):
        action = ar.legal_actions(state)[0]
        error = ar.check(state, action)
        if error is not None:
            break
        state = ar.apply(state, action)
    assert error is not None and (error.code, error.rule) == ("counter_limit", "3.11")
    assert state.seq == COUNTER_LIMIT - 1
    with pytest.raises(ar.IllegalActionError) as caught:
        ar.apply(state, action)
    assert caught.value.code == "counter_limit"
    assert ar.loads_state(ar.dumps_state(state)) == state


@pytest.mark.rule("3.11", "9.2")
def test_a_deal_that_would_use_words_past_the_bound_is_refused() -> None:
    state = edge_state(seed=2, players=2, turn_slack=10**6, seq_extra=0, position_slack=5)
    rounds = len(state.history)
    for _ in range(400):
        action = ar.legal_actions(state)[-1]
        error = ar.check(state, action)
        if error is not None:
            break
        state = ar.apply(state, action)
        assert len(state.history) == rounds  # no round ended without a shuffle
    assert error is not None and error.code == "counter_limit" and "position" in error.message
