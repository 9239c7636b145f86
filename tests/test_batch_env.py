"""The Pgx-shaped layer over the batch engine (abyss_rules.batch._env): the vectorised loop against
the reference engine, Pgx's semantics row by row, truncation, illegal actions, auto reset, and
observations from NumPy alone.

Pgx's behaviour is read from its source, Pgx 2.5.0 (github.com/sotetsuk/pgx): `pgx/core.py`
(`Env.init`, `Env.step`, `Env.observe`, `_step_with_illegal_action`), `pgx/_src/api_test.py` (what
Pgx's own API test demands of every environment) and `pgx/experimental/wrappers.py`
(`auto_reset`). Each row of `PGX` names the lines it follows; where `batch.Env` departs on
purpose the row says so, and docs/batch.md gives the reason.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest

import abyss_rules as ar
from abyss_rules import batch
from abyss_rules.action_space import ActionSpace
from abyss_rules.batch import Env, EnvState


def _play(env: Env, state: EnvState, rng: np.random.Generator, until: Callable[[EnvState], bool],
          limit: int = 5000) -> EnvState:
    for _ in range(limit):
        if until(state):
            return state
        state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
    raise AssertionError("the games did not reach the wanted state")


def _finished(players: int = 2) -> tuple[Env, EnvState]:
    """Short games (one round) played to their end by random legal actions."""
    env = Env(players, "short")
    state = _play(env, env.init(range(12)), np.random.default_rng(3), lambda s: bool(s.terminated.all()))
    return env, state


def _illegal_index(env: Env, state: EnvState) -> np.ndarray:
    """For each game, an index that is not legal now (the first false entry of its mask)."""
    return np.argmin(state.legal_action_mask, axis=1)


# -- Pgx's semantics, row by row ---------------------------------------------------------------

def pgx_init_observes_the_current_player() -> None:
    """core.py L187-189: `init` fills `observation` with `observe(state)`, the current player's."""
    env = Env(3)
    state = env.init(range(5))
    assert state.observation is not None
    assert np.array_equal(state.observation, env.observe(state, state.current_player))
    assert (state.step_count == 0).all() and not state.rewards.any()


def pgx_a_finished_game_is_left_as_it_is_with_zero_rewards() -> None:
    """core.py L87-89 and L201-207: stepping a terminated or truncated state returns the same state,
    rewards zero for every player, whatever the action."""
    env, state = _finished()
    for action in (np.zeros(12, dtype=np.int64), np.full(12, env.num_actions - 1), np.full(12, 999)):
        later = env.step(state, action)
        assert later.batch.states() == state.batch.states()
        assert not later.rewards.any()
        assert np.array_equal(later.terminated, state.terminated)
        assert np.array_equal(later.current_player, state.current_player)
        assert np.array_equal(later.step_count, state.step_count)
        assert later.observation is not None and state.observation is not None
        assert np.array_equal(later.observation, state.observation)


def pgx_the_mask_of_a_terminated_game_is_all_true() -> None:
    """core.py L216-223 and api_test.py L158-162: at a terminal state every entry of
    `legal_action_mask` is true (no policy meets an empty mask: a masked softmax stays finite)."""
    env, state = _finished()
    assert state.legal_action_mask.all() and state.legal_action_mask.shape == (12, env.num_actions)
    scores = np.random.default_rng(0).normal(size=state.legal_action_mask.shape)   # a policy's logits
    logits = np.where(state.legal_action_mask, scores, -np.inf)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    assert np.isfinite(probabilities / probabilities.sum(axis=1, keepdims=True)).all()


def pgx_current_player_is_always_a_seat() -> None:
    """api_test.py L167-170: `current_player >= 0`. At the end of a game it is the seat that acted
    last (Pgx's games leave it where their last `_step` put it, e.g. tic_tac_toe.py L53-55), and the
    observation is that seat's (core.py L225-226)."""
    env = Env(2, "short")
    state = env.init(range(12))
    rng = np.random.default_rng(4)
    while not state.terminated.all():
        assert (state.current_player >= 0).all()
        before = state
        state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
        ended = state.terminated & ~before.terminated
        assert np.array_equal(state.current_player[ended], before.current_player[ended])
    assert (state.current_player >= 0).all()
    assert state.observation is not None
    for i in range(12):
        seen = ar.view(state.batch.state(i), int(state.current_player[i]))
        assert state.observation[i].tobytes() == env.encoder.encode(seen).tobytes()


def pgx_an_illegal_action_ends_that_game_with_a_penalty() -> None:
    """core.py L198, L209-214 and L287-296: an illegal action ends the game at once (`terminated`),
    the offender's reward is the penalty, -1. Here this is the option `illegal="end"` (the default
    refuses the step, as every other entry point of the library does); the other seats get 0, not
    Pgx's +1 each (`-penalty * (num_players - 1)`, L294): see docs/batch.md."""
    env = Env(3, illegal="end")
    state = env.init(range(4))
    state = env.step(state, batch.choose_uniformly(state.legal_action_mask, np.random.default_rng(0)))
    offenders = state.current_player.copy()
    action = batch.choose_uniformly(state.legal_action_mask, np.random.default_rng(1))
    action[[1, 3]] = _illegal_index(env, state)[[1, 3]]
    action[3] = env.num_actions + 5  # out of range: illegal too
    later = env.step(state, action)
    assert later.terminated.tolist() == [False, True, False, True]
    assert not later.batch.done[[1, 3]].any()            # the game itself did not end by the rules
    for i in (1, 3):
        expected = np.zeros(3, dtype=np.float32)
        expected[offenders[i]] = -1.0
        assert later.rewards[i].tolist() == expected.tolist()
        assert later.batch.state(i) == state.batch.state(i)  # the action was never applied
        assert later.current_player[i] == offenders[i]
    assert later.legal_action_mask[[1, 3]].all()
    assert (later.step_count == state.step_count + 1).all()  # (Pgx counts the illegal step, L206)
    # The default refuses instead, naming the game; nothing changes.
    with pytest.raises(ar.BatchStepError) as error:
        Env(3).step(state, action)
    assert error.value.game == 1
    assert Env(2, illegal="end", illegal_reward=-7.5).illegal_reward == -7.5


def pgx_observe_defaults_to_the_current_player() -> None:
    """core.py L230-237: `observe(state, player_id=None)` observes `state.current_player`; a
    `player_id` chooses another seat (Pgx deprecates the argument; here it stays, for the other
    seats of a self-play game)."""
    env = Env(3)
    state = env.init(range(6))
    state = env.step(state, batch.choose_uniformly(state.legal_action_mask, np.random.default_rng(2)))
    assert np.array_equal(env.observe(state), env.observe(state, state.current_player))
    assert state.observation is not None and np.array_equal(env.observe(state), state.observation)
    second = env.observe(state, 2)
    for i in range(6):
        assert second[i].tobytes() == env.encoder.encode(ar.view(state.batch.state(i), 2)).tobytes()


def pgx_id_version_and_sizes() -> None:
    """core.py L254-285: `id`, `version`, `num_players`, `num_actions`, `observation_shape`."""
    env = Env(4)
    assert (env.id, env.version) == ("abyss_rules", "v0")
    assert f"{env.id}_{env.version}" == "abyss_rules_v0"   # the AEC environment's name
    assert (env.num_players, env.num_actions, env.observation_shape) == (4, 49, (884,))


def pgx_auto_reset_replaces_the_games_that_end() -> None:
    """experimental/wrappers.py L34-64 (`auto_reset`): a game that ends in a step is replaced by a
    new game, keeping that step's `terminated`, `truncated` and `rewards` (L53-61); the next step
    plays the new game (L43-52)."""
    env = Env(2, "short", max_steps=60)
    state = env.init(range(16))
    rng = np.random.default_rng(5)
    choose = np.random.default_rng(6)
    ended_games = 0
    for _ in range(400):
        before = state
        action = batch.choose_uniformly(state.legal_action_mask, choose)
        state = env.auto_reset_step(state, action, rng)
        ended = state.terminated | state.truncated
        # Before the reset, the step is `step`'s (for the games `step` would not hold).
        going = ~(before.terminated | before.truncated)
        plain = env.step(before, action)
        for name in ("rewards", "terminated", "truncated"):
            assert np.array_equal(getattr(state, name)[going], getattr(plain, name)[going]), name
        ended_games += int(ended.sum())
        assert (state.step_count[ended] == 0).all()
        assert (state.step_count[~ended] == before.step_count[~ended] + 1).all()
        assert not state.batch.done.any()                          # every game is live again
        assert np.array_equal(state.current_player, state.batch.actor)
        assert np.array_equal(state.legal_action_mask, state.batch.legal_mask())
        assert state.observation is not None and np.array_equal(state.observation, env.observe(state))
        for i in np.flatnonzero(ended).tolist():
            assert state.batch.state(i).seq == 0                   # a new game
    assert ended_games > 16 and state.truncated.dtype == bool
    # Reproducible: the same generator seed replays the same run.
    def run(seed: int) -> np.ndarray:
        s, r, c = env.init(range(4)), np.random.default_rng(seed), np.random.default_rng(0)
        for _ in range(150):
            s = env.auto_reset_step(s, batch.choose_uniformly(s.legal_action_mask, c), r)
        assert s.observation is not None
        return s.observation
    assert np.array_equal(run(1), run(1)) and not np.array_equal(run(1), run(2))
    with pytest.raises(ar.ConfigError):
        env.auto_reset_step(state, np.zeros(16, dtype=np.int64), 7)  # type: ignore[arg-type]


def pgx_a_truncated_game_keeps_its_mask_and_is_left_as_it_is() -> None:
    """core.py L216-223 make only a *terminated* state's mask all true: a truncated game keeps the
    legal mask of its seat to act. L201-207 leave a truncated state as it is; Pgx would still
    penalise an illegal action there (L198, L209-214), here any action is ignored (docs/batch.md)."""
    env = Env(2, max_steps=30, illegal="end")
    state = _play(env, env.init(range(6)), np.random.default_rng(1), lambda s: bool(s.truncated.all()))
    assert not state.terminated.any() and (state.step_count == 30).all()
    assert np.array_equal(state.legal_action_mask, state.batch.legal_mask())
    assert np.array_equal(state.current_player, state.batch.actor)
    later = env.step(state, _illegal_index(env, state))
    assert later.batch.states() == state.batch.states() and not later.rewards.any()
    assert later.truncated.all() and not later.terminated.any()
    assert [s.seq for s in later.batch.states()] == [30] * 6   # no action applied after the cut


PGX = [pgx_init_observes_the_current_player, pgx_a_finished_game_is_left_as_it_is_with_zero_rewards,
       pgx_the_mask_of_a_terminated_game_is_all_true, pgx_current_player_is_always_a_seat,
       pgx_an_illegal_action_ends_that_game_with_a_penalty, pgx_observe_defaults_to_the_current_player,
       pgx_id_version_and_sizes, pgx_auto_reset_replaces_the_games_that_end,
       pgx_a_truncated_game_keeps_its_mask_and_is_left_as_it_is]
"""Pgx's semantics, one behaviour a row (each docstring cites the Pgx lines it follows)."""


@pytest.mark.parametrize("row", PGX, ids=[row.__name__.removeprefix("pgx_") for row in PGX])
def test_pgx_semantics(row: Callable[[], None]) -> None:
    assert row.__doc__ is not None and ".py L" in row.__doc__  # every row cites Pgx's lines
    row()


# -- against the reference engine ------------------------------------------------------------------

@pytest.mark.parametrize(("players", "variant"), [(2, ar.Variant.standard()), (3, ar.Variant.short()),
                                                  (4, ar.Variant.standard().replace(flip_turn=False))])
def test_the_vectorised_loop_plays_the_reference_games(players: int, variant: ar.Variant) -> None:
    env = batch.Env(players, variant)
    seeds = list(range(100, 140))
    state = env.init(seeds)
    rng = np.random.default_rng(players)
    refs = [ar.new_game(players, variant, seed=seed) for seed in seeds]
    last = [-1] * len(seeds)
    space = ActionSpace(variant)
    returns = np.zeros((len(seeds), players))
    while not (state.terminated | state.truncated).all():
        # Pgx's arrays are the reference engine's, game by game.
        for i, ref in enumerate(refs):
            assert state.terminated[i] == ref.is_over
            actor = ref.to_act[0] if ref.to_act else last[i]   # a finished game: its last mover
            assert state.current_player[i] == actor
            mask = space.mask(ref, actor) if not ref.is_over else (True,) * space.size
            assert state.legal_action_mask[i].tolist() == list(mask)
        action = np.argmax(rng.random(state.legal_action_mask.shape) * state.legal_action_mask, axis=1)
        seats = state.current_player
        state = env.step(state, action)
        returns += state.rewards
        for i, ref in enumerate(refs):
            if not ref.is_over:
                refs[i] = ar.apply(ref, space.action(int(action[i]), int(seats[i])))
                last[i] = int(seats[i])
    assert [state.batch.state(i) for i in range(len(seeds))] == refs
    assert np.array_equal(returns, -np.array([ref.totals for ref in refs]))  # rewards: minus the scores
    assert not state.truncated.any() and (state.step_count == [ref.seq for ref in refs]).all()


def test_observations_are_the_rl_encoding_of_the_seat_views() -> None:
    env = batch.Env(3)
    state = env.init(range(8))
    rng = np.random.default_rng(0)
    for _ in range(60):
        state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
        assert state.observation is not None
        for i in range(8):
            game = state.batch.state(i)
            seat = int(state.current_player[i])
            assert state.observation[i].tobytes() == env.encoder.encode(ar.view(game, seat)).tobytes()
        second = env.observe(state, 1)
        assert second[5].tobytes() == env.encoder.encode(ar.view(state.batch.state(5), 1)).tobytes()
    assert batch.Env(2, observe=False).init([1]).observation is None


def test_bad_options_and_actions_are_refused() -> None:
    for options in ({"max_steps": 0}, {"illegal": "ignore"}, {"illegal_reward": float("nan")},
                    {"illegal_reward": True}):
        with pytest.raises(ar.ConfigError) as error:
            batch.Env(2, **options)  # type: ignore[arg-type]
        assert error.value.code == "invalid_env_option"
    env = batch.Env(2)
    state = env.init([1, 2])
    with pytest.raises(ar.BatchStepError) as refused:
        env.step(state, [0, env.num_actions - 1])
    assert refused.value.game == 1
    for bad in ([0.5, 1.0], [0], "ab"):
        with pytest.raises(ar.MalformedActionError):
            batch.Env(2, illegal="end").step(state, bad)
    with pytest.raises(ar.MalformedActionError):
        state.batch.step([0, 0], skip=[True])


def test_the_batch_extra_needs_no_gymnasium_nor_pettingzoo() -> None:
    code = ("import sys\n"
            "sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None\n"
            "import numpy as np\n"
            "from abyss_rules import batch\n"
            "env = batch.Env(2, illegal='end')\n"
            "state = env.init(range(4))\n"
            "state = env.auto_reset_step(state, np.argmax(state.legal_action_mask, axis=1),\n"
            "                            np.random.default_rng(0))\n"
            "print(state.observation.shape, env.observe(state, 0).dtype)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(4, 468) float32"
