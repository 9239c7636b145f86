"""The codec's layout tables: the functions generated from one table agree.

A toy document (a nested object, a constant header, every simple spelling) is written and read
by the functions `abyss_rules.codec._layout` generates from its one table: the text is what
`json` writes of the data, both readers give back the same value, and the fast ones refuse what
they do not spell. Optional fields and choices are read and written as the documents that
have them need; the generated source is where a traceback looks for it.
"""

from __future__ import annotations

import inspect
import linecache
import traceback
from typing import Any

import attrs
import pytest

from abyss_rules.codec import _layout
from abyss_rules.codec._layout import Choice, Field, Layout, cut
from abyss_rules.codec._spelling import BOOL, INT, INT_LISTS, INTS, OPT_INT, STR, WORD, Const, Items, OffTable
from abyss_rules.codec._strict import (
    canonical_json,
    decode,
    read_bool,
    read_int,
    read_ints,
    read_list,
    read_opt_int,
    read_str,
)
from abyss_rules.errors import DecodeError


@attrs.frozen
class Inner:
    name: str
    count: int


@attrs.frozen
class Thing:
    size: int
    best: int | None
    values: tuple[int, ...]
    flag: bool
    lists: tuple[tuple[int, ...], ...]
    inner: Inner
    tags: tuple[Inner, ...]


def _inner_text(inner: Inner) -> str:
    return canonical_json({"count": inner.count, "name": inner.name})


def _read_tags(value: Any, path: str) -> tuple[Inner, ...]:
    return tuple(
        Inner(read_str(item["name"], f"{path}/{i}/name"), read_int(item["count"], f"{path}/{i}/count"))
        for i, item in enumerate(read_list(value, path))
    )


def _tags_of_text(inside: str) -> Any:
    try:
        return decode(f"[{inside}]")
    except DecodeError:
        raise OffTable from None


def _read_lists(value: Any, path: str) -> tuple[tuple[int, ...], ...]:
    return tuple(read_ints(item, f"{path}/{i}") for i, item in enumerate(read_list(value, path)))


INNER = Layout("test.inner", (
    Field("name", WORD, read_str),
    Field("count", INT, read_int, ("size",)),  # at least the outer `size`: a field read before
), lambda path, name, count: Inner(name, count))

THING = Layout("test.thing", (
    Field("size", INT, read_int),
    Field("best", OPT_INT, read_opt_int),
    Field("values", INTS, read_ints),
    Field("flag", BOOL, read_bool),
    Field("lists", INT_LISTS, _read_lists),
    Field("inner", INNER),
    Field("tags", Items(_inner_text, lambda inner: {"name": inner.name, "count": inner.count}), _read_tags,
          parse_text=_tags_of_text, read_parsed=_read_tags),
), lambda path, **fields: Thing(**fields), document="test.thing")

THINGS = [
    Thing(3, None, (), False, (), Inner("a", 3), ()),
    Thing(0, -7, (1, -2, 2100, -2500, 10**15 - 1), True, ((1, 2), (), (-3,)), Inner("b0", 9),
          (Inner("x", 1),)),
    Thing(-5, 2047, (2048, -512, -513), False, ((0,),), Inner("zz", -5), (Inner("p", 2), Inner("q", -1))),
]


def text(thing: Thing) -> str:
    return THING.function("text")(thing)  # type: ignore[no-any-return]


def read_text(text: str) -> Thing:
    first, last = THING.first_and_last()
    assert text.startswith(first) and text.endswith(last)
    return THING.function("read_text")(text[len(first):-len(last)], "")  # type: ignore[no-any-return]


def read(doc: Any) -> Thing:
    return THING.function("read")(doc, "")  # type: ignore[no-any-return]


@pytest.mark.parametrize("thing", THINGS)
def test_the_generated_writer_writes_what_json_writes_of_the_data(thing: Thing) -> None:
    data = THING.function("data")(thing)
    assert list(data) == ["format", "format_version", "rules_version", "size", "best", "values", "flag",
                          "lists", "inner", "tags"]  # the header, then the table's order
    assert text(thing) == canonical_json(data)


@pytest.mark.parametrize("thing", THINGS)
def test_both_generated_readers_give_the_value_back(thing: Thing) -> None:
    written = text(thing)
    assert read(decode(written)) == thing
    assert read_text(written) == thing


def test_a_reader_checks_with_the_fields_read_before_and_names_the_path() -> None:
    doc = decode(text(THINGS[0]))
    doc["inner"]["count"] = 2  # less than size (3)
    with pytest.raises(DecodeError) as info:
        read(doc)
    assert (info.value.code, info.value.path) == ("bad_value", "/inner/count")
    with pytest.raises(DecodeError) as info:
        read_text(text(THINGS[0]).replace('"count":3', '"count":2'))
    assert (info.value.code, info.value.path) == ("bad_value", "/inner/count")


@pytest.mark.parametrize("odd", [
    {"size": True}, {"best": 1.0}, {"values": (1, False)}, {"flag": 1}, {"lists": ((1,), (True,))},
])
def test_values_the_generated_writer_does_not_spell_raise_off_table(odd: dict[str, Any]) -> None:
    with pytest.raises(OffTable):
        text(attrs.evolve(THINGS[1], **odd))


@pytest.mark.parametrize("edit", [
    lambda t: t.replace(",", ", ", 1),
    lambda t: t.replace('"size":0', '"size":00'),
    lambda t: t.replace('"flag":true', '"flag":1'),
    lambda t: t.replace('"values":[1,', '"values":[1.0,'),
    lambda t: t.replace('"name":"b0"', '"name":"b\\u0030"'),
])
def test_text_the_generated_reader_does_not_read_raises(edit: Any) -> None:
    edited = edit(text(THINGS[1]))
    assert edited != text(THINGS[1])
    with pytest.raises((OffTable, DecodeError, LookupError)):
        read_text(edited)


def test_a_field_read_before_what_it_needs_is_refused_when_generated() -> None:
    backwards = Layout("test.backwards", (
        Field("count", INT, read_int, ("size",)),
        Field("size", INT, read_int),
    ), lambda path, **fields: fields)
    with pytest.raises(ValueError, match="reads 'size' before it is read"):
        backwards.function("read")


def test_cut_finds_each_part_after_the_last() -> None:
    parts = tuple((part, len(part)) for part in (",b:", ",c:"))
    assert cut("1,b:2,c:3,b:4", parts) == ["1", "2", "3,b:4"]
    with pytest.raises(OffTable):
        cut("1,c:2", parts)


# -- the generated code is readable where a traceback looks ------------------------------------


def test_a_traceback_through_generated_code_shows_its_lines() -> None:
    def refuse(path: str, **fields: Any) -> None:
        raise RuntimeError("built")

    failing = Layout("test.failing", (Field("size", INT, read_int),), refuse)
    try:
        failing.function("read")({"size": 3}, "")
    except RuntimeError:
        text = traceback.format_exc()
    assert '<layout test.failing: read>", line' in text
    assert "return b" in text  # the generated line that called build, as linecache gives it


def test_every_generated_function_of_the_codec_has_its_source_in_linecache() -> None:
    # Every kind of document written and read, as a program does: then every function generated
    # so far is looked up where a traceback looks.
    import abyss_rules as ar
    from abyss_rules.protocol import validate

    _layout._GENERATED.clear()
    record = ar.Record.start(variant="short", seed=3)  # one round: a history at the end
    state = record.initial_state()
    while not state.is_over:
        action = ar.legal_actions(state)[-1]
        after, events = ar.apply_with_events(state, action)
        ar.dumps_events(events, action=action, seq=after.seq)
        ar.loads_action(ar.dumps_action(action, seq=state.seq, request_id="r"))
        ar.loads_view(ar.dumps_view(ar.view(state, action.player)))
        validate(state, action).to_json()
        record, state = record.with_actions(action), after
    assert ar.loads_state(ar.dumps_state(state)) == state
    assert ar.Record.from_json(record.with_names(["a", "b"]).to_json()).notation() == record.notation()
    assert ar.loads_variant(ar.dumps_variant(state.variant)) == state.variant
    generated = dict(_layout._GENERATED)
    names = {layout.name for layout, _ in generated}
    assert {"state", "round", "view", "variant", "variant object", "record", "verdict", "events",
            "flip action", "flip action document", "card_revealed event"} <= names, names
    for (layout, which), function in generated.items():
        filename = function.__code__.co_filename
        assert filename == f"<layout {layout.name}: {which}>"
        source = "".join(linecache.getlines(filename))
        assert source.startswith("def generated(") and inspect.getsource(function) == source


# -- optional fields and choices ---------------------------------------------------------------


@attrs.frozen
class Note:
    text: str
    seq: int | None = None


@attrs.frozen
class Tick:
    count: int


NOTE = Layout("test.note", (
    Field("kind", Const("note")),
    Field("text", STR, read_str),
    Field("seq", INT, lambda value, path: None if value is None else read_int(value, path), optional=True),
), lambda path, **fields: Note(**fields))
TICK = Layout("test.tick", (Field("kind", Const("tick")), Field("count", INT, read_int)),
              lambda path, **fields: Tick(**fields))
ENTRY = Choice("test.entry", "kind", ((Note, NOTE), (Tick, TICK)))


def test_an_optional_field_is_written_when_set_and_may_be_absent() -> None:
    assert ENTRY.data(Note("a")) == {"kind": "note", "text": "a"}
    assert ENTRY.data(Note("a", 4)) == {"kind": "note", "text": "a", "seq": 4}
    assert ENTRY.text(Note('"b"', 4)) == r'{"kind":"note","seq":4,"text":"\"b\""}'  # json escapes it
    assert not NOTE.direct and TICK.direct
    for note in (Note("a"), Note("a", 4)):
        assert ENTRY.read(decode(ENTRY.text(note)), "") == note
    assert ENTRY.read({"kind": "note", "text": "a", "seq": None}, "") == Note("a")


@pytest.mark.parametrize("value, code, path", [
    ([], "wrong_type", ""),
    ({"count": 1}, "missing_field", "/kind"),
    ({"kind": 1, "count": 1}, "wrong_type", "/kind"),
    ({"kind": "tock", "count": 1}, "bad_value", "/kind"),
    ({"kind": "tick", "count": 1, "seq": 2}, "unknown_field", "/seq"),  # optional in a note only
    ({"kind": "tick"}, "missing_field", "/count"),
    ({"kind": "note", "text": "a", "seq": "2"}, "wrong_type", "/seq"),
])
def test_a_choice_reads_its_tag_then_the_case_it_names(value: Any, code: str, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        ENTRY.read(value, "")
    assert (info.value.code, info.value.path) == (code, path)
    assert ENTRY.read({"kind": "tick", "count": 2}, "") == Tick(2)
