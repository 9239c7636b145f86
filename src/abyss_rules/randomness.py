"""Seeded, portable, unpredictable randomness (spec section 9).

Every random choice in a game -- each round's deal and each reshuffle -- comes
from one stream of 32-bit words derived from a secret 32-byte seed:

* block `i` is `SHA-256(seed || i)`, `i` as an 8-byte big-endian
  unsigned integer (rule 9.2);
* the stream is the blocks' bytes read as big-endian 32-bit words, eight words
  per block, in order;
* a bounded integer below `n` is drawn by rejection sampling (rule 9.3);
* a shuffle is the Fisher-Yates shuffle from the last position down (rule 9.4).

The generator never uses Python's `random` module. Knowing every card revealed so far
does not help predict the next one without the seed (SHA-256 in counter mode).
The functions are pure: each takes the seed and a *position* (words consumed so far)
and returns the new position with its result.

Examples:
    >>> seed = bytes(32)
    >>> words(seed, 0, 2)
    (741658141, 4063986572)
    >>> shuffled(seed, 0, [1, 2, 3, 4, 5])
    ((3, 5, 4, 1, 2), 4)
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterable, Sequence
from operator import mod
from struct import Struct
from typing import Any, Final, TypeVar

from .caches import BoundedCache
from .errors import SeedError

try:  # CPython's built-in SHA-256 is about twice as fast as OpenSSL's on 40-byte inputs
    from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
except ImportError:  # pragma: no cover - depends on the Python version
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12+
    except ImportError:
        from hashlib import sha256

__all__ = [
    "COMPILED",
    "SEED_BYTES",
    "RowShuffle",
    "Seed",
    "compiled_row_shuffle",
    "fresh_seed",
    "many_stream_blocks",
    "normalize_seed",
    "randbelow",
    "secret_decks_repr",
    "secret_repr",
    "shuffled",
    "stream_blocks",
    "words",
]

SEED_BYTES: Final = 32
"""Length of a seed in bytes (rule 9.1)."""

_WORDS_PER_BLOCK: Final = 8
_TWO_32: Final = 1 << 32
_BLOCK = Struct(">8I")
_COUNTER = Struct(">Q")

T = TypeVar("T")

Seed = int | bytes
"""What `normalize_seed` accepts: 32 raw bytes or an int in `[0, 2**256)`."""


def fresh_seed() -> bytes:
    """Return a new secret seed from the operating system's secure source (rule 9.1).

    Examples:
        >>> len(fresh_seed()), fresh_seed() != fresh_seed()
        (32, True)
    """
    return secrets.token_bytes(SEED_BYTES)


def secret_repr(seed: object) -> str:
    """How a seed shows in the `repr` of every public type: never its value (rule 8.2).

    A seed is the whole future of a game; logging a value with `%r` must not leak it.

    Examples:
        >>> secret_repr(bytes(32)), secret_repr(None)
        ('<secret>', 'None')
    """
    return "None" if seed is None else "<secret>"


def secret_decks_repr(decks: tuple[tuple[int, ...], ...] | None) -> str:
    """How explicit deck orders (rule 9.6) show in a `repr`: their number only.

    Examples:
        >>> secret_decks_repr(((3, 1, 2),)), secret_decks_repr(None)
        ('<1 secret>', 'None')
    """
    return "None" if decks is None else f"<{len(decks)} secret>"


def normalize_seed(seed: Seed | None) -> bytes:
    """Turn a user-given seed into the 32 bytes the generator uses (rule 9.1).

    `None` draws a fresh secret seed; an `int` `s` with
    `0 <= s < 2**256` becomes `s.to_bytes(32, "big")`; `bytes` must be
    exactly 32 long.

    Raises:
        SeedError: With code `invalid_seed` for anything else (a `bool` too).

    Examples:
        >>> normalize_seed(1).hex()[-4:]
        '0001'
        >>> normalize_seed(-1)
        Traceback (most recent call last):
        ...
        abyss_rules.errors.SeedError: [invalid_seed] an int seed must be in [0, 2**256), got -1 (rule 9.1)
    """
    if seed is None:
        return fresh_seed()
    if isinstance(seed, bool):
        raise SeedError(f"a seed must be an int or 32 bytes, got {seed!r}")
    if isinstance(seed, int):
        if not 0 <= seed < 1 << (8 * SEED_BYTES):
            raise SeedError(f"an int seed must be in [0, 2**256), got {seed}")
        return seed.to_bytes(SEED_BYTES, "big")
    if isinstance(seed, (bytes, bytearray)):
        if len(seed) != SEED_BYTES:
            raise SeedError(f"a bytes seed must be exactly 32 bytes long, got {len(seed)}")
        return bytes(seed)
    raise SeedError(f"a seed must be an int or 32 bytes, got {type(seed).__name__}")


_hash = sha256
"""The SHA-256 constructor every block of every stream goes through (the tests replace it to
force rejected words; the compiled hash and shuffles then stand aside, so that every block goes
through it)."""

_Requests = Iterable[tuple[bytes, int, int]]

RowShuffle = Callable[[Sequence[bytes], Any, Any, Any], None]
"""The compiled shuffle of many rows in place: `(seeds, positions, rows, lengths)`, see
`compiled_row_shuffle`."""

_bulk: Callable[[_Requests], bytes] | None = None
"""The compiled bulk hash (`_sha256_blocks.c`, built with the wheel), or None: the pure path."""
_shuffled: Callable[[bytes, int, Iterable[Any]], tuple[tuple[Any, ...], int]] | None = None
"""The compiled `shuffled` (the same C module), or None."""
_shuffle_rows: RowShuffle | None = None
"""The compiled shuffle of many rows (the same C module), or None."""
if os.environ.get("ABYSS_RULES_PURE") != "1":
    with contextlib.suppress(ImportError):  # (an editable install or a pure wheel: the pure path)
        from ._sha256_blocks import many_stream_blocks as _bulk
        from ._sha256_blocks import shuffle_rows as _shuffle_rows
        from ._sha256_blocks import shuffled as _shuffled

COMPILED: Final[bool] = _bulk is not None
"""Whether the stream runs in compiled code: `many_stream_blocks` and `stream_blocks` hash
there, and `shuffled` (every deal and reshuffle) draws and swaps there. A wheel's build compiles
`_sha256_blocks.c` beside the bots (the CPU's SHA extensions where present, portable C
elsewhere), and the same blocks and shuffles come out either way. `False` in an editable install,
a pure wheel, or when the environment sets `ABYSS_RULES_PURE=1` at import (see the Installation
page)."""

_COMPILED_POSITIONS: Final = 1 << 62
"""The compiled `shuffled` takes positions below this (any real game's: rule 3.11 stops at
2**48); the pure path takes the others."""


def _digest(seed: bytes, index: int) -> bytes:
    """Block `index` of the stream: `SHA-256(seed || u64be(index))` (rule 9.2)."""
    digest: bytes = _hash(seed + _COUNTER.pack(index)).digest()
    return digest


def _block(seed: bytes, index: int) -> tuple[int, ...]:
    return _BLOCK.unpack(_digest(seed, index))


class _Stream:
    """Reads words from `position` on; `position` ends at the next unread word."""

    __slots__ = ("seed", "position", "_buffer", "_offset")

    def __init__(self, seed: bytes, position: int) -> None:
        self.seed = seed
        self.position = position
        block, self._offset = divmod(position, _WORDS_PER_BLOCK)
        self._buffer = _block(seed, block)

    def next_word(self) -> int:
        if self._offset == _WORDS_PER_BLOCK:
            self._buffer = _block(self.seed, self.position // _WORDS_PER_BLOCK)
            self._offset = 0
        word = self._buffer[self._offset]
        self._offset += 1
        self.position += 1
        return word

    def below(self, n: int) -> int:
        limit = _TWO_32 - _TWO_32 % n
        while True:
            word = self.next_word()
            if word < limit:
                return word % n


def words(seed: bytes, position: int, count: int) -> tuple[int, ...]:
    """Return `count` words of the stream starting at word `position` (rule 9.2).

    Examples:
        >>> words(bytes(32), 8, 2)          # block 1 starts at word 8
        (148898406, 4293962444)
    """
    stream = _Stream(seed, position)
    return tuple(stream.next_word() for _ in range(count))


def randbelow(seed: bytes, position: int, n: int) -> tuple[int, int]:
    """Draw an unbiased integer in `[0, n)` (rule 9.3).

    Returns `(value, new_position)`. `n` must be in `[1, 2**32]`.

    Raises:
        ValueError: `n` is out of range.

    Examples:
        >>> randbelow(bytes(32), 0, 6)
        (1, 1)
        >>> randbelow(bytes(32), 1, 3_000_000_000)   # one word rejected
        (1522477695, 3)
    """
    if not 1 <= n <= _TWO_32:
        raise ValueError(f"n must be in [1, 2**32], got {n}")
    stream = _Stream(seed, position)
    value = stream.below(n)
    return value, stream.position


def shuffled(seed: bytes, position: int, items: Sequence[T]) -> tuple[tuple[T, ...], int]:
    """Fisher-Yates shuffle of `items` (rule 9.4).

    For `i` from `len(items) - 1` down to `1`: draw `j = below(i + 1)`
    and swap positions `i` and `j`. Returns `(shuffled_items,
    new_position)`; index 0 of the result is the top of the pile it forms.

    Compiled (see `COMPILED`), the draws and the swaps run in C, with the same result; `seed`
    must then be 32 bytes (a `ValueError` otherwise). Positions from `2**62` on take the pure path.

    Examples:
        >>> shuffled(bytes(32), 0, range(1, 11))
        ((9, 5, 1, 4, 3, 10, 7, 8, 6, 2), 9)
        >>> shuffled(bytes(32), 0, ["only"])        # fewer than 2 items: no word used
        (('only',), 0)
    """
    if _shuffled is not None and _hash is sha256 and 0 <= position < _COMPILED_POSITIONS:
        return _shuffled(seed, position, items)
    return _shuffled_pure(seed, position, items)


def _shuffled_pure(seed: bytes, position: int, items: Iterable[T]) -> tuple[tuple[T, ...], int]:
    """`shuffled` in Python: the pure path, and the reference of the compiled one."""
    cards = list(items)
    n = len(cards)
    if n < 2:
        return tuple(cards), position
    # Hot path (every deal). Read the n - 1 words a shuffle needs when no word
    # is rejected; if none is (almost always), the draws are plain remainders.
    first_block, skip = divmod(position, _WORDS_PER_BLOCK)
    stream = _words_from(seed, first_block, skip + n - 1)[skip:skip + n - 1]
    lowest_limit, moduli = _tables(n)
    if max(stream) < lowest_limit:
        i = n - 1
        for j in map(mod, stream, moduli):  # n - 1 draws, for i = n - 1 down to 1
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1
        return tuple(cards), position + n - 1
    return _shuffle_with_rejections(seed, position, cards)


def compiled_row_shuffle() -> RowShuffle | None:
    """The shuffle of rule 9.4 for many rows at once in compiled code, or `None` where this
    process takes the pure path (see `COMPILED`).

    The function returned, `(seeds, positions, rows, lengths) -> None`, shuffles the first
    `lengths[g]` items of row `g` of `rows` in place, for every `g`, exactly as
    `shuffled(seeds[g], positions[g], ...)` does, and writes the position after each shuffle into
    `positions[g]`: `seeds` a sequence of 32-byte seeds, `rows` a writable C-contiguous 2-D buffer
    of 1-, 2-, 4- or 8-byte items (a NumPy array), `positions` (writable) and `lengths` buffers of
    native int64, each position in `[0, 2**62)` and each length at most the rows' width
    (a `TypeError` or `ValueError` otherwise, nothing changed). The batch engine deals and
    reshuffles with it; its pure path is NumPy's.

    Examples:
        >>> shuffle = compiled_row_shuffle()
        >>> shuffle is None or callable(shuffle)
        True
    """
    return _shuffle_rows if _hash is sha256 else None


def _shuffle_with_rejections(seed: bytes, position: int, cards: list[T]) -> tuple[tuple[T, ...], int]:
    """Rule 9.4 word by word, for the rare shuffle in which a word is rejected (rule 9.3)."""
    stream = _Stream(seed, position)
    below = stream.below
    for i in range(len(cards) - 1, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards), stream.position


def _tables(n: int) -> tuple[int, list[int]]:
    """For a shuffle of `n`: the lowest rejection limit of its draws, and their moduli in order."""
    found = _TABLES.get(n)
    if found is None:
        moduli = list(range(n, 1, -1))
        found = _TABLES.put(n, (min(_TWO_32 - _TWO_32 % m for m in moduli), moduli), n)
    return found


_TABLES: Final = BoundedCache[int, tuple[int, list[int]]]("randomness.moduli", max_entries=32,
                                                          max_size=1 << 15)
"""The moduli of a shuffle by deck size (size: the number of moduli; 16 decks of 2,048 cards)."""


def many_stream_blocks(requests: _Requests) -> bytes:
    """`stream_blocks(seed, first, count)` of every `(seed, first, count)` request, concatenated
    in order: the batch engine hashes all the blocks of many games in one call.

    Compiled (see `COMPILED`), the blocks of all the requests are hashed in one C call; each
    request must then be a tuple of a 32-byte `bytes` seed and two `int`s with `0 <= first` and
    `first + count <= 2**64` (a `TypeError`, `ValueError` or `OverflowError` otherwise).

    Examples:
        >>> many_stream_blocks([(bytes(32), 1, 2), (bytes(32), 0, 1)]) == (
        ...     stream_blocks(bytes(32), 1, 2) + stream_blocks(bytes(32), 0, 1))
        True
    """
    if _bulk is not None and _hash is sha256:
        return _bulk(requests)
    return _many_stream_blocks_pure(requests)


def _many_stream_blocks_pure(requests: _Requests) -> bytes:
    """`many_stream_blocks` in Python, one `_hash` call per block."""
    hash_, counters = _hash, _counters
    return b"".join([hash_(seed + c).digest()
                     for seed, first, count in requests for c in counters(first, count)])


def _counters(first: int, count: int) -> Sequence[bytes]:
    """`u64be(b)` for the blocks `b` from `first` to `first + count - 1`, the counters of rule 9.2
    (from a table for the first blocks)."""
    if first + count <= len(_COUNTERS):
        return _COUNTERS[first:first + count]
    return [_COUNTER.pack(index) for index in range(first, first + count)]


_COUNTERS: Final = tuple(_COUNTER.pack(index) for index in range(1024))
"""The counters of the first 1,024 blocks (8,192 words: a shuffle of up to 8,193 cards)."""


def stream_blocks(seed: bytes, first: int, count: int) -> bytes:
    """The bytes of blocks `first` to `first + count - 1` of the stream, concatenated (rule 9.2).

    Word `k` of the stream is the big-endian 32-bit word at byte `4 * (k - 8 * first)` of the
    result, for `8 * first <= k < 8 * (first + count)`. The batch engine reads many games'
    streams this way and unpacks them all at once.

    Examples:
        >>> stream_blocks(bytes(32), 0, 2)[:4].hex(), len(stream_blocks(bytes(32), 5, 3))
        ('2c34ce1d', 96)
    """
    if _bulk is not None and _hash is sha256:
        return _bulk(((seed, first, count),))
    hash_ = _hash
    return b"".join([hash_(seed + c).digest() for c in _counters(first, count)])


def _words_from(seed: bytes, block: int, count: int) -> list[int]:
    """At least `count` words, from the start of `block` on, in whole blocks."""
    blocks = -(-count // _WORDS_PER_BLOCK)
    return list(_unpacker(blocks * _WORDS_PER_BLOCK)(stream_blocks(seed, block, blocks)))


def _unpacker(words: int) -> Callable[[bytes], tuple[int, ...]]:
    """The big-endian unpacking of `words` 32-bit words (cached by size)."""
    found = _UNPACKERS.get(words)
    if found is None:
        found = _UNPACKERS.put(words, Struct(f">{words}I").unpack, words)
    return found


_UNPACKERS: Final = BoundedCache[int, Callable[[bytes], tuple[int, ...]]](
    "randomness.unpackers", max_entries=32, max_size=1 << 15)
"""Struct unpackers by number of words (size: the words)."""
