"""Impossible states are refused by the loaders and by `testing.check_invariants` (issue 12 §4, rule 3.11).

Each state below is one that `new_game` plus legal play could not reach in its phase, which the
loaders used to accept: a seat with every space swallowed to act, opening flips that are not
cards of the deck or that do not match the grid (they choose the opener), a finished grid that
still shows a column the final reveal swallows, a `seq` of 0 after four actions, counters at the
formats' upper bound. Each is refused with a code and a JSON pointer, and `check_invariants`
names the same problem (invariant `loadable`).
"""

from __future__ import annotations

import random

import attrs
import pytest

import abyss_rules as ar
from abyss_rules.codec import state_from_dict, state_to_dict
from abyss_rules.codec._strict import MAX_INT
from abyss_rules.rules import COUNTER_LIMIT, impossibility
from abyss_rules.state import WORDS_PER_ACTION
from abyss_rules.testing import InvariantError, check_invariants


def refusal(state: ar.State) -> tuple[str, str]:
    """The code and path with which `loads_state` refuses the document of `state`."""
    with pytest.raises(ar.DecodeError) as caught:
        ar.loads_state(ar.dumps_state(state))
    with pytest.raises(ar.DecodeError) as general:  # the general path says the same
        state_from_dict(state_to_dict(state))
    assert (general.value.code, general.value.path) == (caught.value.code, caught.value.path)
    return caught.value.code, caught.value.path


def after_opening(seed: int = 3) -> ar.State:
    state = ar.new_game(2, seed=seed)
    for action in (ar.Flip(0, 0, 0), ar.Flip(0, 0, 1), ar.Flip(1, 0, 0), ar.Flip(1, 0, 1)):
        state = ar.apply(state, action)
    assert state.phase is ar.Phase.TURN and state.seq == 4
    return state


def assert_impossible(state: ar.State, code: str, path: str, invariant: str = "loadable") -> None:
    assert refusal(state) == (code, path)
    with pytest.raises(InvariantError) as caught:
        check_invariants(state)
    assert caught.value.invariant == invariant, caught.value


@pytest.mark.rule("3.11")
def test_a_seq_of_zero_after_four_actions_is_refused() -> None:
    state = after_opening()
    assert_impossible(state._replace(seq=0), "impossible_state", "/seq")
    assert_impossible(state._replace(seq=9), "impossible_state", "/seq")  # at most two actions a turn


@pytest.mark.rule("3.11", "3.12")
@pytest.mark.parametrize("field", ["seq", "turns"])
def test_counters_at_the_bound_are_refused(field: str) -> None:
    state = after_opening()
    for value in (MAX_INT, COUNTER_LIMIT):
        assert_impossible(state._replace(**{field: value}), "impossible_state", f"/{field}")


@pytest.mark.rule("3.11", "3.12")
def test_the_dealers_position_is_checked_against_the_actions_taken() -> None:
    state = after_opening()  # 4 actions: the first deal and 4 actions use at most 5 x 4096 words
    most = WORDS_PER_ACTION * (state.seq + 1)
    assert impossibility(state._replace(dealer=attrs.evolve(state.dealer, position=most))) is None
    for position in (most + 1, COUNTER_LIMIT, MAX_INT):
        odd = state._replace(dealer=attrs.evolve(state.dealer, position=position))
        assert_impossible(odd, "impossible_state", "/dealer/position")


@pytest.mark.rule("2.1", "3.11")
def test_opening_flips_that_are_not_cards_of_the_deck_are_refused() -> None:
    state = after_opening()
    flips = state.opening
    odd = state._replace(opening=((999999, flips[0][1]), flips[1]))
    assert_impossible(odd, "cards_mismatch", "/opening/0/0")


@pytest.mark.rule("2.1", "2.3", "3.11")
def test_opening_flips_that_are_not_the_cards_flipped_are_refused() -> None:
    # During the opening: the flips are the cards face up on the grid.
    state = ar.apply(ar.new_game(2, seed=3), ar.Flip(0, 0, 0))
    other = next(v for v, _ in state.variant.deck if v != state.opening[0][0])
    assert_impossible(state._replace(opening=((other,), ())), "impossible_state", "/opening/0")
    # After it: they chose the opener, so flips that choose another seat do not fit the turn.
    done = after_opening()
    assert_impossible(done._replace(opening=done.opening[::-1]), "impossible_state", "/turn")


def _all_swallowed(state: ar.State, seat: int) -> ar.State:
    """`state` with every space of `seat` swallowed (its cards moved onto the discard pile)."""
    cells = state.variant.cells
    cards = list(state.cards)
    moved = [cards[seat * cells + i] for i in range(cells)]
    for i in range(cells):
        cards[seat * cells + i] = 0
    mask = ((1 << cells) - 1) << (seat * cells)
    return state._replace(cards=tuple(cards), swallowed_mask=state.swallowed_mask | mask,
                          face_up_mask=state.face_up_mask & ~mask,
                          discard_pile=tuple(moved) + state.discard_pile)


@pytest.mark.rule("3.11", "6.1")
def test_a_seat_with_every_space_swallowed_is_never_to_act() -> None:
    state = after_opening()
    dead = _all_swallowed(state, state.turn)
    # Its only move would be a draw, after which nothing is legal: no such state loads.
    assert_impossible(dead, "impossible_state", "/closer", invariant="closer")
    assert_impossible(dead._replace(closer=1 - state.turn), "impossible_state", "/closer", invariant="closer")
    # The check of the seat to act says so on its own too (the closer checks come first).
    from abyss_rules.rules import _reachable as reachable

    acting_seat = next(check for check in reachable.CHECKS if check.__name__ == "_acting_seat")
    problem = acting_seat(dead._replace(closer=1 - state.turn))
    assert problem is not None and problem.path == "/turn"


def _with_equal_column(result: ar.RoundResult) -> ar.RoundResult | None:
    """`result` with one face-up column of seat 0 made of equal cards, scores unchanged (if possible)."""
    g = result.grids[0]
    values = {v for v in range(-2, 13)}
    for col in range(g.cols):
        spaces = list(range(col, g.rows * g.cols, g.cols))
        if any(g.swallowed[i] or not g.face_up[i] for i in spaces):
            continue
        cards = list(g.cards)
        target = cards[spaces[0]]
        delta = sum(cards[i] for i in spaces) - target * len(spaces)
        for i in spaces:
            cards[i] = target
        other = next((i for i in range(g.rows * g.cols) if i not in spaces and not g.swallowed[i]
                      and cards[i] is not None and cards[i] + delta in values), None)
        if other is None:
            continue
        cards[other] += delta
        grid = ar.Grid(rows=g.rows, cols=g.cols, cards=tuple(cards), face_up=g.face_up, swallowed=g.swallowed)
        return attrs.evolve(result, grids=(grid, *result.grids[1:]))
    return None


@pytest.mark.rule("4.3", "3.11")
def test_a_finished_grid_with_a_column_the_final_reveal_swallows_is_refused() -> None:
    for seed in range(20):
        state = ar.new_game(2, seed=seed)
        while not state.history:
            state = ar.apply(state, ar.legal_actions(state)[-1])
        odd = _with_equal_column(state.history[0])
        if odd is not None:
            break
    assert odd is not None
    tampered = state._replace(history=(odd,))
    assert_impossible(tampered, "impossible_state", "/history/0/grids/0")
    # Without swallow_on_final_reveal the same grid is possible (the column stays).
    variant = state.variant.replace(swallow_on_final_reveal=False)
    problem = impossibility(tampered._replace(variant=variant))
    assert problem is None or problem[1] != "/history/0/grids/0"


@pytest.mark.rule("3.11")
def test_every_state_of_real_games_is_loadable() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = ar.new_game(3, variant=ar.Variant.short(), seed=seed)
        while True:
            assert impossibility(state) is None, state
            if state.is_over:
                break
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))


# -- impossible states that used to load ------------------------------------------------------------


@pytest.mark.rule("1.4", "3.11")
def test_the_draw_piles_top_on_the_discard_pile_in_the_opening_is_refused() -> None:
    # Nothing is drawn in the opening: the discard pile is the one card dealt onto it.
    for seed in range(5):
        state = ar.new_game(2, seed=seed)
        if seed % 2:
            state = ar.apply(state, ar.Flip(0, 1, 1))
        moved = state._replace(discard_pile=state.draw_pile[:1] + state.discard_pile,
                               draw_pile=state.draw_pile[1:])
        assert_impossible(moved, "impossible_state", "/discard_pile", invariant="discard_pile")


@pytest.mark.rule("2.1", "3.11")
def test_a_seat_with_its_opening_flips_face_down_again_is_refused() -> None:
    state = after_opening()
    cells = state.variant.cells
    for seat in (0, 1):
        mask = ((1 << cells) - 1) << (seat * cells)
        hidden = state._replace(face_up_mask=state.face_up_mask & ~mask)
        assert_impossible(hidden, "impossible_state", f"/grids/{seat}", invariant="opening_flips")


@pytest.mark.rule("3.11")
def test_more_cards_face_up_than_the_flips_and_turns_turned_is_refused() -> None:
    state = after_opening()
    up = state.face_up_mask | 1 << 5 | 1 << 6  # two more of seat 0's cards, with no turn taken
    assert_impossible(state._replace(face_up_mask=up), "impossible_state", "/grids/0")


def _took_a_turn_each(seed: int = 3) -> ar.State:
    """After the opening and one turn of each seat, each a take of the discard onto a face-up card."""
    state = after_opening(seed)
    for _ in range(2):
        seat = state.turn
        state = ar.apply(state, ar.TakeDiscard(seat, 0, 0))
    assert state.turns == 2 and state.seq == 6 and len(state.discard_pile) == 1
    return state


@pytest.mark.rule("3.11", "3.1")
def test_a_seat_showing_more_than_its_own_turns_turned_is_refused() -> None:
    # After one turn, by the opener: the seats together may show 2 x 2 flips + 1 turn = 5 spaces,
    # but seat by seat the other seat, which has not played, shows only its 2 flips.
    state = after_opening()
    opener = state.turn
    state = ar.apply(state, ar.TakeDiscard(opener, 0, 0))  # onto a face-up card: nothing more shown
    other = 1 - opener
    more = state._replace(face_up_mask=state.face_up_mask | 1 << (other * state.variant.cells + 5))
    assert (more.face_up_mask | more.swallowed_mask).bit_count() == 2 * 2 + 1
    assert_impossible(more, "impossible_state", f"/grids/{other}")
    assert "face up or swallowed" in (impossibility(more) or ("", "", ""))[2]


@pytest.mark.rule("3.11", "2.1")
def test_a_face_up_card_a_seat_did_not_flip_before_its_first_turn_is_refused() -> None:
    state = after_opening()
    cells = state.variant.cells
    seat = 1 - state.turn  # the seat that has not played yet
    base = seat * cells
    flipped = next(i for i in range(cells) if state.face_up_mask >> (base + i) & 1)
    other = next(i for i in range(cells) if not state.face_up_mask >> (base + i) & 1
                 and state.cards[base + i] != state.cards[base + flipped])
    cards = list(state.cards)
    cards[base + flipped], cards[base + other] = cards[base + other], cards[base + flipped]
    swapped = state._replace(cards=tuple(cards))  # the same cards, another one face up
    assert_impossible(swapped, "impossible_state", f"/grids/{seat}")
    # Once each seat has taken a turn (a take of the discard onto a face-up card, say), that
    # turn may have put the card there.
    assert impossibility(swapped._replace(turns=2, seq=6)) is None


@pytest.mark.rule("3.11", "1.4")
def test_the_discard_pile_holds_at_most_one_card_a_turn() -> None:
    state = after_opening()
    # Before the first turn ends: the card dealt onto it (only the count is known).
    for before in (state, ar.apply(state, ar.Draw(state.turn))):  # the first turn, done or not
        moved = before._replace(discard_pile=before.draw_pile[:1] + before.discard_pile,
                                draw_pile=before.draw_pile[1:])
        assert_impossible(moved, "impossible_state", "/discard_pile", invariant="discard_pile")
    # After two turns that each took the discard: at most 1 + 2 cards, whatever the turns were.
    later = _took_a_turn_each()
    for extra in (1, 2, 3):
        moved = later._replace(discard_pile=later.draw_pile[:extra] + later.discard_pile,
                               draw_pile=later.draw_pile[extra:])
        if extra <= 2:
            assert impossibility(moved) is None
        else:
            assert_impossible(moved, "impossible_state", "/discard_pile", invariant="discard_pile")


@pytest.mark.rule("3.11", "6.1", "6.2")
def test_a_round_closed_in_fewer_turns_than_its_closer_needs_is_refused() -> None:
    state = _tiny_finished(0)
    result = state.history[0]
    assert not result.capped
    fewest = (state.variant.cells - state.variant.initial_flips) * 2
    assert result.turns >= fewest
    for turns in (fewest - 1, 2, 1):
        odd = state._replace(history=(attrs.evolve(result, turns=turns),), turns=turns, seq=2 + turns)
        assert_impossible(odd, "impossible_state", "/history/0/turns", invariant="history")


def _tiny_finished(seed: int) -> ar.State:
    variant = ar.Variant(name="tiny", deck=((0, 12), (1, 2), (2, 12)), rows=2, cols=2, max_players=2,
                         initial_flips=1, max_rounds=1, target_score=None)
    state = ar.new_game(2, variant, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    return state


@pytest.mark.rule("1.1", "6.6", "3.11")
def test_a_finished_round_holding_more_copies_of_a_card_than_the_deck_is_refused() -> None:
    # Two cards 0 and 2 of one seat become two 1s: the raw score is the same, but the deck has
    # only two 1s.
    found = 0
    for seed in range(40):
        state = _tiny_finished(seed)
        result = state.history[0]
        for p, g in enumerate(result.grids):
            cards = list(g.cards)
            if 0 in cards and 2 in cards and cards.count(1) + sum(
                    other.cards.count(1) for q, other in enumerate(result.grids) if q != p) >= 1:
                cards[cards.index(0)] = cards[cards.index(2)] = 1
                grid = attrs.evolve(g, cards=tuple(cards))
                odd = attrs.evolve(result, grids=result.grids[:p] + (grid,) + result.grids[p + 1:])
                assert_impossible(state._replace(history=(odd,)), "impossible_state", "/history/0/grids",
                                  invariant="history")
                found += 1
                break
    assert found >= 5
