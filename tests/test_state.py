"""The state: an immutable, hashable value that hides its secrets when printed."""

from __future__ import annotations

import copy
import pickle

import pytest
from tests.builders import open_round, play, stacked, tiny

import abyss_rules as ar
from abyss_rules.errors import SeatError


def test_states_compare_and_hash_by_value() -> None:
    a = ar.new_game(2, seed=5)
    b = ar.new_game(2, seed=5)
    assert a == b and hash(a) == hash(b) and a is not b
    assert (a != b) is False
    c = ar.new_game(2, seed=6)
    assert a != c
    after = ar.apply(a, ar.Flip(0, 0, 0))
    assert after != a
    assert after == ar.apply(b, ar.Flip(0, 0, 0))
    assert len({a, b, c, after}) == 3


def test_a_state_never_equals_a_plain_tuple() -> None:
    state = ar.new_game(2, seed=5)
    as_tuple = tuple(state)
    assert state != as_tuple
    assert as_tuple != state
    assert (state == as_tuple) is False and (as_tuple == state) is False
    assert state != list(state)


@pytest.mark.rule("8.2")
def test_repr_hides_the_seed_and_the_cards() -> None:
    seed = bytes(range(32))
    state = ar.new_game(2, seed=seed)
    text = repr(state)
    assert text == "<State round=1 phase=opening turn=None players=2 seq=0 totals=[0, 0]>"
    assert seed.hex() not in text and str(list(seed)) not in text
    dealer = repr(state.dealer)
    assert "<secret>" in dealer and seed.hex() not in dealer and repr(seed) not in dealer
    assert str(state) == text


def test_copies_are_the_same_value() -> None:
    state = ar.new_game(2, seed=5)
    assert copy.copy(state) is state
    assert copy.deepcopy(state) is state
    again = pickle.loads(pickle.dumps(state))
    assert again == state and type(again) is ar.State


@pytest.mark.rule("2.1", "3.2")
def test_read_access_in_the_opening() -> None:
    state = ar.new_game(3, seed=5)
    assert state.players == 3
    assert state.phase is ar.Phase.OPENING and not state.is_over
    assert state.turn is None
    assert state.owing_flips == (0, 1, 2) and state.to_act == (0, 1, 2)
    assert state.top_discard == state.discard_pile[0]
    assert state.draw_pile_size == len(state.draw_pile) == 150 - 3 * 12 - 1
    assert state.last_round is None and state.history == ()
    assert state.winners == ()
    assert [state.face_down_count(p) for p in range(3)] == [12, 12, 12]
    assert state.opening == ((), (), ()) and state.seq == 0 and state.turns == 0
    assert state.round == 1 and state.totals == (0, 0, 0) and state.closer is None and state.drawn is None


@pytest.mark.rule("3.4", "3.2")
def test_read_access_in_a_turn() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0])
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    assert state.phase is ar.Phase.TURN and state.turn == 1  # 5 + 6 beats 1 + 2
    assert state.turn == 1 and state.to_act == (1,) and state.owing_flips == ()
    assert state.opening == ((1, 2), (5, 6))
    assert [state.face_down_count(p) for p in range(2)] == [2, 2]
    state = ar.apply(state, ar.Draw(1))
    assert state.phase is ar.Phase.DRAWN and state.drawn == 0 and state.to_act == (1,)
    assert state.seq == 5


def test_apply_never_mutates_its_input() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0])
    snapshot = tuple(state)
    hashed = hash(state)
    after = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    after = play(after, [ar.Draw(1), ar.PlaceDrawn(1, 1, 1)])
    assert tuple(state) == snapshot and hash(state) == hashed
    assert state.phase is ar.Phase.OPENING and state.face_up_mask == 0
    assert after.seq == 6


@pytest.mark.rule("1.3")
@pytest.mark.parametrize("seat", [99, 2, -1])
def test_face_down_count_of_a_seat_that_is_not_there_is_refused(seat: int) -> None:
    state = ar.new_game(2, seed=1)
    with pytest.raises(SeatError) as caught:
        state.face_down_count(seat)
    assert caught.value.code == "no_such_player"
    with pytest.raises(ar.MalformedActionError):
        state.face_down_count("0")  # type: ignore[arg-type]
    assert [state.face_down_count(p) for p in (0, 1)] == [12, 12]
