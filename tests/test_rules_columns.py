"""Columns: swallowing, the discard order, swallowed spaces, the final reveal (spec section 4, 3.10)."""

from __future__ import annotations

import pytest
from tests.builders import open_round, play, rule_error, stacked, tiny

import abyss_rules as ar

STD = ar.Variant.standard()
LOW = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]  # a grid without equal columns


def _col_spaces(col: int, cols: int = 4, rows: int = 3) -> tuple[int, ...]:
    return tuple(r * cols + col for r in range(rows))


@pytest.mark.rule("4.1", "4.2", "3.3")
def test_spec_example_take_discard_completes_a_column() -> None:
    # seat 1's column 2 shows 7, 7 over a face-down 4; it takes the top discard 7 onto (2, 2)
    seat1 = [[1, 2, 7, 3], [4, 5, 7, 6], [8, 9, 4, 10]]
    state = stacked(STD, 2, grids=[LOW, seat1], discard=7)
    state = open_round(state, {0: [(0, 0), (0, 1)], 1: [(0, 2), (1, 2)]})
    assert state.turn == 1
    after = ar.apply(state, ar.TakeDiscard(1, 2, 2))
    assert after.discard_pile == (7, 7, 7, 4)  # the 4 first, then rows 0, 1, 2
    grid = after.grid(1)
    assert [grid.swallowed[s] for s in _col_spaces(2)] == [True, True, True]
    assert [grid.cards[s] for s in _col_spaces(2)] == [None, None, None]
    assert not any(grid.face_up[s] for s in _col_spaces(2))
    assert after.face_down_count(1) == 9 and grid.face_down == (0, 1, 3, 4, 5, 7, 8, 9, 11)
    assert after.turn == 0


@pytest.mark.rule("4.1", "3.7")
def test_spec_example_three_zeros_are_swallowed_by_a_flip() -> None:
    seat0 = [[1, 0, 2, 3], [4, 0, 5, 6], [7, 0, 8, 9]]
    state = stacked(STD, 2, grids=[seat0, LOW], discard=12)
    state = open_round(state, {0: [(0, 1), (1, 1)], 1: [(0, 0), (0, 1)]})
    assert state.turn == 1  # 3 beats 0
    state = play(state, [ar.Flip(1, 2, 3)])
    after = ar.apply(state, ar.Flip(0, 2, 1))
    assert after.discard_pile == (0, 0, 0, 12)
    assert after.grid(0).swallowed[1] and after.grid(0).swallowed[9]
    assert after.face_down_count(0) == 9


@pytest.mark.rule("4.1", "4.2", "3.5")
def test_place_drawn_swallow_puts_the_replaced_card_under_the_column() -> None:
    seat0 = [[5, 2, 3, 4], [5, 6, 7, 8], [11, 10, 9, 12]]
    state = stacked(STD, 2, grids=[seat0, LOW], discard=1, draw=[5])
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (0, 1)]})
    assert state.turn == 0
    after = play(state, [ar.Draw(0), ar.PlaceDrawn(0, 2, 0)])  # onto the face-down 11
    assert after.discard_pile == (5, 5, 5, 11, 1)
    assert after.grid(0).swallowed[0]


@pytest.mark.rule("4.1", "4.2", "3.5")
def test_place_drawn_onto_a_face_up_card_can_complete_a_column() -> None:
    seat0 = [[5, 2, 3, 4], [5, 6, 7, 8], [11, 10, 9, 12]]
    state = stacked(STD, 2, grids=[seat0, LOW], discard=1, draw=[3, 5])
    state = open_round(state, {0: [(0, 0), (2, 0)], 1: [(0, 0), (0, 1)]})  # 5 and 11 face up
    state = play(state, [ar.Flip(0, 0, 1), ar.Flip(1, 0, 2)])
    assert state.turn == 0
    # the drawn 3 goes elsewhere; then the drawn 5 replaces the face-up 11: still (1, 0) is face down
    state = play(state, [ar.Draw(0), ar.PlaceDrawn(0, 1, 1), ar.Flip(1, 0, 3)])
    state = play(state, [ar.Draw(0), ar.PlaceDrawn(0, 2, 0)])
    assert not state.grid(0).swallowed[0] and state.discard_pile[0] == 11
    state = play(state, [ar.Flip(1, 1, 0), ar.Flip(0, 1, 0)])  # now the 5 of row 1 is turned
    assert state.grid(0).swallowed[0] and state.discard_pile[:3] == (5, 5, 5)


@pytest.mark.rule("4.1", "4.2", "3.6")
def test_discard_drawn_swallow_puts_the_drawn_card_under_the_column() -> None:
    seat0 = [[8, 2, 3, 4], [8, 6, 7, 5], [8, 10, 9, 12]]
    state = stacked(STD, 2, grids=[seat0, LOW], discard=1, draw=[-2])
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (0, 1)]})
    after = play(state, [ar.Draw(0), ar.DiscardDrawn(0, 2, 0)])
    assert after.discard_pile == (8, 8, 8, -2, 1)
    assert after.top_discard == 8


@pytest.mark.rule("4.1")
def test_no_swallow_without_all_cards_face_up_and_equal() -> None:
    seat0 = [[5, 2, 3, 4], [5, 6, 7, 8], [5, 10, 9, 12]]
    seat1 = [[6, 2, 3, 4], [6, 1, 7, 8], [-1, 10, 9, 12]]
    state = stacked(STD, 2, grids=[seat0, seat1], discard=0)
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (1, 0)]})
    assert state.swallowed_mask == 0  # two equal face-up cards over a face-down card: no swallow
    assert state.turn == 1  # 6 + 6 beats 5 + 5
    state = ar.apply(state, ar.Flip(1, 2, 0))  # 6, 6, -1: not equal
    assert state.swallowed_mask == 0 and state.discard_pile == (0,)
    state = ar.apply(state, ar.Flip(0, 2, 0))  # 5, 5, 5: swallowed
    assert state.grid(0).swallowed[0] and state.discard_pile == (5, 5, 5, 0)


@pytest.mark.rule("3.10", "4.1")
@pytest.mark.parametrize(
    "action",
    [ar.TakeDiscard(0, 1, 0), ar.Flip(0, 2, 0), ar.Draw(0)],
    ids=["take", "flip", "draw-then-place-or-discard"],
)
def test_swallowed_spaces_cannot_be_targeted(action: ar.Action) -> None:
    seat0 = [[8, 2, 3, 4], [8, 6, 7, 5], [8, 10, 9, 12]]
    state = stacked(STD, 2, grids=[seat0, LOW], discard=1, draw=[0, 11])
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (0, 1)]})
    state = play(state, [ar.Flip(0, 2, 0), ar.Flip(1, 0, 2)])  # seat 0 swallows column 0
    assert state.turn == 0 and state.grid(0).swallowed[8]
    if isinstance(action, ar.Draw):
        state = ar.apply(state, action)
        targets: list[ar.Action] = [ar.PlaceDrawn(0, r, 0) for r in range(3)]
        targets += [ar.DiscardDrawn(0, r, 0) for r in range(3)]
    else:
        targets = [type(action)(0, r, 0) for r in range(3)]  # type: ignore[call-arg]
    for target in targets:
        error = rule_error(state, target)
        assert (error.code, error.rule) == ("space_swallowed", "3.10")
    assert not any(getattr(a, "col", None) == 0 for a in ar.legal_actions(state))


@pytest.mark.rule("4.1", "2.1", "3.10")
def test_swallow_during_the_opening_when_initial_flips_reach_rows() -> None:
    v = STD.replace(initial_flips=3)
    seat0 = [[1, 6, 2, 3], [4, 6, 5, 7], [8, 6, 9, 10]]
    state = stacked(v, 2, grids=[seat0, LOW], discard=12)
    state = play(state, [ar.Flip(0, 0, 1), ar.Flip(1, 0, 0), ar.Flip(0, 1, 1)])
    assert state.swallowed_mask == 0
    state = ar.apply(state, ar.Flip(0, 2, 1))
    assert state.phase is ar.Phase.OPENING
    assert state.discard_pile == (6, 6, 6, 12)
    assert [state.grid(0).swallowed[s] for s in _col_spaces(1)] == [True] * 3
    assert rule_error(state, ar.Flip(1, 0, 0)).code == "space_face_up"
    state = play(state, [ar.Flip(1, 0, 1), ar.Flip(1, 0, 2)])
    assert state.opening == ((6, 6, 6), (1, 2, 3)) and state.turn == 0


@pytest.mark.rule("4.1", "3.10")
def test_opening_flip_on_a_swallowed_space() -> None:
    v = tiny(initial_flips=3)
    state = stacked(v, 2, grids=[[4, 1, 4, 2], [5, 6, 7, 8]])
    state = play(state, [ar.Flip(0, 0, 0), ar.Flip(0, 1, 0)])
    assert state.grid(0).swallowed == (True, False, True, False) and state.owing_flips == (0, 1)
    error = rule_error(state, ar.Flip(0, 0, 0))
    assert (error.code, error.rule) == ("space_swallowed", "3.10")
    assert [a for a in ar.legal_actions(state) if a.player == 0] == [ar.Flip(0, 0, 1), ar.Flip(0, 1, 1)]


# -- the final reveal (4.3, 6.3) -------------------------------------------------------------


def _final_reveal_game(swallow: bool) -> ar.State:
    """tiny 3 x 3, short: seat 1's columns 0 (5s) and 1 (3s) are completed only by the final
    reveal; seat 0 flips all its cards and closes; seat 1 stalls on (0, 2)."""
    v = tiny(rows=3, cols=3, max_rounds=1, swallow_on_final_reveal=swallow)
    seat0 = [[1, 2, 4], [6, 7, 8], [9, 0, -1]]
    seat1 = [[5, 3, 2], [5, 3, 4], [5, 3, 6]]
    state = stacked(v, 2, grids=[seat0, seat1], discard=7)
    state = open_round(state, {0: [(0, 0), (0, 1)], 1: [(0, 0), (1, 0)]})
    assert state.turn == 1
    for r, c in [(0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]:
        state = play(state, [ar.TakeDiscard(1, 0, 2), ar.Flip(0, r, c)])
    assert state.closer == 0
    state = ar.apply(state, ar.TakeDiscard(1, 0, 2))  # the last turn
    assert state.is_over
    return state


@pytest.mark.rule("4.3", "6.3", "6.4")
def test_final_reveal_swallows_with_the_flag_on() -> None:
    state = _final_reveal_game(True)
    result = state.history[0]
    grid = result.grids[1]
    assert grid.swallowed == (True, True, False) * 3
    assert grid.cards == (None, None, 2, None, None, 4, None, None, 6)
    # seat 0 first (nothing), then seat 1's columns left to right, each from the top row down
    assert state.discard_pile == (3, 3, 3, 5, 5, 5, 7)
    assert result.raw_scores[1] == 2 + 4 + 6
    assert result.raw_scores[0] == sum([1, 2, 4, 6, 7, 8, 9, 0, -1])


@pytest.mark.rule("4.3", "6.3", "6.4")
def test_final_reveal_keeps_columns_with_the_flag_off() -> None:
    state = _final_reveal_game(False)
    result = state.history[0]
    grid = result.grids[1]
    assert grid.swallowed == (False,) * 9 and all(grid.face_up)
    assert [grid.cards[s] for s in (0, 3, 6)] == [5, 5, 5]
    assert [grid.cards[s] for s in (1, 4, 7)] == [3, 3, 3]
    assert result.raw_scores[1] == 15 + 9 + 2 + 4 + 6
    assert state.discard_pile == (7,)
