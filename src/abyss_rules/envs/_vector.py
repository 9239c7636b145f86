"""`VectorEnv`: thousands of self-play games as one `gymnasium.vector.VectorEnv`, over the batch engine.

`VectorEnv(num_envs, players=2)` runs `num_envs` games in lockstep on
`abyss_rules.batch`; one policy plays every seat (self-play):

* each step takes one action index per game, for the seat to act in it (the player to move; in
  the opening the lowest seat that still owes a flip); `info["action_mask"]` is
  `(num_envs, space.size)` `int8` and `info["seat"]` the seat each observation is for; the row
  of a game that has just ended is all 1 (its action is ignored: Pgx's convention, so that a
  masked softmax never meets an empty row);
* `observations[i]` is that seat's `Observation` encoding, the same bytes as the AEC
  environment's (a differential test checks it); when game `i` has just ended, it is the view
  of the seat that made the last move;
* `rewards[i]` is the reward of the seat that just acted; `info["rewards"]` is `(num_envs,
  players)`: every seat's reward of the step (rewards come at round and game end to every seat:
  credit them all in self-play);
* `terminations[i]` when game `i` ended in this step, never `truncations`; a finished game is
  replaced by a new one at the next step (Gymnasium's next-step autoreset: that step ignores its
  action and returns the new game's first observation with reward 0);
* an illegal index for a live game raises the batch engine's
  `BatchStepError` (naming the game and the index) and
  changes nothing;
* `reset(seed=s)` seeds the environment's generator; the games' seeds (and those of the games
  that replace finished ones) are drawn from it, so a run is reproducible.

Examples:
    >>> import numpy as np
    >>> from abyss_rules import envs
    >>> vec = envs.VectorEnv(4, players=2)
    >>> obs, info = vec.reset(seed=0)
    >>> obs.shape, info["action_mask"].shape, info["seat"].tolist()
    ((4, 468), (4, 49), [0, 0, 0, 0])
    >>> actions = np.argmax(info["action_mask"], axis=1)     # the first legal index of each game
    >>> obs, rewards, terminated, truncated, info = vec.step(actions)
    >>> rewards.tolist(), terminated.tolist()
    ([0.0, 0.0, 0.0, 0.0], [False, False, False, False])
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..batch import Batch
from ..config import Variant
from ._observation import Observation
from ._options import SEED_BOUND, bad_option, resolve
from ._rewards import Rewards

__all__ = ["VectorEnv"]

Array = np.ndarray[Any, Any]


class VectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` self-play games over the batch engine (see `abyss_rules.envs._vector`).

    Args:
        num_envs: The number of games stepped together (at least 1).
        players: The number of players of every game (rule 1.3).
        variant: A `Variant` or a preset name.
        reward: The reward scheme, one of `abyss_rules.envs.REWARDS`.

    Raises:
        ConfigError: `invalid_variant`, `invalid_players` or `invalid_env_option`.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int, players: int = 2, variant: Variant | str = "standard",
                 reward: str = "score") -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise bad_option(f"num_envs must be an int of at least 1, got {num_envs!r}")
        self.num_envs = num_envs
        self.players = players
        self.variant = resolve(variant, players)
        self.reward = reward
        self._rewards = Rewards(reward, players)
        self.encoder = Observation(self.variant, players)
        """The observation encoding (`Observation`)."""
        size = 4 * self.variant.cells + 1
        self.single_observation_space = gymnasium.spaces.Box(self.encoder.low, self.encoder.high,
                                                             dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = gymnasium.spaces.Discrete(size)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._batch: Batch | None = None
        self._done = np.zeros(num_envs, dtype=bool)

    @property
    def batch(self) -> Batch:
        """The games now, a `Batch` -- secrets included: for analysis and tests (`batch.state(i)`),
        never for the policy's input."""
        if self._batch is None:
            raise bad_option("call reset() before using the environment")
        return self._batch

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Array, dict[str, Any]]:
        """Deal `num_envs` new games, their seeds drawn from the generator seeded by `seed`.

        Raises:
            ConfigError: `seed` is not a non-negative int (`invalid_env_option`).
        """
        if seed is not None and (type(seed) is not int or seed < 0):
            raise bad_option(f"seed must be a non-negative int or None, got {seed!r}")
        super().reset(seed=seed)
        self._batch = Batch.new(self.players, self.variant, seeds=self._seeds(self.num_envs))
        self._done = np.zeros(self.num_envs, dtype=bool)
        seat = self._batch.actor.copy()
        return self.encoder.encode_batch(self._batch, seat), self._info(self._batch, seat, None)

    def step(self, actions: Any) -> tuple[Array, Array, Array, Array, dict[str, Any]]:
        """One action index per game for its seat to act; the games that ended at the previous step
        are replaced by new ones instead (their actions are ignored).

        Raises:
            BatchStepError: a live game's index is not legal now (the batch names the game and
                the index); nothing changes.
            MalformedActionError: `actions` is not `num_envs` integers.
        """
        before = self.batch
        restart = self._done
        mover = before.actor
        after = before.step(actions)                     # raises before anything changes
        scores = after.totals - before.totals             # the round scores, where a round ended
        over = after.done & ~restart
        # A replaced game was over: the step left it alone, so its scores are 0 and it is not `over`.
        everyone = self._rewards.of_scores(scores, over, after.totals)
        if restart.any():
            after = after.reset(restart, seeds=self._seeds(int(restart.sum())))
        rows = np.arange(self.num_envs)
        rewards = np.where(restart, 0.0, everyone[rows, np.maximum(mover, 0)])
        seat = np.where(over, mover, after.actor)          # a finished game: the last mover's view
        self._batch, self._done = after, over
        obs = self.encoder.encode_batch(after, seat)
        truncated = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards, over.copy(), truncated, self._info(after, seat, everyone)

    def action_masks(self) -> Array:
        """Every game's legal indices now, `(num_envs, space.size)` booleans (a new array), a game
        that has just ended all true: the `action_masks()` method of `sb3_contrib.MaskablePPO`'s
        protocol; the same as `info["action_mask"]` of the last `reset` or `step`.

        Raises:
            ConfigError: Before the first `reset` (`invalid_env_option`).
        """
        return self.batch.legal_mask() | self._done[:, None]

    def _info(self, b: Batch, seat: Array, everyone: Array | None) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": (b.legal_mask() | self._done[:, None]).view(np.int8),
                                "seat": seat}
        info["rewards"] = np.zeros((self.num_envs, self.players)) if everyone is None else everyone
        return info

    def _seeds(self, count: int) -> list[int]:
        return [int(s) for s in self.np_random.integers(SEED_BOUND, size=count)]

    def __repr__(self) -> str:
        return f"VectorEnv(num_envs={self.num_envs}, players={self.players}, variant={self.variant.name!r})"

