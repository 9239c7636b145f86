"""Every public function is safe to call from many threads at once.

The library keeps bounded caches between calls (`abyss_rules.caches`); many threads reading
and filling them at once must neither raise nor change a result. Eight threads call the
public API (loads_variant, loads_state, dumps_state, view, dumps_view, loads_view, apply,
legal_actions) over more distinct variants than the variant caches hold, so that entries are
added and dropped all the time, and every result is compared with the one thread's.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import abyss_rules as ar
from abyss_rules.caches import BoundedCache, clear_caches

THREADS = 8


def variants(count: int) -> list[ar.Variant]:
    """`count` distinct small variants (more than the codec's variant caches keep)."""
    return [ar.Variant(name=f"t{i}", rows=2 + i % 3, cols=2 + i % 2, max_players=3, initial_flips=1,
                       deck=((0, 12 + i), (1, 12), (2 + i % 5, 10)), max_rounds=2) for i in range(count)]


def states(variant: ar.Variant, seed: int, count: int) -> list[ar.State]:
    rng = random.Random(seed)
    state = ar.new_game(2 + seed % 2, variant, seed=seed)
    out = [state]
    while len(out) < count and not state.is_over:
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
        out.append(state)
    return out


def job(text: str, variant_text: str) -> tuple[object, ...]:
    """One thread's work on one state document: every public function on it, as plain values."""
    variant = ar.loads_variant(variant_text)
    state = ar.loads_state(text)
    seat = state.turn if state.turn is not None else 0
    view = ar.view(state, seat)
    view_text = ar.dumps_view(view)
    legal = ar.legal_actions(state)
    after = ar.dumps_state(ar.apply(state, legal[0])) if legal else None
    again = ar.dumps_view(ar.loads_view(view_text))
    actions = tuple(map(ar.dumps_action, legal))
    return (ar.dumps_variant(variant), ar.dumps_state(state), view_text, again, actions, after)


@contextmanager
def tight_switching() -> Iterator[None]:
    """Threads switch every microsecond (the default is every 5 ms): far more interleavings."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def run_threads(work: Callable[[int], list[object]]) -> list[list[object]]:
    results: list[list[object]] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def run(n: int) -> None:
        try:
            start.wait()
            results[n] = work(n)
        except BaseException as error:  # (reported below, with its type)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    with tight_switching():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors, f"{len(errors)} threads failed, first: {errors[0]!r}"
    return results


def test_the_public_api_from_eight_threads_gives_the_one_threads_results() -> None:
    clear_caches()
    pool = variants(20)  # the codec keeps 8 variants read from objects, 64 by text
    texts = [(ar.dumps_state(s), ar.dumps_variant(v)) for i, v in enumerate(pool) for s in states(v, i, 6)]
    expected = [job(text, vtext) for text, vtext in texts]
    clear_caches()

    def work(n: int) -> list[object]:
        order = list(range(len(texts)))
        random.Random(n).shuffle(order)
        out: list[object] = [None] * len(texts)
        for _ in range(2):
            for i in order:
                out[i] = job(*texts[i])
        return out

    for result in run_threads(work):
        assert result == expected


def test_loads_variant_from_eight_threads_never_raises() -> None:
    # The variant cache of the codec is the busiest: eight entries, twenty variants, every call a miss.
    pool = [ar.dumps_variant(v) for v in variants(20)]
    expected = [ar.loads_variant(text) for text in pool]

    def work(n: int) -> list[object]:
        rng = random.Random(n)
        picks = [rng.randrange(len(pool)) for _ in range(3000)]
        return [(i, ar.loads_variant(pool[i])) for i in picks]

    for result in run_threads(work):
        assert all(variant == expected[i] for i, variant in result)  # type: ignore[misc]


def test_a_bounded_cache_filled_from_eight_threads_keeps_its_bounds() -> None:
    cache = BoundedCache[int, int]("test.threads", max_entries=16, max_size=40)
    try:
        def work(n: int) -> list[object]:
            for i in range(20_000):
                key = (i * 7919 + n) % 100
                cache.put(key, key, 1 + key % 4)
                found = cache.get(key)
                assert found is None or found == key
                if i % 997 == 0:
                    cache.clear()
            return []

        run_threads(work)
        assert len(cache) <= 16 and cache.size <= 40
        assert cache.size == sum(1 + key % 4 for key in cache)
    finally:
        from abyss_rules import caches
        del caches._REGISTRY["test.threads"]
