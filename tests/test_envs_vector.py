"""`VectorEnv` (abyss_rules.envs._vector): self-play games over the batch engine, checked against the
reference engine game by game (observations, masks, rewards), and thousands of games with autoreset."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import gymnasium
import numpy as np
from tests.builders import tiny

import abyss_rules as ar
from abyss_rules import envs
from abyss_rules.action_space import ActionSpace
from abyss_rules.envs import Rewards
from abyss_rules.errors import BatchStepError


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal index per game (any index where a game has none)."""
    return np.argmax(rng.random(mask.shape) * (mask + 1e-9), axis=1)


@pytest.mark.parametrize(("variant", "players", "steps"), [
    (ar.Variant.standard(), 2, 220),
    (ar.Variant.short(), 3, 160),
    (ar.Variant.standard(), 8, 140),
    (tiny(reshuffle_keeps_top=False, max_turns_per_round=12), 4, 200),   # reshuffles, capped rounds
    (ar.Variant.standard().replace(rows=2, cols=3, opener="previous_closer", flip_turn=False,
                                   initial_flips=3, max_rounds=3), 3, 200),
    # card values too far apart for the encoder's lookup table
    (ar.Variant(deck=((-9000, 20), (0, 30), (7, 20), (9000, 20)), max_players=3, target_score=30_000,
                max_turns_per_round=30), 2, 150),
])
def test_every_step_of_every_game_matches_the_reference(
        variant: ar.Variant, players: int, steps: int) -> None:
    vec = envs.VectorEnv(12, players=players, variant=variant, reward="margin")
    rewards = Rewards("margin", players)
    space = ActionSpace(variant)
    rng = np.random.default_rng(players)
    obs, info = vec.reset(seed=3)
    states = vec.batch.states()
    restarted = ended = 0
    for _ in range(steps):
        for i, state in enumerate(states):
            seat = int(info["seat"][i])
            assert obs[i].tobytes() == vec.encoder.encode(ar.view(state, seat)).tobytes()
            expected = space.mask(state, seat) if not state.is_over else (True,) * space.size
            assert tuple(info["action_mask"][i].astype(bool)) == expected
            assert state.is_over or seat == state.to_act[0]
        was_over = [s.is_over for s in states]
        mover = vec.batch.actor.copy()
        actions = random_actions(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = vec.step(actions)
        after = vec.batch.states()
        assert not truncated.any()
        for i, (before, now) in enumerate(zip(states, after, strict=True)):
            if was_over[i]:                          # replaced by a new game at this step
                restarted += 1
                assert now.seq == 0 and now.round == 1 and reward[i] == 0 and not terminated[i]
                assert info["rewards"][i].tolist() == [0.0] * players
                continue
            assert now == ar.apply(before, space.action(int(actions[i]), int(mover[i])))
            assert info["rewards"][i].tolist() == list(rewards.of_step(before, now))
            assert reward[i] == info["rewards"][i][mover[i]]
            assert terminated[i] == now.is_over
            ended += now.is_over
        states = after
    assert restarted > 0 and ended > 0


def test_thousands_of_games_autoreset_and_their_rewards_sum_to_minus_the_totals() -> None:
    n = 256
    vec = envs.VectorEnv(n, players=2, reward="score")
    rng = np.random.default_rng(0)
    obs, info = vec.reset(seed=11)
    earned = np.zeros((n, 2))
    finished = 0
    restart = np.zeros(n, dtype=bool)
    opening = vec.encoder.slice("phase").start
    while finished < 2000:
        obs, _, terminated, truncated, info = vec.step(random_actions(info["action_mask"], rng))
        assert obs in vec.observation_space and not truncated.any()
        assert (obs[restart, opening] == 1).all()         # replaced games start with their opening
        assert (vec.batch.seq[restart] == 0).all()
        earned += info["rewards"]
        for i in np.flatnonzero(terminated):
            assert earned[i].tolist() == (-vec.batch.totals[i]).astype(float).tolist()
            assert info["action_mask"][i].all()   # its action is ignored: never an empty row
        earned[terminated] = 0
        finished += int(terminated.sum())
        restart = terminated
    assert finished >= 2000


def test_win_rewards_and_the_seat_of_a_finished_game() -> None:
    vec = envs.VectorEnv(32, players=3, variant="short", reward="win")
    rng = np.random.default_rng(5)
    _, info = vec.reset(seed=1)
    seen = 0
    while seen < 40:
        mover = vec.batch.actor.copy()
        _, reward, terminated, _, info = vec.step(random_actions(info["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            winners = vec.batch.state(int(i)).winners
            assert info["seat"][i] == mover[i]
            assert info["rewards"][i].tolist() == [1.0 if p in winners else -1.0 for p in range(3)]
            assert reward[i] == info["rewards"][i][mover[i]]
            seen += 1


def test_reset_with_a_seed_is_reproducible() -> None:
    def run(seed: int) -> list[Any]:
        vec = envs.VectorEnv(8, players=2)
        rng = np.random.default_rng(0)
        obs, info = vec.reset(seed=seed)
        out = [obs.tobytes()]
        for _ in range(80):
            obs, reward, *_, info = vec.step(random_actions(info["action_mask"], rng))
            out += [obs.tobytes(), reward.tobytes()]
        return out

    assert run(4) == run(4) != run(5)


def test_an_illegal_index_raises_the_batch_error_and_changes_nothing() -> None:
    vec = envs.VectorEnv(4, players=2)
    _, info = vec.reset(seed=2)
    before = vec.batch
    actions = np.argmax(info["action_mask"], axis=1)
    actions[2] = vec.encoder.variant.cells * 2           # Draw, during the opening
    with pytest.raises(BatchStepError) as error:
        vec.step(actions)
    assert error.value.game == 2 and error.value.code == "wrong_phase"
    assert vec.batch is before
    with pytest.raises(ar.MalformedActionError):
        vec.step(np.zeros(3, dtype=np.int64))
    assert vec.batch is before


def test_spaces_and_bad_options() -> None:
    vec = envs.VectorEnv(5, players=3)
    assert vec.single_action_space == gymnasium.spaces.Discrete(49)
    assert vec.action_space.shape == (5,)
    assert vec.observation_space.shape == (5, vec.encoder.size)
    assert vec.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
    cases: list[tuple[dict[str, Any], str]] = [
        ({"num_envs": 0}, "invalid_env_option"), ({"num_envs": 2, "players": 9}, "invalid_players"),
        ({"num_envs": 2, "reward": "x"}, "invalid_env_option"),
        ({"num_envs": 2, "variant": "x"}, "invalid_variant")]
    for kwargs, code in cases:
        with pytest.raises(ar.ConfigError) as error:
            envs.VectorEnv(**kwargs)
        assert error.value.code == code
    with pytest.raises(ar.ConfigError):
        envs.VectorEnv(2).step(np.zeros(2, dtype=np.int64))   # before reset


def test_encode_batch_refuses_bad_viewers_and_other_batches() -> None:
    vec = envs.VectorEnv(3, players=2)
    vec.reset(seed=0)
    for viewers in ([0, 1], [0, 1, 2], [0.0, 1.0, 0.0], [-1, 0, 0]):
        with pytest.raises(ar.ConfigError) as error:
            vec.encoder.encode_batch(vec.batch, np.array(viewers))
        assert error.value.code == "invalid_env_option"
    other = envs.VectorEnv(3, players=3)
    other.reset(seed=0)
    with pytest.raises(ar.ConfigError) as error:
        vec.encoder.encode_batch(other.batch, np.zeros(3, dtype=np.int64))
    assert error.value.code == "invalid_players"


def test_the_batch_shows_each_discard_pile_bottom_first() -> None:
    vec = envs.VectorEnv(6, players=3)
    _, info = vec.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(40):
        _, _, _, _, info = vec.step(random_actions(info["action_mask"], rng))
        b = vec.batch
        for i in range(len(b)):
            held = b.discard_pile[i, : b.discard_size[i]].tolist()
            assert tuple(reversed(held)) == b.state(i).discard_pile


def test_the_vector_environment_pickles_and_the_copy_steps_identically() -> None:
    import pickle

    vec = envs.VectorEnv(16, players=3)
    assert pickle.loads(pickle.dumps(vec)).num_envs == 16  # before reset too
    _, info = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, _, _, _, info = vec.step(random_actions(info["action_mask"], rng))
    copy = pickle.loads(pickle.dumps(vec))
    for _ in range(200):  # past the ends of games: the copies deal the same new games
        actions = random_actions(info["action_mask"], rng)
        ours, theirs = vec.step(actions), copy.step(actions)
        for a, b in zip(ours[:4], theirs[:4], strict=True):
            assert np.array_equal(a, b)
        assert all(np.array_equal(ours[4][key], theirs[4][key]) for key in ours[4])
        info = ours[4]
    assert [vec.batch.state(i) for i in range(16)] == [copy.batch.state(i) for i in range(16)]


def test_action_masks_follows_the_maskable_protocol() -> None:
    vec = envs.VectorEnv(8, players=2)
    with pytest.raises(ar.ConfigError):
        vec.action_masks()  # before reset
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(300):
        masks = vec.action_masks()
        assert masks.dtype == bool and masks.shape == (8, 49) and masks.flags.writeable
        assert np.array_equal(masks, info["action_mask"].astype(bool))
        # A masked policy: random scores, -inf on the illegal indices (MaskablePPO's masking).
        scores = np.where(masks, rng.random(masks.shape), -np.inf)
        _, _, _, _, info = vec.step(np.argmax(scores, axis=1))
