"""Game records: exact replay (checked with state hashes), JSON, redaction, tampering."""

from __future__ import annotations

import json
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from tests.builders import deck_order, long_record, tiny

import abyss_rules as ar
from abyss_rules.codec import canonical_json, state_hash, state_to_dict
from abyss_rules.config import variant_fields


def recorded_game(variant: ar.Variant, players: int, seed: int, *, decks: list[list[int]] | None = None,
                  limit: int | None = None) -> tuple[ar.Record, list[ar.State]]:
    """Play a seeded random game, recording it; return the record and every state."""
    rng = random.Random(seed)
    record = ar.Record.start(players, variant, seed, decks=decks)
    state = record.initial_state()
    states = [state]
    while not state.is_over and (limit is None or len(states) <= limit):
        action = rng.choice(ar.legal_actions(state))
        state = ar.apply(state, action)
        record = record.with_actions(action)
        states.append(state)
    return record, states


@pytest.mark.rule("9.1", "9.5", "9.6")
@pytest.mark.parametrize("variant, players", [
    (ar.Variant.standard(), 3),
    (tiny(reshuffle_keeps_top=False, opener="previous_closer"), 2),
    (ar.Variant(name="small deck", deck=((0, 5), (1, 5), (2, 5)), rows=3, cols=2, min_players=1,
                max_players=2, initial_flips=1, max_rounds=3), 2),
])
def test_replay_reproduces_every_state_exactly(variant: ar.Variant, players: int) -> None:
    record, states = recorded_game(variant, players, seed=31)
    assert states[-1].is_over
    hashes = [state_hash(state) for state in states]
    assert [state_hash(state) for state in record.states()] == hashes
    loaded = ar.Record.from_json(record.to_json())
    assert loaded == record
    assert [state_hash(state) for state in loaded.states()] == hashes
    assert loaded.replay() == states[-1]


@pytest.mark.rule("9.6")
def test_explicit_deck_orders_are_recorded() -> None:
    v = tiny()
    first = deck_order(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    record, states = recorded_game(v, 2, seed=5, decks=[first, first[::-1]])
    assert record.decks == (tuple(first), tuple(first[::-1]))
    assert state_to_dict(states[0])["grids"][0][0]["card"] == 1
    doc = record.to_dict()
    assert doc["decks"] == [first, first[::-1]]
    assert ar.Record.from_dict(doc).replay() == states[-1]


def test_record_document_fields() -> None:
    record, _ = recorded_game(ar.Variant.short(), 2, seed=3, limit=10)
    doc = json.loads(record.to_json())
    assert doc == {
        "format": "record", "format_version": 1, "rules_version": ar.RULES_VERSION,
        "variant": variant_fields(ar.Variant.short()), "players": 2, "seed": (3).to_bytes(32, "big").hex(),
        "decks": [], "actions": list(record.notation()), "final_hash": None,
    }
    assert record.to_json() == canonical_json(doc)
    assert ar.Record.from_json(record.to_json()).to_json() == record.to_json()


def test_sealed_records_check_their_final_hash() -> None:
    record, states = recorded_game(tiny(), 2, seed=4, limit=30)
    sealed = record.sealed()
    assert sealed.final_hash == state_hash(states[-1])
    assert ar.Record.from_json(sealed.to_json()).replay() == states[-1]
    assert sealed.with_actions().final_hash is None  # changing the actions drops the hash
    doc = sealed.to_dict()
    doc["final_hash"] = "0" * 64
    with pytest.raises(ar.ReplayError) as info:
        ar.Record.from_dict(doc)
    assert (info.value.code, info.value.path) == ("replay_mismatch", "/final_hash")
    assert ar.Record.from_dict(doc, verify=False).final_hash == "0" * 64


@pytest.mark.rule("10.2")
def test_a_record_starts_from_a_preset_name_as_new_game_does() -> None:
    record = ar.Record.start(2, "short", seed=3)
    assert record.variant is ar.Variant.short()
    assert record.initial_state() == ar.new_game(2, "short", seed=3)
    with pytest.raises(ar.ConfigError) as info:
        ar.Record.start(2, "quick", seed=3)
    assert info.value.code == "invalid_variant"


def test_a_fresh_seed_is_kept_in_the_record() -> None:
    record = ar.Record.start(players=2)
    assert record.seed is not None and len(record.seed) == 32
    assert record.initial_state() == record.initial_state()


@pytest.mark.rule("8.2")
def test_redacted_records_hold_no_secret_and_cannot_be_replayed() -> None:
    record, states = recorded_game(ar.Variant.standard(), 2, seed=77, limit=40)
    public = record.redact()
    assert public.is_redacted and public.seed is None and public.decks is None and public.final_hash is None
    assert public.actions == record.actions
    text = public.to_json()
    assert record.seed is not None and record.seed.hex() not in text
    doc = json.loads(text)
    assert doc["seed"] is None and doc["decks"] is None and doc["final_hash"] is None
    assert ar.Record.from_json(text) == public
    for call in (public.initial_state, public.replay, lambda: list(public.states())):
        with pytest.raises(ar.ReplayError) as info:
            call()
        assert info.value.code == "record_redacted"
    assert record.sealed().redact() == public
    assert public.with_secrets(77) == record
    assert public.with_secrets(77).replay() == states[-1]


@pytest.mark.rule("8.3")
def test_check_views_audits_what_a_player_was_shown() -> None:
    record, states = recorded_game(tiny(), 2, seed=9, limit=25)
    seen = [ar.view(state, 1) for state in states[::3]]
    record.check_views(seen)
    record.check_views([])
    # a server that lied about a deal: the record's seed gives other cards than the player saw
    other = ar.Record(record.variant, record.players, (10).to_bytes(32, "big"), (), record.actions[:4])
    with pytest.raises(ar.ReplayError) as info:
        other.check_views(seen[:2])
    assert info.value.code == "replay_mismatch"
    too_late = ar.view(states[-1], 0)
    with pytest.raises(ar.ReplayError, match="has seq"):
        ar.Record(record.variant, 2, record.seed, (), record.actions[:3]).check_views([too_late])


@pytest.mark.rule("3.2", "9.5")
def test_an_illegal_action_in_a_record_names_its_index() -> None:
    record, _ = recorded_game(tiny(), 2, seed=2, limit=12)
    doc = record.to_dict()
    doc["actions"][7] = "1d" if doc["actions"][7] != "1d" else "0d"
    with pytest.raises(ar.ReplayError) as info:
        ar.Record.from_dict(doc)
    error = info.value
    assert (error.code, error.path, error.index) == ("replay_failed", "/actions/7", 7)
    assert isinstance(error.cause, ar.IllegalActionError)
    assert isinstance(error, ar.DecodeError) and isinstance(error, ValueError)
    assert error.cause.code in error.message


def test_malformed_record_documents() -> None:
    record, _ = recorded_game(tiny(), 2, seed=2, limit=5)
    base = record.to_dict()
    cases: list[tuple[str, object, str, str]] = [
        ("actions", ["0f00", "zz"], "bad_notation", "/actions/1"),
        ("actions", ["0f00", 3], "wrong_type", "/actions/1"),
        ("actions", "0f00", "wrong_type", "/actions"),
        ("seed", "xyz", "bad_value", "/seed"),
        ("seed", None, "impossible_state", "/seed"),
        ("decks", [[1, 2, 3]], "cards_mismatch", "/decks/0"),
        ("players", 7, "bad_value", "/players"),
        ("players", True, "wrong_type", "/players"),
        ("final_hash", "abc", "bad_value", "/final_hash"),
        ("variant", {}, "missing_field", "/variant/closer_multiplier"),
        ("variant", dict(base["variant"], colour="red"), "unknown_field", "/variant/colour"),
    ]
    for field, value, code, path in cases:
        doc = dict(base, **{field: value})
        with pytest.raises(ar.DecodeError) as info:
            ar.Record.from_dict(doc)
        assert (info.value.code, info.value.path) == (code, path), (field, value, info.value)
    redacted_with_hash = dict(base, seed=None, decks=None, final_hash="0" * 64)
    with pytest.raises(ar.DecodeError) as info:
        ar.Record.from_dict(redacted_with_hash)
    assert info.value.code == "impossible_state"
    with pytest.raises(ar.DecodeError) as info:
        ar.Record.from_json('{"format": "record"')
    assert info.value.code == "invalid_json"


def test_the_constructor_checks_its_values() -> None:
    v = tiny()
    seed = bytes(32)
    with pytest.raises(ar.ConfigError):
        ar.Record("standard", 2, seed)  # type: ignore[arg-type]
    with pytest.raises(ar.ConfigError):
        ar.Record(v, 9, seed)
    with pytest.raises(ar.ConfigError):
        ar.Record(v, 2, b"short")
    with pytest.raises(ar.ConfigError):
        ar.Record(v, 2, seed, None)
    with pytest.raises(ar.ConfigError):
        ar.Record(v, 2, seed, [[1, 2]])
    with pytest.raises(ar.MalformedActionError):
        ar.Record(v, 2, seed, (), ["0f00"])  # type: ignore[list-item]
    with pytest.raises(ar.DecodeError):
        ar.Record(v, 2, seed, (), (), "nope")
    with pytest.raises(ar.ConfigError):
        ar.Record(v, 2, None, None, (), "0" * 64)
    with pytest.raises(ar.ConfigError):
        ar.Record.start(players=1)
    assert ar.Record(v, 2, seed, [list(v.unshuffled_deck)]).decks == (v.unshuffled_deck,)


def test_states_stop_at_the_first_illegal_action() -> None:
    record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0), ar.Draw(0), ar.Flip(1, 0, 0))
    states = []
    with pytest.raises(ar.ReplayError) as info:
        for state in record.states():
            states.append(state)
    assert len(states) == 2 and info.value.index == 1
    assert info.value.cause is not None and info.value.cause.code == "wrong_phase"


# -- player names (an optional field of the record document) -------------------------------


def test_names_are_optional_and_absent_records_are_unchanged() -> None:
    record, _ = recorded_game(ar.Variant.short(), 2, seed=5)
    plain = record.sealed().to_json()
    assert "names" not in json.loads(plain)
    assert ar.Record.from_json(plain).names is None
    named = record.with_names(["ann", "greedy"]).sealed()
    doc = json.loads(named.to_json())
    assert doc["names"] == ["ann", "greedy"]
    assert {k: v for k, v in doc.items() if k != "names"} == json.loads(plain)   # nothing else differs
    loaded = ar.Record.from_json(named.to_json())
    assert loaded == named and loaded.names == ("ann", "greedy")
    assert named.redact().names == ("ann", "greedy")          # public: a redacted record keeps them
    assert named.with_names(None).to_json() == plain


def test_names_in_documents_match_the_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[1] / "spec" / "schemas" / "record.schema.json").read_text())
    record, _ = recorded_game(ar.Variant.short(), 3, seed=6)
    for names in (None, ["a", "b", "c"], ["\u00e9l\u00e8ve", "x" * 64, "counting"]):
        jsonschema.validate(json.loads(record.with_names(names).to_json()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**json.loads(record.to_json()), "names": [""]}, schema)


@pytest.mark.parametrize(("names", "code", "path"), [
    (["only one"], "bad_shape", "/names"),
    ("ab", "wrong_type", "/names"),
    (["ann", 3], "wrong_type", "/names/1"),
    (["ann", ""], "bad_value", "/names/1"),
    (["ann", "x" * 65], "bad_value", "/names/1"),
    (["ann", "line\nbreak"], "bad_value", "/names/1"),
    (["ann", "\x1b[31mred"], "bad_value", "/names/1"),
])
def test_bad_names_are_refused_with_a_path(names: object, code: str, path: str) -> None:
    doc = ar.Record.start(seed=1).to_dict()
    doc["names"] = names  # type: ignore[typeddict-item]
    with pytest.raises(ar.DecodeError) as caught:
        ar.Record.from_dict(doc)
    assert caught.value.code == code and caught.value.path == path
    if not isinstance(names, str):
        with pytest.raises(ar.DecodeError):
            ar.Record.start(seed=1).with_names(names)  # type: ignore[arg-type]


@pytest.mark.rule("8.3")
def test_check_views_keeps_one_state_not_every_state() -> None:
    # 2,000 actions of 16 seats and a deck of 1,950 cards: every state holds piles of about a
    # thousand cards. Building them all took tens of megabytes; one state at a time, a few
    # kilobytes, whatever the length of the record.
    record = long_record(2_000, "largest")
    seen = [ar.view(state, 3) for state in record.states() if state.seq % 250 == 0]
    tracemalloc.start()
    try:
        record.check_views(seen)
        record.check_views(reversed(seen))  # views behind the replay: a second replay, one state
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, f"{peak} bytes"


@pytest.mark.rule("8.3")
def test_check_views_reads_views_as_they_come_and_names_the_first_that_differs() -> None:
    record, states = recorded_game(tiny(), 2, seed=9, limit=25)
    seen = [ar.view(state, (0, 1, None)[state.seq % 3]) for state in states]
    record.check_views(seen)
    record.check_views(seen[::-1])
    record.check_views(iter(seen[5:] + seen[:5] + seen[3:4]))  # a generator, out of order, repeated

    def wrong(v: ar.View) -> ar.View:
        return attrs.evolve(v, totals=tuple(t + 1 for t in v.totals))

    for order, first in [([0, 9, 4, 20], 9), ([12, 3, 20, 7], 3), ([20, 2, 11], 2), ([15, 16, 1], 16)]:
        views = [seen[i] for i in order]
        bad = order.index(first)
        views[bad] = wrong(views[bad])
        views[-1] = wrong(views[-1])  # a later view differs too: the first one given is named
        with pytest.raises(ar.ReplayError) as refused:
            record.check_views(views)
        assert refused.value.code == "replay_mismatch"
        assert refused.value.message.startswith(f"view {bad} (seq {first}"), (order, refused.value)
    with pytest.raises(ar.ReplayError, match="view 1 has seq 26"):
        record.check_views([seen[3], attrs.evolve(seen[3], seq=26), wrong(seen[1])])


@pytest.mark.rule("9.5")
def test_check_views_still_replays_the_whole_record() -> None:
    record, states = recorded_game(tiny(), 2, seed=9, limit=25)
    broken = record.with_actions(ar.Flip(0, 9, 9))  # an illegal action at the end
    for views in ([], [ar.view(states[2], 0)], [attrs.evolve(ar.view(states[2], 0), round=9)]):
        with pytest.raises(ar.ReplayError) as refused:
            broken.check_views(views)
        assert refused.value.code == "replay_failed"
    with pytest.raises(ar.ReplayError) as redacted:
        record.redact().check_views([])
    assert redacted.value.code == "record_redacted"


def _views_then_a_number(views: list[ar.View]) -> Iterator[Any]:
    yield from views
    yield 3


@pytest.mark.parametrize("views", [None, 3, "views", [None], [ar.new_game(2, seed=9)]])
def test_check_views_refuses_what_is_not_views(views: Any) -> None:
    record, states = recorded_game(tiny(), 2, seed=9, limit=5)
    with pytest.raises(ar.ArgumentError):
        record.check_views(views)
    with pytest.raises(ar.ArgumentError):
        record.check_views(_views_then_a_number([ar.view(states[1], 0)]))


@pytest.mark.parametrize("call", [
    lambda r: r.redact().with_secrets(1, None),
    lambda r: r.redact().with_secrets(1, 5),
    lambda r: r.redact().with_secrets(1, [5]),
    lambda r: r.redact().with_secrets(1, "abc"),
    lambda r: ar.Record.start(decks=0),
    lambda r: ar.Record.start(decks=[[1, 2]]),
])
def test_deck_orders_of_the_wrong_type_are_config_errors(call: Any) -> None:
    with pytest.raises(ar.ConfigError) as refused:
        call(ar.Record.start(seed=1))
    assert refused.value.code == "invalid_deck_order"
