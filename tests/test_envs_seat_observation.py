"""The environments' fast path (abyss_rules.envs.seat_observation): the encoding of a seat's view,
straight from the state, byte for byte, and from public facts only (rules 8.1-8.3).

tests/property/test_envs_observation_secrets.py checks the same over generated variants."""

from __future__ import annotations

import pickle
import random

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

from tests.builders import with_other_secrets
from tests.test_envs_observation import SETUPS, _walk

import abyss_rules as ar
from abyss_rules.envs import Observation
from abyss_rules.envs.seat_observation import SeatObservation


def test_every_seat_of_every_state_is_encoded_as_its_view_is() -> None:
    checked = 0
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        fast = SeatObservation(obs)
        for seed in range(3):
            rng = random.Random(seed)
            for state in _walk(variant, players, seed, limit=600):
                # Every seat, in a random order (the order the environments ask in varies).
                for seat in rng.sample(range(players), players):
                    assert fast.encode(state, seat).tobytes() == obs.encode(ar.view(state, seat)).tobytes()
                    checked += 1
    assert checked > 5000


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_states_differing_only_in_secrets_give_identical_fast_observations() -> None:
    rng = random.Random(16)
    checked = 0
    for variant, players in SETUPS:
        fast = SeatObservation(Observation(variant, players))
        for state in _walk(variant, players, seed=6):
            twin = with_other_secrets(state, rng)
            if twin.cards == state.cards and twin.draw_pile == state.draw_pile:
                continue
            for seat in range(players):
                assert fast.encode(twin, seat).tobytes() == fast.encode(state, seat).tobytes()
            checked += 1
    assert checked > 500


def test_the_vectors_are_new_writable_float32_arrays() -> None:
    fast = SeatObservation(Observation(ar.Variant.standard(), 2))
    state = ar.new_game(2, seed=1)
    first, second = fast.encode(state, 0), fast.encode(state, 0)
    assert first.dtype == "float32" and first.shape == (468,) and first.flags.writeable
    first[:] = 7
    assert (second != 7).any() and (fast.encode(state, 0) != 7).any()


def test_it_refuses_what_is_not_an_observation_and_pickles_without_its_memos() -> None:
    with pytest.raises(ar.ConfigError) as caught:
        SeatObservation("standard")  # type: ignore[arg-type]
    assert caught.value.code == "invalid_env_option"
    obs = Observation(ar.Variant.standard(), 3)
    fast = SeatObservation(obs)
    states = _walk(ar.Variant.standard(), 3, 4, limit=200)
    for state in states[:50]:
        fast.encode(state, 1)
    copy = pickle.loads(pickle.dumps(fast))
    for state in states[50:]:
        assert copy.encode(state, 2).tobytes() == fast.encode(state, 2).tobytes()
