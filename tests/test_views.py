"""Views: what a player or a spectator is shown, from public information only (spec section 8)."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest
from tests.builders import hand_built, open_round, play, stacked, tiny

import abyss_rules as ar


def _game_states() -> list[ar.State]:
    states: list[ar.State] = []
    for n, (v, players) in enumerate([(tiny(max_rounds=2), 3), (ar.Variant.short(), 2),
                                      (tiny(rows=3, cols=2, max_rounds=1, reshuffle_keeps_top=False), 2)]):
        rng = random.Random(n)
        state = ar.new_game(players, v, seed=100 + n)
        states.append(state)
        while not state.is_over:
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
            states.append(state)
    return states


STATES = _game_states()


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_a_view_never_holds_a_face_down_value() -> None:
    for state in STATES:
        for viewer in (None, *range(state.players)):
            v = ar.view(state, viewer)
            for p, grid in enumerate(v.grids):
                real = state.grid(p)
                assert grid.face_up == real.face_up and grid.swallowed == real.swallowed
                for s in range(state.variant.cells):
                    if real.face_up[s]:
                        assert grid.cards[s] == real.cards[s]
                    else:
                        assert grid.cards[s] is None
            assert v.discard_pile == state.discard_pile
            assert v.draw_pile_size == len(state.draw_pile)
            assert v.drawn == state.drawn


@pytest.mark.rule("8.1")
def test_public_facts_are_copied() -> None:
    for state in STATES[::5]:
        v = ar.view(state, 0)
        assert (v.variant, v.players, v.round) == (state.variant, state.players, state.round)
        assert v.phase is state.phase
        assert v.turn == state.current_player and v.opening == state.opening
        assert v.owing_flips == state.owing_flips and v.closer == state.closer and v.turns == state.turns
        assert (v.totals, v.history) == (state.totals, state.history)
        assert (v.winners, v.seq) == (state.winners, state.seq)
        assert v.top_discard == state.top_discard and v.is_over == state.is_over


@pytest.mark.rule("8.2")
def test_a_view_has_no_secret_field() -> None:
    names = {f.name for f in attrs.fields(ar.View)}
    assert not names & {"draw_pile", "dealer", "seed", "cards", "decks", "position"}
    state = ar.new_game(2, seed=bytes(range(32)))
    text = repr(ar.view(state, 0))
    assert bytes(range(32)).hex() not in text and "Dealer" not in text


@pytest.mark.rule("8.3")
def test_views_differ_only_in_the_viewer_and_its_actions() -> None:
    for state in STATES[::3]:
        spectator = ar.view(state)
        assert spectator.viewer is None and spectator.legal_actions == ()
        for seat in range(state.players):
            v = ar.view(state, seat)
            assert v.viewer == seat
            assert v.legal_actions == tuple(a for a in ar.legal_actions(state) if a.player == seat)
            assert attrs.evolve(v, viewer=None, legal_actions=()) == spectator


@pytest.mark.rule("8.3", "2.2", "3.9")
def test_a_seat_lists_only_its_own_actions() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    assert len(ar.view(state, 0).legal_actions) == 4 and len(ar.view(state, 1).legal_actions) == 4
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    assert state.turn == 1
    assert ar.view(state, 0).legal_actions == ()
    assert ar.view(state, 1).legal_actions == ar.legal_actions(state)


@pytest.mark.rule("8.3", "8.2")
def test_secrets_do_not_change_a_view() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9)
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    state = play(state, [ar.Draw(1)])
    # another state: the draw pile reversed, seat 0's face-down cards swapped, another seed
    cards = list(state.cards)
    cards[2], cards[3] = cards[3], cards[2]
    other = hand_built(state, seed=bytes(32), position=17, draw_pile=state.draw_pile[::-1],
                       cards=tuple(cards))
    assert other != state
    for viewer in (None, 0, 1):
        assert ar.view(other, viewer) == ar.view(state, viewer)


@pytest.mark.rule("8.1", "2.3")
def test_the_opener_is_public_once_the_opening_is_over() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    assert ar.view(state).opener is None
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    assert ar.view(state).opener == 1 == state.turn
    state = play(state, [ar.Flip(1, 1, 0), ar.Flip(0, 1, 0)])
    assert ar.view(state).opener == 1 and state.turn == 1


@pytest.mark.rule("1.3")
@pytest.mark.parametrize("seat", [-1, 2, 7, "0", True, 1.0, (0,)], ids=repr)
def test_a_seat_not_in_the_game(seat: Any) -> None:
    state = ar.new_game(2, seed=1)
    with pytest.raises(IndexError):
        ar.view(state, seat)


@pytest.mark.rule("8.1")
def test_view_to_act_matches_the_state_in_every_phase() -> None:
    rng = random.Random(8)
    state = ar.new_game(players=3, seed=8)
    seen = set()
    while not state.is_over:
        assert ar.view(state).to_act == state.to_act
        seen.add(state.phase)
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    assert ar.view(state).to_act == state.to_act == ()
    assert seen == {ar.Phase.OPENING, ar.Phase.TURN, ar.Phase.DRAWN}
