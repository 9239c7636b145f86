"""The compact action notation: one spelling per action, and typed errors for anything else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.notation import MAX_NOTATION_LENGTH, parse_notation, to_notation

SPACE_KINDS = (ar.Flip, ar.TakeDiscard, ar.PlaceDrawn, ar.DiscardDrawn)


@pytest.mark.rule("3.2")
def test_the_documented_examples() -> None:
    assert to_notation(ar.Flip(0, 1, 2)) == "0f12"
    assert to_notation(ar.TakeDiscard(0, 0, 0)) == "0t00"
    assert to_notation(ar.Draw(1)) == "1d"
    assert to_notation(ar.PlaceDrawn(1, 2, 3)) == "1p23"
    assert to_notation(ar.DiscardDrawn(1, 2, 3)) == "1x23"
    assert to_notation(ar.Flip(12, 0, 3)) == "12f03"
    assert to_notation(ar.Flip(0, 10, 3)) == "0f10.3"
    assert to_notation(ar.PlaceDrawn(15, 15, 15)) == "15p15.15"
    assert to_notation(ar.TakeDiscard(3, 2, 11)) == "3t2.11"
    assert parse_notation("3t2.11") == ar.TakeDiscard(3, 2, 11)


def test_every_action_of_the_largest_grids_round_trips() -> None:
    seen: set[str] = set()
    for player in range(16):
        assert parse_notation(to_notation(ar.Draw(player))) == ar.Draw(player)
        for row in range(16):
            for col in range(16):
                for kind in SPACE_KINDS:
                    action = kind(player, row, col)
                    text = to_notation(action)
                    assert parse_notation(text) == action
                    seen.add(text)
    assert len(seen) == 16 * 16 * 16 * len(SPACE_KINDS)  # no two actions share a spelling


@given(st.sampled_from(SPACE_KINDS), st.integers(0, 10**5), st.integers(0, 10**5), st.integers(0, 10**5))
def test_round_trip_property(kind: type[ar.Action], player: int, row: int, col: int) -> None:
    action = kind(player, row, col)  # type: ignore[call-arg]
    text = to_notation(action)
    assert parse_notation(text) == action
    assert to_notation(parse_notation(text)) == text


BAD = [
    "", "f12", "0", "0f", "0f1", "0f123", "0F12", "0q12", "0d12", "0d1.2", "00f12", "01f12", "-1f12",
    "0f1.2", "0f01.10", "0f10.03", "0f10.", "0f.3", "0f10.3.4", " 0f12", "0f12 ", "0f12\n", "0f\u0661\u0662",
    "0 f 1 2", "0t", "0p", "0x", "1dd", "1234567f12", "0f1234567.0", "x" * (MAX_NOTATION_LENGTH + 1),
]


@pytest.mark.parametrize("text", BAD)
def test_bad_notation_is_a_typed_error(text: str) -> None:
    with pytest.raises(ar.DecodeError) as info:
        parse_notation(text)
    assert info.value.code == "bad_notation" and info.value.rule is None
    assert isinstance(info.value, ValueError)


@given(st.text(max_size=12))
def test_any_text_parses_or_fails_with_bad_notation(text: str) -> None:
    try:
        action = parse_notation(text)
    except ar.DecodeError as error:
        assert error.code == "bad_notation"
    else:
        assert to_notation(action) == text  # only canonical spellings are accepted


def test_helpful_messages() -> None:
    with pytest.raises(ar.DecodeError, match="write \\(1, 2\\) as '0f12'"):
        parse_notation("0f1.2")
    with pytest.raises(ar.DecodeError, match="a draw names no space"):
        parse_notation("1d23")
    with pytest.raises(ar.DecodeError, match="needs a space"):
        parse_notation("1p")
    with pytest.raises(ar.DecodeError, match="must be a string"):
        parse_notation(b"0f12")  # type: ignore[arg-type]


def test_actions_without_a_spelling() -> None:
    with pytest.raises(ar.MalformedActionError):
        to_notation(ar.Flip(0, -1, 2))
    with pytest.raises(ar.MalformedActionError):
        to_notation(ar.Draw(-3))
    with pytest.raises(ar.MalformedActionError):
        to_notation(ar.Flip(10**6, 0, 0))  # beyond what parse_notation reads
    assert parse_notation(to_notation(ar.Flip(999_999, 0, 999_999))) == ar.Flip(999_999, 0, 999_999)
    with pytest.raises(ar.MalformedActionError):
        to_notation("0f12")  # type: ignore[arg-type]


@pytest.mark.rule("3.9")
def test_notation_names_the_acting_player() -> None:
    state = ar.new_game(players=3, seed=1)
    for action in ar.legal_actions(state):
        assert to_notation(action).startswith(str(action.player))
