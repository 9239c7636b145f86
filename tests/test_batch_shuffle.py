"""The batch engine's shuffle (`abyss_rules.batch._shuffle`): both tiers against the reference.

The pure tier swaps every game's cards in lockstep in NumPy; the compiled one
(`randomness.compiled_row_shuffle`, in the C module that hashes the streams) shuffles each row in
C. Both must give, row by row, what the pure `shuffled` gives (rules 9.2-9.4): for every deck size
a variant allows, every card type the engine stores, deals (every row as long) and reshuffles
(rows of any length), with and without rejected words. The compiled tier skips in an editable
install; tests/test_compiled.py runs this module on the wheel's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from tests.test_randomness import _rejecting_digest, reference_shuffle

import abyss_rules as ar
from abyss_rules import batch, randomness
from abyss_rules.batch import _shuffle as shuffle
from abyss_rules.config import MAX_DECK_SIZE, MAX_PLAYERS

Array = np.ndarray[Any, Any]
Shuffle = Callable[[Sequence[bytes], Array, Array, Array], tuple[Array, Array]]
EverySize = tuple[list[bytes], Array, Array, list[tuple[int, ...]], Array]
TIERS = ("lockstep", "compiled")
CARD_TYPES = (np.int8, np.int16, np.int32, np.int64)  # (batch.arrays.card_dtype's choices)


def _tier(name: str) -> Shuffle:
    if name == "lockstep":
        return shuffle._lockstep
    if randomness.compiled_row_shuffle() is None:
        pytest.skip("no compiled shuffle here (an editable install): tests/test_compiled.py runs "
                    "these tests on the wheel's")
    return shuffle.shuffle_rows


def _reference(seeds: Sequence[bytes], positions: Array, items: Array, lengths: Array) -> tuple[Array, Array]:
    """Row by row, the pure `shuffled` (the reference of both tiers)."""
    rows, after = items.copy(), positions.astype(np.int64)
    for g, seed in enumerate(seeds):
        n = int(lengths[g])
        mixed, after[g] = randomness._shuffled_pure(seed, int(positions[g]), items[g, :n].tolist())
        rows[g, :n] = mixed
    return rows, after


def _check(tier: Shuffle, seeds: Sequence[bytes], positions: Array, items: Array, lengths: Array) -> None:
    before = items.copy()
    rows, after = tier(seeds, positions, items, lengths)
    expected_rows, expected_after = _reference(seeds, positions, items, lengths)
    assert rows.dtype == items.dtype and rows.shape == items.shape
    assert np.array_equal(rows, expected_rows) and np.array_equal(after, expected_after)
    assert np.array_equal(items, before)  # the input is not touched


@pytest.fixture(scope="module")
def every_size() -> EverySize:
    """Rows of every length from 0 to the largest deck (rule 10.4), in random order, as a
    reshuffle has them: (seeds, positions, lengths, the reference's permutation of each row, the
    positions after)."""
    rng = random.Random(2026)
    lengths = np.array(rng.sample(range(MAX_DECK_SIZE + 1), MAX_DECK_SIZE + 1), np.int64)
    seeds = [rng.randbytes(32) for _ in lengths]
    positions = np.array([rng.choice((0, rng.randrange(8), rng.randrange(2**48))) for _ in lengths])
    shuffles = [randomness._shuffled_pure(seed, int(p), range(int(n)))
                for seed, p, n in zip(seeds, positions, lengths, strict=True)]
    return seeds, positions, lengths, [order for order, _ in shuffles], np.array([p for _, p in shuffles])


@pytest.mark.rule("9.2", "9.3", "9.4")
@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("card_type", CARD_TYPES)
def test_rows_of_every_deck_size_are_shuffled_as_the_reference_shuffles_them(tier: str, card_type: Any,
                                                                            every_size: EverySize) -> None:
    # The reference's permutation of each row (a shuffle moves items whatever they are), applied to
    # cards that span the type's range.
    seeds, positions, lengths, orders, after = every_size
    info = np.iinfo(card_type)
    rng = np.random.default_rng(7)
    items = rng.integers(max(info.min, -2**40), min(info.max, 2**40), (len(seeds), MAX_DECK_SIZE),
                         dtype=card_type, endpoint=True)
    expected = items.copy()
    for g, order in enumerate(orders):
        expected[g, :len(order)] = items[g, list(order)]
    before = items.copy()
    rows, got = _tier(tier)(seeds, positions, items, lengths)
    assert rows.dtype == items.dtype and np.array_equal(rows, expected) and np.array_equal(got, after)
    assert np.array_equal(items, before)  # the input is not touched


@pytest.mark.rule("1.4", "9.4", "9.5")
@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("deck", [2, 3, 8, 9, 13, 150, 151, 256, 257, 1000, MAX_DECK_SIZE - 1, MAX_DECK_SIZE])
def test_deals_are_shuffled_as_the_reference_shuffles_them(tier: str, deck: int) -> None:
    # Every row as long, from a read-only broadcast of the unshuffled deck (as `shuffled_decks`
    # passes it), from the start of the stream and from further on.
    rng = random.Random(deck)
    k = 40
    unshuffled = np.sort(np.array([rng.randrange(-2, 13) for _ in range(deck)], np.int8))
    items = np.broadcast_to(unshuffled, (k, deck))
    seeds = [rng.randbytes(32) for _ in range(k)]
    for positions in (np.zeros(k, np.int64), np.array([rng.randrange(10**6) for _ in range(k)])):
        _check(_tier(tier), seeds, positions, items, np.full(k, deck))


@pytest.mark.rule("9.3", "9.4")
def test_the_lockstep_tier_gives_rows_with_rejected_words_to_the_reference() -> None:
    # A replaced SHA-256 whose words are often rejected (tests/test_randomness.py): the compiled
    # tier stands aside, and the lockstep tier's rejected rows are shuffled by `shuffled`.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
        assert randomness.compiled_row_shuffle() is None
        rng = random.Random(9)
        k, width = 30, 150
        items = np.tile(np.arange(width, dtype=np.int16), (k, 1))
        lengths = np.array([rng.randrange(width + 1) for _ in range(k)])
        seeds = [rng.randbytes(32) for _ in range(k)]
        positions = np.array([rng.randrange(1000) for _ in range(k)])
        rows, after = shuffle.shuffle_rows(seeds, positions, items, lengths)
        rejected = 0
        for g in range(k):
            n = int(lengths[g])
            expected, position, words = reference_shuffle(seeds[g], int(positions[g]), list(range(n)))
            assert rows[g, :n].tolist() == list(expected) and after[g] == position
            rejected += words
        assert rejected > 10  # the rejection path really ran


@pytest.mark.rule("9.3", "9.4")
def test_the_compiled_tier_rejects_words_as_the_reference() -> None:
    # Rows of 200,000 items draw below(m) for m up to 200,000: some words are rejected (rule 9.3).
    tier = _tier("compiled")
    n = 200_000
    items = np.tile(np.arange(n, dtype=np.int32), (2, 1))
    positions = np.array([3, 149])
    rows, after = tier([bytes(32), (42).to_bytes(32, "big")], positions, items, np.full(2, n))
    for g, seed in enumerate([bytes(32), (42).to_bytes(32, "big")]):
        expected, position = randomness._shuffled_pure(seed, int(positions[g]), range(n))
        assert rows[g].tolist() == list(expected) and after[g] == position > positions[g] + n - 1


def test_the_compiled_row_shuffle_refuses_bad_arguments_and_changes_nothing() -> None:
    _tier("compiled")
    compiled = randomness.compiled_row_shuffle()
    assert compiled is not None
    seeds = [bytes(32), bytes(range(32))]

    def arrays() -> tuple[Array, Array, Array]:
        return np.tile(np.arange(10, dtype=np.int8), (2, 1)), np.array([0, 5]), np.array([10, 4])

    def refused(error: type[Exception], *, seeds: Any = seeds, **changes: Any) -> None:
        rows, positions, lengths = arrays()
        given = {"rows": rows, "positions": positions, "lengths": lengths, **changes}
        kept = {name: value.copy() for name, value in given.items() if isinstance(value, np.ndarray)}
        with pytest.raises(error):
            compiled(seeds, given["positions"], given["rows"], given["lengths"])
        for name, value in kept.items():
            assert np.array_equal(given[name], value), name  # nothing changed

    refused(TypeError, positions=np.array([0, 5], np.int32))        # positions are int64
    refused(TypeError, positions=np.array([0, 5, 6]))               # one per seed
    refused(TypeError, lengths=np.array([10.0, 4.0]))
    refused(ValueError, lengths=np.array([11, 4]))                  # longer than a row
    refused(ValueError, lengths=np.array([-1, 4]))
    refused(ValueError, positions=np.array([-1, 5]))                # a count of words
    refused(ValueError, positions=np.array([2**62, 5]))
    refused(TypeError, rows=np.zeros(20, np.int8))                  # one row per seed
    refused(TypeError, rows=np.zeros((3, 10), np.int8))
    refused((ValueError, BufferError), rows=np.zeros((2, 20), np.int8)[:, ::2])  # C-contiguous
    read_only = np.broadcast_to(np.arange(10, dtype=np.int8), (2, 10))
    refused((ValueError, BufferError), rows=read_only)  # writable
    refused(ValueError, seeds=[bytes(31), bytes(32)])  # a seed is 32 bytes (rule 9.1)
    refused(ValueError, seeds=[bytes(32), "x" * 32])
    refused(TypeError, seeds=7)
    rows, positions, lengths = arrays()
    compiled(seeds, positions, rows, lengths)
    assert positions.tolist() == [9, 8]  # (the positions after, in place)


@pytest.mark.rule("1.3", "1.4", "9.5")
def test_every_seat_count_is_dealt_as_new_game_deals_it() -> None:
    # From 1 to the most seats a variant may have (rule 10.3), on a deck that deals them all.
    variant = ar.Variant(min_players=1, max_players=MAX_PLAYERS, rows=3, cols=4,
                         deck=tuple((value, 13) for value in range(-2, 13)))
    seeds = [0, 7, 2**255 + 1]
    for players in range(1, MAX_PLAYERS + 1):
        b = batch.Batch.new(players, variant, seeds=seeds)
        for i, seed in enumerate(seeds):
            assert b.state(i) == ar.new_game(players, variant, seed=seed), (players, seed)
