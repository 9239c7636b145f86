"""The bots' planner scores every legal action, whatever the bot's settings; what it keeps (each
class scored once at its first move, the flip kept on a grid, the model's pruned best scores)
changes no decision.

Bots with random settings (subclasses of the built-in bots, as users write them) in random
positions: the best placement `Planner.best_place` finds is the best of scoring every move
alone, the draw's value is the one from every class's list, and the best take's score read from
the draw's value-by-value bests is the best of scoring every take.
"""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.builders import mixed_games

import abyss_rules as ar
from abyss_rules.bots import CountingBot, GreedyBot
from abyss_rules.bots import _planner as planner

VARIANTS = (ar.Variant.standard(), ar.Variant.standard().replace(rows=2, cols=3, closer_multiplier=3),
            ar.Variant.standard().replace(swallow_on_final_reveal=False, closer_multiplier=1))


@cache
def positions(variant_index: int, game: int) -> tuple[ar.View, ...]:
    """The movers' views of one game between a random and a greedy player."""
    return tuple(v for _, v in mixed_games(VARIANTS[variant_index], 1, 1000 + game))


SETTINGS = st.fixed_dictionaries({
    "counts_cards": st.booleans(),
    "feed_weight": st.sampled_from([0.0, 0.5, 1.0, 0.25]) | st.floats(-2, 2, allow_nan=False),
    "closing_margin": st.sampled_from([0.0, 1.0, 10.0]) | st.floats(-5, 5, allow_nan=False),
    "take_threshold": st.sampled_from([1.0, 0.0]) | st.floats(-5, 5, allow_nan=False),
    "flip_bonus": st.sampled_from([0.5, 2.0, 0.0]) | st.floats(-5, 5, allow_nan=False),
    "patience": st.sampled_from([30, 0, 1]) | st.integers(0, 40),
})


def bot_of(base: type, knobs: dict[str, object]) -> object:
    """A subclass of a built-in bot with these settings (class attributes, as `_ModelBot` reads them)."""
    return type(f"Custom{base.__name__}", (base,), dict(knobs))()


def every_move(p: planner.Planner, moves: list[tuple[ar.Action, int, int]], card: int,
               hurry: bool) -> tuple[float, ar.Action] | None:
    """`Planner.best_place` the long way: each move scored alone, the first best in move order."""
    best = None
    i = p.index[card]
    for a, row, col in moves:
        shape = p.mine[col]
        assert shape is not None
        hidden = shape.column[row] is None
        if hurry and not hidden:
            continue
        c = shape.row_class[row]
        gain = p.model.gains(shape)[c][i]
        score = gain
        if hidden and p.my_hidden == 1:
            score -= p.closing_cost(p.my_value - gain)
        if p.bot.feed_weight:
            gift = shape.classes[c].gift_index[i]
            if gift >= 0:
                score -= p.feed_costs()[gift]
        if best is None or score > best[0]:
            best = (score, a)
    return best


@settings(max_examples=150, deadline=None)
@given(knobs=SETTINGS, base=st.sampled_from([GreedyBot, CountingBot]),
       variant=st.integers(0, len(VARIANTS) - 1), game=st.integers(0, 5), pick=st.integers(0, 10**6),
       every=st.booleans())
def test_the_best_placement_is_the_best_of_scoring_every_move(knobs: dict[str, object], base: type,
                                                               variant: int, game: int, pick: int,
                                                               every: bool) -> None:
    bot = bot_of(base, knobs)
    views = positions(variant, game)
    for v in views if every else (views[pick % len(views)],):
        if v.phase is ar.Phase.OPENING:
            continue
        p = planner.Planner(bot, v)  # type: ignore[arg-type]
        layout = p.tables.layout(v.legal_actions)
        card = v.drawn if v.phase is ar.Phase.DRAWN else v.top_discard
        if card is None:
            continue
        moves, spaces = (layout.places, layout.place_spaces) if v.phase is ar.Phase.DRAWN else \
            (layout.takes, layout.take_spaces)
        for hurry in (False, True):
            assert p.best_place(moves, spaces, card, hurry=hurry) == every_move(p, moves, card, hurry), knobs
        if v.phase is ar.Phase.TURN:
            feed = p.feed_costs() if bot.feed_weight else None  # type: ignore[attr-defined]
            if not p.hurry and p.my_hidden != 1:
                assert p.model.best_scores(p.mine, feed) == p._adjusted_bests(feed), knobs
            # the best take's score read from the draw's bests is the best placement's
            p.draw_value()
            kept = p.kept_take(layout, card)
            if kept is not None:
                found = every_move(p, moves, card, p.hurry)
                assert found is not None and kept == found[0], knobs
