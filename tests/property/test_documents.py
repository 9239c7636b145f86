"""Property tests of the JSON documents, events, records and the server API over generated games.

Games come from `abyss_rules.testing.games` (any valid variant, including tiny decks that
reshuffle often and one-value decks that swallow constantly).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_events import check_game

import abyss_rules as ar
from abyss_rules.codec import state_from_dict, state_hash, state_to_dict
from abyss_rules.protocol import submit, validate
from abyss_rules.testing import Game, games

GAMES = games(finish_rounds=True, max_actions=250)


@pytest.mark.rule("1.1", "4.1", "5.1", "5.2", "6.6", "9.5")
@given(GAMES)
def test_every_state_round_trips_to_the_same_bytes(game: Game) -> None:
    for state in game.states:
        text = ar.dumps_state(state)
        loaded = ar.loads_state(text)
        assert loaded == state
        assert ar.dumps_state(loaded) == text
        assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.rule("8.3")
@given(GAMES)
def test_every_view_round_trips(game: Game) -> None:
    for state in (*game.states[::6], game.final):
        for viewer in (None, state.players - 1):
            v = ar.view(state, viewer)
            assert ar.loads_view(ar.dumps_view(v)) == v


@pytest.mark.rule("9.5")
@given(GAMES)
def test_records_replay_every_state(game: Game) -> None:
    seed = game.seed if isinstance(game.seed, bytes) else game.seed.to_bytes(32, "big")
    record = ar.Record(game.variant, game.players, seed, (), game.actions).sealed()
    loaded = ar.Record.from_json(record.to_json())
    assert [state_hash(s) for s in loaded.states()] == [state_hash(s) for s in game.states]


@pytest.mark.rule("8.1", "8.2")
@given(GAMES)
def test_events_rebuild_every_view_from_the_first(game: Game) -> None:
    # Replaying the events into a model of what a client knows gives every later view
    # (see tests/test_events.py): the events say everything public, and nothing more.
    check_game(list(game.states), list(game.actions))


@pytest.mark.rule("1.1")
@given(GAMES, st.randoms(use_true_random=False))
def test_a_mutated_document_loads_or_fails_with_a_decode_error(game: Game, rng: random.Random) -> None:
    doc = state_to_dict(game.final)
    for _ in range(3):
        mutated = copy.deepcopy(doc)
        _mutate(mutated, rng)
        try:
            state = state_from_dict(mutated)
        except ar.DecodeError as error:
            assert error.code in {str(code) for code in ar.Code}
            assert error.path == "" or error.path.startswith("/")
        else:
            # a mutation the checks let through is a state the engine can play on and show
            assert ar.dumps_state(state) == ar.dumps_state(ar.loads_state(ar.dumps_state(state)))
            for viewer in (None, *range(state.players)):
                ar.view(state, viewer).to_json()
            for action in ar.legal_actions(state)[:5]:
                ar.apply_with_events(state, action)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [leaf for key, value in node.items() for leaf in _leaves(value, (*path, key))] or [path]
    if isinstance(node, list):
        return [leaf for i, value in enumerate(node) for leaf in _leaves(value, (*path, i))] or [path]
    return [path]


def _mutate(doc: dict[str, Any], rng: random.Random) -> None:
    path = rng.choice(_leaves(doc))
    parent: Any = doc
    for key in path[:-1]:
        parent = parent[key]
    if not path:
        return
    key = path[-1]
    old = parent[key]
    choices: list[Any] = [None, True, False, 0, -1, 1, 99, 2**70, 1.5, "x", [], {}, [old]]
    if isinstance(old, int) and not isinstance(old, bool):
        choices += [old + 1, old - 1]
    parent[key] = rng.choice(choices)


FIELDS = ["player", "row", "col", "seq", "format_version", "rules_version", "format", "extra"]
# (no NaN or infinity: json.dumps writes them as non-JSON tokens, refused as invalid_json)
VALUES = st.one_of(st.integers(-2, 14), st.booleans(), st.none(), st.text(max_size=3),
                   st.floats(allow_nan=False, allow_infinity=False), st.lists(st.integers(), max_size=2))


@settings(max_examples=200)
@given(st.sampled_from(["flip", "take_discard", "draw", "place_drawn", "discard_drawn"]),
       st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=3))
def test_action_messages_get_a_verdict_and_submit_agrees(kind: str, changes: dict[str, Any]) -> None:
    state = ar.new_game(2, seed=6)
    doc = {"format": "action", "format_version": 1, "rules_version": ar.RULES_VERSION, "type": kind,
           "player": 0, "row": 1, "col": 1, **changes}
    if kind == "draw" and "extra" not in changes:
        doc.pop("row")
        doc.pop("col")
    verdict = validate(state, json.dumps(doc))
    again = validate(state, doc)
    assert verdict == again
    try:
        accepted = submit(state, doc)
    except ar.AbyssError as error:
        assert not verdict.legal and error.code == verdict.code
    else:
        assert verdict.legal and accepted.state.seq == 1
