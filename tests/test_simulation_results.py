"""The statistics of `simulation._results`: the win rate's 95% interval (Wilson score)."""

from __future__ import annotations

import math

import pytest

from abyss_rules.simulation import simulate
from abyss_rules.simulation._results import Z95, wilson_interval


@pytest.mark.parametrize("games", [1, 4, 20, 400])
def test_the_interval_is_right_at_the_edges(games: int) -> None:
    low, high = wilson_interval(0, games)
    assert low == 0.0 and 0.0 < high < 1.0                  # no win: not "0% +/- 0%"
    low, high = wilson_interval(games, games)
    assert 0.0 < low < 1.0 and high == 1.0
    assert wilson_interval(0, games)[1] == pytest.approx(1 - wilson_interval(games, games)[0])
    assert wilson_interval(0, games)[1] == pytest.approx(Z95 ** 2 / (games + Z95 ** 2))


@pytest.mark.parametrize(("wins", "games"), [(1, 20), (7.5, 20), (104, 400), (399, 400), (13, 13)])
def test_the_ends_are_where_the_score_test_just_accepts(wins: float, games: int) -> None:
    # The Wilson interval is every rate q with |p - q| <= z * sqrt(q (1 - q) / n): its ends solve
    # the equality, and it holds the observed rate.
    p = wins / games
    low, high = wilson_interval(wins, games)
    assert low <= p <= high
    for q in (low, high):
        if 0 < q < 1:
            assert (p - q) ** 2 * games == pytest.approx(Z95 ** 2 * q * (1 - q), rel=1e-9)


def test_it_covers_the_true_rate_about_95_times_in_100() -> None:
    # Exact coverage, from binomial probabilities: near 95% across rates, edges included,
    # where the normal approximation's coverage collapses (at p = 0.01 and n = 40: about 33%).
    n = 40
    for p in (0.01, 0.05, 0.2, 0.5, 0.8, 0.99):
        chance = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
        ends = [wilson_interval(k, n) for k in range(n + 1)]
        wilson = sum(c for c, (low, high) in zip(chance, ends, strict=True) if low <= p <= high)
        normal = sum(c for k, c in enumerate(chance)
                     if abs(k / n - p) <= Z95 * math.sqrt(k / n * (1 - k / n) / n))
        assert wilson > 0.89, (p, wilson)
        if p in (0.01, 0.99):
            assert normal < 0.5 < wilson, (p, normal, wilson)


def test_no_game_gives_the_whole_range() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_the_table_and_the_json_carry_the_interval() -> None:
    result = simulate(["greedy", "random"], games=4, seed=1, variant="short")
    table = result.table().splitlines()
    assert "95% interval" in table[0]
    data = {b["bot"]: b for b in result.to_dict()["bots"]}
    for bot in result.bots:
        low, high = bot.win_rate_interval
        assert (data[bot.label]["win_rate_low95"], data[bot.label]["win_rate_high95"]) == (low, high)
        assert f"{low:.1%}-{high:.1%}" in next(line for line in table if line.startswith(bot.label))
    assert data["random"]["win_rate"] == 0.0 and data["random"]["win_rate_high95"] > 0.4
