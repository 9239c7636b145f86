"""The draw pile running out: reshuffles and the draw that cannot be made (spec section 5)."""

from __future__ import annotations

from collections import Counter

import pytest
from tests.builders import ZERO_SEED, cards_in_play, hand_built, open_round, rule_error, stacked, tiny

import abyss_rules as ar
from abyss_rules.randomness import normalize_seed, shuffled


def _empty_draw_pile(discard: tuple[int, ...], keeps_top: bool = True) -> ar.State:
    """Seat 0 to play, the draw pile empty, the given discard pile, the all-zero seed at 0."""
    base = stacked(tiny(reshuffle_keeps_top=keeps_top), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    base = open_round(base, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    return hand_built(base, seed=ZERO_SEED, position=0, turn=0, draw_pile=(), discard_pile=discard)


@pytest.mark.rule("5.1", "3.4", "9.4")
def test_spec_example_reshuffle_keeping_the_top() -> None:
    state = _empty_draw_pile((5, 9, -1, 3))
    assert shuffled(ZERO_SEED, 0, [9, -1, 3]) == ((3, 9, -1), 2)
    after = ar.apply(state, ar.Draw(0))
    assert after.discard_pile == (5,)
    assert after.drawn == 3 and after.draw_pile == (9, -1)
    assert after.dealer.position == 2
    assert after.phase is ar.Phase.DRAWN and after.turn == 0


@pytest.mark.rule("5.2", "3.4", "9.4")
def test_spec_example_reshuffle_without_keeping_the_top() -> None:
    state = _empty_draw_pile((5, 9, -1, 3), keeps_top=False)
    assert shuffled(ZERO_SEED, 0, [5, 9, -1, 3]) == ((5, 3, -1, 9), 3)
    after = ar.apply(state, ar.Draw(0))
    assert after.discard_pile == (5,)
    assert after.drawn == 3 and after.draw_pile == (-1, 9)
    assert after.dealer.position == 3


@pytest.mark.rule("5.3", "8.1")
def test_the_count_starts_over() -> None:
    state = _empty_draw_pile((5, 9, -1, 3))
    before = ar.view(state, 1)
    assert before.discard_pile == (5, 9, -1, 3) and before.draw_pile_size == 0
    after = ar.view(ar.apply(state, ar.Draw(0)), 1)
    assert after.discard_pile == (5,)
    assert after.draw_pile_size == 2 and after.drawn == 3


@pytest.mark.rule("5.4")
@pytest.mark.parametrize("keeps_top", [True, False])
def test_no_card_to_be_had(keeps_top: bool) -> None:
    state = _empty_draw_pile((6,), keeps_top)
    error = rule_error(state, ar.Draw(0))
    assert (error.code, error.rule) == ("no_card_to_draw", "5.4")
    legal = ar.legal_actions(state)
    assert ar.Draw(0) not in legal
    assert {type(a) for a in legal} == {ar.TakeDiscard, ar.Flip}  # take the discard or flip


@pytest.mark.rule("5.4", "5.1")
def test_two_discards_are_enough_to_draw_keeping_the_top() -> None:
    state = _empty_draw_pile((6, 2))
    assert ar.Draw(0) in ar.legal_actions(state)
    after = ar.apply(state, ar.Draw(0))
    assert (after.drawn, after.draw_pile, after.discard_pile) == (2, (), (6,))
    assert after.dealer.position == 0  # a one-card list is not shuffled: no word used


@pytest.mark.rule("5.4", "5.2")
def test_two_discards_are_enough_to_draw_without_keeping_the_top() -> None:
    state = _empty_draw_pile((6, 2), keeps_top=False)
    after = ar.apply(state, ar.Draw(0))
    mixed, position = shuffled(ZERO_SEED, 0, [6, 2])
    assert after.discard_pile == mixed[:1] and after.drawn == mixed[1] and after.draw_pile == ()
    assert after.dealer.position == position == 1


@pytest.mark.rule("5.4")
def test_a_non_empty_draw_pile_is_always_drawable() -> None:
    base = _empty_draw_pile((6,))
    state = hand_built(base, draw_pile=(4,))
    after = ar.apply(state, ar.Draw(0))
    assert after.drawn == 4 and after.draw_pile == () and after.discard_pile == (6,)
    # the next player finds nothing to draw
    after = ar.apply(after, ar.PlaceDrawn(0, 0, 0))
    assert after.discard_pile == (1, 6) and after.turn == 1
    assert ar.check(after, ar.Draw(1)) is None  # two discards: a reshuffle can make one


def _drain(state: ar.State) -> ar.State:
    """Draw-and-place on face-up spaces until the draw pile is empty at the start of a turn."""
    while state.draw_pile:
        state = ar.apply(state, ar.Draw(state.turn))
        grid = state.grid(state.turn)
        space = next(s for s in grid.remaining if grid.face_up[s])
        state = ar.apply(state, ar.PlaceDrawn(state.turn, *divmod(space, 2)))
    return state


@pytest.mark.rule("5.1", "5.3", "9.5")
def test_reshuffle_in_a_played_game_keeping_the_top() -> None:
    v = tiny()
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], seed=21)
    state = _drain(open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]]))
    assert state.round == 1 and len(state.discard_pile) == 44 - 8 - 1 + 1
    discard = state.discard_pile
    after = ar.apply(state, ar.Draw(state.turn))
    expected, position = shuffled(normalize_seed(21), 0, discard[1:])
    assert after.discard_pile == discard[:1]
    assert (after.drawn, *after.draw_pile) == expected
    assert after.dealer.position == position
    assert cards_in_play(after) == Counter(v.unshuffled_deck)


@pytest.mark.rule("5.2", "5.3", "9.5")
def test_reshuffle_in_a_played_game_without_keeping_the_top() -> None:
    v = tiny(reshuffle_keeps_top=False)
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], seed=21)
    state = _drain(open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]]))
    discard = state.discard_pile
    after = ar.apply(state, ar.Draw(state.turn))
    mixed, position = shuffled(normalize_seed(21), 0, discard)
    assert after.discard_pile == mixed[:1]
    assert (after.drawn, *after.draw_pile) == mixed[1:]
    assert after.dealer.position == position
    assert cards_in_play(after) == Counter(v.unshuffled_deck)
    # the second reshuffle goes on from there in the same stream
    again = _drain(ar.apply(after, ar.PlaceDrawn(after.turn, 0, 0)))
    discard2 = again.discard_pile
    after2 = ar.apply(again, ar.Draw(again.turn))
    mixed2, position2 = shuffled(normalize_seed(21), position, discard2)
    assert (after2.discard_pile, (after2.drawn, *after2.draw_pile)) == (mixed2[:1], mixed2[1:])
    assert after2.dealer.position == position2
