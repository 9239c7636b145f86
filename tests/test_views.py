"""Views: what a player or a spectator is shown, from public information only (spec section 8)."""

from __future__ import annotations

import inspect
import random
from typing import Any

import attrs
import pytest
from tests.builders import hand_built, open_round, play, stacked, tiny

import abyss_rules as ar
from abyss_rules import views
from abyss_rules.errors import InvalidStateError, SeatError
from abyss_rules.rules import choose_opener


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
        assert v.turn == state.turn and v.opening == state.opening
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
@pytest.mark.parametrize("seat", [-1, 2, 5, 7], ids=repr)
def test_a_seat_not_in_the_game_is_no_such_player(seat: int) -> None:
    state = ar.new_game(2, seed=1)
    with pytest.raises(SeatError) as caught:
        ar.view(state, seat)
    assert (caught.value.code, caught.value.rule) == ("no_such_player", "1.3")
    assert isinstance(caught.value, IndexError) and not isinstance(caught.value, ar.IllegalActionError)
    with pytest.raises(SeatError) as again:
        state.grid(seat)
    assert again.value.code == "no_such_player"


@pytest.mark.parametrize("seat", ["0", True, 1.0, (0,)], ids=repr)
def test_a_seat_that_is_not_an_int_is_malformed(seat: Any) -> None:
    state = ar.new_game(2, seed=1)
    with pytest.raises(ar.MalformedActionError) as caught:
        ar.view(state, seat)
    assert caught.value.code == "malformed_action"
    with pytest.raises(ar.MalformedActionError):
        state.grid(seat)


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


def _reference_view(state: ar.State, player: int | None) -> ar.View:
    """The view built the plain way: the validated attrs constructor and plain grids."""
    v = state.variant
    grids = tuple(
        ar.Grid(rows=v.rows, cols=v.cols, cards=tuple(c if up else None for c, up in zip(g.cards, g.face_up,
                                                                                           strict=True)),
                face_up=g.face_up, swallowed=g.swallowed)
        for g in state.grids()
    )
    over = state.is_over
    opener = None if state.phase is ar.Phase.OPENING else choose_opener(
        v, state.opening, state.history[:-1] if over else state.history)
    mine = () if player is None else tuple(a for a in ar.legal_actions(state) if a.player == player)
    return ar.View(viewer=player, variant=v, players=state.players, round=state.round, phase=state.phase,
                   turn=state.turn, opener=opener, grids=grids, opening=state.opening,
                   owing_flips=state.owing_flips, discard_pile=state.discard_pile,
                   draw_pile_size=len(state.draw_pile), drawn=state.drawn, closer=state.closer,
                   turns=state.turns, totals=state.totals, history=state.history, winners=state.winners,
                   seq=state.seq, legal_actions=mine)


def test_the_fast_constructor_takes_every_field_in_order() -> None:
    names = [f.name for f in attrs.fields(ar.View)]
    assert list(inspect.signature(views._fast_view).parameters) == names
    v = ar.view(STATES[40], 1)
    values = attrs.astuple(v, recurse=False)
    built = views._fast_view(*values)
    assert type(built) is ar.View and built == ar.View(*values) == v
    assert repr(built) == repr(v) and hash(built) == hash(v)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.seq = 0  # type: ignore[misc]


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_views_equal_the_plainly_built_ones_in_any_order() -> None:
    # the memos (grids and opener of the previous view) must not carry anything over from another
    # game or another state: visit states of three games out of order, each seat and a spectator
    order = list(range(len(STATES)))
    random.Random(3).shuffle(order)
    for i in order[:200] + sorted(order[:200]):
        state = STATES[i]
        for viewer in (None, *range(state.players)):
            v = ar.view(state, viewer)
            assert v == _reference_view(state, viewer)
            assert v.to_dict() == _reference_view(state, viewer).to_dict()


@pytest.mark.rule("8.2")
def test_the_grid_memo_follows_the_masks_of_the_same_cards() -> None:
    # flips leave the cards tuple alone: a view of the next state must show the new card, and a view
    # of the earlier state again must hide it
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]])
    after = play(state, [ar.Flip(0, 0, 0)])
    assert after.cards is state.cards
    assert ar.view(state, 0).grids[0].cards == (None,) * 4
    assert ar.view(after, 0).grids[0].cards == (1, None, None, None)
    assert ar.view(after, 1).grids == ar.view(after, 0).grids
    assert ar.view(state, 1).grids[0].cards == (None,) * 4


@pytest.mark.parametrize("thing", [None, "state", (), [], 42], ids=repr)
def test_view_of_something_that_is_not_a_state(thing: Any) -> None:
    with pytest.raises(InvalidStateError) as caught:
        ar.view(thing, 0)
    assert caught.value.code == "invalid_state"
    assert "view() needs a State" in str(caught.value)


_TWELVE = ((0, 4), (1, 4), (5, 4))


@pytest.mark.rule("8.1", "5.3")
@pytest.mark.parametrize("variant", [
    ar.Variant.short(),
    # 12 cards: 8 dealt, 1 discard, 3 to draw: the draw pile runs out and is reshuffled often.
    tiny(deck=_TWELVE, max_players=2, max_rounds=3, initial_flips=1, reshuffle_keeps_top=False),
    tiny(deck=_TWELVE, max_players=2, max_rounds=3, initial_flips=1, max_turns_per_round=60),
])
def test_unseen_counts_are_the_face_down_cards_and_the_draw_pile(variant: ar.Variant) -> None:
    # Counted from the view alone, they are exactly the secret cards of the state, value by value
    # (through reshuffles too: a reshuffle puts seen cards back among the unseen).
    rng = random.Random(8)
    reshuffles = 0
    for seed in range(3):
        state = ar.new_game(2, variant, seed)
        while not state.is_over:
            secret = list(state.draw_pile)
            for grid in state.grids():
                secret += [card for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed,
                                                          strict=True) if not up and not gone]
            expected = tuple((value, secret.count(value)) for value, _ in variant.deck)
            assert views.unseen_counts(ar.view(state, 0)) == expected
            legal = ar.legal_actions(state)
            draws = [a for a in legal if isinstance(a, ar.Draw)]
            action = draws[0] if draws and rng.random() < 0.7 else rng.choice(legal)  # mostly draw
            state, events = ar.apply_with_events(state, action)
            reshuffles += any(isinstance(event, ar.events.Reshuffled) for event in events)
    assert reshuffles or variant.deck_size > 12
