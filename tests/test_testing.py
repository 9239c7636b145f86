"""Tests of abyss_rules.testing: the strategies draw what they promise, reach the interesting cases,
and check_invariants catches every kind of broken state."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.actions import ACTION_TYPES
from abyss_rules.config import variant_fields
from abyss_rules.errors import InvalidStateError
from abyss_rules.rules import _reachable as reachable
from abyss_rules.testing import (
    Game,
    InvariantError,
    action_space,
    actions,
    check_invariants,
    deck_orders,
    games,
    legal_actions,
    seeds,
    states,
    variants,
)

TINY = ar.Variant(name="tiny", deck=((0, 2), (1, 2), (2, 2)), rows=2, cols=1, min_players=1, max_players=2,
                  initial_flips=1, target_score=None, max_rounds=1, max_turns_per_round=6)


def finished(seed: int = 3) -> ar.State:
    state = ar.new_game(2, ar.Variant.short(), seed)
    while not state.is_over:
        state = ar.apply(state, ar.legal_actions(state)[-1])  # flips and discards: rounds end quickly
    return state


def in_turn(seed: int = 1) -> ar.State:
    return ar.new_game(2, ar.Variant.standard().replace(initial_flips=0), seed)


# -- the optional dependency -------------------------------------------------------------------------


# -- check_invariants ---------------------------------------------------------------------------------


def test_states_of_real_games_pass() -> None:
    for state in (ar.new_game(2, seed=1), in_turn(), finished(), ar.apply(in_turn(), ar.Draw(0))):
        check_invariants(state)


def _corruptions() -> dict[str, Callable[[], ar.State]]:
    """One hand-broken state per invariant; each breaks only that one (the earlier checks pass)."""
    start = ar.new_game(2, seed=1)  # opening, nothing flipped
    turn = in_turn()  # seat 0 to play, no flips owed
    over = finished()

    def partly_swallowed() -> ar.State:
        return start._replace(swallowed_mask=1, cards=(0,) + start.cards[1:],
                              draw_pile=start.draw_pile + (start.cards[0],))

    def complete_column_left() -> ar.State:  # seat 0's column 0 (spaces 0, 4, 8) face up, all equal
        cards = list(turn.cards)
        pool = Counter(turn.draw_pile)
        value = next(v for v, n in pool.items() if n >= 3)
        moved = [cards[s] for s in (0, 4, 8)]
        for s in (0, 4, 8):
            cards[s] = value
        draw = list(turn.draw_pile)
        for _ in range(3):
            draw.remove(value)
        return turn._replace(cards=tuple(cards), face_up_mask=0b100010001, draw_pile=tuple(draw + moved))

    return {
        "shape": lambda: start._replace(opening=start.opening + ((),)),
        "swallowed_spaces": partly_swallowed,
        "card_conservation": lambda: start._replace(draw_pile=start.draw_pile[1:]),
        "discard_pile": lambda: start._replace(discard_pile=(),
                                               draw_pile=start.discard_pile + start.draw_pile),
        "drawn_card": lambda: turn._replace(drawn=turn.draw_pile[0], draw_pile=turn.draw_pile[1:]),
        "turn": lambda: turn._replace(turn=2),
        "turns": lambda: start._replace(turns=1),
        "opening_flips": lambda: start._replace(opening=((5,), ())),
        "closer": lambda: turn._replace(closer=1),
        "history": lambda: turn._replace(totals=(0, 7)),
        # one card face down:
        "game_over": lambda: over._replace(face_up_mask=over.face_up_mask & (over.face_up_mask - 1)),
        "complete_column": complete_column_left,
    }


CORRUPTIONS = _corruptions()


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_each_invariant_catches_its_broken_state(name: str) -> None:
    expected = "swallowed_spaces" if name == "complete_column" else name
    broken = CORRUPTIONS[name]()
    with pytest.raises(InvariantError) as info:
        check_invariants(broken)
    assert info.value.invariant == expected, str(info.value)
    assert isinstance(info.value, AssertionError) and str(info.value).startswith(f"[{expected}]")


def test_the_legal_actions_and_winners_invariants(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both follow from the others for every state the engine can build, so the engine is patched."""
    turn, over = in_turn(), finished()
    monkeypatch.setattr(reachable, "legal_actions", lambda state: ())
    with pytest.raises(InvariantError, match=r"^\[legal_actions\] /phase: no legal action"):
        check_invariants(turn)
    monkeypatch.setattr(reachable, "legal_actions", lambda state: (ar.Draw(0),))
    with pytest.raises(InvariantError, match=r"^\[legal_actions\] /phase: 1 legal actions after the game"):
        check_invariants(over)
    monkeypatch.undo()
    monkeypatch.setattr(ar.State, "winners", property(lambda self: (0, 1)))
    with pytest.raises(InvariantError) as info:
        check_invariants(over)
    assert info.value.invariant == "winners" and info.value.rule == "7.4"


def test_check_invariants_needs_a_state() -> None:
    with pytest.raises(InvalidStateError) as info:
        check_invariants(tuple(ar.new_game(2, seed=1)))  # type: ignore[arg-type]
    assert info.value.code == "invalid_state"


# -- the strategies ------------------------------------------------------------------------------------


@given(variants())
def test_variants_are_valid_and_include_presets_and_generated(variant: ar.Variant) -> None:
    assert ar.Variant(**variant_fields(variant)) == variant  # passes validation again (rule 10.3)
    assert variant.name in ("standard", "short", "long", "generated")
    if variant.name == "generated":
        assert 2 <= variant.rows <= 4 and 1 <= variant.cols <= 4 and variant.max_players <= 4


@given(seeds())
def test_seeds_are_valid(seed: int | bytes) -> None:
    ar.new_game(2, seed=seed)
    assert (isinstance(seed, int) and 0 <= seed < 2**256) or (isinstance(seed, bytes) and len(seed) == 32)


@given(games(max_actions=50))
def test_a_game_is_its_actions_applied_in_turn(game: Game) -> None:
    assert len(game.states) == len(game) + 1 <= 51
    assert game.initial == ar.new_game(game.players, game.variant, game.seed)
    assert game.variant.min_players <= game.players <= game.variant.max_players
    for before, action, after in game.steps():
        assert action in ar.legal_actions(before) and ar.apply(before, action) == after
    assert game.final is game.states[-1]


@given(games(TINY, players=2, play_out=True, max_actions=500, seed=7))
def test_play_out_plays_to_the_end(game: Game) -> None:
    assert game.final.is_over and game.seed == 7 and game.players == 2


@given(games(TINY, st.integers(1, 2), max_actions=10), st.data())
def test_legal_actions_draws_only_legal_actions(game: Game, data: st.DataObject) -> None:
    if game.final.is_over:
        with pytest.raises(ar.IllegalActionError) as info:
            legal_actions(game.final)
        assert info.value.code == "game_over"
    else:
        assert data.draw(legal_actions(game.final)) in ar.legal_actions(game.final)


@given(states(TINY, 2, max_actions=30))
def test_states_are_reachable_states(state: ar.State) -> None:
    check_invariants(state)
    assert state.variant == TINY and state.players == 2


def _collect(strategy: st.SearchStrategy[object], examples: int) -> list[object]:
    """Draw ``examples`` values, reproducibly (derandomized, no example database)."""
    drawn: list[object] = []

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: object) -> None:
        drawn.append(value)

    collect()
    return drawn


def test_actions_reach_every_kind_seat_and_space_in_and_out_of_range() -> None:
    v = ar.Variant.standard()
    drawn = _collect(actions(v, 3), 300)
    assert {type(a) for a in drawn} == set(ACTION_TYPES)
    seats = {a.player for a in drawn}  # type: ignore[attr-defined]
    assert set(range(-1, 4)) <= seats and any(abs(s) > 100 for s in seats)
    rows = {a.row for a in drawn if hasattr(a, "row")}  # type: ignore[attr-defined]
    cols = {a.col for a in drawn if hasattr(a, "col")}  # type: ignore[attr-defined]
    assert set(range(-1, v.rows + 1)) <= rows and set(range(-1, v.cols + 1)) <= cols


def test_games_reach_the_interesting_cases() -> None:
    """Over 100 reproducible examples, the default games() reach reshuffles of both kinds, swallows,
    closed and capped rounds, penalties, new rounds and finished games."""
    seen: Counter[str] = Counter()
    for game in _collect(games(max_actions=300, finish_rounds=True), 100):
        assert isinstance(game, Game)
        for before, action, after in game.steps():
            if type(action) is ar.Draw and not before.draw_pile:
                keeps_top = game.variant.reshuffle_keeps_top
                seen["reshuffle keeping the top" if keeps_top else "full reshuffle"] += 1
            if after.round == before.round and after.swallowed_mask & ~before.swallowed_mask:
                seen["swallow"] += 1
            if len(after.history) > len(before.history):
                result = after.history[-1]
                seen["capped round" if result.capped else "closed round"] += 1
                seen["penalty"] += result.penalized
                seen["new round" if not after.is_over else "game over"] += 1
                seen["swallow at the final reveal"] += any(
                    grid.swallowed != before.grid(p).swallowed
                    for p, grid in enumerate(result.grids) if p != action.player)
        seen["preset" if game.variant.name != "generated" else "generated variant"] += 1
    for case in ("reshuffle keeping the top", "full reshuffle", "swallow", "capped round", "closed round",
                 "penalty", "new round", "game over", "swallow at the final reveal", "preset",
                 "generated variant"):
        assert seen[case] > 0, (case, seen)


def test_action_space_lists_every_action_once() -> None:
    v = ar.Variant.standard()
    space = action_space(v, 3)
    assert len(space) == len(set(space)) == 4 * 5 * (v.rows + 2) * (v.cols + 2) + 5
    state = ar.new_game(3, v, seed=2)
    assert set(ar.legal_actions(state)) <= set(space)


def test_deck_orders_are_every_distinct_permutation() -> None:
    orders = list(deck_orders(TINY))
    assert len(orders) == len(set(orders)) == math.factorial(6) // 2**3
    assert all(sorted(order) == list(TINY.unshuffled_deck) for order in orders)
    ar.new_game(2, TINY, 0, decks=orders[:1])


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: variants(max_players=0), "invalid_variant"),
        (lambda: variants(max_rows=1), "invalid_variant"),
        (lambda: variants(presets=False, generated=False), "invalid_variant"),
        (lambda: games(max_actions=-1), "invalid_variant"),
        (lambda: games(max_actions=3001), "invalid_variant"),
        (lambda: games(variant="standard"), "invalid_variant"),  # type: ignore[arg-type]
        (lambda: games(players=True), "invalid_players"),
        (lambda: actions("standard", 2), "invalid_variant"),  # type: ignore[arg-type]
        (lambda: actions(ar.Variant.standard(), 0), "invalid_players"),
        (lambda: action_space(ar.Variant.standard(), 9), "invalid_players"),
        (lambda: list(deck_orders(None)), "invalid_variant"),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_get_a_config_error(call: Callable[[], object], code: str) -> None:
    with pytest.raises(ar.ConfigError) as info:
        call()
    assert info.value.code == code


def test_legal_actions_needs_a_state() -> None:
    with pytest.raises(InvalidStateError) as info:
        legal_actions("state")  # type: ignore[arg-type]
    assert info.value.code == "invalid_state"


@pytest.mark.rule("9.5")
@settings(max_examples=10, deadline=None)
@given(games(ar.Variant.short(), players=2, max_actions=40))
def test_a_drawn_game_is_a_record_plus_its_states(game: Game) -> None:
    assert tuple(game.to_record().states()) == game.states
