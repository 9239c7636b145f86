"""What the single-game environments do with an illegal action (a constructor option).

| `illegal` | an index that is not legal now, or not in `[0, space.size)` |
|---|---|
| `"raise"` (default) | the engine's typed error (`IllegalActionError`, `ActionIndexError`); nothing changes |
| `"end"` | the game ends there, as PettingZoo's classic games do: the agent that acted earns `illegal_reward` (default -1), the others 0, every agent is terminated, and `info["illegal_action"]` holds the error's code |

Either way the action is never applied, and an action that is not an integer at all is a
`MalformedActionError` (a bug in the caller, not a move).
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import math
from typing import Final

from ._options import bad_option

__all__ = ["ILLEGAL", "ILLEGAL_REWARD", "check_illegal"]

ILLEGAL: Final[tuple[str, ...]] = ("raise", "end")
"""The values of the environments' `illegal=` option."""

ILLEGAL_REWARD: Final = -1.0
"""The default reward of the agent whose illegal action ends the game (`illegal="end"`)."""


def check_illegal(mode: object, reward: object) -> tuple[str, float]:
    """`(mode, reward)` checked.

    Raises:
        ConfigError: `mode` is not one of `ILLEGAL`, or `reward` is not a finite number
            (`invalid_env_option`).

    Examples:
        >>> check_illegal("end", -5)
        ('end', -5.0)
    """
    if mode not in ILLEGAL:
        raise bad_option(f"illegal must be one of {', '.join(ILLEGAL)}, got {mode!r}")
    if not isinstance(reward, (int, float)) or isinstance(reward, bool) or not math.isfinite(reward):
        raise bad_option(f"illegal_reward must be a finite number, got {reward!r}")
    return str(mode), float(reward)
