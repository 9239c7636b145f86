"""The TypedDicts of `abyss_rules.documents` against the documents the `*_to_dict` functions write.

Whole games of several variants are played; every document (states, views for each seat and
a spectator, full and redacted records, events, actions, variants) must carry, at every level,
the keys its TypedDict declares: the required keys, perhaps optional ones, nothing else. The
TypedDicts' keys are also compared with the JSON schemas of `spec/schemas/`.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from tests.builders import DOCUMENT_VARIANTS, document_games
from typing_extensions import is_typeddict  # (typing's misses typing_extensions' TypedDicts on 3.11)

import abyss_rules as ar
from abyss_rules import documents, json_schemas
from abyss_rules.codec import action_to_dict, events_to_dict, state_to_dict, variant_to_dict, view_to_dict
from abyss_rules.protocol import Verdict, validate

VARIANTS = DOCUMENT_VARIANTS


def _matches(value: Any, tp: Any, path: str, seen: set[str]) -> None:
    """Check `value` against the type `tp` (keys of TypedDicts exactly; the rest loosely)."""
    if get_origin(tp) is Annotated:  # (ActionDocument: the union, with its Pydantic hooks)
        tp = get_args(tp)[0]
    origin = get_origin(tp)
    if is_typeddict(tp):
        assert type(value) is dict, path
        hints = get_type_hints(tp)
        keys = set(value)
        assert tp.__required_keys__ <= keys, f"{path}: {tp.__name__} misses {tp.__required_keys__ - keys}"
        assert keys <= set(hints), f"{path}: {tp.__name__} does not declare {keys - set(hints)}"
        seen.add(tp.__name__)
        for key, item in value.items():
            _matches(item, hints[key], f"{path}/{key}", seen)
    elif origin in (Union, types.UnionType):
        options = get_args(tp)
        if value is None and type(None) in options:
            return
        dicts = [option for option in options if is_typeddict(option)]
        if dicts and type(value) is dict:  # the member whose Literal `type` names this object
            chosen = [option for option in dicts
                      if value.get("type") in get_args(get_type_hints(option).get("type", Any))]
            assert len(chosen) == 1, f"{path}: no single member of {tp} for {value!r}"
            _matches(value, chosen[0], path, seen)
            return
        rest = [option for option in options if option is not type(None)]
        assert len(rest) == 1, f"{path}: ambiguous {tp}"
        _matches(value, rest[0], path, seen)
    elif origin is list:
        assert type(value) is list, path
        (item_type,) = get_args(tp)
        for n, item in enumerate(value):
            _matches(item, item_type, f"{path}/{n}", seen)
    elif origin is Literal:
        assert value in get_args(tp), f"{path}: {value!r} not in {get_args(tp)}"
    elif tp is bool:
        assert type(value) is bool, path
    elif tp is int:
        assert type(value) is int, path
    elif tp is str:
        assert type(value) is str, path
    else:  # pragma: no cover - a type this checker does not know
        raise AssertionError(f"{path}: unexpected type {tp!r}")


GAMES = document_games()


def test_every_document_has_the_keys_of_its_typeddict() -> None:
    seen: set[str] = set()
    for states, actions, events, record in GAMES:
        for state in states:
            _matches(state_to_dict(state), documents.StateDocument, "state", seen)
            for viewer in (*range(len(state.totals)), None):
                _matches(view_to_dict(ar.view(state, viewer)), documents.ViewDocument, "view", seen)
        for seq, action in enumerate(actions):
            _matches(action_to_dict(action), documents.ActionDocument, "action", seen)
            _matches(action_to_dict(action, seq=seq), documents.ActionDocument, "action", seen)
        for caused, action, seq in events:
            doc = events_to_dict(caused, action=action, seq=seq)
            _matches(doc, documents.EventsDocument, "events", seen)
        _matches(record.to_dict(), documents.RecordDocument, "record", seen)
        _matches(record.redact().to_dict(), documents.RecordDocument, "record", seen)
        _matches(ar.Record.start(seed=1).to_dict(), documents.RecordDocument, "record", seen)
        _matches(variant_to_dict(states[0].variant), documents.VariantDocument, "variant", seen)
        for verdict in (validate(states[0], actions[0]), validate(states[0], "0d"),
                        validate(states[0], '{"format": "action"}'), validate(states[-1], actions[-1])):
            _matches(verdict.to_dict(), documents.VerdictDocument, "verdict", seen)
    every = {name for name in documents.__all__ if is_typeddict(getattr(documents, name))}
    # Every TypedDict was met in these games (so each one's keys were checked against real documents).
    assert every - seen == set()


def test_a_wrong_key_is_caught() -> None:
    doc: Any = variant_to_dict(ar.Variant.short())
    with pytest.raises(AssertionError, match="does not declare"):
        _matches({**doc, "extra": 1}, documents.VariantDocument, "variant", set())
    del doc["deck"]
    with pytest.raises(AssertionError, match="misses"):
        _matches(doc, documents.VariantDocument, "variant", set())


def _schema_objects(schema: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    """The object schemas `node` stands for (following `$ref` and `oneOf`)."""
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/$defs/")
        return _schema_objects(schema, schema["$defs"][name])
    if "oneOf" in node:
        return [found for option in node["oneOf"] for found in _schema_objects(schema, option)]
    if "properties" in node:
        return [node]
    return []


def _typeddicts(tp: Any) -> list[Any]:
    if is_typeddict(tp):
        return [tp]
    if get_origin(tp) is Annotated:
        return _typeddicts(get_args(tp)[0])
    return [found for arg in get_args(tp) for found in _typeddicts(arg)]


def _compare(schema: dict[str, Any], node: Any, tp: Any, path: str) -> None:
    """The objects of `node` and the TypedDicts of `tp`: the same keys, the same required keys."""
    objects = _schema_objects(schema, node)
    dicts = _typeddicts(tp)
    assert len(objects) == len(dicts), f"{path}: {len(objects)} schema objects, {len(dicts)} TypedDicts"
    for obj in objects:
        kinds = obj["properties"].get("type", {})
        names = set(kinds.get("enum", [kinds["const"]] if "const" in kinds else []))
        matching = [d for d in dicts if not names
                    or names == set(get_args(get_type_hints(d)["type"]))]
        assert len(matching) == 1, f"{path}: no single TypedDict for {sorted(names)}"
        hints = get_type_hints(matching[0])
        where = f"{path} ({matching[0].__name__})"
        assert set(obj["properties"]) == set(hints), where
        assert set(obj.get("required", [])) == matching[0].__required_keys__, where
        for key, sub in obj["properties"].items():
            inner = sub.get("items", sub)
            if _schema_objects(schema, inner):
                _compare(schema, inner, hints[key], f"{path}/{key}")


SCHEMA_OF = {
    "state": documents.StateDocument, "view": documents.ViewDocument, "record": documents.RecordDocument,
    "variant": documents.VariantDocument, "action": documents.ActionDocument,
    "events": documents.EventsDocument, "verdict": documents.VerdictDocument,
}


@pytest.mark.parametrize("name", sorted(SCHEMA_OF))
def test_the_typeddicts_declare_the_keys_of_the_schemas(name: str) -> None:
    schema = json_schemas.schema(name)
    _compare(schema, schema, SCHEMA_OF[name], name)


def test_the_typeddicts_live_in_documents_only() -> None:
    # Every document's TypedDict, each event's among them, is imported from abyss_rules.documents;
    # the package itself exports none of them (the event classes are in abyss_rules.events).
    from abyss_rules import events

    typeddicts = {name for name in documents.__all__ if is_typeddict(getattr(documents, name))}
    assert len(typeddicts) == 26 and not set(documents.__all__) & set(ar.__all__)
    for event in events.EVENT_TYPES:
        assert is_typeddict(getattr(documents, f"{event.__name__}Dict")), event
        assert event.__name__ in events.__all__


def test_the_to_dict_functions_are_annotated_with_them() -> None:
    expected = {
        state_to_dict: documents.StateDocument, view_to_dict: documents.ViewDocument,
        variant_to_dict: documents.VariantDocument, action_to_dict: documents.ActionDocument,
        events_to_dict: documents.EventsDocument, ar.Record.to_dict: documents.RecordDocument,
        Verdict.to_dict: documents.VerdictDocument,
    }
    for function, tp in expected.items():
        hints = typing.get_type_hints(function, vars(documents) | vars(ar), include_extras=True)
        assert hints["return"] == tp, function
