"""Observations depend on public facts only (rules 8.1-8.3), over generated variants and games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("numpy", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")
pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

from tests.builders import with_other_secrets

import abyss_rules as ar
from abyss_rules.envs import Observation
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
