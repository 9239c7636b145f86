"""Scoring a round and ending the game (spec rules 6.4, 6.5, 7.1-7.5)."""

from __future__ import annotations

import pytest
from tests.builders import deck_order, finish_round, hand_built, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar
from abyss_rules.rules import closer_penalty_applies, game_is_over, round_scores, winners

# -- round score (6.4) ----------------------------------------------------------------------------


@pytest.mark.rule("6.4")
def test_spec_example_round_score_with_a_swallowed_column() -> None:
    # 3 x 4, column 0 swallowed (its spaces hold 0 in the flat representation)
    cards = (0, 3, -2, 5, 0, 0, 0, 12, 0, 1, 4, -1)
    assert round_scores(cards, players=1, cells=12) == (22,)
    assert round_scores((1, 2, 0, -2, 12, 12), players=2, cells=3) == (3, 22)


# -- the closer penalty (6.5), played out ---------------------------------------------------------


def _closing_game(seat0: list[int], seat1: list[int], **changes: object) -> ar.RoundResult:
    """No opening flips (seat 0 opens); both flip every turn; seat 0 closes on turn 7 and
    seat 1 reveals its last card on turn 8. The grids have no equal columns."""
    v = tiny(initial_flips=0, max_rounds=1, **changes)
    state = stacked(v, 2, grids=[seat0, seat1])
    for space in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        state = play(state, [ar.Flip(0, *space)])
        if space == (1, 1):
            assert state.closer == 0
        state = play(state, [ar.Flip(1, *space)])
    assert state.is_over
    result = state.history[0]
    assert result.closer == 0 and result.raw_scores == (sum(seat0), sum(seat1))
    assert state.totals == result.scores == result.totals
    return result


@pytest.mark.rule("6.5")
@pytest.mark.parametrize(
    ("seat0", "seat1", "scores", "penalized"),
    [
        ([6, 5, -2, -2], [1, 2, 0, 4], (14, 7), True),     # 7 against 7: tied for lowest, doubled
        ([6, 5, -2, -2], [1, 2, 0, 5], (7, 8), False),     # 7 against 8: strictly lowest
        ([6, 5, -2, -2], [1, 2, 0, 0], (14, 3), True),     # 7 against 3: doubled
        ([2, -1, -1, 0], [-2, 1, 0, 0], (0, -1), False),   # a closer at 0 is never doubled
        ([2, -1, -1, 0], [3, 1, -2, -2], (0, 0), False),   # not even when tied
        ([-2, 1, 0, 0], [-2, -1, 0, 1], (-1, -2), False),  # negative: never doubled
        ([1, 2, 0, 0], [-2, 1, 0, 3], (6, 2), True),       # 3 against 2: doubled
        ([1, 0, 0, 2], [9, 8, 7, 6], (3, 30), False),
    ],
)
def test_closer_penalty(seat0: list[int], seat1: list[int], scores: tuple[int, int], penalized: bool) -> None:
    result = _closing_game(seat0, seat1)
    assert result.scores == scores
    assert result.penalized is penalized


@pytest.mark.rule("6.5")
def test_multiplier_1_disables_the_penalty() -> None:
    result = _closing_game([6, 5, -2, -2], [1, 2, 0, 4], closer_multiplier=1)
    assert result.scores == (7, 7) and result.penalized is False


@pytest.mark.rule("6.5")
def test_custom_multiplier_3() -> None:
    result = _closing_game([6, 5, -2, -2], [1, 2, 0, 4], closer_multiplier=3)
    assert result.scores == (21, 7) and result.penalized is True and result.raw_scores == (7, 7)


@pytest.mark.rule("6.5")
def test_closer_penalty_applies_spec_examples() -> None:
    assert closer_penalty_applies((7, 12, 7), closer=2)        # tied for lowest: 14
    assert not closer_penalty_applies((7, 12, 6), closer=2)    # 6 against 7 and 12
    assert not closer_penalty_applies((-5, 0, -3), closer=2)   # -3 against -5
    assert not closer_penalty_applies((0, 0), closer=0)        # 0
    assert closer_penalty_applies((1, 50, 1, 60), closer=0)
    assert not closer_penalty_applies((5,), closer=0)          # alone


# -- totals, target, round limit, winners (7.1-7.4) ----------------------------------------------

SEAT0_10 = [[1, 0, 2, 0], [-1, 3, 0, 1], [2, -2, 4, 0]]   # sum 10, no equal columns
SEAT0_9 = [[1, 0, 2, 0], [-1, 3, 0, 1], [2, -2, 4, -1]]   # sum 9
SEAT1_31 = [[9, 8, 1, 2], [3, 1, 0, 2], [1, 2, 3, -1]]    # sum 31; flips 9 + 8: seat 1 opens


def _one_round(variant: ar.Variant, seat0: list[list[int]], totals: tuple[int, int]) -> ar.State:
    """Deal, set the totals so far by hand, play flip-only turns to the end of the round.
    Seat 1 opens, closes first with 31 against seat 0's 9 or 10, and is doubled to 62."""
    state = stacked(variant, 2, grids=[seat0, SEAT1_31])
    state = hand_built(state, totals=totals)
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    assert state.turn == 1
    state = finish_round(state)
    assert state.history[-1].closer == 1 and state.history[-1].scores[1] == 62
    return state


@pytest.mark.rule("7.2", "7.1")
@pytest.mark.parametrize(
    ("variant", "before", "over"),
    [
        (ar.Variant.standard(), 90, True),    # 90 + 10 = 100: at the target
        (ar.Variant.standard(), 89, False),   # 99
        (ar.Variant.long(), 140, True),       # 150
        (ar.Variant.long(), 139, False),      # 149
        (ar.Variant.long(), 90, False),       # 100 does not end the long game
    ],
    ids=["standard-100", "standard-99", "long-150", "long-149", "long-100"],
)
def test_target_score(variant: ar.Variant, before: int, over: bool) -> None:
    state = _one_round(variant, SEAT0_10, (before, 0))
    assert state.totals == (before + 10, 62)
    assert state.is_over is over
    if over:
        assert state.phase is ar.Phase.GAME_OVER and state.round == 1 and state.winners == (1,)
    else:
        assert state.phase is ar.Phase.OPENING and state.round == 2 and state.winners == ()
        assert state.history[0].totals == state.totals


@pytest.mark.rule("7.2")
def test_target_reached_by_the_other_player() -> None:
    state = _one_round(ar.Variant.standard(), SEAT0_9, (0, 38))  # seat 1: 38 + 62 = 100
    assert state.totals == (9, 100) and state.is_over and state.winners == (0,)


@pytest.mark.rule("7.1")
def test_totals_add_up_over_rounds() -> None:
    v = tiny(target_score=1000, max_rounds=3)
    second = deck_order(v, 2, grids=[[5, 6, 7, 8], [0, 1, 2, 3]])
    state = stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]], later=[second], seed=9)
    state = finish_round(finish_round(finish_round(state)))
    assert state.is_over and len(state.history) == 3
    running = (0, 0)
    for result in state.history:
        running = tuple(t + s for t, s in zip(running, result.scores, strict=True))
        assert result.totals == running
    assert state.totals == running
    assert state.history[0].scores == (20, 10)
    assert state.history[1].raw_scores == (26, 6)


@pytest.mark.rule("7.3", "10.2")
def test_short_preset_ends_after_one_round_whatever_the_scores() -> None:
    state = _one_round(ar.Variant.short(), SEAT0_10, (0, 0))
    assert state.is_over and state.round == 1 and len(state.history) == 1
    assert state.totals == (10, 62)  # the round's scores, penalty included
    assert max(state.totals) < 100


@pytest.mark.rule("7.3")
def test_round_limit_without_target() -> None:
    v = tiny(target_score=None, max_rounds=2)
    state = finish_round(stacked(v, 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]]))
    assert not state.is_over and state.round == 2
    state = finish_round(state)
    assert state.is_over and state.round == 2 and len(state.history) == 2


@pytest.mark.rule("7.2", "7.3")
def test_game_is_over_directly() -> None:
    v = ar.Variant.standard()
    assert game_is_over(v, 1, (100, 0)) and game_is_over(v, 7, (87, 100, 64))
    assert not game_is_over(v, 7, (87, 99, 64))
    assert game_is_over(ar.Variant.short(), 1, (3, 4))
    assert not game_is_over(ar.Variant.long(), 1, (149, 0))
    assert game_is_over(v.replace(max_rounds=3), 3, (0, 0))


@pytest.mark.rule("7.4")
def test_winners() -> None:
    assert winners((104, 61, 61, 88)) == (1, 2)  # the spec's example: a shared win
    assert winners((12, 7, 7)) == (1, 2)
    assert winners((5,)) == (0,)
    assert winners((-3, 0)) == (0,)


@pytest.mark.rule("7.4", "6.5")
def test_a_shared_win_in_a_played_game() -> None:
    # 3 against 3, no penalty (multiplier 1): both seats win
    v = tiny(initial_flips=0, max_rounds=1, closer_multiplier=1)
    state = finish_round(stacked(v, 2, grids=[[1, 2, 0, 0], [0, 1, 2, 0]]))
    assert state.is_over and state.totals == (3, 3)
    assert state.winners == (0, 1)


# -- game over (7.5) -------------------------------------------------------------------------------


@pytest.mark.rule("7.5")
def test_nothing_is_legal_after_the_game() -> None:
    state = finish_round(stacked(tiny(max_rounds=1), 2, grids=[[9, 8, 1, 2], [1, 2, 3, 4]]))
    assert state.is_over and state.turn is None and state.to_act == ()
    assert ar.legal_actions(state) == ()
    for action in (ar.Flip(0, 0, 0), ar.Draw(1), ar.TakeDiscard(0, 0, 0), ar.PlaceDrawn(1, 1, 1),
                   ar.DiscardDrawn(0, 0, 0), ar.Draw(7), ar.Flip(-1, 9, 9)):
        error = rule_error(state, action)
        assert (error.code, error.rule) == ("game_over", "7.5")
    assert state.totals == state.history[0].totals and state.winners == (1,)
    assert ar.view(state, 0).legal_actions == ()
