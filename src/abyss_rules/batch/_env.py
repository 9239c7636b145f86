"""The batch engine shaped like Pgx: `init`, `step`, `observe`, and arrays with Pgx's names.

[Pgx](https://github.com/sotetsuk/pgx) users meet the names they know:

| Pgx | here | shape |
|---|---|---|
| `env.init(keys)` | `Env.init(seeds)` | one game per seed |
| `env.step(state, action)` | `Env.step(state, action)` | one index per game |
| `env.observe(state, player_id)` | `Env.observe(state, player_id)` | `(N, size)` float32 |
| `state.current_player` | the seat to act, `-1` once the game is over or truncated | `(N,)` int |
| `state.legal_action_mask` | its legal indices | `(N, num_actions)` bool |
| `state.rewards` | every seat's reward of the last step | `(N, num_players)` float32 |
| `state.terminated`, `state.truncated` | the game is over; it was cut at `max_steps` | `(N,)` bool |
| `state.observation` | `observe(state, state.current_player)` | `(N, size)` float32 |

Rewards are minus the round scores (closer penalty included, rules 6.4, 6.5) of the rounds that
ended in the step, to every seat at once, so that a game's rewards add up to minus its final
totals. A game that has terminated or been truncated is left as it is by later steps (its
action is ignored, its rewards are 0), as in Pgx. Needs NumPy only: no JAX, Gymnasium or
PettingZoo; the observations are those of the RL environments (`Observation`), byte for byte.

Examples:
    >>> import numpy as np
    >>> from abyss_rules import batch
    >>> env = batch.Env(players=2)
    >>> state = env.init(seeds=range(3))
    >>> state.current_player.tolist(), state.legal_action_mask.shape, state.observation.shape
    ([0, 0, 0], (3, 49), (3, 468))
    >>> rng = np.random.default_rng(0)
    >>> while not (state.terminated | state.truncated).all():
    ...     state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
    >>> bool((state.batch.totals >= 100).any(axis=1).all())
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from ..config import Variant
from ..errors import Code, ConfigError
from ..randomness import Seed
from ._engine import Batch, tables_for
from ._observation import Observation

__all__ = ["Env", "EnvState"]

Array = np.ndarray[Any, Any]


@attrs.frozen(slots=True, eq=False)
class EnvState:
    """`N` games as Pgx shows them (read-only arrays, one row per game); made by
    `Env.init` and `Env.step`."""

    batch: Batch
    """The games (`Batch`); `batch.state(i)` is game `i` as a reference state."""
    current_player: Array
    """`(N,)` int: the seat to act (in the opening the lowest seat still owing a flip); `-1` once
    the game is over or truncated."""
    legal_action_mask: Array
    """`(N, num_actions)` bool: the legal indices of `current_player` (all false when it is -1)."""
    rewards: Array
    """`(N, num_players)` float32: every seat's reward of the last step (minus the round scores
    of a round that ended in it)."""
    terminated: Array
    """`(N,)` bool: the game is over (rules 7.2, 7.3)."""
    truncated: Array
    """`(N,)` bool: the game was cut at `max_steps` actions before its end."""
    step_count: Array
    """`(N,)` int: the actions applied in each game."""
    observation: Array | None
    """`(N, size)` float32: `current_player`'s observation (the last mover's for a finished
    game); `None` when the `Env` was made with `observe=False`."""


class Env:
    """`N` games of one variant in lockstep, Pgx-style (see `abyss_rules.batch._env`).

    Args:
        players: The number of players (rule 1.3).
        variant: The rules, or a preset's name; `None` means the standard variant.
        max_steps: Cut a game (`truncated`) once it has had this many actions; `None` for never
            (every game ends by the rules: rules 7.2, 7.3, 6.7).
        observe: Whether `init` and `step` fill `state.observation` (a `(N, size)` encoding per
            step; `observe()` gives any seat's on demand either way).

    Raises:
        ConfigError: `invalid_variant`, `invalid_players`, or `invalid_env_option` for a bad
            `max_steps`.
    """

    __slots__ = ("variant", "num_players", "num_actions", "max_steps", "observe_steps", "encoder")

    def __init__(self, players: int = 2, variant: Variant | str | None = None, *,
                 max_steps: int | None = None, observe: bool = True) -> None:
        tables = tables_for(players, variant)
        if max_steps is not None and (type(max_steps) is not int or max_steps < 1):
            raise ConfigError(Code.INVALID_ENV_OPTION,
                              f"max_steps must be None or an int of at least 1, got {max_steps!r}")
        self.variant: Variant = tables.variant
        self.num_players: int = players
        self.num_actions: int = tables.size
        self.max_steps = max_steps
        self.observe_steps = bool(observe)
        self.encoder = Observation(self.variant, players)
        """The observation encoding (`Observation`)."""

    @property
    def observation_shape(self) -> tuple[int]:
        """The shape of one game's observation: `(size,)`."""
        return (self.encoder.size,)

    def __repr__(self) -> str:
        return (f"Env(players={self.num_players}, variant={self.variant.name!r}, "
                f"max_steps={self.max_steps})")

    def init(self, seeds: Sequence[Seed | None]) -> EnvState:
        """Deal one game per seed, each as `ar.new_game(players, variant, seed=seed)` deals it.

        Raises:
            SeedError: A bad seed (`invalid_seed`).
        """
        b = Batch.new(self.num_players, self.variant, seeds=seeds)
        n = len(b)
        zero = np.zeros(n, dtype=bool)
        return self._state(b, np.zeros((n, self.num_players), np.float32), zero, zero,
                           np.zeros(n, np.int64), b.actor)

    def step(self, state: EnvState, action: Any) -> EnvState:
        """Play `action[i]` in each game `i` still going (the others are left as they are).

        Raises:
            BatchStepError: A live game's index is not legal (the game and the index are named);
                nothing changes.
            MalformedActionError: `action` is not `N` integers.
        """
        before = state.batch
        done = state.terminated | state.truncated
        after = before.step(action, skip=done)
        rewards = np.where(done[:, None], 0.0, 0.0 - (after.totals - before.totals)).astype(np.float32)
        count = state.step_count + ~done
        terminated = after.done
        truncated = state.truncated.copy()
        if self.max_steps is not None:
            truncated |= ~terminated & (count >= self.max_steps)
        seat = np.where(done | terminated, state.current_player, after.actor)
        mover = np.where(terminated & ~done, before.actor, seat)  # a finished game: the last mover's view
        return self._state(after, rewards, terminated, truncated, count, mover)

    def observe(self, state: EnvState, player_id: Any) -> Array:
        """The observations of seat `player_id[i]` in each game `i` (an int: that seat in every
        game): `(N, size)` float32, the RL environments' encoding of that seat's view.

        Raises:
            ConfigError: A seat is not a seat of the games (`invalid_env_option`).
        """
        seats = np.broadcast_to(np.asarray(player_id), (len(state.batch),))
        return self.encoder.encode_batch(state.batch, seats)

    def _state(self, b: Batch, rewards: Array, terminated: Array, truncated: Array, count: Array,
               viewer: Array) -> EnvState:
        stopped = terminated | truncated
        current = np.where(stopped, -1, b.actor)
        mask = b.legal_mask() & ~stopped[:, None]
        observation = None
        if self.observe_steps:
            observation = self.encoder.encode_batch(b, np.maximum(viewer, 0))
        for array in (current, mask, rewards, terminated, truncated, count):
            array.flags.writeable = False
        return EnvState(b, current, mask, rewards, terminated, truncated, count, observation)
