"""Events: what each action caused, in order, from public facts only."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from tests.builders import open_round, stacked, tiny

import abyss_rules as ar
from abyss_rules.codec import canonical_json, events_to_dict
from abyss_rules.events import (
    EVENT_TYPES,
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardRevealed,
    ColumnSwallowed,
    FinalReveal,
    GameOver,
    NewRound,
    OpeningDone,
    Reshuffled,
    RoundClosed,
    RoundScored,
)
from abyss_rules.public_table import PublicTable, apply_events


def public_grids(grids: tuple[ar.Grid, ...]) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple((g.cards[s] if g.face_up[s] else None, g.face_up[s], g.swallowed[s])
                       for s in range(len(g.cards))) for g in grids)


def check_game(states: list[ar.State], actions: list[ar.Action]) -> int:
    """Follow a game's events documents on a client's table (`apply_events`) and compare it with
    every view; return the number of events seen."""
    table = PublicTable.from_view(ar.view(states[0]))
    seen = 0
    for before, action, after in zip(states, actions, states[1:], strict=False):
        new, events = ar.apply_with_events(before, action)
        assert new == after
        assert all(type(event) in EVENT_TYPES for event in events)
        seen += len(events)
        document = ar.dumps_events(events, action=action, seq=after.seq)
        table = apply_events(table, document)
        assert table == apply_events(PublicTable.from_view(ar.view(before)), events)  # objects too
        if len(after.history) > len(before.history):
            scored = [event for event in events if isinstance(event, RoundScored)]
            assert len(scored) == 1 and scored[0].totals == table.totals == after.totals
            assert scored[0].scores == after.history[-1].scores
            assert scored[0].closer == after.history[-1].closer
        if after.is_over:
            assert table.over and table.winners == after.winners
        else:
            assert table.grids == public_grids(ar.view(after).grids)
        assert table.agrees_with(ar.view(after, action.player)), (before.seq, events)
        doc = json.loads(document)
        assert [e["type"] for e in doc["events"]] == [e.TYPE for e in events]
    return seen


SMALL_DECK = ar.Variant(name="small deck", deck=((0, 5), (1, 5), (2, 5)), rows=3, cols=2, min_players=1,
                        max_players=2, initial_flips=1, max_rounds=3)
"""15 cards: with 2 players the draw pile starts with 2, so reshuffles happen (rules 5.1, 5.2)."""


def random_game(variant: ar.Variant, players: int, seed: int) -> tuple[list[ar.State], list[ar.Action]]:
    rng = random.Random(seed)
    state = ar.new_game(players, variant, seed)
    states, actions = [state], []
    while not state.is_over:
        action = rng.choice(ar.legal_actions(state))
        state = ar.apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


@pytest.mark.rule("1.4", "2.1", "2.3", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "4.1", "4.2", "4.3", "5.1",
                  "5.2", "6.1", "6.3", "6.4", "6.7", "7.1", "7.2", "7.4", "8.1")
@pytest.mark.parametrize("variant, players", [
    (ar.Variant.standard(), 2),
    (ar.Variant.standard().replace(opener="previous_closer"), 4),
    (tiny(reshuffle_keeps_top=False), 3),
    (tiny(initial_flips=0, max_turns_per_round=9, swallow_on_final_reveal=False), 2),
    (tiny(min_players=1, deck=((0, 30), (5, 14)), closer_multiplier=3), 1),
    (SMALL_DECK, 2),
    (SMALL_DECK.replace(reshuffle_keeps_top=False, flip_turn=False), 2),
])
def test_events_replayed_on_a_public_model_give_every_view(variant: ar.Variant, players: int) -> None:
    kinds: set[str] = set()
    for seed in range(3):
        states, actions = random_game(variant, players, seed)
        assert check_game(states, actions) > 0
        for before, action in zip(states, actions, strict=False):
            kinds.update(event.TYPE for event in ar.apply_with_events(before, action)[1])
    assert {"card_revealed", "round_scored", "final_reveal", "game_over"} <= kinds
    if variant.name == "small deck":
        assert "reshuffled" in kinds


def test_every_event_type_occurs_in_some_game() -> None:
    kinds: set[str] = set()
    for variant in (SMALL_DECK.replace(reshuffle_keeps_top=False), tiny(initial_flips=0, max_rounds=2)):
        for seed in range(4):
            states, actions = random_game(variant, 2, seed)
            for before, action in zip(states, actions, strict=False):
                kinds.update(event.TYPE for event in ar.apply_with_events(before, action)[1])
    assert kinds == {cls.TYPE for cls in EVENT_TYPES}


@pytest.mark.rule("2.1", "2.3")
def test_opening_flips_and_opening_done() -> None:
    v = tiny(initial_flips=1)
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    state, events = ar.apply_with_events(state, ar.Flip(0, 1, 1))
    assert events == (CardRevealed(0, 1, 1, 4, "opening_flip"),)
    state, events = ar.apply_with_events(state, ar.Flip(1, 0, 1))
    assert events == (CardRevealed(1, 0, 1, 6, "opening_flip"), OpeningDone(1))


@pytest.mark.rule("3.3", "3.8", "4.1", "4.2")
def test_take_discard_swallow() -> None:
    v = tiny(initial_flips=1)
    state = stacked(v, 2, grids=[[3, 1, 3, 2], [4, 5, 6, 7]], discard=3)
    state = open_round(state, [[(0, 0)], [(0, 0)]])  # seat 1 has 4 > 3: seat 1 opens
    state = ar.apply(state, ar.Flip(1, 1, 1))  # seat 1's flip-only turn
    # seat 0 takes the 3 onto (1, 0): its column 0 is now 3 over 3
    after, events = ar.apply_with_events(state, ar.TakeDiscard(0, 1, 0))
    assert events == (
        CardPlaced(0, 1, 0, 3, "discard"),
        CardDiscarded(0, 3, "replaced", 1, 0, True),
        ColumnSwallowed(0, 0, 3, 2, False),
    )
    assert after.discard_pile[:3] == (3, 3, 3)


@pytest.mark.rule("3.4", "3.5", "3.6")
def test_draw_then_place_or_discard() -> None:
    v = tiny(initial_flips=1)
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0, -1])
    state = open_round(state, [[(0, 0)], [(0, 0)]])  # seat 1 opens (5 > 1)
    state, events = ar.apply_with_events(state, ar.Draw(1))
    assert events == (CardDrawn(1, 0),)
    state, events = ar.apply_with_events(state, ar.PlaceDrawn(1, 1, 1))
    assert events == (CardPlaced(1, 1, 1, 0, "drawn"), CardDiscarded(1, 8, "replaced", 1, 1, True))
    state, events = ar.apply_with_events(state, ar.Draw(0))
    assert events == (CardDrawn(0, -1),)
    state, events = ar.apply_with_events(state, ar.DiscardDrawn(0, 0, 1))
    assert events == (CardDiscarded(0, -1, "drawn", None, None, False),
                      CardRevealed(0, 0, 1, 2, "discard_drawn"))


@pytest.mark.rule("5.1", "5.2")
def test_reshuffle_names_sizes_and_the_public_top_only() -> None:
    for keeps_top in (True, False):
        v = tiny(reshuffle_keeps_top=keeps_top, initial_flips=1)
        state = stacked(v, 2)
        state = open_round(state, [[(0, 0)], [(0, 0)]])
        state = state._replace(draw_pile=(), discard_pile=state.draw_pile + state.discard_pile)
        assert type(state) is ar.State
        after, events = ar.apply_with_events(state, ar.Draw(state.turn))
        reshuffled, drawn = events
        assert isinstance(reshuffled, Reshuffled) and isinstance(drawn, CardDrawn)
        assert reshuffled.draw_pile_size == len(after.draw_pile) + 1
        assert after.discard_pile == (reshuffled.top_discard,)
        if keeps_top:
            assert reshuffled.top_discard == state.discard_pile[0]
        assert set(reshuffled.to_dict()) == {"type", "draw_pile_size", "top_discard"}


@pytest.mark.rule("6.1", "6.2", "6.3", "6.4", "7.1", "1.4")
def test_closing_and_the_end_of_a_round() -> None:
    v = tiny(initial_flips=1)
    state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9)
    state = open_round(state, [[(0, 0)], [(0, 0)]])  # seat 1 opens
    state = ar.apply(state, ar.Flip(1, 0, 1))
    state = ar.apply(state, ar.Flip(0, 0, 1))
    state = ar.apply(state, ar.Flip(1, 1, 0))
    state = ar.apply(state, ar.Flip(0, 1, 0))
    state, events = ar.apply_with_events(state, ar.Flip(1, 1, 1))
    assert events == (CardRevealed(1, 1, 1, 8, "flip"), RoundClosed(1))
    after, events = ar.apply_with_events(state, ar.Flip(0, 1, 1))
    assert events[:2] == (CardRevealed(0, 1, 1, 4, "flip"), FinalReveal(()))
    scored = events[2]
    assert isinstance(scored, RoundScored) and scored.raw_scores == (10, 26) and scored.closer == 1
    assert scored.scores == after.history[0].scores and scored.totals == after.totals
    assert events[3] == NewRound(2, len(after.draw_pile), after.discard_pile[0])
    assert len(events) == 4
    assert all(value is None for value in ar.view(after).grids[0].cards)


@pytest.mark.rule("6.3", "4.3", "7.2", "7.4")
def test_final_reveal_swallows_and_game_over() -> None:
    v = tiny(initial_flips=1, max_rounds=1)
    state = stacked(v, 2, grids=[[1, 2, 1, 4], [5, 6, 7, 8]], discard=9)
    state = open_round(state, [[(0, 1)], [(0, 0)]])  # seat 1 opens
    state = ar.apply(state, ar.Flip(1, 0, 1))
    state = ar.apply(state, ar.Flip(0, 1, 1))
    state = ar.apply(state, ar.Flip(1, 1, 0))
    state, events = ar.apply_with_events(state, ar.Flip(0, 1, 0))   # seat 0 keeps (0, 0) face down
    state, events = ar.apply_with_events(state, ar.Flip(1, 1, 1))   # seat 1 closes; seat 0's turn is next
    assert events[-1] == RoundClosed(1)
    # seat 0's last turn: it takes the top discard onto (1, 1), leaving (0, 0) face down
    after, events = ar.apply_with_events(state, ar.TakeDiscard(0, 1, 1))
    types = [event.TYPE for event in events]
    assert types == ["card_placed", "card_discarded", "final_reveal", "column_swallowed", "round_scored",
                     "game_over"]
    reveal = events[2]
    assert isinstance(reveal, FinalReveal) and reveal.cards == ((0, 0, 0, 1),)
    assert events[3] == ColumnSwallowed(0, 0, 1, 2, True)
    assert events[-1] == GameOver(after.winners, after.totals)


@pytest.mark.rule("8.1", "8.2")
def test_a_new_round_names_no_dealt_card() -> None:
    states, actions = random_game(ar.Variant.standard(), 2, seed=7)
    found = 0
    for before, action in zip(states, actions, strict=False):
        after, events = ar.apply_with_events(before, action)
        for event in events:
            if isinstance(event, NewRound):
                found += 1
                assert set(event.to_dict()) == {"type", "round", "draw_pile_size", "top_discard"}
                assert event.top_discard == after.discard_pile[0]   # face up: public (rule 8.1)
    assert found >= 1


def test_errors_are_those_of_apply_and_nothing_changes() -> None:
    state = ar.new_game(2, seed=1)
    with pytest.raises(ar.IllegalActionError) as info:
        ar.apply_with_events(state, ar.Draw(0))
    assert info.value.code == "wrong_phase"
    with pytest.raises(ar.MalformedActionError):
        ar.apply_with_events(state, "0f00")  # type: ignore[arg-type]


def test_events_document() -> None:
    state = ar.new_game(2, seed=3)
    after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    doc = events_to_dict(events, action=ar.Flip(0, 1, 2), seq=after.seq)
    assert doc == {"format": "events", "format_version": 1, "rules_version": ar.RULES_VERSION,
                   "action": {"type": "flip", "player": 0, "row": 1, "col": 2},
                   "events": [{"type": "card_revealed", "seat": 0, "row": 1, "col": 2, "value": 5,
                               "cause": "opening_flip"}],
                   "seq": 1}
    assert ar.dumps_events(events, action=ar.Flip(0, 1, 2), seq=1) == canonical_json(doc)
    assert FinalReveal(((0, 1, 2, 3),)).to_dict() == {"type": "final_reveal", "cards": [[0, 1, 2, 3]]}
    with pytest.raises(TypeError):
        events_to_dict(("x",), action=ar.Draw(0), seq=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        events_to_dict((), action=ar.Draw(0), seq=-1)
