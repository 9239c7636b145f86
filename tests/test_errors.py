"""Typed errors with stable codes and the rule each enforces."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest

import abyss_rules as ar
from abyss_rules import errors
from abyss_rules.action_space import ActionSpace
from abyss_rules.errors import RULE_OF_CODE, Code
from abyss_rules.json_schemas import schema

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
    assert issubclass(ar.ArgumentError, ar.AbyssError)
    assert issubclass(ar.ArgumentError, TypeError) and issubclass(ar.ArgumentError, ValueError)
    assert ar.ArgumentError("x").code == "invalid_argument" and ar.ArgumentError("x").rule is None


@pytest.mark.rule("3.9")
def test_rule_defaults_to_the_rule_of_the_code() -> None:
    error = ar.IllegalActionError(Code.NOT_YOUR_TURN, "it is seat 1's turn, not seat 0's")
    assert error.code == "not_your_turn" and type(error.code) is Code  # typed: a str enum
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


# -- one home, one keyword signature (issue 13) ------------------------------------------------

_ERROR_CLASSES = [errors.AbyssError, errors.IllegalActionError, errors.ActionIndexError,
                  errors.MalformedActionError, errors.InvalidStateError, errors.ConfigError, errors.SeedError,
                  errors.DecodeError, errors.ReplayError, errors.BotError, errors.SimulationError,
                  errors.PictureError]


def test_every_error_class_lives_in_errors_and_is_re_exported_unchanged() -> None:
    import abyss_rules.bots
    import abyss_rules.codec
    import abyss_rules.records
    import abyss_rules.simulation
    import abyss_rules.testing

    for cls in [*_ERROR_CLASSES, errors.InvariantError]:
        assert cls.__module__ == "abyss_rules.errors"
        assert cls.__name__ in errors.__all__
    assert abyss_rules.codec.DecodeError is ar.DecodeError is errors.DecodeError
    assert abyss_rules.records.ReplayError is ar.ReplayError is errors.ReplayError
    assert abyss_rules.bots.BotError is errors.BotError
    assert abyss_rules.simulation.SimulationError is errors.SimulationError
    assert abyss_rules.testing.InvariantError is errors.InvariantError
    found = {name for module in (abyss_rules.bots, abyss_rules.codec, abyss_rules.records,
                                 abyss_rules.simulation, abyss_rules.testing, ar)
             for name, value in vars(module).items()
             if isinstance(value, type) and issubclass(value, Exception) and not name.startswith("_")
             and value.__module__ != "abyss_rules.errors" and value.__module__.startswith("abyss_rules")}
    assert not found, f"error classes defined outside abyss_rules.errors: {found}"


@pytest.mark.parametrize("cls", _ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_error_takes_the_same_keywords_and_code_message_positionally(cls: type[ar.AbyssError]) -> None:
    by_keyword = cls(code=Code.BAD_VALUE, message="what went wrong", rule="1.2")
    by_position = cls(Code.BAD_VALUE, "what went wrong")
    for error in (by_keyword, by_position):
        assert (error.code, error.message) == ("bad_value", "what went wrong")
        assert repr(error).startswith(f"{cls.__name__}(code='bad_value', message='what went wrong'")
    assert by_keyword.rule == "1.2" and by_position.rule is None
    again = pickle.loads(pickle.dumps(by_keyword))
    assert type(again) is cls and repr(again) == repr(by_keyword)


@pytest.mark.parametrize("cls", [errors.MalformedActionError, errors.InvalidStateError, errors.SeedError,
                                 errors.PictureError],
                         ids=lambda cls: cls.__name__)
def test_a_class_with_a_default_code_takes_a_message_alone_or_either_order(cls: type[ar.AbyssError]) -> None:
    default = {"MalformedActionError": "malformed_action", "InvalidStateError": "invalid_state",
               "SeedError": "invalid_seed", "PictureError": "invalid_picture"}[cls.__name__]
    assert (cls("it is wrong").code, cls("it is wrong").message) == (default, "it is wrong")
    for error in (cls("it is wrong", code=Code.BAD_VALUE), cls(Code.BAD_VALUE, "it is wrong"),
                  cls("it is wrong", Code.BAD_VALUE), cls(message="it is wrong", code="bad_value"),
                  cls("it is wrong", Code.BAD_VALUE, "4.1")):
        assert (error.code, error.message) == ("bad_value", "it is wrong")
    assert cls("it is wrong", Code.BAD_VALUE, "4.1").rule == "4.1"
    with pytest.raises(TypeError):
        cls()
    with pytest.raises(TypeError):
        cls("a", "b", "c", "d")


def test_replay_and_invariant_errors_keep_their_context_through_pickling() -> None:
    cause = ar.IllegalActionError(Code.NOT_YOUR_TURN, "not yet")
    error = errors.ReplayError(Code.REPLAY_FAILED, "cannot replay", "/actions/2", index=2, cause=cause)
    again = pickle.loads(pickle.dumps(error))
    assert (again.path, again.index, again.cause.code) == ("/actions/2", 2, "not_your_turn")  # type: ignore[union-attr]
    invariant = errors.InvariantError("drawn_card", "held a card", "3.4")
    back = pickle.loads(pickle.dumps(invariant))
    assert (back.invariant, back.rule, str(back)) == ("drawn_card", "3.4", str(invariant))


@pytest.mark.parametrize("call", [
    lambda: ar.apply("a state", ar.Draw(0)),  # type: ignore[arg-type]
    lambda: ar.legal_actions(None),  # type: ignore[arg-type]
    lambda: ar.view(3),  # type: ignore[arg-type]
    lambda: ActionSpace(ar.Variant()).mask("a state", 0),  # type: ignore[arg-type]
], ids=["apply", "legal_actions", "view", "ActionSpace.mask"])
def test_a_non_state_raises_invalid_state_error_a_type_error_not_an_action_error(call: Any) -> None:
    with pytest.raises(errors.InvalidStateError) as raised:
        call()
    assert raised.value.code == "invalid_state"
    assert isinstance(raised.value, TypeError) and isinstance(raised.value, ar.AbyssError)
    assert not isinstance(raised.value, ar.MalformedActionError)  # a state problem, not an action's
    problem = ar.check(object(), ar.Draw(0))  # type: ignore[arg-type]
    assert type(problem) is errors.InvalidStateError


def test_every_error_code_is_a_code_member() -> None:
    state = ar.new_game(2, seed=1)
    raised: list[ar.AbyssError] = []
    for attempt in (lambda: ar.apply(state, ar.Draw(0)), lambda: ar.loads_state("[]"),
                    lambda: ar.view(state, 5), lambda: ar.new_game(9), lambda: schema("game")):
        with pytest.raises(ar.AbyssError) as caught:
            attempt()
        raised.append(caught.value)
    assert [type(e.code) for e in raised] == [Code] * 5
    assert [e.code for e in raised] == ["wrong_phase", "wrong_type", "no_such_player", "invalid_players",
                                        "wrong_format"]
    assert json.dumps(raised[0].to_dict()) == json.dumps({"code": "wrong_phase", "rule": "3.2",
                                                          "message": raised[0].message})


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError):
        ar.AbyssError("no_such_code", "a code the library never publishes")


@pytest.mark.rule("10.5")
@pytest.mark.parametrize("make", [
    lambda text: ar.AbyssError(Code.GAME_OVER, f"over {text}"),
    lambda text: ar.DecodeError(Code.UNKNOWN_FIELD, "unknown field", f"/grids/{text}"),
    lambda text: ar.ReplayError(Code.REPLAY_FAILED, text, f"/{text}", index=2),
    lambda text: ar.ArgumentError(f"got {text}"),
], ids=["AbyssError", "DecodeError", "ReplayError", "ArgumentError"])
def test_an_error_is_always_writable_its_lone_surrogates_shown_escaped(make: Any) -> None:
    error = make("x\ud800y\udfff")
    text = json.dumps(error.to_dict(), ensure_ascii=False).encode("utf-8")  # no UnicodeEncodeError
    assert any("x\\ud800y\\udfff" in value for value in json.loads(text).values() if value)  # escaped
    assert "\ud800" not in str(error) and str(error).encode("utf-8")
    again = pickle.loads(pickle.dumps(error))
    assert again.to_dict() == error.to_dict()
    kept = make("x\U0001f0cfy")  # a character beyond the BMP is text: kept as it is
    assert "\U0001f0cf" in json.dumps(kept.to_dict(), ensure_ascii=False)
