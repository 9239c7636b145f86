"""An exhaustive model check: every reachable state of miniature games, from every deal.

Each miniature is a tiny variant (a 2 x 1 or 2 x 2 grid, a deck of a few cards of 2 or 3 values, 1 or
2 players, a stalling cap, a round limit) whose reachable states can all be listed. The search starts
from every distinct order of the deck (``new_game(..., decks=[order])``, rule 9.6) and follows every
legal action breadth first; later rounds and reshuffles come from the game's seed (fixed per search),
so the check is complete for that seed. On every state it checks:

* every invariant of ``abyss_rules.testing.check_invariants``;
* that ``legal_actions`` is the canonical listing restated from the spec (section 3);
* that every legal action applies and takes an allowed phase transition (section 3, "Phases");
* with ``whole_space``: that every other action of the action space is rejected with the code of the
  spec's first failing check.

The number of states explored is printed (run with ``-s``) and recorded as a junit property. The
bigger miniatures run only under ``HYPOTHESIS_PROFILE=thorough``.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Callable

import attrs
import pytest
from tests.property.restated import TRANSITIONS, spec_code, spec_listing

import abyss_rules as ar
from abyss_rules.testing import action_space, check_invariants, deck_orders

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


def miniature(name: str, deck: tuple[tuple[int, int], ...], rows: int, cols: int, players: int,
              **changes: object) -> ar.Variant:
    fields: dict[str, object] = {"initial_flips": 1, "max_rounds": 1, "target_score": None,
                                 "max_turns_per_round": 3}
    fields.update(changes)
    return ar.Variant(name=name, deck=deck, rows=rows, cols=cols, min_players=players, max_players=players,
                      **fields)  # type: ignore[arg-type]


ALL_FEATURES = ("reshuffles", "with a swallowed column", "in last turns", "closed rounds", "capped rounds")


@attrs.frozen
class Miniature:
    variant: ar.Variant
    players: int
    whole_space: bool
    at_least: int  # a floor on the states found, so that a search that finds nothing fails
    seed: int = 0
    expect: tuple[str, ...] = ALL_FEATURES  # what the search must reach


ONE_PLAYER = tuple(f for f in ALL_FEATURES if f != "in last turns")  # the round ends at the closing (6.2)

DEFAULT = {
    "1p-2x1-cap6": Miniature(
        miniature("m1", ((0, 2), (1, 2)), 2, 1, 1, max_turns_per_round=6), 1, True, 1000, expect=ONE_PLAYER),
    "2p-2x1-cap3-binary": Miniature(
        miniature("m2", ((0, 3), (1, 3)), 2, 1, 2, closer_multiplier=3), 2, True, 2500,
        expect=(*ALL_FEATURES, "penalized rounds")),
    "2p-2x1-cap3-flags": Miniature(
        miniature("m4", ((0, 2), (1, 2), (2, 2)), 2, 1, 2, flip_turn=False, reshuffle_keeps_top=False,
                  swallow_on_final_reveal=False, closer_multiplier=1), 2, False, 12_000),
    "2p-2x1-noflips-cap5": Miniature(
        miniature("m5", ((0, 3), (1, 3)), 2, 1, 2, initial_flips=0, max_turns_per_round=5), 2, False, 3000),
    "1p-2x2-cap4": Miniature(
        miniature("m6", ((0, 3), (1, 3)), 2, 2, 1, max_turns_per_round=4), 1, False, 10_000,
        expect=ONE_PLAYER),
}

THOROUGH_ONLY = {
    "2p-2x1-cap3": Miniature(
        miniature("t0", ((-1, 2), (0, 2), (3, 2)), 2, 1, 2), 2, False, 14_000,
        expect=(*ALL_FEATURES, "penalized rounds")),
    "1p-2x1-3rounds-cap4": Miniature(
        miniature("t1", ((0, 2), (1, 2)), 2, 1, 1, max_rounds=3, max_turns_per_round=4), 1, True, 50_000,
        expect=ONE_PLAYER),
    "2p-2x1-cap4": Miniature(
        miniature("t2", ((0, 2), (1, 2), (2, 2)), 2, 1, 2, max_turns_per_round=4), 2, True, 20_000, seed=1),
    "2p-2x1-2rounds-previous-closer": Miniature(
        miniature("t3", ((0, 2), (1, 2), (2, 2)), 2, 1, 2, max_rounds=2, opener="previous_closer"),
        2, False, 100_000),
    "1p-2x2-cap6": Miniature(
        miniature("t4", ((0, 3), (1, 3)), 2, 2, 1, max_turns_per_round=6), 1, False, 20_000,
        expect=ONE_PLAYER),
}


def explore(m: Miniature) -> Counter[str]:
    """Breadth-first search from every deal, checking every state; returns what it saw."""
    v = m.variant
    seen: set[ar.State] = set()
    queue: deque[ar.State] = deque()
    for order in deck_orders(v):
        start = ar.new_game(m.players, v, m.seed, decks=[order])
        if start not in seen:
            seen.add(start)
            queue.append(start)
    space = action_space(v, m.players)
    seen_features: Counter[str] = Counter()
    while queue:
        state = queue.popleft()
        check_invariants(state)
        legal = ar.legal_actions(state)
        assert list(legal) == spec_listing(state)
        _note(state, seen_features)
        for action in legal:
            after = ar.apply(state, action)
            if type(action) is ar.Draw and not state.draw_pile:
                seen_features["reshuffles"] += 1
            assert (state.phase, after.phase, after.round != state.round) in TRANSITIONS
            assert after.seq == state.seq + 1
            if after not in seen:
                seen.add(after)
                queue.append(after)
        if m.whole_space:
            allowed = set(legal)
            for action in space:
                if action in allowed:
                    continue
                try:
                    ar.apply(state, action)
                except ar.IllegalActionError as error:  # (check() agrees: test_legal_actions.py)
                    assert error.code == spec_code(state, action), (state, action, error)
                else:
                    raise AssertionError(f"{action!r} is not listed but was accepted")
    seen_features["states"] = len(seen)
    return seen_features


def _note(state: ar.State, features: Counter[str]) -> None:
    features["with a swallowed column"] += state.swallowed_mask != 0
    features["in last turns"] += state.closer is not None and not state.is_over
    if state.is_over:
        result = state.history[-1]
        features["finished games"] += 1
        features["closed rounds"] += result.closer is not None
        features["capped rounds"] += result.capped
        features["penalized rounds"] += result.penalized


def _run(name: str, m: Miniature, record_property: Callable[[str, object], None]) -> None:
    seen = explore(m)
    print(f"\nmodel check {name}: {dict(seen)}")
    record_property(f"states[{name}]", seen["states"])
    assert seen["states"] >= m.at_least
    for feature in m.expect:
        assert seen[feature] > 0, feature  # the miniature reaches the interesting cases


@pytest.mark.rule("2.1", "2.2", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.9", "3.10", "4.1", "4.2", "4.3",
                  "5.1", "5.2", "5.4", "6.1", "6.2", "6.3", "6.4", "6.5", "6.7", "7.1", "7.3", "7.4", "7.5")
@pytest.mark.parametrize("name", sorted(DEFAULT))
def test_every_reachable_state_of_a_miniature(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    _run(name, DEFAULT[name], record_property)


@pytest.mark.rule("2.3", "2.4", "6.6", "7.1", "7.3", "1.4", "9.5")
@pytest.mark.skipif(not THOROUGH, reason="bigger miniatures: run with HYPOTHESIS_PROFILE=thorough")
@pytest.mark.parametrize("name", sorted(THOROUGH_ONLY))
def test_every_reachable_state_of_a_bigger_miniature(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    _run(name, THOROUGH_ONLY[name], record_property)
