"""The environments' shared constructor options: the variant, the player count and the seeds of games.

Bad options are refused at construction with a `ConfigError`: `invalid_variant` (not a
`Variant` or a preset name), `invalid_players` (a count the variant does not allow, rule
1.3) or `invalid_env_option` (anything else, e.g. an unknown reward scheme).
"""

from __future__ import annotations

import numpy as np

from ..batch._env import SEED_BOUND
from ..config import Variant
from ..errors import Code, ConfigError
from ..rules._dealing import new_game

__all__ = ["SEED_BOUND", "bad_option", "game_seed", "resolve"]

def bad_option(message: str) -> ConfigError:
    """The error of a bad environment option (code `invalid_env_option`)."""
    return ConfigError(Code.INVALID_ENV_OPTION, message)


def resolve(variant: Variant | str, players: int) -> Variant:
    """The variant meant by `variant` (a `Variant` or a preset name), checked to take
    `players` players.

    Raises:
        ConfigError: `invalid_variant` or `invalid_players`.

    Examples:
        >>> resolve("short", 3).max_rounds
        1
        >>> resolve("standard", 9)
        Traceback (most recent call last):
        ...
        abyss_rules.errors.ConfigError: [invalid_players] this variant takes 2 to 8 players, got 9 (rule 1.3)
    """
    variant = Variant.resolve(variant)
    new_game(players, variant, seed=0)  # the engine's own checks of the variant and the player count
    return variant


def game_seed(seed: int | None, rng: np.random.Generator) -> int:
    """The seed of the next game: `seed` itself when given (so that `reset(seed=s)` deals
    `ar.new_game(players, variant, seed=s)`), else a draw from `rng`.

    Raises:
        ConfigError: `seed` is not a non-negative int (`invalid_env_option`).
    """
    if seed is None:
        return int(rng.integers(SEED_BOUND))
    if (type(seed) is not int and not isinstance(seed, np.integer)) or seed < 0:
        raise bad_option(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)
