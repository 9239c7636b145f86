"""The decisions of GreedyBot and CountingBot, pinned: the same views give the same actions,
the same seeds the same games, forever (or until a change says otherwise on purpose).

`tests/golden/bot_decisions.json` was written by this module from the bots as they were
before they were made faster (issue 16), so a faster bot must match the old one action for
action. It holds:

* `positions`: cases of a few hundred positions each. A case plays a game with a seeded
  driver (a mix of random moves, bot moves and -- for the `stall` driver -- moves that keep
  every card face down, so that rounds last long enough for the bots' end-of-round hurry);
  at every position it records the action GreedyBot and CountingBot choose in the mover's
  view, in action notation, one space-separated string per bot.
* `games`: whole games between the bots (`play_game`), each pinned by its number of
  actions, its final totals and a SHA-256 of its actions in notation.
* `simulations`: `simulate(...).to_dict()` of small simulations.

Regenerate (only when a change of decisions is intended, and say so in the commit):

    python tests/test_bots_decisions.py --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import abyss_rules as ar
from abyss_rules.bots import CountingBot, GreedyBot
from abyss_rules.notation import to_notation
from abyss_rules.simulation import play_game, simulate

GOLDEN = Path(__file__).parent / "golden" / "bot_decisions.json"

STD = ar.Variant.standard()
VARIANTS: dict[str, ar.Variant] = {
    "standard": STD,
    "short": ar.Variant.short(),
    "long": ar.Variant.long(),
    "no-penalty": STD.replace(closer_multiplier=1),
    "triple-penalty": STD.replace(closer_multiplier=3),
    "no-final-swallow": STD.replace(swallow_on_final_reveal=False),
    "no-flip-turn": STD.replace(flip_turn=False, initial_flips=0),
    "small-grid": STD.replace(rows=2, cols=3, max_rounds=2, reshuffle_keeps_top=False),
    "tall-grid": STD.replace(rows=4, cols=3, max_rounds=2),
}

# (variant, players, driver, seed): the position cases.
POSITION_CASES: list[tuple[str, int, str, int]] = [
    ("standard", 2, "mixed", 1),
    ("standard", 3, "mixed", 2),
    ("standard", 4, "mixed", 3),
    ("standard", 6, "mixed", 4),
    ("standard", 2, "stall", 5),
    ("standard", 3, "stall", 6),
    ("short", 2, "mixed", 7),
    ("long", 2, "mixed", 8),
    ("no-penalty", 2, "mixed", 9),
    ("triple-penalty", 3, "mixed", 10),
    ("no-final-swallow", 2, "mixed", 11),
    ("no-flip-turn", 2, "mixed", 12),
    ("small-grid", 2, "mixed", 13),
    ("small-grid", 2, "stall", 14),
    ("tall-grid", 3, "mixed", 15),
]
POSITIONS_PER_CASE = 40

# (variant, line-up, seed): the whole games.
GAME_CASES: list[tuple[str, tuple[str, ...], int]] = [
    *[("standard", ("greedy", "counting"), seed) for seed in range(6)],
    *[("standard", ("counting", "greedy"), seed) for seed in range(6, 10)],
    ("standard", ("greedy", "greedy"), 10),
    ("standard", ("counting", "counting"), 11),
    ("standard", ("greedy", "counting", "random"), 12),
    ("standard", ("counting", "greedy", "counting", "greedy"), 13),
    ("short", ("greedy", "counting"), 14),
    ("long", ("counting", "greedy"), 15),
    ("no-penalty", ("greedy", "counting"), 16),
    ("triple-penalty", ("greedy", "counting"), 17),
    ("no-final-swallow", ("counting", "greedy"), 18),
    ("no-flip-turn", ("greedy", "counting"), 19),
    ("small-grid", ("greedy", "counting", "greedy"), 20),
    ("tall-grid", ("counting", "greedy"), 21),
]

# (variant, line-up, games, seed): the simulations.
SIMULATION_CASES: list[tuple[str, tuple[str, ...], int, int]] = [
    ("short", ("greedy", "counting"), 24, 2026),
    ("standard", ("counting", "greedy", "random"), 6, 7),
]


def _reveals(state: ar.State, action: ar.Action) -> bool:
    """Whether `action` turns one of the mover's face-down cards up."""
    if isinstance(action, ar.Draw):
        return False
    grid = ar.view(state, action.player).grids[action.player]
    return not grid.face_up[action.row * state.variant.cols + action.col]


def _drive(variant: ar.Variant, players: int, driver: str, seed: int) -> Iterator[ar.State]:
    """The states of one seeded game (then of more, until enough positions are seen)."""
    rng = random.Random(seed)
    bots = [GreedyBot(), CountingBot()]
    game = 0
    while True:
        state = ar.new_game(players, variant, seed * 1000 + game)
        while not state.is_over:
            yield state
            seat = state.to_act[0]
            legal = [a for a in ar.legal_actions(state) if a.player == seat]
            if driver == "stall" and rng.random() < 0.98:
                quiet = [a for a in legal if not _reveals(state, a)]
                action = rng.choice(quiet or legal)
            elif rng.random() < 0.35:
                action = rng.choice(legal)
            else:
                action = rng.choice(bots).choose(ar.view(state, seat))
            state = ar.apply(state, action)
        game += 1


def _positions(variant: str, players: int, driver: str, seed: int) -> dict[str, Any]:
    """The two bots' choices at `POSITIONS_PER_CASE` positions, and how many were in a hurry."""
    greedy: list[str] = []
    counting: list[str] = []
    states = _drive(VARIANTS[variant], players, driver, seed)
    rng = random.Random(seed)
    hurried = 0
    while len(greedy) < POSITIONS_PER_CASE:
        state = next(states)
        if driver == "stall" and state.turns < 28 * players and rng.random() < 0.97:
            continue  # most of a stalling game's positions come once the round is long
        v = ar.view(state, state.to_act[0])
        hurried += v.turns >= GreedyBot.patience * players
        greedy.append(to_notation(GreedyBot().choose(v)))
        counting.append(to_notation(CountingBot().choose(v)))
    return {"greedy": " ".join(greedy), "counting": " ".join(counting), "hurried": hurried}


def _game(variant: str, lineup: tuple[str, ...], seed: int) -> dict[str, Any]:
    result = play_game(list(lineup), VARIANTS[variant], seed)
    text = " ".join(to_notation(a) for a in result.actions)
    return {
        "actions": len(result.actions),
        "totals": list(result.totals),
        "sha256": hashlib.sha256(text.encode()).hexdigest()[:32],
    }


def _simulation(variant: str, lineup: tuple[str, ...], games: int, seed: int) -> dict[str, Any]:
    result = simulate(list(lineup), games=games, seed=seed, variant=VARIANTS[variant])
    summary = result.to_dict()
    summary["totals"] = [list(g.totals) for g in result.games]
    summary["actions"] = [g.actions for g in result.games]
    return summary


def _generate() -> dict[str, Any]:
    return {
        "about": "Pinned decisions of GreedyBot and CountingBot; see tests/test_bots_decisions.py.",
        "positions": [
            {"variant": v, "players": p, "driver": d, "seed": s, **_positions(v, p, d, s)}
            for v, p, d, s in POSITION_CASES
        ],
        "games": [
            {"variant": v, "bots": list(b), "seed": s, **_game(v, b, s)} for v, b, s in GAME_CASES
        ],
        "simulations": [
            {"variant": v, "bots": list(b), "games": n, "seed": s,
             "result": json.loads(json.dumps(_simulation(v, b, n, s)))}
            for v, b, n, s in SIMULATION_CASES
        ],
    }


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    return data


def _first_difference(got: str, want: str) -> str:
    g, w = got.split(), want.split()
    for i, (a, b) in enumerate(zip(g, w, strict=True)):
        if a != b:
            return f"position {i}: chose {a}, pinned {b}"
    return "no difference"


def test_the_golden_file_covers_a_few_hundred_positions_per_bot() -> None:
    data = _golden()
    assert [[c["variant"], c["players"], c["driver"], c["seed"]] for c in data["positions"]] == \
        [list(case) for case in POSITION_CASES]
    count = sum(len(c["greedy"].split()) for c in data["positions"])
    assert count == len(POSITION_CASES) * POSITIONS_PER_CASE >= 300
    assert len(data["games"]) == len(GAME_CASES) and len(data["simulations"]) == len(SIMULATION_CASES)
    # The stalling cases reach the bots' end-of-round hurry, and every kind of action is pinned.
    assert sum(c["hurried"] for c in data["positions"]) >= 40
    kinds = {token.lstrip("0123456789")[0] for c in data["positions"] for bot in ("greedy", "counting")
             for token in c[bot].split()}
    assert kinds == set("ftdpx")


@pytest.mark.parametrize("case", POSITION_CASES, ids=lambda c: f"{c[0]}-{c[1]}p-{c[2]}-{c[3]}")
def test_bots_choose_the_pinned_action_in_every_position(case: tuple[str, int, str, int]) -> None:
    pinned = next(c for c in _golden()["positions"]
                  if (c["variant"], c["players"], c["driver"], c["seed"]) == case)
    got = _positions(*case)
    for bot in ("greedy", "counting"):
        assert got[bot] == pinned[bot], f"{bot}: {_first_difference(got[bot], pinned[bot])}"
    assert got["hurried"] == pinned["hurried"]


@pytest.mark.parametrize("case", GAME_CASES, ids=lambda c: f"{c[0]}-{'-'.join(c[1])}-{c[2]}")
def test_whole_games_between_the_bots_are_the_pinned_games(case: tuple[str, tuple[str, ...], int]) -> None:
    variant, lineup, seed = case
    pinned = next(g for g in _golden()["games"]
                  if (g["variant"], tuple(g["bots"]), g["seed"]) == case)
    got = _game(variant, lineup, seed)
    assert got == {k: pinned[k] for k in ("actions", "totals", "sha256")}


@pytest.mark.parametrize("case", SIMULATION_CASES, ids=lambda c: f"{c[0]}-{'-'.join(c[1])}-{c[3]}")
def test_simulations_between_the_bots_give_the_pinned_results(
    case: tuple[str, tuple[str, ...], int, int],
) -> None:
    variant, lineup, games, seed = case
    pinned = next(s for s in _golden()["simulations"]
                  if (s["variant"], tuple(s["bots"]), s["games"], s["seed"]) == case)
    got = json.loads(json.dumps(_simulation(variant, lineup, games, seed)))
    assert got == pinned["result"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_bots_decisions.py --write   (regenerates the golden file)")
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(_generate(), indent=1) + "\n")
    print(f"wrote {GOLDEN}")
