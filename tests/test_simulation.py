"""Playing games between bots: play_game and simulate (abyss_rules.simulation)."""

from __future__ import annotations

import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from fractions import Fraction

import pytest

import abyss_rules as ar
from abyss_rules.bots import BotError, CountingBot, GreedyBot, RandomBot
from abyss_rules.simulation import (
    GameResult,
    SimulationError,
    SimulationInterrupted,
    derive_seed,
    play_game,
    resolve_variant,
    simulate,
)

SHORT = ar.Variant.short()

# -- play_game --------------------------------------------------------------------


@pytest.mark.rule("9.5")
def test_play_game_replays_exactly_from_its_seed_and_actions() -> None:
    result = play_game(["greedy", "counting"], SHORT, seed=21, keep_states=True)
    assert isinstance(result, GameResult) and result.bots == ("greedy", "counting")
    assert result.states is not None and result.states[-1] == result.final
    state = ar.new_game(2, SHORT, result.seed)
    for action, expected in zip(result.actions, result.states[1:], strict=True):
        state = ar.apply(state, action)
        assert state == expected
    assert result.final.is_over and result.totals == result.final.totals
    assert result.winners == result.final.winners and result.rounds == result.final.history
    assert result.players == 2


def test_play_game_picks_and_keeps_a_fresh_seed() -> None:
    a, b = play_game(["random", "random"], "short"), play_game(["random", "random"], "short")
    assert isinstance(a.seed, int) and a.seed != b.seed
    again = play_game(["random", "random"], "short", seed=a.seed)
    assert again.actions == a.actions


def test_named_bots_are_seeded_from_the_game_seed_and_seat() -> None:
    named = play_game(["random", "random"], "short", seed=5)
    explicit = play_game([RandomBot(derive_seed(5, "bot", 0)), RandomBot(derive_seed(5, "bot", 1))],
                         "short", seed=5)
    assert named.actions == explicit.actions


def test_on_action_sees_every_action_with_the_states_around_it() -> None:
    seen: list[tuple[ar.State, ar.Action, ar.State]] = []
    result = play_game(["greedy", "random"], SHORT, seed=8, keep_states=True,
                       on_action=lambda before, action, after: seen.append((before, action, after)))
    assert result.states is not None
    assert [a for _, a, _ in seen] == list(result.actions)
    assert [b for b, _, _ in seen] == list(result.states[:-1])
    assert [a for _, _, a in seen] == list(result.states[1:])


def test_an_exception_from_on_action_stops_the_game() -> None:
    class Stop(Exception):
        pass

    def stop_at_ten(before: ar.State, action: ar.Action, after: ar.State) -> None:
        if after.seq == 10:
            raise Stop

    with pytest.raises(Stop):
        play_game(["random", "random"], SHORT, seed=8, on_action=stop_at_ten)


@pytest.mark.rule("2.2")
def test_next_seat_orders_the_opening_flips() -> None:
    highest_first = play_game(["random", "random", "random"], SHORT, seed=4,
                              next_seat=lambda state: state.to_act[-1])
    opening = [a.player for a in highest_first.actions[:6]]
    assert opening == [2, 2, 1, 1, 0, 0]
    default = play_game(["random", "random", "random"], SHORT, seed=4)
    assert [a.player for a in default.actions[:6]] == [0, 0, 1, 1, 2, 2]


def test_next_seat_must_name_a_seat_that_may_act() -> None:
    with pytest.raises(SimulationError, match="next_seat returned 5") as caught:
        play_game(["random", "random"], SHORT, seed=4, next_seat=lambda state: 5)
    assert caught.value.code == "invalid_simulation"


class Cheater:
    name = "cheater"

    def choose(self, view: ar.View) -> ar.Action:
        return ar.Draw(view.viewer or 0)   # drawing in the opening is never legal


class Staller:
    """Swaps the discard onto its first face-up card forever (legal, but the round never ends)."""

    name = "staller"

    def choose(self, view: ar.View) -> ar.Action:
        grid = view.grids[view.viewer or 0]
        for action in view.legal_actions:
            if isinstance(action, ar.TakeDiscard) and grid.face_up[action.row * grid.cols + action.col]:
                return action
        return view.legal_actions[0]


@pytest.mark.rule("3.2")
def test_an_illegal_action_from_a_bot_raises_the_engine_error_naming_the_seat() -> None:
    with pytest.raises(ar.IllegalActionError) as info:
        play_game([GreedyBot(), Cheater()], seed=1)
    assert info.value.code == "wrong_phase"
    assert any("seat 1's bot (cheater)" in note for note in info.value.__notes__)


@pytest.mark.rule("6.7")
def test_a_stalling_game_stops_with_game_too_long_and_the_cap_ends_it() -> None:
    with pytest.raises(SimulationError) as info:
        play_game([Staller(), Staller()], seed=1, max_actions=500)
    assert info.value.code == "game_too_long" and "max_turns_per_round" in info.value.message
    capped = play_game([Staller(), Staller()], SHORT.replace(max_turns_per_round=40), seed=1)
    assert capped.rounds[0].capped and capped.rounds[0].closer is None


@pytest.mark.parametrize(
    ("kwargs", "error", "code"),
    [
        ({"bots": ["greedy"]}, SimulationError, "invalid_players"),
        ({"bots": "greedy"}, SimulationError, "invalid_simulation"),
        ({"bots": ["greedy", "nobody"]}, BotError, "unknown_bot"),
        ({"bots": ["greedy", 42]}, BotError, "unknown_bot"),
        ({"bots": ["greedy", GreedyBot]}, BotError, "unknown_bot"),       # a class, not a bot
        ({"bots": ["greedy", "random"], "variant": "huge"}, SimulationError, "invalid_variant"),
        ({"bots": ["greedy", "random"], "max_actions": 0}, SimulationError, "invalid_simulation"),
        ({"bots": ["greedy", "random"], "seed": -1}, ar.SeedError, "invalid_seed"),
    ],
)
def test_play_game_rejects_bad_arguments(kwargs: dict[str, object], error: type, code: str) -> None:
    with pytest.raises(error) as info:
        play_game(**kwargs)  # type: ignore[arg-type]
    assert info.value.code == code


def test_resolve_variant() -> None:
    assert resolve_variant(None) == ar.Variant.standard()
    assert resolve_variant("long") == ar.Variant.long()
    assert resolve_variant(SHORT) is SHORT


# -- simulate -------------------------------------------------------------------


def test_simulate_is_the_same_whatever_executor_runs_it() -> None:
    here = simulate(["greedy", "random"], games=12, seed=2024, variant=SHORT)
    with ThreadPoolExecutor(3) as threads:
        threaded = simulate(["greedy", "random"], 12, 2024, threads, variant=SHORT, chunk_size=1)
    with ProcessPoolExecutor(2) as processes:
        forked = simulate(["greedy", "random"], 12, 2024, processes, variant=SHORT, chunk_size=5)
    assert here == threaded == forked
    assert here.to_dict() == forked.to_dict()
    assert [g.index for g in forked.games] == list(range(12))


def test_simulate_depends_on_the_seed() -> None:
    a = simulate(["random", "random"], games=6, seed=1, variant=SHORT)
    b = simulate(["random", "random"], games=6, seed=2, variant=SHORT)
    assert [g.seed for g in a.games] == [derive_seed(1, "game", i) for i in range(6)]
    assert a.games != b.games


@pytest.mark.rule("7.4")
def test_simulate_aggregates_wins_fractionally_and_rotates_seats() -> None:
    result = simulate(["greedy", "counting", "random"], games=9, seed=3, variant=SHORT)
    assert [b.label for b in result.bots] == ["greedy", "counting", "random"]
    assert sum(b.wins for b in result.bots) == 9            # shared wins split, nothing lost
    for g in result.games:
        assert g.lineup == tuple((seat + g.index) % 3 for seat in range(3))
    for i, stats in enumerate(result.bots):
        expected = Fraction(0)
        for g in result.games:
            seat = g.lineup.index(i)
            if seat in g.winners:
                expected += Fraction(1, len(g.winners))
        assert stats.wins == expected and stats.games == 9
        assert stats.rounds == 9 and stats.round_points == stats.points  # one round per game (short)
        assert stats.closes == sum(r.closer == g.lineup.index(i) for g in result.games for r in g.rounds)
    assert result.rounds_per_game == 1.0
    assert sum(result.seat_win_rates) == pytest.approx(1.0)


@pytest.mark.rule("6.5")
def test_simulate_counts_closer_penalties() -> None:
    result = simulate(["random", "random"], games=20, seed=8, variant=SHORT)
    closed = [r for g in result.games for r in g.rounds if r.closer is not None]
    penalized = [r for r in closed if r.penalized]
    assert penalized  # random bots close with high scores
    assert result.penalty_rate == len(penalized) / len(closed)
    assert sum(b.penalties for b in result.bots) == len(penalized)
    for stats in result.bots:
        assert stats.penalty_rate == (stats.penalties / stats.closes if stats.closes else 0.0)


def test_simulate_fixed_seats_and_factories_and_progress() -> None:
    calls: list[tuple[int, int]] = []
    result = simulate([CountingBot, lambda seed: RandomBot(seed)], games=4, seed=1, variant=SHORT,
                      rotate=False, progress=lambda done, total: calls.append((done, total)))
    assert all(g.lineup == (0, 1) for g in result.games)
    assert [b.label for b in result.bots] == ["counting", "<lambda>"]
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]  # first at the start
    same = simulate(["greedy", "greedy"], games=2, seed=1, variant=SHORT)
    assert [b.label for b in same.bots] == ["greedy#0", "greedy#1"]


def test_simulate_result_table_and_json() -> None:
    result = simulate(["greedy", "random"], games=4, seed=1, variant=SHORT)
    table = result.table().splitlines()
    assert table[0].split()[:4] == ["bot", "games", "win", "rate"]
    assert table[1].startswith("greedy") and table[2].startswith("random")
    data = result.to_dict()
    assert data["games"] == 4 and data["seed"] == 1 and data["variant"]["name"] == "short"
    assert {b["bot"] for b in data["bots"]} == {"greedy", "random"}
    assert data["bots"][0]["wins"] + data["bots"][1]["wins"] == 4


@pytest.mark.parametrize(
    ("args", "kwargs", "code"),
    [
        ((["greedy", "random"], 0), {}, "invalid_simulation"),
        ((["greedy", "random"], "10"), {}, "invalid_simulation"),
        ((["greedy", GreedyBot()], 2), {}, "invalid_simulation"),   # an instance, not a factory
        ((["greedy", "random"], 2), {"chunk_size": 0}, "invalid_simulation"),
        ((["greedy", "random"], 2), {"executor": "threads"}, "invalid_simulation"),
        ((["greedy"], 2), {}, "invalid_players"),
        ((["greedy", "nobody"], 2), {}, "unknown_bot"),
        ((["greedy", "random"], 2), {"seed": 2**256}, "invalid_seed"),
    ],
)
def test_simulate_rejects_bad_arguments(
    args: tuple[object, ...], kwargs: dict[str, object], code: str
) -> None:
    with pytest.raises(ar.AbyssError) as info:
        simulate(*args, **kwargs)  # type: ignore[arg-type]
    assert info.value.code == code


def test_simulate_reports_win_rates_by_seat() -> None:
    result = simulate(["greedy", "random", "counting"], games=6, seed=4, variant=SHORT)
    for i, stats in enumerate(result.bots):
        assert stats.seat_games == (2, 2, 2)                     # rotation: each seat twice
        for seat in range(3):
            won = sum(Fraction(1, len(g.winners)) for g in result.games
                      if g.lineup[seat] == i and seat in g.winners)
            assert stats.seat_wins[seat] == won
            assert stats.seat_win_rates[seat] == float(won / 2)
    fixed = simulate(["greedy", "random"], games=3, seed=4, variant=SHORT, rotate=False)
    assert fixed.bots[0].seat_games == (3, 0) and fixed.bots[0].seat_win_rates[1] is None
    assert "by seat" in fixed.table() and "/-" in fixed.table()


# -- interruption ---------------------------------------------------------------------


class _StopAfter:
    """A bot factory whose bots raise KeyboardInterrupt (as Ctrl-C does) from game `stop` on."""

    name = "stopper"

    def __init__(self, stop: int) -> None:
        self.stop = stop
        self.made = 0

    def __call__(self, seed: int) -> object:
        self.made += 1
        if self.made > self.stop:
            raise KeyboardInterrupt
        return RandomBot(seed)


def test_an_interrupted_simulation_raises_with_the_games_that_finished() -> None:
    stopper = _StopAfter(stop=3)  # seat 0's bot of game 3 is never made
    with pytest.raises(SimulationInterrupted) as info:
        simulate([stopper, "random"], games=10, seed=4, variant=SHORT, rotate=False)
    partial = info.value.result
    assert isinstance(info.value, KeyboardInterrupt) and info.value.requested == 10
    assert [g.index for g in partial.games] == [0, 1, 2]
    whole = simulate(["random", "random"], games=3, seed=4, variant=SHORT, rotate=False)
    assert [g.totals for g in partial.games] == [g.totals for g in whole.games]


def test_an_interrupted_simulation_on_an_executor_cancels_the_rest() -> None:
    calls = []

    def progress(done: int, total: int) -> None:
        calls.append(done)
        if done >= 4:
            raise KeyboardInterrupt

    with ThreadPoolExecutor(1) as pool, pytest.raises(SimulationInterrupted) as info:
        simulate(["random", "random"], games=200, seed=4, variant=SHORT, executor=pool, chunk_size=2,
                 progress=progress)
    games = info.value.result.games
    assert calls[0] == 0 and 4 <= len(games) < 200
    assert [g.index for g in games] == sorted(g.index for g in games)


class _CountingPool(ThreadPoolExecutor):
    """A thread pool that records how many of its tasks were submitted and not yet done.

    A task counts as done when its function returns, before its future holds the result: a
    done-callback would run after the waiters are woken, so the submitter could send the next
    task before the count went down (the test failed once that way, with 65 "in flight")."""

    def __init__(self) -> None:
        super().__init__(2)
        self.open = 0
        self.most = 0
        self.lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        with self.lock:
            self.open += 1
            self.most = max(self.most, self.open)

        def counted(*a, **k):  # type: ignore[no-untyped-def]
            try:
                return fn(*a, **k)
            finally:
                with self.lock:
                    self.open -= 1

        return super().submit(counted, *args, **kwargs)


def test_a_simulation_keeps_few_tasks_in_flight_and_plays_every_game() -> None:
    # Sending all 300 tasks at once made a Dask Ctrl-C cancel thousands of futures, one round
    # trip each (29 s for 100,000 games); at most 64 are in flight.
    with _CountingPool() as pool:
        there = simulate(["random", "random"], games=300, seed=5, variant=SHORT, executor=pool,
                         chunk_size=1)
    assert 1 < pool.most <= 64
    assert there == simulate(["random", "random"], games=300, seed=5, variant=SHORT)


@pytest.mark.rule("9.5")
def test_a_game_result_is_a_record_plus_what_play_game_knows() -> None:
    result = play_game(["greedy", "random"], SHORT, seed=12, keep_states=True)
    record = result.to_record()
    assert isinstance(record, ar.Record) and record.players == result.players
    assert record.variant == result.variant and record.actions == result.actions
    assert list(record.states()) == list(result.states or ())
    assert record == ar.Record.start(2, SHORT, 12).with_actions(*result.actions)
