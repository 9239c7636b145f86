"""Determinism (section 9) and information (section 8): a game is a function of its variant, players,
seed and actions; a view is a function of public facts only."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.config import variant_fields
from abyss_rules.state import Dealer
from abyss_rules.testing import Game, games, variants


@pytest.mark.rule("9.1", "9.2", "9.4", "9.5", "1.4", "5.1", "5.2")
@given(games(max_actions=200))
def test_same_seed_and_actions_give_the_same_states(game: Game) -> None:
    state = ar.new_game(game.players, game.variant, game.seed)
    assert state == game.initial and hash(state) == hash(game.initial)
    for action, expected in zip(game.actions, game.states[1:], strict=True):
        state = ar.apply(state, action)
        assert state == expected and hash(state) == hash(expected)
        assert state.dealer.position == expected.dealer.position


@pytest.mark.rule("9.1")
@given(games(max_actions=0))
def test_an_int_seed_and_its_32_bytes_deal_the_same_game(game: Game) -> None:
    seed = game.seed
    as_bytes = seed if isinstance(seed, bytes) else seed.to_bytes(32, "big")
    assert ar.new_game(game.players, game.variant, as_bytes) == game.initial


_DIGEST = """
import hashlib, json
import attrs
import abyss_rules as ar


def _encode(value):
    # A JSON-ready, hash-seed-independent description of a state, secrets included.
    if isinstance(value, ar.Variant):
        return value.to_dict()
    if isinstance(value, bytes):
        return value.hex()
    if attrs.has(type(value)):
        return {f.name: _encode(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    return value


def digest(states):
    text = json.dumps([_encode(tuple(s)) for s in states], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
"""

_CHILD = _DIGEST + """
import sys
out = []
for case in json.load(sys.stdin):
    state = ar.new_game(case["players"], ar.Variant(**case["variant"]), case["seed"])
    states = [state]
    for kind, fields in case["actions"]:
        state = ar.apply(state, getattr(ar, kind)(*fields))
        states.append(state)
    out.append(digest(states))
print(json.dumps(out))
"""

_namespace: dict[str, Any] = {}
exec(_DIGEST, _namespace)
digest = _namespace["digest"]


@pytest.mark.rule("9.2", "9.3", "9.4", "9.5")
def test_a_replay_in_another_process_with_another_hash_seed_gives_the_same_states() -> None:
    """Nothing depends on Python's per-process hash randomisation or on object identity."""
    rng = random.Random(2024)
    jobs: list[dict[str, Any]] = []
    expected: list[str] = []
    tiny = ar.Variant(name="tiny", deck=((0, 3), (1, 3), (2, 3)), rows=2, cols=1, min_players=2,
                      max_players=3, initial_flips=1, target_score=40, reshuffle_keeps_top=False)
    for n, variant in enumerate([ar.Variant.standard(), ar.Variant.short(), ar.Variant.long(), tiny] * 2):
        players = variant.min_players + n % 2
        state = ar.new_game(players, variant, seed=n * 7919)
        states, done = [state], []
        while not state.is_over and len(done) < 400:
            action = rng.choice(ar.legal_actions(state))
            state = ar.apply(state, action)
            states.append(state)
            fields = [getattr(action, f.name) for f in attrs.fields(type(action))]
            done.append((type(action).__name__, fields))
        jobs.append({"variant": variant_fields(variant), "players": players, "seed": n * 7919,
                     "actions": done})
        expected.append(digest(states))
    env = dict(os.environ, PYTHONHASHSEED="12345")
    result = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(jobs), env=env,
                            capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(result.stdout) == expected


@pytest.mark.rule("9.1", "9.5", "9.6")
@given(games(max_actions=150))
def test_a_game_record_round_trips_and_replays_the_same_states(game: Game) -> None:
    """A record (set-up and actions) written to JSON and read back replays every state: equal values
    with equal hashes."""
    record = ar.Record.start(game.players, game.variant, game.seed).with_actions(*game.actions).sealed()
    loaded = ar.Record.from_json(record.to_json())
    assert loaded == record
    replayed = list(loaded.states())
    assert replayed == list(game.states)
    assert [hash(s) for s in replayed] == [hash(s) for s in game.states]
    assert loaded.replay() == game.final


# -- views: public facts only (rules 8.1-8.3) -----------------------------------------------------------


def with_other_secrets(state: ar.State, rng: random.Random) -> ar.State:
    """The same public facts with other secrets: the face-down cards and the draw pile reshuffled among
    themselves, and another seed (rule 8.2)."""
    hidden = [i for i in range(len(state.cards)) if not (state.face_up_mask | state.swallowed_mask) >> i & 1]
    pool = [state.cards[i] for i in hidden] + list(state.draw_pile)
    rng.shuffle(pool)
    cards = list(state.cards)
    for i in hidden:
        cards[i] = pool.pop()
    dealer = Dealer(bytes(rng.getrandbits(8) for _ in range(32)), state.dealer.position, ())
    return state._replace(cards=tuple(cards), draw_pile=tuple(pool), dealer=dealer)


@pytest.mark.rule("8.1", "8.2", "8.3")
@given(games(max_actions=150), st.randoms(use_true_random=False))
def test_a_view_depends_only_on_public_facts(game: Game, rng: random.Random) -> None:
    for state in game.states[:: max(1, len(game.states) // 4)] + (game.final,):
        twin = with_other_secrets(state, rng)
        for viewer in [None, *range(state.players)]:
            seen = ar.view(state, viewer)
            assert seen == ar.view(twin, viewer)
            assert ar.dumps_view(seen) == ar.dumps_view(ar.view(twin, viewer))  # the bytes sent, too
            for p, grid in enumerate(seen.grids):
                for s in range(grid.rows * grid.cols):
                    visible = grid.face_up[s]
                    assert (grid.cards[s] is not None) == visible  # no face-down value (8.2)
                    if visible:
                        assert grid.cards[s] == state.cards[p * state.variant.cells + s]


@pytest.mark.rule("8.1", "8.3")
@given(games(variants(), max_actions=150))
def test_a_view_lists_exactly_the_viewers_legal_actions(game: Game) -> None:
    state = game.final
    legal = ar.legal_actions(state)
    for viewer in range(state.players):
        assert ar.view(state, viewer).legal_actions == tuple(a for a in legal if a.player == viewer)
    assert ar.view(state).legal_actions == ()
