"""The PettingZoo AEC environment (abyss_rules.envs._aec): PettingZoo's own tests, whole games,
rewards against the scores, seeding, seat order in the opening and typed errors for illegal actions."""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import numpy as np
from pettingzoo.test import api_test, seed_test

import abyss_rules as ar
from abyss_rules import envs

# PettingZoo's api_test warns about every dict observation (it exempts only its own classic games by
# name); a dict of `observation` and `action_mask` is what the issue and PettingZoo's docs ask for.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def _only_expected_warnings(run: Callable[[], None]) -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run()
    assert {str(w.message) for w in seen} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize("players", [2, 3, 8])
def test_pettingzoo_api_test(players: int) -> None:
    _only_expected_warnings(lambda: api_test(envs.env(players=players), num_cycles=400))


def test_pettingzoo_seed_test() -> None:
    _only_expected_warnings(lambda: seed_test(lambda: envs.env(players=3), num_cycles=400))


def test_the_raw_env_passes_the_api_test_too() -> None:
    _only_expected_warnings(lambda: api_test(envs.raw_env(players=2, variant="short"), num_cycles=200))


def play(game: Any, seed: int, rng: np.random.Generator) -> tuple[dict[str, float], ar.State, int]:
    """A whole game of masked random agents: every agent's rewards summed, the final state, the steps."""
    game.reset(seed=seed)
    raw = game.unwrapped
    earned: dict[str, float] = defaultdict(float)
    steps = 0
    final = None
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        earned[agent] += reward
        assert not truncated
        if terminated:
            final = raw.game_state
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        game.step(int(rng.choice(legal)))
        steps += 1
    assert final is not None and final.is_over and game.agents == []
    return dict(earned), final, steps


@pytest.mark.parametrize("preset", ["standard", "short", "long"])
@pytest.mark.parametrize("players", range(2, 9))
def test_whole_games_end_and_the_score_rewards_sum_to_minus_the_totals(preset: str, players: int) -> None:
    game = envs.env(players=players, variant=preset)
    earned, final, steps = play(game, seed=100 + players, rng=np.random.default_rng(players))
    assert steps == final.seq  # every action went through the environment
    assert [earned[f"player_{p}"] for p in range(players)] == [-float(t) for t in final.totals]
    assert final.variant == ar.Variant.presets()[preset]


@pytest.mark.parametrize("players", [2, 4, 7])
def test_margin_and_win_rewards_sum_to_what_the_totals_say(players: int) -> None:
    for seed in range(3):
        earned, final, _ = play(envs.env(players=players, reward="margin"), seed, np.random.default_rng(seed))
        totals = final.totals
        for p in range(players):
            others = (sum(totals) - totals[p]) / (players - 1)
            assert earned[f"player_{p}"] == pytest.approx(others - totals[p])
        assert sum(earned.values()) == pytest.approx(0)
        earned, final, _ = play(envs.env(players=players, reward="win"), seed, np.random.default_rng(seed))
        assert {p for p in range(players) if earned[f"player_{p}"] == 1.0} == set(final.winners)
        assert all(earned[f"player_{p}"] == -1.0 for p in range(players) if p not in final.winners)


def test_rewards_come_at_round_ends_only_and_to_every_agent() -> None:
    game = envs.raw_env(players=3, reward="score")
    game.reset(seed=4)
    rng = np.random.default_rng(4)
    rounds_seen = 0
    while not game.game_state.is_over:
        before = game.game_state
        obs = game.observe(game.agent_selection)
        game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        after = game.game_state
        if len(after.history) > len(before.history):
            rounds_seen += 1
            scores = after.history[-1].scores
            assert [game.rewards[f"player_{p}"] for p in range(3)] == [-float(s) for s in scores]
        else:
            assert set(game.rewards.values()) == {0.0}
    assert rounds_seen == len(game.game_state.history) >= 1


def test_reset_with_a_seed_deals_the_library_game_and_reset_without_one_is_reproducible() -> None:
    game = envs.raw_env(players=4, variant="long")
    game.reset(seed=123)
    assert game.game_state == ar.new_game(4, ar.Variant.long(), seed=123)
    game.reset()
    first = game.game_state
    game.reset(seed=123)
    game.reset()
    assert game.game_state == first != ar.new_game(4, ar.Variant.long(), seed=123)
    game.reset(seed=124)
    assert game.game_state == ar.new_game(4, ar.Variant.long(), seed=124)


def test_the_opening_is_played_in_seat_order_and_only_the_selected_agent_has_a_mask() -> None:
    game = envs.raw_env(players=3)
    game.reset(seed=2)
    order = []
    while game.game_state.phase is ar.Phase.OPENING:
        agent = game.agent_selection
        seat = int(agent.split("_")[1])
        assert seat == min(game.game_state.owing_flips)
        for other in game.agents:
            mask = game.observe(other)["action_mask"]
            if other == agent:
                assert tuple(mask.astype(bool)) == game.space.mask(game.game_state, seat)
                assert mask.sum() > 0
            else:
                assert mask.sum() == 0
        order.append(seat)
        game.step(int(np.flatnonzero(game.observe(agent)["action_mask"])[-1]))
    assert order == [0, 0, 1, 1, 2, 2]
    state = game.game_state
    assert game.agent_selection == f"player_{state.turn}"


def test_observe_encodes_the_agents_own_view() -> None:
    game = envs.raw_env(players=2)
    game.reset(seed=6)
    rng = np.random.default_rng(0)
    while True:
        state = game.game_state
        for p, agent in enumerate(game.agents):
            expected = game.encoder.encode(ar.view(state, p))
            assert game.observe(agent)["observation"].tobytes() == expected.tobytes()
        if state.is_over:
            break
        game.step(int(rng.choice(np.flatnonzero(game.observe(game.agent_selection)["action_mask"]))))


def _snapshot(game: Any) -> tuple[Any, ...]:
    return (game.game_state, game.agent_selection, dict(game.rewards), dict(game._cumulative_rewards),
            dict(game.terminations), list(game.agents))


def test_an_illegal_action_raises_the_engines_typed_error_and_changes_nothing() -> None:
    game = envs.env(players=2)
    game.reset(seed=1)
    raw = game.unwrapped
    draw = raw.space.draw
    before = _snapshot(raw)
    with pytest.raises(ar.IllegalActionError) as error:
        game.step(draw)                                  # no Draw in the opening
    assert error.value.code == "wrong_phase" and error.value.rule == "3.2"
    assert _snapshot(raw) == before
    with pytest.raises(ar.ActionIndexError) as index_error:
        game.step(raw.space.size)
    assert index_error.value.code == "no_such_action_index"
    with pytest.raises(ar.ActionIndexError):
        game.step(-1)
    with pytest.raises(ar.MalformedActionError):
        game.step(1.5)
    with pytest.raises(ar.MalformedActionError):
        game.step(True)
    assert _snapshot(raw) == before
    game.step(np.int64(0))                               # NumPy integers are indices too
    with pytest.raises(ar.IllegalActionError) as error:
        game.step(0)                                     # that card is face up now
    assert error.value.code == "space_face_up"


def test_bad_options_are_refused_with_typed_errors() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"players": 9}, "invalid_players"),
        ({"players": 1}, "invalid_players"),
        ({"variant": "huge"}, "invalid_variant"),
        ({"variant": 3}, "invalid_variant"),
        ({"reward": "points"}, "invalid_env_option"),
        ({"render_mode": "rgb_array_list"}, "invalid_env_option"),
    ]
    for kwargs, code in cases:
        with pytest.raises(ar.ConfigError) as error:
            envs.raw_env(**kwargs)
        assert error.value.code == code, kwargs
    with pytest.raises(ar.ConfigError) as error:
        envs.raw_env().reset(seed=-1)
    assert error.value.code == "invalid_env_option"


def test_a_custom_variant_and_the_ansi_picture_show_public_facts_only() -> None:
    variant = ar.Variant.standard().replace(rows=2, cols=3, max_rounds=2)
    game = envs.raw_env(players=2, variant=variant, render_mode="ansi")
    game.reset(seed=3)
    assert game.action_space("player_0").n == 4 * 6 + 1
    text = game.render()
    assert isinstance(text, str) and "??" in text
    hidden = [c for i, c in enumerate(game.game_state.cards) if not game.game_state.face_up_mask >> i & 1]
    assert text.count("??") == len(hidden)


def _drive(game: Any, rng: np.random.Generator, steps: int) -> list[Any]:
    """`steps` masked random agent steps; what each `last()` showed (observation bytes, mask,
    reward, done flags)."""
    seen = []
    for agent in game.agent_iter(steps):
        obs, reward, terminated, truncated, _ = game.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated))
        if terminated or truncated:
            game.step(None)
            continue
        game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("wrapped", [True, False])
def test_the_environment_pickles_and_the_copy_steps_identically(wrapped: bool) -> None:
    import pickle

    game = envs.env(players=3) if wrapped else envs.raw_env(players=3)
    assert pickle.loads(pickle.dumps(game)) is not None  # before reset too
    game.reset(seed=5)
    _drive(game, np.random.default_rng(0), 40)
    copy = pickle.loads(pickle.dumps(game))
    assert copy.unwrapped.game_state == game.unwrapped.game_state
    ours, theirs = _drive(game, np.random.default_rng(1), 3000), _drive(copy, np.random.default_rng(1), 3000)
    assert ours == theirs and len(ours) > 20 and ours[-1][-1]  # to the end of the game
    # A reset without a seed draws the same next game in both.
    game.reset()
    copy.reset()
    assert copy.unwrapped.game_state == game.unwrapped.game_state


def test_the_wrapper_enforces_order_as_pettingzoos_and_reads_the_same_attributes() -> None:
    from pettingzoo.utils import wrappers

    ours = envs.env(players=3)
    theirs = wrappers.OrderEnforcingWrapper(envs.raw_env(players=3))
    assert isinstance(ours, wrappers.OrderEnforcingWrapper) and str(ours) == str(theirs) == "abyss_rules_v0"
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
        for game in (ours, theirs):
            with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
                getattr(game, name)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        ours.last()
    rng = np.random.default_rng(3)
    for game in (ours, theirs):
        game.reset(seed=9)
    steps = 0
    while ours.agents:
        for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
                     "_cumulative_rewards"):
            assert getattr(ours, name) == getattr(theirs, name)
            assert getattr(ours, name) is getattr(ours.unwrapped, name)
        mine, other = ours.last(), theirs.last()
        assert mine[1:] == other[1:]
        assert all((mine[0][key] == other[0][key]).all() for key in ("observation", "action_mask"))
        action = None if mine[2] else int(rng.choice(np.flatnonzero(mine[0]["action_mask"])))
        ours.step(action)
        theirs.step(action)
        steps += 1
    assert not theirs.agents and steps > 100
    assert ours.unwrapped.game_state == theirs.unwrapped.game_state


def test_the_wrappers_agent_iter_and_step_check_as_pettingzoos() -> None:
    from pettingzoo.utils import wrappers

    for game in (envs.env(players=2), wrappers.OrderEnforcingWrapper(envs.raw_env(players=2))):
        with pytest.raises(AssertionError, match="reset"):
            game.agent_iter()
        with pytest.raises(AssertionError, match="reset"):
            game.step(0)
        game.reset(seed=1)
        agents = iter(game.agent_iter(max_iter=4))  # the refused next() counts too
        assert next(agents) == "player_0"
        with pytest.raises(AssertionError, match="need to call step"):
            next(agents)
        for _ in range(2):
            game.step(int(np.flatnonzero(game.last()[0]["action_mask"])[0]))
            assert next(agents) == game.agent_selection
        game.step(int(np.flatnonzero(game.last()[0]["action_mask"])[0]))
        with pytest.raises(StopIteration):
            next(agents)  # max_iter reached
