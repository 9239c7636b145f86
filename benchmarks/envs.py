"""The RL environments' speed: environment steps per second of each interface.

Each environment is driven by a masked random agent (a uniformly random legal index, picked with
``random.Random`` as the engine's own loop picks its actions) for
``--seconds`` seconds; a figure is the median of ``--repeats`` runs, the cases interleaved (each
once per repeat) so that they see the same load. Printed beside them, in the
same run, the reference engine's own random playouts (``apply`` + ``legal_actions``, no
observation), so that the ratios say what an environment step costs on top of the rules:

* ``aec`` -- ``abyss_rules.envs.env``: one step is one agent's action, with ``last()`` (the
  observation and the mask) before it;
* ``solo/random``, ``solo/greedy`` -- ``abyss_rules/Solo-v0`` against one bot: one step is one
  learner action plus the opponent's moves until the learner's next decision (the line says
  how many engine actions a step played, and the ratio counted in actions);
* ``vector/N`` -- ``abyss_rules.envs.VectorEnv`` over the batch engine: one call is one action in
  each of N games (the figure counts N steps).

    python benchmarks/envs.py [--seconds 3] [--repeats 3] [--players 2]

Not a test: the machines are shared and noisy; compare the ratios of one run, not absolute
figures of different runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
from collections.abc import Callable
from time import perf_counter

import gymnasium
import numpy as np

import abyss_rules as ar
from abyss_rules import envs


def engine(players: int, seconds: float, seed: int) -> float:
    """The reference engine's random playouts: actions per second."""
    rng = random.Random(seed)
    actions = 0
    start = perf_counter()
    while perf_counter() - start < seconds:
        state = ar.new_game(players, seed=rng.getrandbits(64))
        while not state.is_over:
            legal = ar.legal_actions(state)
            state = ar.apply(state, legal[int(rng.random() * len(legal))])
            actions += 1
    return actions / (perf_counter() - start)


def pick(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal index of `mask`: the agent of every single-game case, as cheap as
    the engine's own choice (`rng.random()` scaled to the legal moves)."""
    legal = mask.nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


def aec(players: int, seconds: float, seed: int) -> float:
    """The PettingZoo AEC environment: agent steps per second."""
    rng = random.Random(seed)
    game = envs.env(players=players)
    steps = 0
    start = perf_counter()
    while perf_counter() - start < seconds:
        game.reset(seed=rng.getrandbits(62))
        for _ in game.agent_iter():
            obs, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            game.step(pick(obs["action_mask"], rng))
            steps += 1
    return steps / (perf_counter() - start)


def solo(opponent: str, players: int) -> Callable[[int, float, int], float]:
    def run(_: int, seconds: float, seed: int) -> float:
        """Solo-v0 against `opponent`: learner steps per second (and, in `ACTIONS_PER_STEP`, the
        engine actions those steps played, the opponents' included)."""
        rng = random.Random(seed)
        env = gymnasium.make(envs.SOLO_ID, opponents=[opponent] * (players - 1))
        steps = actions = 0
        start = perf_counter()
        while perf_counter() - start < seconds:
            _, info = env.reset(seed=rng.getrandbits(62))
            terminated = False
            while not terminated:
                _, _, terminated, _, info = env.step(pick(info["action_mask"], rng))
                steps += 1
            actions += env.unwrapped.game_state.seq  # every action of the game, whole games only
        ACTIONS_PER_STEP[f"solo/{opponent}"] = actions / steps
        return steps / (perf_counter() - start)

    return run


ACTIONS_PER_STEP: dict[str, float] = {}
"""Engine actions per environment step of the Solo cases (the learner's and the opponents')."""


def vector(num_envs: int) -> Callable[[int, float, int], float]:
    def run(players: int, seconds: float, seed: int) -> float:
        """VectorEnv over the batch engine: steps (one per game) per second."""
        vec = envs.VectorEnv(num_envs, players=players)
        rng = np.random.default_rng(seed)
        _, info = vec.reset(seed=seed)
        steps = 0
        start = perf_counter()
        while perf_counter() - start < seconds:
            mask = info["action_mask"]
            # A uniformly random legal index per game: argmax of random keys on the legal entries.
            actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
            _, _, _, _, info = vec.step(actions)
            steps += num_envs
        return steps / (perf_counter() - start)

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is printed")
    parser.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    args = parser.parse_args()
    print(f"abyss-rules {ar.__version__}, Python {platform.python_version()}, {platform.machine()}; "
          f"{args.players} players, median of {args.repeats} runs of {args.seconds:g} s")
    cases: list[tuple[str, Callable[[int, float, int], float]]] = [
        ("engine (apply + legal_actions)", engine),
        ("aec", aec),
        ("solo/random", solo("random", args.players)),
        ("solo/greedy", solo("greedy", args.players)),
    ]
    cases += [(f"vector/{n}", vector(n)) for n in (256, 4096)]
    # Interleaved (every case once per repeat) so that the ratios of one run see the same load.
    figures: dict[str, list[float]] = {name: [] for name, _ in cases}
    for seed in range(args.repeats):
        for name, run in cases:
            figures[name].append(run(args.players, args.seconds, seed))
    base = statistics.median(figures[cases[0][0]])
    for name, _ in cases:
        figure = statistics.median(figures[name])
        line = f"{name:32} {figure:12,.0f} steps/s  {figure / base:6.2f}x the engine"
        if name in ACTIONS_PER_STEP:  # a Solo step plays the opponents' actions too
            per = ACTIONS_PER_STEP[name]
            line += f"  ({per:.2f} engine actions a step: {figure * per / base:.2f}x in actions)"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
