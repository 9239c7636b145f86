"""Turns: order, the three options, taking, drawing, placing, discarding, flipping (spec section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from tests.builders import hand_built, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar

STD = ar.Variant.standard()
TOP = [(0, 0), (0, 1)]

# Seat 0 flips 10 + 12 and opens; seat 1 flips 1 + 2.
SEAT0 = [[10, 12, 3, 5], [1, 2, 4, 6], [7, 11, 8, -1]]
SEAT1 = [[1, 2, 3, 4], [5, 6, 7, 2], [8, 11, 9, 0]]


def opened(
    grids: Sequence[Any] = (SEAT0, SEAT1),
    discard: int = 9,
    draw: Sequence[int] = (4, 12, 7, 0, 3),
    variant: ar.Variant = STD,
) -> ar.State:
    state = stacked(variant, len(grids), grids=list(grids), discard=discard, draw=draw)
    state = open_round(state, [TOP] * len(grids))
    assert state.phase is ar.Phase.TURN
    return state


def kinds(state: ar.State) -> set[type]:
    return {type(a) for a in ar.legal_actions(state)}


@pytest.mark.rule("3.1")
def test_turns_pass_in_increasing_seat_order_wrapping_around() -> None:
    grids = [None, None, [[12, 11, 1, 2], [3, 4, 5, 6], [7, 8, 9, 10]], None]
    state = stacked(STD, 4, grids=grids)
    state = open_round(state, [TOP] * 4)
    seats = []
    for _ in range(8):
        seats.append(state.turn)
        flip = next(a for a in ar.legal_actions(state) if isinstance(a, ar.Flip))
        state = ar.apply(state, flip)
    assert seats == [2, 3, 0, 1, 2, 3, 0, 1]


@pytest.mark.rule("3.2")
def test_the_three_turn_options() -> None:
    state = opened()
    assert state.turn == 0
    assert kinds(state) == {ar.TakeDiscard, ar.Draw, ar.Flip}
    drawn = ar.apply(state, ar.Draw(0))
    assert drawn.phase is ar.Phase.DRAWN and drawn.turn == 0
    assert kinds(drawn) == {ar.PlaceDrawn, ar.DiscardDrawn}
    # the spec's example: in the drawn phase, take and flip are of the wrong phase
    for action in (ar.TakeDiscard(0, 0, 0), ar.Flip(0, 0, 2), ar.Draw(0)):
        error = rule_error(drawn, action)
        assert (error.code, error.rule) == ("wrong_phase", "3.2")
    for action in (ar.PlaceDrawn(0, 0, 0), ar.DiscardDrawn(0, 0, 2)):
        error = rule_error(state, action)
        assert (error.code, error.rule) == ("wrong_phase", "3.2")


@pytest.mark.rule("3.2", "3.7")
def test_flip_turn_off_gives_the_two_option_turn() -> None:
    state = opened(variant=STD.replace(flip_turn=False))
    assert kinds(state) == {ar.TakeDiscard, ar.Draw}
    error = rule_error(state, ar.Flip(0, 2, 3))
    assert (error.code, error.rule) == ("flip_turn_disabled", "3.7")
    # discarding a drawn card still flips (3.6)
    state = play(state, [ar.Draw(0), ar.DiscardDrawn(0, 2, 3)])
    assert state.grid(0).visible[11] == -1 and state.turn == 1


@pytest.mark.rule("3.3", "3.8")
def test_take_discard_spec_example() -> None:
    # seat 0 draws the 4 and discards it (flipping its (1, 1)): the discard pile is [4, 9]
    state = play(opened(), [ar.Draw(0), ar.DiscardDrawn(0, 1, 1)])
    assert state.discard_pile == (4, 9) and state.turn == 1
    # seat 1 takes the 4 and places it on its face-down 11 at (2, 1)
    after = ar.apply(state, ar.TakeDiscard(1, 2, 1))
    grid = after.grid(1)
    assert grid.cards[9] == 4 and grid.face_up[9]
    assert after.discard_pile == (11, 9)
    assert after.turn == 0 and after.phase is ar.Phase.TURN and after.turns == state.turns + 1
    assert after.draw_pile == state.draw_pile  # nothing drawn


@pytest.mark.rule("3.3", "3.8", "3.10")
def test_take_discard_onto_a_face_up_card() -> None:
    state = opened()
    after = ar.apply(state, ar.TakeDiscard(0, 0, 0))  # the face-up 10
    assert after.grid(0).visible[0] == 9
    assert after.discard_pile == (10,)


@pytest.mark.rule("3.4")
def test_draw_shows_the_top_card_and_keeps_the_turn() -> None:
    state = opened(draw=(7, 0, 3))
    after = ar.apply(state, ar.Draw(0))
    assert after.drawn == 7 and after.phase is ar.Phase.DRAWN and after.turn == 0
    assert after.draw_pile == state.draw_pile[1:] and after.draw_pile[0] == 0
    assert after.discard_pile == state.discard_pile and after.cards == state.cards
    assert after.turns == state.turns  # drawing does not complete the turn
    assert ar.view(after, 1).drawn == 7  # seen by everyone
    assert rule_error(after, ar.PlaceDrawn(1, 0, 0)).code == "not_your_turn"


@pytest.mark.rule("3.5", "3.8")
def test_place_drawn_spec_example() -> None:
    # a drawn 0 placed on the face-up 10 at (0, 0): the 10 is the new top discard
    state = opened(draw=(0, 3))
    after = play(state, [ar.Draw(0), ar.PlaceDrawn(0, 0, 0)])
    assert after.grid(0).visible[0] == 0
    assert after.discard_pile == (10, 9)
    assert after.turn == 1 and after.drawn is None and after.turns == 1


@pytest.mark.rule("3.5", "3.8")
def test_placing_on_a_face_down_card_reveals_it_on_the_discard() -> None:
    # the spec's 3.8 example: a drawn 3 on the face-down (0, 1) of seat 1, which holds a 12
    grids = [SEAT0, [[1, 12, 3, 4], [5, 6, 7, 2], [8, 11, 9, 0]]]
    state = stacked(STD, 2, grids=grids, discard=9, draw=[3, 4])
    state = open_round(state, [TOP, [(1, 0), (1, 1)]])
    state = play(state, [ar.Flip(0, 2, 3)])
    assert state.turn == 1 and not state.grid(1).face_up[1]
    after = play(state, [ar.Draw(1), ar.PlaceDrawn(1, 0, 1)])
    assert after.grid(1).visible[1] == 3 and after.grid(1).face_up[1]
    assert after.discard_pile == (12, 9)
    # and seat 0 places the drawn 4 on its face-down (1, 2), which holds a 4
    again = play(after, [ar.Draw(0), ar.PlaceDrawn(0, 1, 2)])
    assert again.grid(0).visible[6] == 4 and again.discard_pile == (4, 12, 9)


@pytest.mark.rule("3.6")
def test_discard_drawn_spec_example() -> None:
    # seat 1 draws a 12 and discards it, flipping its (1, 3): a 2
    state = play(opened(draw=(12, 4)), [ar.Flip(0, 2, 3)])
    assert state.turn == 1
    after = play(state, [ar.Draw(1), ar.DiscardDrawn(1, 1, 3)])
    assert after.discard_pile == (12, 9)
    assert after.grid(1).visible[7] == 2
    assert after.turn == 0 and after.drawn is None
    assert after.cards == state.cards  # no card placed


@pytest.mark.rule("3.6", "3.10")
def test_without_a_face_down_card_a_drawn_card_must_be_placed() -> None:
    base = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9)
    state = hand_built(base, phase=ar.Phase.DRAWN, turn=0, face_up_mask=0b1111, drawn=0,
                       opening=((1, 2), (5, 6)), draw_pile=base.draw_pile[1:])
    assert ar.legal_actions(state) == tuple(ar.PlaceDrawn(0, r, c) for r in (0, 1) for c in (0, 1))
    error = rule_error(state, ar.DiscardDrawn(0, 0, 0))
    assert (error.code, error.rule) == ("space_face_up", "3.10")


@pytest.mark.rule("3.7")
def test_flip_only_spec_example() -> None:
    state = opened()
    after = ar.apply(state, ar.Flip(0, 2, 3))
    assert after.grid(0).visible[11] == -1
    assert after.turn == 1 and after.turns == 1
    assert after.discard_pile == state.discard_pile and after.draw_pile == state.draw_pile
    assert after.cards == state.cards


@pytest.mark.rule("3.9")
def test_only_the_current_player_acts() -> None:
    state = play(opened(), [ar.Flip(0, 2, 3)])
    assert state.turn == 1
    for action in (ar.Draw(0), ar.TakeDiscard(0, 0, 0), ar.Flip(0, 1, 0)):
        error = rule_error(state, action)
        assert (error.code, error.rule) == ("not_your_turn", "3.9")
    assert ar.check(state, ar.Draw(1)) is None


@pytest.mark.rule("3.2", "6.7")
def test_turns_count_completed_turns_only() -> None:
    state = opened()
    assert state.turns == 0
    state = ar.apply(state, ar.Draw(0))
    assert state.turns == 0
    counts = []
    for action in (ar.PlaceDrawn(0, 1, 0), ar.TakeDiscard(1, 0, 0), ar.Flip(0, 1, 1)):
        state = ar.apply(state, action)
        counts.append(state.turns)
    state = play(state, [ar.Draw(1), ar.DiscardDrawn(1, 2, 2)])
    counts.append(state.turns)
    assert counts == [1, 2, 3, 4]
