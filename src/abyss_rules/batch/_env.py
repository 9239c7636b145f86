"""The batch engine shaped like Pgx: `init`, `step`, `observe`, and arrays with Pgx's names.

[Pgx](https://github.com/sotetsuk/pgx) users meet the names they know:

| Pgx | here | shape |
|---|---|---|
| `env.init(keys)` | `Env.init(seeds)` | one game per seed |
| `env.step(state, action)` | `Env.step(state, action)` | one index per game |
| `env.observe(state)`, `env.observe(state, player_id)` | `Env.observe(state)`, `Env.observe(state, player_id)` | `(N, size)` float32 |
| `auto_reset(env.step, env.init)` | `Env.auto_reset_step(state, action, rng)` | games that end are dealt again |
| `env.id`, `env.version` | `Env.id`, `Env.version` | `"abyss_rules"`, `"v0"` |
| `state.current_player` | the seat to act; once the game has ended, the seat that acted last | `(N,)` int |
| `state.legal_action_mask` | its legal indices; all true once the game has terminated | `(N, num_actions)` bool |
| `state.rewards` | every seat's reward of the last step | `(N, num_players)` float32 |
| `state.terminated`, `state.truncated` | the game is over (or ended on an illegal action); it was cut at `max_steps` | `(N,)` bool |
| `state.observation` | `observe(state)`: `current_player`'s observation | `(N, size)` float32 |

Rewards are minus the round scores (closer penalty included, rules 6.4, 6.5) of the rounds that
ended in the step, to every seat at once, so that a game's rewards add up to minus its final
totals. A game that has terminated or been truncated is left as it is by later steps (its
action, whatever it is, is ignored; its rewards are 0), as in Pgx. An illegal index for a live
game is refused with `BatchStepError` (nothing changes), or with `illegal="end"` ends that game
as Pgx does: `illegal_reward` (-1) to the seat that played it. Needs NumPy only: no JAX,
Gymnasium or PettingZoo; the observations are those of the RL environments (`Observation`),
byte for byte.

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
    >>> bool((state.batch.totals >= 100).any(axis=1).all()), bool(state.legal_action_mask.all())
    (True, True)
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import attrs
import numpy as np

from ..config import Variant
from ..errors import Code, ConfigError
from ..randomness import Seed
from ._engine import Batch, action_indices, tables_for
from ._observation import OBSERVATION_VERSION, Observation

__all__ = ["ILLEGAL", "ILLEGAL_REWARD", "SEED_BOUND", "Env", "EnvState", "check_illegal"]

Array = np.ndarray[Any, Any]

ILLEGAL: Final[tuple[str, ...]] = ("raise", "end")
"""The values of the environments' `illegal=` option: refuse an illegal index with the engine's
error, or end that game with a penalty (`abyss_rules.envs._illegal` has the table)."""

ILLEGAL_REWARD: Final = -1.0
"""The default reward of the seat whose illegal action ends its game (`illegal="end"`), Pgx's
penalty."""

SEED_BOUND: Final = 2**63
"""Game seeds an environment draws itself are in `[0, SEED_BOUND)`."""


def check_illegal(mode: object, reward: object) -> tuple[str, float]:
    """`(mode, reward)`, the `illegal=` and `illegal_reward=` options, checked.

    Raises:
        ConfigError: `mode` is not one of `ILLEGAL`, or `reward` is not a finite number
            (`invalid_env_option`).

    Examples:
        >>> check_illegal("end", -5)
        ('end', -5.0)
    """
    if mode not in ILLEGAL:
        raise ConfigError(Code.INVALID_ENV_OPTION,
                          f"illegal must be one of {', '.join(ILLEGAL)}, got {mode!r}")
    if not isinstance(reward, (int, float)) or isinstance(reward, bool) or not math.isfinite(reward):
        raise ConfigError(Code.INVALID_ENV_OPTION, f"illegal_reward must be a finite number, got {reward!r}")
    return str(mode), float(reward)


@attrs.frozen(slots=True, eq=False)
class EnvState:
    """`N` games as Pgx shows them (read-only arrays, one row per game); made by
    `Env.init`, `Env.step` and `Env.auto_reset_step`."""

    batch: Batch
    """The games (`Batch`); `batch.state(i)` is game `i` as a reference state."""
    current_player: Array
    """`(N,)` int: the seat to act (in the opening the lowest seat still owing a flip); once the
    game has terminated, the seat that acted last (the one whose illegal action ended it, with
    `illegal="end"`). Always a seat, as in Pgx."""
    legal_action_mask: Array
    """`(N, num_actions)` bool: the legal indices of `current_player`; all true once the game has
    terminated (Pgx's convention: a policy never meets an empty mask, and a finished game ignores
    its action)."""
    rewards: Array
    """`(N, num_players)` float32: every seat's reward of the last step (minus the round scores
    of a round that ended in it; `illegal_reward` for the seat whose illegal action ended the
    game, 0 for the others)."""
    terminated: Array
    """`(N,)` bool: the game is over (rules 7.2, 7.3), or ended on an illegal action
    (`illegal="end"`: then `batch.done` is false there)."""
    truncated: Array
    """`(N,)` bool: the game was cut at `max_steps` steps before its end."""
    step_count: Array
    """`(N,)` int: the steps each game has taken (its actions, and an illegal one that ended it)."""
    observation: Array | None
    """`(N, size)` float32: `current_player`'s observation; `None` when the `Env` was made with
    `observe=False`."""


class Env:
    """`N` games of one variant in lockstep, Pgx-style (see `abyss_rules.batch._env`).

    Args:
        players: The number of players (rule 1.3).
        variant: The rules, or a preset's name; `None` means the standard variant.
        max_steps: Cut a game (`truncated`) once it has taken this many steps; `None` for never
            (every game ends by the rules: rules 7.2, 7.3, 6.7).
        observe: Whether `init` and `step` fill `state.observation` (a `(N, size)` encoding per
            step; `observe()` gives any seat's on demand either way).
        illegal: `"raise"` (an illegal index for a live game raises `BatchStepError`; nothing
            changes) or `"end"` (that game ends there, as in Pgx: see `step`).
        illegal_reward: The reward of the seat whose illegal index ends its game (`illegal="end"`).

    Raises:
        ConfigError: `invalid_variant`, `invalid_players`, or `invalid_env_option` for a bad
            `max_steps`, `illegal` or `illegal_reward`.
    """

    __slots__ = ("variant", "num_players", "num_actions", "max_steps", "observe_steps", "encoder",
                 "illegal", "illegal_reward")

    id: Final = "abyss_rules"
    """The environment's name (Pgx's `Env.id`); with `version`, `abyss_rules_v0`, the name of the
    PettingZoo environment of the same games."""
    version: Final = f"v{OBSERVATION_VERSION}"
    """The environment's version (Pgx's `Env.version`): that of the observation layout, which the
    Gymnasium ids `abyss_rules/Solo-v0` and `abyss_rules/SelfPlay-v0` carry too."""

    def __init__(self, players: int = 2, variant: Variant | str | None = None, *,
                 max_steps: int | None = None, observe: bool = True, illegal: str = "raise",
                 illegal_reward: float = ILLEGAL_REWARD) -> None:
        tables = tables_for(players, variant)
        if max_steps is not None and (type(max_steps) is not int or max_steps < 1):
            raise ConfigError(Code.INVALID_ENV_OPTION,
                              f"max_steps must be None or an int of at least 1, got {max_steps!r}")
        self.illegal, self.illegal_reward = check_illegal(illegal, illegal_reward)
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
                f"max_steps={self.max_steps}, illegal={self.illegal!r})")

    def init(self, seeds: Sequence[Seed | None]) -> EnvState:
        """Deal one game per seed, each as `ar.new_game(players, variant, seed=seed)` deals it.

        Raises:
            SeedError: A bad seed (`invalid_seed`).
        """
        b = Batch.new(self.num_players, self.variant, seeds=seeds)
        n = len(b)
        zero = np.zeros(n, dtype=bool)
        return self._state(b, np.zeros((n, self.num_players), np.float32), zero, zero,
                           np.zeros(n, np.int64), b.actor, zero)

    def step(self, state: EnvState, action: Any) -> EnvState:
        """Play `action[i]` in each game `i` still going; the games that have terminated or been
        truncated are left as they are, whatever their action (their rewards are 0), as in Pgx.

        With `illegal="end"`, a live game whose index is not legal (or not in
        `[0, num_actions)`) ends there instead, as in Pgx: the action is not applied, the seat
        that played it earns `illegal_reward`, the other seats 0, and the game is `terminated`
        (its `batch.done` stays false: the game itself did not end by the rules).

        Raises:
            BatchStepError: `illegal="raise"` and a live game's index is not legal (the game and
                the index are named); nothing changes.
            MalformedActionError: `action` is not `N` integers.
        """
        return self._stepped(state, action, state.terminated | state.truncated, None)

    def auto_reset_step(self, state: EnvState, action: Any, rng: np.random.Generator) -> EnvState:
        """`step`, then every game that ended in it (terminated or truncated) replaced by a new
        game: Pgx's `auto_reset` wrapper.

        Every game is stepped (after an auto reset, no game is finished). A game that ends
        keeps this step's `terminated`, `truncated` and `rewards`, and shows the new game's
        `current_player`, `legal_action_mask` and `observation` (its `step_count` is 0): the new
        game's seed is drawn from `rng`, so a run is reproducible from the generator's seed.

        Raises:
            BatchStepError, MalformedActionError: as `step`.
            ConfigError: `rng` is not a `numpy.random.Generator` (`invalid_env_option`).
        """
        if not isinstance(rng, np.random.Generator):
            raise ConfigError(Code.INVALID_ENV_OPTION,
                              f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return self._stepped(state, action, np.zeros(len(state.batch), dtype=bool), rng)

    def observe(self, state: EnvState, player_id: Any = None) -> Array:
        """The observations of `state.current_player` (Pgx's default), or of seat `player_id[i]` in
        each game `i` (an int: that seat in every game): `(N, size)` float32, the RL
        environments' encoding of that seat's view.

        Raises:
            ConfigError: A seat is not a seat of the games (`invalid_env_option`).
        """
        seats = state.current_player if player_id is None else player_id
        return self.encoder.encode_batch(state.batch, np.broadcast_to(np.asarray(seats), (len(state.batch),)))

    def _stepped(self, state: EnvState, action: Any, held: Array, rng: np.random.Generator | None
                 ) -> EnvState:
        """Step the games not `held`; with `rng`, replace those that end by new games."""
        before = state.batch
        n = len(before)
        k = action_indices(action, n)
        illegal = None
        if self.illegal == "end":
            inside = (k >= 0) & (k < self.num_actions)
            legal = before.legal_mask()[np.arange(n), np.where(inside, k, 0)] & inside
            illegal = ~held & ~before.done & ~legal
            if not illegal.any():
                illegal = None
        after = before.step(k, skip=held if illegal is None else held | illegal)
        rewards = (before.totals - after.totals).astype(np.float32)  # a held game: 0
        count = state.step_count + ~held
        terminated = after.done | (state.terminated & held)
        if illegal is not None:
            rows = np.flatnonzero(illegal)
            rewards[rows] = 0.0
            rewards[rows, before.actor[rows]] = self.illegal_reward
            terminated = terminated | illegal
        truncated = state.truncated & held
        if self.max_steps is not None:
            truncated = truncated | (~held & ~terminated & (count >= self.max_steps))
        # The seat to act; a game that has just terminated shows its last mover (Pgx: still a seat).
        current = np.where(held, state.current_player, np.where(terminated, before.actor, after.actor))
        final = terminated
        if rng is not None:
            ended = terminated | truncated
            if ended.any():
                after = after.reset(ended, seeds=rng.integers(SEED_BOUND, size=int(ended.sum())).tolist())
                count = np.where(ended, 0, count)
                current = np.where(ended, after.actor, current)
            final = np.zeros(n, dtype=bool)  # (every game is live again)
        return self._state(after, rewards, terminated, truncated, count, current, final)

    def _state(self, b: Batch, rewards: Array, terminated: Array, truncated: Array, count: Array,
               current: Array, final: Array) -> EnvState:
        mask = b.legal_mask() | final[:, None]  # Pgx: all true at a terminal state
        observation = None
        if self.observe_steps:
            observation = self.encoder.encode_batch(b, current)
        current = np.array(current, dtype=np.int64)
        for array in (current, mask, rewards, terminated, truncated, count):
            array.flags.writeable = False
        return EnvState(b, current, mask, rewards, terminated, truncated, count, observation)
