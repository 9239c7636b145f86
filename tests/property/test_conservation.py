"""Card conservation: no action ever creates, loses or duplicates a card (rules 1.1, 1.4, 4.2, 5.1-5.3, 6.3).

Every state of every game is checked: the non-swallowed grid cards, the draw
pile, the discard pile and the drawn card are exactly the deck as a multiset.
The games cross reshuffles (tiny decks, long games), swallows, final reveals
and new rounds; ``hypothesis.target`` steers generation towards more of them.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import event, given, target
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.testing import Game, check_invariants, games, variants


def cards_in_play(state: ar.State) -> Counter[int]:
    """Grid cards on remaining spaces + draw pile + discard pile + drawn card."""
    gone = state.swallowed_mask
    found = Counter(card for i, card in enumerate(state.cards) if not gone >> i & 1)
    found.update(state.draw_pile)
    found.update(state.discard_pile)
    if state.drawn is not None:
        found[state.drawn] += 1
    return found


def reshuffles(game: Game) -> int:
    return sum(1 for before, action, _ in game.steps() if type(action) is ar.Draw and not before.draw_pile)


@st.composite
def tiny_deck_variants(draw: st.DrawFn) -> ar.Variant:
    """Generated variants whose deck is as small as validation allows, played by every seat, with a far
    target: the draw pile holds one card after the deal, so draws reshuffle again and again."""
    v = draw(variants(presets=False, max_players=3, max_rows=3, max_cols=3))
    cells = v.cells
    needed = v.max_players * cells + 2
    values = [value for value, _ in v.deck][:needed]
    counts = [needed // len(values) + (1 if i < needed % len(values) else 0) for i in range(len(values))]
    return v.replace(
        deck=tuple(zip(values, counts, strict=True)),
        min_players=v.max_players,
        target_score=draw(st.integers(150, 1000)),
        max_rounds=None,
    )


@pytest.mark.rule("1.1", "1.4", "3.3", "3.5", "3.6", "3.8", "4.1", "4.2", "5.1", "5.2", "6.3", "4.3")
@given(games(max_actions=300))
def test_every_action_of_any_game_conserves_the_deck(game: Game) -> None:
    deck = Counter(game.variant.unshuffled_deck)
    for state in game.states:
        assert cards_in_play(state) == deck
        check_invariants(state)
    event(f"rounds finished: {min(len(game.final.history), 3)}+")


@pytest.mark.rule("1.1", "5.1", "5.2", "5.3", "5.4", "9.5")
@given(games(tiny_deck_variants(), max_actions=800))
def test_the_deck_is_conserved_across_many_reshuffles(game: Game) -> None:
    deck = Counter(game.variant.unshuffled_deck)
    count = reshuffles(game)
    target(float(count), label="reshuffles")
    event(f"reshuffles: {'0' if count == 0 else '1-4' if count < 5 else '5+'}")
    for before, action, after in game.steps():
        assert cards_in_play(after) == deck
        if type(action) is ar.Draw and not before.draw_pile:
            old = Counter(before.discard_pile)
            new = Counter(after.draw_pile) + Counter(after.discard_pile) + Counter([after.drawn])
            assert new == old  # the reshuffle uses exactly the discard pile (5.1, 5.2)
            assert len(after.discard_pile) == 1  # the count starts over (5.3)
            if game.variant.reshuffle_keeps_top:
                assert after.discard_pile == before.discard_pile[:1]  # the top stays (5.1)


@pytest.mark.rule("4.1", "4.2", "3.8")
@given(games(finish_rounds=True, max_actions=300))
def test_a_swallowed_column_goes_onto_the_discard_pile_in_order(game: Game) -> None:
    rows = game.variant.rows
    for before, action, after in game.steps():
        if after.round != before.round or after.is_over:
            continue  # the final reveal's swallows: see test_scoring.py
        new = after.swallowed_mask & ~before.swallowed_mask
        if not new:
            continue
        assert new.bit_count() == rows  # one action completes at most one column
        value = after.discard_pile[0]
        assert after.discard_pile[:rows] == (value,) * rows  # the column's cards are on top (4.2)
        below = after.discard_pile[rows:]
        kind = type(action)
        if kind is ar.Flip:
            assert below == before.discard_pile
        elif kind is ar.TakeDiscard:  # the replaced card went on first (3.8, 4.2)
            assert below[1:] == before.discard_pile[1:]
        elif kind is ar.DiscardDrawn:
            assert below == (before.drawn,) + before.discard_pile
        else:
            assert kind is ar.PlaceDrawn and below[1:] == before.discard_pile
