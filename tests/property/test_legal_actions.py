"""legal_actions is sound, complete and canonical; apply, check and the spec agree on every rejection
(spec section 3: "Canonical order of legal actions" and "Rejecting an action")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.property.restated import spec_code, spec_listing

import abyss_rules as ar
from abyss_rules.errors import RULE_OF_CODE
from abyss_rules.testing import Game, action_space, games


@pytest.mark.rule("2.2", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.10", "5.4", "7.5")
@given(games(max_actions=150))
def test_legal_actions_are_listed_in_canonical_order(game: Game) -> None:
    for state in game.states:
        legal = ar.legal_actions(state)
        assert list(legal) == spec_listing(state)
        assert len(set(legal)) == len(legal)


@pytest.mark.rule("2.2", "3.2", "3.9", "3.10", "5.4", "7.5")
@given(games(max_actions=150))
def test_every_listed_action_applies(game: Game) -> None:
    for state in game.states:
        for action in ar.legal_actions(state):
            assert ar.check(state, action) is None
            after = ar.apply(state, action)
            assert after.seq == state.seq + 1


@pytest.mark.rule("1.2", "1.3", "2.2", "3.2", "3.7", "3.9", "3.10", "5.4", "7.5")
@given(games(max_actions=200, finish_rounds=True), st.data())
def test_every_unlisted_action_is_rejected_with_the_spec_code(game: Game, data: st.DataObject) -> None:
    """The whole action space (every kind, seats -1..players, rows -1..rows, columns -1..cols): an
    unlisted action raises IllegalActionError, with the code of the spec's first failing check and the
    rule of that code, and check() returns the same error.

    Checked on the first and last states of the game and on up to 6 drawn states in between (the
    miniatures of test_model_check.py check it on every reachable state)."""
    space = action_space(game.variant, game.players)
    last = len(game.states) - 1
    picked = {0, last} | set(data.draw(st.lists(st.integers(0, last), max_size=6), label="states"))
    for state in (game.states[i] for i in sorted(picked)):
        legal = set(ar.legal_actions(state))
        for action in space:
            if action in legal:
                continue
            try:
                ar.apply(state, action)
            except ar.IllegalActionError as error:
                assert error.code == spec_code(state, action), (action, error)
                assert error.rule == RULE_OF_CODE[error.code]
                checked = ar.check(state, action)
                assert type(checked) is type(error) and checked.to_dict() == error.to_dict()
            else:
                raise AssertionError(f"{action!r} is not listed but apply accepted it")


@pytest.mark.rule("3.2", "3.9", "5.4")
def test_a_wrong_kind_by_another_seat_is_a_wrong_phase_not_a_wrong_turn() -> None:
    """Spec section 3: check 4 (wrong_phase) comes before check 5 (not_your_turn)."""
    state = ar.new_game(2, ar.Variant.standard().replace(initial_flips=0), seed=1)
    assert state.phase is ar.Phase.TURN and state.turn == 0
    for action in (ar.PlaceDrawn(1, 0, 0), ar.DiscardDrawn(1, 0, 0)):
        error = ar.check(state, action)
        assert error is not None and (error.code, error.rule) == ("wrong_phase", "3.2")
    drawn = ar.apply(state, ar.Draw(0))
    for action in (ar.Draw(1), ar.TakeDiscard(1, 0, 0), ar.Flip(1, 0, 0)):
        with pytest.raises(ar.IllegalActionError) as info:
            ar.apply(drawn, action)
        assert info.value.code == "wrong_phase"
    assert ar.check(drawn, ar.PlaceDrawn(1, 0, 0)).code == "not_your_turn"  # type: ignore[union-attr]


@pytest.mark.rule("2.2", "3.2", "3.4", "7.5")
@given(games(max_actions=150))
def test_a_seats_legal_actions_are_its_share_of_legal_actions(game: Game) -> None:
    from abyss_rules.rules._legal import seat_legal_actions

    for state in game.states:
        legal = ar.legal_actions(state)
        for seat in range(state.players):
            mine = seat_legal_actions(state, seat)
            assert mine == tuple(a for a in legal if a.player == seat)
            assert seat_legal_actions(state, seat) is mine  # the cached tuple: masks are kept by identity
