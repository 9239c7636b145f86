"""`abyss_rules/SelfPlay-v0`: self-play games for `gymnasium.make` and `gymnasium.make_vec`.

`gymnasium.make_vec("abyss_rules/SelfPlay-v0", num_envs=N)` (registered when
`abyss_rules.envs` is imported) makes a `VectorEnv`: `N` games on the batch engine, its
vector entry point. `gymnasium.make("abyss_rules/SelfPlay-v0")` makes a `SelfPlayEnv`, one
such game: the same observations, masks, rewards and `info` as one lane of the vector
environment (it is one, `VectorEnv(1)`), so that the `sync` and `async` vectorization modes
work too.

* one policy plays every seat: each step takes an index for the seat to act (`info["seat"]`);
  `action_space.sample()` without a mask draws a legal one;
* the reward is that seat's, `info["rewards"]` every seat's;
* `terminated` when the game is over (then call `reset()`), never `truncated`; the mask is then
  all 1 (Pgx's convention: no policy meets an empty mask);
* `render_mode`: `"ansi"`, `"human"` or `"rgb_array"` (an image of the public table, see
  `abyss_rules.envs._render`).

Examples:
    >>> import gymnasium
    >>> import abyss_rules.envs
    >>> env = gymnasium.make("abyss_rules/SelfPlay-v0", players=3)
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, info["action_mask"].shape, info["seat"]
    ((676,), (49,), 0)
"""

from __future__ import annotations

from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt

from ..action_space import ActionSpace
from ..config import Variant
from ._masks import Mask
from ._observation import OBSERVATION_VERSION, Vector
from ._options import SEED_BOUND, bad_option
from ._render import RENDER_MODES, Frame, Pictures, check_render_mode, render
from ._solo import LegalDiscrete, unpickled, weakly
from ._vector import VectorEnv

__all__ = ["SELF_PLAY_ID", "SelfPlayEnv"]

SELF_PLAY_ID: Final = f"abyss_rules/SelfPlay-v{OBSERVATION_VERSION}"
"""The Gymnasium id of the self-play environments."""


class SelfPlayEnv(gymnasium.Env[Vector, np.int64]):
    """One self-play game (see `abyss_rules.envs._selfplay`): a `VectorEnv`
    of one game, without its autoreset.

    Args:
        players: The number of players (rule 1.3).
        variant: A `Variant` or a preset name.
        reward: The reward scheme, one of `abyss_rules.envs.REWARDS`.
        render_mode: `None`, `"ansi"`, `"human"` or `"rgb_array"` (the public table).

    Raises:
        ConfigError: `invalid_variant`, `invalid_players` or `invalid_env_option`.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(self, players: int = 2, variant: Variant | str = "standard", reward: str = "score",
                 render_mode: str | None = None) -> None:
        self._vec = VectorEnv(1, players, variant, reward)
        self.players = players
        self.render_mode = check_render_mode(render_mode)
        self._pictures = Pictures(self._vec.variant, players) if render_mode == "rgb_array" else None
        self.observation_space = self._vec.single_observation_space
        self.action_space = LegalDiscrete(ActionSpace(self._vec.variant).size, weakly(self._legal_now))
        """`Discrete(space.size)` whose `sample()` without a mask draws a legal index."""
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Vector, dict[str, Any]]:
        """Deal a new game; its seed is drawn from the generator seeded by `seed`.

        Raises:
            ConfigError: `seed` is not a non-negative int (`invalid_env_option`).
        """
        if seed is not None and (type(seed) is not int or seed < 0):
            raise bad_option(f"seed must be a non-negative int or None, got {seed!r}")
        super().reset(seed=seed)
        obs, info = self._vec.reset(seed=int(self.np_random.integers(SEED_BOUND)))
        self._over = False
        return obs[0], _first(info)

    def step(self, action: Any) -> tuple[Vector, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play `action` (an index) for the seat to act.

        Raises:
            BatchStepError: The index is not legal now (an
                `IllegalActionError`); nothing changes.
            MalformedActionError: The action is not an integer.
            ConfigError: The game is over or not dealt: call `reset()` (`invalid_env_option`).
        """
        if self._over:
            raise bad_option("the game is over: call reset() to deal a new one")
        obs, rewards, terminated, truncated, info = self._vec.step(np.array([action]))
        self._over = bool(terminated[0])
        if self.render_mode == "human":
            self.render()
        return obs[0], float(rewards[0]), self._over, bool(truncated[0]), _first(info)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal indices of the seat to act, as booleans (`sb3_contrib.MaskablePPO`'s protocol);
        all true once the game is over."""
        masks: npt.NDArray[np.bool_] = self._vec.action_masks()[0]
        return masks

    def render(self) -> str | Frame | None:
        """The public table (a spectator's view): text for `"ansi"`, printed for `"human"`, an
        `(H, W, 3)` `uint8` image for `"rgb_array"`."""
        return render(self.render_mode, self._vec.batch.state(0), None, self._pictures)

    def __setstate__(self, state: dict[str, Any]) -> None:
        unpickled(self, state)

    def _legal_now(self) -> Mask | None:
        vec = self._vec
        return None if vec._batch is None else vec.batch.legal_mask()[0].astype(np.int8)

    @property
    def vector(self) -> VectorEnv:
        """The one-game `VectorEnv` inside (its `batch` has the game)."""
        return self._vec


def _first(info: dict[str, Any]) -> dict[str, Any]:
    """The one game's row of each entry of a vector `info` (a number as a Python number)."""
    rows = {key: value[0] for key, value in info.items()}
    return {key: row.item() if np.ndim(row) == 0 else row for key, row in rows.items()}
