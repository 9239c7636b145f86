"""Cards and decks (spec rule 1.1; the unshuffled order of rule 9.4)."""

from __future__ import annotations

from collections import Counter

import pytest

import abyss_rules as ar
from abyss_rules.cards import STANDARD_DECK, composition_of, unshuffled_deck


@pytest.mark.rule("1.1")
def test_standard_deck_is_the_150_cards_of_the_rulebook() -> None:
    counts = dict(STANDARD_DECK)
    assert counts == {-2: 5, -1: 10, 0: 15, **{v: 10 for v in range(1, 13)}}
    assert sum(counts.values()) == 150


@pytest.mark.rule("1.1", "10.1")
def test_default_variant_plays_the_standard_deck() -> None:
    v = ar.Variant.standard()
    assert v.deck == STANDARD_DECK
    assert v.deck_size == 150
    assert Counter(v.unshuffled_deck) == Counter({-2: 5, -1: 10, 0: 15, **{x: 10 for x in range(1, 13)}})


@pytest.mark.rule("1.1", "9.4")
def test_unshuffled_deck_lists_values_ascending_each_repeated_its_count() -> None:
    deck = unshuffled_deck(STANDARD_DECK)
    assert deck[:6] == (-2, -2, -2, -2, -2, -1)
    assert deck[-2:] == (12, 12)
    assert list(deck) == sorted(deck)
    assert unshuffled_deck(((0, 20), (5, 10))) == (0,) * 20 + (5,) * 10


@pytest.mark.rule("1.1")
def test_composition_of_counts_a_multiset() -> None:
    assert composition_of([3, -2, 3]) == ((-2, 1), (3, 2))
    assert composition_of(unshuffled_deck(STANDARD_DECK)) == STANDARD_DECK
    assert composition_of([]) == ()


@pytest.mark.rule("1.1")
def test_a_custom_deck_is_a_config_field() -> None:
    v = ar.Variant(deck=[[0, 20], [5, 10]], max_players=2)  # the spec's 30-card example
    assert v.deck == ((0, 20), (5, 10))
    assert v.deck_size == 30
    state = ar.new_game(2, v, seed=1)
    assert Counter(state.cards + state.draw_pile + state.discard_pile) == Counter({0: 20, 5: 10})
