"""The fast paths of the codec give exactly the results of the general ones.

`dumps_state` spells canonical text directly (the `text` function generated from the
layout `STATE`) and falls back to `json` for values it does not spell; `loads_state` reads
canonical text directly (`read_canonical_state`, the generated `read_text`) and falls back to
`json` + `state_from_dict` for anything else, including every refusal. These tests compare
each fast path with the general one it replaces: the same bytes, the same state, the same error code, path and
message.
"""

from __future__ import annotations

import enum
import json
import re
from typing import Any

import attrs
import pytest
from tests.builders import tiny
from tests.test_codec import TAMPERING, canonical, drawn_state, random_game, second_round_state

import abyss_rules as ar
from abyss_rules.codec import _rounds as rounds
from abyss_rules.codec import _state as fast_reader
from abyss_rules.codec import _strict as strict
from abyss_rules.codec import _variant as variant_codec
from abyss_rules.codec import canonical_json, state_from_dict, state_to_dict, view_to_dict
from abyss_rules.codec._variant import variant_text
from abyss_rules.codec._view import VIEW

VARIANTS = [
    (ar.Variant.standard(), 2),
    (ar.Variant.short(), 4),
    (tiny(reshuffle_keeps_top=False, opener="previous_closer"), 3),
    (tiny(initial_flips=0, max_turns_per_round=7, swallow_on_final_reveal=False), 2),
    (tiny(min_players=1, closer_multiplier=1, target_score=None, max_rounds=3), 1),
]


def state_text(state: ar.State) -> str:
    """The text of the writer generated from the state layout (raises where it does not spell)."""
    return fast_reader.STATE.function("text")(state)  # type: ignore[no-any-return]


def view_text(view: ar.View) -> str:
    return VIEW.function("text")(view)  # type: ignore[no-any-return]


def reference_dumps(state: ar.State) -> str:
    """`dumps_state` as `json` writes it: the general path."""
    return canonical(state_to_dict(state))


def general_load(text: str) -> ar.State:
    """`loads_state` without its fast path: `json`, then `state_from_dict`."""
    return state_from_dict(strict.parse(text))


def outcome(load: Any, text: str) -> tuple[str, Any]:
    try:
        return "state", load(text)
    except ar.DecodeError as error:
        return "error", (error.code, error.path, error.message, error.rule)


def assert_same_outcome(text: str) -> tuple[str, Any]:
    """`loads_state(text)` gives what the general path gives: an equal state or the same error."""
    fast, general = outcome(ar.loads_state, text), outcome(general_load, text)
    assert fast == general, text
    return fast


def whole_games() -> list[ar.State]:
    return [state for variant, players in VARIANTS for seed in range(2)
            for state in random_game(variant, players, seed)]


# -- writing ---------------------------------------------------------------------------------

@pytest.mark.rule("1.1", "4.1", "6.6")
def test_the_direct_writer_spells_every_state_as_json_does() -> None:
    states = whole_games()
    assert any(state.swallowed_mask for state in states) and any(state.history for state in states)
    for state in states:
        text = ar.dumps_state(state)
        assert text == reference_dumps(state)
        # the direct writer wrote it (no fallback to json)
        assert text == state_text(state)


class Seat(enum.IntEnum):
    ONE = 1


@pytest.mark.parametrize("change", [
    {"draw_pile": "bool"}, {"discard_pile": "float"}, {"totals": "intenum"}, {"drawn": True},
    {"round": 2.0}, {"closer": False}, {"turns": Seat.ONE}, {"opening": "bool"},
])
def test_values_the_direct_writer_does_not_spell_are_written_by_json(change: dict[str, Any]) -> None:
    # Only hand-made states hold these; whatever json makes of them is still what dumps_state writes.
    state = second_round_state()
    field, how = next(iter(change.items()))
    value = getattr(state, field)
    if how == "bool":
        value = (True, *value[1:]) if field != "opening" else ((True,), *value[1:])
    elif how == "float":
        value = (float(value[0]), *value[1:])
    elif how == "intenum":
        value = (Seat.ONE, *value[1:])
    else:
        value = how
    odd = state._replace(**{field: value})
    with pytest.raises((ValueError, LookupError, TypeError)):
        state_text(odd)
    assert ar.dumps_state(odd) == reference_dumps(odd)


def test_large_numbers_are_spelled_directly() -> None:
    state = second_round_state()
    odd = state._replace(seq=10 ** 20, turns=5000, round=-7,
                         draw_pile=(10 ** 6, 2100, -2500, *state.draw_pile))
    assert ar.dumps_state(odd) == reference_dumps(odd)
    assert '"seq":100000000000000000000,' in state_text(odd)
    assert '"draw_pile":[1000000,2100,-2500,' in state_text(odd)  # spelled by value, not by position


def test_hand_made_history_values_are_written_by_json_too() -> None:
    state = second_round_state()
    last = state.history[0]
    grid = last.grids[0]
    odd_grid = ar.Grid(rows=grid.rows, cols=grid.cols, cards=grid.cards,
                       face_up=(1, *grid.face_up[1:]),  # type: ignore[arg-type]  # an int for a bool
                       swallowed=grid.swallowed)
    for result in (ar.RoundResult(**{**_fields(last), "penalized": 0}),
                   ar.RoundResult(**{**_fields(last), "raw_scores": (True, *last.raw_scores[1:])}),
                   ar.RoundResult(**{**_fields(last), "grids": (odd_grid, *last.grids[1:])})):
        odd = state._replace(history=(result,))
        assert ar.dumps_state(odd) == reference_dumps(odd)


def _fields(result: ar.RoundResult) -> dict[str, Any]:
    return {name: getattr(result, name) for name in ("round", "grids", "closer", "raw_scores", "scores",
                                                     "penalized", "capped", "turns", "totals")}


# -- reading ---------------------------------------------------------------------------------

@pytest.mark.rule("1.1", "4.1", "6.6")
def test_the_fast_reader_reads_every_canonical_state() -> None:
    for state in whole_games():
        text = ar.dumps_state(state)
        assert fast_reader.read_canonical_state(text) == state
        assert ar.loads_state(text.encode()) == state


@pytest.mark.rule("1.1", "1.2", "2.1", "3.4", "4.1", "6.1", "6.4", "6.5", "7.1", "9.1", "9.6", "10.3")
@pytest.mark.parametrize("name, mutate, code, path", TAMPERING, ids=[case[0] for case in TAMPERING])
def test_each_corruption_in_canonical_text_has_its_code_and_path(
    name: str, mutate: Any, code: str, path: str
) -> None:
    # The tampering cases of test_codec, written canonically so that the fast path sees them first.
    doc = state_to_dict(second_round_state())
    mutate(doc)
    kind, found = assert_same_outcome(canonical(doc))
    assert kind == "error" and found[:2] == (code, path)


def _replace_nth(text: str, old: str, new: str, n: int) -> str:
    start = -1
    for _ in range(n + 1):
        start = text.index(old, start + 1)
    return text[:start] + new + text[start + len(old):]


def _edits(text: str) -> list[tuple[str, str]]:
    """Text-level changes of a canonical state document, each one refused or read the same by both paths."""
    pile_at = text.index('"draw_pile":[') + len('"draw_pile":[')
    pile_end = text.index("]", pile_at)
    pile = text[pile_at:pile_end].split(",")

    def draw_pile_item(i: int, value: str) -> str:
        items = list(pile)
        items[i] = value
        return text[:pile_at] + ",".join(items) + text[pile_end:]

    last = len(pile) - 1
    i = next(i for i in range(last) if pile[i] != pile[i + 1])
    swapped = text[:pile_at] + ",".join([*pile[:i], pile[i + 1], pile[i], *pile[i + 2:]]) + text[pile_end:]
    return [
        ("bad value deep in the draw pile", draw_pile_item(last - 3, "99")),
        ("bool deep in the draw pile", draw_pile_item(last, "true")),
        ("float in the draw pile", draw_pile_item(last - 1, "1.0")),
        ("minus zero in the draw pile", draw_pile_item(last - 2, "-0")),
        ("leading zero", draw_pile_item(5, "07")),
        ("huge number", draw_pile_item(7, "1" + "0" * 30)),
        ("string in the draw pile", draw_pile_item(8, '"3"')),
        ("null in the draw pile", draw_pile_item(9, "null")),
        ("same card, other spelling", draw_pile_item(4, pile[4] + ".0e0")),
        ("two cards swapped (still a deck)", swapped),
        ("space with an unknown card", text.replace('{"card":', '{"card":77', 1)),
        ("space face up and swallowed", _replace_nth(text, '"face_up":false,"swallowed":false',
                                                     '"face_up":true,"swallowed":true', 3)),
        ("space with keys out of order", text.replace('"face_up":false,"swallowed":false',
                                                      '"swallowed":false,"face_up":false', 1)),
        ("space with an extra key", text.replace('"swallowed":false}', '"swallowed":false,"x":1}', 1)),
        ("space with a duplicate key", text.replace('"swallowed":false}',
                                                    '"swallowed":false,"swallowed":false}', 1)),
        ("whitespace", text.replace(",", ", ", 1)),
        ("whitespace at the end", text + " "),
        ("newline in the middle", text.replace('"drawn":', '\n"drawn":', 1)),
        ("escaped phase", re.sub('"phase":"(.)', lambda m: f'"phase":"\\u{ord(m[1]):04x}', text, count=1)),
        ("unknown phase", text.replace('"phase":"', '"phase":"x', 1)),
        ("duplicate top-level key at the end", text[:-1] + ',"seq":0}'),
        ("duplicate key in the variant", text.replace('"cols":', '"cols":4,"cols":', 1)),
        ("variant with whitespace", text.replace('"variant":{', '"variant": {', 1)),
        ("variant of another name", text.replace('"name":"', '"name":"my ', 1)),
        ("variant with a unicode escape", text.replace('"name":"', '"name":"\\u00e9', 1)),
        ("variant truncated", text[:-2] + "}"),
        ("variant followed by more", text[:-1] + ',"zzz":{}}'),
        ("two variant keys", text[:-1].replace(',"variant":', ',"variant":{},"variant":', 1) + "}"),
        ("rules version of another major", text.replace('"rules_version":"1.', '"rules_version":"2.', 1)),
        ("rules version of the same major", text.replace('"rules_version":"1.2.0"',
                                                         '"rules_version":"1.7.3"')),
        ("format version", text.replace('"format_version":1', '"format_version":2', 1)),
        ("seed with a letter too many", text.replace('"seed":"', '"seed":"A', 1)),
        ("seed too short", text.replace('"seed":"0', '"seed":"', 1)),
        ("negative position", text.replace('"position":', '"position":-', 1)),
        ("seq as a string", text.replace('"seq":', '"seq":"', 1).replace(',"totals"', '","totals"', 1)),
        ("turn out of range", text.replace('"turn":', '"turn":9', 1)),
        ("players out of range", text.replace('"players":2', '"players":9', 1)),
        ("one grid short", text.replace('"grids":[[', '"grids":[', 1)),
        ("empty opening list", text.replace('"opening":[', '"opening":[[],', 1)),
        ("nested opening list", text.replace('"opening":[[', '"opening":[[[]],[', 1)),
        ("deck order given", text.replace('"decks":[]', f'"decks":[[{",".join(pile)}]]', 1)),
        ("deck order not a deck", text.replace('"decks":[]', '"decks":[[1,2,3]]', 1)),
        ("round score changed", text.replace('"raw_scores":[', '"raw_scores":[1', 1)),
        ("history round number", text.replace('"round":1,', '"round":2,', 1)),
        ("history flag as a number", re.sub('"penalized":(true|false)', '"penalized":0', text, count=1)),
        ("history key out of order", text.replace('{"capped":false,"closer":', '{"closer":', 1)
         .replace(',"grids":[[{', ',"capped":false,"grids":[[{', 1)),
        ("truncated", text[:-40]),
        ("empty", ""),
        ("not an object", "[" + text + "]"),
    ]


@pytest.mark.rule("1.1", "4.1", "6.4", "8.2", "9.1")
@pytest.mark.parametrize("make", [second_round_state, drawn_state])
def test_text_edits_load_exactly_as_the_general_path_loads_them(make: Any) -> None:
    text = ar.dumps_state(make())
    last = len(make().draw_pile) - 1
    pinned = {  # what these edits have always given (the general path is the reference)
        "bad value deep in the draw pile": ("cards_mismatch", ""),
        "bool deep in the draw pile": ("wrong_type", f"/draw_pile/{last}"),
        "float in the draw pile": ("wrong_type", f"/draw_pile/{last - 1}"),
        "string in the draw pile": ("wrong_type", "/draw_pile/8"),
        "huge number": ("cards_mismatch", ""),
        "space with an unknown card": ("cards_mismatch", "/grids/0/0/card"),
        "space with an extra key": ("unknown_field", "/grids/0/0/x"),
        "space with a duplicate key": ("duplicate_field", ""),
        "duplicate top-level key at the end": ("duplicate_field", ""),
        "whitespace": ("state", None),
        "two cards swapped (still a deck)": ("state", None),
        "escaped phase": ("state", None),
        "unknown phase": ("bad_value", "/phase"),
        "rules version of another major": ("unsupported_version", "/rules_version"),
        "variant of another name": ("state", None),
        "deck order not a deck": ("cards_mismatch", "/dealer/decks/0"),
        "history flag as a number": ("wrong_type", "/history/0/penalized"),
    }
    kinds = set()
    for name, edited in _edits(text):
        assert edited != text, name
        kind, found = assert_same_outcome(edited)
        kinds.add(kind)
        if name in pinned:
            assert (kind, found[:2] if kind == "error" else None) == (
                ("state", None) if pinned[name][0] == "state" else ("error", pinned[name])), name
    assert kinds == {"state", "error"}  # some edits are harmless (a same-major rules version...)


@pytest.mark.rule("4.1", "6.6", "7.1")
def test_a_swallowed_column_and_a_long_history_through_both_paths() -> None:
    states = whole_games()
    swallowed = next(s for s in states if s.swallowed_mask and not s.is_over)
    long_history = max(states, key=lambda s: len(s.history))
    assert len(long_history.history) >= 2
    for state in (swallowed, long_history):
        assert assert_same_outcome(ar.dumps_state(state)) == ("state", state)
    # a swallowed space turned back into a card: the column is half swallowed
    doc = state_to_dict(swallowed)
    seat, space = next((p, s) for p, grid in enumerate(doc["grids"]) for s, sp in enumerate(grid)
                       if sp["swallowed"])
    doc["grids"][seat][space] = {"card": doc["discard_pile"].pop(0), "face_up": True, "swallowed": False}
    kind, error = assert_same_outcome(canonical(doc))
    below = space + swallowed.variant.cols  # the first space of the column still swallowed
    assert (kind, error[:2]) == ("error", ("impossible_state", f"/grids/{seat}/{below}/swallowed"))
    # the last round of a long history with wrong totals
    doc = state_to_dict(long_history)
    n = len(doc["history"]) - 1
    doc["history"][n]["totals"][0] += 1
    kind, error = assert_same_outcome(canonical(doc))
    assert (kind, error[:2]) == ("error", ("impossible_state", f"/history/{n}/totals"))


def test_variants_met_for_the_first_time_are_read_and_remembered() -> None:
    variant = tiny(name="fast path once", closer_multiplier=3)
    state = ar.new_game(2, variant, seed=9)
    text = ar.dumps_state(state)
    variant_codec._VARIANT_OF_TEXT.clear()
    assert ar.loads_state(text) == state
    assert variant_text(variant) in variant_codec._VARIANT_OF_TEXT
    assert ar.loads_state(text) == state
    # an invalid variant is never remembered
    bad = text.replace('"closer_multiplier":3', '"closer_multiplier":0')
    assert assert_same_outcome(bad)[1][0] == "invalid_variant"
    assert len(variant_codec._VARIANT_OF_TEXT) == 1


def test_loading_canonical_text_needs_no_json_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ar.dumps_state(drawn_state())
    ar.loads_state(text)  # the variant is now known by its text

    def refuse(_: str) -> Any:
        raise AssertionError("the general path was taken")

    monkeypatch.setattr(fast_reader, "decode", refuse)
    assert ar.loads_state(text) == drawn_state()
    assert ar.loads_state(json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")).encode())


# -- views -----------------------------------------------------------------------------------

@pytest.mark.rule("8.1", "8.2", "8.3")
def test_the_direct_writer_spells_every_view_as_json_does() -> None:
    for state in whole_games()[::3]:
        for viewer in (None, *range(state.players)):
            v = ar.view(state, viewer)
            text = ar.dumps_view(v)
            assert text == canonical_json(view_to_dict(v))
            assert text == view_text(v)  # written directly, no fallback


def test_hand_made_view_values_are_written_by_json() -> None:
    v = ar.view(second_round_state(), 0)
    odd = attrs.evolve(v, discard_pile=(True, *v.discard_pile[1:]), turn=False)
    with pytest.raises(ValueError):
        view_text(odd)
    assert ar.dumps_view(odd) == canonical_json(view_to_dict(odd))
    assert '"discard_pile":[true' in ar.dumps_view(odd)
    with pytest.raises(TypeError, match="no floats"):  # as before: a canonical document holds no floats
        ar.dumps_view(attrs.evolve(v, totals=(0.5, *v.totals[1:])))
    with pytest.raises(TypeError, match="expected a View"):
        ar.dumps_view(second_round_state())  # type: ignore[arg-type]


# -- the fast reader's pieces ----------------------------------------------------------------

def test_a_history_read_once_is_reused_only_for_the_same_variant_and_players() -> None:
    state = next(s for s in random_game(ar.Variant.standard(), 2, 1) if len(s.history) == 1)
    text = ar.dumps_state(state)
    piece = text[text.index('"history":[') + len('"history":['):text.index('],"opening":[')]
    rounds._HISTORIES.clear()
    first = rounds.history_of_text(piece, "/history", state.variant, 2)
    assert first == state.history and rounds.history_of_text(piece, "/history", state.variant, 2) is first
    with pytest.raises(ValueError):  # checked again for another number of players
        rounds.history_of_text(piece, "/history", state.variant, 3)
    other = state.variant.replace(closer_multiplier=3)
    again = outcome(lambda t: rounds.history_of_text(t, "/history", other, 2), piece)
    assert again[0] == "error" or again[1] is not first
