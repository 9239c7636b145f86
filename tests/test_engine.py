"""The public entry points: new_game, apply, check, legal_actions (spec section 3, "Phases")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.builders import finish_round, open_round, play, stacked, tiny

import abyss_rules as ar

SPEC = Path(__file__).resolve().parent.parent / "spec" / "rules.md"


def test_public_names() -> None:
    for name in ar.__all__:
        assert hasattr(ar, name), name
    for name in ("new_game", "apply", "check", "legal_actions", "view", "Variant", "State", "Phase",
                 "RoundResult", "Grid", "View", "Flip", "TakeDiscard", "Draw", "PlaceDrawn", "DiscardDrawn",
                 "Code", "AbyssError", "IllegalActionError", "MalformedActionError",
                 "ConfigError", "SeedError"):
        assert name in ar.__all__, name
    assert not hasattr(ar, "RULE_OF_CODE")  # (a table for readers of the spec: abyss_rules.errors)


def test_rules_version_is_the_spec_version() -> None:
    found = re.search(r"^rules_version: (\S+)$", SPEC.read_text(encoding="utf-8"), re.M)
    assert found is not None and found.group(1) == ar.RULES_VERSION


@pytest.mark.rule("3.2")
def test_phases() -> None:
    assert [p.value for p in ar.Phase] == ["opening", "turn", "drawn", "game_over"]


@pytest.mark.rule("3.2", "3.4")
def test_apply_returns_a_new_state_and_leaves_the_old_one() -> None:
    state = open_round(stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], draw=[0]),
                       [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    before = tuple(state)
    after = ar.apply(state, ar.Draw(1))
    assert after is not state and type(after) is ar.State
    assert tuple(state) == before and state.phase is ar.Phase.TURN and state.drawn is None
    assert after.seq == state.seq + 1 and after.drawn == 0


@pytest.mark.rule("3.2")
def test_check_returns_none_for_legal_and_the_error_for_illegal() -> None:
    state = ar.new_game(2, seed=1)
    assert ar.check(state, ar.Flip(0, 0, 0)) is None
    error = ar.check(state, ar.Draw(0))
    assert isinstance(error, ar.IllegalActionError) and (error.code, error.rule) == ("wrong_phase", "3.2")
    with pytest.raises(ar.IllegalActionError) as caught:
        ar.apply(state, ar.Draw(0))
    assert caught.value.to_dict() == error.to_dict()
    assert ar.check(state, "Draw(0)").code == "malformed_action"  # type: ignore[union-attr]


@pytest.mark.rule("6.6", "7.2", "1.4", "2.1")
def test_next_round_is_dealt_at_once() -> None:
    state = finish_round(stacked(tiny(target_score=1000), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]]))
    assert state.round == 2 and state.phase is ar.Phase.OPENING and len(state.history) == 1
    assert state.turns == 0 and state.closer is None and state.opening == ((), ())


@pytest.mark.rule("6.6", "7.2", "2.1", "2.3")
def test_next_round_without_opening_starts_with_the_openers_turn() -> None:
    v = tiny(target_score=1000, initial_flips=0)
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    state = play(state, [ar.Flip(0, 0, 0), ar.Flip(1, 0, 0)])
    state = finish_round(state)
    assert state.round == 2 and state.phase is ar.Phase.TURN and state.turn == 0


@pytest.mark.rule("7.5")
def test_game_over_state_keeps_the_last_round() -> None:
    state = finish_round(stacked(tiny(max_rounds=1), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]]))
    assert state.is_over and state.round == 1 and state.turn is None and state.drawn is None
    assert state.history[0].totals == state.totals
    # the final grids of the state are those of the round result
    assert state.grids() == state.history[0].grids


@pytest.mark.rule("3.2", "7.5")
def test_a_full_standard_game_with_only_legal_actions() -> None:
    state = ar.new_game(3, ar.Variant.standard(), seed=42)
    moves = 0
    while not state.is_over:
        legal = ar.legal_actions(state)
        state = ar.apply(state, legal[moves % len(legal)])
        moves += 1
    assert state.seq == moves and max(state.totals) >= 100 and state.winners
