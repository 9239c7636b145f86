"""Every cache is bounded, and memory comes back after many games with distinct variants (issue 12 §3).

`randomness` once kept a table and an unpacker for every deck size ever seen: 100 games with
distinct deck sizes left 487 MB behind after everything was dropped. Now every module-level cache
is a `caches.BoundedCache` (bounded by entries and by size), and `clear_caches()` empties them.
"""

from __future__ import annotations

import gc
import random
import tracemalloc
from collections.abc import Callable

import pytest

import abyss_rules as ar
from abyss_rules import caches
from abyss_rules.caches import BoundedCache, cache_stats, clear_caches
from abyss_rules.config import MAX_DECK_SIZE


def play_a_little(variant: ar.Variant, seed: int) -> None:
    """Deal, play some random actions, write and read the states and views: touch every cache."""
    rng = random.Random(seed)
    state = ar.new_game(2, variant=variant, seed=seed)
    for _ in range(20):
        if state.is_over:
            break
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
        ar.loads_view(ar.dumps_view(ar.view(state, 0)))
    ar.loads_state(ar.dumps_state(state))
    ar.loads_variant(ar.dumps_variant(variant))


def variants_of_distinct_sizes(count: int) -> list[ar.Variant]:
    """`count` variants with distinct deck sizes (up to the largest) and distinct grid shapes."""
    shapes = [(rows, cols) for rows in range(2, 9) for cols in range(1, 9)]
    out = []
    for i in range(count):
        rows, cols = shapes[i % len(shapes)]
        need = 2 * rows * cols + 2
        size = need + (i * 37) % (MAX_DECK_SIZE - need)
        out.append(ar.Variant(name=f"v{i}", rows=rows, cols=cols, max_players=2, initial_flips=1,
                              deck=((0, size // 2), (1, size - size // 2)), max_rounds=1))
    return out


def allocated_growth(work: Callable[[], object]) -> tuple[int, int]:
    """Bytes still allocated after `work()` (everything it made dropped), then after `clear_caches()`."""
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - start
        clear_caches()
        gc.collect()
        cleared = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return kept, cleared


def test_deals_of_many_deck_sizes_leave_a_bounded_amount_behind() -> None:
    # 300 deals of 300 distinct sizes near the largest deck: the old caches kept a table of moduli and
    # an unpacker per size (about 80 KB each: some 25 MB here), the bounded ones at most 32 of each.
    clear_caches()
    sizes = range(MAX_DECK_SIZE - 299, MAX_DECK_SIZE + 1)

    def deal() -> None:
        for size in sizes:
            ar.new_game(2, variant=ar.Variant(deck=((0, size // 2), (1, size - size // 2))), seed=size)

    kept, cleared = allocated_growth(deal)
    assert kept < 4 << 20, kept
    assert cleared < 256 << 10, cleared


def test_memory_returns_close_to_its_start_after_many_games_with_distinct_variants() -> None:
    clear_caches()

    def play() -> None:
        for i, variant in enumerate(variants_of_distinct_sizes(120)):
            play_a_little(variant, i)

    kept, cleared = allocated_growth(play)
    assert kept < 24 << 20, kept  # every cache full: bounded (see test_every_cache_stays_within_its_bounds)
    assert cleared < 1 << 20, cleared  # and clear_caches() gives it back
    assert all(entries == 0 for entries, _ in cache_stats().values())


def test_every_cache_stays_within_its_bounds() -> None:
    for i, variant in enumerate(variants_of_distinct_sizes(80)):
        play_a_little(variant, i)
    stats = cache_stats()
    assert {"randomness.moduli", "randomness.unpackers", "grid.geometries", "legal.seats",
            "codec.variants", "codec.round_texts", "codec.action_texts"} <= set(stats)
    for name, cache in caches._REGISTRY.items():
        assert len(cache) <= cache.max_entries and cache.size <= cache.max_size, name
        assert stats[name] == (len(cache), cache.size)
    assert stats["randomness.moduli"][0] > 1  # the caches are used


def test_clear_caches_changes_no_result() -> None:
    state = ar.new_game(3, seed=11)
    text = ar.dumps_state(state)
    clear_caches()
    assert ar.dumps_state(ar.loads_state(text)) == text
    assert ar.new_game(3, seed=11) == state


def test_a_bounded_cache_drops_its_oldest_entries_to_keep_both_bounds() -> None:
    cache: BoundedCache[str, str] = BoundedCache("test.fifo", max_entries=3, max_size=10)
    try:
        for key in "abcd":
            cache.put(key, key * 3, 3)
        assert list(cache) == ["b", "c", "d"] and cache.size == 9
        cache.put("e", "eeeeee", 6)  # size: 9 + 6 > 10, so b and c go
        assert list(cache) == ["d", "e"] and cache.size == 9
        assert cache.put("big", "x", 11) == "x" and "big" not in cache  # larger than the cache: not kept
        cache["f"] = "f"  # item assignment goes through put (size 1)
        assert list(cache) == ["d", "e", "f"] and cache.size == 10
        cache.put("d", "dd", 2)  # replacing a key updates its size
        assert cache.size == 9 and cache["d"] == "dd"
        with pytest.raises(ValueError, match="already exists"):
            BoundedCache("test.fifo", max_entries=1, max_size=1)
    finally:
        del caches._REGISTRY["test.fifo"]


def test_a_memo_serves_the_last_key_by_identity_and_equal_keys_from_one_entry() -> None:
    made: list[ar.Variant] = []
    memo = caches.Memo[ar.Variant, int]("test.memo", lambda v: made.append(v) or len(made), max_entries=2,
                                        max_size=2)
    try:
        a, b = ar.Variant(rows=2), ar.Variant(rows=2)  # equal, not the same object
        assert a == b and a is not b
        assert memo(a) == 1 and memo.last == (a, 1)
        assert memo(b) == 1 and memo.last[0] is b  # equal keys share the value: computed once
        assert memo(ar.Variant(cols=3)) == 2 and memo(ar.Variant(cols=2)) == 3 and len(memo) == 2
        clear_caches()
        assert memo.last[0] is None and len(memo) == 0 and memo(a) == 4
    finally:
        del caches._REGISTRY["test.memo"]


def test_variants_carry_no_tables_the_modules_own_them() -> None:
    variant = ar.Variant(rows=2, cols=3, max_players=3)
    play_a_little(variant, seed=3)
    assert not hasattr(variant, "_memo") and not hasattr(variant, "__dict__")
    stats = cache_stats()
    assert stats["rules.legal.variants"][0] >= 1 and stats["rules.turn.spaces"][0] >= 1
