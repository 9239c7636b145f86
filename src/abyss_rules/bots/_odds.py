"""The odds of the bots' expected-score model: unseen card values and the chances of equal cards.

The odds of `abyss_rules.bots._model` are a multiset of unseen card values and the chances that
face-down cards drawn from it are all equal.

A face-down card (or the next draw) is drawn from the *odds*: the whole deck for
`abyss_rules.bots.GreedyBot`, the unseen cards for `abyss_rules.bots.CountingBot` (rule
8.1). A column of face-down cards is swallowed if they all turn up equal (rules 4.1, 4.3),
so the model needs, for `k` cards, the chance that they are all of one value: `all_equal`,
kept per deck size and `k`.

Examples:
    >>> odds = Odds([4, 0, 6], (1, 2, 3))       # four 1s and six 3s unseen
    >>> odds.total, odds.most, odds.mean
    (10, 6, 2.2)
    >>> [round(p, 4) for p in odds.all_equal(2)]   # two cards, both 1s / 2s / 3s
    [0.1333, 0.0, 0.3333]
"""

from __future__ import annotations

from typing import Final

from ..caches import BoundedCache

__all__: list[str] = []  # private: the bots module is the public face

LIMIT: Final = 1 << 14
"""Entries per cache of column tables (shapes, values, gains, chances); a full cache starts over."""

_COUNTS: Final = 15
"""The counts of one value `all_equal` fills its tables for at least (a standard deck's largest)."""


class Odds:
    """A multiset of unseen card values: the odds of what a face-down card (or the next draw) is.

    `by_index` is the count of every value of the deck (`Tables.values`), zeros included;
    `positive` the indices of the values with at least one card, in the deck's order.
    """

    __slots__ = (
        "_chances",
        "_equal",
        "_hidden_column",
        "by_index",
        "_positive",
        "mean",
        "most",
        "total",
        "values",
    )

    def __init__(self, by_index: list[int], values: tuple[int, ...]) -> None:
        self.by_index = by_index
        self.values = values
        self._positive: tuple[list[int], list[int]] | None = None
        # (integer sums, in typed loops: the values without a card add nothing)
        total, most, weighted = 0, 0, 0
        for j in range(len(by_index)):
            c = by_index[j]
            total += c
            weighted += values[j] * c
            if c > most:
                most = c
        self.total = total
        self.most = most
        self.mean = weighted / total if total else 0.0
        self._chances: dict[int, list[float]] = {}
        self._equal: dict[int, list[float]] = {}
        self._hidden_column: dict[int, float] = {}

    @property
    def positive(self) -> list[int]:
        """The indices of the values with at least one unseen card, in the deck's order."""
        return self._positives()[0]

    @property
    def positive_counts(self) -> list[int]:
        """The counts of those values (`by_index` without its zeros)."""
        return self._positives()[1]

    def _positives(self) -> tuple[list[int], list[int]]:
        found = self._positive
        if found is None:
            by_index = self.by_index
            at: list[int] = []
            counts: list[int] = []
            for j in range(len(by_index)):
                if by_index[j]:
                    at.append(j)
                    counts.append(by_index[j])
            found = self._positive = (at, counts)
        return found

    def chances(self, k: int) -> list[float]:
        """For each count `c` of one value (up to the largest count), the chance that `k` unseen
        cards are all of a value with `c` cards (`all_equal` of the unseen total): `all_equal(k)[i]`
        is `chances(k)[by_index[i]]`."""
        found = self._chances.get(k)
        if found is None:
            found = self._chances[k] = all_equal(self.total, k, self.most)
        return found

    def all_equal(self, k: int) -> list[float]:
        """For each card value (in the deck's order), the chance that `k` unseen cards (drawn
        without replacement) are all that value (see `all_equal`)."""
        found = self._equal.get(k)
        if found is None:
            chances = self.chances(k)
            found = self._equal[k] = [chances[c] for c in self.by_index]
        return found

    def max_equal(self, k: int) -> float:
        """The largest of `all_equal(k)`: the chance of the largest count (a chance never falls
        as the count grows, rounding included: each factor grows with it)."""
        return self.chances(k)[self.most]

    def hidden_column(self, k: int) -> float:
        """The expected score of a column of `k` face-down cards (swallowing included)."""
        found = self._hidden_column.get(k)
        if found is None:
            # chance * k * value, value by value (a value without a card adds 0.0: its chance is
            # 0.0, and adding 0.0 changes no sum of these terms, which starts from 0)
            equal, values = self.all_equal(k), self.values
            worth = [equal[j] * k * values[j] for j in range(len(values))]
            found = self._hidden_column[k] = k * self.mean - sum(worth)
        return found


# One of the library's bounded caches (caches.py): entries, and chances kept in all.
_EQUAL: Final = BoundedCache[tuple[int, int], list[float]]("planner.all_equal", max_entries=LIMIT,
                                                           max_size=1 << 22)


def all_equal(n: int, k: int, most: int) -> list[float]:
    """For `c` from 0 to at least `most`, the chance that `k` cards drawn without replacement from `n`, of
    which `c` have some value, all have it: the product of `max(c - i, 0) / (n - i)` for
    `i` below `k` (0 once `n - i` is not positive), multiplied out from 1.0 in that order.

    Kept per `(n, k)`, and extended when a larger `c` is asked.

    Examples:
        >>> all_equal(10, 2, 3)[:4]                  # 0, 1, 2 or 3 cards of the value
        [0.0, 0.0, 0.022222222222222223, 0.06666666666666667]
    """
    found = _EQUAL.get((n, k))
    if found is None or len(found) <= most:
        found = _chances(n, k, found or [], max(most, _COUNTS))
        _EQUAL.put((n, k), found, len(found))
    return found


def _chances(n: int, k: int, found: list[float], most: int) -> list[float]:
    """`found` (the chances of `all_equal(n, k, ...)` for the first counts) extended to `most`."""
    counts = range(len(found), most + 1)
    chances = [1.0] * len(counts)
    for i in range(k):  # (every c at once, factor by factor: the same products)
        d = n - i
        chances = [p * ((c - i) / d if c > i else 0.0) for p, c in zip(chances, counts, strict=True)] \
            if d > 0 else [p * 0.0 for p in chances]
    return found + chances
