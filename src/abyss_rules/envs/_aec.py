"""The PettingZoo AEC environment: every seat of one game is an agent.

`env` is the wrapped environment PettingZoo users expect (with PettingZoo's
order-enforcing wrapper); `raw_env` is the bare one.

* Agents are `player_0` ... `player_{P-1}` (seat `p` is `player_p`).
* Actions are `Discrete(space.size)` indices of `ActionSpace`.
* Observations are dicts: `observation`, the agent's `Observation` encoding of its `View`
  (public facts only), and `action_mask`, an `int8` vector with 1 on the indices the agent may
  play now (all 0 when it is not the agent to act). `observe(agent)` answers for every agent of
  `possible_agents` at any time, one whose game has ended too (as PettingZoo's classic games do:
  SuperSuit's wrappers ask it).
* `render_mode="rgb_array"`: `render()` is an image of the public table (a spectator's view,
  what every agent may see), see `abyss_rules.envs._render`.
* The agent to act is the player to move; in the opening, whose flips the rules let players make
  in any order, the lowest seat that still owes a flip (seat order).
* Rewards (the `reward=` option, see `abyss_rules.envs._rewards`) come at the end of each round
  and of the game, to every agent at once.
* When the game ends every agent is terminated; there is no truncation (every game ends, rules
  7.2, 7.3, 6.7).
* With `illegal="end"`, an illegal or out-of-range index ends the game instead: the agent earns
  `illegal_reward` (-1), the others 0, every agent is terminated (`abyss_rules.envs._illegal`).
  By default an illegal action is refused with the engine's error -- an `IllegalActionError`
  for an index that is not legal now, an `ActionIndexError` for one outside `[0, space.size)`,
  a `MalformedActionError` for a non-integer -- and the environment is left exactly as it was:
  the same agent may try again.
* `reset(seed=s)` deals exactly `ar.new_game(players, variant, seed=s)`; a later `reset()`
  without a seed deals a game whose seed is drawn from a generator seeded by `s`.

Examples:
    >>> from abyss_rules import envs
    >>> game = envs.env(players=2)
    >>> game.reset(seed=42)
    >>> game.agent_selection, int(game.action_space("player_0").n)
    ('player_0', 49)
    >>> obs, reward, terminated, truncated, info = game.last()
    >>> int(obs["action_mask"].sum())          # any of its twelve face-down cards
    12
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from ..action_space import ActionSpace
from ..actions import Action
from ..config import Variant
from ..errors import ActionIndexError, IllegalActionError
from ..rules._dealing import new_game
from ..rules._engine import apply
from ..rules._legal import seat_legal_actions
from ..state import Phase, State
from ._illegal import ILLEGAL_REWARD, check_illegal
from ._masks import LegalMasks
from ._observation import OBSERVATION_VERSION, Observation
from ._options import bad_option, game_seed, resolve
from ._render import RENDER_MODES, Frame, Pictures, check_render_mode, render
from ._rewards import Rewards
from ._seat_observation import SeatObservation

__all__ = ["env", "raw_env"]


def as_index(action: object) -> object:
    """An action index as a plain `int` when it is one (NumPy integers included; not a bool), else
    `action` itself, for `ActionSpace.action` to refuse."""
    if isinstance(action, np.integer) or type(action) is int:
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return action


def to_act(state: State) -> int | None:
    """The seat an environment waits for: the player to move, or in the opening the lowest seat that
    still owes a flip; `None` once the game is over."""
    turn = state.turn
    if turn is not None:  # the turn and drawn phases: the mover, the one seat of `state.to_act`
        return turn
    seats = state.to_act
    return seats[0] if seats else None


def action_of(space: ActionSpace, moves: tuple[Action, ...], index: object, seat: int) -> Action:
    """`space.action(as_index(index), seat)`, with its errors, where `moves` is `space.actions(seat)`:
    a plain `int` in range is looked up in `moves` directly (the answer `space.action` gives)."""
    if type(index) is int and 0 <= index < len(moves):
        return moves[index]
    return space.action(as_index(index), seat)  # type: ignore[arg-type]


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo has no type information
    """One game of *Abyss* as a PettingZoo AEC environment (see `abyss_rules.envs._aec`).

    Args:
        players: The number of players (rule 1.3).
        variant: A `Variant` or a preset name (`"standard"`, `"short"`, `"long"`).
        reward: The reward scheme, one of `abyss_rules.envs.REWARDS`.
        render_mode: `None`, `"ansi"` (`render()` returns the public table as text), `"human"`
            (`render()` prints it) or `"rgb_array"` (`render()` returns its image).
        illegal: `"raise"` (an illegal action raises the engine's error) or `"end"` (it ends the
            game with `illegal_reward` for the agent: see `abyss_rules.envs._illegal`).
        illegal_reward: The reward of an illegal action with `illegal="end"` (-1 by default).

    Raises:
        ConfigError: `invalid_variant`, `invalid_players` or `invalid_env_option`.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (PettingZoo's convention: a class attribute)
        "name": f"abyss_rules_v{OBSERVATION_VERSION}",
        "render_modes": list(RENDER_MODES),
        "render_fps": 4,
        "is_parallelizable": False,
    }

    def __init__(self, players: int = 2, variant: Variant | str = "standard", reward: str = "score",
                 render_mode: str | None = None, illegal: str = "raise",
                 illegal_reward: float = ILLEGAL_REWARD) -> None:
        super().__init__()
        self.illegal, self.illegal_reward = check_illegal(illegal, illegal_reward)
        self.variant = resolve(variant, players)
        self.players = players
        self.render_mode = check_render_mode(render_mode)
        self._pictures = Pictures(self.variant, players) if render_mode == "rgb_array" else None
        self._rewards = Rewards(reward, players)
        self.reward = reward
        self.space = ActionSpace(self.variant)
        """The action indices (`ActionSpace`)."""
        self.encoder = Observation(self.variant, players)
        """The observation encoding (`Observation`)."""
        self._masks = LegalMasks(self.space)
        self._encode = SeatObservation(self.encoder)
        self._moves = tuple(self.space.actions(p) for p in range(players))  # by seat, by index
        self._rewarded = False
        self.possible_agents: list[str] = [f"player_{p}" for p in range(players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        # One space object per agent (each is seeded on its own), all equal.
        self.observation_spaces = {a: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.space.size,), dtype=np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.space.size) for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self._state: State | None = None

    # -- the PettingZoo API ----------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of `agent` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of `agent`: `Discrete(space.size)` (the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: `ar.new_game(players, variant, seed=seed)` when `seed` is given.

        Raises:
            ConfigError: `seed` is not a non-negative int (`invalid_env_option`).
        """
        if seed is not None:
            number = game_seed(seed, self._seeds)
            self._seeds = np.random.default_rng(number)
        else:
            number = game_seed(None, self._seeds)
        self._state = new_game(self.players, self.variant, seed=number)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False  # whether `rewards` may hold a value other than 0
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent(self._state)

    def observe(self, agent: str) -> dict[str, Any]:
        """`agent`'s observation now: its encoded view and its action mask (new arrays). Any agent
        of `possible_agents` may be observed at any time, one whose game is over or that has left
        too (its mask is then all 0).

        Raises:
            KeyError: `agent` is not one of `possible_agents`.
        """
        state = self._state or self._current()
        seat = self._seat[agent]
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = self._masks.of(seat_legal_actions(state, seat))
        else:
            mask = np.zeros(self.space.size, dtype=np.int8)
        # encoder.encode(view(state, seat)), without building the view (proved equal by a test)
        return {"observation": self._encode.encode(state, seat), "action_mask": mask}

    def step(self, action: object) -> None:
        """Play `action` (an index) for `abyss_rules.envs.raw_env`; a terminated agent steps `None`
        to leave.

        Raises:
            IllegalActionError: The index is not legal for the agent now.
            ActionIndexError: The index is not in `[0, space.size)` (`no_such_action_index`).
            MalformedActionError: The action is not an integer.

        After any of these errors the environment is unchanged. With `illegal="end"` the first
        two end the game instead (see `abyss_rules.envs._illegal`).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        before = self._state or self._current()
        seat = self._seat[agent]
        try:
            move = action_of(self.space, self._moves[seat], action, seat)
            after = apply(before, move)  # raises before anything changes
        except (IllegalActionError, ActionIndexError) as error:
            if self.illegal == "raise":
                raise
            self._end_illegally(agent, error)
            return
        self._state = after
        self._cumulative_rewards[agent] = 0.0
        rewards = self._rewards.of_step(before, after)
        if rewards is not self._rewards.zero or self._rewarded:
            # (A step that ends nothing, after another, leaves every reward at 0: nothing to add.)
            for a, r in zip(self.possible_agents, rewards, strict=True):
                self.rewards[a] = r
            self._rewarded = rewards is not self._rewards.zero
            self._accumulate_rewards()
        if after.phase is Phase.GAME_OVER:
            for a in self.agents:
                self.terminations[a] = True
            self.agent_selection = self.possible_agents[(seat + 1) % self.players]
        else:
            self.agent_selection = self._agent(after)
        if self.render_mode == "human":
            self.render()

    def _end_illegally(self, agent: str, error: IllegalActionError | ActionIndexError) -> None:
        """End the game on `agent`'s illegal action (`illegal="end"`): its penalty, 0 for the others."""
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = self.illegal_reward if a == agent else 0.0
            self.terminations[a] = True
        self.infos[agent] = {"illegal_action": str(error.code)}
        self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % self.players]
        self._rewarded = True
        self._accumulate_rewards()

    def render(self) -> str | Frame | None:
        """The public table (a spectator's view): as text for `"ansi"`, printed for `"human"`, an
        `(H, W, 3)` `uint8` image for `"rgb_array"`."""
        return render(self.render_mode, self._current(), None, self._pictures)

    def close(self) -> None:
        """Nothing to release."""

    # -- read access --------------------------------------------------------------------

    @property
    def game_state(self) -> State:
        """The game's authoritative `State` -- secrets included: for analysis and tests, never
        for an agent's input (use `observe`)."""
        return self._current()

    def _current(self) -> State:
        if self._state is None:
            raise bad_option("call reset() before using the environment")
        return self._state

    def _agent(self, state: State) -> str:
        seat = to_act(state)
        assert seat is not None
        return self.possible_agents[seat]

    def __str__(self) -> str:
        return str(self.metadata["name"])


def _passed_through(name: str) -> property:
    """The attribute `name` of the wrapped environment, read straight through once the environment
    has been reset (and, before, PettingZoo's `AttributeError`)."""

    def get(self: OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped environment's `{name}`.")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]  # no type information
    """PettingZoo's order-enforcing wrapper (an `OrderEnforcingWrapper`: the same checks, errors
    and warnings), with the attributes every step reads passed straight through.

    PettingZoo's wrapper reaches the wrapped environment's attributes through two `__getattr__`
    layers, each a failed lookup first; `last()`, `agent_iter()` and `step()` read six of them
    per step. Here `agent_selection`, `agents`, `rewards`, `terminations`, `truncations`,
    `infos` and `_cumulative_rewards` are properties that read them directly (still refused
    before `reset`, as PettingZoo refuses them), and `last` asks the wrapped environment's
    `last` once `reset` has been called.
    """

    agent_selection = _passed_through("agent_selection")
    agents = _passed_through("agents")
    rewards = _passed_through("rewards")
    terminations = _passed_through("terminations")
    truncations = _passed_through("truncations")
    infos = _passed_through("infos")

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        """The wrapped environment's `_cumulative_rewards` (PettingZoo's wrappers pass it through)."""
        found: dict[str, float] = self.env._cumulative_rewards
        return found

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, cumulative reward, termination, truncation and info:
        the wrapped environment's `last` (PettingZoo's checks first)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        """Step the wrapped environment (PettingZoo's wrapper's checks and warnings first)."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's error before reset, its warning once every agent is done

    def agent_iter(self, max_iter: int = 2**63) -> _Agents:
        """The agents to step, in turn (PettingZoo's order-enforcing iterable, one call less per agent)."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Agents(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _Agents(AECOrderEnforcingIterable):  # type: ignore[misc]  # no type information
    """PettingZoo's `agent_iter()` iterable of an `OrderEnforcing` wrapper."""

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):  # type: ignore[misc]  # no type information
    """PettingZoo's order-enforcing agent iterator, its two `__next__` in one, with the same checks."""

    def __next__(self) -> str:
        wrapper = self.env
        raw = wrapper.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent: str = raw.agent_selection
        return agent


def env(players: int = 2, variant: Variant | str = "standard", reward: str = "score",
        render_mode: str | None = None, illegal: str = "raise",
        illegal_reward: float = ILLEGAL_REWARD) -> AECEnv:
    """The AEC environment with PettingZoo's order-enforcing wrapper (the usual entry point; a
    subclass of it that reads the hot attributes straight through).

    Takes the arguments of `raw_env`. Not wrapped with PettingZoo's illegal-move or out-of-bounds
    wrappers: an illegal action raises the engine's typed error, or with `illegal="end"` ends the
    game with a penalty.

    Examples:
        >>> from abyss_rules import envs
        >>> game = envs.env(players=3, variant="short", reward="win")
        >>> game.reset(seed=1)
        >>> game.possible_agents
        ['player_0', 'player_1', 'player_2']
    """
    return OrderEnforcing(
        raw_env(players, variant, reward, render_mode, illegal, illegal_reward))
