"""The bots' planner (abyss_rules.bots._planner, on _model and _tables): its kept tables and
shortcuts agree with computing afresh."""

from __future__ import annotations

import random

import attrs
import pytest
from tests.builders import mixed_games

import abyss_rules as ar
from abyss_rules import caches
from abyss_rules.bots import COMPILED, CountingBot, GreedyBot
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


@pytest.mark.parametrize("bot", [GreedyBot(), CountingBot()], ids=["greedy", "counting"])
def test_the_column_by_column_shortcut_picks_what_scoring_every_move_picks(bot: object) -> None:
    checked = closing = 0  # (closing: one face-down card, so the closer risk counts)
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
            closing += p.my_hidden == 1 and not hurry and v.closer is None
    assert checked > 200 and closing > 20


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


def test_an_opening_flip_is_the_planners_whatever_flips_are_legal() -> None:
    """The kept flip of a grid decides an opening when it is legal, also among some of the
    face-down spaces only (views with fewer legal flips, made here): the Planner's choice."""
    rng = random.Random(12)
    compared = 0
    for v in _views(STD, 6, 13):
        if v.phase is not ar.Phase.OPENING:
            continue
        for _ in range(4):
            legal = tuple(a for a in v.legal_actions if rng.random() < 0.6) or v.legal_actions[:1]
            narrowed = attrs.evolve(v, legal_actions=legal)
            for bot in (GreedyBot(), CountingBot()):
                tables = bot_tables.tables_of(STD)
                assert planner.choose(bot, narrowed) == planner.Planner(bot, narrowed, tables).choose()
                compared += 1
    assert compared > 100


def test_the_best_take_scores_what_the_draws_value_has_for_the_top_card() -> None:
    """CountingBot's turn reads the best take's score from the draw's per-value best scores
    (`_draw_value`): it is the score of the move `_best_move` finds, bit for bit, with the real
    feed costs and with random ones."""
    tables = bot_tables.tables_of(STD)
    rng = random.Random(8)
    compared = 0
    for v in _views(STD, 4, 9):
        if v.phase is not ar.Phase.TURN or v.top_discard is None:
            continue
        grids = [tables.grid(g) for g in v.grids]
        info, model = grids[v.viewer], tables.unseen_model(v, grids)  # type: ignore[index]
        layout, top = tables.layout(v.legal_actions), tables.index[v.top_discard]
        real = planner._feed_costs(CountingBot(), v, tables, grids, model)
        for feed in [real, [rng.choice([0.0, 0.5, 3.0, 9.0]) for _ in tables.values]]:
            _, bests = planner._draw_value(0.5, model, info, feed)
            move = planner._best_move(layout.takes, layout.take_spaces, info, model, top, feed)
            assert bests is not None and move is not None
            assert bests[top] == move[0]
            compared += 1
    assert compared > 100


def test_the_deck_models_class_gains_kept_on_a_class_are_the_gains_of_each_of_its_columns() -> None:
    """GreedyBot's rows and `Model.gains` read each class's gains from the class
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
                for hidden_only in (False, True):
                    model.best_rows(shape, hidden_only)
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


@attrs.frozen
class _Careful:
    """GreedyBot's knobs with another closing margin: a larger one sees a closer risk more often."""

    closing_margin: float
    counts_cards: bool = False
    feed_weight: float = 0.0
    take_threshold: float = GreedyBot.take_threshold
    flip_bonus: float = GreedyBot.flip_bonus
    patience: int = GreedyBot.patience


def _places_compared(p: planner.Planner, v: ar.View, card: int) -> ar.Action | None:
    """Checks that the best place of `card` (a take or a placement, as `v`'s phase has) is the
    same by the shortcut and by scoring every move, in a hurry or not; the move not in a hurry."""
    layout = p.tables.layout(v.legal_actions)
    moves, spaces = (layout.places, layout.place_spaces) if v.phase is ar.Phase.DRAWN else \
        (layout.takes, layout.take_spaces)
    found = None
    for hurry in (True, False):
        fast = p.best_place(moves, spaces, card, hurry=hurry)
        assert fast == p.best_place(moves, spaces, card, hurry=hurry, shortcut=False)
        found = None if fast is None else fast[1]
    return found


def _on_face_down(p: planner.Planner, action: ar.Action) -> bool:
    return p.info.shown[action.row * p.tables.cols + action.col] is None  # type: ignore[attr-defined]


def test_one_face_down_cards_shortcut_scores_as_every_move_does_whatever_the_closer_risk() -> None:
    """GreedyBot with one face-down card (`Planner._one_down`): the face-down card's score
    against the best face-up gain (`GridInfo.best_face_up`) picks what scoring every move
    picks, with closer risks from none to large (margins and closer multipliers)."""
    met = {True: 0, False: 0}  # (whether the face-down card won, with a closer risk)
    views = [v for v in _views(STD, 16, 21) if v.phase is not ar.Phase.OPENING]
    for multiplier in (2, 3, 50):
        variant = STD.replace(closer_multiplier=multiplier)
        for v in views:
            card = v.drawn if v.phase is ar.Phase.DRAWN else v.top_discard
            if card is None:
                continue
            v = attrs.evolve(v, variant=variant)
            for margin in (-5.0, 0.0, 1.0, 100.0):
                p = planner.Planner(_Careful(margin), v)  # type: ignore[arg-type]
                if p.my_hidden != 1:
                    break
                chosen = _places_compared(p, v, card)
                top, where = p.info.best_space(p.model, p.index[card], False)
                risky = p.closing_cost(p.my_value - top) > 0
                if chosen is not None and p.info.shown[where] is None and risky:
                    met[_on_face_down(p, chosen)] += 1
    assert met[False] > 10, met  # (a real closer risk is rarely small enough for the face-down card)


class _Risky(planner.Planner):
    """A Planner whose closer risk is `RISK` times the score (none in a hurry, as always)."""

    __slots__ = ()
    RISK = 0.0

    def closing_cost(self, my_score: float) -> float:
        return self.RISK * my_score if my_score > 0 and not self.hurry else 0.0


@pytest.mark.skipif(COMPILED, reason="subclasses the Planner, which the compiled module does not allow: "
                                     "the sources' test")
def test_one_face_down_cards_shortcut_scores_as_every_move_does_with_small_closer_risks() -> None:
    """The same with closer risks small enough that either side wins."""
    bot = GreedyBot()
    met = {True: 0, False: 0}
    for v in _views(STD, 16, 21):
        card = v.drawn if v.phase is ar.Phase.DRAWN else v.top_discard
        if v.phase is ar.Phase.OPENING or card is None:
            continue
        for risk in (0.0, 0.002, 0.01, 0.03, 0.1, 0.3, 1.0):
            _Risky.RISK = risk
            p = _Risky(bot, v)  # type: ignore[arg-type]
            if p.my_hidden != 1:
                break
            chosen = _places_compared(p, v, card)
            _, where = p.info.best_space(p.model, p.index[card], False)
            if chosen is not None and risk and not p.hurry and p.info.shown[where] is None:
                met[_on_face_down(p, chosen)] += 1
    assert met[True] > 10 and met[False] > 10, met
