"""The golden files of whole games (tests/golden/): every document, byte for byte.

The files were made from the engine before the redesign of issue 13; every later change
must leave every byte of every document (and the replay narration) as it was, unless it
means to change them -- then regenerate with ``python -m tests.golden.make`` (see
``tests/golden/make.py``) and review the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from tests.golden.make import (
    CLI_DIR,
    GAMES,
    HERE,
    PLAY_DIR,
    PLAYTHROUGHS,
    documents,
    expected_files,
    narration,
    playthrough,
    record_of,
)

import abyss_rules as ar
from abyss_rules.codec import canonical_json, parse_json, state_to_dict, variant_to_dict, view_to_dict
from abyss_rules.config import FIELD_NAMES
from abyss_rules.notation import to_notation


def _first_difference(path: Path, expected: str) -> str:
    found = path.read_text(encoding="utf-8").splitlines()
    diff = difflib.unified_diff(found, expected.splitlines(), "golden", "today", n=0, lineterm="")
    lines = [line if len(line) < 300 else line[:300] + "..." for line in list(diff)[:8]]
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_documents_are_the_golden_bytes(name: str) -> None:
    path = HERE / f"{name}.txt"
    expected = documents(name)
    assert path.read_bytes() == expected.encode(), (
        f"{path.name} differs (regenerate with `python -m tests.golden.make` only if the change is "
        f"meant):\n{_first_difference(path, expected)}")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_replay_narration_is_the_golden_text(name: str) -> None:
    path = CLI_DIR / f"{name}.txt"
    expected = narration(name)
    assert path.read_bytes() == expected.encode(), f"{path}:\n{_first_difference(path, expected)}"


@pytest.mark.parametrize("name", PLAYTHROUGHS)
def test_playthrough_is_the_golden_text(name: str) -> None:
    """The game step by step for a person: the table, the piles, the legal actions, the action, the
    events. It changes with any of them, and its diff says what changed in words."""
    path = PLAY_DIR / f"{name}.txt"
    expected = playthrough(name)
    assert path.read_bytes() == expected.encode(), f"{path}:\n{_first_difference(path, expected)}"


def test_playthroughs_show_every_step_of_the_recorded_game() -> None:
    for name in PLAYTHROUGHS:
        text = (PLAY_DIR / f"{name}.txt").read_text(encoding="utf-8")
        actions = [line.split(":")[0].removeprefix("action ") for line in text.splitlines()
                   if line.startswith("action ")]
        assert actions == [to_notation(a) for a in record_of(name).actions]
        assert text.count("\nlegal (") == len(actions) + 1


def test_no_stray_golden_files() -> None:
    present = {*HERE.glob("*.txt"), *CLI_DIR.glob("*.txt"), *PLAY_DIR.glob("*.txt")}
    assert present == set(expected_files())


def _lines(name: str) -> list[tuple[str, str]]:
    out = []
    for line in (HERE / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        tag, _, rest = line.partition(" ")
        if tag in ("state", "hash", "action", "events"):
            rest = rest.partition(" ")[2]
        elif tag == "view":
            rest = rest.split(" ", 2)[2]
        out.append((tag, rest))
    return out


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_documents_read_back_and_write_the_same_bytes(name: str) -> None:
    """Each golden document is read by its loader and written again by the general (dict) path."""
    for tag, text in _lines(name):
        if tag == "variant":
            assert canonical_json(variant_to_dict(ar.loads_variant(text))) == text
        elif tag.startswith("record"):
            assert ar.Record.from_json(text).to_json() == text
        elif tag == "state":
            state = ar.loads_state(text)
            assert canonical_json(state_to_dict(state)) == text
            assert ar.dumps_state(state) == text
        elif tag == "view":
            assert canonical_json(view_to_dict(ar.loads_view(text))) == text
        elif tag == "action":
            doc = parse_json(text)
            assert ar.dumps_action(ar.loads_action(text), seq=doc["seq"]) == text
        elif tag == "events":
            assert canonical_json(parse_json(text)) == text
        else:
            assert tag == "hash" and len(text) == 64


def test_the_golden_games_cover_every_event_flag_and_player_count() -> None:
    """The games are worth their bytes: every event kind, both reshuffle rules, swallows during play and
    at the final reveal, capped and penalized rounds, every variant field changed somewhere."""
    seen: set[str] = set()
    changed: set[str] = set()
    default = ar.Variant()
    for name in GAMES:
        record = record_of(name)
        changed |= {f for f in FIELD_NAMES if getattr(record.variant, f) != getattr(default, f)}
        state = record.initial_state()
        for action in record.actions:
            state, events = ar.apply_with_events(state, action)
            for event in events:
                seen.add(event.TYPE)
                if isinstance(event, ar.events.Reshuffled):
                    seen.add(f"reshuffled keeps_top={record.variant.reshuffle_keeps_top}")
                if isinstance(event, ar.events.ColumnSwallowed):
                    seen.add(f"swallowed final={event.final_reveal}")
                if isinstance(event, ar.events.RoundScored):
                    seen |= {f"capped={event.capped}", f"penalized={event.penalized}"}
        assert state.is_over
    assert {cls.TYPE for cls in ar.events.EVENT_TYPES} <= seen
    assert {"reshuffled keeps_top=True", "reshuffled keeps_top=False", "swallowed final=True",
            "swallowed final=False", "capped=True", "capped=False", "penalized=True",
            "penalized=False"} <= seen
    assert changed == set(FIELD_NAMES)
    assert {players for players, *_ in GAMES.values()} >= {1, 2, 3, 4, 6}
    assert any(decks for _, _, _, decks, *_ in GAMES.values())


def test_golden_files_stay_modest() -> None:
    total = sum(path.stat().st_size for path in expected_files())
    assert total < 3_000_000, f"the golden files hold {total} bytes"


def test_the_records_are_what_the_files_say() -> None:
    for name in GAMES:
        record = ar.Record.from_json(dict(_lines(name))["record"])
        assert record == record_of(name)
