"""Progress and the phase machine: someone can always act, bounded games always end, and the phase,
turn and round only change as spec section 3 ("Phases") and rules 2.3, 2.4, 3.1, 6.2 allow."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.property.restated import DRAWN, OPENING, TRANSITIONS, TURN, spec_opener

import abyss_rules as ar
from abyss_rules.testing import Game, games, variants


@st.composite
def bounded_variants(draw: st.DrawFn) -> ar.Variant:
    """Any variant (presets too) with a stalling cap and a round limit, so that every game ends."""
    v = draw(variants())
    return v.replace(max_turns_per_round=draw(st.integers(1, 40)), max_rounds=draw(st.integers(1, 3)))


@pytest.mark.rule("2.2", "3.2", "3.9", "7.5")
@given(games(max_actions=300, finish_rounds=True))
def test_in_every_state_before_the_end_someone_can_act(game: Game) -> None:
    for state in game.states:
        legal = ar.legal_actions(state)
        if state.is_over:
            assert legal == () and state.to_act == ()
            continue
        assert legal
        assert {a.player for a in legal} == set(state.to_act)  # exactly the seats that may act


@pytest.mark.rule("6.7", "7.3", "2.1", "3.2")
@given(games(bounded_variants(), play_out=True, max_actions=3000))
def test_games_between_random_players_always_end(game: Game) -> None:
    """With a stalling cap C and a round limit R, a game of P players ends within
    R * (P * initial_flips + 2 * C) actions whatever the players choose."""
    v = game.variant
    assert v.max_rounds is not None and v.max_turns_per_round is not None
    bound = v.max_rounds * (game.players * v.initial_flips + 2 * v.max_turns_per_round)
    assert game.final.is_over
    assert len(game) <= bound
    assert game.final.round <= v.max_rounds


@pytest.mark.rule("2.1", "2.2", "3.2", "3.4", "6.2", "7.2", "7.3", "1.4")
@given(games(max_actions=300, finish_rounds=True))
def test_the_phase_machine_takes_only_the_allowed_transitions(game: Game) -> None:
    for before, action, after in game.steps():
        new_round = after.round != before.round
        assert (before.phase, after.phase, new_round) in TRANSITIONS, (before, action, after)
        assert after.round in (before.round, before.round + 1)
        round_ended = new_round or after.is_over
        assert len(after.history) == len(before.history) + round_ended
        if type(action) is ar.Draw:
            assert (after.phase, after.turn, after.turns) == (DRAWN, before.turn, before.turns)
        if new_round:
            assert after.turns == 0 and after.closer is None and after.drawn is None
            assert after.opening == ((),) * after.players


@pytest.mark.rule("3.1", "6.2", "6.7")
@given(games(max_actions=300, finish_rounds=True))
def test_turns_pass_in_seat_order_and_count_one_each(game: Game) -> None:
    for before, action, after in game.steps():
        if after.round != before.round or after.is_over or before.phase is OPENING or type(action) is ar.Draw:
            continue
        # a turn ended and the round goes on: the next seat plays (never the closer, 6.2)
        assert after.phase is TURN
        assert after.turn == (before.turn + 1) % before.players
        assert after.turns == before.turns + 1
        assert after.turn != after.closer


@pytest.mark.rule("2.3", "2.4", "2.1")
@given(games(max_actions=300, finish_rounds=True))
def test_each_round_is_opened_by_the_spec_opener(game: Game) -> None:
    for before, _, after in game.steps():
        opened = before.phase is OPENING and after.phase is TURN and after.round == before.round
        dealt_straight_to_turn = after.round != before.round and after.phase is TURN
        if opened or dealt_straight_to_turn:
            assert after.turn == spec_opener(after.variant, after.opening, after.history)
            assert after.turns == 0
    first = game.initial
    if first.phase is TURN:  # initial_flips = 0: round 1 starts with the opener's turn
        assert first.turn == spec_opener(first.variant, first.opening, first.history) == 0
