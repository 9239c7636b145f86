"""The bound of the counters (rule 3.12) and verdicts from public facts alone (rule 3.13).

A game takes fewer than 2**40 actions: once `seq` is `COUNTER_LIMIT - 1`, `legal_actions` is
empty and an action the rules of play allow is refused with `counter_limit`, the last check of
section 3. A loaded state's dealer position is at most `WORDS_PER_ACTION * (seq + 1)`, and no
verdict reads it. The properties below play legal actions from loaded states at the edge of both
bounds and reload every state reached; and they compare the verdicts of states that differ only
in their secrets.
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.property.restated import spec_code, spec_listing

import abyss_rules as ar
from abyss_rules.action_space import ActionSpace
from abyss_rules.rules import COUNTER_LIMIT
from abyss_rules.sampling import sample_states
from abyss_rules.state import WORDS_PER_ACTION
from abyss_rules.testing import check_invariants

# Small grids and a small deck: rounds end (and the next is dealt, using words of the stream)
# within a few dozen actions.
EDGE_VARIANT = ar.Variant(name="edge", deck=((0, 6), (1, 6), (2, 6), (5, 4)), rows=2, cols=2, max_players=3,
                          initial_flips=1, target_score=10**6, max_rounds=None)


def edge_state(seed: int, players: int, turn_slack: int, seq_extra: int, position_slack: int) -> ar.State:
    """A state of a real game with its counters moved to the edge of the bounds (still loadable):
    `turn_slack` turns below the bound of `seq`, its position `position_slack` words below the
    most its `seq` allows."""
    state = ar.new_game(players, EDGE_VARIANT, seed=seed)
    while state.phase is not ar.Phase.TURN:
        state = ar.apply(state, ar.legal_actions(state)[0])
    # `players` more turns bring the turn back to the same seat; each takes one to two actions.
    more = (COUNTER_LIMIT - 1 - state.seq - turn_slack) // (2 * players) * players
    state = state._replace(turns=state.turns + more, seq=state.seq + more + min(seq_extra, more))
    position = max(0, WORDS_PER_ACTION * (state.seq + 1) - position_slack)
    return state._replace(dealer=attrs.evolve(state.dealer, position=position))


def moved_to(state: ar.State, seq: int) -> ar.State:
    """`state` (in the turn or drawn phase) after `seq - state.seq` more actions: turns of the
    same seats, a multiple of the number of players, each of one or two actions (rule 3.11)."""
    players = len(state.totals)
    gap = seq - state.seq
    more = -(-gap // (2 * players)) * players
    assert state.phase in (ar.Phase.TURN, ar.Phase.DRAWN) and more <= gap
    return state._replace(turns=state.turns + more, seq=seq)


def verdicts(state: ar.State, space: ActionSpace) -> list[str | None]:
    """The code `check` gives every action of every seat the variant allows (None: legal)."""
    out = []
    for seat in range(state.variant.max_players):
        for action in space.actions(seat):
            error = ar.check(state, action)
            out.append(None if error is None else error.code)
    return out


@pytest.mark.rule("3.12", "3.13", "9.2")
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), players=st.integers(2, 3), turn_slack=st.integers(0, 30),
       seq_extra=st.integers(0, 2**40), position_slack=st.integers(0, 400),
       choices=st.lists(st.integers(0, 2**16), min_size=1, max_size=80))
def test_play_from_a_loaded_edge_state_never_makes_an_unloadable_state(
    seed: int, players: int, turn_slack: int, seq_extra: int, position_slack: int, choices: list[int]
) -> None:
    state = ar.loads_state(ar.dumps_state(edge_state(seed, players, turn_slack, seq_extra, position_slack)))
    for choice in choices:
        if state.is_over:
            break
        legal = ar.legal_actions(state)
        if not legal:  # the bound: nothing is legal, and nothing is applied (rule 3.12)
            assert state.seq == COUNTER_LIMIT - 1
            for action in spec_listing(state._replace(seq=0)):
                checked = ar.check(state, action)
                assert checked is not None and (checked.code, checked.rule) == ("counter_limit", "3.12")
                with pytest.raises(ar.IllegalActionError) as caught:
                    ar.apply(state, action)
                assert (caught.value.code, caught.value.message) == (checked.code, checked.message)
                with pytest.raises(ar.IllegalActionError, match="counter_limit"):
                    ar.apply_with_events(state, action)
            return
        action = legal[choice % len(legal)]
        assert ar.check(state, action) is None
        after = ar.apply(state, action)  # every listed action is applied (rule 3.13)
        assert after.seq == state.seq + 1 < COUNTER_LIMIT
        assert after.dealer.position <= WORDS_PER_ACTION * (after.seq + 1)
        assert ar.loads_state(ar.dumps_state(after)) == after
        check_invariants(after)
        state = after


@pytest.mark.rule("3.12", "3.13", "11.3")
@pytest.mark.parametrize("seed", range(4))
def test_at_the_bound_nothing_is_legal_and_counter_limit_is_the_last_check(seed: int) -> None:
    rng = random.Random(seed)
    state = ar.new_game(2, EDGE_VARIANT, seed=seed)
    space = ActionSpace(EDGE_VARIANT)
    for _ in range(rng.randrange(4, 40)):
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    while state.phase is ar.Phase.OPENING:
        state = ar.apply(state, ar.legal_actions(state)[0])
    assert not state.is_over
    below = moved_to(state, COUNTER_LIMIT - 2)
    at = below._replace(seq=COUNTER_LIMIT - 1)
    assert ar.loads_state(ar.dumps_state(at)) == at  # loadable, with no legal action
    assert ar.legal_actions(at) == () and ar.legal_actions(below) == ar.legal_actions(state)
    for seat in range(2):
        assert not any(space.mask(at, seat))
    for before, after in zip(verdicts(below, space), verdicts(at, space), strict=True):
        # the same code as one action earlier, except that what was legal is now counter_limit
        assert after == (before if before is not None else "counter_limit")
    for seat in range(EDGE_VARIANT.max_players):
        for action in space.actions(seat):
            assert (None if (error := ar.check(at, action)) is None else error.code) == spec_code(at, action)
    with pytest.raises(ar.DecodeError) as caught:
        ar.loads_state(ar.dumps_state(below._replace(seq=COUNTER_LIMIT)))
    assert (caught.value.code, caught.value.path) == ("impossible_state", "/seq")


@pytest.mark.rule("3.12")
def test_the_dealers_position_is_bounded_by_the_actions_taken() -> None:
    state = edge_state(seed=1, players=2, turn_slack=5, seq_extra=0, position_slack=0)
    most = WORDS_PER_ACTION * (state.seq + 1)
    assert state.dealer.position == most
    assert ar.loads_state(ar.dumps_state(state)) == state
    beyond = state._replace(dealer=attrs.evolve(state.dealer, position=most + 1))
    with pytest.raises(ar.DecodeError) as caught:
        ar.loads_state(ar.dumps_state(beyond))
    assert (caught.value.code, caught.value.path) == ("impossible_state", "/dealer/position")
    # A fresh game of the largest deck: its first deal consumes 2,047 words and more, within 4,096.
    big = ar.Variant(name="big", deck=((0, 1024), (1, 1024)), rows=8, cols=8, max_players=2)
    game = ar.new_game(2, big, seed=3)
    assert 2047 <= game.dealer.position <= WORDS_PER_ACTION
    assert ar.loads_state(ar.dumps_state(game)) == game


@pytest.mark.rule("3.13", "8.3")
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), players=st.integers(2, 3), steps=st.integers(0, 60),
       edge=st.booleans(), largest=st.booleans())
def test_states_that_differ_only_in_secrets_get_the_same_verdicts(
    seed: int, players: int, steps: int, edge: bool, largest: bool
) -> None:
    rng = random.Random(seed)
    state = ar.new_game(players, EDGE_VARIANT, seed=seed)
    for _ in range(steps):
        if state.is_over:
            break
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    if edge and state.phase in (ar.Phase.TURN, ar.Phase.DRAWN):  # near the bound, where verdicts change
        state = moved_to(state, COUNTER_LIMIT - 1 - rng.randrange(2))
    twin = sample_states(ar.view(state), 1, rng)[0]  # other face-down cards, draw pile, seed
    twin = twin._replace(seq=state.seq, dealer=attrs.evolve(
        twin.dealer, position=WORDS_PER_ACTION * (state.seq + 1) if largest else 0))
    assert ar.view(twin) == ar.view(state)
    assert ar.loads_state(ar.dumps_state(twin)) == twin
    space = ActionSpace(EDGE_VARIANT)
    assert ar.legal_actions(twin) == ar.legal_actions(state)
    assert verdicts(twin, space) == verdicts(state, space)
    for seat in range(players):
        assert space.mask(twin, seat) == space.mask(state, seat)
    for action in ar.legal_actions(state):  # and each listed action is applied in both
        ar.apply(state, action)
        ar.apply(twin, action)
