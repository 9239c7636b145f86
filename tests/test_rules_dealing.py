"""Dealing a round (spec rules 1.3, 1.4; explicit orders 9.6)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tests.builders import cards_in_play, deck_order, finish_round, open_round, play, stacked, tiny

import abyss_rules as ar
from abyss_rules.config import MAX_PLAYERS
from abyss_rules.randomness import _shuffled_pure, normalize_seed


@pytest.mark.rule("1.4", "1.1")
def test_spec_example_seed_42() -> None:
    state = ar.new_game(2, ar.Variant.standard(), seed=42)
    assert [list(state.grid(0).cards[r * 4:r * 4 + 4]) for r in range(3)] == [
        [3, 6, 3, 8], [2, 2, 8, 6], [-1, 10, 5, 5]]
    assert [list(state.grid(1).cards[r * 4:r * 4 + 4]) for r in range(3)] == [
        [5, 3, 7, -2], [6, 9, 1, 12], [4, -1, 12, -2]]
    assert state.face_up_mask == 0 and state.swallowed_mask == 0
    assert state.discard_pile == (-1,)
    assert len(state.draw_pile) == 125 and state.draw_pile[0] == -1
    assert cards_in_play(state) == Counter(ar.Variant.standard().unshuffled_deck)


@pytest.mark.rule("1.4", "9.6")
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_deal_order_of_an_explicit_deck(players: int) -> None:
    v = tiny()
    order = deck_order(v, players)
    state = ar.new_game(players, v, seed=0, decks=[order])
    cells = 4
    for p in range(players):
        assert state.grid(p).cards == tuple(order[p * cells:(p + 1) * cells])
        assert state.grid(p).face_down == (0, 1, 2, 3)
    assert state.discard_pile == (order[players * cells],)
    assert state.draw_pile == tuple(order[players * cells + 1:])
    assert state.dealer.position == 0


@pytest.mark.rule("1.4")
@pytest.mark.rule("9.6")
@pytest.mark.parametrize("decks", [0, "abc", b"ab", 1.5, [0], [None], [[1, 2]]])
def test_deck_orders_that_are_not_a_sequence_of_orders_are_refused(decks: Any) -> None:
    with pytest.raises(ar.ConfigError) as refused:
        ar.new_game(2, seed=1, decks=decks)
    assert refused.value.code == "invalid_deck_order"


def test_spaces_are_filled_in_index_order() -> None:
    v = ar.Variant.standard()
    rows = [[-2, -1, 0, 1], [2, 3, 4, 5], [6, 7, 8, 9]]
    state = stacked(v, 3, grids=[None, rows, None], discard=12, draw=[11, 10])
    assert state.grid(1).cards == tuple(range(-2, 10))
    assert state.discard_pile == (12,) and state.draw_pile[:2] == (11, 10)
    assert len(state.draw_pile) == 150 - 36 - 1


@pytest.mark.rule("1.3")
@pytest.mark.parametrize("players", [0, 1, 9, -2, True, "2", 2.0, None])
def test_player_count_out_of_range_is_refused(players: Any) -> None:
    with pytest.raises(ar.ConfigError) as caught:
        ar.new_game(players, ar.Variant.standard(), seed=1)
    assert caught.value.code == ar.Code.INVALID_PLAYERS and caught.value.rule == "1.3"


@pytest.mark.rule("1.3")
def test_player_range_follows_the_variant() -> None:
    assert ar.new_game(8, seed=1).players == 8
    assert ar.new_game(2, seed=1).players == 2
    one = ar.Variant(min_players=1, max_players=3, deck=[[v, 10] for v in range(5)])
    assert ar.new_game(1, one, seed=1).players == 1
    with pytest.raises(ar.ConfigError):
        ar.new_game(4, one, seed=1)


@pytest.mark.rule("10.3")
def test_variant_must_be_a_variant() -> None:
    with pytest.raises(ar.ConfigError) as caught:
        ar.new_game(2, {"rows": 3}, seed=1)  # type: ignore[arg-type]
    assert caught.value.code == ar.Code.INVALID_VARIANT


@pytest.mark.rule("10.2")
@pytest.mark.parametrize("name", ["standard", "short", "long"])
def test_a_preset_name_is_a_variant(name: str) -> None:
    assert ar.new_game(2, name, seed=1) == ar.new_game(2, ar.Variant.presets()[name], seed=1)
    assert ar.new_game(2, variant=name, seed=1).variant is ar.Variant.preset(name)


@pytest.mark.rule("10.2")
@pytest.mark.parametrize("name", ["quick", "Short", ""])
def test_an_unknown_preset_name_is_an_invalid_variant(name: str) -> None:
    with pytest.raises(ar.ConfigError) as caught:
        ar.new_game(2, name, seed=1)
    assert caught.value.code == ar.Code.INVALID_VARIANT and "standard" in caught.value.message


@pytest.mark.rule("1.4", "2.1")
def test_a_new_game_starts_in_the_opening_of_round_1() -> None:
    state = ar.new_game(3, seed=9)
    assert (state.phase, state.round, state.seq, state.turns) == (ar.Phase.OPENING, 1, 0, 0)
    assert state.totals == (0, 0, 0) and state.history == () and state.closer is None


@pytest.mark.rule("1.4", "7.2")
def test_every_round_is_dealt_from_the_full_deck_with_nothing_carried_over() -> None:
    v = tiny(target_score=1000)
    # round 1: seat 0 swallows its column 0 (two 3s) in the opening; round 2 from a second order
    second = deck_order(v, 2, grids=[[9, 8, 7, 6], [5, 4, 3, 2]], discard=1, draw=[0])
    state = stacked(v, 2, grids=[[3, 1, 3, 2], [4, 5, 6, 7]], discard=8, later=[second])
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (0, 1)]})
    assert state.swallowed_mask != 0 and len(state.discard_pile) == 3
    state = finish_round(state)
    assert state.round == 2 and state.phase is ar.Phase.OPENING
    assert state.swallowed_mask == 0 and state.face_up_mask == 0
    assert state.drawn is None and state.closer is None
    assert list(state.cards + state.discard_pile + state.draw_pile) == second
    assert cards_in_play(state) == Counter(v.unshuffled_deck)
    assert len(state.history) == 1 and state.totals == state.history[0].totals != (0, 0)
    # round 3 is shuffled from the stream: again the full deck, face down, one discard
    state = finish_round(state)
    assert state.round == 3 and state.swallowed_mask == 0 and state.face_up_mask == 0
    assert len(state.discard_pile) == 1 and len(state.draw_pile) == 44 - 8 - 1
    assert cards_in_play(state) == Counter(v.unshuffled_deck)


@pytest.mark.rule("1.4", "2.1", "2.3")
def test_no_opening_with_zero_initial_flips() -> None:
    state = ar.new_game(3, ar.Variant.standard().replace(initial_flips=0), seed=4)
    assert state.phase is ar.Phase.TURN and state.turn == 0  # all tie: seat 0 opens
    assert state.opening == ((), (), ())
    state = play(state, [ar.Flip(0, 0, 0)])
    assert state.turn == 1


@pytest.mark.rule("1.3", "1.4", "9.4", "9.5")
def test_every_seat_count_is_dealt_from_the_pure_shuffle_of_the_stream() -> None:
    # `new_game` shuffles through `randomness.shuffled`, in C where the wheel has it: its deal is
    # the pure shuffle's, laid out by rule 1.4, for every seat count a variant may have (rule 10.3).
    variant = ar.Variant(min_players=1, max_players=MAX_PLAYERS,
                         deck=tuple((value, 13) for value in range(-2, 13)))
    for players in range(1, MAX_PLAYERS + 1):
        for seed in (players, 2**255 + players):
            state = ar.new_game(players, variant, seed=seed)
            order, position = _shuffled_pure(normalize_seed(seed), 0, variant.unshuffled_deck)
            dealt = players * variant.cells
            assert state.cards == order[:dealt] and state.discard_pile == order[dealt:dealt + 1]
            assert state.draw_pile == order[dealt + 1:] and state.dealer.position == position
