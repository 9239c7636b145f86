"""Ending a round: closing, last turns, final reveal, round history, stalling cap
(spec rules 6.1-6.3, 6.6-6.8)."""

from __future__ import annotations

import pytest
from tests.builders import finish_round, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar

TOP = [(0, 0), (0, 1)]
# 2 x 2 grids without equal columns; seat 0's top row is the highest, so seat 0 opens
GRIDS4 = [[9, 8, 1, 2], [1, 2, 3, 4], [0, 1, 5, 6], [2, 3, 7, 4]]


def _four_players(**changes: object) -> ar.State:
    state = stacked(tiny(max_rounds=1, **changes), 4, grids=GRIDS4, discard=5)
    state = open_round(state, [TOP] * 4)
    assert state.turn == 0
    return state


def _stall(seat: int) -> ar.TakeDiscard:
    return ar.TakeDiscard(seat, 0, 0)  # onto a face-up card over a face-down one: nothing changes


@pytest.mark.rule("6.1", "6.2", "3.1")
def test_spec_example_four_players_seat_1_closes() -> None:
    state = _four_players()
    actions = [_stall(0), ar.Flip(1, 1, 0), ar.Flip(2, 1, 0), _stall(3), _stall(0), ar.Flip(1, 1, 1)]
    seats = []
    for action in actions:
        seats.append(state.turn)
        state = ar.apply(state, action)
    assert state.closer == 1 and state.turn == 2 and state.phase is ar.Phase.TURN
    # last turns: seats 2, 3, 0; seat 2 reveals everything too but is not a closer
    for action in (ar.Flip(2, 1, 1), _stall(3)):
        seats.append(state.turn)
        state = ar.apply(state, action)
        assert state.closer == 1 and not state.is_over
    assert state.face_down_count(2) == 0
    assert rule_error(state, ar.Flip(1, 0, 0)).code == "not_your_turn"
    seats.append(state.turn)
    state = ar.apply(state, _stall(0))
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert state.is_over  # the turn would pass back to seat 1: the round ends
    result = state.history[0]
    assert result.closer == 1 and result.turns == 9 and not result.capped


@pytest.mark.rule("6.1", "6.2")
def test_the_closer_takes_no_extra_turn_two_players() -> None:
    v = tiny(target_score=1000)
    state = stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]])
    state = open_round(state, [TOP, TOP])
    state = play(state, [ar.Flip(0, 1, 0), ar.Flip(1, 1, 0), ar.Flip(0, 1, 1)])
    assert state.closer == 0 and state.turn == 1 and state.round == 1
    state = ar.apply(state, _stall(1))  # seat 1's one last turn
    assert state.round == 2 and state.phase is ar.Phase.OPENING
    assert state.history[0].closer == 0 and state.history[0].turns == 4


@pytest.mark.rule("6.1", "4.1")
def test_closing_by_a_swallow_swallowed_spaces_are_not_face_down() -> None:
    v = tiny(max_rounds=1)
    state = stacked(v, 2, grids=[[4, 9, 4, 2], [1, 2, 3, 5]])
    state = open_round(state, [TOP, TOP])
    state = play(state, [ar.Flip(0, 1, 1), ar.Flip(1, 1, 0)])
    assert state.face_down_count(0) == 1
    state = ar.apply(state, ar.Flip(0, 1, 0))  # the second 4: column 0 is swallowed
    assert state.grid(0).swallowed == (True, False, True, False)
    assert state.face_down_count(0) == 0 and state.closer == 0


@pytest.mark.rule("6.1")
def test_drawing_never_closes() -> None:
    v = tiny(max_rounds=1)
    state = stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]], draw=[7, 6])
    state = open_round(state, [TOP, TOP])
    state = play(state, [ar.Flip(0, 1, 0), ar.Flip(1, 1, 0), ar.Draw(0)])
    assert state.closer is None and state.phase is ar.Phase.DRAWN
    state = ar.apply(state, ar.PlaceDrawn(0, 1, 1))  # placing on the last face-down card closes
    assert state.closer == 0


@pytest.mark.rule("6.2")
def test_one_player_round_ends_right_after_the_closing_turn() -> None:
    v = tiny(max_rounds=2)
    state = stacked(v, 1, grids=[[1, 2, 3, 4]])
    state = open_round(state, [TOP])
    assert state.turn == 0
    state = play(state, [ar.Flip(0, 1, 0)])
    assert state.turn == 0 and state.round == 1
    state = ar.apply(state, ar.Flip(0, 1, 1))
    assert state.round == 2 and state.history[0].closer == 0 and state.history[0].turns == 2
    assert state.history[0].scores == (10,) and not state.history[0].penalized  # alone: no penalty


@pytest.mark.rule("6.3", "6.6", "6.4")
def test_final_reveal_and_round_result() -> None:
    state = _four_players()
    state = play(state, [_stall(0), ar.Flip(1, 1, 0), ar.Flip(2, 1, 0), _stall(3), _stall(0),
                         ar.Flip(1, 1, 1), ar.Flip(2, 1, 1), _stall(3), _stall(0)])
    result = state.history[0]
    assert isinstance(result, ar.RoundResult) and result.round == 1
    # seats 0 and 3 still had their bottom rows face down: all turned up, values as dealt;
    # their (0, 0) traded with the discard: seat 0 took 5, 2, 9; seat 3 took 9, 5
    assert [grid.cards for grid in result.grids] == [(9, 8, 1, 2), (1, 2, 3, 4), (0, 1, 5, 6), (5, 3, 7, 4)]
    for grid in result.grids:
        assert all(grid.face_up) and not any(grid.swallowed)
    assert state.discard_pile == (2,)
    assert result.raw_scores == (20, 10, 12, 19)
    assert result.closer == 1 and result.penalized is False and result.scores == result.raw_scores
    assert result.capped is False and result.turns == 9 and result.totals == (20, 10, 12, 19)
    assert state.totals == result.totals and state.last_round is result


@pytest.mark.rule("6.6")
def test_round_history_stays_after_the_next_deal() -> None:
    v = tiny(target_score=1000)
    state = finish_round(stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]]))
    state = finish_round(state)
    assert state.round == 3 and [r.round for r in state.history] == [1, 2]
    first = state.history[0]
    assert first.grids[0].cards == (9, 8, 1, 2) and first.grids[1].cards == (1, 2, 3, 4)
    # the policy flips bottom rows first: seat 1 opens (4 + 3 beat 2 + 1) and closes with 10
    assert first.raw_scores == (20, 10) and first.scores == (20, 10) and not first.penalized
    assert first.closer == 1 and first.totals == (20, 10)
    assert state.history[1].totals == state.totals
    assert ar.view(state, 1).history == state.history


# -- the stalling cap (6.7) ----------------------------------------------------------------------


@pytest.mark.rule("6.7")
def test_cap_ends_the_round_with_no_closer_and_no_penalty() -> None:
    state = _four_players(max_turns_per_round=5)
    state = play(state, [_stall(0), ar.Flip(1, 1, 0), _stall(2), _stall(3)])
    assert state.turns == 4 and not state.is_over
    state = ar.apply(state, ar.Draw(0))
    assert state.turns == 4  # a draw does not complete the turn
    state = ar.apply(state, ar.PlaceDrawn(0, 0, 1))
    assert state.is_over
    result = state.history[0]
    assert result.capped and result.closer is None and not result.penalized and result.turns == 5
    assert result.scores == result.raw_scores
    assert all(all(g.face_up) for g in result.grids)  # final reveal as usual


@pytest.mark.rule("6.7", "6.1", "6.5")
def test_cap_reached_on_the_closing_turn_leaves_no_closer() -> None:
    # seat 0 (20 points against 10: it would be doubled) closes on turn 3, the cap
    v = tiny(max_rounds=1, max_turns_per_round=3)
    state = open_round(stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]]), [TOP, TOP])
    state = play(state, [ar.Flip(0, 1, 0), _stall(1), ar.Flip(0, 1, 1)])
    assert state.is_over
    result = state.history[0]
    assert result.closer is None and result.capped and result.turns == 3
    assert result.raw_scores[0] == 20 and result.scores == result.raw_scores and not result.penalized


@pytest.mark.rule("6.8", "6.7", "6.1", "6.2")
def test_cap_reached_in_the_last_turns_leaves_no_closer() -> None:
    # seat 1's last turn (the turn would pass back to closer 0) is also the 4th, the cap: capped
    v = tiny(max_rounds=1, max_turns_per_round=4)
    state = open_round(stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]]), [TOP, TOP])
    state = play(state, [ar.Flip(0, 1, 0), _stall(1), ar.Flip(0, 1, 1)])
    assert state.closer == 0 and not state.is_over
    state = ar.apply(state, _stall(1))
    result = state.history[0]
    assert result.closer is None and result.capped and not result.penalized


@pytest.mark.rule("6.7", "2.1")
def test_opening_flips_are_not_turns_and_an_uncapped_round_has_its_closer() -> None:
    v = tiny(max_rounds=1, max_turns_per_round=5, initial_flips=3)
    state = stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]])
    state = open_round(state, [[(0, 0), (0, 1), (1, 0)], [(0, 0), (0, 1), (1, 0)]])
    assert state.turns == 0 and state.phase is ar.Phase.TURN
    state = play(state, [ar.Flip(0, 1, 1), _stall(1)])  # seat 0 closes; seat 1's last turn
    result = state.history[0]
    assert result.closer == 0 and not result.capped and result.turns == 2 and result.penalized
