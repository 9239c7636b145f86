"""`abyss_rules/Solo-v0` (abyss_rules.envs._solo): Gymnasium's check_env, whole games against every
built-in bot, rewards against the scores, seeding, the legal sampler and typed errors."""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import abyss_rules as ar
from abyss_rules import envs
from abyss_rules.bots import GreedyBot, RandomBot


def test_the_environment_is_registered_and_passes_check_env() -> None:
    assert envs.SOLO_ID == "abyss_rules/Solo-v0" and envs.SOLO_ID in gymnasium.registry
    for kwargs in [{}, {"opponents": ["random", "counting"], "variant": "short", "reward": "margin"},
                   {"opponents": ["greedy"] * 7, "seat": None, "reward": "win"}]:
        env = gymnasium.make(envs.SOLO_ID, render_mode="ansi", **kwargs)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        assert [str(w.message) for w in seen] == [], kwargs
        env.close()


def play(env: Any, seed: int) -> tuple[float, ar.State, int]:
    """A whole game of the learner playing `action_space.sample()` (legal by construction)."""
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        action = env.action_space.sample()
        assert info["action_mask"][action] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs in env.observation_space and not truncated
        total += float(reward)
        steps += 1
        if terminated:
            assert info["action_mask"].all()   # no decision left: every index (Pgx's convention)
            return total, env.unwrapped.game_state, steps


@pytest.mark.parametrize("preset", ["standard", "short", "long"])
@pytest.mark.parametrize("opponents", [
    ["random"], ["greedy", "counting"], ["random", "greedy", "counting"] * 2 + ["greedy"]])
def test_whole_games_against_every_bot_and_the_rewards_sum_to_minus_the_total(
        preset: str, opponents: list[str]) -> None:
    env = gymnasium.make(envs.SOLO_ID, opponents=opponents, variant=preset)
    env.action_space.seed(1)
    for seed in range(2):
        total, final, steps = play(env, seed)
        assert final.is_over and final.players == 1 + len(opponents)
        assert total == -final.totals[0]
        assert steps >= final.variant.initial_flips
    env.close()


def test_a_random_seat_and_win_rewards() -> None:
    env = gymnasium.make(envs.SOLO_ID, opponents=["random", "random"], seat=None, reward="win")
    env.action_space.seed(2)
    seats = set()
    for seed in range(12):
        total, final, _ = play(env, seed)
        seat = env.unwrapped.seat
        seats.add(seat)
        assert total == (1.0 if seat in final.winners else -1.0)
    assert seats == {0, 1, 2}


def test_the_learner_sees_its_own_view_and_acts_only_on_its_decisions() -> None:
    env = envs.SoloEnv(opponents=["greedy", "greedy"], seat=1)
    obs, info = env.reset(seed=5)
    state = env.game_state
    assert state.owing_flips[0] == 1 and state.opening[0] != ()      # seat 0 flipped first (seat order)
    assert state.to_act[0] == 1 and info["seat"] == 1
    assert obs.tobytes() == env.encoder.encode(ar.view(state, 1)).tobytes()
    assert tuple(info["action_mask"].astype(bool)) == env.space.mask(state, 1)


def test_reset_with_a_seed_deals_the_library_game_and_is_reproducible() -> None:
    env = envs.SoloEnv(opponents=["random"])
    env.reset(seed=77)
    state = env.game_state
    assert ar.new_game(2, ar.Variant.standard(), seed=77).cards == state.cards
    env.action_space.seed(0)
    first = [play(env, seed=77)[1] for _ in range(1)]
    env.action_space.seed(0)
    again = [play(env, seed=77)[1] for _ in range(1)]
    assert first == again
    env.reset(seed=77)
    env.reset()
    unseeded = env.game_state
    env.reset(seed=77)
    env.reset()
    assert env.game_state == unseeded


def test_bot_objects_are_accepted_as_opponents() -> None:
    env = envs.SoloEnv(opponents=[GreedyBot(), RandomBot(3)])
    env.action_space.seed(0)
    total, final, _ = play(env, 1)
    assert total == -final.totals[0]


def test_an_illegal_action_raises_the_engines_typed_error_and_changes_nothing() -> None:
    env = envs.SoloEnv()
    env.reset(seed=1)
    before = env.game_state
    with pytest.raises(ar.IllegalActionError) as error:
        env.step(env.space.draw)
    assert error.value.code == "wrong_phase"
    with pytest.raises(ar.ActionIndexError):
        env.step(env.space.size)
    with pytest.raises(ar.MalformedActionError):
        env.step("0")
    assert env.game_state is before
    env.step(np.int32(0))
    with pytest.raises(ar.IllegalActionError) as error:
        env.step(0)
    assert error.value.code == "space_face_up"


def test_a_finished_game_refuses_further_steps() -> None:
    env = envs.SoloEnv(opponents=["random"], variant="short")
    env.action_space.seed(0)
    play(env, 3)
    with pytest.raises(ar.IllegalActionError) as error:
        env.step(0)
    assert error.value.code == "game_over"


def test_the_legal_sampler_draws_legal_actions_only_and_a_copy_alone_samples_any_index() -> None:
    env = envs.SoloEnv(opponents=["random"])
    _, info = env.reset(seed=9)
    env.action_space.seed(4)
    mask = info["action_mask"]
    drawn = {int(env.action_space.sample()) for _ in range(300)}
    assert drawn == set(np.flatnonzero(mask).tolist())
    only_30 = np.eye(1, env.space.size, 30, dtype=np.int8)[0]
    assert env.action_space.sample(mask=only_30) == 30  # an explicit mask wins
    for other in (copy.deepcopy(env.action_space), pickle.loads(pickle.dumps(env.action_space))):
        assert isinstance(other, gymnasium.spaces.Discrete) and other == env.action_space
        assert {int(other.sample()) for _ in range(1000)} == set(range(env.space.size))  # bound to no game


def _drive(env: Any, rng: np.random.Generator, steps: int, info: dict[str, Any]) -> list[Any]:
    seen = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append((obs.tobytes(), info["action_mask"].tobytes(), reward, terminated, truncated,
                     int(env.action_space.sample())))  # the copy's sampler follows its own game
        if terminated:
            obs, info = env.reset()
            seen.append((obs.tobytes(), info["action_mask"].tobytes()))
    return seen


@pytest.mark.parametrize("opponent", ["random", "greedy", "counting"])
def test_the_environment_pickles_and_the_copy_steps_identically(opponent: str) -> None:
    env = gymnasium.make(envs.SOLO_ID, opponents=[opponent, "random"], seat=None)
    assert pickle.loads(pickle.dumps(env)) is not None  # before reset too
    _, info = env.reset(seed=2)
    env.action_space.seed(7)
    _drive(env, np.random.default_rng(0), 30, info)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game_state == env.unwrapped.game_state
        info = {"action_mask": env.unwrapped.action_masks().astype(np.int8)}
        ours = _drive(copy.deepcopy(env), np.random.default_rng(1), 300, info)
        theirs = _drive(clone, np.random.default_rng(1), 300, info)
        assert ours == theirs and len(ours) >= 300


def test_action_masks_follows_the_maskable_protocol_in_a_masked_loop() -> None:
    env = envs.SoloEnv(opponents=["greedy"], reward="win")
    with pytest.raises(ar.ConfigError):
        env.action_masks()  # before reset
    rng = np.random.default_rng(3)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            masks = env.action_masks()
            assert masks.dtype == bool and masks.shape == (env.space.size,) and masks.flags.writeable
            assert np.array_equal(masks, info["action_mask"].astype(bool))
            # A masked policy: random scores, -inf on the illegal indices (MaskablePPO's masking).
            action = int(np.argmax(np.where(masks, rng.random(masks.shape), -np.inf)))
            _, reward, terminated, _, info = env.step(action)
        assert reward in (1.0, -1.0) and env.action_masks().all()   # never an empty mask


def test_bad_options_are_refused_with_typed_errors() -> None:
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"opponents": []}, ar.ConfigError, "invalid_env_option"),
        ({"opponents": "greedy"}, ar.ConfigError, "invalid_env_option"),
        ({"opponents": [42]}, ar.ConfigError, "invalid_env_option"),
        ({"opponents": ["grandmaster"]}, ar.AbyssError, "unknown_bot"),
        ({"opponents": ["random"] * 8}, ar.ConfigError, "invalid_players"),
        ({"seat": 2}, ar.ConfigError, "invalid_env_option"),
        ({"variant": "tiny"}, ar.ConfigError, "invalid_variant"),
        ({"reward": "elo"}, ar.ConfigError, "invalid_env_option"),
    ]
    for kwargs, kind, code in cases:
        with pytest.raises(kind) as error:
            envs.SoloEnv(**kwargs)
        assert getattr(error.value, "code", None) == code, kwargs
    with pytest.raises(ar.ConfigError):
        envs.SoloEnv().step(0)  # before reset


def test_gymnasium_make_vec_runs_solo_games_with_batched_masks() -> None:
    vec = gymnasium.make_vec(envs.SOLO_ID, num_envs=3, vectorization_mode="sync", opponents=["random"])
    _, info = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        mask = info["action_mask"]
        assert mask.shape == (3, 49)
        _, _, terminated, _, info = vec.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
        ended += int(terminated.sum())
    assert ended > 0
    vec.close()


class _ViewingRandomBot(RandomBot):
    """A `RandomBot` the environment does not recognise as one: it is asked through `choose(view)`."""


def test_a_random_opponent_chooses_as_it_would_from_its_view() -> None:
    # The environment asks a RandomBot with its legal actions alone (no view); a bot of another
    # type with the same seed, asked with views, must make the same game.
    for seed in range(4):
        runs = []
        for make in (RandomBot, _ViewingRandomBot):
            env = envs.SoloEnv(opponents=[make(seed), make(seed + 100)], seat=None)
            obs, info = env.reset(seed=seed)
            seen, rng = [obs.tobytes()], np.random.default_rng(seed)
            terminated = False
            while not terminated:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
                obs, reward, terminated, _, info = env.step(action)
                seen.append((obs.tobytes(), reward, info["action_mask"].tobytes()))
            runs.append((seen, env.game_state))
        assert runs[0] == runs[1] and len(runs[0][0]) > 10
