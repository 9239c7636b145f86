"""Property tests: `loads_state` reads any text -- canonical, edited or mutated -- exactly as the
general path (`json`, then `state_from_dict`) reads it, whether or not its fast path for canonical
text takes it (see tests/test_codec_fast_paths.py)."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.property.test_documents import _mutate

import abyss_rules as ar
from abyss_rules.codec import _strict as strict
from abyss_rules.codec import state_from_dict, state_to_dict
from abyss_rules.testing import Game, games

GAMES = games(finish_rounds=True, max_actions=250)
TOKENS = re.compile(r"-?[0-9]+|true|false|null")
REPLACEMENTS = ["0", "-1", "1", "99", "-0", "007", "1.5", "1e2", "true", "false", "null", '"x"', "[]", "{}",
                "[0]", "2", "12", "-2", "100000000000000000000"]


def outcome(load: Any, data: Any) -> tuple[str, Any]:
    try:
        return "state", load(data)
    except ar.DecodeError as error:
        return "error", (error.code, error.path, error.message, error.rule)


def canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _edit(text: str, rng: random.Random) -> str:
    tokens = list(TOKENS.finditer(text))
    choice = rng.randrange(4)
    if choice == 0:  # one number or literal replaced
        token = rng.choice(tokens)
        return text[:token.start()] + rng.choice(REPLACEMENTS) + text[token.end():]
    if choice == 1:  # one character dropped
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    if choice == 2:  # a short piece repeated
        i = rng.randrange(len(text))
        return text[:i] + text[i:i + rng.randrange(1, 12)] + text[i:]
    a, b = sorted(rng.sample(tokens, 2), key=lambda t: t.start())  # two values swapped
    return text[:a.start()] + b[0] + text[a.end():b.start()] + a[0] + text[b.end():]


@pytest.mark.rule("1.1")
@given(GAMES, st.randoms(use_true_random=False))
def test_edited_canonical_text_loads_as_the_general_path_loads_it(game: Game, rng: random.Random) -> None:
    for state in (game.states[len(game.states) // 2], game.final):
        text = ar.dumps_state(state)
        assert outcome(ar.loads_state, text) == ("state", state)
        for _ in range(4):
            edited = _edit(text, rng)
            assert outcome(ar.loads_state, edited) == outcome(lambda t: state_from_dict(strict.parse(t)),
                                                              edited)


@pytest.mark.rule("1.1")
@given(GAMES, st.randoms(use_true_random=False))
def test_mutated_documents_load_the_same_from_canonical_text(game: Game, rng: random.Random) -> None:
    doc = state_to_dict(game.final)
    for _ in range(3):
        mutated = copy.deepcopy(doc)
        _mutate(mutated, rng)
        assert outcome(ar.loads_state, canonical(mutated)) == outcome(state_from_dict, mutated)
