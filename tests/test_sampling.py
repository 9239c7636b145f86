"""The sampler of full states from a view: secrecy, legality, exact uniformity, bad input."""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import islice, pairwise, permutations

import attrs
import pytest
from tests.builders import mixed_games, tiny, with_other_secrets

import abyss_rules as ar
from abyss_rules.sampling import MAX_SAMPLED_CARDS, MAX_SAMPLES, StateSampler, sample_states
from abyss_rules.testing import check_invariants, deck_orders


def _positions() -> list[tuple[ar.State, ar.View]]:
    """Positions of every phase, with reshuffles, swallowed columns and later rounds."""
    found = list(islice(mixed_games(tiny(), 6, seed=3), 0, None, 3))
    found += list(islice(mixed_games(ar.Variant.short(), 2, seed=5), 0, None, 7))
    found += list(islice(mixed_games(ar.Variant.standard(), 1, seed=8), 0, None, 11))
    return found


POSITIONS = _positions()


def test_the_positions_cover_what_the_sampler_must_handle() -> None:
    states = [s for s, _ in POSITIONS]
    assert {s.phase for s in states} >= {ar.Phase.OPENING, ar.Phase.TURN, ar.Phase.DRAWN}
    assert any(s.swallowed_mask for s in states)
    assert any(s.round > 1 for s in states)
    # a reshuffle: the discard pile and the draw pile together hold more than the deal left
    assert any(len(s.discard_pile) + len(s.draw_pile) > s.variant.deck_size - s.variant.cells * s.players
               and s.variant.name == "tiny" for s in states)


@pytest.mark.rule("8.2", "8.3")
def test_samples_read_only_the_view() -> None:
    rng = random.Random(1)
    for state, v in POSITIONS:
        other = with_other_secrets(state, rng)
        assert ar.view(other, v.viewer) == v
        assert other != state or not state.draw_pile
        assert sample_states(v, 3, random.Random(9)) == sample_states(ar.view(other, v.viewer), 3,
                                                                      random.Random(9))


@pytest.mark.rule("1.1", "3.11", "8.3")
def test_every_sample_is_a_loadable_state_with_the_same_view() -> None:
    rng = random.Random(2)
    for state, v in POSITIONS:
        for seat in (v.viewer, None):
            seen = ar.view(state, seat)
            for sample in sample_states(seen, 2, rng):
                check_invariants(sample)
                assert ar.loads_state(ar.dumps_state(sample)) == sample
                assert ar.view(sample, seat) == seen
                assert sample.dealer.decks == () and len(sample.dealer.seed) == 32


def test_samples_differ_where_the_view_is_silent() -> None:
    state = ar.new_game(players=2, seed=42)
    samples = sample_states(ar.view(state, 0), 50, random.Random(0))
    assert len({(s.cards, s.draw_pile) for s in samples}) == 50
    assert len({s.dealer.seed for s in samples}) == 50


def test_the_unseen_cards_are_the_deck_less_the_public_cards() -> None:
    for state, v in POSITIONS[::5]:
        hidden = Counter(state.draw_pile)
        cells = state.variant.cells
        for i, card in enumerate(state.cards):
            if not (state.face_up_mask | state.swallowed_mask) >> i & 1:
                hidden[card] += 1
        sampler = StateSampler(v)
        assert sampler.unseen_cards() == hidden
        assert sampler.hidden_spaces == sum(state.face_down_count(p) for p in range(state.players))
        assert sampler.draw_pile_size == len(state.draw_pile)
        assert cells


# -- exact uniformity on small variants ----------------------------------------------------


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square quantile for `df` degrees of freedom at the normal quantile `z` (3.09:
    the 0.999 quantile), by the Wilson-Hilferty approximation (good to a fraction of a percent
    for these df)."""
    k = 2 / (9 * df)
    return df * (1 - k + z * math.sqrt(k)) ** 3


def test_the_critical_value_is_right() -> None:
    # Tabulated 0.999 quantiles of the chi-square distribution.
    assert _chi_square_critical(10) == pytest.approx(29.588, rel=0.01)
    assert _chi_square_critical(100) == pytest.approx(149.449, rel=0.005)


MICRO = ar.Variant(name="micro", deck=((0, 3), (1, 3), (2, 3)), rows=2, cols=1, min_players=1,
                   max_players=2, initial_flips=1)
"""9 cards, 2 x 1 grids: 1,680 deck orders, few enough to deal them all."""


def _layout(state: ar.State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The secret part of a state: the face-down cards in position order and the draw pile."""
    shown = state.face_up_mask | state.swallowed_mask
    down = tuple(c for i, c in enumerate(state.cards) if not shown >> i & 1)
    return down, state.draw_pile


Layouts = Counter[tuple[tuple[int, ...], ...]]


def _exact_posterior(actions: list[ar.Action], seat: int) -> tuple[ar.View, Layouts]:
    """Deal every deck order, play `actions`, and count the layouts of the games whose view for
    `seat` is that of the first order's game: the exact posterior given the view (the actions do
    not depend on the cards, and every order is equally likely, rule 9.3)."""
    target: ar.View | None = None
    layouts: Layouts = Counter()
    for order in deck_orders(MICRO):
        state = ar.new_game(2, MICRO, 0, decks=[order])
        try:
            for action in actions:
                state = ar.apply(state, action)
        except ar.IllegalActionError:
            continue
        seen = ar.view(state, seat)
        if target is None:
            target = seen
        if seen == target:
            layouts[_layout(state)] += 1
    assert target is not None
    return target, layouts


SCRIPTS = {
    "after the opening": ([ar.Flip(0, 0, 0), ar.Flip(1, 1, 0)], 0),
    "holding a drawn card": ([ar.Flip(0, 0, 0), ar.Flip(1, 1, 0), ar.Draw(0)], 1),
    "after a take": ([ar.Flip(0, 0, 0), ar.Flip(1, 1, 0), ar.TakeDiscard(0, 1, 0)], 1),
}


@pytest.mark.rule("8.2")
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_samples_are_uniform_over_the_exact_posterior(name: str) -> None:
    actions, seat = SCRIPTS[name]
    target, layouts = _exact_posterior(actions, seat)
    # every consistent layout is reached by the same number of deck orders: the posterior is uniform
    assert len(set(layouts.values())) == 1
    # ... and it is the sampler's support: every arrangement of the unseen cards
    sampler = StateSampler(target)
    unseen = sorted(sampler.unseen_cards().elements())
    down = sampler.hidden_spaces
    every = {(p[:down], p[down:]) for p in permutations(unseen)}
    assert set(layouts) == every and len(every) >= 10
    draws = 200 * len(every)
    rng = random.Random(name)
    counts = Counter(_layout(sampler.sample(rng)) for _ in range(draws))
    assert set(counts) <= every
    expected = draws / len(every)
    statistic = sum((counts[layout] - expected) ** 2 / expected for layout in every)
    assert statistic < _chi_square_critical(len(every) - 1), (statistic, len(every))


def test_the_uniformity_check_can_fail() -> None:
    # a sampler that favours one layout a little is caught by the same statistic
    target, layouts = _exact_posterior(*SCRIPTS["after the opening"])
    every = sorted(layouts)
    rng = random.Random(4)
    draws = 200 * len(every)
    counts = Counter(rng.choice(every) if rng.random() > 0.02 else every[0] for _ in range(draws))
    expected = draws / len(every)
    statistic = sum((counts[layout] - expected) ** 2 / expected for layout in every)
    assert statistic > _chi_square_critical(len(every) - 1)
    assert target.viewer == 0


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, -1, MAX_SAMPLES + 1, 10**18, 2.0, "3", True, None])
def test_a_bad_n_is_refused(n: object) -> None:
    v = ar.view(ar.new_game(players=2, seed=1), 0)
    with pytest.raises(ar.SamplingError) as caught:
        sample_states(v, n, random.Random(1))  # type: ignore[arg-type]
    assert caught.value.code == "invalid_sampling"


@pytest.mark.parametrize("rng", [None, 3, "seed", random])
def test_a_bad_rng_is_refused(rng: object) -> None:
    v = ar.view(ar.new_game(players=2, seed=1), 0)
    with pytest.raises(ar.SamplingError) as caught:
        sample_states(v, 1, rng)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_sampling"
    with pytest.raises(ar.SamplingError):
        StateSampler(v).sample(rng)  # type: ignore[arg-type]


def test_not_a_view_is_refused() -> None:
    state = ar.new_game(players=2, seed=1)
    for thing in (state, None, ar.view(state, 0).to_dict()):
        with pytest.raises(ar.SamplingError) as caught:
            sample_states(thing, 1, random.Random(1))  # type: ignore[arg-type]
        assert caught.value.code == "invalid_sampling"


def _tampered() -> dict[str, tuple[ar.View, str]]:
    state = ar.new_game(players=2, seed=42)
    for action in [ar.Flip(0, 0, 3), ar.Flip(0, 1, 0), ar.Flip(1, 1, 1), ar.Flip(1, 1, 2)]:
        state = ar.apply(state, action)
    v = ar.view(state, 1)
    grid = v.grids[0]
    shown = list(grid.cards)
    shown[3] = 12
    too_many_twelves = attrs.evolve(grid, cards=tuple(shown))
    peeked = list(grid.cards)
    peeked[0] = 5  # a face-down space showing a value
    return {
        "a card the deck has not": (attrs.evolve(v, discard_pile=(99,)), "cards_mismatch"),
        "one card too many": (attrs.evolve(v, discard_pile=(*v.discard_pile, 3)), "cards_mismatch"),
        "a smaller draw pile": (attrs.evolve(v, draw_pile_size=v.draw_pile_size - 1), "cards_mismatch"),
        "the wrong seat to act": (attrs.evolve(v, turn=0), "impossible_state"),
        "legal actions of another seat": (attrs.evolve(v, legal_actions=()), "impossible_state"),
        "another opener": (attrs.evolve(v, opener=0), "impossible_state"),
        "a drawn card in the turn phase": (attrs.evolve(v, drawn=3, draw_pile_size=v.draw_pile_size - 1),
                                           "impossible_state"),
        "a face-down value": (attrs.evolve(v, grids=(attrs.evolve(grid, cards=tuple(peeked)), v.grids[1])),
                              "impossible_state"),
        "a grid of another shape": (attrs.evolve(v, grids=(v.grids[1],)), "impossible_state"),
        "a list for a tuple": (attrs.evolve(v, grids=[v.grids[0], "grid"]), "impossible_state"),
        "winners before the end": (attrs.evolve(v, winners=(0,)), "impossible_state"),
        "a face-up 12 too many": (attrs.evolve(v, grids=(too_many_twelves, v.grids[1]),
                                               discard_pile=(12,) * 8), "cards_mismatch"),
        "a seq too small": (attrs.evolve(v, seq=1), "impossible_state"),
    }


TAMPERED = _tampered()


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_view_is_refused(name: str) -> None:
    v, code = TAMPERED[name]
    with pytest.raises(ar.SamplingError) as caught:
        sample_states(v, 1, random.Random(1))
    assert caught.value.code == code, caught.value
    assert caught.value.message.startswith(("no state has this view", "the view"))


def _largest() -> ar.View:
    """A seat's view of the largest game the rules allow: 16 seats of 8 x 8, 2,048 cards."""
    variant = ar.Variant.standard().replace(name="largest", rows=8, cols=8, max_players=16,
                                            deck=tuple((c, 128) for c in range(-2, 14)))
    return ar.view(ar.new_game(16, variant, seed=1), 0)


def test_a_call_holds_at_most_max_sampled_cards() -> None:
    import time
    import tracemalloc

    v = _largest()
    assert v.variant.deck_size == 2_048
    most = MAX_SAMPLED_CARDS // 2_048
    for n in (most + 1, MAX_SAMPLES):
        tracemalloc.start()
        start = time.process_time()
        with pytest.raises(ar.SamplingError) as caught:
            sample_states(v, n, random.Random(1))
        spent = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert caught.value.code == "invalid_sampling"
        assert f"at most {most:,} states" in caught.value.message
        assert peak < 20 * 2**20 and spent < 5  # refused before any sample is drawn
    # the standard game keeps every count up to MAX_SAMPLES
    assert MAX_SAMPLES * ar.Variant.standard().deck_size <= MAX_SAMPLED_CARDS
    assert len(sample_states(v, 2, random.Random(1))) == 2


# -- perfect recall ------------------------------------------------------------------------


def _recall_script() -> list[ar.Action]:
    """On MICRO: the opening flips (row 0), then every turn draws and places the card on row 0,
    until the fifth draw, which finds the draw pile empty and reshuffles (rule 5.1)."""
    state = ar.new_game(2, MICRO, 0, decks=[next(iter(deck_orders(MICRO)))])
    actions: list[ar.Action] = []
    draws = 0
    while draws < 5:
        seat = state.to_act[0]
        if state.phase is ar.Phase.OPENING:
            action: ar.Action = ar.Flip(seat, 0, 0)
        elif state.phase is ar.Phase.TURN:
            action, draws = ar.Draw(seat), draws + 1
        else:
            action = ar.PlaceDrawn(seat, 0, 0)
        actions.append(action)
        state = ar.apply(state, action)
    return actions


def _recalled_games(actions: list[ar.Action], seat: int):  # type: ignore[no-untyped-def]
    """Every deal order of MICRO and, at a reshuffle, every order of the cards shuffled (each
    position order once: all equally likely, rule 9.4), played through `actions`: the final state
    and the seat's views after every action (the deal's first)."""
    for order in deck_orders(MICRO):
        start = ar.new_game(2, MICRO, 0, decks=[order])
        stack = [(start, 0, (ar.view(start, seat),))]
        while stack:
            state, i, views = stack.pop()
            if i == len(actions):
                yield state, views
                continue
            action = actions[i]
            if isinstance(action, ar.Draw) and not state.draw_pile and state.phase is ar.Phase.TURN:
                below = state.discard_pile[1:]
                branches = [state._replace(draw_pile=tuple(below[j] for j in p),
                                           discard_pile=state.discard_pile[:1])
                            for p in permutations(range(len(below)))]
            else:
                branches = [state]
            for branch in branches:
                try:
                    after = ar.apply(branch, action)
                except ar.IllegalActionError:
                    continue
                stack.append((after, i + 1, (*views, ar.view(after, seat))))


def test_perfect_recall_samples_are_uniform_over_the_exact_posterior() -> None:
    actions = _recall_script()
    seat = 0
    target: tuple[ar.View, ...] | None = None
    layouts: Layouts = Counter()
    for state, views in _recalled_games(actions, seat):
        if target is None:
            target = views
        if views == target:
            layouts[_layout(state)] += 1
    assert target is not None
    last = target[-1]
    assert last.phase is ar.Phase.DRAWN and any(
        b.draw_pile_size > a.draw_pile_size for a, b in pairwise(target))  # a reshuffle was seen
    # the exact posterior is uniform ...
    assert len(set(layouts.values())) == 1
    # ... over the face-down spaces holding the cards not reshuffled, the draw pile the rest
    sampler = StateSampler(last, recall=target)
    assert sampler.known_draw_pile is not None and sampler.known_draw_pile.total() == last.draw_pile_size
    down = Counter(sampler.unseen_cards()) - sampler.known_draw_pile
    every = {(a, b) for a in set(permutations(down.elements()))
             for b in set(permutations(sampler.known_draw_pile.elements()))}
    assert set(layouts) == every and len(every) >= 6
    draws = 300 * len(every)
    rng = random.Random(11)
    counts = Counter(_layout(sampler.sample(rng)) for _ in range(draws))
    assert set(counts) <= every
    expected = draws / len(every)
    statistic = sum((counts[layout] - expected) ** 2 / expected for layout in every)
    assert statistic < _chi_square_critical(len(every) - 1), (statistic, len(every))
    for sample in sample_states(last, 20, rng, recall=target):
        check_invariants(sample)
        assert ar.view(sample, seat) == last
    # the view alone puts most of its samples where a player who remembers cannot be
    plain = StateSampler(last)
    impossible = sum(_layout(plain.sample(rng)) not in every for _ in range(2000)) / 2000
    assert impossible > 0.3, impossible


def test_recall_without_a_reshuffle_changes_nothing() -> None:
    actions = _recall_script()[:6]
    state = ar.new_game(2, MICRO, 0, decks=[next(iter(deck_orders(MICRO)))])
    views = [ar.view(state, 1)]
    for action in actions:
        state = ar.apply(state, action)
        views.append(ar.view(state, 1))
    sampler = StateSampler(views[-1], recall=views)
    assert sampler.known_draw_pile is None
    assert sample_states(views[-1], 5, random.Random(3), recall=views) == sample_states(
        views[-1], 5, random.Random(3))


def test_bad_recall_is_refused() -> None:
    actions = _recall_script()
    state = ar.new_game(2, MICRO, 0, decks=[next(iter(deck_orders(MICRO)))])
    views = [ar.view(state, 0)]
    for action in actions:
        state = ar.apply(state, action)
        views.append(ar.view(state, 0))
    last = views[-1]
    bad: dict[str, tuple[object, str]] = {
        "not a sequence": (3, "invalid_sampling"),
        "empty": ((), "invalid_sampling"),
        "not views": (["view"], "invalid_sampling"),
        "another last view": (views[:-1], "invalid_sampling"),
        "a view missing": ([*views[:3], *views[4:]], "invalid_sampling"),
        "not from the deal": (views[2:], "invalid_sampling"),
        "another seat's": ([*[attrs.evolve(v, viewer=1) for v in views[:-1]], last], "invalid_sampling"),
    }
    # the pile before the reshuffle tampered with: the cards shuffled in are not the unseen ones
    k = max(i for i, v in enumerate(views) if v.phase is ar.Phase.TURN)
    pile = views[k].discard_pile
    assert len(pile) - 1 > 3  # (more cards than the deck has of one value)
    other = (pile[1],) * (len(pile) - 1)
    bad["other cards shuffled in"] = ([*views[:k], attrs.evolve(views[k], discard_pile=(pile[0], *other)),
                                       *views[k + 1:]], "impossible_state")
    for name, (recall, code) in bad.items():
        with pytest.raises(ar.SamplingError) as caught:
            StateSampler(last, recall=recall)  # type: ignore[arg-type]
        assert caught.value.code == code, (name, caught.value)
