"""The bots' planner (abyss_rules.bots._planner, on _model and _tables): its kept tables agree
with computing afresh."""

from __future__ import annotations

import random

import attrs
import pytest
from tests.builders import mixed_games

import abyss_rules as ar
from abyss_rules import caches
from abyss_rules.bots import CountingBot, GreedyBot
from abyss_rules.bots import _planner as planner
from abyss_rules.bots import _tables as bot_tables

STD = ar.Variant.standard()


def _views(variant: ar.Variant, games: int, seed: int) -> list[ar.View]:
    """The movers' views of some games between a random and a greedy player."""
    return [v for _, v in mixed_games(variant, games, seed)]


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


def test_the_kept_tables_are_bounded() -> None:
    tables = bot_tables.tables_of(STD)
    for v in _views(STD, 2, 3):
        tables.unseen_model(v, [tables.grid(g) for g in v.grids])
    assert len(tables._models) <= 64 and len(tables._grids) <= bot_tables.RECENT
    assert len(bot_tables.TABLES) <= 64


def _every_list(model: object, shapes: tuple, feed: list[float] | None) -> list[float]:
    """`Model.best_scores` the long way: every class's scores, then the best value by value."""
    lists = []
    for shape in shapes:
        if shape is None:
            continue
        for cls, gains in zip(shape.classes, model.gains(shape), strict=True):  # type: ignore[attr-defined]
            scores = list(gains)
            if feed is not None:
                gifts = zip(scores, cls.gift_index, strict=True)
                scores = [g - feed[gift] if gift >= 0 else g for g, gift in gifts]
            lists.append(scores)
    if not lists:
        return [float("-inf")] * len(model.values)  # type: ignore[attr-defined]
    return list(map(max, *lists)) if len(lists) > 1 else lists[0]


@pytest.mark.parametrize("variant", [
    STD,
    STD.replace(swallow_on_final_reveal=False, rows=2, cols=3),
    STD.replace(rows=4, cols=3),
    STD.replace(rows=2, cols=2, deck=((-2, 30), (-1, 20), (0, 20), (5, 20), (12, 30))),
], ids=["standard", "small-no-final-swallow", "tall", "few-values"])
def test_the_best_scores_skip_only_classes_that_cannot_reach_the_best(variant: ar.Variant) -> None:
    """The pruned maximum equals the maximum over every class, with and without feed costs
    (the real ones, and random ones that make other classes the best)."""
    tables = bot_tables.tables_of(variant)
    rng = random.Random(4)
    skipped = 0
    for v in _views(variant, 3, 5)[::3]:
        grids = [tables.grid(g) for g in v.grids]
        model = tables.unseen_model(v, grids)
        for info in grids:
            real = model.feed(info.shapes, 0.5)
            feeds = [None, real, [rng.uniform(0, 6) for _ in tables.values],
                     [rng.choice([0.0, 0.5, 3.0, 9.0]) for _ in tables.values]]
            for feed in feeds:
                assert model.best_scores(info.shapes, feed) == _every_list(model, info.shapes, feed)
            classes = sum(len(s.classes) for s in info.shapes if s is not None)
            skipped += classes > 1
    assert skipped > 20


def test_an_opening_flip_is_flip_space_over_the_legal_flips_whatever_flips_are_legal() -> None:
    """The flip kept on a grid (`GridInfo.flip`) decides an opening when every face-down space
    may be flipped; among some of them only (views with fewer legal flips, made here), the
    planner picks what `flip_space` picks over those."""
    rng = random.Random(12)
    compared = 0
    for v in _views(STD, 6, 13):
        if v.phase is not ar.Phase.OPENING:
            continue
        for _ in range(4):
            legal = tuple(a for a in v.legal_actions if rng.random() < 0.6) or v.legal_actions[:1]
            narrowed = attrs.evolve(v, legal_actions=legal)
            info = bot_tables.tables_of(STD).grid(v.grids[v.viewer])  # type: ignore[index]
            row, col = bot_tables.flip_space(info.shapes, [(a.row, a.col) for a in legal])  # type: ignore[attr-defined]
            for bot in (GreedyBot(), CountingBot()):
                chosen = planner.choose(bot, narrowed)
                assert (chosen.row, chosen.col) == (row, col)  # type: ignore[attr-defined]
                compared += 1
    assert compared > 100


def test_the_deck_models_class_gains_kept_on_a_class_are_the_gains_of_each_of_its_columns() -> None:
    """`Model.gains` of the deck's model reads each class's gains from the class
    (`ColumnClass.deck_gains`, shared by every column of the class): they must be the gains of
    every one of them, computed afresh from that column's value."""
    tables = bot_tables.tables_of(STD)
    model = tables.deck_model
    checked = 0
    for v in _views(STD, 3, 6)[::2]:
        for grid in v.grids:
            for shape in tables.grid(grid).shapes:
                if shape is None:
                    continue
                model.gains(shape)
                for c, cls in enumerate(shape.classes):
                    if cls.deck_gains is not None:
                        assert cls.deck_gains == model.class_gains(model.value(shape), cls)
                        assert model.gains(shape)[c] is cls.deck_gains
                        checked += 1
    assert checked > 200


def test_the_grid_memo_gives_each_grid_its_own_reading() -> None:
    """`Tables.grid` keeps readings by the grid's identity: a reading kept under the id of
    another grid (as after that grid is gone and its id reused) is never returned."""
    tables = bot_tables.tables_of(STD)
    views = _views(STD, 2, 7)
    first, other = views[0].grids[0], views[-1].grids[1]
    assert first.cards != other.cards
    tables._grids[id(first)] = bot_tables.GridInfo(other, tables)
    info = tables.grid(first)
    assert info.grid is first and info.shown == first.cards
    for v in views:
        for grid in v.grids:
            info = tables.grid(grid)
            assert info.grid is grid and info.shown == grid.visible
            assert tables.grid(grid) is info


def test_the_tables_of_a_variant_are_its_own_and_go_with_clear_caches() -> None:
    other = STD.replace(rows=2, cols=3)
    kept = bot_tables.tables_of(STD)
    for _ in range(2):
        assert bot_tables.tables_of(other).variant is other
        assert bot_tables.tables_of(STD) is kept
    caches.clear_caches()
    assert bot_tables.tables_of(STD) is not kept and bot_tables.tables_of(STD).variant is STD


def _first_of_each_class(p: planner.Planner,
                         moves: list[tuple[ar.Action, int, int]]) -> list[tuple[int, int, int]]:
    """`Planner.classes_of` the long way: each column and class at its first move, in move order."""
    out, seen = [], set()
    for at, (_, row, col) in enumerate(moves):
        c = p.mine[col].row_class[row]  # type: ignore[union-attr]
        if (col, c) not in seen:
            seen.add((col, c))
            out.append((at, col, c))
    return out


def test_the_classes_kept_on_a_grid_are_each_class_at_its_first_move() -> None:
    """`GridInfo.placings` (kept by the column shapes) is what walking the moves finds, for the
    takes and places of real views, swallowed columns included."""
    checked = swallowed = 0
    for v in _views(STD, 6, 31):
        if v.phase is ar.Phase.OPENING:
            continue
        p = planner.Planner(CountingBot(), v)  # type: ignore[arg-type]
        layout = p.tables.layout(v.legal_actions)
        for moves, spaces in ((layout.takes, layout.take_spaces), (layout.places, layout.place_spaces)):
            if moves:
                assert spaces == p.info.remaining
                assert p.classes_of(moves, spaces) == _first_of_each_class(p, moves)
                checked += 1
                swallowed += None in p.mine
    assert checked > 300 and swallowed > 5


def test_the_draws_value_asks_the_model_for_what_every_list_gives() -> None:
    """Without a closer risk or a hurry the draw's value takes the value-by-value best from
    `Model.best_scores`: it equals the best of every class's list (`_adjusted_bests`)."""
    checked = 0
    for v in _views(STD, 6, 32):
        if v.phase is not ar.Phase.TURN:
            continue
        for bot in (GreedyBot(), CountingBot()):
            p = planner.Planner(bot, v)  # type: ignore[arg-type]
            if p.hurry or p.my_hidden == 1:
                continue
            feed = p.feed_costs() if bot.feed_weight else None
            assert p.model.best_scores(p.mine, feed) == p._adjusted_bests(feed)
            checked += 1
    assert checked > 100
