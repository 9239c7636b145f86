"""legal_actions is sound, complete and canonical; apply, check and the spec agree on every rejection
(spec section 3: "Canonical order of legal actions" and "Rejecting an action")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.testing import Game, action_space, games

Action = ar.Action

_KINDS_OF_PHASE = {
    ar.Phase.OPENING: (ar.Flip,),
    ar.Phase.TURN: (ar.TakeDiscard, ar.Draw, ar.Flip),
    ar.Phase.DRAWN: (ar.PlaceDrawn, ar.DiscardDrawn),
}


def spec_code(state: ar.State, action: Action) -> str | None:
    """The code of the first failing check of spec section 3 ("Rejecting an action"), restated from the
    spec text step by step; ``None`` when every check passes."""
    v = state.variant
    kind = type(action)
    player = action.player
    if state.phase is ar.Phase.GAME_OVER:  # 2
        return "game_over"
    if not 0 <= player < state.players:  # 3
        return "no_such_player"
    if kind not in _KINDS_OF_PHASE[state.phase]:  # 4
        return "wrong_phase"
    if state.phase is ar.Phase.OPENING:  # 5
        if len(state.opening[player]) >= v.initial_flips:
            return "no_flips_owed"
    elif player != state.turn:
        return "not_your_turn"
    if state.phase is ar.Phase.TURN and kind is ar.Flip and not v.flip_turn:  # 6
        return "flip_turn_disabled"
    if kind is ar.Draw:
        if not state.draw_pile and len(state.discard_pile) < 2:  # 7
            return "no_card_to_draw"
        return None
    row, col = action.row, action.col  # type: ignore[union-attr]
    if not (0 <= row < v.rows and 0 <= col < v.cols):  # 8
        return "no_such_space"
    grid = _grid(state, player)
    space = row * v.cols + col
    if grid.swallowed[space]:  # 9
        return "space_swallowed"
    if kind in (ar.Flip, ar.DiscardDrawn) and grid.face_up[space]:  # 10
        return "space_face_up"
    return None


_GRIDS: dict[tuple[int, int], ar.Grid] = {}


def _grid(state: ar.State, player: int) -> ar.Grid:
    """``state.grid(player)``, cached for the state being examined."""
    key = (id(state), player)
    found = _GRIDS.get(key)
    if found is None:
        if len(_GRIDS) > 64:
            _GRIDS.clear()
        found = _GRIDS[key] = state.grid(player)
    return found


def spec_listing(state: ar.State) -> list[Action]:
    """The legal actions in the canonical order of spec section 3, restated from the grids."""
    v = state.variant
    positions = [(s // v.cols, s % v.cols) for s in range(v.cells)]
    out: list[Action] = []
    if state.phase is ar.Phase.OPENING:
        for p in range(state.players):
            if len(state.opening[p]) < v.initial_flips:
                grid = state.grid(p)
                out += [ar.Flip(p, r, c) for s, (r, c) in enumerate(positions) if s in grid.face_down]
        return out
    if state.phase is ar.Phase.GAME_OVER:
        return out
    p = state.turn
    grid = state.grid(p)
    remaining = [rc for s, rc in enumerate(positions) if s in grid.remaining]
    down = [rc for s, rc in enumerate(positions) if s in grid.face_down]
    if state.phase is ar.Phase.TURN:
        out += [ar.TakeDiscard(p, r, c) for r, c in remaining]
        if state.draw_pile or len(state.discard_pile) >= 2:
            out.append(ar.Draw(p))
        if v.flip_turn:
            out += [ar.Flip(p, r, c) for r, c in down]
    else:
        out += [ar.PlaceDrawn(p, r, c) for r, c in remaining]
        out += [ar.DiscardDrawn(p, r, c) for r, c in down]
    return out


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
        _GRIDS.clear()
        legal = set(ar.legal_actions(state))
        for action in space:
            if action in legal:
                continue
            try:
                ar.apply(state, action)
            except ar.IllegalActionError as error:
                assert error.code == spec_code(state, action), (action, error)
                assert error.rule == ar.RULE_OF_CODE[error.code]
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
