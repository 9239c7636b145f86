"""Reinforcement-learning environments for *Abyss* (the `rl` extra: Gymnasium, PettingZoo, NumPy).

Three interfaces over the same rules, observations and rewards:

| interface | what it is |
|---|---|
| `env` / `raw_env` | a PettingZoo AEC environment: every seat is an agent (`player_0`, ...) |
| `gymnasium.make("abyss_rules/Solo-v0", opponents=["greedy"])` | one learner against built-in bots (`SoloEnv`) |
| `VectorEnv(num_envs, players=2)` | a `gymnasium.vector.VectorEnv` of self-play games over the batch engine |
| `gymnasium.make_vec("abyss_rules/SelfPlay-v0", num_envs)` | the same `VectorEnv`, by id (`SelfPlayEnv` is one such game for `make`) |

Actions are the indices of `ActionSpace` (`Discrete(space.size)`); observations are
`Observation` encodings of an agent's `View` -- public facts only (rules 8.1-8.3) -- and
rewards are one of `REWARDS`. An illegal action is refused with the engine's typed error
and changes nothing (`illegal="end"` ends the game with a penalty instead). Importing this
module registers `abyss_rules/Solo-v0` and `abyss_rules/SelfPlay-v0` with Gymnasium.

Install the extra with `pip install 'abyss-rules[rl]'`; the "RL environments" page of the docs
has the observation and reward tables and a masked random agent loop for each interface.
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        f"abyss_rules.envs needs the 'rl' extra ({error.name} is missing): "
        "pip install 'abyss-rules[rl]'",
        name=error.name,
    ) from error

from ._aec import env, raw_env
from ._observation import OBSERVATION_VERSION, Observation
from ._rewards import REWARDS, Rewards
from ._seat_observation import COMPILED
from ._selfplay import SELF_PLAY_ID, SelfPlayEnv
from ._solo import SOLO_ID, SoloEnv
from ._vector import VectorEnv

__all__ = [
    "COMPILED",
    "OBSERVATION_VERSION",
    "REWARDS",
    "SELF_PLAY_ID",
    "SOLO_ID",
    "Observation",
    "Rewards",
    "SelfPlayEnv",
    "SoloEnv",
    "VectorEnv",
    "env",
    "raw_env",
]

# `gymnasium.make` returns the environments themselves, not wrapped in Gymnasium's order-enforcing and
# checking wrappers (they check what these environments check themselves, and since Gymnasium 1.0 a
# wrapper hides `action_masks()`, which sb3-contrib's MaskablePPO and masked loops call); a
# `reset()` must still come first (a ConfigError says so). Gymnasium's `check_env` passes on both.
if SOLO_ID not in gymnasium.registry:
    gymnasium.register(id=SOLO_ID, entry_point="abyss_rules.envs._solo:SoloEnv",
                       vector_entry_point="abyss_rules.envs._solo:solo_vector",
                       order_enforce=False, disable_env_checker=True)
if SELF_PLAY_ID not in gymnasium.registry:
    gymnasium.register(id=SELF_PLAY_ID, entry_point="abyss_rules.envs._selfplay:SelfPlayEnv",
                       vector_entry_point="abyss_rules.envs._vector:VectorEnv",
                       order_enforce=False, disable_env_checker=True)
