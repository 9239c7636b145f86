"""Every integer the formats allow is written exactly as `json` writes it (issue 12, section 2).

The direct writers of `dumps_state`, `state_hash`, `dumps_view` / `View.to_json` (and
`dumps_events`) must give the same text as `canonical_json` of the document's dict for any
integer in the allowed range of every integer field: card values (`MIN_CARD_VALUE` to
`MAX_CARD_VALUE`), totals and scores (+-`MAX_INT`), counters (`seq`, `turns`, `round`, the
dealer's position: 0 to `MAX_INT`) and seats. A writer that looked integers up by position in
a table once spelled 2100 as -460 and 2104 as -456.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.cards import MAX_CARD_VALUE, MIN_CARD_VALUE
from abyss_rules.codec import canonical_json, events_to_dict, state_hash, state_to_dict, view_to_dict
from abyss_rules.codec._strict import MAX_INT
from abyss_rules.config import MAX_TARGET_SCORE


def near_and_far(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers from `low` to `high`, half of them within 3000 of zero (where a table would be)."""
    return st.one_of(st.integers(max(low, -3000), min(high, 3000)), st.integers(low, high))


CARD = near_and_far(MIN_CARD_VALUE, MAX_CARD_VALUE)
SIGNED = near_and_far(-MAX_INT, MAX_INT)
COUNTER = near_and_far(0, MAX_INT)
# Every integer from -3000 to 3000 (the old table held -512 to 2047 and wrapped around outside it),
# and the ends of every range.
SWEEP = (tuple(range(-3000, 3001)) + (MIN_CARD_VALUE, MAX_CARD_VALUE, -MAX_INT, MAX_INT, 2 ** 31, -(2 ** 31)))


def reference(doc: Any) -> str:
    """The canonical text as `json` writes it (independently of the codec's encoder)."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def assert_state_spelled(state: ar.State) -> None:
    expected = reference(state_to_dict(state))
    assert ar.dumps_state(state) == expected
    assert canonical_json(state_to_dict(state)) == expected
    assert state_hash(state) == hashlib.sha256(expected.encode()).hexdigest()


def assert_view_spelled(v: ar.View) -> None:
    expected = reference(view_to_dict(v))
    assert ar.dumps_view(v) == expected
    assert v.to_json() == expected


def played(variant: ar.Variant, players: int, seed: int, steps: int) -> list[tuple[ar.State, Any, Any]]:
    """`(state, action, events)` along a seeded random game of `variant`."""
    rng = random.Random(seed)
    state = ar.new_game(players, variant=variant, seed=seed)
    out = []
    for _ in range(steps):
        if state.is_over:
            break
        action = rng.choice(ar.legal_actions(state))
        after, events = ar.apply_with_events(state, action)
        out.append((after, action, events))
        state = after
    return out


def second_round(variant: ar.Variant, players: int, seed: int) -> ar.State:
    """A state with a finished round in its history (first legal action until then)."""
    state = ar.new_game(players, variant=variant, seed=seed)
    while not state.history and not state.is_over:
        state = ar.apply(state, ar.legal_actions(state)[-1])
    return state


@st.composite
def big_variants(draw: st.DrawFn) -> ar.Variant:
    """Variants whose cards are drawn from the whole allowed range of card values."""
    values = sorted(draw(st.sets(CARD, min_size=1, max_size=6)))
    per_value = -(-(4 * 12 + 2) // len(values))
    return ar.Variant(name="big", deck=tuple((value, per_value) for value in values), max_players=4,
                      target_score=draw(st.one_of(st.none(), st.integers(1, MAX_TARGET_SCORE))),
                      max_rounds=draw(st.integers(1, 3)))


@pytest.mark.rule("1.1", "7.1")
@given(big_variants(), st.integers(2, 4), st.integers(0, 2 ** 32))
def test_games_with_any_card_values_are_spelled_exactly(variant: ar.Variant, players: int, seed: int) -> None:
    for state, action, events in played(variant, players, seed, steps=80):
        assert_state_spelled(state)
        assert ar.loads_state(ar.dumps_state(state)) == state
        for seat in (None, *range(players)):
            assert_view_spelled(ar.view(state, seat))
        doc = events_to_dict(events, action=action, seq=state.seq)
        assert ar.dumps_events(events, action=action, seq=state.seq) == reference(doc)


def _with_ints(draw: st.DrawFn, values: tuple[int, ...], ints: st.SearchStrategy[int]) -> tuple[int, ...]:
    return tuple(draw(ints) for _ in values)


@st.composite
def odd_states(draw: st.DrawFn) -> ar.State:
    """A real state (a finished round in its history) whose integer fields are redrawn from their ranges."""
    base = second_round(ar.Variant.standard(), draw(st.integers(2, 3)), draw(st.integers(0, 50)))
    last = base.history[-1]
    grids = tuple(ar.Grid(rows=g.rows, cols=g.cols, face_up=g.face_up, swallowed=g.swallowed,
                          cards=tuple(None if c is None else draw(CARD) for c in g.cards))
                  for g in last.grids)
    result = attrs.evolve(last, round=draw(COUNTER), turns=draw(COUNTER), grids=grids,
                          raw_scores=_with_ints(draw, last.raw_scores, SIGNED),
                          scores=_with_ints(draw, last.scores, SIGNED),
                          totals=_with_ints(draw, last.totals, SIGNED),
                          closer=draw(st.one_of(st.none(), st.integers(0, 2))))
    dealer = attrs.evolve(base.dealer, position=draw(COUNTER),
                          decks=(tuple(draw(st.lists(CARD, max_size=8))),))
    return base._replace(
        cards=_with_ints(draw, base.cards, CARD), draw_pile=_with_ints(draw, base.draw_pile[:20], CARD),
        discard_pile=tuple(draw(st.lists(CARD, min_size=1, max_size=20))),
        drawn=draw(st.one_of(st.none(), CARD)), totals=_with_ints(draw, base.totals, SIGNED),
        opening=tuple(_with_ints(draw, flips, CARD) for flips in base.opening),
        round=draw(COUNTER), turns=draw(COUNTER), seq=draw(COUNTER), history=(result,), dealer=dealer,
    )


@given(odd_states())
def test_every_integer_field_of_a_state_is_spelled_exactly(state: ar.State) -> None:
    assert_state_spelled(state)


@given(odd_states(), st.one_of(st.none(), st.integers(0, 1)), COUNTER, COUNTER)
def test_every_integer_field_of_a_view_is_spelled_exactly(
    state: ar.State, seat: int | None, size: int, seq: int
) -> None:
    v = attrs.evolve(ar.view(state._replace(round=1, seq=0), seat), round=state.round, seq=seq,
                     draw_pile_size=size, turns=state.turns)
    assert_view_spelled(v)


def test_a_sweep_of_every_small_integer_is_spelled_exactly() -> None:
    # Deterministic and exhaustive over the old table's range and around it: fails on any wrap-around.
    state = second_round(ar.Variant.standard(), 2, 7)
    sweep = state._replace(draw_pile=SWEEP, discard_pile=SWEEP, totals=(SWEEP[0], SWEEP[-1]))
    assert_state_spelled(sweep)
    for number in (*range(-3000, 3001, 7), -2561, -2560, -513, -512, 2047, 2048, 2559, 2560, *SWEEP[-6:]):
        assert_state_spelled(state._replace(seq=abs(number), turns=abs(number), round=abs(number),
                                            drawn=number, totals=(number, -number)))
    v = ar.view(state, 0)
    assert_view_spelled(attrs.evolve(v, discard_pile=SWEEP, totals=(SWEEP[0], SWEEP[-1])))
    result = state.history[0]
    for number in (2048, 2100, 2559, -513, -2500, MAX_INT):
        odd = attrs.evolve(result, round=abs(number), turns=abs(number), raw_scores=(number, number),
                           scores=(number, -number), totals=(number, 0))
        assert_state_spelled(state._replace(history=(odd,)))
        assert_view_spelled(attrs.evolve(v, history=(odd,)))


@pytest.mark.rule("7.1", "7.2")
def test_the_reported_corruption_is_gone() -> None:
    # A custom deck of 2100s, and a target of 2500 with a total of 2104: saved, shown and loaded exactly.
    variant = ar.Variant(name="big", deck=((2100, 200),), target_score=2500)
    state = ar.new_game(2, variant=variant, seed=1)
    assert "-460" not in ar.dumps_state(state) and ar.dumps_state(state).count("2100") > 100
    late = state._replace(totals=(2104, 0))
    assert '"totals":[2104,0]' in ar.dumps_state(late)
    assert '"totals":[2104,0]' in ar.dumps_view(ar.view(late, 0))
    # A whole game of such cards (not all equal: they would all be swallowed) saves and loads exactly.
    variant = variant.replace(deck=((2100, 70), (2101, 70), (2102, 70)), max_rounds=1)
    final = played(variant, 2, seed=3, steps=2000)[-1][0]
    assert final.is_over and min(final.totals) > 2559
    assert ar.loads_state(ar.dumps_state(final)) == final
    assert_state_spelled(final)
