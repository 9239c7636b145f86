"""The expected-score model of [`GreedyBot`][abyss_rules.bots.GreedyBot] and
[`CountingBot`][abyss_rules.bots.CountingBot]: odds, column shapes and the gain of every move.

The *odds* ([`Odds`][abyss_rules.bot_model.Odds]) are a multiset of card values that a
face-down card (or the next draw) is drawn from: the whole deck for GreedyBot, the unseen
cards for CountingBot (rule 8.1). A column's expected score is the expected sum of its cards
minus the expected sum when it ends up swallowed, all its cards equal (rules 4.1, 4.3). That
value depends only on how many of its cards are face down, the sum of its face-up cards and
whether they are all equal, so a column is read once as a [`Shape`][abyss_rules.bot_model.Shape]
(whatever the odds), and the gain of placing a card on it is computed for every card value at
once, as a list ([`Model.gains`][abyss_rules.bot_model.Model.gains]), or for one
([`Model.gain_at`][abyss_rules.bot_model.Model.gain_at]) with the same operations.

Examples:
    >>> import abyss_rules as ar
    >>> deck = dict(ar.Variant.standard().deck)
    >>> values = tuple(deck)
    >>> index = {v: i for i, v in enumerate(values)}
    >>> shape = Shape((9, 9, None), values, index)
    >>> shape.hidden, shape.total, shape.same, len(shape.classes)
    (1, 18, 9, 2)
    >>> model = Model(Odds(list(deck.values()), values), 1.0, 3, index, deck=True)  # GreedyBot's
    >>> round(model.value(shape), 2)               # 9 + 9 + 5.07, less the chance of a third 9
    21.27
    >>> gains = model.gains(shape)[shape.row_class[2]]  # on the face-down card, for each value
    >>> round(gains[index[9]], 2), round(gains[index[12]], 2)  # a 9 swallows the column
    (21.27, -8.73)
    >>> model.gain_at(shape, shape.row_class[2], index[12]) == gains[index[12]]
    True
"""

from __future__ import annotations

from itertools import compress, count, repeat
from operator import mul, sub
from typing import Final

from .caches import BoundedCache

__all__: list[str] = []  # private: the bots module is the public face

Column = tuple[int | None, ...]
"""One column of a grid, top row first: a face-up value, or `None` for a face-down card."""

LIMIT: Final = 1 << 14
"""Entries per cache of column tables (shapes, values, gains); a full cache starts over."""

NEG_INF: Final = float("-inf")
_SERIALS = count()


class Odds:
    """A multiset of unseen card values: the odds of what a face-down card (or the next draw) is.

    `by_index` is the count of every value of the deck (`Tables.values`), zeros included;
    `positive` the indices of the values with at least one card, in the deck's order.
    """

    __slots__ = (
        "_equal",
        "_hidden_column",
        "by_index",
        "mean",
        "positive",
        "positive_counts",
        "total",
        "values",
    )

    def __init__(self, by_index: list[int], values: tuple[int, ...]) -> None:
        self.by_index = by_index
        self.values = values
        self.positive = list(compress(range(len(by_index)), by_index))
        self.positive_counts = list(compress(by_index, by_index))
        self.total = total = sum(by_index)
        # (integer sums: the values without a card add nothing)
        self.mean = sum(map(mul, values, by_index)) / total if total else 0.0
        self._equal: dict[int, list[float]] = {}
        self._hidden_column: dict[int, float] = {}

    def all_equal(self, k: int) -> list[float]:
        """For each card value (in the deck's order), the chance that `k` unseen cards (drawn
        without replacement) are all that value (see `all_equal`)."""
        found = self._equal.get(k)
        if found is None:
            table = all_equal(self.total, k, max(self.by_index, default=0))
            found = self._equal[k] = list(map(table.__getitem__, self.by_index))
        return found

    def hidden_column(self, k: int) -> float:
        """The expected score of a column of `k` face-down cards (swallowing included)."""
        found = self._hidden_column.get(k)
        if found is None:
            equal, values = self.all_equal(k), self.values
            chance = [equal[i] for i in self.positive]
            worth = map(mul, map(mul, chance, repeat(k)), [values[i] for i in self.positive])
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
        found = found or []
        for c in range(len(found), most + 1):
            p = 1.0
            for i in range(k):
                p *= max(c - i, 0) / (n - i) if n - i > 0 else 0.0
            found.append(p)
        _EQUAL.put((n, k), found, len(found))
    return found


class ColumnClass:
    """The spaces of a column where placing a card has the same effect: its face-down spaces,
    or its face-up spaces showing one value `replaced`.

    For each card value `v` of the deck (index `i` in `Tables.values`): the face-up sum
    after placing `v` is `sums[i]`; `equal` lists the indices `i` after which the face-up
    cards are all equal (the column may be swallowed, rule 4.1); `gifts[i]` is the card
    the move leaves for the next player to take: the replaced face-up card, or `v` itself
    when the column is then complete and swallowed, or `None` (a face-down card placed on
    is not counted as a gift). `gift_index` holds their indices (`-1` for `None`).
    """

    __slots__ = (
        "all_gifted",
        "equal",
        "every",
        "gift_index",
        "gifted",
        "hidden",
        "hidden_after",
        "replaced",
        "sums",
        "swallowed_sums",
    )

    def __init__(self, values: tuple[int, ...], index: dict[int, int], known: list[int],
                 hidden: int, replaced: int | None) -> None:
        self.hidden = replaced is None
        self.replaced = replaced
        rest = list(known)
        if replaced is not None:
            rest.remove(replaced)
        self.hidden_after = hidden - 1 if replaced is None else hidden
        base = sum(rest)
        self.sums = tuple(base + v for v in values)
        if not rest:
            equal = list(range(len(values)))
        elif rest.count(rest[0]) == len(rest) and rest[0] in index:
            equal = [index[rest[0]]]
        else:
            equal = []
        self.equal = tuple(equal)
        self.every = not rest
        self.swallowed_sums = tuple(s + self.hidden_after * v for s, v in zip(self.sums, values, strict=True))
        swallowed = set(equal) if self.hidden_after == 0 else set()
        gifts = [v if i in swallowed else replaced for i, v in enumerate(values)]
        self.gift_index = tuple(-1 if g is None else index[g] for g in gifts)
        self.gifted = tuple(i for i, g in enumerate(self.gift_index) if g >= 0)
        self.all_gifted = len(self.gifted) == len(values)


class Shape:
    """What a column is, whatever the odds: its face-down count, face-up sum and classes."""

    __slots__ = ("best", "classes", "column", "deck_rows", "hidden", "known", "row_class", "same", "total")

    def __init__(self, column: Column, values: tuple[int, ...], index: dict[int, int]) -> None:
        known = [v for v in column if v is not None]
        self.column = column
        self.hidden = len(column) - len(known)
        self.known = len(known)
        self.total = sum(known)
        self.same = known[0] if known and known.count(known[0]) == len(known) else None
        classes: list[ColumnClass] = []
        of: dict[int | None, int] = {}
        row_class = []
        for card in column:
            if card not in of:
                of[card] = len(classes)
                classes.append(ColumnClass(values, index, known, self.hidden, card))
            row_class.append(of[card])
        self.row_class = tuple(row_class)
        self.classes = tuple(classes)
        self.best: tuple[Model, list[list[tuple[float, int]] | None]] | None = None
        """`Model.best_rows` of the last model asked (other than the deck's)."""
        self.deck_rows: list[list[tuple[float, int]] | None] = [None, None]
        """`Model.best_rows` of the deck's model (GreedyBot's): `[everywhere, face-down only]`."""
        """`Model.best_rows` of the last model asked."""


class Model:
    """Expected scores of columns under some odds (rules 4.1, 4.3, 6.4), kept per column."""

    __slots__ = ("_gains", "_values", "deck", "index", "odds", "rows", "serial", "values", "weight")

    def __init__(self, odds: Odds, weight: float, rows: int, index: dict[int, int], *,
                 deck: bool = False) -> None:
        self.odds = odds
        self.deck = deck
        """Whether the odds are the whole deck's (they never change: GreedyBot's model)."""
        # Without swallowing at the final reveal, a column only goes if flipped during play.
        self.weight = weight
        self.rows = rows
        self.index = index
        self.values = odds.values
        self.serial = next(_SERIALS)
        self._values: dict[Column, float] = {}
        self._gains: dict[Column, tuple[list[float], ...]] = {}

    def value(self, shape: Shape | None) -> float:
        """The expected score of a column (0 for a swallowed one, `None`)."""
        if shape is None:
            return 0.0
        found = self._values.get(shape.column)
        if found is None:
            found = self._value(shape.hidden, shape.total, shape.same)
            if len(self._values) >= LIMIT:
                self._values.clear()
            self._values[shape.column] = found
        return found

    def _value(self, hidden: int, total: int, same: int | None) -> float:
        if hidden == 0:
            return 0.0 if same is not None else float(total)
        odds, w = self.odds, self.weight
        if hidden == self.rows:
            return w * odds.hidden_column(hidden) + (1 - w) * hidden * odds.mean
        expected = total + hidden * odds.mean
        if same is not None:  # the hidden cards may match and swallow the column
            expected -= w * odds.all_equal(hidden)[self.index[same]] * (total + hidden * same)
        return expected

    def gains(self, shape: Shape) -> tuple[list[float], ...]:
        """Per class of `shape`, how much placing each card value there lowers the column's value.

        The value after placing `v` is `sum + hidden * mean` (a float `sum` when the column is
        then complete), less the chance of a swallow times its saving when the face-up cards
        are then all equal: the same sums and products as computing each column anew.
        """
        found = self._gains.get(shape.column)
        if found is not None:
            return found
        before = self.value(shape)
        odds, w = self.odds, self.weight
        out = []
        # C-level maps over the values (the same float operations as a loop, faster).
        for cls in shape.classes:
            h = cls.hidden_after
            if h == 0:  # complete: its face-up sum as a float, or 0 if swallowed
                gains = list(map(before.__sub__, cls.sums))
                for i in cls.equal:
                    gains[i] = before - 0.0
                out.append(gains)
                continue
            hm = h * odds.mean
            after = map(hm.__radd__, cls.sums)  # sum + hidden * mean
            if cls.every:  # no other face-up card: any card may be matched by the hidden ones
                # less the chance of a swallow times its saving: w * P(all equal) * (sum + h * v)
                after = map(sub, after, map(mul, map(w.__mul__, odds.all_equal(h)), cls.swallowed_sums))
                out.append(list(map(before.__sub__, after)))
                continue
            gains = list(map(before.__sub__, after))
            for i in cls.equal:
                s, v = cls.sums[i], self.values[i]
                gains[i] = before - (s + hm - w * odds.all_equal(h)[i] * (s + h * v))
            out.append(gains)
        found = tuple(out)
        if len(self._gains) >= LIMIT:
            self._gains.clear()
        self._gains[shape.column] = found
        return found

    def gain_at(self, shape: Shape, c: int, i: int) -> float:
        """`gains(shape)[c][i]` alone: the same operations on one card value."""
        found = self._gains.get(shape.column)
        if found is not None:
            return found[c][i]
        before = self.value(shape)
        cls = shape.classes[c]
        h = cls.hidden_after
        if h == 0:
            return before - 0.0 if i in cls.equal else before - cls.sums[i]
        odds, w = self.odds, self.weight
        hm = h * odds.mean
        if cls.every:
            return before - ((cls.sums[i] + hm) - w * odds.all_equal(h)[i] * cls.swallowed_sums[i])
        if i in cls.equal:
            s, v = cls.sums[i], self.values[i]
            return before - (s + hm - w * odds.all_equal(h)[i] * (s + h * v))
        return before - (cls.sums[i] + hm)

    def best_rows(self, shape: Shape, hidden_only: bool) -> list[tuple[float, int]]:
        """For each card value, its best gain on one column and the first row where it is
        reached (`-inf, -1` if no row qualifies); kept on the shape (for the deck's model in
        `deck_rows`, else for the last model asked)."""
        if self.deck:
            found = shape.deck_rows[hidden_only]
            if found is None:
                found = shape.deck_rows[hidden_only] = self._rows(shape, hidden_only)
            return found
        kept = shape.best
        if kept is None or kept[0] is not self:
            kept = shape.best = (self, [None, None])
        found = kept[1][hidden_only]
        if found is None:
            found = kept[1][hidden_only] = self._rows(shape, hidden_only)
        return found

    def _rows(self, shape: Shape, hidden_only: bool) -> list[tuple[float, int]]:
        gains, found = self.gains(shape), []
        for i in range(len(self.values)):
            best, where = NEG_INF, -1
            for row, (card, c) in enumerate(zip(shape.column, shape.row_class, strict=True)):
                if hidden_only and card is not None:
                    continue
                if gains[c][i] > best:
                    best, where = gains[c][i], row
            found.append((best, where))
        return found

    def best_gains(self, shapes: tuple[Shape | None, ...]) -> list[float]:
        """For each card value, the best gain of placing it anywhere on these columns."""
        lists = [g for shape in shapes if shape is not None for g in self.gains(shape)]
        if not lists:
            return [NEG_INF] * len(self.index)
        return list(map(max, *lists)) if len(lists) > 1 else list(lists[0])

    def draw_gain(self, best: list[float]) -> float:
        """The expected gain of drawing: place the card if it helps (`best`), else discard it."""
        odds = self.odds
        if not odds.total:
            return 0.0
        gains: float = sum(map(mul, odds.positive_counts,
                               map(max, repeat(0.0), [best[i] for i in odds.positive])))
        return gains / odds.total
