"""The library's caches: every one bounded, all in one place, all cleared by `clear_caches()`.

The engine keeps a few tables between calls so that the common work is not redone: the
moduli of a shuffle of each deck size, the spellings of JSON text, the geometry of each
grid shape, the recent variants read from documents. Each is a `BoundedCache`,
registered here, with two bounds:

* `max_entries` -- how many keys it holds;
* `max_size` -- the sum of the sizes of its values, as the cache's owner measures them
  (the number of ints in a table, the characters of a text).

When a new entry would break either bound, the oldest entries are dropped first (first in,
first out). A value larger than `max_size` on its own is returned but never kept. So the
memory a long-running process gives to caches stays bounded whatever games it plays, and
`clear_caches` gives all of it back at once (for a memory measurement, say). A cache never
changes a result: only how fast it comes.

Some cached values own tables of their own, bounded by count (a grid shape's snapshots by
mask, a seat's legal actions by mask): they are bounded because their owners are, and a cache
created with `on_clear` empties them too when it is cleared -- also those of owners still in
use elsewhere (a variant keeps its shape's tables). A table computed from a variant is kept
by the module that computes it, in a `Memo` of its own: a `BoundedCache` keyed by the variant,
with the last variant's table in front, found by identity.

**Threads.** Every cache may be used from many threads at once (and so may every public
function of the library): reads are single dict look-ups, which are atomic; `put` and `clear`
take the cache's lock, so that the entries and their sizes change together; a reader that
walks the entries takes a `abyss_rules.caches.BoundedCache.snapshot`. A cached value is never
changed once stored, so whichever thread stores it first, every thread gets an equal value.
The design needs nothing of the GIL but that single dict operations are atomic, which
free-threaded builds of Python (3.13t) keep too; the tests run on builds with the GIL only.

Examples:
    >>> cache = BoundedCache("example", max_entries=2, max_size=10)
    >>> cache.put("a", "xxxx", 4), cache.put("b", "yyyy", 4), cache.put("c", "zz", 2)
    ('xxxx', 'yyyy', 'zz')
    >>> sorted(cache), cache.size          # "a" was the oldest: dropped to keep two entries
    (['b', 'c'], 6)
    >>> cache.put("huge", "w" * 50, 50) in cache.values()   # returned, never kept
    False
    >>> cache.get("b"), len(cache)
    ('yyyy', 2)
    >>> clear_caches(); len(cache), cache.size
    (0, 0)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

__all__ = ["BoundedCache", "Memo", "cache_stats", "clear_caches"]

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(dict[K, V]):
    """A dict bounded by its number of entries and the total size of its values.

    Read it as a dict (`get`, `in`, `[]`: lookups cost what a dict's do); add to it only
    with `put`, which keeps both bounds. Every cache is registered by its `name` for
    `clear_caches` and `cache_stats`.
    """

    __slots__ = ("name", "max_entries", "max_size", "size", "_sizes", "_on_clear", "_lock")

    def __init__(self, name: str, *, max_entries: int, max_size: int,
                 on_clear: Callable[[V], None] | None = None) -> None:
        super().__init__()
        if name in _REGISTRY:
            raise ValueError(f"a cache named {name!r} already exists")
        self.name = name
        self.max_entries = max_entries
        self.max_size = max_size
        self.size = 0
        self._sizes: dict[K, int] = {}
        self._on_clear = on_clear
        self._lock = threading.Lock()
        _REGISTRY[name] = self

    def put(self, key: K, value: V, size: int = 1) -> V:
        """Keep `value` under `key` (its size as the owner measures it) and return it.

        The oldest entries are dropped until both bounds hold; a value whose size alone is
        over `max_size` is returned without being kept.
        """
        if size > self.max_size:
            return value
        with self._lock:  # one writer at a time: the entries and their sizes change together
            if key in self:
                self.size -= self._sizes.pop(key)
                super().__delitem__(key)
            while self and (len(self) >= self.max_entries or self.size + size > self.max_size):
                oldest = next(iter(self))
                self.size -= self._sizes.pop(oldest)
                super().__delitem__(oldest)
            super().__setitem__(key, value)
            self._sizes[key] = size
            self.size += size
        return value

    def __setitem__(self, key: K, value: V) -> None:  # every addition goes through put()
        self.put(key, value)

    def clear(self) -> None:
        """Drop every entry (first emptying their own tables, with `on_clear`)."""
        with self._lock:
            if self._on_clear is not None:
                for value in self.values():
                    self._on_clear(value)
            super().clear()
            self._sizes.clear()
            self.size = 0

    def snapshot(self) -> tuple[V, ...]:
        """The values now, oldest first: iterate over this, never over the cache itself (another
        thread may add or drop an entry meanwhile)."""
        with self._lock:
            return tuple(self.values())

    def __repr__(self) -> str:
        return (f"<BoundedCache {self.name!r} entries={len(self)}/{self.max_entries} "
                f"size={self.size}/{self.max_size}>")


class Memo(BoundedCache[K, V]):
    """A module's own cache of a value computed from a key (a `Variant`, say): `memo(key)`.

    The value of the last key asked sits in `last`, `(key, value)`, found by identity: a hot
    path reads `last = memo.last` and takes `last[1]` when `last[0] is key`, calling
    `memo(key)` only otherwise. Behind it, a `BoundedCache` keyed by equality, so that equal
    keys share one value. `make(key)` computes a value, `size(value)` measures it.

    Examples:
        >>> squares = Memo("example.squares", lambda n: n * n, max_entries=4, max_size=4)
        >>> squares(12), squares.last, squares(12)
        (144, (12, 144), 144)
        >>> clear_caches(); squares.last[0] is None, len(squares)
        (True, 0)
    """

    __slots__ = ("last", "_make", "_size")

    def __init__(self, name: str, make: Callable[[K], V], *, max_entries: int, max_size: int,
                 size: Callable[[V], int] | None = None) -> None:
        super().__init__(name, max_entries=max_entries, max_size=max_size)
        self._make = make
        self._size = size
        self.last: tuple[K | None, V] = (None, cast(V, None))
        """The last key asked and its value (one tuple, so that threads read a matching pair)."""

    def __call__(self, key: K) -> V:
        """The value of `key`: the last one if `key` is the last key, else the cached or a new one."""
        last = self.last
        if last[0] is key:
            return last[1]
        found = self.get(key)
        if found is None:
            value = self._make(key)
            found = self.put(key, value, 1 if self._size is None else self._size(value))
        self.last = (key, found)
        return found

    def clear(self) -> None:
        """Drop every entry and the last value."""
        super().clear()
        self.last = (None, cast(V, None))


_REGISTRY: Final[dict[str, BoundedCache[Any, Any]]] = {}


def clear_caches() -> None:
    """Empty every cache of the library (results never change; the next calls are slower once).

    Examples:
        >>> import abyss_rules as ar
        >>> _ = ar.dumps_state(ar.new_game(2, seed=1))
        >>> clear_caches()
        >>> all(entries == 0 for entries, _ in cache_stats().values())
        True
    """
    for cache in _REGISTRY.values():
        cache.clear()


def cache_stats() -> dict[str, tuple[int, int]]:
    """`{name: (entries, size)}` of every cache, to watch what they hold.

    Examples:
        >>> "randomness.moduli" in cache_stats()
        True
    """
    return {name: (len(cache), cache.size) for name, cache in _REGISTRY.items()}

