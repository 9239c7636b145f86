"""Typed errors with stable codes and the rule each enforces."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

import abyss_rules as ar
from abyss_rules.errors import RULE_OF_CODE, Code

SPEC = Path(__file__).resolve().parent.parent / "spec" / "rules.md"

# The rule each code of the spec's rejection list (section 3) and of 10.3, 9.1, 9.6, 1.3 enforces.
SPEC_RULE_OF_CODE = {
    "malformed_action": None,
    "game_over": "7.5",
    "no_such_player": "1.3",
    "wrong_phase": "3.2",
    "no_flips_owed": "2.2",
    "not_your_turn": "3.9",
    "flip_turn_disabled": "3.7",
    "no_card_to_draw": "5.4",
    "no_such_space": "1.2",
    "space_swallowed": "3.10",
    "space_face_up": "3.10",
    "invalid_variant": "10.3",
    "invalid_players": "1.3",
    "invalid_deck_order": "9.6",
    "invalid_seed": "9.1",
}


def test_every_code_has_a_rule_entry() -> None:
    assert set(RULE_OF_CODE) == set(Code)
    for code, rule in RULE_OF_CODE.items():
        assert rule is None or re.fullmatch(r"\d+\.\d+", rule), (code, rule)


@pytest.mark.rule("3.2", "3.7", "3.9", "3.10", "1.2", "1.3", "2.2", "5.4", "7.5", "9.1", "9.6", "10.3")
def test_codes_and_rules_of_the_spec() -> None:
    for code, rule in SPEC_RULE_OF_CODE.items():
        assert Code(code) == code
        assert RULE_OF_CODE[Code(code)] == rule, code


def test_every_code_the_spec_names_is_a_code() -> None:
    named = set(re.findall(r"`([a-z]+(?:_[a-z]+)+)`", SPEC.read_text(encoding="utf-8")))
    codes = {c.value for c in Code}
    assert set(SPEC_RULE_OF_CODE) <= named
    assert set(SPEC_RULE_OF_CODE) <= codes


def test_class_hierarchy() -> None:
    assert issubclass(ar.IllegalActionError, ar.AbyssError) and issubclass(ar.IllegalActionError, ValueError)
    assert issubclass(ar.MalformedActionError, ar.AbyssError)
    assert issubclass(ar.MalformedActionError, TypeError)
    assert issubclass(ar.ConfigError, ar.AbyssError) and issubclass(ar.ConfigError, ValueError)
    assert issubclass(ar.SeedError, ar.AbyssError) and issubclass(ar.SeedError, ValueError)


@pytest.mark.rule("3.9")
def test_rule_defaults_to_the_rule_of_the_code() -> None:
    error = ar.IllegalActionError(Code.NOT_YOUR_TURN, "it is seat 1's turn, not seat 0's")
    assert error.code == "not_your_turn" and type(error.code) is str
    assert error.rule == "3.9"
    assert str(error) == "[not_your_turn] it is seat 1's turn, not seat 0's (rule 3.9)"
    assert error.to_dict() == {"code": "not_your_turn", "rule": "3.9",
                               "message": "it is seat 1's turn, not seat 0's"}
    assert "IllegalActionError(code='not_your_turn'" in repr(error)
    explicit = ar.IllegalActionError(Code.NOT_YOUR_TURN, "x", rule="6.2")
    assert explicit.rule == "6.2"


def test_no_rule_no_suffix() -> None:
    error = ar.MalformedActionError("Flip.row must be an int, got '1'")
    assert error.code == "malformed_action" and error.rule is None
    assert str(error) == "[malformed_action] Flip.row must be an int, got '1'"


@pytest.mark.parametrize(
    "error",
    [
        ar.IllegalActionError(Code.GAME_OVER, "over"),
        ar.MalformedActionError("bad"),
        ar.MalformedActionError("bad state", code=Code.INVALID_STATE),
        ar.ConfigError(Code.INVALID_VARIANT, "rows must be ..."),
        ar.SeedError("bad seed"),
    ],
    ids=lambda e: type(e).__name__ + ":" + e.code,
)
def test_errors_pickle_round_trip(error: ar.AbyssError) -> None:
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert (again.code, again.rule, again.message) == (error.code, error.rule, error.message)
    assert str(again) == str(error)


@pytest.mark.rule("9.1")
def test_seed_error_code() -> None:
    error = ar.SeedError("a bytes seed must be exactly 32 bytes long, got 31")
    assert error.code == "invalid_seed" and error.rule == "9.1"
