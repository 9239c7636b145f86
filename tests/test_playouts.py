"""Random playouts: after every action the cards in play are exactly the deck, the state is
consistent, and every game ends (spec rules 1.1, 1.4, 3.8, 4.1, 4.2, 5.1, 5.2, 6.6, 7.1-7.3)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tests.builders import cards_in_play, tiny

import abyss_rules as ar

SMALL_DECK = [[v, 2] for v in range(-2, 10)]  # 24 cards: 2 x 9 + 1 dealt, 5 to draw

VARIANTS: list[tuple[str, ar.Variant, int, int]] = [
    # id, variant, players, games
    ("standard-2", ar.Variant.standard(), 2, 30),
    ("standard-4", ar.Variant.standard(), 4, 12),
    ("short-3", ar.Variant.short(), 3, 20),
    ("long-2", ar.Variant.long(), 2, 15),
    ("no-flip-turn-2", ar.Variant.standard().replace(flip_turn=False), 2, 15),
    ("small-deck-no-keep-top", ar.Variant(rows=3, cols=3, max_players=2, deck=SMALL_DECK,
                                          reshuffle_keeps_top=False, max_rounds=4), 2, 30),
    ("small-deck-keep-top", ar.Variant(rows=3, cols=3, max_players=2, deck=SMALL_DECK, max_rounds=4), 2, 30),
    ("tiny-3", tiny(target_score=60), 3, 30),
    ("tiny-1", tiny(max_rounds=3), 1, 15),
    ("capped-previous-closer-3",
     ar.Variant.standard().replace(max_turns_per_round=25, opener="previous_closer", initial_flips=3), 3, 10),
]

MAX_ACTIONS = 20_000


def _choose(rng: random.Random, legal: tuple[ar.Action, ...]) -> ar.Action:
    """Uniform among the legal actions, except that a legal Draw is taken 40% of the time (a
    uniform choice rarely draws, and the draw pile must run out for the reshuffles to be tested)."""
    draws = [a for a in legal if isinstance(a, ar.Draw)]
    if draws and rng.random() < 0.4:
        return draws[0]
    return rng.choice(legal)


def _check(state: ar.State, before: ar.State | None, deck: Counter[int]) -> None:
    assert cards_in_play(state) == deck
    assert state.face_up_mask & state.swallowed_mask == 0
    cells = state.variant.cells
    positions = cells * state.players
    assert state.face_up_mask >> positions == 0 and state.swallowed_mask >> positions == 0
    assert (state.drawn is not None) == (state.phase is ar.Phase.DRAWN)
    playing = state.phase in (ar.Phase.TURN, ar.Phase.DRAWN)
    assert (state.turn is not None and 0 <= state.turn < state.players) == playing
    assert len(state.history) == state.round - (0 if state.is_over else 1)
    running = [0] * state.players
    for result in state.history:
        running = [t + s for t, s in zip(running, result.scores, strict=True)]
        assert list(result.totals) == running
    assert list(state.totals) == running
    if before is not None:
        assert state.seq == before.seq + 1
        assert state.round in (before.round, before.round + 1)


@pytest.mark.rule("1.1", "1.4", "3.8", "4.1", "4.2", "5.1", "5.2", "6.6", "7.1", "7.2", "7.3")
@pytest.mark.parametrize(("name", "variant", "players", "games"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_random_games_keep_the_deck_and_end(name: str, variant: ar.Variant, players: int, games: int) -> None:
    deck = Counter(variant.unshuffled_deck)
    reshuffles = 0
    for game in range(games):
        rng = random.Random(f"{name}-{game}")
        state = ar.new_game(players, variant, seed=game)
        _check(state, None, deck)
        for _ in range(MAX_ACTIONS):
            if state.is_over:
                break
            action = _choose(rng, ar.legal_actions(state))
            before = state
            state = ar.apply(state, action)
            _check(state, before, deck)
            if isinstance(action, ar.Draw) and not before.draw_pile:
                reshuffles += 1
        else:
            raise AssertionError(f"game {game} of {name} did not end in {MAX_ACTIONS} actions")
        assert state.is_over and ar.legal_actions(state) == () and state.winners
        assert min(state.totals) == state.totals[state.winners[0]]
        if variant.max_rounds is not None:
            assert state.round <= variant.max_rounds
        limit = variant.max_rounds
        if variant.target_score is not None and (limit is None or state.round < limit):
            assert max(state.totals) >= variant.target_score
    if name.startswith("small-deck"):
        assert reshuffles > 10  # the reshuffle paths really ran
