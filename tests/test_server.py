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
from abyss_rules.errors import RULE_OF_CODE


def message(action: ar.Action, seq: int | None = None) -> str:
    return ar.dumps_action(action, seq=seq)


def turn_state() -> ar.State:
    state = ar.new_game(2, seed=4)
    return open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])


def test_a_legal_action_in_every_form() -> None:
    state = turn_state()
    action = ar.legal_actions(state)[0]
    forms: list[Any] = [action, message(action), message(action).encode("utf-8"), json.loads(message(action)),
                        ar.to_notation(action), "  " + message(action)]
    for form in forms:
        verdict = ar.validate(state, form)
        assert verdict == ar.Verdict(True, None, None, "legal", state.seq, None)
        accepted = ar.submit(state, form)
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
        for form in (action, message(action), ar.to_notation(action)):
            verdict = ar.validate(s, form)
            assert not verdict.legal and verdict.code == code, (action, verdict)
            assert verdict.rule == RULE_OF_CODE[code] and verdict.seq == s.seq and verdict.path is None
            assert verdict.message == ar.check(s, action).message  # type: ignore[union-attr]
            with pytest.raises(ar.IllegalActionError) as info:
                ar.submit(s, form)
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
        verdict = ar.validate(state, data)
        assert (verdict.legal, verdict.code, verdict.path) == (False, code, path), (str(data)[:60], verdict)
        assert verdict.rule is None
        with pytest.raises(ar.DecodeError) as info:
            ar.submit(state, data)
        assert info.value.code == code


def test_seat_mismatch_comes_before_the_rules() -> None:
    state = turn_state()
    mover = state.turn
    legal = ar.legal_actions(state)[0]
    assert ar.validate(state, legal, player=mover).legal
    verdict = ar.validate(state, legal, player=1 - mover)
    assert (verdict.code, verdict.rule) == ("seat_mismatch", None)
    assert ar.validate(state, ar.Draw(1 - mover), player=mover).code == "seat_mismatch"
    with pytest.raises(ar.IllegalActionError) as info:
        ar.submit(state, ar.to_notation(legal), player=1 - mover)
    assert info.value.code == "seat_mismatch"


def test_stale_actions_are_refused_before_any_rule_check() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    now = state.seq
    assert ar.validate(state, message(legal, seq=now)).legal
    assert ar.validate(state, legal, seq=now).legal
    assert ar.validate(state, ar.to_notation(legal), seq=now).legal
    for seq in (now - 1, now + 1, 0):
        verdict = ar.validate(state, message(legal, seq=seq))
        assert (verdict.code, verdict.rule, verdict.seq) == ("stale_action", None, now)
        assert str(seq) in verdict.message and str(now) in verdict.message
    # an illegal action made against an old view is reported as stale, not as illegal
    assert ar.validate(state, message(ar.Draw(9), seq=now - 1)).code == "stale_action"
    with pytest.raises(ar.IllegalActionError) as info:
        ar.submit(state, legal, seq=now - 1)
    assert info.value.code == "stale_action"


def test_a_replayed_message_is_stale_after_it_was_applied() -> None:
    state = turn_state()
    text = message(ar.legal_actions(state)[0], seq=state.seq)
    after = ar.submit(state, text).state
    assert ar.validate(after, text).code == "stale_action"


def test_require_seq() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    verdict = ar.validate(state, legal, require_seq=True)
    assert (verdict.code, verdict.path) == ("missing_field", "/seq")
    assert ar.validate(state, message(legal, seq=state.seq), require_seq=True).legal
    assert ar.validate(state, legal, seq=state.seq, require_seq=True).legal


def test_seq_given_twice_must_agree() -> None:
    state = turn_state()
    legal = ar.legal_actions(state)[0]
    assert ar.validate(state, message(legal, seq=state.seq), seq=state.seq).legal
    verdict = ar.validate(state, message(legal, seq=state.seq), seq=state.seq + 1)
    assert (verdict.code, verdict.path) == ("bad_value", "/seq")
    assert ar.validate(state, legal, seq=-1).code == "wrong_type"
    assert ar.validate(state, legal, seq=True).code == "wrong_type"  # type: ignore[arg-type]


def test_read_action() -> None:
    assert ar.read_action("1x23", seq=8) == (ar.DiscardDrawn(1, 2, 3), 8)
    assert ar.read_action(message(ar.Draw(1), seq=3)) == (ar.Draw(1), 3)
    assert ar.read_action(ar.Flip(0, 0, 0)) == (ar.Flip(0, 0, 0), None)
    assert ar.read_action(b"0f00") == (ar.Flip(0, 0, 0), None)


def test_not_a_state() -> None:
    verdict = ar.validate("state", ar.Draw(0))  # type: ignore[arg-type]
    assert (verdict.legal, verdict.code, verdict.seq) == (False, "invalid_state", None)
    with pytest.raises(ar.MalformedActionError):
        ar.submit("state", ar.Draw(0))  # type: ignore[arg-type]


def test_verdict_documents() -> None:
    state = turn_state()
    legal = ar.validate(state, ar.legal_actions(state)[0]).to_dict()
    assert legal == {"format": "verdict", "format_version": 1, "rules_version": ar.RULES_VERSION,
                     "legal": True, "code": None, "rule": None, "message": "legal", "seq": state.seq,
                     "path": None}
    bad = json.loads(ar.validate(state, '{"format":"action"}').to_json())
    assert (bad["legal"], bad["code"], bad["path"]) == (False, "missing_field", "/format_version")
    assert ar.validate(state, "0q").to_json() == ar.canonical_json(ar.validate(state, "0q").to_dict())


def test_submit_matches_apply_through_a_whole_game() -> None:
    rng = random.Random(3)
    state = stacked(tiny(reshuffle_keeps_top=False), 3)
    reference = state
    while not state.is_over:
        action = rng.choice(ar.legal_actions(state))
        text = ar.dumps_action(action, seq=state.seq)
        assert ar.validate(state, text, player=action.player, require_seq=True).legal
        state, _, decoded = ar.submit(state, text, player=action.player, require_seq=True)
        reference = ar.apply(reference, decoded)
        assert state == reference and decoded == action


FIELDS = ["format", "format_version", "rules_version", "type", "player", "row", "col", "seq", "x"]
VALUES = st.one_of(st.integers(-3, 20), st.text(max_size=8), st.booleans(), st.none(), st.floats(),
                   st.sampled_from(["action", "1.0.0", "flip", "draw", "take_discard"]))


@given(st.one_of(st.text(max_size=60), st.binary(max_size=60), st.integers(), st.none(),
                 st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=9)))
def test_validate_never_raises_and_agrees_with_submit(data: Any) -> None:
    state = turn_state()
    verdict = ar.validate(state, data)
    assert isinstance(verdict, ar.Verdict) and verdict.seq == state.seq
    if verdict.legal:
        assert ar.submit(state, data).state.seq == state.seq + 1
    else:
        with pytest.raises(ar.AbyssError) as info:
            ar.submit(state, data)
        assert info.value.code == verdict.code
