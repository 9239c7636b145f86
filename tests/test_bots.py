"""The built-in bots (abyss_rules.bots): the protocol, legality, determinism, what they may see,
and the play each one is documented to make."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import pytest
from tests.builders import hand_built, open_round, stacked

import abyss_rules as ar
from abyss_rules.bots import (
    BOTS,
    LEVELS,
    Bot,
    BotError,
    CountingBot,
    ExpertBot,
    GreedyBot,
    RandomBot,
    make_bot,
)
from abyss_rules.simulation import play_game

STD = ar.Variant.standard()
ALL = (RandomBot, GreedyBot, CountingBot)


def situation(
    mine: Sequence[Sequence[int]],
    theirs: Sequence[Sequence[int]],
    up_mine: Sequence[tuple[int, int]],
    up_theirs: Sequence[tuple[int, int]],
    discard: int,
    draw: Sequence[int] = (),
    variant: ar.Variant = STD,
) -> ar.State:
    """Seat 0 to play a turn, with exactly the given spaces face up (2 players)."""
    state = stacked(variant, 2, grids=[mine, theirs], discard=discard, draw=draw)
    state = open_round(state, [[(2, 2), (2, 3)], [(2, 2), (2, 3)]])
    cells = variant.cells
    up = 0
    for seat, spaces in ((0, up_mine), (1, up_theirs)):
        for row, col in spaces:
            up |= 1 << (seat * cells + row * variant.cols + col)
    state = hand_built(state, face_up_mask=up, turn=0)
    assert state.phase is ar.Phase.TURN and state.turn == 0
    return state


def choose(bot: Any, state: ar.State, seat: int = 0) -> ar.Action:
    action = bot.choose(ar.view(state, seat))
    assert action in ar.legal_actions(state)
    return action


ALL_UP = [(r, c) for r in range(3) for c in range(4)]


# -- the protocol and the registry ----------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_each_bot_follows_the_protocol_and_is_registered(cls: type) -> None:
    bot = cls(1)
    assert isinstance(bot, Bot)
    assert BOTS[bot.name] is cls
    assert type(make_bot(bot.name, 3)) is cls


def test_make_bot_rejects_an_unknown_name() -> None:
    with pytest.raises(BotError) as info:
        make_bot("deep-blue")
    assert info.value.code == "unknown_bot"
    assert "random, greedy, counting, search, expert" in info.value.message


@pytest.mark.parametrize("cls", ALL)
def test_a_bot_asked_to_act_without_a_legal_action_raises_a_typed_error(cls: type) -> None:
    state = ar.new_game(2, seed=1)
    spectator = ar.view(state, None)
    with pytest.raises(BotError) as info:
        cls(0).choose(spectator)
    assert info.value.code == "bot_cannot_act"
    with pytest.raises(BotError):
        cls(0).choose(state)  # a State is not a View: bots only take views


def _tampered_views() -> dict[str, ar.View]:
    state = ar.new_game(2, seed=3)
    for action in [ar.Flip(0, 0, 0), ar.Flip(0, 1, 0), ar.Flip(1, 0, 0), ar.Flip(1, 1, 0)]:
        state = ar.apply(state, action)
    v = ar.view(state, state.to_act[0])
    return {
        "grids as a list": attrs.evolve(v, grids=list(v.grids)),
        "pile as a list": attrs.evolve(v, discard_pile=list(v.discard_pile)),
        "a card that is a str": attrs.evolve(v, discard_pile=("x", *v.discard_pile[1:])),
        "legal actions as a list": attrs.evolve(v, legal_actions=list(v.legal_actions)),
        "turns as a str": attrs.evolve(v, turns="5"),
        "grid cards as lists": attrs.evolve(v, grids=tuple(attrs.evolve(g, cards=list(g.cards))
                                                           for g in v.grids)),
    }


@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
@pytest.mark.parametrize("name", list(_tampered_views()))
def test_a_hand_made_view_of_wrong_field_types_gets_a_legal_action_or_a_typed_error(cls: type,
                                                                                   name: str) -> None:
    # (the sources read some of these views as they are; the compiled planner checks every
    # field's type: either way a legal action or `bot_cannot_act`, never a bare TypeError)
    bad = _tampered_views()[name]
    try:
        action = cls().choose(bad)
    except BotError as error:
        assert error.code == "bot_cannot_act"
    else:
        assert action in bad.legal_actions


# -- legality and determinism -----------------------------------------------------


@pytest.mark.rule("3.2", "5.4", "7.5")
@pytest.mark.parametrize("variant", [
    STD,
    STD.replace(flip_turn=False, initial_flips=0),
    STD.replace(rows=2, cols=3, max_rounds=2, swallow_on_final_reveal=False, reshuffle_keeps_top=False),
])
def test_bots_always_choose_a_legal_action_and_games_end(variant: ar.Variant) -> None:
    for seed in range(3):
        result = play_game(["random", "greedy", "counting"], variant, seed)
        assert result.final.is_over  # apply() accepted every chosen action


def test_bots_are_deterministic_given_their_seed() -> None:
    a = play_game([RandomBot(5), RandomBot(6)], "short", seed=9)
    b = play_game([RandomBot(5), RandomBot(6)], "short", seed=9)
    c = play_game([RandomBot(7), RandomBot(6)], "short", seed=9)
    assert a.actions == b.actions
    assert a.actions != c.actions
    for cls in (GreedyBot, CountingBot):
        assert play_game([cls(), cls()], "short", seed=4).actions == \
            play_game([cls(1), cls(2)], "short", seed=4).actions


# -- bots see the View only -----------------------------------------------------


class Spy:
    """Wraps a bot and keeps every view it was given."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: list[object] = []

    def choose(self, view: ar.View) -> ar.Action:
        self.seen.append(view)
        action: ar.Action = self.inner.choose(view)
        return action


@pytest.mark.rule("8.2", "8.3")
def test_play_game_gives_bots_their_own_view_without_face_down_values() -> None:
    spies = [Spy(GreedyBot()), Spy(CountingBot())]
    play_game(spies, "short", seed=3)
    for seat, spy in enumerate(spies):
        assert spy.seen
        for v in spy.seen:
            assert type(v) is ar.View                  # never the State
            assert v.viewer == seat and v.legal_actions
            for grid in v.grids:
                for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True):
                    if not up or gone:
                        assert card is None            # no face-down value reaches a bot


@pytest.mark.rule("8.2", "8.3")
@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
def test_bots_cannot_tell_states_that_differ_only_in_secrets(cls: type) -> None:
    # Two deals with the same face-up cards but different face-down cards and draw piles.
    mine = [[10, 12, 3, 5], [1, 2, 4, 6], [7, 11, 8, -1]]
    theirs = [[1, 2, 3, 4], [5, 6, 7, 2], [8, 11, 9, 0]]
    a = situation(mine, theirs, [(2, 2), (2, 3)], [(2, 2), (2, 3)], discard=9, draw=[4, 12])
    mine_b = [[0, 0, 0, 0], [0, 0, 0, 0], [7, 11, 8, -1]]
    b = situation(mine_b, theirs, [(2, 2), (2, 3)], [(2, 2), (2, 3)], discard=9, draw=[12, 4])
    assert a != b and ar.view(a, 0) == ar.view(b, 0)
    assert choose(cls(), a) == choose(cls(), b)


# -- how GreedyBot and CountingBot play -------------------------------------------

# Seat 0 has column 0 = 9, 9 and a face-down card; the top discard is a 9.
PAIR = [[9, 5, 6, 7], [9, 5, 6, 7], [3, 4, 8, 8]]
OTHER = [[1, 2, 3, 4], [5, 6, 7, 2], [8, 11, 9, 0]]


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
def test_takes_the_discard_that_completes_a_column(cls: type) -> None:
    state = situation(PAIR, OTHER, [(0, 0), (1, 0), (2, 0)], [(2, 2), (2, 3)], discard=9)
    assert choose(cls(), state) == ar.TakeDiscard(0, 2, 0)   # 9, 9, 9: swallowed


@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
def test_keeps_a_low_card_on_a_high_one(cls: type) -> None:
    grid = [[12, 5, 6, 7], [1, 5, 6, 7], [3, 4, 8, 8]]
    state = situation(grid, OTHER, [(0, 0), (1, 0)], [(2, 2), (2, 3)], discard=-2)
    assert choose(cls(), state) == ar.TakeDiscard(0, 0, 0)   # -2 replaces the 12


@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
def test_draws_then_discards_a_useless_card_and_flips(cls: type) -> None:
    grid = [[1, 5, 6, 7], [0, 5, 6, 7], [3, 4, 8, 8]]
    state = situation(grid, OTHER, [(0, 0), (1, 0)], [(2, 2), (2, 3)], discard=12, draw=[11])
    assert choose(cls(), state) == ar.Draw(0)
    state = ar.apply(state, ar.Draw(0))
    action = choose(cls(), state)
    assert isinstance(action, ar.DiscardDrawn)              # the 11 helps nowhere: flip instead
    assert (action.row, action.col) == (2, 0)                # in the column it knows most about


@pytest.mark.rule("6.1", "6.5")
@pytest.mark.parametrize("cls", [GreedyBot, CountingBot, ExpertBot])
def test_does_not_close_when_it_would_be_doubled(cls: type) -> None:
    # Seat 0: everything face up but (2,3), known cards sum to 40; seat 1 shows low cards.
    grid = [[5, 5, 6, 7], [1, 2, 3, 4], [3, 2, 2, 8]]
    low = [[0, 0, 1, 1], [-1, 0, 1, 2], [0, 1, 2, 3]]
    up_mine = [s for s in ALL_UP if s != (2, 3)]
    state = situation(grid, low, up_mine, ALL_UP, discard=12, draw=[4])
    state = ar.apply(state, ar.Draw(0))
    action = choose(cls(), state)
    # Placing the 4 on the face-down card or flipping it would close with ~40 against ~9: doubled.
    assert isinstance(action, ar.PlaceDrawn) and (action.row, action.col) != (2, 3)


@pytest.mark.rule("6.1", "6.7")
@pytest.mark.parametrize("cls", [GreedyBot, CountingBot])
def test_a_long_round_makes_it_reveal_cards_so_that_every_round_ends(cls: type) -> None:
    # The doubled-close situation above, but the round has lasted 30 turns per player.
    grid = [[5, 5, 6, 7], [1, 2, 3, 4], [3, 2, 2, 8]]
    low = [[0, 0, 1, 1], [-1, 0, 1, 2], [0, 1, 2, 3]]
    up_mine = [s for s in ALL_UP if s != (2, 3)]
    state = situation(grid, low, up_mine, ALL_UP, discard=12, draw=[4])
    assert choose(cls(), ar.apply(state, ar.Draw(0))) == ar.PlaceDrawn(0, 0, 3)      # on the 7
    assert choose(cls(), ar.apply(hand_built(state, turns=60), ar.Draw(0))) == ar.PlaceDrawn(0, 2, 3)
    state = situation(grid, low, up_mine, ALL_UP, discard=0, draw=[4])
    assert choose(cls(), state) == ar.TakeDiscard(0, 0, 3)
    assert choose(cls(), hand_built(state, turns=60)) == ar.TakeDiscard(0, 2, 3)  # closes at last


@pytest.mark.rule("6.1", "6.5")
@pytest.mark.parametrize("cls", [GreedyBot, CountingBot, ExpertBot])
def test_closes_when_it_is_safe(cls: type) -> None:
    grid = [[0, 0, 1, 1], [-1, 0, 1, 2], [0, 1, 2, 12]]
    high = [[10, 11, 12, 9], [10, 11, 12, 9], [8, 7, 6, 5]]
    up_mine = [s for s in ALL_UP if s != (2, 3)]
    state = situation(grid, high, up_mine, [(2, 2), (2, 3)], discard=9, draw=[2])
    state = ar.apply(state, ar.Draw(0))
    assert choose(cls(), state) == ar.PlaceDrawn(0, 2, 3)   # closes with 8 against ~100


@pytest.mark.rule("5.3", "8.1")
def test_counting_bot_uses_the_public_discard_history() -> None:
    # Seat 0 shows low cards; the top discard is a 3. To GreedyBot a face-down card is worth the
    # deck's mean (5.07), so the 3 is worth taking. When the discard pile shows most of the high
    # cards, CountingBot knows the unseen cards are low (mean 3.35) and draws instead.
    grid = [[0, 1, 0, 1], [1, 0, 1, 0], [3, 2, 8, 9]]
    state = situation(grid, OTHER, [(0, 0), (0, 1), (0, 2), (0, 3)], [(2, 2), (2, 3)], discard=3)
    assert choose(GreedyBot(), state) == choose(CountingBot(), state) == ar.TakeDiscard(0, 1, 0)
    high = tuple(c for c in state.draw_pile if c >= 9)
    crowded = hand_built(state, discard_pile=state.discard_pile + high,
                         draw_pile=tuple(c for c in state.draw_pile if c < 9))
    assert len(high) > 30
    assert isinstance(choose(GreedyBot(), crowded), ar.TakeDiscard)
    assert choose(CountingBot(), crowded) == ar.Draw(0)


def test_a_random_bot_chooses_among_legal_actions_as_from_the_view() -> None:
    state = ar.new_game(players=3, seed=4)
    ours, theirs = RandomBot(11), RandomBot(11)
    while not state.is_over:
        seat = state.to_act[0]
        v = ar.view(state, seat)
        action = ours.choose_among(v.legal_actions)
        assert action == theirs.choose(v)
        state = ar.apply(state, action)
    for bad in [(), [ar.Draw(0)], None]:
        with pytest.raises(BotError) as caught:
            ours.choose_among(bad)  # type: ignore[arg-type]
        assert caught.value.code == "bot_cannot_act"


def test_expert_is_counting_with_other_weights_and_its_games_are_pinned() -> None:
    import hashlib

    from abyss_rules.notation import to_notation

    assert issubclass(ExpertBot, CountingBot) and ExpertBot.counts_cards
    assert (ExpertBot.flip_bonus, ExpertBot.closing_margin) == (2.0, 10.0)
    assert (CountingBot.flip_bonus, CountingBot.closing_margin) == (0.5, 0.0)
    pinned = {1: (273, (115, 50), "75b2a3efeb8c0f1a"), 2: (354, (91, 104), "03a5506ac895313e")}
    for seed, (actions, totals, digest) in pinned.items():
        result = play_game(["expert", "counting"], seed=seed)
        text = " ".join(to_notation(a) for a in result.actions)
        assert (len(result.actions), result.final.totals,
                hashlib.sha256(text.encode()).hexdigest()[:16]) == (actions, totals, digest)


def test_bots_and_levels_are_listed_weakest_first() -> None:
    assert list(BOTS) == ["random", "greedy", "counting", "search", "expert"]
    assert list(LEVELS.items()) == [("beginner", "random"), ("easy", "greedy"), ("medium", "counting"),
                                    ("hard", "expert")]
    assert all(name in BOTS for name in LEVELS.values())
