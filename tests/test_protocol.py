"""The validation API for servers: verdicts, submit, seat and stale-action checks."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.builders import open_round, stacked, tiny

import abyss_rules as ar
from abyss_rules.codec import action_to_dict, canonical_json
from abyss_rules.errors import RULE_OF_CODE, InvalidStateError
from abyss_rules.json_schemas import schema
from abyss_rules.notation import to_notation
from abyss_rules.protocol import (
    HTTP_STATUS,
    Message,
    Verdict,
    action_documents,
    http_status,
    judge,
    read_action,
    read_message,
    submit,
    validate,
)


def message(action: ar.Action, seq: int | None = None) -> str:
    return ar.dumps_action(action, seq=seq)


def turn_state() -> ar.State:
    state = ar.new_game(2, seed=4)
    return open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])


def test_a_legal_action_in_every_form() -> None:
    state = turn_state()
    action = ar.legal_actions(state)[0]
    forms: list[Any] = [action, message(action), message(action).encode("utf-8"), json.loads(message(action)),
                        to_notation(action), "  " + message(action)]
    for form in forms:
        verdict = validate(state, form)
        assert verdict == Verdict(True, None, None, "legal", state.seq, None)
        accepted = submit(state, form)
        assert accepted.state == ar.apply(state, action) and accepted.action == action
        assert accepted.events == ar.apply_with_events(state, action)[1]
        _, _, decoded = accepted  # a NamedTuple: (state, events, action)
        assert decoded == action


@pytest.mark.rule("3.2", "3.9", "3.10", "1.2", "1.3", "2.2", "7.5")
def test_verdicts_carry_the_rules_code_and_rule() -> None:
    state = turn_state()
    mover, other = state.turn, 1 - state.turn
    opening = ar.new_game(2, seed=4)
    over = ar.new_game(2, ar.Variant.short(), seed=1)
    rng = random.Random(0)
    while not over.is_over:
        over = ar.apply(over, rng.choice(ar.legal_actions(over)))
    cases: list[tuple[ar.State, ar.Action, str]] = [
        (state, ar.Draw(other), "not_your_turn"),
        (state, ar.PlaceDrawn(mover, 0, 0), "wrong_phase"),
        (state, ar.Flip(mover, 0, 0), "space_face_up"),
        (state, ar.Flip(mover, 7, 0), "no_such_space"),
        (state, ar.Draw(5), "no_such_player"),
        (opening, ar.Draw(0), "wrong_phase"),
        (over, ar.Draw(0), "game_over"),
    ]
    for s, action, code in cases:
        for form in (action, message(action), to_notation(action)):
            verdict = validate(s, form)
            assert not verdict.legal and verdict.code == code, (action, verdict)
            assert verdict.rule == RULE_OF_CODE[code] and verdict.seq == s.seq and verdict.path is None
            assert verdict.message == ar.check(s, action).message  # type: ignore[union-attr]
            with pytest.raises(ar.IllegalActionError) as info:
                submit(s, form)
            assert info.value.code == code


def test_malformed_messages_get_decode_codes_and_paths() -> None:
    state = turn_state()
    good = json.loads(message(ar.Draw(state.turn)))
    cases: list[tuple[Any, str, str | None]] = [
        ("{not json", "invalid_json", ""),
        ('{"format":"action","format_version":1,"rules_version":"1.0.0","type":"draw","player":0,"player":1}',
         "duplicate_field", ""),
        (dict(good, player="0"), "wrong_type", "/player"),
        (dict(good, player=True), "wrong_type", "/player"),
        (dict(good, row=1), "unknown_field", "/row"),
        (dict(good, format="view"), "wrong_format", "/format"),
        (dict(good, format_version=2), "unsupported_version", "/format_version"),
        ({"type": "draw", "player": 0}, "missing_field", "/format"),
        ("0F00", "bad_notation", ""),
        (b"\xff\xfe", "bad_notation", ""),
        (42, "wrong_type", ""),
        # JSON that parses but is not an object is not notation gone wrong: it is the wrong type
        ("null", "wrong_type", ""),
        ("[]", "wrong_type", ""),
        ("3", "wrong_type", ""),
        (' "0f00" ', "wrong_type", ""),
        (b"true", "wrong_type", ""),
        (bytearray(b"[0]"), "wrong_type", ""),
        ("0z", "bad_notation", ""),
        (None, "wrong_type", ""),
        ("x" * (2 << 20), "document_too_large", ""),
        ("{" + " " * 100 + '"a":1}', "missing_field", "/format"),
    ]
    for data, code, path in cases:
        verdict = validate(state, data)
        assert (verdict.legal, verdict.code, verdict.path) == (False, code, path), (str(data)[:60], verdict)
        assert verdict.rule is None
        with pytest.raises(ar.DecodeError) as info:
            submit(state, data)
        assert info.value.code == code


def test_seat_mismatch_comes_before_the_rules() -> None:
    state = turn_state()
    mover = state.turn
    legal = ar.legal_actions(state)[0]
    assert validate(state, legal, player=mover).legal
    verdict = validate(state, legal, player=1 - mover)
    assert (verdict.code, verdict.rule) == ("seat_mismatch", None)
    assert validate(state, ar.Draw(1 - mover), player=mover).code == "seat_mismatch"
    with pytest.raises(ar.IllegalActionError) as info:
        submit(state, to_notation(legal), player=1 - mover)
    assert info.value.code == "seat_mismatch"


def test_stale_actions_are_refused_before_any_rule_check() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    now = state.seq
    assert validate(state, message(legal, seq=now)).legal
    assert validate(state, legal, seq=now).legal
    assert validate(state, to_notation(legal), seq=now).legal
    for seq in (now - 1, now + 1, 0):
        verdict = validate(state, message(legal, seq=seq))
        assert (verdict.code, verdict.rule, verdict.seq) == ("stale_action", None, now)
        assert str(seq) in verdict.message and str(now) in verdict.message
    # an illegal action made against an old view is reported as stale, not as illegal
    assert validate(state, message(ar.Draw(9), seq=now - 1)).code == "stale_action"
    with pytest.raises(ar.IllegalActionError) as info:
        submit(state, legal, seq=now - 1)
    assert info.value.code == "stale_action"


def test_a_replayed_message_is_stale_after_it_was_applied() -> None:
    state = turn_state()
    text = message(ar.legal_actions(state)[0], seq=state.seq)
    after = submit(state, text).state
    assert validate(after, text).code == "stale_action"


def test_require_seq() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    verdict = validate(state, legal, require_seq=True)
    assert (verdict.code, verdict.path) == ("missing_field", "/seq")
    assert validate(state, message(legal, seq=state.seq), require_seq=True).legal
    assert validate(state, legal, seq=state.seq, require_seq=True).legal


def test_seq_given_twice_must_agree() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    assert validate(state, message(legal, seq=state.seq), seq=state.seq).legal
    verdict = validate(state, message(legal, seq=state.seq), seq=state.seq + 1)
    assert (verdict.code, verdict.path) == ("bad_value", "/seq")
    assert validate(state, legal, seq=-1).code == "wrong_type"
    assert validate(state, legal, seq=True).code == "wrong_type"  # type: ignore[arg-type]


def test_read_action() -> None:
    assert read_action("1x23", seq=8) == (ar.DiscardDrawn(1, 2, 3), 8)
    assert read_action(message(ar.Draw(1), seq=3)) == (ar.Draw(1), 3)
    assert read_action(ar.Flip(0, 0, 0)) == (ar.Flip(0, 0, 0), None)
    assert read_action(b"0f00") == (ar.Flip(0, 0, 0), None)


def test_not_a_state() -> None:
    verdict = validate("state", ar.Draw(0))  # type: ignore[arg-type]
    assert (verdict.legal, verdict.code, verdict.seq) == (False, "invalid_state", None)
    with pytest.raises(InvalidStateError):
        submit("state", ar.Draw(0))  # type: ignore[arg-type]


def test_verdict_documents() -> None:
    state = turn_state()
    legal = validate(state, ar.legal_actions(state)[0]).to_dict()
    assert legal == {"format": "verdict", "format_version": 1, "rules_version": ar.RULES_VERSION,
                     "legal": True, "code": None, "rule": None, "message": "legal", "seq": state.seq,
                     "path": None}
    bad = json.loads(validate(state, '{"format":"action"}').to_json())
    assert (bad["legal"], bad["code"], bad["path"]) == (False, "missing_field", "/format_version")
    assert validate(state, "0q").to_json() == canonical_json(validate(state, "0q").to_dict())


def test_submit_matches_apply_through_a_whole_game() -> None:
    rng = random.Random(3)
    state = stacked(tiny(reshuffle_keeps_top=False), 3)
    reference = state
    while not state.is_over:
        action = rng.choice(ar.legal_actions(state))
        text = ar.dumps_action(action, seq=state.seq)
        assert validate(state, text, player=action.player, require_seq=True).legal
        state, _, decoded = submit(state, text, player=action.player, require_seq=True)
        reference = ar.apply(reference, decoded)
        assert state == reference and decoded == action


FIELDS = ["format", "format_version", "rules_version", "type", "player", "row", "col", "seq", "x"]
VALUES = st.one_of(st.integers(-3, 20), st.text(max_size=8), st.booleans(), st.none(), st.floats(),
                   st.sampled_from(["action", "1.0.0", "flip", "draw", "take_discard"]))


@given(st.one_of(st.text(max_size=60), st.binary(max_size=60), st.integers(), st.none(),
                 st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=9)))
def test_validate_never_raises_and_agrees_with_submit(data: Any) -> None:
    state = turn_state()
    verdict = validate(state, data)
    assert isinstance(verdict, Verdict) and verdict.seq == state.seq
    if verdict.legal:
        assert submit(state, data).state.seq == state.seq + 1
    else:
        with pytest.raises(ar.AbyssError) as info:
            submit(state, data)
        assert info.value.code == verdict.code


# -- the kit a server answers with: request ids, HTTP statuses, send-ready documents ------------

def _schema_validator(kind: str) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema(kind))


def test_documents_without_a_request_id_are_unchanged() -> None:
    # the optional fields appear only when given: what clients and servers exchanged before is byte-identical
    assert ar.dumps_action(ar.Flip(0, 1, 2), seq=3) == (
        '{"col":2,"format":"action","format_version":1,"player":0,"row":1,"rules_version":"'
        + ar.RULES_VERSION + '","seq":3,"type":"flip"}')
    verdict = validate(ar.new_game(2, seed=4), message(ar.Flip(0, 1, 2), seq=0))
    assert set(verdict.to_dict()) == {"format", "format_version", "rules_version", "legal", "code", "rule",
                                      "message", "seq", "path"}


def test_a_verdict_echoes_the_request_id_and_the_action() -> None:
    state = ar.new_game(2, seed=4)
    validator = _schema_validator("verdict")
    for request_id in ("move-1", 7, "x" * 64):
        text = ar.dumps_action(ar.Flip(0, 1, 2), seq=0, request_id=request_id)
        _schema_validator("action").validate(json.loads(text))
        verdict = validate(state, text, player=0, echo_action=True)
        assert (verdict.legal, verdict.request_id, verdict.action) == (True, request_id, ar.Flip(0, 1, 2))
        doc = verdict.to_dict()
        validator.validate(doc)
        assert doc["request_id"] == request_id
        assert doc["action"] == {"type": "flip", "player": 0, "row": 1, "col": 2}
        assert read_message(text).request_id == request_id
    # refusals carry it too: stale, another seat's action, a rule, and a malformed document
    stale = ar.dumps_action(ar.Flip(0, 1, 2), seq=5, request_id="r1")
    assert validate(state, stale).to_dict()["request_id"] == "r1"
    other = ar.dumps_action(ar.Flip(1, 1, 2), seq=0, request_id="r2")
    assert (validate(state, other, player=0).code, validate(state, other, player=0).request_id) == (
        "seat_mismatch", "r2")
    broken = {**json.loads(stale), "row": "1", "request_id": "r3"}
    verdict = validate(state, json.dumps(broken))
    assert (verdict.code, verdict.path, verdict.request_id) == ("wrong_type", "/row", "r3")
    validator.validate(verdict.to_dict())
    # an unreadable request id is simply not echoed (the verdict names the bad field)
    assert validate(state, {**broken, "request_id": ""}).request_id is None


def test_seq_and_request_id_null_read_as_absent() -> None:
    state = ar.new_game(2, seed=4)
    doc = {**action_to_dict(ar.Flip(0, 1, 2)), "seq": None, "request_id": None}
    _schema_validator("action").validate(doc)
    assert read_message(doc) == Message(ar.Flip(0, 1, 2), None, None)
    assert validate(state, doc).legal
    verdict = validate(state, doc, require_seq=True)
    assert (verdict.code, verdict.path) == ("missing_field", "/seq")


def test_text_that_is_not_json_is_invalid_json_where_only_json_is_taken() -> None:
    state = ar.new_game(2, seed=4)
    for text in ("0f12", "hello", b"\xff\xfe", "", "[1, 2"):
        assert validate(state, text, notation=False).code == "invalid_json", text
    assert validate(state, "[1, 2]", notation=False).code == "wrong_type"
    assert validate(state, "0f12").legal  # notation where it is accepted
    assert validate(state, "0z", notation=True).code == "bad_notation"


def test_every_code_has_one_http_status() -> None:
    assert set(HTTP_STATUS) == {str(code) for code in ar.Code}
    assert http_status(None) == 200
    assert http_status("a_code_of_the_servers_own") == 400
    for code in ("not_your_turn", "wrong_phase", "space_face_up", "game_over", "no_such_space",
                 "discard_empty"):
        assert HTTP_STATUS[code] == 409, code  # the game's current state refuses it: act again
    assert (HTTP_STATUS["stale_action"], HTTP_STATUS["seat_mismatch"], HTTP_STATUS["invalid_json"],
            HTTP_STATUS["document_too_large"]) == (409, 403, 400, 413)
    state = turn_state()
    assert validate(state, ar.Draw(1 - state.turn)).http_status == 409
    assert validate(state, "{").http_status == 400


def test_action_documents_are_the_legal_actions_ready_to_send() -> None:
    rng = random.Random(3)
    state = ar.new_game(3, seed=9)
    validator = _schema_validator("action")
    while not state.is_over and state.seq < 120:
        for seat in range(state.players):
            docs = action_documents(ar.view(state, seat))
            assert [read_action(doc)[0] for doc in docs] == [
                a for a in ar.legal_actions(state) if a.player == seat]
            for doc in docs[:3]:
                validator.validate(doc)
                assert validate(state, json.dumps(doc), player=seat, require_seq=True).legal
        assert action_documents(ar.view(state)) == ()
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    with pytest.raises(TypeError):
        action_documents(state)  # type: ignore[arg-type]


def test_judge_applies_a_legal_action_once_and_answers_every_message() -> None:
    state = ar.new_game(2, seed=4)
    text = ar.dumps_action(ar.Flip(1, 0, 0), seq=0, request_id=12)
    verdict, accepted = judge(state, text, player=1, require_seq=True, echo_action=True)
    assert verdict == Verdict(True, None, None, "legal", 0, None, 12, ar.Flip(1, 0, 0))
    assert accepted == submit(state, text, player=1)
    again, nothing = judge(accepted.state, text, player=1, require_seq=True)
    assert (again.code, again.seq, again.request_id, again.http_status, nothing) == (
        "stale_action", 1, 12, 409, None)
    for junk in ("", "{", "null", "0z", b"\x00" * 5, 3.5, None, {"format": "action"}, "x" * (2 << 20)):
        verdict, accepted = judge(state, junk)  # type: ignore[arg-type]
        assert not verdict.legal and accepted is None and verdict.http_status in (400, 413)


@given(st.one_of(st.text(max_size=80), st.binary(max_size=80), st.dictionaries(
    st.sampled_from(["format", "format_version", "rules_version", "type", "player", "row", "col", "seq",
                     "request_id"]),
    st.one_of(st.none(), st.integers(-3, 70), st.text(max_size=70), st.booleans()), max_size=9)))
def test_judge_agrees_with_validate_and_submit(data: Any) -> None:
    state = turn_state()
    verdict, accepted = judge(state, data, echo_action=True)
    assert verdict == validate(state, data, echo_action=True)
    if verdict.legal:
        assert accepted == submit(state, data)
    else:
        assert accepted is None
        with pytest.raises(ar.AbyssError):
            submit(state, data)


@pytest.mark.parametrize("call", [
    lambda: http_status([]),  # type: ignore[arg-type]
    lambda: http_status(400),  # type: ignore[arg-type]
    lambda: Verdict.from_error(0, 0),  # type: ignore[arg-type]
    lambda: Verdict.from_error(ValueError("x"), 0),  # type: ignore[arg-type]
    lambda: Verdict.from_error(None, "3"),  # type: ignore[arg-type]
    lambda: Verdict.from_error(None, -1),
    lambda: Verdict.from_error(None, 0, request_id=1.5),  # type: ignore[arg-type]
    lambda: Verdict.from_error(None, 0, action="0d"),  # type: ignore[arg-type]
    lambda: Verdict(1, None, None, "legal", 0),  # type: ignore[arg-type]
    lambda: Verdict(True, "game_over", None, "legal", 0),
    lambda: Verdict(False, None, None, "refused", 0),
    lambda: Verdict(False, 7, None, "refused", 0),  # type: ignore[arg-type]
    lambda: Verdict(False, "x", 3.11, "refused", 0),  # type: ignore[arg-type]
    lambda: Verdict(False, "x", None, None, 0),  # type: ignore[arg-type]
    lambda: Verdict(False, "x", None, "m", 0, path=["/a"]),  # type: ignore[arg-type]
    lambda: action_documents(None),  # type: ignore[arg-type]
    lambda: submit(ar.new_game(2, seed=4), "0f00", player="0"),  # type: ignore[arg-type]
])
def test_a_bad_argument_is_an_argument_error(call: Any) -> None:
    with pytest.raises(ar.ArgumentError) as refused:
        call()
    assert refused.value.code == "invalid_argument" and isinstance(refused.value, TypeError)


def test_a_request_id_a_verdict_could_not_carry_is_refused() -> None:
    for request_id in ("", "x" * 65, -1, 2**53, True):
        with pytest.raises(ar.AbyssError):
            Verdict(True, None, None, "legal", 0, request_id=request_id)


def test_a_server_argument_of_the_wrong_type_is_the_servers_fault_not_the_clients() -> None:
    state = ar.new_game(2, seed=4)
    for check in (validate, lambda *a, **k: judge(*a, **k).verdict):
        verdict = check(state, "0f00", player="0")
        assert (verdict.code, verdict.http_status, verdict.legal) == ("invalid_argument", 500, False)
    assert http_status("lone_surrogate") == 400 and http_status("invalid_argument") == 500
    assert HTTP_STATUS.keys() >= set(ar.Code)
