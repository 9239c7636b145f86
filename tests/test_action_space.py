"""Action indices (spec section 11): the layout, decoding, masks and their errors."""

from __future__ import annotations

import pickle
import random

import pytest

import abyss_rules as ar
from abyss_rules.action_space import ACTION_LAYOUT_VERSION, ActionSpace
from abyss_rules.errors import RULE_OF_CODE, InvalidStateError
from abyss_rules.testing import action_space as every_action_around

STANDARD = ar.Variant.standard()
TINY = ar.Variant(rows=2, cols=1, max_players=3, initial_flips=1)
SHAPES = [
    STANDARD,
    TINY,
    ar.Variant(rows=2, cols=2, max_players=4, initial_flips=0, flip_turn=False),
    ar.Variant(rows=4, cols=3, max_players=2),
    ar.Variant(rows=16, cols=1, max_players=2, deck=((0, 20), (5, 20))),
]


@pytest.mark.rule("11.1", "10.2")
def test_a_space_is_made_from_a_variant_or_a_preset_name() -> None:
    assert ActionSpace("short") == ActionSpace(ar.Variant.short())
    assert ActionSpace("long").variant is ar.Variant.long()
    for bad in ("quick", 3):
        with pytest.raises(ar.ConfigError) as info:
            ActionSpace(bad)  # type: ignore[arg-type]
        assert info.value.code == "invalid_variant"


@pytest.mark.rule("11.1")
def test_the_standard_layout_matches_the_spec_example() -> None:
    space = ActionSpace(STANDARD)
    assert space.size == 49 == 4 * 12 + 1
    assert (space.flip, space.take_discard, space.draw, space.place_drawn, space.discard_drawn) == (0, 12, 24,
                                                                                                   25, 37)
    for seat in (0, 7):
        assert space.index(ar.Flip(seat, 1, 2)) == 6
        assert space.index(ar.TakeDiscard(seat, 0, 0)) == 12
        assert space.index(ar.Draw(seat)) == 24
        assert space.index(ar.PlaceDrawn(seat, 2, 3)) == 36
        assert space.index(ar.DiscardDrawn(seat, 0, 0)) == 37
        assert space.index(ar.DiscardDrawn(seat, 2, 3)) == 48
    assert ActionSpace(ar.Variant(rows=2, cols=2)).size == 17
    assert ActionSpace(ar.Variant(rows=2, cols=2)).index(ar.Draw(0)) == 8


@pytest.mark.rule("11.1", "11.2")
@pytest.mark.parametrize("variant", SHAPES, ids=lambda v: f"{v.rows}x{v.cols}")
def test_every_index_of_every_seat_round_trips(variant: ar.Variant) -> None:
    space = ActionSpace(variant)
    cells = variant.cells
    assert space.size == 4 * cells + 1
    kinds = [ar.Flip] * cells + [ar.TakeDiscard] * cells + [ar.Draw] + [ar.PlaceDrawn] * cells \
        + [ar.DiscardDrawn] * cells
    seen: set[ar.Action] = set()
    for seat in range(variant.max_players):
        actions = space.actions(seat)
        assert len(actions) == space.size
        for k in range(space.size):
            action = space.action(k, seat)
            assert action == actions[k]
            assert type(action) is kinds[k] and action.player == seat
            assert space.index(action) == k
            if not isinstance(action, ar.Draw):
                s = action.row * variant.cols + action.col
                assert 0 <= s < cells and k - s in {0, cells, 2 * cells + 1, 3 * cells + 1}
        seen.update(actions)
    assert len(seen) == space.size * variant.max_players  # one index per action, per seat


@pytest.mark.rule("11.2")
def test_actions_off_the_grid_or_of_missing_seats_have_no_index() -> None:
    space = ActionSpace(TINY)
    legal_somewhere = {a for a in every_action_around(TINY, TINY.max_players)
                       if 0 <= a.player < TINY.max_players
                       and (isinstance(a, ar.Draw) or (0 <= a.row < 2 and a.col == 0))}
    for action in every_action_around(TINY, TINY.max_players):
        if action in legal_somewhere:
            assert space.action(space.index(action), action.player) == action
            continue
        with pytest.raises(ar.ActionIndexError) as caught:
            space.index(action)
        expected = "no_such_player" if not 0 <= action.player < TINY.max_players else "no_such_space"
        assert caught.value.code == expected
        assert caught.value.rule == RULE_OF_CODE[expected]
    with pytest.raises(ar.MalformedActionError) as malformed:
        space.index("draw")  # type: ignore[arg-type]
    assert malformed.value.code == "malformed_action"


@pytest.mark.rule("11.2")
@pytest.mark.parametrize("index", [-1, 49, 50, 10**30, -(10**30)])
def test_an_index_out_of_range_is_refused(index: int) -> None:
    with pytest.raises(ar.ActionIndexError) as caught:
        ActionSpace(STANDARD).action(index, 0)
    assert caught.value.code == "no_such_action_index" and caught.value.rule == "11.2"
    assert isinstance(caught.value, ValueError)
    assert f"{index}" in caught.value.message


@pytest.mark.rule("11.2")
@pytest.mark.parametrize(("index", "player"), [(True, 0), (1.0, 0), ("3", 0), (None, 0), (3, "0"), (3, None),
                                               (3, False)])
def test_a_non_int_index_or_seat_is_malformed(index: object, player: object) -> None:
    with pytest.raises(ar.MalformedActionError) as caught:
        ActionSpace(STANDARD).action(index, player)  # type: ignore[arg-type]
    assert caught.value.code == "malformed_action"


@pytest.mark.rule("11.2")
@pytest.mark.parametrize(("index", "player"), [(49, "0"), (-1, None), (10**30, 1.0), ("x", 10**30)])
def test_the_form_of_both_comes_before_the_range_of_the_index(index: object, player: object) -> None:
    with pytest.raises(ar.MalformedActionError) as caught:
        ActionSpace(STANDARD).action(index, player)  # type: ignore[arg-type]
    assert caught.value.code == "malformed_action"


@pytest.mark.rule("11.2", "1.3", "7.5")
@pytest.mark.parametrize("player", [-1, 2, 8, 100])
def test_a_seat_no_game_has_is_judged_by_apply_in_the_order_of_section_3(player: int) -> None:
    space = ActionSpace(STANDARD)
    action = space.action(0, player)  # decoding judges the index only
    assert action == ar.Flip(player, 0, 0)
    game = ar.new_game(2, seed=1)
    with pytest.raises(ar.IllegalActionError) as caught:
        ar.apply(game, action)
    assert caught.value.code == "no_such_player"
    over = ar.new_game(2, ar.Variant.short(), seed=1)
    while not over.is_over:
        over = ar.apply(over, ar.legal_actions(over)[-1])
    with pytest.raises(ar.IllegalActionError) as caught:
        ar.apply(over, action)
    assert caught.value.code == "game_over"  # check 2 before check 3
    with pytest.raises(ar.ActionIndexError) as index_error:
        space.action(49, player)  # an index out of range, whatever the seat and the state
    assert index_error.value.code == "no_such_action_index"
    if not 0 <= player < STANDARD.max_players:
        with pytest.raises(ar.ActionIndexError) as caught_seat:
            space.actions(player)  # a seat's list of actions still needs a seat of the variant
        assert caught_seat.value.code == "no_such_player"


def test_the_space_is_a_value() -> None:
    a, b = ActionSpace(STANDARD), ActionSpace(ar.Variant.long())
    assert a == b and hash(a) == hash(b)
    assert a != ActionSpace(STANDARD.replace(cols=3))
    assert a != ActionSpace(STANDARD.replace(max_players=7))
    assert a != "ActionSpace"
    assert repr(a) == "ActionSpace(rows=3, cols=4, size=49, layout=1)"
    assert ACTION_LAYOUT_VERSION == 1
    with pytest.raises(ar.ConfigError) as caught:
        ActionSpace(object())  # type: ignore[arg-type]
    assert caught.value.code == "invalid_variant"
    error = ar.ActionIndexError(ar.Code.NO_SUCH_ACTION_INDEX, "index 99")
    assert pickle.loads(pickle.dumps(error)).to_dict() == error.to_dict()


def _random_games(variant: ar.Variant, players: int, games: int, seed: int) -> list[ar.State]:
    rng = random.Random(seed)
    seen = []
    for _ in range(games):
        state = ar.new_game(players, variant, seed=rng.getrandbits(64))
        seen.append(state)
        while not state.is_over:
            legal = ar.legal_actions(state)
            state = ar.apply(state, legal[rng.randrange(len(legal))])
            seen.append(state)
    return seen


GAME_VARIANTS = [
    (STANDARD.replace(max_rounds=2), 2),
    (ar.Variant.short(), 5),
    (ar.Variant(name="2x2-no-flip-turn", rows=2, cols=2, max_players=3, initial_flips=0, flip_turn=False,
                max_rounds=3,
                deck=((1, 6), (2, 8))), 3),
    (ar.Variant(name="2x1-capped", rows=2, cols=1, max_players=2, initial_flips=1, max_rounds=4,
                max_turns_per_round=9,
                reshuffle_keeps_top=False, deck=((0, 3), (7, 3))), 2),
]


@pytest.mark.rule("11.2", "11.3")
@pytest.mark.parametrize(("variant", "players"), GAME_VARIANTS, ids=lambda x: getattr(x, "name", f"{x}p"))
def test_masks_are_the_legal_actions_and_every_legal_action_round_trips(variant: ar.Variant,
                                                                        players: int) -> None:
    space = ActionSpace(variant)
    states = _random_games(variant, players, games=10, seed=players)
    assert len(states) > 200
    for state in states:
        legal = ar.legal_actions(state)
        for action in legal:
            assert space.action(space.index(action), action.player) == action
        for seat in range(players):
            mask = space.mask(state, seat)
            assert len(mask) == space.size
            assert {space.action(k, seat) for k, ok in enumerate(mask) if ok} == {
                a for a in legal if a.player == seat}
            assert space.legal_indices(state, seat) == tuple(k for k, ok in enumerate(mask) if ok)
            if seat not in state.to_act:
                assert not any(mask)
    assert states[-1].is_over and not any(space.mask(states[-1], 0))


@pytest.mark.rule("11.3")
def test_mask_refuses_what_is_not_a_state_of_its_shape_or_a_seat() -> None:
    space = ActionSpace(STANDARD)
    state = ar.new_game(2, seed=1)
    for bad, code in [("state", "invalid_state"), (ar.new_game(2, ar.Variant(rows=2, cols=2), seed=1),
                                                   "invalid_state")]:
        with pytest.raises(InvalidStateError) as caught:
            space.mask(bad, 0)  # type: ignore[arg-type]
        assert caught.value.code == code
    with pytest.raises(ar.ActionIndexError) as seat:
        space.mask(state, 2)
    assert seat.value.code == "no_such_player"
    with pytest.raises(ar.MalformedActionError):
        space.mask(state, "0")  # type: ignore[arg-type]
    # another variant of the same shape is fine: the layout depends on the shape only (rule 11.1)
    assert space.mask(ar.new_game(2, ar.Variant.short(), seed=1), 0) == space.mask(state, 0)
