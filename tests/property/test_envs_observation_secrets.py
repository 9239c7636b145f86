"""Observations depend on public facts only (rules 8.1-8.3), over generated variants and games, and the
environments' fast path from the state is the encoding of the view."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("numpy", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")
pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

from tests.builders import with_other_secrets
from tests.test_envs_seat_observation import TIERS

import abyss_rules as ar
from abyss_rules.envs import Observation
from abyss_rules.envs._seat_observation import SeatObservation
from abyss_rules.testing import Game, games, variants


@pytest.mark.rule("8.1", "8.2", "8.3")
@given(games(variants(), max_actions=200, finish_rounds=True), st.randoms(use_true_random=False))
def test_an_observation_depends_only_on_public_facts(game: Game, rng: random.Random) -> None:
    obs = Observation(game.variant, game.players)
    for state in game.states[:: max(1, len(game.states) // 6)] + (game.final,):
        twin = with_other_secrets(state, rng)
        for seat in range(state.players):
            mine = obs.encode(ar.view(state, seat))
            assert mine.tobytes() == obs.encode(ar.view(twin, seat)).tobytes()
            assert (obs.low <= mine).all() and (mine <= obs.high).all()


@pytest.mark.rule("8.1", "8.2", "8.3")
@pytest.mark.parametrize("compiled", TIERS)
@given(games(variants(), max_actions=200, finish_rounds=True), st.randoms(use_true_random=False))
def test_the_seat_fast_path_is_the_encoding_of_the_view(compiled: bool, game: Game,
                                                        rng: random.Random) -> None:
    """`SeatObservation.encode(state, seat)` (the environments' fast path, straight from the state)
    is `Observation.encode(view(state, seat))` byte for byte, in either tier -- in the order of
    the game, in a shuffled order (the pure tier's memos then miss), and for a twin with other
    secrets."""
    obs = Observation(game.variant, game.players)
    fast = SeatObservation(obs, compiled=compiled)
    assert fast.compiled is compiled
    pairs = [(state, seat) for state in game.states for seat in range(game.players)]
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    for state, seat in pairs + shuffled:
        expected = obs.encode(ar.view(state, seat)).tobytes()
        assert fast.encode(state, seat).tobytes() == expected
    for state in game.states[:: max(1, len(game.states) // 6)] + (game.final,):
        twin = with_other_secrets(state, rng)
        for seat in range(state.players):
            assert fast.encode(twin, seat).tobytes() == fast.encode(state, seat).tobytes()
