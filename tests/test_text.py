"""Text UTF-8 cannot hold (rule 10.5): refused at the door by every loader and by the protocol,
refused by every writer, and never kept in an error.

A lone surrogate (U+D800 to U+DFFF alone) reaches a Python string from JSON text as the escape
`\\ud800` (valid UTF-8, valid JSON), or from a Python caller as the code point itself. Either
way, no UTF-8 text can hold it: a document that held one could be read and never written back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import abyss_rules as ar
from abyss_rules._text import is_text, shown
from abyss_rules.codec import (
    action_to_dict,
    canonical_json,
    parse_json,
    state_from_dict,
    state_to_dict,
    variant_from_dict,
    view_to_dict,
)
from abyss_rules.protocol import Verdict, judge, read_message, submit, validate
from abyss_rules.public_table import PublicTable, apply_events

pytestmark = pytest.mark.rule("10.5")

STATE = ar.new_game(players=2, seed=4)
LONE = ("\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\uDABC")  # as JSON escapes (text of the document)


def _text(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"))  # ensure_ascii: every lone surrogate as its escape


def _refused(load: Callable[[], object], path: str) -> ar.DecodeError:
    with pytest.raises(ar.DecodeError) as refused:
        load()
    error = refused.value
    assert (error.code, error.path, error.rule) == ("lone_surrogate", path, "10.5"), error
    json.dumps(error.to_dict(), ensure_ascii=False).encode("utf-8")  # the refusal itself is writable
    return error


def test_the_test_of_text() -> None:
    assert is_text("") and is_text("abc") and is_text("é🃏\U0010ffff\ud7ff\ue000")
    for code in (0xD800, 0xDBFF, 0xDC00, 0xDFFF):
        assert not is_text(chr(code)) and not is_text("a" + chr(code) + "é")
    assert shown("a\ud800b") == "a\\ud800b" and shown("é") == "é"


@pytest.mark.parametrize("escape", LONE)
def test_every_loader_refuses_a_lone_surrogate_escape_in_a_value(escape: str) -> None:
    marker = "@@"
    variant = dict(ar.Variant.standard().to_dict(), name=marker)
    action = dict(action_to_dict(ar.Flip(0, 1, 2), seq=0), request_id=marker)
    record = ar.Record.start(seed=1).with_names(["ann", marker]).to_dict()
    for load, doc, path in [(ar.loads_variant, variant, "/name"), (ar.loads_action, action, "/request_id"),
                            (ar.Record.from_json, record, "/names/1"),
                            (parse_json, {"a": [1, {"b": marker}]}, "/a/1/b")]:
        text = _text(doc).replace(marker, f"x{escape}")
        assert text.count(escape) == 1
        _refused(lambda load=load, text=text: load(text), path)  # type: ignore[misc]
        _refused(lambda load=load, text=text: load(text.encode("utf-8")), path)  # type: ignore[misc]


@pytest.mark.parametrize("escape", LONE)
def test_every_loader_refuses_a_lone_surrogate_in_a_field_name(escape: str) -> None:
    view = view_to_dict(ar.view(STATE, 0))
    for load, doc in [(ar.loads_state, state_to_dict(STATE)), (ar.loads_view, view),
                      (ar.loads_variant, ar.Variant.standard().to_dict()),
                      (ar.loads_action, action_to_dict(ar.Draw(0))),
                      (ar.Record.from_json, ar.Record.start(seed=1).to_dict()), (parse_json, {})]:
        text = _text(doc)
        text = "{" + f'"{escape}":1' + ("," if len(text) > 2 else "") + text[1:]
        error = _refused(lambda load=load, text=text: load(text), "")  # type: ignore[misc]
        assert error.message.startswith("a field name holds a lone surrogate")
    nested = _text(view).replace('"grids":[[{', f'"grids":[[{{"{escape}":0,', 1)
    _refused(lambda: ar.loads_view(nested), "/grids/0/0")


def test_a_surrogate_pair_is_one_character_and_text() -> None:
    pair = "\\ud83c\\udccf"  # the escapes of one character, U+1F0CF (a joker)
    variant = ar.loads_variant(_text(ar.Variant.standard().to_dict()).replace('"standard"', f'"{pair}"'))
    assert variant.name == "\U0001f0cf"
    text = ar.dumps_variant(variant)
    assert text.encode("utf-8") and ar.loads_variant(text) == variant
    message = ar.dumps_action(ar.Draw(0))[:-1] + f',"request_id":"{pair}"}}'
    assert read_message(message).request_id == "\U0001f0cf"
    assert parse_json('"\\ud83c\\udccf"') == "\U0001f0cf" and parse_json('"\\\\ud800"') == "\\ud800"


def test_raw_lone_surrogates_in_str_input_are_refused_and_in_bytes_are_not_utf8() -> None:
    _refused(lambda: parse_json('{"a": "x\ud800"}'), "/a")
    _refused(lambda: parse_json('{"\udfff": 1}'), "")
    _refused(lambda: ar.loads_action(ar.dumps_action(ar.Draw(0))[:-1] + ',"request_id":"\ud800"}'),
             "/request_id")
    with pytest.raises(ar.DecodeError) as refused:  # an encoded surrogate is not UTF-8 at all
        parse_json(b'{"a": "\xed\xa0\x80"}')
    assert refused.value.code == "invalid_json"


def test_python_callers_dicts_are_refused_where_their_text_would_be_kept() -> None:
    doc: dict[str, Any] = dict(state_to_dict(STATE))
    doc["\ud800"] = 1
    _refused(lambda: state_from_dict(doc), "")
    variant = dict(ar.Variant.standard().to_dict(), name="a\udc00")
    _refused(lambda: variant_from_dict(variant), "/name")
    message = dict(action_to_dict(ar.Draw(0)), request_id="\ud800")
    _refused(lambda: read_message(message), "/request_id")


def test_the_protocol_answers_a_lone_surrogate_with_a_writable_verdict() -> None:
    for extra in (',"request_id":"\\ud800"', ',"\\ud800":1', ',"request_id":"r\\udc00"'):
        message = ar.dumps_action(ar.Flip(0, 1, 2), seq=0)[:-1] + extra + "}"
        verdict = validate(STATE, message, player=0)
        assert (verdict.code, verdict.http_status, verdict.request_id) == ("lone_surrogate", 400, None)
        assert json.loads(verdict.to_json().encode("utf-8"))["code"] == "lone_surrogate"
        judged, accepted = judge(STATE, message, player=0)
        assert accepted is None and judged == verdict
        _refused(lambda message=message: submit(STATE, message, player=0), verdict.path or "")  # type: ignore[misc]


def test_apply_events_refuses_a_lone_surrogate() -> None:
    after, events = ar.apply_with_events(STATE, ar.Flip(0, 1, 2))
    text = ar.dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq)
    table = PublicTable.from_view(ar.view(STATE, 1))
    _refused(lambda: apply_events(table, text.replace('"card_revealed"', '"card_\\ud800"')), "/events/0/type")


def test_every_writer_refuses_what_it_could_not_write_back() -> None:
    _refused(lambda: ar.dumps_action(ar.Flip(0, 1, 2), request_id="\ud800"), "/request_id")
    _refused(lambda: action_to_dict(ar.Flip(0, 1, 2), request_id="a\udfff"), "/request_id")
    _refused(lambda: canonical_json({"a": [{"b": "\ud800"}]}), "/a/0/b")
    error = _refused(lambda: canonical_json({"a": {"\udc00": 1}}), "/a")
    assert error.message.startswith("a field name")
    _refused(lambda: canonical_json("\ud800"), "")
    for fields in ({"request_id": "\ud800"}, {"message": "x\ud800"}, {"path": "/\udc00"}):
        base: dict[str, Any] = {"legal": False, "code": "bad_value", "rule": None, "message": "m", "seq": 0}
        with pytest.raises(ar.DecodeError) as refused:
            Verdict(**{**base, **fields})
        assert refused.value.code == "lone_surrogate"
    with pytest.raises(ar.ConfigError):
        ar.Variant(name="\ud800")
    with pytest.raises(ar.DecodeError):
        ar.Record.start(seed=1).with_names(["\ud800", "b"])


def test_a_verdict_from_an_error_that_held_a_lone_surrogate_is_writable() -> None:
    error = ar.DecodeError("unknown_field", "unknown field \ud800", "/\ud800")
    verdict = Verdict.from_error(error, 3)
    assert json.loads(verdict.to_json().encode("utf-8"))["path"] == "/\\ud800"
