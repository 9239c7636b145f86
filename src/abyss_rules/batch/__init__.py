"""The batch engine: thousands of games in lockstep on NumPy, state for state equal to the reference.

Needs [NumPy](https://numpy.org/), an optional dependency: install the `batch` extra
(`pip install 'abyss-rules[batch]'`). Importing it without NumPy raises an `ImportError`
that says so; the rest of the library never imports it.

| name | what it is |
|---|---|
| `Batch` | `N` games in lockstep, stepped by index (`ActionSpace`) |
| `Env`, `EnvState` | the same games Pgx-style: `init`, `step`, `observe`, `current_player`, `rewards`, `terminated`, `truncated`, `legal_action_mask` |
| `Observation` | the observation encoding of the RL environments, for one view or a whole batch |
| `choose_uniformly` | one uniformly random legal index per game, from a legal mask |
| `random_playouts` | uniformly random games to the end, with counts and final scores |
| `PlayoutStats` | what `random_playouts` returns |
| `PHASES` | the `Phase` of each code of `Batch.phase` |

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules import batch
    >>> stats = batch.random_playouts(games=64, players=2, variant=ar.Variant.short(), seed=0)
    >>> stats.games, stats.turns > 64 * 10
    (64, True)
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

from .._extras import require

require("numpy", name="NumPy", extra="batch", module="abyss_rules.batch")

from ._convert import PHASES  # noqa: E402 - after the check of the extra
from ._engine import Batch  # noqa: E402
from ._env import Env, EnvState  # noqa: E402
from ._observation import OBSERVATION_VERSION, Observation  # noqa: E402
from ._playouts import PlayoutStats, choose_uniformly, random_playouts  # noqa: E402

__all__ = ["OBSERVATION_VERSION", "PHASES", "Batch", "Env", "EnvState", "Observation", "PlayoutStats",
           "choose_uniformly", "random_playouts"]
