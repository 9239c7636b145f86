"""The bots' planner (abyss_rules.planner, on bot_model and bot_tables): its kept tables and
shortcuts agree with computing afresh."""

from __future__ import annotations

import random

import pytest

import abyss_rules as ar
from abyss_rules import bot_tables, planner
from abyss_rules.bots import CountingBot, GreedyBot

STD = ar.Variant.standard()


def _views(variant: ar.Variant, games: int, seed: int) -> list[ar.View]:
    """The movers' views of some games between a random and a greedy player."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        state = ar.new_game(2, variant, seed * 100 + g)
        greedy = GreedyBot()
        while not state.is_over:
            seat = state.to_act[0]
            v = ar.view(state, seat)
            out.append(v)
            legal = [a for a in v.legal_actions]
            action = rng.choice(legal) if rng.random() < 0.3 else greedy.choose(v)
            state = ar.apply(state, action)
    return out


@pytest.mark.parametrize("variant", [STD, STD.replace(swallow_on_final_reveal=False, rows=2, cols=3)])
def test_gains_for_every_value_are_the_value_before_minus_the_value_after(variant: ar.Variant) -> None:
    tables = bot_tables.tables_of(variant)
    views = _views(variant, 3, 1)
    for v in views[::7]:
        model = tables.unseen_model(v, [tables.grid(g) for g in v.grids])
        for grid in v.grids:
            for shape in tables.grid(grid).shapes:
                if shape is None:
                    continue
                gains = model.gains(shape)
                for row, c in enumerate(shape.row_class):
                    for i, card in enumerate(tables.values):
                        after = shape.column[:row] + (card,) + shape.column[row + 1:]
                        assert gains[c][i] == model.value(shape) - model.value(tables.shape(after))


@pytest.mark.parametrize("bot", [GreedyBot(), CountingBot()], ids=["greedy", "counting"])
def test_the_column_by_column_shortcut_picks_what_scoring_every_move_picks(bot: object) -> None:
    checked = 0
    for v in _views(STD, 4, 2):
        if v.phase is ar.Phase.OPENING:
            continue
        p = planner.Planner(bot, v)  # type: ignore[arg-type]
        layout = p.tables.layout(v.legal_actions)
        card = v.drawn if v.phase is ar.Phase.DRAWN else v.top_discard
        moves, spaces = (layout.places, layout.place_spaces) if v.phase is ar.Phase.DRAWN else \
            (layout.takes, layout.take_spaces)
        if card is None:
            continue
        for hurry in (False, True):
            fast = p.best_place(moves, spaces, card, hurry=hurry)
            slow = p.best_place(moves, spaces, card, hurry=hurry, shortcut=False)
            assert fast == slow
            checked += 1
    assert checked > 200


def test_the_kept_tables_are_bounded() -> None:
    tables = bot_tables.tables_of(STD)
    for v in _views(STD, 2, 3):
        tables.unseen_model(v, [tables.grid(g) for g in v.grids])
    assert len(tables._models) <= 64 and len(tables._grids) <= bot_tables.RECENT
    assert len(bot_tables.TABLES) <= 64
