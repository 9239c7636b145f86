"""`abyss_rules/SelfPlay-v0` (abyss_rules.envs._selfplay) and `gymnasium.make_vec` of both ids in
every vectorization mode."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import abyss_rules as ar
from abyss_rules import envs

MODES = ["sync", "async", "vector_entry_point", None]


def _run(vec: gymnasium.vector.VectorEnv, steps: int, seed: int) -> int:
    """Masked random steps (`action_space.sample(mask=...)` per game); how many games ended."""
    _, info = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        mask = info["action_mask"]
        assert mask.shape == (vec.num_envs, 49)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        _, rewards, terminated, truncated, info = vec.step(actions)
        assert rewards.shape == terminated.shape == truncated.shape == (vec.num_envs,)
        ended += int(terminated.sum())
    vec.close()
    return ended


@pytest.mark.parametrize("mode", MODES)
def test_make_vec_of_self_play_in_every_mode(mode: str | None) -> None:
    vec = gymnasium.make_vec(envs.SELF_PLAY_ID, num_envs=3, vectorization_mode=mode, variant="short")
    if mode in ("vector_entry_point", None):  # the default: the batch-backed vector environment
        assert type(vec) is envs.VectorEnv
    assert _run(vec, 150, seed=2) > 0


@pytest.mark.parametrize("mode", MODES)
def test_make_vec_of_solo_in_every_mode(mode: str | None) -> None:
    vec = gymnasium.make_vec(envs.SOLO_ID, num_envs=2, vectorization_mode=mode, opponents=["random"],
                             variant="short")
    assert _run(vec, 80, seed=1) > 0


def test_masked_sampling_of_a_vector_action_space_draws_legal_actions_only() -> None:
    vec = gymnasium.make_vec(envs.SOLO_ID, num_envs=4, vectorization_mode="sync", opponents=["random"])
    _, info = vec.reset(seed=0)
    vec.action_space.seed(0)
    for _ in range(100):
        mask = info["action_mask"]
        actions = vec.action_space.sample(mask=tuple(row.astype(np.int8) for row in mask))
        live = ~mask.all(axis=1)  # a game that just ended: every index (its next step resets it)
        assert live.sum() >= 1 and mask[np.arange(4), actions][live].all()
        _, _, _, _, info = vec.step(actions)
    vec.close()


def test_one_self_play_game_is_one_lane_of_the_vector_environment() -> None:
    env = gymnasium.make(envs.SELF_PLAY_ID, players=3, variant="short", reward="margin").unwrapped
    assert isinstance(env, envs.SelfPlayEnv)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        check_env(env)
    assert [str(w.message) for w in seen] == []
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    moves, totals = [], np.zeros(3)
    terminated = False
    while not terminated:
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        seat = int(info["seat"])
        moves.append((seat, action))
        _, reward, terminated, truncated, info = env.step(action)
        assert reward == info["rewards"][seat] and not truncated
        totals += info["rewards"]
    final = env.vector.batch.state(0)
    assert final.is_over and abs(totals.sum()) < 1e-9  # margins sum to 0
    # The same game through the reference engine.
    state = final
    replay = ar.new_game(3, ar.Variant.short(), seed=state.dealer.seed)
    for seat, action in moves:
        replay = ar.apply(replay, env.vector.batch.space.action(action, seat))
    assert replay == final
    with pytest.raises(ar.ConfigError):
        env.step(0)  # the game is over


def test_a_self_play_game_pickles_and_the_copy_steps_identically() -> None:
    import pickle

    env = envs.SelfPlayEnv(players=2)
    env.reset(seed=8)
    env.action_space.seed(1)
    for _ in range(20):
        env.step(env.action_space.sample())
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(200):
        action = env.action_space.sample()
        assert copy.action_space.sample() == action  # each samples from its own game, same stream
        ours, theirs = env.step(action), copy.step(action)
        assert ours[0].tobytes() == theirs[0].tobytes() and ours[1:4] == theirs[1:4]
        if ours[2]:
            assert env.reset()[0].tobytes() == copy.reset()[0].tobytes()
