"""Train sb3-contrib's MaskablePPO on `abyss_rules/Solo-v0` and draw its learning curve.

The learner plays the short variant (one round a game) against the random bot, for the reward
`"win"` (+1 a win, -1 a loss), through the environments' `action_masks()`: the calls of
sb3-contrib's own documentation, on four environments made by Stable-Baselines3's `make_vec_env`.
After every `--every` steps (rounded up to whole rollouts: 10,240 by default) the policy (its most
likely legal action) plays `--games` evaluation games against the same bot, and its win rate is one
point of the curve. Two lines give the scale: a uniformly random legal player (the bot's own level:
about half the games), and the greedy bot playing the learner's seat.

    pip install 'abyss-rules[rl]' torch==2.13.0 stable-baselines3 sb3-contrib matplotlib
    python examples/maskable_ppo.py            # the curve of docs/rl.md
    python examples/maskable_ppo.py --redraw   # the picture again, from the figures beside it

Seeds, all stated here so that a run is reproducible on one machine:

* `--seed` (0): MaskablePPO's `seed` (PyTorch's and NumPy's generators: the network's
  initialisation and the sampled actions) and `make_vec_env`'s `seed` (environment `i`'s games are
  dealt from seed `seed + i`, then from its own generator);
* the evaluation games are dealt from seeds 1,000,000 to 1,000,000 + `--games` - 1, the same at every
  point of the curve, and each game's bot is seeded from that game's seed (Solo-v0's `reset(seed=s)`);
* the random player's choices come from `numpy.random.default_rng(seed)`.

PyTorch runs on the CPU in one thread (`torch.set_num_threads(1)`); its results may differ on
other hardware or versions, so the curve is reproducible where it was made, not bit for bit
everywhere.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import abyss_rules as ar
from abyss_rules.bots import GreedyBot
from abyss_rules.envs import SoloEnv  # (importing abyss_rules.envs registers abyss_rules/Solo-v0)

OPTIONS: dict[str, Any] = {"opponents": ["random"], "variant": "short", "reward": "win"}
"""Solo-v0's options, for training and evaluation alike."""

EVALUATION_SEEDS = 1_000_000
"""The first seed of the evaluation games."""

Policy = Callable[[SoloEnv, np.ndarray], int]


def win_rate(policy: Policy, games: int) -> float:
    """The learner's share of wins (a shared win counts) over the evaluation games."""
    env = gymnasium.make("abyss_rules/Solo-v0", **OPTIONS)
    assert isinstance(env, SoloEnv)  # (gymnasium.make gives the environment itself)
    won = 0
    for n in range(games):
        obs, _ = env.reset(seed=EVALUATION_SEEDS + n)
        reward, terminated = 0.0, False
        while not terminated:
            obs, step_reward, terminated, _, _ = env.step(policy(env, obs))
            reward = float(step_reward)
        won += reward > 0
    return won / games


def random_player(seed: int) -> Policy:
    rng = np.random.default_rng(seed)
    return lambda env, obs: int(rng.choice(np.flatnonzero(env.action_masks())))


def greedy_player(env: SoloEnv, obs: np.ndarray) -> int:
    return int(env.space.index(GreedyBot().choose(ar.view(env.game_state, env.seat))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="training steps in all (default 100000)")
    parser.add_argument("--every", type=int, default=10_000, help="steps between two points (default 10000)")
    parser.add_argument("--games", type=int, default=400, help="evaluation games a point (default 400)")
    parser.add_argument("--seed", type=int, default=0, help="the training seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("docs/assets/rl/maskable-ppo-solo.svg"),
                        help="the picture (an .svg; the figures go beside it as .json)")
    parser.add_argument("--redraw", action="store_true", help="only draw the picture again from the .json")
    args = parser.parse_args()
    if args.redraw:
        draw(json.loads(args.out.with_suffix(".json").read_text(encoding="utf-8")), args.out)
        return

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    train = make_vec_env("abyss_rules/Solo-v0", n_envs=4, seed=args.seed, env_kwargs=OPTIONS)
    model = MaskablePPO("MlpPolicy", train, n_steps=512, batch_size=256, gamma=1.0, seed=args.seed,
                        policy_kwargs={"net_arch": [128, 128]}, verbose=0)

    def learned(env: SoloEnv, obs: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    steps, rates = [0], [win_rate(learned, args.games)]
    print(f"{0:>8} steps: {rates[-1]:.3f}", flush=True)
    while steps[-1] < args.steps:
        model.learn(args.every, reset_num_timesteps=False)
        steps.append(int(model.num_timesteps))
        rates.append(win_rate(learned, args.games))
        print(f"{steps[-1]:>8} steps: {rates[-1]:.3f}", flush=True)
    baselines = {"random legal player": win_rate(random_player(args.seed), args.games),
                 "the greedy bot": win_rate(greedy_player, args.games)}
    figures = {"steps": steps, "win_rate": rates, "baselines": baselines, "games": args.games,
               "seed": args.seed, "options": OPTIONS, "torch": torch.__version__}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    draw(figures, args.out)


def draw(figures: dict[str, Any], out: Path) -> None:
    """The learning curve as an SVG picture (matplotlib; no date in it, so a rerun gives the same file)."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "abyss-rules", "font.size": 10})
    figure, axes = plt.subplots(figsize=(6.4, 3.6))
    axes.plot(figures["steps"], figures["win_rate"], marker="o", color="#1f5fa8", label="MaskablePPO")
    for (label, rate), style in zip(figures["baselines"].items(), (":", "--"), strict=True):
        axes.axhline(rate, color="#555555", linestyle=style, label=label)
    axes.set_xlabel("training steps (the learner's decisions)")
    axes.set_ylabel(f"win rate over {figures['games']} games")
    axes.set_title("Solo-v0, short variant, against the random bot")
    axes.set_ylim(0, 1.04)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(out, metadata={"Date": None})


if __name__ == "__main__":
    main()
