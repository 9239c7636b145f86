"""The spec's shuffle (rules 9.2-9.4) for many games at once.

Two tiers give the same rows. The compiled one (`randomness.compiled_row_shuffle`, in the C
module that hashes the streams; the default where the wheel has it) shuffles each row in C:
its words hashed, its draws taken (rejections included) and its swaps made in one call for
every game. The pure one, the fallback: each game's words are hashed per game with the
reference generator (`many_stream_blocks`), then the Fisher-Yates swaps are made for every
game in lockstep, one NumPy operation per position; a game whose words hold a rejected draw
(rule 9.3; about one shuffle in ten million) is shuffled again by the reference `shuffled`,
so the result is the reference's in every case. `tests/test_batch_shuffle.py` compares both
tiers with `shuffled` on every deck size a variant allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..randomness import compiled_row_shuffle, many_stream_blocks, shuffled

__all__ = ["shuffle_rows"]

Array = np.ndarray[Any, Any]


def _words(seeds: Sequence[bytes], positions: Array, need: Array) -> Array:
    """`need[g]` words of game `g`'s stream from `positions[g]` on, as a `(k, max(need))` uint32
    array (entries past `need[g]` are 0)."""
    width = int(need.max())
    first = positions // 8
    skip = positions % 8
    blocks = (skip + need + 7) // 8
    data = many_stream_blocks(zip(seeds, first.tolist(), blocks.tolist(), strict=True))
    flat = np.frombuffer(data, dtype=">u4")
    uniform = int(skip.min()) == int(skip.max()) and int(blocks.min()) == int(blocks.max())
    if uniform and int(need.min()) == width:
        # Every game's words at the same place of its blocks (new games' deals): a view.
        offset = int(skip[0])
        out: Array = flat.reshape(len(need), -1)[:, offset:offset + width].astype(np.uint32)
        return out
    starts = np.cumsum(blocks * 8) - blocks * 8 + skip
    t = np.arange(width)
    if int(need.min()) == width:  # a deal: every game needs as many words, no padding
        out = flat.take(starts[:, None] + t[None, :]).astype(np.uint32)
        return out
    valid = t[None, :] < need[:, None]
    at = np.where(valid, starts[:, None] + t[None, :], 0)
    out = np.where(valid, flat.take(at) if flat.size else 0, 0).astype(np.uint32)
    return out


def shuffle_rows(seeds: Sequence[bytes], positions: Array, items: Array,
                 lengths: Array) -> tuple[Array, Array]:
    """Shuffle the first `lengths[g]` items of row `g` of `items` by rule 9.4, from the stream of
    `seeds[g]` at word `positions[g]`; return `(rows, new_positions)`.

    The other entries of a row are returned unchanged; `items` itself is not modified.
    `new_positions[g]` is `positions[g] + lengths[g] - 1` (no word used below two items)
    unless a word was rejected.

    Examples:
        The example of rule 9.4 (all-zero seed, position 0), and a shorter row beside it:

        >>> import numpy as np
        >>> rows, after = shuffle_rows([bytes(32), bytes(32)], np.array([0, 0]),
        ...                            np.array([[1, 2, 3, 4, 5], [1, 2, 0, 0, 0]]), np.array([5, 2]))
        >>> rows.tolist(), after.tolist()
        ([[3, 5, 4, 1, 2], [1, 2, 0, 0, 0]], [4, 1])
    """
    compiled = compiled_row_shuffle()
    if compiled is not None:
        rows = np.array(items, order="C")  # (a copy: items may be a read-only broadcast)
        after = np.array(positions, dtype=np.int64, order="C")
        compiled(seeds, after, rows, np.ascontiguousarray(lengths, dtype=np.int64))
        return rows, after
    return _lockstep(seeds, positions, items, lengths)


def _lockstep(seeds: Sequence[bytes], positions: Array, items: Array, lengths: Array) -> tuple[Array, Array]:
    """`shuffle_rows` on the pure path: NumPy, every game's swap `i` at once."""
    k = len(seeds)
    lengths = lengths.astype(np.int64)
    positions = positions.astype(np.int64)
    need = np.maximum(lengths - 1, 0)
    if k == 0 or int(need.max()) == 0:
        return items.copy(), positions.copy()
    words = _words(seeds, positions, need)
    steps = words.shape[1]
    same = bool((lengths == lengths[0]).all())
    # In 32 bits (twice as fast as 64): a word is rejected by rule 9.3 when it is at least
    # 2**32 - 2**32 % m, that is above highest[m] = 2**32 - 1 - 2**32 % m.
    top = int(lengths.max())
    counts = np.arange(top + 1, dtype=np.uint64)
    highest = ((1 << 32) - 1 - (1 << 32) % np.maximum(counts, 1)).astype(np.uint32)
    if same:  # a deal: the same moduli for every game, one row of them
        moduli = np.arange(int(lengths[0]), 1, -1, dtype=np.uint32)
        limits = highest[moduli]
        # Almost never is a word above the lowest limit: then no word is rejected.
        some = int(words.max()) > int(limits.min())
        rejected = (words > limits).any(axis=1) if some else np.zeros(k, bool)
    else:
        t = np.arange(steps)
        valid = t[None, :] < need[:, None]
        moduli = np.where(valid, lengths[:, None] - t[None, :], 1).astype(np.uint32)
        over = valid & (words > highest.take(moduli))
        rejected = over.any(axis=1)
    draws = words % moduli
    every = np.arange(k)
    # Transposed, so that position i of every row is one contiguous row of `cols`, a copy
    # (items may be a read-only broadcast).
    cols = np.array(items.T, order="C")  # (length, k)
    flat = cols.reshape(-1)
    if same:
        # Every row is as long (a deal): swap i of every game is one gather and one scatter of
        # the other ends (`j[step]`, flat indices) and one row copy. Fancy indexing, not
        # take/put: `put` costs five times as much for thousands of indices.
        j = np.ascontiguousarray(draws.T, dtype=np.intp)  # (steps, k)
        j *= k
        j += every
        last = int(lengths[0]) - 1
        for step in range(steps):
            other = j[step]
            taken = flat[other]
            flat[other] = cols[last - step]
            cols[last - step] = taken
    else:
        # Rows of different lengths (reshuffles): each swap as one gather and one scatter of
        # both ends (a game past its last swap swaps position 0 with itself).
        j = np.ascontiguousarray((np.where(valid, draws, 0).astype(np.intp) * k + every[:, None]).T)
        spot = np.where(valid, lengths[:, None] - 1 - t[None, :], 0)
        at = np.ascontiguousarray((spot * k + every[:, None]).T)
        ends, others = np.concatenate([at, j], axis=1), np.concatenate([j, at], axis=1)
        for step in range(steps):
            flat[ends[step]] = flat[others[step]]
    out = np.ascontiguousarray(cols.T)
    after = positions + need
    for g in np.flatnonzero(rejected).tolist():  # rule 9.3 rejected a word: the reference does it
        n = int(lengths[g])
        again, position = shuffled(seeds[g], int(positions[g]), items[g, :n].tolist())
        out[g, :n] = again
        after[g] = position
    return out, after
