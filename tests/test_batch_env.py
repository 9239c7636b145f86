"""The Pgx-shaped layer over the batch engine (abyss_rules.batch._env): the vectorised loop against
the reference engine, rewards, truncation, observations from NumPy alone."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import abyss_rules as ar
from abyss_rules import batch
from abyss_rules.action_space import ActionSpace


@pytest.mark.parametrize(("players", "variant"), [(2, ar.Variant.standard()), (3, ar.Variant.short()),
                                                  (4, ar.Variant.standard().replace(flip_turn=False))])
def test_the_vectorised_loop_plays_the_reference_games(players: int, variant: ar.Variant) -> None:
    env = batch.Env(players, variant)
    seeds = list(range(100, 140))
    state = env.init(seeds)
    rng = np.random.default_rng(players)
    refs = [ar.new_game(players, variant, seed=seed) for seed in seeds]
    space = ActionSpace(variant)
    returns = np.zeros((len(seeds), players))
    steps = 0
    while not (state.terminated | state.truncated).all():
        # Pgx's arrays are the reference engine's, game by game.
        for i, ref in enumerate(refs):
            assert state.terminated[i] == ref.is_over
            actor = ref.to_act[0] if ref.to_act else -1
            assert state.current_player[i] == actor
            mask = space.mask(ref, actor) if actor >= 0 else (False,) * space.size
            assert state.legal_action_mask[i].tolist() == list(mask)
        action = np.argmax(rng.random(state.legal_action_mask.shape) * state.legal_action_mask, axis=1)
        seats = state.current_player
        state = env.step(state, action)
        returns += state.rewards
        for i in np.flatnonzero(seats >= 0).tolist():
            refs[i] = ar.apply(refs[i], space.action(int(action[i]), int(seats[i])))
        steps += 1
    assert [state.batch.state(i) for i in range(len(seeds))] == refs
    assert np.array_equal(returns, -np.array([ref.totals for ref in refs]))  # rewards: minus the scores
    assert not state.truncated.any() and (state.step_count == [ref.seq for ref in refs]).all()
    # A finished game stays as it is: its action is ignored, its rewards are 0.
    later = env.step(state, np.zeros(len(seeds), dtype=np.int64))
    assert not later.rewards.any() and later.batch.states() == refs


def test_observations_are_the_rl_encoding_of_the_seat_views() -> None:
    env = batch.Env(3)
    state = env.init(range(8))
    rng = np.random.default_rng(0)
    for _ in range(60):
        state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
        for i in range(8):
            game = state.batch.state(i)
            seat = int(state.current_player[i]) if state.current_player[i] >= 0 else None
            if seat is not None:
                assert state.observation is not None
                assert state.observation[i].tobytes() == env.encoder.encode(ar.view(game, seat)).tobytes()
        second = env.observe(state, 1)
        assert second[5].tobytes() == env.encoder.encode(ar.view(state.batch.state(5), 1)).tobytes()
    assert batch.Env(2, observe=False).init([1]).observation is None


def test_truncation_cuts_games_at_max_steps_and_freezes_them() -> None:
    env = batch.Env(2, max_steps=30)
    state = env.init(range(6))
    rng = np.random.default_rng(1)
    for _ in range(50):
        state = env.step(state, batch.choose_uniformly(state.legal_action_mask, rng))
    assert state.truncated.all() and not state.terminated.any()
    assert (state.step_count == 30).all() and (state.current_player == -1).all()
    assert not state.legal_action_mask.any()
    assert [s.seq for s in state.batch.states()] == [30] * 6  # no action applied after the cut
    with pytest.raises(ar.ConfigError):
        batch.Env(2, max_steps=0)


def test_an_illegal_index_is_refused_and_nothing_changes() -> None:
    env = batch.Env(2)
    state = env.init([1, 2])
    with pytest.raises(ar.BatchStepError) as error:
        env.step(state, [0, env.num_actions - 1])
    assert error.value.game == 1
    with pytest.raises(ar.MalformedActionError):
        state.batch.step([0, 0], skip=[True])


def test_the_batch_extra_needs_no_gymnasium_nor_pettingzoo() -> None:
    code = ("import sys\n"
            "sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None\n"
            "import numpy as np\n"
            "from abyss_rules import batch\n"
            "env = batch.Env(2)\n"
            "state = env.init(range(4))\n"
            "state = env.step(state, np.argmax(state.legal_action_mask, axis=1))\n"
            "print(state.observation.shape, env.observe(state, 0).dtype)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(4, 468) float32"
