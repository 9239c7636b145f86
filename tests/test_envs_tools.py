"""The RL environments driven by the tools their users already have, called as those tools' own
documentation calls them: Stable-Baselines3 (`make_vec_env`, `check_env`, `VecVideoRecorder`),
sb3-contrib (`MaskablePPO`, `get_action_masks`, its masked `evaluate_policy`), SuperSuit's
PettingZoo wrappers, Gymnasium 1.x (`make`, `make_vec`, `RecordVideo`) and PyTorch's masked
sampling.

Stable-Baselines3 and sb3-contrib import PyTorch, and the videos need MoviePy: these tests skip
without them, and fail instead when `ABYSS_RL_TOOLS=required` (`.ci/run` installs them with
`pip install -r tests/requirements-rl-tools.txt`: the CPU build of PyTorch, then the tools).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import gymnasium
import numpy as np

from abyss_rules import envs

ROOT = Path(__file__).resolve().parent.parent

TOOLS = "pip install -r tests/requirements-rl-tools.txt"


def tool(name: str) -> ModuleType:
    """Import the tool `name`, or skip (fail under `ABYSS_RL_TOOLS=required`)."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        reason = f"{name} is not installed ({error}): {TOOLS}"
        if os.environ.get("ABYSS_RL_TOOLS") == "required":
            pytest.fail(f"ABYSS_RL_TOOLS=required but {reason}")
        pytest.skip(reason)


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random index of each row's true entries."""
    return np.argmax(rng.random(masks.shape) * masks, axis=-1)


# -- Stable-Baselines3 -------------------------------------------------------------------------

def test_sb3_make_vec_env_runs_solo_with_its_default_rgb_array_and_masks() -> None:
    """SB3's `make_vec_env(id, n_envs)` makes each environment with `render_mode="rgb_array"`
    (its default); sb3-contrib's `get_action_masks` reads the masks through `env_method`."""
    env_util = tool("stable_baselines3.common.env_util")
    maskable = tool("sb3_contrib.common.maskable.utils")
    vec = env_util.make_vec_env(envs.SOLO_ID, n_envs=4, seed=0, env_kwargs={"opponents": ["random"]})
    obs = vec.reset()
    assert obs.shape == (4, 468) and maskable.is_masking_supported(vec)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(150):
        masks = maskable.get_action_masks(vec)
        assert masks.shape == (4, 49) and masks.dtype == bool and masks.any(axis=1).all()
        obs, _, dones, infos = vec.step(_legal(masks, rng))
        episodes += int(dones.sum())
        # SB3's Monitor reports each finished game (its return: minus the learner's total).
        assert [bool(done) for done in dones] == ["episode" in info for info in infos]
        assert all(info["episode"]["l"] > 0 and np.isfinite(info["episode"]["r"])
                   for info in infos if "episode" in info)
    assert episodes >= 4
    images = vec.get_images()
    assert len(images) == 4 and all(i.shape == images[0].shape and i.dtype == np.uint8 for i in images)
    assert images[0].ndim == 3 and images[0].shape[2] == 3
    vec.close()


@pytest.mark.parametrize("env_id", [envs.SOLO_ID, envs.SELF_PLAY_ID])
def test_sb3_check_env_passes_with_the_render_check(env_id: str) -> None:
    checker = tool("stable_baselines3.common.env_checker")
    env = gymnasium.make(env_id, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # any warning of the checker fails
        checker.check_env(env, warn=True, skip_render_check=False)


def test_sb3_vec_video_recorder_records_solo(tmp_path: Path) -> None:
    tool("moviepy")
    env_util = tool("stable_baselines3.common.env_util")
    vec_env = tool("stable_baselines3.common.vec_env")
    vec = env_util.make_vec_env(envs.SOLO_ID, n_envs=2, seed=1, env_kwargs={"opponents": ["greedy"]})
    recorder = vec_env.VecVideoRecorder(vec, str(tmp_path), record_video_trigger=lambda step: step == 0,
                                        video_length=12, name_prefix="solo")
    recorder.reset()
    rng = np.random.default_rng(1)
    maskable = tool("sb3_contrib.common.maskable.utils")
    for _ in range(14):
        recorder.step(_legal(maskable.get_action_masks(recorder), rng))
    recorder.close()
    videos = list(tmp_path.glob("solo*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


# -- sb3-contrib's MaskablePPO -----------------------------------------------------------------

def test_maskable_ppo_learns_and_plays_only_legal_actions() -> None:
    """The calls of sb3-contrib's documentation: `MaskablePPO("MlpPolicy", env).learn(...)`, then
    `model.predict(obs, action_masks=get_action_masks(env))`, and its masked `evaluate_policy`."""
    tool("torch")
    sb3_contrib = tool("sb3_contrib")
    env_util = tool("stable_baselines3.common.env_util")
    maskable = tool("sb3_contrib.common.maskable.utils")
    evaluation = tool("sb3_contrib.common.maskable.evaluation")
    options = {"opponents": ["random"], "variant": "short", "reward": "win"}
    vec = env_util.make_vec_env(envs.SOLO_ID, n_envs=2, seed=0, env_kwargs=options)
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=2, seed=0)
    model.learn(256)
    env = gymnasium.make(envs.SOLO_ID, **options)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            masks = maskable.get_action_masks(env)
            assert np.array_equal(masks, info["action_mask"].astype(bool))
            action, _ = model.predict(obs, action_masks=masks, deterministic=False)
            assert masks[int(action)]
            obs, reward, terminated, _, info = env.step(int(action))
        assert reward in (1.0, -1.0)
    mean, _ = evaluation.evaluate_policy(model, vec, n_eval_episodes=4, warn=False)
    assert -1.0 <= mean <= 1.0
    vec.close()


def test_gymnasium_make_answers_action_masks_as_maskable_ppo_asks() -> None:
    """Gymnasium 1.x passes no attribute through its wrappers: `gymnasium.make` gives the
    environment itself, so `action_masks()` answers on it; under a wrapper of one's own,
    `get_action_masks` (sb3-contrib) or `get_wrapper_attr` reach it."""
    maskable = tool("sb3_contrib.common.maskable.utils")
    for env_id in (envs.SOLO_ID, envs.SELF_PLAY_ID):
        env = gymnasium.make(env_id)
        _, info = env.reset(seed=0)
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        assert np.array_equal(maskable.get_action_masks(env), env.action_masks())
        wrapped = gymnasium.wrappers.RecordEpisodeStatistics(env)
        assert np.array_equal(maskable.get_action_masks(wrapped), env.action_masks())
        assert np.array_equal(wrapped.get_wrapper_attr("action_masks")(), env.action_masks())
        assert gymnasium.make(env.spec).spec == env.spec   # the spec makes it again
    vec = gymnasium.make_vec(envs.SOLO_ID, num_envs=3, vectorization_mode="sync")
    vec.reset(seed=1)
    assert np.stack(vec.call("action_masks")).shape == (3, 49)
    vec.close()


# -- PyTorch's masked sampling over the vector environments -------------------------------------

@pytest.mark.parametrize("make", [
    lambda: envs.VectorEnv(64, players=3, variant="short"),
    lambda: gymnasium.make_vec(envs.SOLO_ID, num_envs=8, vectorization_mode="sync", opponents=["random"],
                               variant="short"),
], ids=["VectorEnv", "Solo-v0 sync"])
def test_a_masked_softmax_never_meets_an_empty_row(make: Any) -> None:
    """CleanRL's masked policy: `Categorical(logits=where(mask, logits, -inf))`. A row of a game that
    has just ended is all true (its action is ignored), so no row is all `-inf`: no NaN, and
    PyTorch's `Categorical` accepts every row at every step."""
    torch = tool("torch")
    vec = make()
    _, info = vec.reset(seed=3)
    generator = torch.Generator().manual_seed(0)
    ended = 0
    for _ in range(120):
        mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
        assert mask.any(dim=1).all()
        logits = torch.randn(mask.shape, generator=generator)
        distribution = torch.distributions.Categorical(logits=torch.where(mask, logits, -torch.inf),
                                                       validate_args=True)
        assert torch.isfinite(distribution.probs).all()
        actions = distribution.sample()
        assert mask[torch.arange(len(actions)), actions].all()
        _, _, terminated, _, info = vec.step(actions.numpy())
        ended += int(terminated.sum())
    assert ended > 0
    vec.close()


# -- SuperSuit on the AEC environment ------------------------------------------------------------

def _play(env: Any, seed: int) -> tuple[dict[str, float], dict[str, dict[str, Any]]]:
    """A whole game of masked random agents (PettingZoo's loop); each agent's return and last info."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns: dict[str, float] = {}
    last: dict[str, dict[str, Any]] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] = returns.get(agent, 0.0) + reward
        last[agent] = info
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return returns, last


def test_supersuit_sticky_actions_with_illegal_end_as_the_docs_recommend() -> None:
    """`supersuit.sticky_actions_v0(envs.env(illegal="end"), 0.25)`: a repeated action that is no
    longer legal ends the game with -1 to its agent; SuperSuit observes every agent at the end, those
    whose game is over too."""
    supersuit = tool("supersuit")
    endings = {"illegal": 0, "rules": 0}
    for seed in range(12):
        env = supersuit.sticky_actions_v0(envs.env(players=3, variant="short", illegal="end"), 0.25)
        returns, last = _play(env, seed)
        assert set(returns) == {"player_0", "player_1", "player_2"}
        codes = [info["illegal_action"] for info in last.values() if "illegal_action" in info]
        if codes:
            endings["illegal"] += 1
            assert sorted(returns.values())[0] == -1.0 and sorted(returns.values())[1:] == [0.0, 0.0]
        else:
            endings["rules"] += 1
            assert sum(returns.values()) < 0                # minus the round's scores
    assert endings["illegal"] > 0


@pytest.mark.parametrize("wrapper", ["clip_reward_v0", "reward_lambda_v0", "frame_skip_v0",
                                     "delay_observations_v0"])
def test_supersuit_aec_wrappers_play_whole_games(wrapper: str) -> None:
    supersuit = tool("supersuit")
    arguments = {"clip_reward_v0": (-1, 1), "reward_lambda_v0": (lambda r: r / 100,), "frame_skip_v0": (2,),
                 "delay_observations_v0": (1,)}[wrapper]
    for seed in range(3):
        env = getattr(supersuit, wrapper)(envs.env(players=2, variant="short", illegal="end"), *arguments)
        returns, _ = _play(env, seed)
        assert set(returns) == {"player_0", "player_1"}
        if wrapper == "clip_reward_v0":
            assert all(-2.0 <= r <= 2.0 for r in returns.values())


def test_observe_answers_for_every_agent_after_the_game() -> None:
    """As in PettingZoo's classic games, `observe(agent)` answers for every possible agent at any
    time: while it waits, once the game is over, and after it has left (a zero mask)."""
    env = envs.env(players=3, variant="short")
    _play(env, 4)
    assert env.agents == []
    for agent in env.possible_agents:
        seen = env.observe(agent)
        assert seen in env.observation_space(agent) and not seen["action_mask"].any()
    with pytest.raises(KeyError):
        env.observe("player_9")


# -- Gymnasium's video recorder -------------------------------------------------------------------

def test_gymnasium_record_video_records_a_solo_game(tmp_path: Path) -> None:
    tool("moviepy")
    env = gymnasium.make(envs.SOLO_ID, opponents=["greedy"], variant="short", render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True,
                                         name_prefix="solo")
    _, info = env.reset(seed=0)
    terminated, steps = False, 0
    while not terminated:
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        steps += 1
    env.close()
    (video,) = (tmp_path / "videos").glob("solo-episode-0.mp4")
    assert video.stat().st_size > 1000 and steps > 3


def test_the_maskable_ppo_example_runs(tmp_path: Path) -> None:
    """examples/maskable_ppo.py, without training (its training calls are the test above): the
    evaluation games, the two baselines, the figures and the picture."""
    tool("sb3_contrib")
    tool("matplotlib")
    out = tmp_path / "curve.svg"
    command = [sys.executable, str(ROOT / "examples" / "maskable_ppo.py"), "--steps", "0", "--games", "4",
               "--out", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert figures["steps"] == [0] and len(figures["win_rate"]) == 1 and figures["games"] == 4
    assert set(figures["baselines"]) == {"random legal player", "the greedy bot"}
    assert out.read_text(encoding="utf-8").count("<svg") == 1
    committed = json.loads((ROOT / "docs/assets/rl/maskable-ppo-solo.json").read_text(encoding="utf-8"))
    assert committed["seed"] == 0 and committed["games"] == 400 and committed["options"] == figures["options"]
