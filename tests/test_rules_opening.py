"""Opening a round: opening flips and the choice of the opener (spec section 2)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tests.builders import deck_order, finish_round, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar
from abyss_rules.rules import choose_opener, opener_decision


@pytest.mark.rule("2.1", "2.2")
def test_each_player_flips_exactly_initial_flips_then_the_turns_begin() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    assert state.owing_flips == (0, 1)
    state = ar.apply(state, ar.Flip(0, 0, 0))
    assert state.phase is ar.Phase.OPENING and state.owing_flips == (0, 1) and state.opening == ((1,), ())
    state = ar.apply(state, ar.Flip(0, 1, 1))
    assert state.owing_flips == (1,) and state.opening == ((1, 4), ())
    assert state.grid(0).visible == (1, None, None, 4)
    error = rule_error(state, ar.Flip(0, 0, 1))
    assert (error.code, error.rule) == ("no_flips_owed", "2.2")
    state = ar.apply(state, ar.Flip(1, 1, 0))
    assert state.phase is ar.Phase.OPENING
    state = ar.apply(state, ar.Flip(1, 0, 1))
    assert state.phase is ar.Phase.TURN and state.owing_flips == ()
    assert state.opening == ((1, 4), (7, 6))
    assert state.turn == 1 and state.turns == 0  # 13 beats 5; opening flips are not turns


@pytest.mark.rule("2.1")
def test_initial_flips_sets_the_number() -> None:
    v = ar.Variant.standard().replace(initial_flips=3)
    state = ar.new_game(2, v, seed=8)
    for col in range(3):
        state = ar.apply(state, ar.Flip(0, 0, col))
    assert state.owing_flips == (1,)
    assert rule_error(state, ar.Flip(0, 1, 0)).code == "no_flips_owed"
    for col in range(3):
        state = ar.apply(state, ar.Flip(1, 1, col))
    assert state.phase is ar.Phase.TURN
    assert [len(f) for f in state.opening] == [3, 3]


@pytest.mark.rule("2.2")
def test_flips_in_any_order_interleaved_across_players() -> None:
    # The spec's example: 3 players, flips arrive seat 2, 0, 2, 1, 0, 1.
    v = ar.Variant.standard()
    grids: list[Sequence[int] | None] = [list(range(1, 13)), [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1],
                                         [0, 1, 2, 3, -1, 5, 6, 7, 8, 9, 10, 11]]
    state = stacked(v, 3, grids=grids)
    order = [ar.Flip(2, 0, 0), ar.Flip(0, 2, 3), ar.Flip(2, 1, 1), ar.Flip(1, 0, 0), ar.Flip(0, 0, 0),
             ar.Flip(1, 2, 2)]
    states = [state]
    for i, action in enumerate(order):
        if i == 3:  # a third flip by seat 2 and any other kind of action are refused
            assert rule_error(states[-1], ar.Flip(2, 2, 2)).code == "no_flips_owed"
            assert rule_error(states[-1], ar.Draw(1)).code == "wrong_phase"
            assert rule_error(states[-1], ar.TakeDiscard(1, 0, 0)).code == "wrong_phase"
        states.append(ar.apply(states[-1], action))
    interleaved = states[-1]
    in_seat_order = open_round(state, {0: [(0, 0), (2, 3)], 1: [(0, 0), (2, 2)], 2: [(0, 0), (1, 1)]})
    assert interleaved.phase is ar.Phase.TURN
    assert interleaved.face_up_mask == in_seat_order.face_up_mask
    assert interleaved.cards == in_seat_order.cards
    assert interleaved.turn == in_seat_order.turn == 1  # sums: 13, 14, 5
    assert sorted(interleaved.opening[0]) == sorted(in_seat_order.opening[0]) == [1, 12]


@pytest.mark.rule("2.1", "2.2", "3.10")
def test_an_opening_flip_must_turn_a_face_down_card_of_ones_own_grid() -> None:
    state = ar.apply(ar.new_game(2, seed=3), ar.Flip(1, 2, 3))
    error = rule_error(state, ar.Flip(1, 2, 3))
    assert (error.code, error.rule) == ("space_face_up", "3.10")
    assert rule_error(state, ar.Flip(1, 3, 0)).code == "no_such_space"
    assert rule_error(state, ar.Flip(2, 0, 0)).code == "no_such_player"


@pytest.mark.rule("2.1", "1.4")
def test_every_round_has_an_opening() -> None:
    v = tiny(target_score=1000)
    state = finish_round(stacked(v, 3, grids=[[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 2, 3]]))
    for round_number in (2, 3, 4):
        assert state.round == round_number
        assert state.phase is ar.Phase.OPENING and state.owing_flips == (0, 1, 2)
        assert state.opening == ((), (), ()) and state.turn is None and state.turns == 0
        assert rule_error(state, ar.Draw(0)).code == "wrong_phase"
        state = finish_round(state)


# -- choosing the opener (2.3) ----------------------------------------------------------------


def _opener(grids: list[list[int]], flips: list[list[tuple[int, int]]], **changes: object) -> ar.State:
    state = stacked(tiny(**changes), len(grids), grids=grids)
    state = open_round(state, flips)
    assert state.phase is ar.Phase.TURN
    return state


TOP_ROW = [(0, 0), (0, 1)]


@pytest.mark.rule("2.3")
def test_spec_example_seed_42_highest_card_breaks_the_tie() -> None:
    state = ar.new_game(2, ar.Variant.standard(), seed=42)
    state = open_round(state, {0: [(0, 3), (1, 0)], 1: [(1, 1), (1, 2)]})
    assert state.opening == ((8, 2), (9, 1))
    assert state.turn == 1


@pytest.mark.rule("2.3")
@pytest.mark.parametrize(
    ("tops", "opener"),
    [
        ([[5, 4], [6, 1]], 0),             # sums 9 > 7
        ([[6, 1], [5, 4]], 1),             # sums 7 < 9
        ([[-2, -1], [-1, 0]], 1),          # -3 < -1
        ([[5, 5], [9, 1], [7, 3]], 1),     # all 10: the 9 is highest
        ([[9, 1], [5, 5], [8, 2]], 0),     # all 10: the 9 is highest
        ([[6, 2], [2, 6]], 0),             # full tie: lowest seat
        ([[1, 1], [6, 2], [2, 6]], 1),     # seats 1 and 2 tie on top: the lower of them
        ([[1, 0], [0, 1], [3, 0], [0, 3]], 2),
        ([[3, 3], [2, 4], [4, 2], [1, 5]], 3),  # all 6: the 5 wins
    ],
)
def test_highest_sum_then_highest_card_then_lowest_seat(tops: list[list[int]], opener: int) -> None:
    fillers = [[7, 8], [9, 6], [2, 5], [4, 1]]  # bottom rows: never flipped
    grids = [top + fillers[p] for p, top in enumerate(tops)]
    state = _opener(grids, [TOP_ROW] * len(grids))
    assert state.turn == opener
    assert state.opening == tuple(tuple(t) for t in tops)


@pytest.mark.rule("2.3", "4.1")
def test_flips_count_even_when_swallowed_in_the_opening() -> None:
    # seat 0 flips its two 4s of column 0 (swallowed at once): sum 8 beats 7 + 0
    state = _opener([[4, 1, 4, 2], [7, 0, 3, 5]], [[(0, 0), (1, 0)], TOP_ROW])
    assert state.grid(0).swallowed == (True, False, True, False)
    assert state.opening == ((4, 4), (7, 0))
    assert state.turn == 0


@pytest.mark.rule("2.3")
def test_choose_opener_directly() -> None:
    v = ar.Variant.standard()
    assert choose_opener(v, ((5, 5), (12, -2), (3, 7)), ()) == 1
    assert choose_opener(v, ((4, 4), (8, 0)), ()) == 1
    assert choose_opener(v, ((6, 2), (2, 6)), ()) == 0
    assert choose_opener(v, ((), (), ()), ()) == 0
    assert choose_opener(v, ((-2, -2), (-2, -1)), ()) == 1


# -- previous closer (2.4) --------------------------------------------------------------------


def _three_rounds(opener: str) -> list[ar.State]:
    """Round 1 closed by seat 1 (flips favour seat 1); round 2 (flips favour seat 0) stalled to
    the cap of 8 turns; round 3 (flips favour seat 2). Returns the first turn state of each round."""
    v = tiny(opener=opener, max_turns_per_round=8, max_rounds=3)
    r1 = [[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 2, 3]]        # top rows: 3, 11, 1
    r2 = [[9, 8, 1, 2], [0, 1, 3, 4], [2, 3, 4, 5]]        # 17, 1, 5
    r3 = [[1, 2, 3, 4], [3, 4, 5, 6], [9, 8, 0, 7]]        # 3, 7, 17
    state = stacked(v, 3, grids=r1, later=[deck_order(v, 3, grids=r2), deck_order(v, 3, grids=r3)])
    firsts = []
    state = open_round(state, [TOP_ROW] * 3)
    firsts.append(state)
    state = finish_round(state)  # flip-only turns: 1, 2, 0, 1 (closes), 2, 0
    assert state.history[0].closer == 1 and state.history[0].turns == 6
    state = open_round(state, [TOP_ROW] * 3)
    firsts.append(state)
    while state.round == 2:  # stall: take the discard onto a face-up space
        state = ar.apply(state, ar.TakeDiscard(state.turn, 0, 0))
    assert state.history[1].capped and state.history[1].closer is None and state.history[1].turns == 8
    firsts.append(open_round(state, [TOP_ROW] * 3))
    return firsts


@pytest.mark.rule("2.4", "2.3", "6.7")
def test_previous_closer_opens_and_falls_back_after_a_capped_round() -> None:
    r1, r2, r3 = _three_rounds("previous_closer")
    assert r1.turn == 1  # round 1: by the flips (2.3)
    assert r2.turn == 1  # round 2: round 1's closer, though seat 0 flipped 17
    assert r2.opening == ((9, 8), (0, 1), (2, 3))  # opening flips are made all the same
    assert r3.turn == 2  # round 2 had no closer: by the flips again


@pytest.mark.rule("2.3", "2.4")
def test_highest_flips_ignores_the_previous_closer() -> None:
    r1, r2, r3 = _three_rounds("highest_flips")
    assert (r1.turn, r2.turn, r3.turn) == (1, 0, 2)


@pytest.mark.rule("2.4", "2.1")
def test_previous_closer_with_no_opening_flips() -> None:
    v = tiny(opener="previous_closer", initial_flips=0, target_score=1000)
    state = stacked(v, 3, grids=[[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 2, 3]])
    assert state.phase is ar.Phase.TURN and state.turn == 0  # no flips: all tie, seat 0 opens
    # seats 0 and 2 stall on a face-up space; seat 1 flips its four cards and closes
    stall0, stall2 = ar.TakeDiscard(0, 0, 0), ar.TakeDiscard(2, 0, 0)
    state = play(state, [ar.Flip(0, 0, 0), ar.Flip(1, 0, 0), ar.Flip(2, 0, 0)])
    state = play(state, [stall0, ar.Flip(1, 0, 1), stall2, stall0, ar.Flip(1, 1, 0), stall2, stall0])
    state = play(state, [ar.Flip(1, 1, 1)])
    assert state.closer == 1
    state = play(state, [stall2, stall0])
    assert state.round == 2 and state.history[0].closer == 1
    assert state.phase is ar.Phase.TURN and state.turn == 1 and state.opening == ((), (), ())


@pytest.mark.rule("2.3", "2.4")
def test_opener_decision_names_the_step_that_chose_the_opener() -> None:
    v = ar.Variant.standard()
    assert opener_decision(v, ((8, 4), (9, 1)), ()) == (0, "sum")
    assert opener_decision(v, ((8, 2), (9, 1)), ()) == (1, "highest_card")
    assert opener_decision(v, ((6, 2), (2, 6), (1, 1)), ()) == (0, "lowest_seat")
    assert opener_decision(v.replace(initial_flips=0), ((), (), ()), ()) == (0, "no_flips")
    closer = v.replace(opener=ar.Opener.PREVIOUS_CLOSER)
    played = finish_round(ar.new_game(2, closer, seed=1))
    assert played.history[-1].closer is not None
    assert opener_decision(closer, ((12, 12), (1, 1)), played.history) == (played.history[-1].closer,
                                                                           "previous_closer")
    for opening in [((8, 4), (9, 1)), ((8, 2), (9, 1)), ((6, 2), (2, 6)), ((), ())]:
        assert opener_decision(v, opening, ())[0] == choose_opener(v, opening, ())
