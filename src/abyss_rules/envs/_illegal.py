"""What the single-game environments do with an illegal action (a constructor option).

| `illegal` | an index that is not legal now, or not in `[0, space.size)` |
|---|---|
| `"raise"` (default) | the engine's typed error (`IllegalActionError`, `ActionIndexError`); nothing changes |
| `"end"` | the game ends there, as PettingZoo's classic games do: the agent that acted earns `illegal_reward` (default -1), the others 0, every agent is terminated, and `info["illegal_action"]` holds the error's code |

Either way the action is never applied, and an action that is not an integer at all is a
`MalformedActionError` (a bug in the caller, not a move).
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

# (Defined beside the batch engine's Pgx-style `Env`, which takes the same option and needs NumPy only.)
from ..batch._env import ILLEGAL, ILLEGAL_REWARD, check_illegal

__all__ = ["ILLEGAL", "ILLEGAL_REWARD", "check_illegal"]
