"""`abyss_rules/Solo-v0`: one learner against built-in bots, as a Gymnasium environment.

`gymnasium.make("abyss_rules/Solo-v0", opponents=["greedy"])` (registered when
`abyss_rules.envs` is imported) makes a `SoloEnv`:

* the learner plays seat `seat` (0 by default; `None`: a random seat each game), the opponents
  the other seats in order; between two of the learner's decisions the opponents play their moves
  (and their opening flips, in seat order) inside `step`;
* actions are `Discrete(space.size)` indices of `ActionSpace`; `info["action_mask"]`
  (`int8`) marks the legal ones, and `action_space.sample()` without a mask draws among them
  (a `LegalDiscrete`); `action_masks()` (sb3-contrib's `MaskablePPO` calls it) gives them as
  booleans, also on what `gymnasium.make` returns. Once the game is over the mask is all 1 (as
  Pgx's: no policy meets an empty mask; a vector environment's autoreset ignores the action, and
  `step` wants a `reset()` first);
* observations are the learner's `Observation` encoding (a `Box`); `render_mode="rgb_array"`
  draws what the learner may see (`abyss_rules.envs._render`);
* the reward of a step is the learner's reward (the `reward=` option) for the rounds and the game
  that ended during it; `terminated` when the game is over, never `truncated`;
* an illegal action raises the engine's typed error and leaves the environment as it was (or,
  with `illegal="end"`, ends the game with a penalty: see `abyss_rules.envs._illegal`);
* `reset(seed=s)` deals `ar.new_game(players, variant, seed=s)`; the bots' seeds and a random
  seat come from the environment's `np_random`.

Examples:
    >>> import gymnasium
    >>> import abyss_rules.envs
    >>> env = gymnasium.make("abyss_rules/Solo-v0", opponents=["greedy", "random"])
    >>> obs, info = env.reset(seed=7)
    >>> obs.shape, info["action_mask"].shape, info["seat"]
    ((676,), (49,), 0)
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt

from ..action_space import ActionSpace
from ..bots import Bot, RandomBot, make_bot
from ..config import Variant
from ..errors import ActionIndexError, IllegalActionError
from ..rules._dealing import new_game
from ..rules._engine import apply
from ..rules._legal import seat_legal_actions
from ..state import State
from ..views import view
from ._aec import action_of, to_act
from ._illegal import ILLEGAL_REWARD, check_illegal
from ._masks import LegalMasks, Mask, legal_or_all
from ._observation import OBSERVATION_VERSION, Observation, Vector
from ._options import SEED_BOUND, bad_option, game_seed, resolve
from ._render import RENDER_MODES, Frame, Pictures, check_render_mode, render
from ._rewards import Rewards
from ._seat_observation import SeatObservation

__all__ = ["SOLO_ID", "LegalDiscrete", "SoloEnv", "solo_vector"]

SOLO_ID: Final = f"abyss_rules/Solo-v{OBSERVATION_VERSION}"
"""The Gymnasium id of `SoloEnv`."""


class LegalDiscrete(gymnasium.spaces.Discrete):
    """`Discrete(n)` whose `sample()` without a mask draws uniformly among the legal actions of the
    environment's current decision (any index when there is none).

    `contains`, equality and `sample(mask=...)` are those of `Discrete`. A copy or a pickle of the
    space alone is bound to no environment and samples like `Discrete(n)`; a copy or a pickle of
    the environment binds its own space again.

    Args:
        n: The number of actions.
        legal: Returns the current legal mask (`int8`), or `None`.
    """

    def __init__(self, n: int, legal: Callable[[], Mask | None] | None) -> None:
        super().__init__(n)
        self._legal = legal

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        """A random action: among the legal ones when neither `mask` nor `probability` is given."""
        if mask is None and probability is None and self._legal is not None:
            current = self._legal()
            if current is not None and current.any():
                mask = current
        return super().sample(mask, probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_legal"] = None  # a link to an environment: never copied
        return state


def weakly(method: Callable[[], Mask | None]) -> Callable[[], Mask | None]:
    """`method` called through a weak reference (the space does not keep its environment alive)."""
    ref = weakref.WeakMethod(method)

    def call() -> Mask | None:
        bound = ref()
        return None if bound is None else bound()

    return call


def unpickled(env: Any, state: dict[str, Any]) -> None:
    """Restore `env` from `state` (its `__dict__`) and bind its `LegalDiscrete` action space to it
    again, so that the copy samples from its own game: the `__setstate__` of the environments
    whose action space is a `LegalDiscrete`."""
    env.__dict__.update(state)
    space = env.action_space
    assert isinstance(space, LegalDiscrete)
    space._legal = weakly(env._legal_now)


def solo_vector(num_envs: int, **options: Any) -> gymnasium.vector.SyncVectorEnv:
    """The vector entry point of `abyss_rules/Solo-v0`: `num_envs` Solo games stepped one after the
    other (a `SyncVectorEnv`; the bots play in Python, one game at a time), each made with
    `options`. `gymnasium.make_vec` calls it for the `vector_entry_point` mode (its default)."""
    if type(num_envs) is not int or num_envs < 1:
        raise bad_option(f"num_envs must be an int of at least 1, got {num_envs!r}")
    return gymnasium.vector.SyncVectorEnv([functools.partial(SoloEnv, **options)] * num_envs)


class SoloEnv(gymnasium.Env[Vector, np.int64]):
    """One learner against built-in bots (see `abyss_rules.envs._solo`).

    Args:
        opponents: One entry per opponent: a built-in bot's name (`"random"`, `"greedy"`,
            `"counting"`; a fresh bot each game, seeded from `np_random`) or a `Bot`
            object (used as it is). Players: `1 + len(opponents)`.
        variant: A `Variant` or a preset name.
        reward: The reward scheme, one of `abyss_rules.envs.REWARDS`.
        seat: The learner's seat, or `None` for a random seat each game (`info["seat"]`).
        render_mode: `None`, `"ansi"`, `"human"` or `"rgb_array"` (an image of what the learner may
            see).
        illegal: `"raise"` (an illegal action raises the engine's error) or `"end"` (it ends the
            game with `illegal_reward`: see `abyss_rules.envs._illegal`).
        illegal_reward: The reward of an illegal action with `illegal="end"` (-1 by default).

    Raises:
        ConfigError: `invalid_variant`, `invalid_players` or `invalid_env_option`.
        BotError: An opponent's name is not a built-in bot (`unknown_bot`).
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(self, opponents: Sequence[str | Bot] = ("greedy",), variant: Variant | str = "standard",
                 reward: str = "score", seat: int | None = 0, render_mode: str | None = None,
                 illegal: str = "raise", illegal_reward: float = ILLEGAL_REWARD) -> None:
        self.illegal, self.illegal_reward = check_illegal(illegal, illegal_reward)
        if isinstance(opponents, str) or not isinstance(opponents, Sequence) or not opponents:
            raise bad_option(f"opponents must be a non-empty list of bot names or bots, got {opponents!r}")
        for entry in opponents:
            if isinstance(entry, str):
                make_bot(entry, 0)  # refuses an unknown name
            elif not isinstance(entry, Bot):
                raise bad_option(f"an opponent must be a bot's name or have a choose(view) method, "
                                 f"got {entry!r}")
        self.players = 1 + len(opponents)
        self.variant = resolve(variant, self.players)
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.players):
            raise bad_option(f"seat must be None or an int from 0 to {self.players - 1}, got {seat!r}")
        self.opponents = tuple(opponents)
        self.seat_option = seat
        self.reward = reward
        self._rewards = Rewards(reward, self.players)
        self.render_mode = check_render_mode(render_mode)
        self._pictures = Pictures(self.variant, self.players) if render_mode == "rgb_array" else None
        self.space = ActionSpace(self.variant)
        """The action indices (`ActionSpace`)."""
        self.encoder = Observation(self.variant, self.players)
        """The observation encoding (`Observation`)."""
        self.observation_space = gymnasium.spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.action_space = LegalDiscrete(self.space.size, weakly(self._legal_now))
        self.seat = 0 if seat is None else seat
        """The learner's seat in the current game."""
        self._masks = LegalMasks(self.space)
        self._encode = SeatObservation(self.encoder)
        self._ended = False  # by an illegal action (illegal="end")
        self._mask: Mask = np.zeros(self.space.size, dtype=np.int8)  # the learner's, now
        self._state: State | None = None
        self._bots: dict[int, Bot] = {}
        self._moves = self.space.actions(self.seat)  # the learner's, by index

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Vector, dict[str, Any]]:
        """Deal a new game (`ar.new_game(players, variant, seed=seed)` when `seed` is given) and play
        the opponents' moves up to the learner's first decision."""
        super().reset(seed=seed)
        rng = self.np_random
        number = game_seed(seed, rng)
        seat = self.seat_option if self.seat_option is not None else int(rng.integers(self.players))
        others = [p for p in range(self.players) if p != seat]
        bots: dict[int, Bot] = {}
        for p, entry in zip(others, self.opponents, strict=True):
            bots[p] = make_bot(entry, int(rng.integers(SEED_BOUND))) if isinstance(entry, str) else entry
        self.seat, self._bots, self._ended = seat, bots, False
        self._moves = self.space.actions(seat)
        state = new_game(self.players, self.variant, seed=number)
        state, _ = self._play_opponents(state)
        self._state = state
        return self._observe(state)

    def step(self, action: object) -> tuple[Vector, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the learner's `action` (an index), then the opponents' moves up to the learner's next
        decision or the end of the game.

        Raises:
            IllegalActionError: The index is not legal now (also once the game is over: `game_over`).
            ActionIndexError: The index is not in `[0, space.size)`.
            MalformedActionError: The action is not an integer.

        After any of these errors the environment is unchanged. With `illegal="end"` the first
        two end the game instead: the reward is `illegal_reward`, `terminated` is true,
        `info["illegal_action"]` is the error's code, and the next call must be `reset()` (the
        mask is then all 1, as at the end of every game).
        """
        before = self._current()
        if self._ended:
            raise bad_option("the game ended on an illegal action: call reset() to deal a new one")
        try:
            state = apply(before, action_of(self.space, self._moves, action, self.seat))
        except (IllegalActionError, ActionIndexError) as error:
            if self.illegal == "raise":
                raise
            self._ended = True
            obs, info = self._observe(before)
            self._mask = self._masks.everything()
            info["action_mask"], info["illegal_action"] = self._mask.copy(), str(error.code)
            return obs, self.illegal_reward, True, False, info
        reward = self._rewards.of_step(before, state)[self.seat]
        state, more = self._play_opponents(state)
        self._state = state
        if self.render_mode == "human":
            self.render()
        obs, info = self._observe(state)
        return obs, reward + more, state.is_over, False, info

    def render(self) -> str | Frame | None:
        """The public table (a spectator's view) as text for `"ansi"`, printed for `"human"`; for
        `"rgb_array"` an `(H, W, 3)` `uint8` image of what the learner may see."""
        return render(self.render_mode, self._current(), self.seat, self._pictures)

    @property
    def game_state(self) -> State:
        """The game's authoritative `State` -- secrets included: for analysis and tests, never for the
        learner's input."""
        return self._current()

    # -- inside -----------------------------------------------------------------------------

    def _play_opponents(self, state: State) -> tuple[State, float]:
        """Play the bots' moves until the learner is to act or the game is over; the learner's reward
        for what ended meanwhile."""
        reward = 0.0
        seat, bots, rewards = self.seat, self._bots, self._rewards
        while True:
            mover = to_act(state)
            if mover is None or mover == seat:
                return state, reward
            bot = bots[mover]
            if type(bot) is RandomBot:  # it reads nothing of the view but its legal actions
                move = bot.choose_among(seat_legal_actions(state, mover))
            else:
                move = bot.choose(view(state, mover))
            after = apply(state, move)
            reward += rewards.of_step(state, after)[seat]
            state = after

    def _observe(self, state: State) -> tuple[Vector, dict[str, Any]]:
        """The learner's observation and the step's `info` (its mask is kept for `action_masks`)."""
        seat = self.seat
        self._mask = mask = legal_or_all(self._masks, seat_legal_actions(state, seat))  # read-only
        # encoder.encode(view(state, seat)), without building the view (proved equal by a test)
        return self._encode.encode(state, seat), {"action_mask": mask.copy(), "seat": seat}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal indices now, as `space.size` booleans (a new array): the
        `action_masks()` method that `sb3_contrib.MaskablePPO` calls; all true once the game is
        over (no decision is left: call `reset()`). The same as `info["action_mask"]` of the last
        `reset` or `step`.

        Raises:
            ConfigError: Before the first `reset` (`invalid_env_option`).
        """
        self._current()
        return self._mask.astype(bool)

    def __setstate__(self, state: dict[str, Any]) -> None:
        unpickled(self, state)

    def _legal_now(self) -> Mask | None:
        return None if self._state is None else self._mask

    def _current(self) -> State:
        if self._state is None:
            raise bad_option("call reset() before using the environment")
        return self._state
