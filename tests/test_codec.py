"""JSON documents: canonical form, round trips, hashes, schemas, and every way loading refuses input."""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from tests.builders import finish_round, open_round, stacked, tiny

import abyss_rules as ar
from abyss_rules import codec, json_schemas
from abyss_rules.codec import (
    action_from_dict,
    action_to_dict,
    canonical_json,
    events_to_dict,
    parse_json,
    state_from_dict,
    state_hash,
    state_to_dict,
    variant_from_dict,
    variant_to_dict,
    view_from_dict,
    view_to_dict,
)
from abyss_rules.config import variant_fields
from abyss_rules.errors import RULE_OF_CODE
from abyss_rules.protocol import validate

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "spec" / "schemas"


def canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def random_game(variant: ar.Variant, players: int, seed: int, steps: int | None = None) -> list[ar.State]:
    """Every state of a seeded random game (the whole game when ``steps`` is None)."""
    rng = random.Random(seed)
    state = ar.new_game(players, variant, seed)
    states = [state]
    while not state.is_over and (steps is None or len(states) <= steps):
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
        states.append(state)
    return states


def second_round_state() -> ar.State:
    """A standard 2-player state in the turn phase of round 2 (so the history holds a round)."""
    state = finish_round(ar.new_game(2, seed=4))
    state = open_round(state, [[(0, 0), (1, 1)], [(0, 0), (2, 3)]])
    assert state.round == 2 and state.phase is ar.Phase.TURN and len(state.history) == 1
    return state


def drawn_state() -> ar.State:
    state = second_round_state()
    return ar.apply(state, ar.Draw(state.turn))


def decode_error(load: Callable[[Any], object], data: Any) -> codec.DecodeError:
    with pytest.raises(codec.DecodeError) as info:
        load(data)
    error = info.value
    assert isinstance(error, ar.AbyssError) and isinstance(error, ValueError)
    assert error.rule == RULE_OF_CODE[error.code]
    return error


# -- canonical form and round trips ----------------------------------------------------------


def test_canonical_form_is_sorted_compact_utf8_ints_only() -> None:
    state = second_round_state()
    text = ar.dumps_state(state)
    assert text == canonical(json.loads(text))
    assert text == canonical(state_to_dict(state))
    assert ": " not in text and ", " not in text and "\n" not in text
    assert canonical_json({"é": [1, None, True]}) == '{"é":[1,null,true]}'
    with pytest.raises(ar.ArgumentError, match="no floats"):
        canonical_json({"a": [1, {"b": 2.5}]})
    for value in (float("nan"), float("inf"), {"a": float("nan")}, [float("-inf")]):
        with pytest.raises(ar.ArgumentError, match="no floats") as refused:
            canonical_json(value)
        assert refused.value.code == "invalid_argument" and isinstance(refused.value, TypeError)
    for value in ({1, 2}, {"a": object()}, b"bytes", {"a": {1: 2, "b": 3}}):
        with pytest.raises(ar.ArgumentError, match="not JSON-ready"):
            canonical_json(value)
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ar.ArgumentError, match="nests too deep"):
        canonical_json(deep)


def test_every_document_names_its_format_and_versions() -> None:
    state = second_round_state()
    docs = [state_to_dict(state), view_to_dict(ar.view(state, 0)), variant_to_dict(state.variant),
            action_to_dict(ar.Draw(0)), ar.Record.start(seed=1).to_dict(),
            validate(state, ar.Draw(0)).to_dict(),
            events_to_dict((), action=ar.Draw(0), seq=1)]
    kinds = [doc["format"] for doc in docs]
    assert kinds == ["state", "view", "variant", "action", "record", "verdict", "events"]
    for doc in docs:
        assert doc["format_version"] == ar.FORMAT_VERSION == 1
        assert doc["rules_version"] == ar.RULES_VERSION


@pytest.mark.rule("1.1", "1.2", "1.4", "2.1", "3.4", "4.1", "5.1", "6.6", "7.2")
@pytest.mark.parametrize("variant, players", [
    (ar.Variant.standard(), 2),
    (ar.Variant.short(), 4),
    (tiny(reshuffle_keeps_top=False, opener="previous_closer"), 3),
    (tiny(initial_flips=0, max_turns_per_round=7, swallow_on_final_reveal=False), 2),
    (tiny(min_players=1, closer_multiplier=1, target_score=None, max_rounds=3), 1),
])
def test_every_state_of_whole_games_round_trips_to_the_same_bytes(variant: ar.Variant, players: int) -> None:
    for seed in range(3):
        states = random_game(variant, players, seed)
        assert states[-1].is_over
        for state in states:
            text = ar.dumps_state(state)
            loaded = ar.loads_state(text)
            assert loaded == state
            assert ar.dumps_state(loaded) == text
            assert state_from_dict(json.loads(text)) == state
            assert state_hash(loaded) == state_hash(state)


def test_state_document_holds_everything_in_a_readable_form() -> None:
    state = drawn_state()
    doc = state_to_dict(state)
    assert doc["phase"] == "drawn" and doc["turn"] == state.turn and doc["drawn"] == state.drawn
    assert doc["players"] == 2 and len(doc["grids"]) == 2 and len(doc["grids"][0]) == 12
    assert doc["grids"][1][4] == {"card": state.cards[12 + 4], "face_up": bool(state.face_up_mask >> 16 & 1),
                                  "swallowed": False}
    assert doc["draw_pile"] == list(state.draw_pile) and doc["discard_pile"] == list(state.discard_pile)
    assert doc["dealer"] == {"seed": state.dealer.seed.hex(), "position": state.dealer.position, "decks": []}
    assert doc["history"][0]["round"] == 1 and doc["seq"] == state.seq
    assert doc["variant"] == variant_fields(state.variant)


def test_swallowed_spaces_are_null_cards() -> None:
    v = tiny()
    state = stacked(v, 2, grids=[[3, 1, 3, 2], [4, 5, 6, 7]])
    state = open_round(state, [[(0, 0), (1, 0)], [(0, 0), (0, 1)]])  # seat 0's column 0 is 3, 3
    assert state.swallowed_mask == 0b0101
    doc = state_to_dict(state)
    assert doc["grids"][0][0] == {"card": None, "face_up": False, "swallowed": True}
    assert ar.loads_state(ar.dumps_state(state)) == state


def test_explicit_deck_orders_and_int_or_byte_seeds_round_trip() -> None:
    v = tiny()
    order = list(range(10)) * 4 + [-2, -2, -1, -1]
    state = ar.new_game(2, v, bytes(range(32)), decks=[order, order[::-1], order])
    assert ar.loads_state(ar.dumps_state(state)) == state
    assert state_to_dict(state)["dealer"]["decks"] == [order[::-1], order]


@pytest.mark.rule("12.1", "9.2", "9.6", "2.3")
def test_the_state_documents_members_mean_what_rule_12_1_says() -> None:
    v = ar.Variant(name="capped", deck=((0, 20), (1, 20), (2, 4)), rows=2, cols=2, max_players=2,
                   initial_flips=0, max_turns_per_round=1, target_score=None, max_rounds=10)
    first, second = [0, 1] * 20 + [2] * 4, [1, 0] * 20 + [2] * 4
    state = ar.new_game(2, v, 5, decks=[first, second])
    doc = state_to_dict(state)
    # dealer.decks: the orders not yet dealt, the next round's first; the position: words consumed.
    assert doc["dealer"]["decks"] == [second] and doc["dealer"]["position"] == 0
    assert "opener" not in doc and doc["turn"] == 0  # derived: no flips, every seat ties (2.3)
    # seq: the actions applied; a rejected one is not counted.
    with pytest.raises(ar.IllegalActionError):
        ar.apply(state, ar.Draw(1))
    state = ar.apply(state, ar.TakeDiscard(0, 0, 0))  # the cap ends round 1; round 2 from `second`
    doc = state_to_dict(state)
    assert (doc["seq"], doc["round"], doc["dealer"]["decks"], doc["dealer"]["position"]) == (1, 2, [], 0)
    assert [space["card"] for space in doc["grids"][0]] == second[:4]
    state = ar.apply(state, ar.TakeDiscard(0, 0, 0))  # round 3 is shuffled: the stream moves on
    doc = state_to_dict(state)
    assert doc["seq"] == 2 and doc["dealer"]["position"] >= len(v.unshuffled_deck) - 1


def test_state_hash_is_sha256_of_the_canonical_bytes() -> None:
    import hashlib

    state = second_round_state()
    assert state_hash(state) == hashlib.sha256(ar.dumps_state(state).encode("utf-8")).hexdigest()
    after = ar.apply(state, ar.legal_actions(state)[0])
    assert state_hash(after) != state_hash(state)


def test_a_loaded_state_plays_on_exactly_like_the_original() -> None:
    for state in random_game(tiny(reshuffle_keeps_top=False), 3, seed=5):
        loaded = ar.loads_state(ar.dumps_state(state))
        assert ar.legal_actions(loaded) == ar.legal_actions(state)
        for action in ar.legal_actions(state)[:3]:
            assert ar.apply(loaded, action) == ar.apply(state, action)


def test_same_major_rules_version_is_read() -> None:
    state = second_round_state()
    doc = state_to_dict(state)
    doc["rules_version"] = "1.7.3"
    assert state_from_dict(doc) == state
    assert ar.dumps_state(state_from_dict(doc)) == ar.dumps_state(state)  # saved as this version


def test_bytes_input_and_input_types() -> None:
    state = second_round_state()
    text = ar.dumps_state(state)
    assert ar.loads_state(text.encode("utf-8")) == state
    assert ar.loads_state(bytearray(text.encode("utf-8"))) == state
    assert decode_error(ar.loads_state, 42).code == "wrong_type"
    assert decode_error(state_from_dict, [1]).code == "wrong_type"
    with pytest.raises(TypeError):
        ar.dumps_state("not a state")  # type: ignore[arg-type]


# -- variants, actions ------------------------------------------------------------------------


@pytest.mark.rule("10.1", "10.2")
def test_variant_documents() -> None:
    for variant in [*ar.Variant.presets().values(), tiny(opener="previous_closer", max_turns_per_round=9)]:
        text = ar.dumps_variant(variant)
        assert ar.loads_variant(text) == variant
        assert ar.dumps_variant(ar.loads_variant(text)) == text
        assert variant_from_dict(variant_to_dict(variant)) == variant


@pytest.mark.rule("10.3")
def test_variant_documents_are_validated() -> None:
    doc = variant_to_dict(ar.Variant.standard())
    cases: list[tuple[str, Any, str, str]] = [
        ("rows", 1, "invalid_variant", ""),
        ("rows", "3", "wrong_type", "/rows"),
        ("rows", True, "wrong_type", "/rows"),
        ("flip_turn", 1, "wrong_type", "/flip_turn"),
        ("opener", "loudest", "invalid_variant", ""),
        ("target_score", None, "invalid_variant", ""),  # and max_rounds is null: never ends
        ("deck", [[1, 2, 3]], "bad_shape", "/deck/0"),
        ("deck", [[1, True]], "wrong_type", "/deck/0/1"),
        ("deck", {"1": 2}, "wrong_type", "/deck"),
        ("name", ["x"], "wrong_type", "/name"),
        ("name", "\ud800", "lone_surrogate", "/name"),
    ]
    for field, value, code, path in cases:
        bad = dict(doc, **{field: value})
        error = decode_error(variant_from_dict, bad)
        assert (error.code, error.path) == (code, path), (field, value, error)
    missing = dict(doc)
    del missing["cols"]
    assert decode_error(variant_from_dict, missing).path == "/cols"
    error = decode_error(variant_from_dict, dict(doc, rows=1))
    assert error.rule == "10.3" and "rows" in error.message


def test_a_cached_variant_is_never_confused_with_one_of_other_types() -> None:
    doc = variant_to_dict(tiny(closer_multiplier=1))
    assert variant_from_dict(doc).closer_multiplier == 1
    assert decode_error(variant_from_dict, dict(doc, closer_multiplier=True)).code == "wrong_type"
    deck = [[value, count] for value, count in tiny().deck]
    deck[0][0] = -2.0
    assert decode_error(variant_from_dict, dict(doc, deck=deck)).path == "/deck/0/0"


def test_action_documents_round_trip() -> None:
    actions = [ar.Flip(0, 1, 2), ar.TakeDiscard(1, 0, 0), ar.Draw(3), ar.PlaceDrawn(2, 2, 3),
               ar.DiscardDrawn(0, 15, 15)]
    for action in actions:
        text = ar.dumps_action(action)
        assert ar.loads_action(text) == action
        assert action_from_dict(json.loads(text)) == action
        assert ar.dumps_action(ar.loads_action(text)) == text
        assert json.loads(ar.dumps_action(action, seq=7))["seq"] == 7
        assert ar.loads_action(ar.dumps_action(action, seq=7)) == action
    assert action_to_dict(ar.Draw(1)) == {"format": "action", "format_version": 1,
                                             "rules_version": ar.RULES_VERSION, "type": "draw", "player": 1}
    with pytest.raises(ar.MalformedActionError):
        action_to_dict("0f12")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        action_to_dict(ar.Draw(1), seq=-1)


def test_malformed_action_documents() -> None:
    base = action_to_dict(ar.Flip(0, 1, 2))
    cases: list[tuple[dict[str, Any], str, str]] = [
        (dict(base, type="jump"), "bad_value", "/type"),
        (dict(base, type=3), "wrong_type", "/type"),
        ({k: v for k, v in base.items() if k != "type"}, "missing_field", "/type"),
        ({k: v for k, v in base.items() if k != "col"}, "missing_field", "/col"),
        (dict(base, player=True), "wrong_type", "/player"),
        (dict(base, row="1"), "wrong_type", "/row"),
        (dict(base, row=1.0), "wrong_type", "/row"),
        (dict(base, row=2 ** 60), "bad_value", "/row"),
        (dict(base, colour="red"), "unknown_field", "/colour"),
        (dict(base, seq=-1), "bad_value", "/seq"),
        (dict(base, seq="1"), "wrong_type", "/seq"),
        (dict(base, request_id=""), "bad_value", "/request_id"),
        (dict(base, request_id="x" * 65), "bad_value", "/request_id"),
        (dict(base, request_id=1.5), "wrong_type", "/request_id"),
        (dict(base, request_id=-1), "bad_value", "/request_id"),
        (dict(base, format="state"), "wrong_format", "/format"),
        ({**action_to_dict(ar.Draw(0)), "row": 1}, "unknown_field", "/row"),
    ]
    for doc, code, path in cases:
        error = decode_error(action_from_dict, doc)
        assert (error.code, error.path) == (code, path), (doc, error)


# -- tampered state documents -------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        *parents, last = path.strip("/").split("/")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


def _delete(name: str) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        del doc[name]
    return mutate


def _face_down_space(doc: dict[str, Any], seat: int) -> int:
    return next(s for s, space in enumerate(doc["grids"][seat]) if not space["face_up"])


def _swap_card_for_another_value(doc: dict[str, Any]) -> None:
    space = doc["grids"][1][_face_down_space(doc, 1)]
    space["card"] = 12 if space["card"] != 12 else 11


def _drop_draw_card(doc: dict[str, Any]) -> None:
    doc["draw_pile"].pop()


def _face_up_and_swallowed(doc: dict[str, Any]) -> None:
    doc["grids"][0][0] = {"card": None, "face_up": True, "swallowed": True}


def _swallowed_with_card(doc: dict[str, Any]) -> None:
    doc["grids"][0][0] = {"card": 5, "face_up": False, "swallowed": True}


def _half_swallowed_column(doc: dict[str, Any]) -> None:
    card = doc["grids"][0][4]["card"]
    doc["grids"][0][4] = {"card": None, "face_up": False, "swallowed": True}
    doc["discard_pile"].insert(0, card)


def _null_card(doc: dict[str, Any]) -> None:
    card = doc["grids"][1][0]["card"]
    doc["grids"][1][0]["card"] = None
    doc["discard_pile"].insert(0, card)


def _complete_column(doc: dict[str, Any]) -> None:
    # make seat 1's column 3 three face-up 7s, keeping the card count right
    cards = [doc["grids"][1][s]["card"] for s in (3, 7, 11)]
    pool = doc["draw_pile"]
    for s, old in zip((3, 7, 11), cards, strict=True):
        pool.remove(7)
        pool.append(old)
        doc["grids"][1][s] = {"card": 7, "face_up": True, "swallowed": False}


def _extra_opening_flip(doc: dict[str, Any]) -> None:
    doc["opening"][0].append(3)


def _wrong_totals(doc: dict[str, Any]) -> None:
    doc["totals"][0] += 1


def _wrong_raw_score(doc: dict[str, Any]) -> None:
    doc["history"][0]["raw_scores"][0] += 1


def _wrong_scores(doc: dict[str, Any]) -> None:
    doc["history"][0]["scores"][1] += 1


def _bad_deck_order(doc: dict[str, Any]) -> None:
    doc["dealer"]["decks"] = [[0] * 150]


def _closer_with_face_down_cards(doc: dict[str, Any]) -> None:
    doc["closer"] = 1


def _extra_key_in_space(doc: dict[str, Any]) -> None:
    doc["grids"][1][4]["extra"] = 1


def _deep(doc: dict[str, Any]) -> None:
    value: Any = 1
    for _ in range(40):
        value = [value]
    doc["round"] = value


def _deep_unknown(doc: dict[str, Any]) -> None:
    value: Any = {}
    for _ in range(40):
        value = {"a": value}
    doc["zzz"] = value


TAMPERING: list[tuple[str, Mutation, str, str]] = [
    ("unknown field", _set("/extra", 1), "unknown_field", "/extra"),
    ("unknown field in a space", _extra_key_in_space, "unknown_field", "/grids/1/4/extra"),
    ("missing field", _delete("seq"), "missing_field", "/seq"),
    ("missing format", _delete("format"), "missing_field", "/format"),
    ("another format", _set("/format", "view"), "wrong_format", "/format"),
    ("unknown format", _set("/format", "pizza"), "wrong_format", "/format"),
    ("format version", _set("/format_version", 2), "unsupported_version", "/format_version"),
    ("format version type", _set("/format_version", "1"), "wrong_type", "/format_version"),
    ("rules version", _set("/rules_version", "2.0.0"), "unsupported_version", "/rules_version"),
    ("rules version form", _set("/rules_version", "1.0"), "unsupported_version", "/rules_version"),
    ("bool for int", _set("/round", True), "wrong_type", "/round"),
    ("float for int", _set("/round", 2.0), "wrong_type", "/round"),
    ("string card", _set("/grids/1/4/card", "5"), "wrong_type", "/grids/1/4/card"),
    ("int for bool", _set("/grids/0/0/face_up", 1), "wrong_type", "/grids/0/0/face_up"),
    ("space not an object", _set("/grids/0/3", [1, True, False]), "wrong_type", "/grids/0/3"),
    ("too many grids", lambda d: d["grids"].append(d["grids"][0]), "bad_shape", "/grids"),
    ("short grid", lambda d: d["grids"][1].pop(), "bad_shape", "/grids/1"),
    ("totals length", lambda d: d["totals"].append(0), "bad_shape", "/totals"),
    ("opening length", lambda d: d["opening"].pop(), "bad_shape", "/opening"),
    ("card not in the deck", _set("/grids/1/4/card", 99), "cards_mismatch", "/grids/1/4/card"),
    ("card swapped for another", _swap_card_for_another_value, "cards_mismatch", ""),
    ("card lost", _drop_draw_card, "cards_mismatch", ""),
    ("deck order not a permutation", _bad_deck_order, "cards_mismatch", "/dealer/decks/0"),
    ("phase", _set("/phase", "lunch"), "bad_value", "/phase"),
    ("players out of range", _set("/players", 9), "bad_value", "/players"),
    ("turn out of range", _set("/turn", 2), "bad_value", "/turn"),
    ("closer out of range", _set("/closer", -1), "bad_value", "/closer"),
    ("negative seq", _set("/seq", -1), "bad_value", "/seq"),
    ("huge seq", _set("/seq", 2 ** 60), "bad_value", "/seq"),
    ("seed", _set("/dealer/seed", "00ff"), "bad_value", "/dealer/seed"),
    ("seed upper case", _set("/dealer/seed", "AB" * 32), "bad_value", "/dealer/seed"),
    ("position", _set("/dealer/position", -5), "bad_value", "/dealer/position"),
    ("variant", _set("/variant/rows", 1), "invalid_variant", "/variant"),
    ("variant field type", _set("/variant/flip_turn", 0), "wrong_type", "/variant/flip_turn"),
    ("drawn card outside the drawn phase", _set("/drawn", 5), "impossible_state", "/drawn"),
    ("no turn in the turn phase", _set("/turn", None), "impossible_state", "/turn"),
    ("opening flips beyond initial_flips", _extra_opening_flip, "impossible_state", "/opening/0"),
    ("closer with face-down cards", _closer_with_face_down_cards, "impossible_state", "/closer"),
    ("face up and swallowed", _face_up_and_swallowed, "impossible_state", "/grids/0/0"),
    ("swallowed space with a card", _swallowed_with_card, "impossible_state", "/grids/0/0/card"),
    ("column partly swallowed", _half_swallowed_column, "impossible_state", "/grids/0/4/swallowed"),
    ("null card on a space", _null_card, "impossible_state", "/grids/1/0/card"),
    ("complete column not swallowed", _complete_column, "impossible_state", "/grids/1/3"),
    ("totals", _wrong_totals, "impossible_state", "/totals"),
    ("round score", _wrong_raw_score, "impossible_state", "/history/0/raw_scores/0"),
    ("scores", _wrong_scores, "impossible_state", "/history/0/scores"),
    ("round number", _set("/round", 3), "impossible_state", "/history"),
    ("phase game over too early", _set("/phase", "game_over"), "impossible_state", "/history"),
    ("nesting deeper than 32", _deep, "too_deep", "/round"),
    ("deep unknown field", _deep_unknown, "too_deep", "/zzz"),
]


@pytest.mark.rule("1.1", "1.2", "2.1", "3.4", "4.1", "6.1", "6.4", "6.5", "7.1", "9.1", "9.6", "10.3")
@pytest.mark.parametrize("name, mutate, code, path", TAMPERING, ids=[case[0] for case in TAMPERING])
def test_each_corruption_has_its_code_and_path(name: str, mutate: Mutation, code: str, path: str) -> None:
    doc = state_to_dict(second_round_state())
    mutate(doc)
    error = decode_error(state_from_dict, doc)
    assert (error.code, error.path) == (code, path), error
    assert error.to_dict() == {"code": code, "rule": RULE_OF_CODE[code], "message": error.message,
                               "path": path}
    # the same through JSON text
    text = json.dumps(doc)
    again = decode_error(ar.loads_state, text)
    assert (again.code, again.path) == (code, path)


def test_tampering_in_the_drawn_phase_and_at_game_over() -> None:
    state = drawn_state()
    doc = state_to_dict(state)
    doc["drawn"] = None
    doc["discard_pile"].insert(0, state.drawn)  # the card count stays right
    error = decode_error(state_from_dict, doc)
    assert (error.code, error.path) == ("impossible_state", "/drawn")
    over = random_game(ar.Variant.short(), 2, seed=3)[-1]
    doc = state_to_dict(over)
    doc["phase"] = "turn"
    doc["turn"] = 0
    error = decode_error(state_from_dict, doc)
    assert error.code == "impossible_state"
    doc = state_to_dict(over)
    doc["history"][0]["closer"] = None if doc["history"][0]["closer"] is not None else 0
    assert decode_error(state_from_dict, doc).code == "impossible_state"


@pytest.mark.rule("2.1", "2.2")
def test_opening_flip_counts_must_match_the_grids() -> None:
    state = ar.apply(ar.new_game(2, seed=1), ar.Flip(0, 0, 0))
    doc = state_to_dict(state)
    doc["opening"][1] = [doc["grids"][1][0]["card"]]  # a flip recorded but its card still face down
    error = decode_error(state_from_dict, doc)
    assert (error.code, error.path) == ("impossible_state", "/opening/1")
    doc = state_to_dict(state)
    doc["phase"] = "turn"
    doc["turn"] = 0
    assert decode_error(state_from_dict, doc).path == "/opening/0"


def test_text_level_refusals() -> None:
    text = ar.dumps_state(second_round_state())
    cases: list[tuple[Any, str]] = [
        ("{", "invalid_json"),
        ("", "invalid_json"),
        (text.replace('"round":2', '"round":NaN'), "invalid_json"),
        (text.replace('"round":2', '"round":Infinity'), "invalid_json"),
        (b"\xff\xfe" + text.encode(), "invalid_json"),
        (text.replace('"round":2', '"round":2,"round":2'), "duplicate_field"),
        ("[" * 100_000 + "]" * 100_000, "too_deep"),
        (" " * (codec.MAX_DOCUMENT_BYTES + 1), "document_too_large"),
        (b" " * (codec.MAX_DOCUMENT_BYTES + 1), "document_too_large"),
        ("é" * (codec.MAX_DOCUMENT_BYTES // 2 + 1), "document_too_large"),  # bytes, not characters
        ('"a string"', "wrong_type"),
        ("1" * 5000, "invalid_json"),  # an integer too long to convert
    ]
    for data, code in cases:
        assert decode_error(ar.loads_state, data).code == code, (str(data)[:40], code)


def test_the_size_limit_can_be_changed() -> None:
    state = second_round_state()
    text = ar.dumps_state(state)
    assert decode_error(lambda data: ar.loads_state(data, max_bytes=1000), text).code == "document_too_large"
    big = " " * codec.MAX_DOCUMENT_BYTES + text  # JSON allows leading whitespace
    assert decode_error(ar.loads_state, big).code == "document_too_large"
    assert ar.loads_state(big, max_bytes=2 * codec.MAX_DOCUMENT_BYTES) == state
    v = ar.view(state, 0)
    assert decode_error(lambda data: ar.loads_view(data, max_bytes=100), v.to_json()).code == \
        "document_too_large"
    record = ar.Record.start(seed=1)
    with pytest.raises(ar.DecodeError, match="limit is 10"):
        ar.Record.from_json(record.to_json(), max_bytes=10)
    with pytest.raises(TypeError):
        ar.loads_state(text, max_bytes=0)


def test_decode_error_pickles_and_prints_its_path() -> None:
    text = ar.dumps_state(second_round_state())
    error = decode_error(ar.loads_state, text.replace('"round":2', '"round":"2"'))
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is codec.DecodeError
    assert (again.code, again.message, again.path) == (error.code, error.message, error.path)
    assert again.rule is None
    assert str(error).startswith("[wrong_type] /round: ")
    assert "path='/round'" in repr(error)


def test_python_dicts_with_non_string_keys() -> None:
    doc: dict[Any, Any] = state_to_dict(second_round_state())
    doc[3] = "x"
    error = decode_error(state_from_dict, doc)
    assert (error.code, error.path) == ("wrong_type", "")


def test_loading_never_changes_its_input() -> None:
    doc = state_to_dict(second_round_state())
    before = copy.deepcopy(doc)
    state_from_dict(doc)
    assert doc == before


# -- views --------------------------------------------------------------------------------------


def _secret_twin(state: ar.State, rng: random.Random) -> ar.State:
    """A state that differs from ``state`` only in secret information (rule 8.2): the face-down
    cards and the draw pile are dealt again from the same cards, and the dealer is replaced."""
    cells = state.variant.cells
    shown = state.face_up_mask | state.swallowed_mask
    hidden = [i for i in range(state.players * cells) if not shown >> i & 1]
    pool = [state.cards[i] for i in hidden] + list(state.draw_pile)
    rng.shuffle(pool)
    cards = list(state.cards)
    for i in hidden:
        cards[i] = pool.pop()
    twin = state._replace(cards=tuple(cards), draw_pile=tuple(pool),
                          dealer=ar.Dealer(bytes([rng.randrange(256)] * 32), rng.randrange(10_000), ()))
    assert type(twin) is ar.State
    return twin


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_states_differing_only_in_secrets_give_byte_identical_views() -> None:
    rng = random.Random(8)
    checked = 0
    for variant, players in [(ar.Variant.standard(), 3), (tiny(reshuffle_keeps_top=False), 2)]:
        for state in random_game(variant, players, seed=21):
            twin = _secret_twin(state, rng)
            if twin == state:
                continue
            for viewer in (None, *range(players)):
                assert ar.dumps_view(ar.view(twin, viewer)) == ar.dumps_view(ar.view(state, viewer))
            checked += 1
    assert checked > 100


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_views_never_hold_a_face_down_value_or_a_secret() -> None:
    for state in random_game(ar.Variant.standard(), 2, seed=4):
        cells = state.variant.cells
        seed_hex = state.dealer.seed.hex()
        for viewer in (None, 0, 1):
            text = ar.dumps_view(ar.view(state, viewer))
            doc = json.loads(text)
            assert seed_hex not in text
            assert not {"draw_pile", "dealer", "seed", "position", "decks"} & set(doc)
            assert doc["draw_pile_size"] == len(state.draw_pile)
            for p, grid in enumerate(doc["grids"]):
                for s, space in enumerate(grid):
                    i = p * cells + s
                    if state.face_up_mask >> i & 1:
                        assert space == {"card": state.cards[i], "face_up": True, "swallowed": False}
                    else:
                        assert space["card"] is None and space["face_up"] is False
                        assert space["swallowed"] == bool(state.swallowed_mask >> i & 1)


@pytest.mark.rule("8.3")
def test_spectator_and_player_views_differ_only_in_viewer_and_legal_actions() -> None:
    state = second_round_state()
    spectator = view_to_dict(ar.view(state))
    assert spectator["viewer"] is None and spectator["legal_actions"] == []
    mover = view_to_dict(ar.view(state, state.turn))
    assert mover["viewer"] == state.turn
    assert mover["legal_actions"] == [codec._action.action_body(a) for a in ar.legal_actions(state)]
    for key in spectator:
        if key not in ("viewer", "legal_actions"):
            assert spectator[key] == mover[key], key


def test_view_documents_round_trip_and_are_checked() -> None:
    state = drawn_state()
    for viewer in (None, 0, 1):
        v = ar.view(state, viewer)
        assert v.to_json() == ar.dumps_view(v)
        assert v.to_dict() == view_to_dict(v)
        assert ar.loads_view(v.to_json()) == v
        assert ar.dumps_view(ar.loads_view(v.to_json())) == v.to_json()
    doc = view_to_dict(ar.view(state, 0))
    face_down = _face_down_space(doc, 1)
    doc["grids"][1][face_down]["card"] = 3
    error = decode_error(view_from_dict, doc)
    assert (error.code, error.path) == ("impossible_state", f"/grids/1/{face_down}/card")
    doc = view_to_dict(ar.view(state, state.turn))
    doc["viewer"] = 1 - state.turn
    assert decode_error(view_from_dict, doc).code == "impossible_state"
    assert decode_error(ar.loads_view, ar.dumps_state(state)).code == "wrong_format"


# -- schemas --------------------------------------------------------------------------------------

KINDS = ("state", "action", "view", "variant", "record", "verdict", "events")


def _validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_schema_files_are_valid_2020_12_schemas() -> None:
    for kind in KINDS:
        schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["properties"]["format"]["const"] == kind
        _validator(kind)


def test_documents_validate_against_their_schemas() -> None:
    validators = {kind: _validator(kind) for kind in KINDS}
    record = ar.Record.start(players=3, seed=2)
    for variant, players in [(ar.Variant.short(), 3), (tiny(initial_flips=0, max_rounds=2), 2)]:
        rng = random.Random(1)
        state = ar.new_game(players, variant, seed=5)
        record = ar.Record.start(players, variant, seed=5)
        while True:
            if state.seq % 5 == 0 or state.is_over or state.phase is ar.Phase.DRAWN:  # (jsonschema is slow)
                validators["state"].validate(state_to_dict(state))
                validators["view"].validate(view_to_dict(ar.view(state, rng.choice([None, 0]))))
            if state.is_over:
                break
            action = rng.choice(ar.legal_actions(state))
            validators["action"].validate(action_to_dict(action, seq=state.seq))
            validators["verdict"].validate(validate(state, action).to_dict())
            validators["verdict"].validate(validate(state, "0q").to_dict())
            state, events = ar.apply_with_events(state, action)
            validators["events"].validate(events_to_dict(events, action=action, seq=state.seq))
            record = record.with_actions(action)
        validators["variant"].validate(variant_to_dict(variant))
        validators["record"].validate(record.sealed().to_dict())
        validators["record"].validate(record.redact().to_dict())


def test_schemas_refuse_what_loading_refuses_at_the_type_level() -> None:
    validator = _validator("state")
    doc = state_to_dict(second_round_state())
    for name, mutate, code, _ in TAMPERING:
        # (JSON Schema counts 2.0 as an integer; the loaders refuse it, see docs/json.md)
        if code in ("unknown_field", "missing_field", "wrong_type", "wrong_format", "too_deep") \
                and name != "float for int":
            bad = copy.deepcopy(doc)
            mutate(bad)
            assert not validator.is_valid(bad), name


# -- json_schemas.schema and json_schemas.SCHEMAS ---------------------------------------------


def test_the_public_schemas_are_the_spec_files() -> None:
    files = sorted(p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json"))
    assert list(json_schemas.SCHEMAS) == files == sorted(KINDS)
    for kind in json_schemas.SCHEMAS:
        on_disk = json.loads((SCHEMAS / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert json_schemas.schema(kind) == on_disk
    fresh = json_schemas.schema("state")
    fresh["properties"].clear()  # a new object per call: changing one changes no other
    assert json_schemas.schema("state")["properties"]


@pytest.mark.parametrize("name", ["game", "State", "", None, 3])
def test_an_unknown_schema_name_is_wrong_format(name: object) -> None:
    with pytest.raises(ar.DecodeError) as caught:
        json_schemas.schema(name)  # type: ignore[arg-type]
    assert caught.value.code == "wrong_format"


# -- refused at the door ----------------------------------------------------------------------------


@pytest.mark.rule("2.1", "1.2", "1.4", "3.4")
def test_view_documents_get_the_shape_checks_of_a_view() -> None:
    state = drawn_state()
    base = view_to_dict(ar.view(state, state.turn))
    need = state.variant.initial_flips

    def refused(change: Any) -> tuple[str, str]:
        doc = copy.deepcopy(base)
        change(doc)
        error = decode_error(view_from_dict, doc)
        assert decode_error(ar.loads_view, json.dumps(doc)).code == error.code
        return error.code, error.path

    def many_flips(doc: Any) -> None:
        doc["opening"][0] = [5] * 200_000

    def flip_off_the_deck(doc: Any) -> None:
        doc["opening"][1][0] = 99

    def action_off_the_grid(doc: Any, row: int, col: int) -> Any:
        def change(d: Any) -> None:
            d["legal_actions"][0].update(row=row, col=col)
        return change

    def no_discard(doc: Any) -> None:
        doc["discard_pile"] = []

    def no_drawn(doc: Any) -> None:
        doc["drawn"] = None

    def no_turn(doc: Any) -> None:
        doc["turn"] = None

    assert need == 2
    assert refused(many_flips) == ("impossible_state", "/opening/0")
    assert refused(flip_off_the_deck) == ("cards_mismatch", "/opening/1/0")
    assert refused(action_off_the_grid(None, 99, 0)) == ("impossible_state", "/legal_actions/0")
    assert refused(action_off_the_grid(None, 0, -1)) == ("impossible_state", "/legal_actions/0")
    assert refused(no_discard) == ("impossible_state", "/discard_pile")
    assert refused(no_drawn) == ("impossible_state", "/drawn")
    assert refused(no_turn) == ("impossible_state", "/turn")
    # and a view of the opening: no flips of a seat past the variant's count there either
    opening = view_to_dict(ar.view(ar.new_game(2, seed=1), 0))
    opening["opening"][0] = [1, 2, 3]
    assert decode_error(view_from_dict, opening).path == "/opening/0"


@pytest.mark.parametrize("text", ["1e400", "[-1e400]", '{"a": 1.5e999}', "123456789e999999"])
def test_numbers_too_large_for_a_double_are_refused_when_parsed(text: str) -> None:
    error = decode_error(parse_json, text)
    assert error.code == "invalid_json" and "too large" in error.message
    assert decode_error(ar.loads_state, '{"format": "state", "x": ' + text + "}").code == "invalid_json"
    assert parse_json("[1.5e3, -2.5]") == [1500.0, -2.5]  # finite numbers still parse


@pytest.mark.parametrize("action", [ar.Flip(0, 10**100, 0), ar.TakeDiscard(0, 0, -(2**53)), ar.Draw(2**53),
                                    ar.PlaceDrawn(10**5000, 0, 0)])
def test_an_action_a_document_cannot_hold_is_refused_when_written(action: ar.Action) -> None:
    with pytest.raises(ar.MalformedActionError):
        ar.dumps_action(action)
    with pytest.raises(ar.MalformedActionError):
        action_to_dict(action)
    # (the largest a document holds is written and read back)
    edge = type(action)(*(2**53 - 1 for _ in attrs.fields(type(action))))
    assert ar.loads_action(ar.dumps_action(edge)) == edge


@pytest.mark.parametrize("call, error", [
    (lambda: ar.dumps_state(None), ar.InvalidStateError),  # type: ignore[arg-type]
    (lambda: state_to_dict(ar.view(ar.new_game(2, seed=1))), ar.InvalidStateError),  # type: ignore[arg-type]
    (lambda: codec.state_hash("a state"), ar.InvalidStateError),  # type: ignore[arg-type]
    (lambda: ar.dumps_view(ar.new_game(2, seed=1)), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: view_to_dict(None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.dumps_variant("standard"), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: variant_to_dict(None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: variant_fields(None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.dumps_events(None, action=ar.Draw(0), seq=1), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.dumps_events(("x",), action=ar.Draw(0), seq=1), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.dumps_events((), action=ar.Draw(0), seq="1"), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.dumps_events((), action=ar.Draw(0), seq=2**53), ar.ArgumentError),
    (lambda: ar.dumps_events((), action="0d", seq=1), ar.MalformedActionError),  # type: ignore[arg-type]
    (lambda: ar.dumps_action(ar.Draw(0), seq="1"), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: action_to_dict(ar.Draw(0), seq=-1), ar.ArgumentError),
    (lambda: ar.dumps_action("0d"), ar.MalformedActionError),  # type: ignore[arg-type]
    (lambda: ar.dumps_action(ar.Draw(0), request_id=[1]), ar.DecodeError),  # type: ignore[arg-type]
    (lambda: ar.loads_state("{}", max_bytes=0), ar.ArgumentError),
    (lambda: ar.loads_view("{}", max_bytes=None), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: codec.parse_json("{}", max_bytes="1"), ar.ArgumentError),  # type: ignore[arg-type]
    (lambda: ar.Record.from_json("{}", max_bytes=-5), ar.ArgumentError),
])
def test_every_writer_and_loader_refuses_a_bad_argument_with_a_typed_error(call: Any, error: type) -> None:
    with pytest.raises(error) as refused:
        call()
    assert isinstance(refused.value, ar.AbyssError)
    if error is not ar.DecodeError:
        assert isinstance(refused.value, TypeError)  # a wrong type (or range) of a Python argument
