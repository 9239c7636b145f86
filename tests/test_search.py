"""SearchBot (abyss_rules.bots._search and its registration in abyss_rules.bots): legal, secret-blind,
reproducible, usable by name everywhere a built-in bot is."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from tests.builders import with_other_secrets

import abyss_rules as ar
from abyss_rules.bots import BOTS, CountingBot, SearchBot, make_bot
from abyss_rules.bots._search import RolloutSearch
from abyss_rules.simulation import play_game, simulate


def _critical_positions(games: int = 2) -> list[tuple[ar.State, ar.View]]:
    """Positions where SearchBot searches, from games between two CountingBots."""
    found = []
    probe = SearchBot(0, rollouts=2)
    for g in range(games):
        result = play_game(["counting", "counting"], variant="short", seed=40 + g, keep_states=True)
        for state in result.states:
            if state.to_act and state.phase in (ar.Phase.TURN, ar.Phase.DRAWN):
                v = ar.view(state, state.to_act[0])
                if probe._critical(v) and len(probe._candidates(v, CountingBot().choose(v))) > 1:
                    found.append((state, v))
    return found


POSITIONS = _critical_positions()


def test_it_is_registered_by_name() -> None:
    assert BOTS["search"] is SearchBot
    bot = make_bot("search", seed=3)
    assert isinstance(bot, SearchBot) and isinstance(bot, ar.bots.Bot) and bot.seed == 3


def test_it_searches_at_the_ends_of_rounds_and_plays_legal_moves() -> None:
    assert len(POSITIONS) > 10
    bot = SearchBot(1, rollouts=8)
    for state, v in POSITIONS:
        assert bot.choose(v) in ar.legal_actions(state)
    assert bot.searched == len(POSITIONS)


def test_elsewhere_it_plays_as_counting() -> None:
    bot = SearchBot(1, rollouts=8)
    state = ar.new_game(players=2, seed=9)
    while state.round == 1 and not state.is_over and bot.searched == 0:
        v = ar.view(state, state.to_act[0])
        chosen = bot.choose(v)
        if bot.searched == 0:
            assert chosen == CountingBot().choose(v)
        state = ar.apply(state, chosen)


@pytest.mark.rule("8.2", "8.3")
def test_its_choices_do_not_depend_on_the_secrets() -> None:
    rng = random.Random(5)
    for state, v in POSITIONS[:12]:
        other = with_other_secrets(state, rng)
        seat = v.viewer
        assert SearchBot(7, rollouts=12).choose(v) == SearchBot(7, rollouts=12).choose(ar.view(other, seat))


def test_a_rollout_budget_is_reproducible_for_a_seed() -> None:
    games = [play_game([SearchBot(4, rollouts=6), "counting"], variant="short", seed=11) for _ in range(2)]
    assert games[0].actions == games[1].actions
    # the seed matters where a search is close: over these positions some choice differs
    picks = {s: [SearchBot(s, rollouts=4, confidence=0).choose(v) for _, v in POSITIONS] for s in range(4)}
    assert len({tuple(p) for p in picks.values()}) > 1


def test_the_search_changes_decisions_and_the_guard_keeps_the_policys() -> None:
    # without the guard the search overrules CountingBot at some positions it searches ...
    loose = SearchBot(2, rollouts=24, confidence=0)
    differ = [v for _, v in POSITIONS if loose.choose(v) != CountingBot().choose(v)]
    assert differ
    # ... and with an unreachable guard it never does
    strict = SearchBot(2, rollouts=24, confidence=1e9)
    assert all(strict.choose(v) == CountingBot().choose(v) for v in differ)


def test_a_time_budget() -> None:
    _, v = POSITIONS[0]
    bot = SearchBot(1, seconds=0.01)
    assert bot.choose(v) in v.legal_actions


def test_by_name_in_play_game_and_simulate() -> None:
    result = play_game(["search", "counting"], variant="short", seed=2)
    assert result.bots == ("search", "counting") and result.final.is_over
    sim = simulate(["search", "greedy"], games=2, seed=3, variant="short")
    assert [b.label for b in sim.bots] == ["search", "greedy"]


def test_by_name_on_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "abyss_rules", "simulate", "--bots", "search", "counting",
                           "--games", "2", "--variant", "short", "--seed", "1", "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "search" in done.stdout


def test_by_name_as_an_environment_opponent() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    from abyss_rules import envs

    env = gymnasium.make(envs.SOLO_ID, opponents=["search"], variant="short")
    env.action_space.seed(1)
    _, info = env.reset(seed=1)
    terminated, steps = False, 0
    while not terminated:
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        assert not truncated
        steps += 1
    assert steps > 0 and info["action_mask"].all()   # the game is over: every index (never an empty mask)
    env.close()


@pytest.mark.parametrize("kwargs", [{"rollouts": 0}, {"rollouts": 2.5}, {"seconds": 0}, {"seconds": "1"},
                                    {"horizon": -1}])
def test_bad_budgets_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ar.bots.BotError) as caught:
        SearchBot(1, **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "bot_cannot_act"


def test_bad_views_are_refused() -> None:
    state = ar.new_game(players=2, seed=1)
    for thing in (state, ar.view(state), None):
        with pytest.raises(ar.bots.BotError) as caught:
            SearchBot(1).choose(thing)  # type: ignore[arg-type]
        assert caught.value.code == "bot_cannot_act"


def test_a_view_no_state_has_is_refused() -> None:
    import attrs

    _, v = POSITIONS[0]
    with pytest.raises(ar.bots.BotError) as caught:
        SearchBot(1).choose(attrs.evolve(v, draw_pile_size=v.draw_pile_size + 5))
    assert caught.value.code == "bot_cannot_act"


def test_any_policy() -> None:
    _, v = POSITIONS[0]
    bot = RolloutSearch(ar.bots.GreedyBot(), 3, rollouts=4)
    assert bot.choose(v) in v.legal_actions and "RolloutSearch" in repr(bot)


def _last_turns(games: int = 3) -> list[ar.State]:
    """Standard-game positions (rounds that do not end the game) on the last turn after a close."""
    found = []
    for g in range(games):
        result = play_game(["counting", "counting"], seed=70 + g, keep_states=True)
        found += [s for s in result.states if s.closer is not None and s.phase is ar.Phase.TURN
                  and s.round < len(result.final.history)]
    return found


@pytest.mark.rule("6.2", "6.5")
def test_a_move_that_ends_the_round_is_scored_by_that_round() -> None:
    # On the last turn after a close every move but the draw ends the round at once, and the
    # next round is dealt: the outcome is the round just ended, not the next one played out.
    positions = _last_turns()
    assert len(positions) >= 3
    bot = SearchBot(1)
    for state in positions:
        me = state.to_act[0]
        for action in ar.legal_actions(state):
            after = ar.apply(state, action)
            if after.round == state.round:
                continue
            scores = after.history[-1].scores
            expected = min(s for p, s in enumerate(scores) if p != me) - scores[me]
            assert bot._rollout(after, me, state.round) == expected
