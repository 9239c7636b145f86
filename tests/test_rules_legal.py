"""Legal actions: the canonical order of spec section 3, and agreement of legal_actions, check
and apply on every candidate action of many states."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from tests.builders import hand_built, open_round, play, rule_error, stacked, tiny

import abyss_rules as ar
from abyss_rules.errors import InvalidStateError


def reference_legal(state: ar.State) -> list[ar.Action]:
    """The canonical list of spec section 3, written from the spec (not from the engine)."""
    v = state.variant
    phase = state.phase
    out: list[ar.Action] = []

    def rc(space: int) -> tuple[int, int]:
        return divmod(space, v.cols)

    if phase is ar.Phase.OPENING:
        for p in range(state.players):
            if len(state.opening[p]) < v.initial_flips:
                out += [ar.Flip(p, *rc(s)) for s in state.grid(p).face_down]
    elif phase is ar.Phase.TURN:
        p = state.turn
        grid = state.grid(p)
        if state.discard_pile:
            out += [ar.TakeDiscard(p, *rc(s)) for s in grid.remaining]
        if state.draw_pile or len(state.discard_pile) >= 2:
            out.append(ar.Draw(p))
        if v.flip_turn:
            out += [ar.Flip(p, *rc(s)) for s in grid.face_down]
    elif phase is ar.Phase.DRAWN:
        p = state.turn
        grid = state.grid(p)
        out += [ar.PlaceDrawn(p, *rc(s)) for s in grid.remaining]
        out += [ar.DiscardDrawn(p, *rc(s)) for s in grid.face_down]
    return out


def candidates(state: ar.State) -> Iterator[ar.Action]:
    """Every action with a seat from -1 to P and a space one beyond the grid on each side."""
    v = state.variant
    for p in range(-1, state.players + 1):
        yield ar.Draw(p)
        for r in range(-1, v.rows + 1):
            for c in range(-1, v.cols + 1):
                for kind in (ar.Flip, ar.TakeDiscard, ar.PlaceDrawn, ar.DiscardDrawn):
                    yield kind(p, r, c)


def _turn_with_swallowed_column(**changes: object) -> ar.State:
    v = tiny(initial_flips=3, **changes)
    state = stacked(v, 2, grids=[[4, 9, 4, 2], [1, 2, 3, 5]], discard=6, draw=[7])
    return open_round(state, [[(0, 0), (1, 0), (0, 1)], [(0, 0), (0, 1), (1, 0)]])


@pytest.mark.rule("2.2", "3.2")
def test_canonical_order_opening() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    state = ar.apply(state, ar.Flip(1, 0, 1))
    assert ar.legal_actions(state) == (
        ar.Flip(0, 0, 0), ar.Flip(0, 0, 1), ar.Flip(0, 1, 0), ar.Flip(0, 1, 1),
        ar.Flip(1, 0, 0), ar.Flip(1, 1, 0), ar.Flip(1, 1, 1),
    )
    state = play(state, [ar.Flip(0, 1, 1), ar.Flip(0, 0, 0)])  # seat 0 is done
    assert ar.legal_actions(state) == (ar.Flip(1, 0, 0), ar.Flip(1, 1, 0), ar.Flip(1, 1, 1))


@pytest.mark.rule("3.2", "3.10", "4.1")
def test_canonical_order_turn_and_drawn() -> None:
    state = _turn_with_swallowed_column()
    assert state.turn == 0
    assert ar.legal_actions(state) == (
        ar.TakeDiscard(0, 0, 1), ar.TakeDiscard(0, 1, 1), ar.Draw(0), ar.Flip(0, 1, 1),
    )
    drawn = ar.apply(state, ar.Draw(0))
    assert ar.legal_actions(drawn) == (
        ar.PlaceDrawn(0, 0, 1), ar.PlaceDrawn(0, 1, 1), ar.DiscardDrawn(0, 1, 1),
    )


@pytest.mark.rule("3.2", "3.7")
def test_canonical_order_two_option_turn() -> None:
    state = _turn_with_swallowed_column(flip_turn=False)
    assert ar.legal_actions(state) == (ar.TakeDiscard(0, 0, 1), ar.TakeDiscard(0, 1, 1), ar.Draw(0))


@pytest.mark.rule("3.2", "5.4")
def test_canonical_order_without_a_draw() -> None:
    state = hand_built(_turn_with_swallowed_column(), draw_pile=(), discard_pile=(6,))
    assert ar.legal_actions(state) == (ar.TakeDiscard(0, 0, 1), ar.TakeDiscard(0, 1, 1), ar.Flip(0, 1, 1))


@pytest.mark.rule("3.2")
def test_canonical_order_standard_opening_of_round_1() -> None:
    state = ar.new_game(3, seed=2)
    legal = ar.legal_actions(state)
    assert legal == tuple(ar.Flip(p, r, c) for p in range(3) for r in range(3) for c in range(4))


def _sample_states() -> list[ar.State]:
    """States of random games in several variants, a few hand-built ones too."""
    variants = [
        (tiny(), 2), (tiny(flip_turn=False), 3), (tiny(rows=3, cols=2, initial_flips=2), 4),
        (ar.Variant.standard(), 2), (tiny(reshuffle_keeps_top=False, initial_flips=0), 2),
    ]
    states: list[ar.State] = []
    for n, (v, players) in enumerate(variants):
        rng = random.Random(n)
        state = ar.new_game(players, v.replace(max_rounds=2), seed=n)
        step = 0
        while not state.is_over:
            if step % 7 == 0:
                states.append(state)
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
            step += 1
        states.append(state)
    turn = _turn_with_swallowed_column()
    states += [turn, ar.apply(turn, ar.Draw(0)), hand_built(turn, draw_pile=(), discard_pile=(6,))]
    return states


SAMPLES = _sample_states()


@pytest.mark.rule("2.2", "3.2", "3.9", "3.10", "5.4", "7.5")
def test_legal_actions_match_the_reference_and_check_and_apply() -> None:
    phases = set()
    for state in SAMPLES:
        phases.add(state.phase)
        legal = ar.legal_actions(state)
        assert list(legal) == reference_legal(state)
        assert len(set(legal)) == len(legal)
        for action in legal:
            assert ar.check(state, action) is None
            after = ar.apply(state, action)
            assert type(after) is ar.State and after.seq == state.seq + 1
        legal_set = set(legal)
        for action in candidates(state):
            if action not in legal_set:
                rule_error(state, action)  # apply raises what check reports; state unchanged
    assert phases == set(ar.Phase)
    assert len(SAMPLES) > 40


@pytest.mark.parametrize("thing", [None, "state", (), [], 42], ids=repr)
def test_legal_actions_of_something_that_is_not_a_state(thing: Any) -> None:
    with pytest.raises(InvalidStateError) as caught:
        ar.legal_actions(thing)
    assert (caught.value.code, caught.value.rule) == ("invalid_state", None)
    assert "legal_actions() needs a State" in str(caught.value)


def test_legal_actions_of_a_plain_tuple_of_a_state_is_refused() -> None:
    state = ar.new_game(players=2, seed=1)
    with pytest.raises(InvalidStateError) as caught:
        ar.legal_actions(tuple(state))  # type: ignore[arg-type]
    assert caught.value.code == "invalid_state"
