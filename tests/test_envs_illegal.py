"""The `illegal=` option of the single-game environments (abyss_rules.envs._illegal): the default
raises (tests/test_envs_aec.py, tests/test_envs_solo.py); `"end"` ends the game with a penalty."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import numpy as np
from pettingzoo.test import api_test

import abyss_rules as ar
from abyss_rules import envs


def test_an_illegal_action_ends_the_aec_game_with_the_penalty_for_the_agent_only() -> None:
    game = envs.env(players=3, illegal="end", illegal_reward=-5)
    game.reset(seed=1)
    before = game.unwrapped.game_state
    game.step(game.unwrapped.space.draw)  # no draw in the opening
    assert game.unwrapped.game_state is before  # never applied
    assert game.rewards == {"player_0": -5.0, "player_1": 0.0, "player_2": 0.0}
    assert all(game.terminations.values())
    assert game.infos["player_0"] == {"illegal_action": "wrong_phase"}
    left = []
    for agent in game.agent_iter():
        obs, reward, terminated, _, _ = game.last()
        assert terminated and not obs["action_mask"].any()
        left.append((agent, reward))
        game.step(None)
    assert sorted(left) == [("player_0", -5.0), ("player_1", 0.0), ("player_2", 0.0)]


def test_unmasked_random_agents_always_finish_their_games_with_illegal_end() -> None:
    # What SuperSuit's sticky actions or an unmasked policy do: any index, legal or not.
    game = envs.env(players=2, illegal="end")
    rng = np.random.default_rng(0)
    endings = {"illegal": 0, "played": 0}
    for seed in range(30):
        game.reset(seed=seed)
        for _ in game.agent_iter():
            _, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            game.step(int(rng.integers(-2, 52)))  # out-of-range indices too
        over = game.unwrapped.game_state.is_over
        endings["played" if over else "illegal"] += 1
    assert endings["illegal"] >= 25  # an unmasked agent soon plays an illegal index


def test_illegal_end_passes_pettingzoos_api_test() -> None:
    from tests.test_envs_aec import _only_expected_warnings  # the dict observation's two warnings

    _only_expected_warnings(lambda: api_test(envs.env(players=2, illegal="end"), num_cycles=200))


def test_an_illegal_action_ends_the_solo_game_and_the_next_call_must_be_reset() -> None:
    env = envs.SoloEnv(opponents=["random"], illegal="end")
    _, info = env.reset(seed=3)
    before = env.game_state
    _, reward, terminated, truncated, info = env.step(999)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == "no_such_action_index" and info["action_mask"].all()
    assert env.game_state is before and env.action_masks().all()
    with pytest.raises(ar.ConfigError):
        env.step(0)
    _, info = env.reset(seed=4)
    assert info["action_mask"].any() and env.action_masks().any()
    with pytest.raises(ar.MalformedActionError):
        env.step("draw")  # not an integer: a bug in the caller, raised either way


def test_the_default_still_raises_and_bad_options_are_refused() -> None:
    game = envs.raw_env(players=2)
    game.reset(seed=1)
    with pytest.raises(ar.IllegalActionError):
        game.step(game.space.draw)
    for kwargs in ({"illegal": "penalty"}, {"illegal": "end", "illegal_reward": float("nan")},
                   {"illegal": "end", "illegal_reward": "low"}, {"illegal_reward": True}):
        with pytest.raises(ar.ConfigError) as error:
            envs.raw_env(**kwargs)
        assert error.value.code == "invalid_env_option"
        with pytest.raises(ar.ConfigError):
            envs.SoloEnv(**kwargs)
