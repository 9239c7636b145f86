"""A client's table followed from events documents: refusals (the agreement with every view is
checked on whole games in tests/test_events.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import abyss_rules as ar
from abyss_rules.public_table import PublicTable, apply_events


def _first_move() -> tuple[PublicTable, dict[str, object]]:
    state = ar.new_game(players=2, seed=3)
    after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    doc = json.loads(ar.dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq))
    return PublicTable.from_view(ar.view(state)), doc


def test_a_document_applies_once_and_only_in_order() -> None:
    table, doc = _first_move()
    after = apply_events(table, doc)
    assert after.seq == 1 and after.grids[0][6] == (5, True, False)
    assert table.grids[0][6] == (None, False, False)  # immutable: the table it came from is unchanged
    with pytest.raises(ar.DecodeError) as info:
        apply_events(after, doc)  # seq 1 again: the client missed nothing, it applied it twice
    assert (info.value.code, info.value.path) == ("bad_value", "/seq")


@pytest.mark.parametrize("change, path", [
    (lambda d: d["events"][0].update(value="5"), "/events/0"),
    (lambda d: d["events"][0].update(row=9), "/events/0"),
    (lambda d: d["events"][0].update(type="card_teleported"), "/events/0"),
    (lambda d: d["events"][0].pop("seat"), "/events/0"),
    (lambda d: d["events"].append(dict(d["events"][0])), "/events/1"),  # revealed twice
    (lambda d: d["events"].append({"type": "card_drawn", "seat": 0, "value": 3}), None),
    (lambda d: d.update(events="none"), "/events"),
    (lambda d: d.update(format="view"), "/format"),
])
def test_an_event_that_does_not_fit_is_refused(change: object, path: str | None) -> None:
    table, doc = _first_move()
    change(doc)  # type: ignore[operator]
    try:
        apply_events(table, doc)
    except ar.DecodeError as error:
        assert path is None or error.path == path
    else:
        assert path is None  # drawing in the opening is no misfit of the table's facts
    with pytest.raises(TypeError):
        apply_events(table, [object()])  # type: ignore[list-item]


@pytest.mark.parametrize("text", ["2", '"x"', "[1]", "[]", "null", "true"])
def test_text_that_is_not_an_events_document_is_refused(text: str) -> None:
    table, _ = _first_move()
    with pytest.raises(ar.DecodeError) as refused:
        apply_events(table, text)
    assert (refused.value.code, refused.value.path) == ("wrong_type", "")
    assert table.seq == 0


@pytest.mark.parametrize("change, code, path", [
    (lambda d: d.pop("format"), "missing_field", "/format"),
    (lambda d: d.update(format_version=2), "unsupported_version", "/format_version"),
    (lambda d: d.pop("seq"), "missing_field", "/seq"),
    (lambda d: d.pop("action"), "missing_field", "/action"),
    (lambda d: d.update(colour="red"), "unknown_field", "/colour"),
    (lambda d: d.update(action={"type": "fly", "player": 0}), "bad_value", "/action/type"),
    (lambda d: d.update(seq="1"), "wrong_type", "/seq"),
])
def test_a_document_is_checked_like_every_document(change: Any, code: str, path: str) -> None:
    table, doc = _first_move()
    change(doc)
    with pytest.raises(ar.DecodeError) as refused:
        apply_events(table, json.dumps(doc))
    assert (refused.value.code, refused.value.path) == (code, path)


@pytest.mark.parametrize("call", [
    lambda table, doc: apply_events(None, doc),  # type: ignore[arg-type]
    lambda table, doc: apply_events(doc, doc),  # type: ignore[arg-type]
    lambda table, doc: apply_events(table, None),  # type: ignore[arg-type]
    lambda table, doc: apply_events(table, 5),  # type: ignore[arg-type]
    lambda table, doc: apply_events(table, {1, 2}),  # type: ignore[arg-type]
    lambda table, doc: apply_events(table, [object()]),  # type: ignore[list-item]
    lambda table, doc: PublicTable.from_view(None),  # type: ignore[arg-type]
    lambda table, doc: table.agrees_with(doc),
])
def test_an_argument_of_the_wrong_type_is_an_argument_error(call: Any) -> None:
    table, doc = _first_move()
    with pytest.raises(ar.ArgumentError) as refused:
        call(table, doc)
    assert refused.value.code == "invalid_argument" and isinstance(refused.value, TypeError)
