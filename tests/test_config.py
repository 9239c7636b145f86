"""Variants: fields, presets, validation (spec section 10)."""

from __future__ import annotations

from typing import Any

import pytest

import abyss_rules as ar
from abyss_rules.cards import STANDARD_DECK
from abyss_rules.codec import variant_from_dict, variant_to_dict, view_to_dict
from abyss_rules.config import FIELD_NAMES, variant_fields

SPEC_FIELDS = (
    "name", "deck", "rows", "cols", "min_players", "max_players", "initial_flips", "opener", "flip_turn",
    "swallow_on_final_reveal", "reshuffle_keeps_top", "closer_multiplier", "target_score", "max_rounds",
    "max_turns_per_round",
)


@pytest.mark.rule("10.1")
def test_fields_are_exactly_those_of_the_spec() -> None:
    assert FIELD_NAMES == SPEC_FIELDS


@pytest.mark.rule("10.1")
def test_defaults() -> None:
    v = ar.Variant()
    assert (v.name, v.deck, v.rows, v.cols) == ("standard", STANDARD_DECK, 3, 4)
    assert (v.min_players, v.max_players, v.initial_flips) == (2, 8, 2)
    assert v.opener is ar.Opener.HIGHEST_FLIPS and v.opener == "highest_flips"
    assert (v.flip_turn, v.swallow_on_final_reveal, v.reshuffle_keeps_top) == (True, True, True)
    assert (v.closer_multiplier, v.target_score, v.max_rounds, v.max_turns_per_round) == (2, 100, None, None)
    assert v.cells == 12


@pytest.mark.rule("10.2")
def test_presets() -> None:
    assert ar.Variant.standard() == ar.Variant()
    short = ar.Variant.short()
    assert short == ar.Variant().replace(name="short", max_rounds=1)
    assert short.target_score == 100  # ruling 20: kept, it cannot end the game before max_rounds
    long = ar.Variant.long()
    assert long == ar.Variant().replace(name="long", target_score=150)
    assert long.max_rounds is None
    assert ar.Variant.presets() == {"standard": ar.Variant(), "short": short, "long": long}


@pytest.mark.rule("10.2")
def test_presets_are_ordinary_values_any_field_may_change() -> None:
    no_penalty = ar.Variant.short().replace(closer_multiplier=1)
    assert no_penalty.closer_multiplier == 1 and no_penalty.max_rounds == 1
    assert ar.Variant.short().closer_multiplier == 2  # the preset itself is unchanged
    bigger = ar.Variant.long().replace(max_players=10, deck=[[v, 12] for v in range(-2, 13)])
    assert bigger.max_players == 10 and bigger.deck_size == 180
    presets = ar.Variant.presets()
    presets.clear()
    assert "short" in ar.Variant.presets()


@pytest.mark.rule("10.1")
def test_variants_are_hashable_values() -> None:
    a = ar.Variant(rows=2, cols=3)
    b = ar.Variant.standard().replace(rows=2, cols=3)
    assert a == b and hash(a) == hash(b)
    assert a != ar.Variant()
    assert len({a, b, ar.Variant()}) == 2
    with pytest.raises(AttributeError):
        a.rows = 3  # type: ignore[misc]


@pytest.mark.rule("10.1")
def test_accepted_spellings_of_deck_and_opener() -> None:
    v = ar.Variant(deck=[[-2, 5], [-1, 10], [0, 15]] + [[x, 10] for x in range(1, 13)],
                   opener="previous_closer")
    assert v.deck == STANDARD_DECK
    assert v.opener is ar.Opener.PREVIOUS_CLOSER


@pytest.mark.rule("10.1")
def test_variant_fields_are_json_ready_and_round_trip() -> None:
    v = ar.Variant.short().replace(opener="previous_closer", max_turns_per_round=50)
    data = variant_fields(v)
    assert tuple(data) == SPEC_FIELDS
    assert data["deck"][0] == [-2, 5] and all(type(pair) is list for pair in data["deck"])
    assert data["opener"] == "previous_closer" and type(data["opener"]) is str
    assert data["max_rounds"] == 1 and data["max_turns_per_round"] == 50 and data["target_score"] == 100
    assert ar.Variant(**data) == v
    import json

    assert json.loads(json.dumps(data)) == data


@pytest.mark.rule("10.1")
def test_to_dict_is_the_variant_document_as_view_to_dict_is_the_view_document() -> None:
    v = ar.Variant.long().replace(closer_multiplier=3)
    assert v.to_dict() == variant_to_dict(v) == {"format": "variant", "format_version": ar.FORMAT_VERSION,
                                                   "rules_version": ar.RULES_VERSION, **variant_fields(v)}
    assert variant_from_dict(v.to_dict()) == v
    view = ar.view(ar.new_game(2, v, seed=1), 0)
    assert view.to_dict() == view_to_dict(view) and view.to_dict()["format"] == "view"


BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"rows": 1}, "rows"),
    ({"rows": 0}, "rows"),
    ({"rows": "3"}, "rows"),
    ({"rows": True}, "rows"),
    ({"rows": 3.0}, "rows"),
    ({"cols": 0}, "cols"),
    ({"cols": -4}, "cols"),
    ({"cols": False}, "cols"),
    ({"min_players": 0}, "min_players"),
    ({"min_players": -1}, "min_players"),
    ({"max_players": 0}, "max_players"),
    ({"max_players": True}, "max_players"),
    ({"min_players": 5, "max_players": 4}, "min_players"),
    ({"initial_flips": -1}, "initial_flips"),
    ({"initial_flips": 12}, "initial_flips"),
    ({"initial_flips": True}, "initial_flips"),
    ({"initial_flips": None}, "initial_flips"),
    ({"opener": "winner"}, "opener"),
    ({"opener": None}, "opener"),
    ({"flip_turn": 1}, "flip_turn"),
    ({"flip_turn": "true"}, "flip_turn"),
    ({"swallow_on_final_reveal": None}, "swallow_on_final_reveal"),
    ({"reshuffle_keeps_top": 0}, "reshuffle_keeps_top"),
    ({"closer_multiplier": 0}, "closer_multiplier"),
    ({"closer_multiplier": -2}, "closer_multiplier"),
    ({"closer_multiplier": True}, "closer_multiplier"),
    ({"closer_multiplier": 1.5}, "closer_multiplier"),
    ({"target_score": 0}, "target_score"),
    ({"target_score": True}, "target_score"),
    ({"target_score": "100"}, "target_score"),
    ({"max_rounds": 0}, "max_rounds"),
    ({"max_rounds": -1}, "max_rounds"),
    ({"max_turns_per_round": 0}, "max_turns_per_round"),
    ({"max_turns_per_round": False}, "max_turns_per_round"),
    ({"target_score": None, "max_rounds": None}, "target_score"),
    ({"name": 5}, "name"),
    ({"name": ""}, "name"),
    ({"name": "\ud800"}, "name"),  # a lone surrogate: no document can hold it
    ({"name": "abyss \udfff"}, "name"),
    ({"deck": []}, "deck"),
    ({"deck": "150 cards"}, "deck"),
    ({"deck": None}, "deck"),
    ({"deck": [[0, 200], [1, 0]]}, "deck"),
    ({"deck": [[0, 200], [1, -3]]}, "deck"),
    ({"deck": [[0, 200], [0, 5]]}, "deck"),
    ({"deck": [[5, 100], [0, 100]]}, "deck"),
    ({"deck": [[True, 200]]}, "deck"),
    ({"deck": [[0.5, 200]]}, "deck"),
    ({"deck": [[0, True], [1, 200]]}, "deck"),
    ({"deck": [[0, 1, 2]]}, "deck"),
    ({"deck": (1, 2)}, "deck"),  # a tuple of values, not of pairs
    ({"deck": ((1, 2, 3),)}, "deck"),
    ({"deck": ((0, 200), (1,))}, "deck"),
    ({"deck": ((0, 200), None)}, "deck"),
    ({"deck": [[0, 97]]}, "deck"),  # 8 players x 12 + 2 = 98 cards needed
]


@pytest.mark.rule("10.3")
@pytest.mark.parametrize(("changes", "field"), BAD_FIELDS, ids=[repr(c) for c, _ in BAD_FIELDS])
def test_every_bad_field_is_refused_naming_it(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ar.ConfigError) as caught:
        ar.Variant(**changes)
    error = caught.value
    assert error.code == ar.Code.INVALID_VARIANT == "invalid_variant"
    assert error.rule == "10.3"
    assert field in error.message
    with pytest.raises(ar.ConfigError) as again:  # replace() validates the same way
        ar.Variant.standard().replace(**changes)
    assert again.value.code == "invalid_variant" and field in again.value.message


@pytest.mark.rule("10.3")
def test_unknown_field_in_replace_is_refused_naming_it() -> None:
    with pytest.raises(ar.ConfigError) as caught:
        ar.Variant.standard().replace(rowz=3)
    assert caught.value.code == "invalid_variant" and "rowz" in caught.value.message
    assert caught.value.rule == "10.3"


@pytest.mark.rule("10.3")
def test_deck_size_limit_is_max_players_times_grid_plus_two() -> None:
    # The spec's example: 4 x 5 needs 8 * 20 + 2 = 162 cards > 150; with 7 players 142 is enough.
    with pytest.raises(ar.ConfigError) as caught:
        ar.Variant(rows=4, cols=5)
    assert "deck" in caught.value.message and "162" in caught.value.message
    assert ar.Variant(rows=4, cols=5, max_players=7).cells == 20
    # exactly at the limit is fine, one card less is not
    assert ar.Variant(deck=[[0, 50], [1, 48]]).deck_size == 98
    with pytest.raises(ar.ConfigError):
        ar.Variant(deck=[[0, 50], [1, 47]])


@pytest.mark.rule("10.3")
def test_limits_that_are_accepted() -> None:
    assert ar.Variant(rows=2, cols=1, max_players=2, initial_flips=1, deck=[[0, 6]]).cells == 2
    assert ar.Variant(initial_flips=0).initial_flips == 0
    assert ar.Variant(initial_flips=11).initial_flips == 11
    assert ar.Variant(min_players=1, max_players=1).min_players == 1
    assert ar.Variant(closer_multiplier=1).closer_multiplier == 1
    assert ar.Variant(target_score=None, max_rounds=3).target_score is None
    assert ar.Variant(max_turns_per_round=1).max_turns_per_round == 1
    assert ar.Variant(deck=[[-5, 100], [1000, 100]]).deck_size == 200


def test_every_function_that_takes_a_variant_reads_it_through_resolve() -> None:
    """A `Variant`, a preset's name or `None` (the standard variant) is accepted alike everywhere,
    and anything else is refused with the same error."""
    pytest.importorskip("numpy", reason="the 'batch' extra is not installed: pip install -e '.[batch]'")
    from abyss_rules.action_space import ActionSpace
    from abyss_rules.batch import Batch, Observation

    takers = {
        "new_game": lambda v: ar.new_game(2, v, seed=1).variant,
        "Batch.new": lambda v: Batch.new(2, v, seeds=[1]).variant,
        "ActionSpace": lambda v: ActionSpace(v).variant,
        "Observation": lambda v: Observation(v, 2).variant,
    }
    for name, take in takers.items():
        assert take("short") is ar.Variant.short(), name
        assert take(None) is ar.Variant.standard(), name
        custom = ar.Variant(rows=2, cols=3)
        assert take(custom) is custom, name
        for bad in (3, b"short", ["short"]):
            with pytest.raises(ar.ConfigError) as caught:
                take(bad)
            assert caught.value.code == "invalid_variant", name
            assert f"a preset's name, got {type(bad).__name__}" in str(caught.value), name
        with pytest.raises(ar.ConfigError, match="no preset is called 'quick'"):
            take("quick")
