"""The batch engine against the reference engine, game for game and field for field.

Every game of a batch is replayed with `ar.apply` on the actions the batch was given; at every
step the batch's actor and legal mask must be the reference's (mask = `legal_actions` of the
actor), and the batch's `state(i)` must equal the reference state -- every field: grids, piles,
opening flips, totals, the round history and the dealer's position. Variants cover every flag,
2 to 8 players, grids from 2 x 1 to 4 x 4, and tight decks whose draw pile holds one card after
the deal, so that nearly every draw reshuffles.

Sizes follow the Hypothesis profile (tests/conftest.py): the default `ci` profile checks about
two and a half thousand games; `thorough` (HYPOTHESIS_PROFILE=thorough) over twenty thousand,
comparing every state of every game.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules import batch
from abyss_rules.action_space import ActionSpace
from abyss_rules.batch import choose_uniformly
from abyss_rules.testing import variants

THOROUGH = settings().max_examples >= 1000
"""Whether the `thorough` profile is loaded."""
GAMES_PER_VARIANT = 400 if THOROUGH else 48
MAX_STEPS = 3000 if THOROUGH else 500
"""Steps of a batch at most; the games still going are compared where they stand."""
STRIDE = 1 if THOROUGH else 6
"""Every game's whole state is compared every STRIDE steps (and at the end); actors and masks every step."""


def _differences(got: ar.State, want: ar.State) -> list[str]:
    return [f"{name}: batch {getattr(got, name)!r} != reference {getattr(want, name)!r}"
            for name in want._fields if getattr(got, name) != getattr(want, name)]


def play_both(variant: ar.Variant, players: int, seeds: list[int], choices: int, *, stride: int,
              max_steps: int = 3000) -> tuple[int, int]:
    """Play the same random games on a batch and on the reference; fail on the first difference.

    Returns (actions applied, steps)."""
    b = batch.Batch.new(players, variant, seeds=seeds)
    refs = [ar.new_game(players, variant, seed=seed) for seed in seeds]
    space = ActionSpace(variant)
    rng = np.random.default_rng(choices)
    actions = steps = 0
    while steps < max_steps:
        if steps % stride == 0 or b.done.all():
            for i, ref in enumerate(refs):
                got = b.state(i)
                assert got == ref, f"game {i} (seed {seeds[i]}) after {steps} steps: {_differences(got, ref)}"
        if b.done.all():
            break
        mask = b.legal_mask()
        actor = b.actor
        for i, ref in enumerate(refs):
            if ref.is_over:
                assert actor[i] == -1 and not mask[i].any()
                continue
            seat = min(ref.owing_flips) if ref.phase is ar.Phase.OPENING else ref.turn
            assert actor[i] == seat, f"game {i}: actor {actor[i]}, reference {seat}"
            legal = {space.index(a) for a in ar.legal_actions(ref) if a.player == seat}
            assert set(np.flatnonzero(mask[i]).tolist()) == legal, f"game {i} after {steps} steps: mask"
        chosen = choose_uniformly(mask, rng)
        for i, ref in enumerate(refs):
            if not ref.is_over:
                refs[i] = ar.apply(ref, space.action(int(chosen[i]), int(actor[i])))
                actions += 1
        b = b.step(chosen)
        steps += 1
    for i, ref in enumerate(refs):
        got = b.state(i)
        assert got == ref, f"game {i} (seed {seeds[i]}) at the end: {_differences(got, ref)}"
    return actions, steps


def _tight_deck(variant: ar.Variant, values: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """A deck of exactly max_players * cells + 2 cards: the draw pile holds one card after a deal."""
    needed = variant.max_players * variant.cells + 2
    counts = [needed // len(values) + (1 if n < needed % len(values) else 0) for n in range(len(values))]
    return tuple(zip(values, counts, strict=True))


SHAPES = [(2, 1), (3, 4), (2, 2), (3, 3), (4, 2), (2, 3), (4, 4), (3, 1)]
VALUES = [(-2, 0, 5, 12), (1, 1000), (-1, 3), (0, 7, 9), (-1_000_000, 4, 999_999), (12,), (2, 3, 4, 5, 6)]


def _sweep() -> list[tuple[str, ar.Variant, int]]:
    """One variant per combination of the boolean flags, the opener and the closer penalty, each with
    another shape, player count, number of opening flips, end condition and tight deck."""
    out = []
    flags = itertools.product((True, False), (True, False), (True, False), ar.Opener, (1, 2, 3))
    for n, (flip_turn, final, keeps_top, opener, multiplier) in enumerate(flags):
        rows, cols = SHAPES[n % len(SHAPES)]
        players = 2 + n % 7
        if rows * cols * 8 > 200 and players > 4:
            players = 2 + n % 3
        base = ar.Variant(
            name=f"sweep-{n}", rows=rows, cols=cols, min_players=players, max_players=players,
            initial_flips=min(n % 4, rows * cols - 1), opener=opener, flip_turn=flip_turn,
            swallow_on_final_reveal=final, reshuffle_keeps_top=keeps_top, closer_multiplier=multiplier,
            target_score=(None, 60, 40)[n % 3], max_rounds=(2, 3, None)[n % 3],
            max_turns_per_round=(None, 25, 40)[n % 3],
        )
        deck = _tight_deck(base, VALUES[n % len(VALUES)]) if n % 4 != 3 else ar.Variant().deck
        if sum(count for _, count in deck) < players * rows * cols + 2:
            deck = _tight_deck(base, VALUES[0])
        out.append((base.name, base.replace(deck=deck), players))
    return out


SWEEP = _sweep()


def test_the_sweep_covers_every_flag() -> None:
    variants_ = [v for _, v, _ in SWEEP]
    assert {v.flip_turn for v in variants_} == {True, False}
    assert {v.swallow_on_final_reveal for v in variants_} == {True, False}
    assert {v.reshuffle_keeps_top for v in variants_} == {True, False}
    assert {v.opener for v in variants_} == set(ar.Opener)
    assert {v.closer_multiplier for v in variants_} == {1, 2, 3}
    assert {v.initial_flips for v in variants_} >= {0, 1, 2, 3}
    assert {v.max_turns_per_round for v in variants_} == {None, 25, 40}
    assert {players for _, _, players in SWEEP} == set(range(2, 9))
    assert any(v.deck_size == v.max_players * v.cells + 2 for v in variants_)  # tight decks
    assert any(v.deck[0][0] == -1_000_000 for v in variants_)  # cards that need 32 bits


@pytest.mark.rule("1.4", "2.1", "2.3", "2.4", "4.1", "4.2", "4.3", "5.1", "5.2", "6.1", "6.2", "6.5", "6.7",
                  "7.2", "7.3", "9.4", "9.5", "11.3")
@pytest.mark.parametrize(("name", "variant", "players"), SWEEP, ids=[name for name, _, _ in SWEEP])
def test_every_flag_plays_exactly_like_the_reference(name: str, variant: ar.Variant, players: int) -> None:
    n = int(name.split("-")[1])
    seeds = [n * 100_000 + g for g in range(GAMES_PER_VARIANT)]
    actions, _ = play_both(variant, players, seeds, choices=n, stride=STRIDE, max_steps=MAX_STEPS)
    assert actions > GAMES_PER_VARIANT * 5


@pytest.mark.rule("1.4", "9.5", "11.3")
@pytest.mark.parametrize("players", range(2, 9))
def test_standard_games_play_exactly_like_the_reference(players: int) -> None:
    games = 64 if THOROUGH else 4
    play_both(ar.Variant.standard(), players, list(range(players * 1000, players * 1000 + games)),
              choices=players, stride=STRIDE * 4, max_steps=MAX_STEPS)


@pytest.mark.rule("9.4", "9.5", "11.3")
@given(variants(max_players=8, max_rows=4, max_cols=4), st.data())
def test_generated_variants_play_exactly_like_the_reference(variant: ar.Variant, data: st.DataObject) -> None:
    players = data.draw(st.integers(variant.min_players, variant.max_players), label="players")
    seeds = data.draw(st.lists(st.integers(0, 2**256 - 1), min_size=1, max_size=8), label="seeds")
    play_both(variant, players, seeds, choices=data.draw(st.integers(0, 2**32), label="choices"), stride=1,
              max_steps=400)


@pytest.mark.rule("5.1", "5.2", "9.3", "9.4", "9.5")
def test_rejected_words_deal_and_reshuffle_like_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a SHA-256 whose words are mostly rejected by rule 9.3, the batch's deals and reshuffles
    (which hand rejecting games to the reference shuffle) still match the reference, positions too."""
    from tests.test_randomness import _rejecting_digest

    from abyss_rules import randomness
    from abyss_rules.batch import _shuffle as shuffle

    monkeypatch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
    handed: list[int] = []

    def counted(seed: bytes, position: int, items: Any) -> Any:
        handed.append(len(items))
        return randomness.shuffled(seed, position, items)

    monkeypatch.setattr(shuffle, "shuffled", counted)
    for name, variant, players in (SWEEP[1], SWEEP[6]):
        assert variant.deck_size == variant.max_players * variant.cells + 2, name  # reshuffles all the time
        play_both(variant, players, list(range(6)), choices=3, stride=1, max_steps=300)
    assert len(handed) > 10  # deals and reshuffles really went down the rejection path


@pytest.mark.rule("9.4", "9.5")
def test_deals_of_many_games_at_once_match_the_reference() -> None:
    """The deals of 600 games at once, and shuffles of 1, 7 and 600 rows against the reference,
    down each way of reading the words: every row at the same place of its blocks (a view),
    equal rows at different places (a gather), rows of different lengths (padded)."""
    from abyss_rules.batch._shuffle import shuffle_rows
    from abyss_rules.randomness import normalize_seed, shuffled

    b = batch.Batch.new(3, ar.Variant.standard(), seeds=range(7000, 7600))
    for i in range(0, 600, 7):
        assert b.state(i) == ar.new_game(3, ar.Variant.standard(), seed=7000 + i)
    rng = np.random.default_rng(14)
    for k in (1, 7, 600):
        seeds = [normalize_seed(int(s)) for s in rng.integers(0, 2**62, k)]
        items = rng.integers(-5, 50, (k, 12))
        for positions, lengths in ((np.zeros(k, np.int64), np.full(k, 12)),
                                   (np.full(k, 149), np.full(k, 12)),
                                   (rng.integers(0, 5000, k), np.full(k, 9)),
                                   (rng.integers(0, 5000, k), rng.integers(0, 13, k))):
            rows, after = shuffle_rows(seeds, positions, items, lengths)
            for g in range(k):
                n = int(lengths[g])
                again, position = shuffled(seeds[g], int(positions[g]), items[g, :n].tolist())
                assert tuple(rows[g, :n].tolist()) == again and int(after[g]) == position
                assert (rows[g, n:] == items[g, n:]).all()
