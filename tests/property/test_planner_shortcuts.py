"""Every shortcut of the bots' planner decides as the full Planner does, whatever the bot's settings.

`planner.choose` decides the common cases by look-ups and kept scores (GreedyBot's turns,
CountingBot's turns without closer risk, opening flips), and `Planner.best_place` finds the
best move column by column (`_best_gain`, `_one_down`). Each states the settings under which
it equals scoring every action the long way and checks them. Here bots with random settings
(subclasses of the built-in bots, as users write them) choose in random positions, and every
decision is compared with a Planner that takes no shortcut at all.
"""

from __future__ import annotations

from functools import cache

import pytest
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
    "closing_margin": st.sampled_from([0.0, 1.0]) | st.floats(-5, 5, allow_nan=False),
    "take_threshold": st.sampled_from([1.0, 0.0]) | st.floats(-5, 5, allow_nan=False),
    "flip_bonus": st.sampled_from([0.5, 0.0]) | st.floats(-5, 5, allow_nan=False),
    "patience": st.sampled_from([30, 0, 1]) | st.integers(0, 40),
})


def bot_of(base: type, knobs: dict[str, object]) -> object:
    """A subclass of a built-in bot with these settings (class attributes, as `_ModelBot` reads them)."""
    return type(f"Custom{base.__name__}", (base,), dict(knobs))()


@settings(max_examples=150, deadline=None)
@given(knobs=SETTINGS, base=st.sampled_from([GreedyBot, CountingBot]),
       variant=st.integers(0, len(VARIANTS) - 1), game=st.integers(0, 5), pick=st.integers(0, 10**6),
       every=st.booleans())
def test_every_shortcut_decides_as_the_full_planner(knobs: dict[str, object], base: type, variant: int,
                                                    game: int, pick: int, every: bool) -> None:
    bot = bot_of(base, knobs)
    views = positions(variant, game)
    chosen = views if every else (views[pick % len(views)],)
    for v in chosen:
        fast = planner.choose(bot, v)  # type: ignore[arg-type]
        slow = planner.Planner(bot, v, shortcuts=False).choose()  # type: ignore[arg-type]
        assert fast == slow, (knobs, v.phase, v.turns)


@pytest.mark.parametrize("base", [GreedyBot, CountingBot])
def test_a_greedy_bot_that_weighs_feeding_decides_as_the_full_planner(base: type) -> None:
    # A GreedyBot subclass with feed_weight = 0.5 once took GreedyBot's look-ups, which leave out
    # what a card left on the discard pile feeds the next player.
    bot = bot_of(base, {"feed_weight": 0.5})
    differ = checked = 0
    for game in range(6):
        for v in positions(0, game):
            checked += 1
            slow = planner.Planner(bot, v, shortcuts=False).choose()  # type: ignore[arg-type]
            differ += planner.choose(bot, v) != slow  # type: ignore[arg-type]
    assert checked > 500 and differ == 0
