"""The expected-score model of the bots: odds, column shapes and the gain of every move.

`abyss_rules.bots.GreedyBot` and `abyss_rules.bots.CountingBot` score their moves with it.

The *odds* (`Odds`, in `abyss_rules.bots._odds`) are a multiset of card values that a face-down
card (or the next draw) is drawn from: the whole deck for GreedyBot, the unseen cards for
CountingBot (rule 8.1). A column's expected score is the expected sum of its cards minus the
expected sum when it ends up swallowed, all its cards equal (rules 4.1, 4.3). That value depends
only on how many of its cards are face down, the sum of its face-up cards and whether they are
all equal, so a column is read once as a `Shape` (whatever the odds), and the gain of placing a
card on it is computed for every card value at once, as a list (`Model.gains`), or for one
(`Model.gain_at`) with the same operations.

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

from itertools import count
from typing import Final

from ..caches import BoundedCache
from ._odds import LIMIT, Odds

__all__: list[str] = []  # private: the bots module is the public face

Column = tuple[int | None, ...]
"""One column of a grid, top row first: a face-up value, or `None` for a face-down card."""

NEG_INF: Final = float("-inf")
# ColumnClass.kind: how its scores depend on the card placed (see Model.best_scores).
_PLAIN: Final = 0     # some face-down cards stay, other face-up cards: K - v, one equal value aside
_EVERY: Final = 1     # some face-down cards stay, no other face-up card: any value may be matched
_COMPLETE: Final = 2  # the column is then complete: K - v, or a swallow on `equal`
_WHOLE: Final = 3     # complete and swallowed whatever the card (a one-row column)
_SERIALS = count()


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
        "base",
        "deck_gains",
        "equal",
        "every",
        "gift",
        "gift_index",
        "gifted",
        "hidden",
        "hidden_after",
        "hidden_float",
        "kind",
        "replaced",
        "spread",
        "sums",
        "swallowed_sums",
    )

    def __init__(self, values: tuple[int, ...], index: dict[int, int], rest: list[int],
                 hidden_after: int, replaced: int | None) -> None:
        self.hidden = replaced is None
        self.replaced = replaced
        self.deck_gains: list[float] | None = None
        """`Model.class_gains` of the class under the deck's model (GreedyBot's; the model's
        odds never change, and a class fixes its column's face-up cards and face-down count,
        so the value of the column before the move too): kept, shared by its columns."""
        self.hidden_after = hidden_after
        # (The value-sized tuples are kept in _SUMS and _PARTS by what they depend on: a class is built
        # for every new column shape, and a 15-value tuple costs as much as the rest.)
        # (The sums are exact integers held as floats: an int meets a float in every use, which
        # the interpreter does by converting the int, and the compiled module then adds floats.)
        base = sum(rest)
        self.base = float(base)
        self.hidden_float = float(hidden_after)
        key: tuple[object, ...] = (values, base, hidden_after)
        found = _SUMS.get(key)
        if found is None:
            sums = tuple([float(base + v) for v in values])
            swallowed = tuple([float(base + v + hidden_after * v) for v in values])
            found = _SUMS.put(key, (sums, swallowed))
        self.sums, self.swallowed_sums = found
        n = len(values)
        if not rest:
            equal: tuple[int, ...] = tuple(range(n))
        elif rest.count(rest[0]) == len(rest) and rest[0] in index:
            equal = (index[rest[0]],)
        else:
            equal = ()
        self.equal = equal
        self.every = not rest
        whole = hidden_after == 0 and len(equal) == n  # (every card swallows the column)
        self.gift = gift = -1 if replaced is None or whole else index[replaced]
        """The card it leaves on the pile away from a swallow (`-1` for none)."""
        key = (n, gift, equal if hidden_after == 0 else ())
        parts = _PARTS.get(key)
        if parts is None:
            gift_index = [gift] * n
            if hidden_after == 0:
                for i in equal:  # the column is then swallowed: the placed card is left on the pile
                    gift_index[i] = i
            gifted = tuple([i for i, g in enumerate(gift_index) if g > -1])
            parts = _PARTS.put(key, (tuple(gift_index), gifted))
        self.gift_index, self.gifted = parts
        self.all_gifted = len(self.gifted) == n
        # What `Model.best_scores` reads: every score of the class is `K - values[i]` for a K
        # of its own, give or take `spread` times a chance of all-equal cards (and rounding),
        # except on `equal` when the column is then complete (`kind` _COMPLETE: a swallow).
        if hidden_after == 0:
            self.kind = _WHOLE if whole else _COMPLETE
            self.spread = 0.0
        elif not rest:
            self.kind, self.spread = _EVERY, max(map(abs, self.swallowed_sums), default=0.0)
        else:
            self.kind = _PLAIN
            self.spread = abs(self.swallowed_sums[equal[0]]) if equal else 0.0


# Two of the library's bounded caches (caches.py): the value-sized tuples of column classes,
# `(sums, swallowed_sums)` by `(values, base, hidden_after)` and `(gift_index, gifted)` by
# `(len(values), gift, equal or ())`; many classes share them.
_SUMS: Final = BoundedCache[tuple[object, ...], tuple[tuple[float, ...], tuple[float, ...]]](
    "planner.class_sums", max_entries=LIMIT, max_size=LIMIT)
_PARTS: Final = BoundedCache[tuple[object, ...], tuple[tuple[int, ...], tuple[int, ...]]](
    "planner.class_parts", max_entries=LIMIT, max_size=LIMIT)


def column_class(kept: dict[tuple[int | None, ...], ColumnClass], values: tuple[int, ...],
                 index: dict[int, int], known: list[int], hidden: int, replaced: int | None) -> ColumnClass:
    """The class of a column with face-up cards `known` and `hidden` face-down ones where a
    card is placed on `replaced` (`None`: on a face-down card), kept in `kept` by what it
    depends on (the other face-up cards, sorted, and where the card goes)."""
    rest = list(known)
    if replaced is not None:
        rest.remove(replaced)
    hidden_after = hidden - 1 if replaced is None else hidden
    key = (hidden_after, replaced, *sorted(rest))
    found = kept.get(key)
    if found is None:
        found = ColumnClass(values, index, rest, hidden_after, replaced)
        if len(kept) >= LIMIT:
            kept.clear()
        kept[key] = found
    return found


class Shape:
    """What a column is, whatever the odds: its face-down count, face-up sum and classes."""

    __slots__ = ("classes", "column", "firsts", "hidden", "hidden_float", "known",
                 "row_class", "same", "swallowed_total", "total", "total_float")

    def __init__(self, column: Column, values: tuple[int, ...], index: dict[int, int],
                 kept: dict[tuple[int | None, ...], ColumnClass] | None = None) -> None:
        known = [v for v in column if v is not None]
        kept = {} if kept is None else kept
        self.column = column
        self.hidden = len(column) - len(known)
        self.known = len(known)
        self.total = sum(known)
        self.same = known[0] if known and known.count(known[0]) == len(known) else None
        # (as floats for `Model.value`: exact integers, as its float arithmetic converts them)
        self.hidden_float = float(self.hidden)
        self.total_float = float(self.total)
        self.swallowed_total = float(self.total + self.hidden * self.same) if self.same is not None else 0.0
        """What the column adds up to if its face-down cards all equal `same` (0.0 without one)."""
        classes: list[ColumnClass] = []
        of: dict[int | None, int] = {}
        row_class = []
        for card in column:
            if card not in of:
                of[card] = len(classes)
                classes.append(column_class(kept, values, index, known, self.hidden, card))
            row_class.append(of[card])
        self.row_class = tuple(row_class)
        self.classes = tuple(classes)
        self.firsts = tuple([(cls, row_class.index(c)) for c, cls in enumerate(classes)])
        """Each class with the first row of it (the classes come in the order of their first rows)."""


class Model:
    """Expected scores of columns under some odds (rules 4.1, 4.3, 6.4), kept per column."""

    __slots__ = ("_best_of", "_feeds", "_gains", "_grid_gains", "_values", "deck", "delta", "index", "odds",
                 "rows", "serial", "values", "weight")

    def __init__(self, odds: Odds, weight: float, rows: int, index: dict[int, int], *,
                 deck: bool = False, delta: float | None = None) -> None:
        self.odds = odds
        self.deck = deck
        """Whether the odds are the whole deck's (they never change: GreedyBot's model)."""
        # Without swallowing at the final reveal, a column only goes if flipped during play.
        self.weight = weight
        self.rows = rows
        self.index = index
        self.values = odds.values
        self.delta = 1e-9 * (1 + rows * max(map(abs, self.values), default=0)) if delta is None else delta
        """Far more than the rounding of any score (see `best_scores`); the same for every model
        of a variant (`delta` passes it on)."""
        self.serial = next(_SERIALS)
        # (kept by shape: a shape is one per column of a variant's tables, and hashes fastest)
        self._values: dict[Shape, float] = {}
        self._gains: dict[Shape, tuple[list[float], ...]] = {}
        self._grid_gains: dict[tuple[Shape | None, ...], list[tuple[list[float], ...] | None]] = {}
        self._best_of: dict[tuple[Shape | None, ...], list[float]] = {}
        self._feeds: dict[tuple[tuple[Shape | None, ...], float], list[float]] = {}

    def value(self, shape: Shape | None) -> float:
        """The expected score of a column (0 for a swallowed one, `None`)."""
        if shape is None:
            return 0.0
        found = self._values.get(shape)
        if found is not None:
            return found
        hidden, same = shape.hidden, shape.same
        if hidden == 0:
            found = 0.0 if same is not None else shape.total_float
        elif hidden == self.rows:
            odds, w = self.odds, self.weight
            found = w * odds.hidden_column(hidden) + (1 - w) * shape.hidden_float * odds.mean
        else:
            odds = self.odds
            found = shape.total_float + shape.hidden_float * odds.mean
            if same is not None:  # the hidden cards may match and swallow the column
                chance = odds.chances(hidden)[odds.by_index[self.index[same]]]
                found -= self.weight * chance * shape.swallowed_total
        if len(self._values) >= LIMIT:
            self._values.clear()
        self._values[shape] = found
        return found

    def gains(self, shape: Shape) -> tuple[list[float], ...]:
        """Per class of `shape`, how much placing each card value there lowers the column's value.

        The value after placing `v` is `sum + hidden * mean` (a float `sum` when the column is
        then complete), less the chance of a swallow times its saving when the face-up cards
        are then all equal: the same sums and products as computing each column anew.
        """
        found = self._gains.get(shape)
        if found is not None:
            return found
        if self.deck:  # (the lists kept on the classes, shared by their columns)
            found = tuple([self.deck_class_gains(shape, cls) for cls in shape.classes])
        else:
            before = self.value(shape)
            found = tuple([self.class_gains(before, cls) for cls in shape.classes])
        if len(self._gains) >= LIMIT:
            self._gains.clear()
        self._gains[shape] = found
        return found

    def grid_gains(self, shapes: tuple[Shape | None, ...]) -> list[tuple[list[float], ...] | None]:
        """`gains` of each of these columns (`None` for a swallowed one), kept by the columns."""
        found = self._grid_gains.get(shapes)
        if found is None:
            found = [None if s is None else self.gains(s) for s in shapes]
            if len(self._grid_gains) >= LIMIT:
                self._grid_gains.clear()
            self._grid_gains[shapes] = found
        return found

    def deck_class_gains(self, shape: Shape, cls: ColumnClass) -> list[float]:
        """`class_gains` of `cls`, a class of `shape`, under the deck's model, kept on the class
        (`ColumnClass.deck_gains`): the deck's odds never change, and a class fixes its
        column's face-up cards and face-down count, so the column's value before the move."""
        found = cls.deck_gains
        if found is None:
            found = cls.deck_gains = self.class_gains(self.value(shape), cls)
        return found

    def class_gains(self, before: float, cls: ColumnClass) -> list[float]:
        """`gains(shape)[c]` of the class `cls` of a column whose value is `before` (a new list)."""
        h = cls.hidden_after
        # (list comprehensions: the same float operations as a loop, and the fastest form here)
        if h == 0:  # complete: its face-up sum as a float, or 0 if swallowed
            gains = [before - s for s in cls.sums]
            for i in cls.equal:
                gains[i] = before - 0.0
            return gains
        odds, w = self.odds, self.weight
        hm = cls.hidden_float * odds.mean
        if cls.every:  # no other face-up card: any card may be matched by the hidden ones
            # less the chance of a swallow times its saving: w * P(all equal) * (sum + h * v)
            sums, equal, swallowed = cls.sums, odds.all_equal(h), cls.swallowed_sums
            return [before - ((sums[j] + hm) - w * equal[j] * swallowed[j]) for j in range(len(sums))]
        gains = [before - (s + hm) for s in cls.sums]  # sum + hidden * mean
        for i in cls.equal:  # (the swallowed sum is the sum plus h times the value)
            gains[i] = before - (cls.sums[i] + hm - w * odds.all_equal(h)[i] * cls.swallowed_sums[i])
        return gains

    def gain_at(self, shape: Shape, c: int, i: int) -> float:
        """`gains(shape)[c][i]` alone: the same operations on one card value."""
        found = self._gains.get(shape)
        if found is not None:
            return found[c][i]
        return self.class_gain_at(self.value(shape), shape.classes[c], i)

    def class_gain_at(self, before: float, cls: ColumnClass, i: int) -> float:
        """`class_gains(before, cls)[i]` alone."""
        h = cls.hidden_after
        if h == 0:
            return before - 0.0 if i in cls.equal else before - cls.sums[i]
        odds, w = self.odds, self.weight
        hm = cls.hidden_float * odds.mean
        if cls.every or i in cls.equal:
            return before - ((cls.sums[i] + hm) - w * odds.all_equal(h)[i] * cls.swallowed_sums[i])
        return before - (cls.sums[i] + hm)

    def best_scores(self, shapes: tuple[Shape | None, ...], feed: list[float] | None) -> list[float]:
        """For each card value `i`, the best score of placing it on one of these columns:
        `map(max, *lists)` over the lists of every class of every column, in order, where a
        class's list is its gains less, if `feed` is given, `feed[gift]` where it leaves a card
        `gift` on the pile.

        Not every list is computed. Away from a swallow of a complete column (`equal` of a
        `_COMPLETE` class), a class's score of value `i` is `K - values[i]` for a `K` of its
        own, within `eps`: its rounding (below `delta`), and for a face-down card that may be
        matched, the chance of all-equal cards times `spread`. A class whose `K + eps` is
        below the `K - eps` of the class that has the largest one (the top) scores less on
        every value, so it cannot change a maximum: its list is skipped. Its swallows, and the
        values the top swallows on (where the top's score may be anything), are compared one
        by one with the computed best, and computed where they may count.
        """
        # (methods are called on their objects, not kept in locals: the compiled module calls
        # them directly, and the interpreter about as fast)
        odds, w, delta, mean = self.odds, self.weight, self.delta, self.odds.mean
        by_index = odds.by_index
        # (the entries as parallel lists, read in typed loops)
        his: list[float] = []
        befores: list[float] = []
        classes: list[ColumnClass] = []
        top_lo, top = NEG_INF, -1
        done: list[Shape] = []
        for shape in shapes:
            if shape is None or shape in done:  # (a column like one before scores as it does)
                continue
            done.append(shape)
            before = self.value(shape)
            for cls in shape.classes:
                kind = cls.kind
                if kind == _PLAIN:
                    h = cls.hidden_after
                    k = before - cls.base - cls.hidden_float * mean
                    eps = (delta + w * odds.chances(h)[by_index[cls.equal[0]]] * cls.spread if cls.equal
                           else delta)
                elif kind == _COMPLETE:
                    k, eps = before - cls.base, delta
                elif kind == _EVERY:
                    h = cls.hidden_after
                    k, eps = before - cls.hidden_float * mean, delta + w * odds.max_equal(h) * cls.spread
                else:  # (every value swallows: always computed)
                    k, eps = 0.0, float("inf")
                if feed is not None and cls.gift >= 0:
                    k -= feed[cls.gift]
                lo = k - eps
                if lo > top_lo:
                    top_lo, top = lo, len(classes)
                his.append(k + eps)
                befores.append(before)
                classes.append(cls)
        if not classes:
            return [NEG_INF] * len(self.values)
        best: list[float] | None = None
        skipped = False
        for e in range(len(classes)):
            if his[e] < top_lo:
                skipped = True
                continue
            scores = self._scores(befores[e], classes[e], feed)
            if best is None:
                best = scores
                continue
            for j in range(len(best)):  # (max(a, b) is a unless b > a: the first best, as map(max) keeps)
                if scores[j] > best[j]:
                    best[j] = scores[j]
        assert best is not None  # (the top is kept)
        if not skipped:
            return best
        values, top_cls = self.values, classes[top]
        checked = top_cls.equal if top_cls.kind == _COMPLETE else ()
        for e in range(len(classes)):
            hi, before, cls = his[e], befores[e], classes[e]
            if hi >= top_lo:
                continue
            own = cls.equal if cls.kind == _COMPLETE else ()
            if checked:
                own = (*own, *[i for i in checked if i not in own and not best[i] > hi - values[i]])
            for i in own:
                score = self.class_gain_at(before, cls, i)
                gift = cls.gift_index[i]
                if feed is not None and gift >= 0:
                    score -= feed[gift]
                if score > best[i]:
                    best[i] = score
        return best

    def _scores(self, before: float, cls: ColumnClass, feed: list[float] | None) -> list[float]:
        """A class's gains less what each move feeds (a new list)."""
        scores = self.class_gains(before, cls)
        if feed is not None and cls.gifted:
            gift_index = cls.gift_index
            for i in cls.gifted:
                scores[i] -= feed[gift_index[i]]
        return scores

    def best_gains(self, shapes: tuple[Shape | None, ...]) -> list[float]:
        """For each card value, the best gain of placing it anywhere on these columns (kept:
        the same grid is asked about by several decisions under the same odds)."""
        found = self._best_of.get(shapes)
        if found is None:
            found = self.best_scores(shapes, None)
            if len(self._best_of) >= LIMIT:
                self._best_of.clear()
            self._best_of[shapes] = found
        return found

    def feed(self, shapes: tuple[Shape | None, ...], weight: float) -> list[float]:
        """For each card value, `weight` times how much more leaving it on the discard pile
        helps the player of these columns than a draw (0 if it helps less): kept."""
        key = (shapes, weight)
        found = self._feeds.get(key)
        if found is None:
            best = self.best_gains(shapes)
            next_draw = self.draw_gain(best)
            found = [weight * g if (g := b - next_draw) > 0.0 else 0.0 for b in best]
            if len(self._feeds) >= LIMIT:
                self._feeds.clear()
            self._feeds[key] = found
        return found

    def draw_gain(self, best: list[float]) -> float:
        """The expected gain of drawing: place the card if it helps (`best`), else discard it."""
        odds = self.odds
        if not odds.total:
            return 0.0
        # count * max(0.0, best), value by value (max(0.0, b) is b only if b > 0.0; a value
        # without a card adds 0.0, which changes no sum of these terms)
        by_index = odds.by_index
        gains: float = sum([by_index[j] * best[j] if best[j] > 0.0 else 0.0 for j in range(len(best))])
        return gains / odds.total
