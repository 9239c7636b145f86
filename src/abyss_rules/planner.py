"""How [`GreedyBot`][abyss_rules.bots.GreedyBot] and [`CountingBot`][abyss_rules.bots.CountingBot]
choose: the expected-score model of a grid and the one-step planner on it.

Everything here reads a [`View`][abyss_rules.View] only (rule 8.3): face-up values, the
discard pile, the drawn card, whose turn it is. Nothing else reaches a bot.

**The model.** The *odds* are a multiset of card values that a face-down card (or the next
draw) is drawn from: the whole deck for GreedyBot, the unseen cards for CountingBot (rule
8.1). A column's expected score is the expected sum of its cards minus the expected sum
when it ends up swallowed, all its cards equal (rules 4.1, 4.3). That value depends only on
how many of its cards are face down, the sum of its face-up cards and whether they are all
equal, so the gain of placing a card on a column is computed for every card value at once,
as a list (see `_Model.gains`).

**Where the time goes.** What does not depend on the odds -- a column's shape (`_Shape`),
a grid's columns (`_Tables.grid`) -- is computed once per variant and kept. What does --
values and gains -- is kept per odds (`_Model`): for GreedyBot the odds never change, so
its tables fill once per variant and every later decision is a few lookups; CountingBot's
odds change with every card that turns up, so it computes its gains afresh, a list per
column class (not a call per space and card). The caches are bounded (`_LIMIT`).

Examples:
    >>> import abyss_rules as ar
    >>> t = _tables(ar.Variant.standard())
    >>> shape = t.shape((9, 9, None))
    >>> shape.hidden, shape.total, shape.same, len(shape.classes)
    (1, 18, 9, 2)
    >>> model = t.deck_model                       # GreedyBot's odds: the whole deck
    >>> round(model.value(shape), 2)               # 9 + 9 + 5.07, less the chance of a third 9
    21.27
    >>> gains = model.gains(shape)[shape.row_class[2]]  # on the face-down card, for each value
    >>> round(gains[t.index[9]], 2), round(gains[t.index[12]], 2)  # a 9 swallows the column
    (21.27, -8.73)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import reduce
from itertools import compress, count, repeat
from operator import add, attrgetter, itemgetter, mul, sub
from typing import Final, Protocol

from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .caches import BoundedCache
from .config import Variant
from .grid import Grid
from .state import Phase
from .views import View

__all__: list[str] = []  # private: the bots module is the public face

Column = tuple[int | None, ...]
"""One column of a grid, top row first: a face-up value, or `None` for a face-down card."""

_LIMIT: Final = 1 << 14
"""Entries per cache of column tables (shapes, values, gains); a full cache starts over."""
_RECENT: Final = 1 << 10
"""Entries per cache of recent objects (grids, legal-action tuples)."""

_NEG_INF: Final = float("-inf")
_HIDDEN: Final = attrgetter("hidden")
_SERIALS = count()


class Params(Protocol):
    """The knobs of a model bot (the class attributes of `bots._ModelBot`)."""

    @property
    def counts_cards(self) -> bool: ...
    @property
    def feed_weight(self) -> float: ...
    @property
    def closing_margin(self) -> float: ...
    @property
    def take_threshold(self) -> float: ...
    @property
    def flip_bonus(self) -> float: ...
    @property
    def patience(self) -> int: ...


class _Odds:
    """A multiset of unseen card values: the odds of what a face-down card (or the next draw) is.

    `by_index` is the count of every value of the deck (`_Tables.values`), zeros included;
    `positive` the indices of the values with at least one card, in the deck's order.
    """

    __slots__ = ("by_index", "values", "positive", "positive_counts", "total", "mean", "_equal",
                 "_hidden_column")

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
        without replacement) are all that value (see `_all_equal`)."""
        found = self._equal.get(k)
        if found is None:
            table = _all_equal(self.total, k, max(self.by_index, default=0))
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
_EQUAL: Final = BoundedCache[tuple[int, int], list[float]]("planner.all_equal", max_entries=_LIMIT,
                                                           max_size=1 << 22)


def _all_equal(n: int, k: int, most: int) -> list[float]:
    """For `c` from 0 to at least `most`, the chance that `k` cards drawn without replacement from `n`, of
    which `c` have some value, all have it: the product of `max(c - i, 0) / (n - i)` for
    `i` below `k` (0 once `n - i` is not positive), multiplied out from 1.0 in that order.

    Kept per `(n, k)`, and extended when a larger `c` is asked.

    Examples:
        >>> _all_equal(10, 2, 3)[:4]                  # 0, 1, 2 or 3 cards of the value
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


class _Class:
    """The spaces of a column where placing a card has the same effect: its face-down spaces,
    or its face-up spaces showing one value `replaced`.

    For each card value `v` of the deck (index `i` in `_Tables.values`): the face-up sum
    after placing `v` is `sums[i]`; `equal` lists the indices `i` after which the face-up
    cards are all equal (the column may be swallowed, rule 4.1); `gifts[i]` is the card
    the move leaves for the next player to take: the replaced face-up card, or `v` itself
    when the column is then complete and swallowed, or `None` (a face-down card placed on
    is not counted as a gift). `gift_index` holds their indices (`-1` for `None`).
    """

    __slots__ = ("hidden", "replaced", "hidden_after", "sums", "equal", "every", "swallowed_sums",
                 "gift_index", "gifted", "all_gifted")

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


class _Shape:
    """What a column is, whatever the odds: its face-down count, face-up sum and classes."""

    __slots__ = ("column", "hidden", "known", "total", "same", "row_class", "classes", "best", "deck_rows")

    def __init__(self, column: Column, values: tuple[int, ...], index: dict[int, int]) -> None:
        known = [v for v in column if v is not None]
        self.column = column
        self.hidden = len(column) - len(known)
        self.known = len(known)
        self.total = sum(known)
        self.same = known[0] if known and known.count(known[0]) == len(known) else None
        classes: list[_Class] = []
        of: dict[int | None, int] = {}
        row_class = []
        for card in column:
            if card not in of:
                of[card] = len(classes)
                classes.append(_Class(values, index, known, self.hidden, card))
            row_class.append(of[card])
        self.row_class = tuple(row_class)
        self.classes = tuple(classes)
        self.best: tuple[_Model, list[list[tuple[float, int]] | None]] | None = None
        """`_Model.best_rows` of the last model asked (other than the deck's)."""
        self.deck_rows: list[list[tuple[float, int]] | None] = [None, None]
        """`_Model.best_rows` of the deck's model (GreedyBot's): `[everywhere, face-down only]`."""
        """`_Model.best_rows` of the last model asked."""


class _GridInfo:
    """One grid as the planner reads it: column shapes (`None` for a swallowed column), its
    face-up values, its face-down count, remaining spaces and the face-down space it would
    flip first (see `flip_space`), and the best column for each card (`best_space`)."""

    __slots__ = ("shapes", "shown", "_seen", "hidden", "_remaining", "_tables", "_down", "_flip", "_value",
                 "_model", "_best")

    def __init__(self, grid: Grid, tables: _Tables) -> None:
        shown, up = grid.cards, grid.face_up
        # A view's grid holds None on its face-down spaces already (rule 8.2); mask any other.
        if shown.count(None) != len(up) - sum(up) or None in compress(shown, up):
            shown = tuple([v if u else None for v, u in zip(shown, up, strict=True)])
        gone = grid.swallowed
        # (C-level maps: a grid is built for almost every decision)
        shapes: list[_Shape | None] = list(map(tables._shapes.get, tables.columns_of(shown)))
        if None in shapes:
            shapes = [s or tables.shape(shown[c::tables.cols]) for c, s in enumerate(shapes)]
        if True in gone:
            shapes = [None if gone[c] else s for c, s in enumerate(shapes)]
        self.shapes: tuple[_Shape | None, ...] = tuple(shapes)
        self._seen: tuple[int, ...] | None = None
        self.hidden: int = sum(map(_HIDDEN, filter(None, shapes)))
        self._remaining: tuple[int, ...] | None = None
        self._tables = tables
        self._down: tuple[int, ...] | None = None
        self._flip: tuple[int, int] | None = None
        self._model = -1
        self._value: float | None = None
        self._best: dict[tuple[int, bool], tuple[float, int]] = {}
        self.shown: tuple[int | None, ...] = shown

    @property
    def remaining(self) -> tuple[int, ...]:
        """The spaces of the columns that are not swallowed, in index order."""
        if self._remaining is None:
            self._remaining = self._tables.remaining(self.shapes)
        return self._remaining

    def seen(self) -> tuple[int, ...]:
        """The face-up values."""
        if self._seen is None:
            self._seen = tuple([v for v in self.shown if v is not None])
        return self._seen

    def down(self, cols: int) -> tuple[int, ...]:
        """The face-down spaces, in index order."""
        if self._down is None:
            shapes = self.shapes
            self._down = tuple(s for s in self.remaining
                               if shapes[s % cols].column[s // cols] is None)  # type: ignore[union-attr]
        return self._down

    def flip(self, cols: int) -> tuple[int, int]:
        """`flip_space` over every face-down space (there must be one): the first face-down
        row of the first column with the most face-up cards among those with a face-down one."""
        if self._flip is None:
            best, where = -1, -1
            for col, shape in enumerate(self.shapes):
                if shape is not None and shape.hidden and shape.known > best:
                    best, where = shape.known, col
            self._flip = (self.shapes[where].column.index(None), where)  # type: ignore[union-attr]
        return self._flip

    def _use(self, model: _Model) -> None:
        """Keep what is kept per model for `model` (the last one asked, by its serial number:
        a grid does not keep a model alive)."""
        if self._model != model.serial:
            self._model, self._value, self._best = model.serial, None, {}

    def value(self, model: _Model) -> float:
        """The expected score of the grid under `model`."""
        self._use(model)
        if self._value is None:
            self._value = sum(map(model.value, self.shapes))
        return self._value

    def best_space(self, model: _Model, i: int, hidden_only: bool, cols: int) -> tuple[float, int]:
        """The best gain of card `i` on this grid (only on face-down cards if `hidden_only`)
        and the first space (in index order) where it is reached: `(-inf, -1)` for none."""
        self._use(model)
        key = (i, hidden_only)
        found = self._best.get(key)
        if found is None:
            best, where = _NEG_INF, -1
            for col, shape in enumerate(self.shapes):
                if shape is None:
                    continue
                gain, row = model.best_rows(shape, hidden_only)[i]
                if row >= 0 and (gain > best or (gain == best and row * cols + col < where)):
                    best, where = gain, row * cols + col
            found = self._best[key] = (best, where)
        return found


def flip_space(shapes: tuple[_Shape | None, ...], spaces: list[tuple[int, int]]) -> tuple[int, int]:
    """The face-down space to turn: in the column with the most face-up cards (then the first).

    Turning a card where the rest of its column is known tells the most
    about that column (rule 4.1): a pair can become a swallow.
    """

    def known(space: tuple[int, int]) -> int:
        shape = shapes[space[1]]
        return 0 if shape is None else shape.known

    return max(spaces, key=lambda space: (known(space), -space[1], -space[0]))


class _Model:
    """Expected scores of columns under some odds (rules 4.1, 4.3, 6.4), kept per column."""

    __slots__ = ("odds", "deck", "weight", "rows", "index", "values", "serial", "_values", "_gains")

    def __init__(self, odds: _Odds, tables: _Tables, deck: bool = False) -> None:
        self.odds = odds
        self.deck = deck
        """Whether the odds are the whole deck's (they never change: GreedyBot's model)."""
        # Without swallowing at the final reveal, a column only goes if flipped during play.
        self.weight = tables.weight
        self.rows = tables.rows
        self.index = tables.index
        self.values = tables.values
        self.serial = next(_SERIALS)
        self._values: dict[Column, float] = {}
        self._gains: dict[Column, tuple[list[float], ...]] = {}

    def value(self, shape: _Shape | None) -> float:
        """The expected score of a column (0 for a swallowed one, `None`)."""
        if shape is None:
            return 0.0
        found = self._values.get(shape.column)
        if found is None:
            found = self._value(shape.hidden, shape.total, shape.same)
            if len(self._values) >= _LIMIT:
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

    def gains(self, shape: _Shape) -> tuple[list[float], ...]:
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
        if len(self._gains) >= _LIMIT:
            self._gains.clear()
        self._gains[shape.column] = found
        return found

    def best_rows(self, shape: _Shape, hidden_only: bool) -> list[tuple[float, int]]:
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

    def _rows(self, shape: _Shape, hidden_only: bool) -> list[tuple[float, int]]:
        gains, found = self.gains(shape), []
        for i in range(len(self.values)):
            best, where = _NEG_INF, -1
            for row, (card, c) in enumerate(zip(shape.column, shape.row_class, strict=True)):
                if hidden_only and card is not None:
                    continue
                if gains[c][i] > best:
                    best, where = gains[c][i], row
            found.append((best, where))
        return found

    def best_gains(self, shapes: tuple[_Shape | None, ...]) -> list[float]:
        """For each card value, the best gain of placing it anywhere on these columns."""
        lists = [g for shape in shapes if shape is not None for g in self.gains(shape)]
        if not lists:
            return [_NEG_INF] * len(self.index)
        return list(map(max, *lists)) if len(lists) > 1 else list(lists[0])

    def draw_gain(self, best: list[float]) -> float:
        """The expected gain of drawing: place the card if it helps (`best`), else discard it."""
        odds = self.odds
        if not odds.total:
            return 0.0
        gains: float = sum(map(mul, odds.positive_counts,
                               map(max, repeat(0.0), [best[i] for i in odds.positive])))
        return gains / odds.total


_Simple = tuple[list[_Shape | None], tuple[int | None, ...], tuple[int, ...]]
"""`_Tables.simple`: a grid's column shapes, its cards (`None` face down) and its remaining spaces."""


class _Tables:
    """What one variant's bots keep whatever the odds: shapes, grids, the deck's odds."""

    __slots__ = ("variant", "rows", "cols", "values", "counts", "index", "weight", "deck", "spaces",
                 "column_slices", "columns_of", "_shapes", "_grids", "_by_cards", "_models", "_layouts",
                 "deck_model")

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.rows, self.cols = variant.rows, variant.cols
        self.deck: dict[int, int] = dict(variant.deck)
        self.values = tuple(self.deck)
        self.counts = tuple(self.deck.values())
        self.index = {v: i for i, v in enumerate(self.values)}
        self.weight = 1.0 if variant.swallow_on_final_reveal else 0.5
        self.spaces = tuple(range(self.rows * self.cols))
        self.column_slices = tuple(slice(c, None, self.cols) for c in range(self.cols))
        self.columns_of: Callable[[tuple[int | None, ...]], tuple[Column, ...]] = (
            itemgetter(*self.column_slices) if self.cols > 1 else lambda cards: (cards,))
        self._shapes: dict[Column, _Shape] = {}
        self._grids: dict[int, tuple[Grid, _GridInfo]] = {}
        self._by_cards: dict[Column, tuple[tuple[bool, ...], tuple[bool, ...], _GridInfo]] = {}
        self._models: dict[tuple[int, ...], _Model] = {}
        self._layouts: dict[int, _Layout] = {}
        self.deck_model = _Model(_Odds(list(self.deck.values()), self.values), self, deck=True)

    def shape(self, column: Column) -> _Shape:
        found = self._shapes.get(column)
        if found is None:
            found = _Shape(column, self.values, self.index)
            if len(self._shapes) >= _LIMIT:
                self._shapes.clear()
            self._shapes[column] = found
        return found

    def simple(self, grid: Grid) -> _Simple | None:
        """A view's grid with more than one face-down card (so that no move closes the round,
        rule 6.1): its column shapes (`None` for a swallowed column), cards (`None` face
        down) and remaining spaces in index order; `None` for any other grid (then read it
        with `grid`)."""
        cards, up = grid.cards, grid.face_up
        hidden = cards.count(None)
        if hidden < 2 or hidden != len(up) - sum(up) or None in compress(cards, up):
            return None
        shapes: list[_Shape | None] = list(map(self._shapes.get, self.columns_of(cards)))
        if None in shapes:
            shapes = [s or self.shape(cards[c::self.cols]) for c, s in enumerate(shapes)]
        gone = grid.swallowed
        if True not in gone:
            return shapes, cards, self.spaces
        shapes = [None if gone[c] else s for c, s in enumerate(shapes)]
        if sum(map(_HIDDEN, filter(None, shapes))) < 2:
            return None
        return shapes, cards, self.remaining(tuple(shapes))

    def down_of(self, simple: _Simple) -> tuple[int, ...]:
        """The face-down spaces of a `simple` grid, in index order."""
        cards = simple[1]
        return tuple([s for s in simple[2] if cards[s] is None])

    def deck_best(self, simple: _Simple, i: int, hidden_only: bool) -> tuple[float, int]:
        """`_GridInfo.best_space` under the deck's model, for a `simple` grid."""
        best, where, cols, model = _NEG_INF, -1, self.cols, self.deck_model
        for col, shape in enumerate(simple[0]):
            if shape is None:
                continue
            gain, row = (shape.deck_rows[hidden_only] or model.best_rows(shape, hidden_only))[i]
            if row >= 0 and (gain > best or (gain == best and row * cols + col < where)):
                best, where = gain, row * cols + col
        return best, where

    def flip_of(self, shapes: list[_Shape | None]) -> int:
        """`_GridInfo.flip` of a `simple` grid, as a space index."""
        best, where = -1, -1
        for col, shape in enumerate(shapes):
            if shape is not None and shape.hidden and shape.known > best:
                best, where = shape.known, col
        return shapes[where].column.index(None) * self.cols + where  # type: ignore[union-attr]

    def remaining(self, shapes: tuple[_Shape | None, ...]) -> tuple[int, ...]:
        """The spaces of the columns that are not swallowed, in index order."""
        if None not in shapes:
            return self.spaces
        cols = self.cols
        return tuple(s for s in self.spaces if shapes[s % cols] is not None)

    def grid(self, grid: Grid) -> _GridInfo:
        """What the planner reads of `grid`, kept by the grid's identity (grids are immutable,
        and the memo holds the grid: the views of one game share their grid snapshots) and
        by its cards."""
        found = self._grids.get(id(grid))
        if found is not None and found[0] is grid:
            return found[1]
        cards, up, gone = grid.cards, grid.face_up, grid.swallowed
        same = self._by_cards.get(cards)
        if same is not None and same[0] == up and same[1] == gone:
            info = same[2]
        else:
            info = _GridInfo(grid, self)
            if len(self._by_cards) >= 4 * _RECENT:
                self._by_cards.clear()
            self._by_cards[cards] = (up, gone, info)
        if len(self._grids) >= _RECENT:
            self._grids.clear()
        self._grids[id(grid)] = (grid, info)
        return info

    def layout(self, legal: tuple[Action, ...]) -> _Layout:
        """The legal actions sorted by kind, kept by the tuple's identity (the engine shares them)."""
        found = self._layouts.get(id(legal))
        if found is None or found.legal is not legal:
            found = _Layout(legal, self.cols)
            if len(self._layouts) >= _RECENT:
                self._layouts.clear()
            self._layouts[id(legal)] = found
        return found

    def unseen_model(self, view: View, grids: list[_GridInfo]) -> _Model:
        """The model whose odds are the unseen cards: the deck minus every public card (rule 8.1)."""
        seen = view.discard_pile
        if view.drawn is not None:
            seen += (view.drawn,)
        for info in grids:
            seen += info.seen()
        counted = map(Counter(seen).get, self.values, repeat(0))
        key = tuple(map(max, map(sub, self.counts, counted), repeat(0)))
        found = self._models.get(key)
        if found is None:
            found = _Model(_Odds(list(key), self.values), self)
            if len(self._models) >= 64:
                self._models.clear()
            self._models[key] = found
        return found


class _Layout:
    """One tuple of legal actions by kind, in its order: `(action, row, col)` for the placing
    kinds, and whether the placing spaces go in index order (row-major)."""

    __slots__ = ("legal", "takes", "draw", "flips", "places", "discards", "discard_actions", "take_spaces",
                 "place_spaces", "discard_spaces")

    def __init__(self, legal: tuple[Action, ...], cols: int) -> None:
        self.legal = legal
        self.takes: list[tuple[Action, int, int]] = []
        self.places: list[tuple[Action, int, int]] = []
        self.draw: Draw | None = None
        self.flips: list[Flip] = []
        self.discards: list[tuple[int, int]] = []
        self.discard_actions: list[DiscardDrawn] = []
        for a in legal:
            if isinstance(a, TakeDiscard):
                self.takes.append((a, a.row, a.col))
            elif isinstance(a, Draw):
                self.draw = a
            elif isinstance(a, Flip):
                self.flips.append(a)
            elif isinstance(a, PlaceDrawn):
                self.places.append((a, a.row, a.col))
            elif isinstance(a, DiscardDrawn):
                self.discards.append((a.row, a.col))
                self.discard_actions.append(a)
        self.take_spaces = tuple(r * cols + c for _, r, c in self.takes)
        self.place_spaces = tuple(r * cols + c for _, r, c in self.places)
        self.discard_spaces = tuple(r * cols + c for r, c in self.discards)


# One of the library's bounded caches (caches.py); each variant's tables bound their own by _LIMIT.
_TABLES: Final = BoundedCache[int, _Tables]("planner.tables", max_entries=64, max_size=64)


def _tables(variant: Variant) -> _Tables:
    """The tables of `variant` (kept by its identity: the views of a game share their variant)."""
    found = _TABLES.get(id(variant))
    if found is None or found.variant is not variant:
        found = _TABLES.put(id(variant), _Tables(variant))
    return found


_OPENING: Final = Phase.OPENING
_TURN: Final = Phase.TURN
_DRAWN: Final = Phase.DRAWN


def choose(bot: Params, view: View) -> Action:
    """The action `bot` plays in `view` (the caller has checked that `view` is a seat's view
    with legal actions).

    The common cases that need no card counting are decided here from kept tables: an
    opening flip (the bot's grid alone decides it), and GreedyBot's turns when no move can
    close the round (the deck's odds never change, so every gain is a look-up). Everything
    else goes to a [`Planner`][abyss_rules.planner.Planner]; both make the same decisions.
    """
    tables = _tables(view.variant)
    phase = view.phase
    if phase is _OPENING:
        info = tables.grid(view.grids[view.viewer])  # type: ignore[index]
        legal, cols = view.legal_actions, tables.cols
        down = info.down(cols)
        if info.hidden and tuple([a.row * cols + a.col if type(a) is Flip else -1 for a in legal]) == down:
            row, col = info.flip(cols)  # (every face-down card may be flipped: the kept choice)
            return legal[down.index(row * cols + col)]
    elif not bot.counts_cards and (simple := tables.simple(view.grids[view.viewer])) is not None:  # type: ignore[index]
        layout = tables.layout(view.legal_actions)
        hurry = view.turns >= bot.patience * view.players
        remaining = simple[2]
        if phase is _TURN and layout.draw is not None:
            top = view.top_discard
            if top is None:
                return layout.draw
            if layout.take_spaces == remaining:
                best, where = tables.deck_best(simple, tables.index[top], hurry)
                if where >= 0 and best >= bot.take_threshold:
                    return layout.takes[remaining.index(where)][0]
                return layout.draw
        elif phase is _DRAWN and layout.place_spaces == remaining and layout.discards:
            best, where = tables.deck_best(simple, tables.index[view.drawn], hurry)  # type: ignore[index]
            down = tables.down_of(simple)
            if layout.discard_spaces == down:
                if where < 0 or bot.flip_bonus > best:
                    return layout.discard_actions[down.index(tables.flip_of(simple[0]))]
                return layout.places[remaining.index(where)][0]
    return Planner(bot, view).choose()


class Planner:
    """Scores every legal action of one view and picks the best (for GreedyBot and CountingBot)."""

    __slots__ = ("bot", "view", "me", "tables", "model", "index", "hurry", "grids", "info", "mine",
                 "my_hidden", "my_value", "_opponents", "_feed", "_my_gains")

    def __init__(self, bot: Params, view: View) -> None:
        self.bot = bot
        self.view = view
        self.me: int = view.viewer  # type: ignore[assignment]  # checked by the caller
        self.tables = tables = _tables(view.variant)
        self.index = tables.index
        self.grids: list[_GridInfo] | None = None
        if bot.counts_cards:
            self.grids = [tables.grid(g) for g in view.grids]
            self.info = self.grids[self.me]
            self.model = tables.unseen_model(view, self.grids)
        else:
            self.info = tables.grid(view.grids[self.me])
            self.model = tables.deck_model
        self.hurry = view.turns >= bot.patience * view.players
        self.mine = self.info.shapes
        self.my_hidden = self.info.hidden
        self.my_value = self.info.value(self.model)
        self._opponents: list[float] | None = None
        self._feed: list[float] | None = None
        self._my_gains: list[tuple[list[float], ...] | None] | None = None

    # -- the three phases --------------------------------------------------

    def choose(self) -> Action:
        view = self.view
        layout = self.tables.layout(view.legal_actions)
        if view.phase is Phase.OPENING:
            return self.flip_choice(layout.flips)
        if view.phase is Phase.DRAWN:
            assert view.drawn is not None
            return self.drawn_choice(layout, view.drawn)
        return self.turn_choice(layout)

    def turn_choice(self, layout: _Layout) -> Action:
        top = self.view.top_discard
        best_take = None if top is None else self.best_place(layout.takes, layout.take_spaces, top)
        draw = layout.draw
        if not self.bot.counts_cards and draw is not None:
            # GreedyBot: take the discard only when it clearly helps, else draw (and decide then).
            if best_take is not None and best_take[0] >= self.bot.take_threshold:
                return best_take[1]
            return draw
        options = [best_take] if best_take is not None else []
        if draw is not None:
            options.append((self.draw_value(), draw))
        if layout.flips:
            flip = self.flip_choice(layout.flips)
            options.append((self.flip_score(discarded=None), flip))
        if not options:  # in a hurry with nothing that reveals a card: any take will do
            return self.view.legal_actions[0]
        return max(options, key=lambda o: o[0])[1]

    def drawn_choice(self, layout: _Layout, card: int) -> Action:
        """The best of placing `card` and discarding it to flip a card; placing wins a tie."""
        best = self.best_place(layout.places, layout.place_spaces, card)
        if layout.discards:
            info, cols = self.info, self.tables.cols
            if layout.discard_spaces == info.down(cols):
                row, col = info.flip(cols)
            else:
                row, col = flip_space(self.mine, layout.discards)
            flip = self.flip_score(discarded=card)
            if best is None or flip > best[0]:
                return DiscardDrawn(self.me, row, col)
        if best is None:  # in a hurry with no face-down card left: place it where it helps most
            best = self.best_place(layout.places, layout.place_spaces, card, hurry=False)
            assert best is not None
        return best[1]

    def best_place(self, moves: list[tuple[Action, int, int]], spaces: tuple[int, ...], card: int,
                   hurry: bool | None = None, shortcut: bool = True) -> tuple[float, Action] | None:
        """The best of `moves` (takes or places of `card`; only those revealing a card in a
        hurry), the first in their order on a tie; `None` if there is none.

        When a score is the plain gain (no closer risk, no feeding) and the moves are every
        remaining space in index order, the best is found column by column from kept
        per-column bests (`_GridInfo.best_space`); `shortcut=False` scores every move.
        """
        hurry = self.hurry if hurry is None else hurry
        if shortcut and not self.bot.feed_weight and self.my_hidden != 1 and spaces == self.info.remaining:
            # Plain gains on every remaining space in index order: the best column by column.
            return self._best_gain(moves, card, hurry)
        best: tuple[float, Action] | None = None
        mine, gains_of, i = self.mine, self.my_gains(), self.index[card]
        closing = self.my_hidden == 1
        feed = self.feed_costs() if self.bot.feed_weight else None
        for a, row, col in moves:
            shape = mine[col]
            assert shape is not None
            hidden = shape.column[row] is None
            if hurry and not hidden:
                continue
            # The score of placing `card` at (row, col): the gain, minus the closer risk and
            # what it feeds the next player (the card it leaves on the discard pile).
            c = shape.row_class[row]
            gain = gains_of[col][c][i]  # type: ignore[index]
            score = gain
            if hidden and closing:
                score -= self.closing_cost(self.my_value - gain)
            if feed is not None:
                gift = shape.classes[c].gift_index[i]
                if gift >= 0:
                    score -= feed[gift]
            if best is None or score > best[0]:
                best = (score, a)
        return best

    def _best_gain(self, moves: list[tuple[Action, int, int]], card: int,
                   hurry: bool) -> tuple[float, Action] | None:
        info = self.info
        best, where = info.best_space(self.model, self.index[card], hurry, self.tables.cols)
        if where < 0:
            return None
        return best, moves[info.remaining.index(where)][0]

    def draw_value(self) -> float:
        """The expected score of drawing: the best drawn-phase option, averaged over the odds.

        For every card value at once: each class of the bot's spaces (see `_Class`) gives
        a list of scores by value, and the best is taken value by value.
        """
        model = self.model
        odds, index = model.odds, self.index
        if not odds.total:
            return 0.0
        feed = self.feed_costs() if self.bot.feed_weight else None
        lists: list[list[float]] = []
        for shape, gains_of in zip(self.mine, self.my_gains(), strict=True):
            if shape is None or gains_of is None:
                continue
            for cls, gains in zip(shape.classes, gains_of, strict=True):
                if self.hurry and not cls.hidden:
                    continue
                scores = gains
                if cls.hidden and self.my_hidden == 1:
                    closing, mine = self.closing_cost, self.my_value
                    scores = [g - closing(mine - g) for g in scores]
                if feed is not None and cls.gifted:  # less what the card left there feeds
                    if cls.all_gifted:
                        scores = list(map(sub, scores, map(feed.__getitem__, cls.gift_index)))
                    else:
                        scores = list(scores)
                        for i in cls.gifted:
                            scores[i] -= feed[cls.gift_index[i]]
                lists.append(scores)
        if not lists:
            bests = [_NEG_INF] * len(index)
        else:
            bests = list(map(max, *lists)) if len(lists) > 1 else lists[0]
        chosen = [bests[i] for i in odds.positive]
        if self.my_hidden:
            flip = self.bot.flip_bonus
            if self.my_hidden == 1:
                flip -= self.closing_cost(self.my_value)
            flips = repeat(flip) if feed is None else map(flip.__sub__, [feed[i] for i in odds.positive])
            chosen = list(map(max, chosen, flips))
        # 0.0 + count * best, value by value (in order, as a loop adds them)
        total: float = reduce(add, map(mul, odds.positive_counts, chosen), 0.0)
        return total / odds.total

    # -- scoring one action --------------------------------------------------

    def my_gains(self) -> list[tuple[list[float], ...] | None]:
        """`_Model.gains` of each of the bot's columns (`None` for a swallowed one)."""
        if self._my_gains is None:
            gains = self.model.gains
            self._my_gains = [None if s is None else gains(s) for s in self.mine]
        return self._my_gains

    def flip_score(self, discarded: int | None) -> float:
        """Flipping a face-down card (after discarding `discarded`, if any): no gain on average,
        plus a small bonus for what it tells (a known card can be replaced to more effect)."""
        score = self.bot.flip_bonus
        if self.my_hidden == 1:
            score -= self.closing_cost(self.my_value)
        if discarded is not None and self.bot.feed_weight:
            score -= self.feed_costs()[self.index[discarded]]
        return score

    def closing_cost(self, my_score: float) -> float:
        """The expected extra points of closing now with `my_score` (the penalty, rule 6.5)."""
        if self.hurry or my_score <= 0 or self.view.closer is not None:
            return 0.0  # (someone else already closed: this is a last turn, rule 6.2)
        multiplier = self.view.variant.closer_multiplier
        others = self.opponent_estimates()
        if multiplier == 1 or not others:
            return 0.0
        if min(others) <= my_score + self.bot.closing_margin:
            return (multiplier - 1) * my_score
        return 0.0

    def seats(self) -> list[_GridInfo]:
        """Every seat's grid as the planner reads it."""
        if self.grids is None:
            self.grids = [self.tables.grid(g) for g in self.view.grids]
        return self.grids

    def opponent_estimates(self) -> list[float]:
        """Each other seat's expected score (CountingBot: after one last turn, rule 6.2)."""
        if self._opponents is None:
            model = self.model
            out = []
            for seat, info in enumerate(self.seats()):
                if seat == self.me:
                    continue
                estimate = info.value(model)
                if self.bot.counts_cards:
                    estimate -= model.draw_gain(model.best_gains(info.shapes))
                out.append(estimate)
            self._opponents = out
        return self._opponents

    def feed_costs(self) -> list[float]:
        """For each card value, how much leaving it on the discard pile helps the next player
        (more than a draw would)."""
        if self._feed is None:
            view = self.view
            nxt = (self.me + 1) % view.players
            if nxt != self.me and nxt != view.closer:
                model, weight = self.model, self.bot.feed_weight
                best = model.best_gains(self.seats()[nxt].shapes)
                next_draw = model.draw_gain(best)
                self._feed = [weight * g if (g := b - next_draw) > 0 else 0.0 for b in best]
            else:
                self._feed = [0.0] * len(self.index)
        return self._feed

    # -- which card to flip --------------------------------------------------

    def flip_choice(self, flips: list[Flip]) -> Flip:
        row, col = flip_space(self.mine, [(a.row, a.col) for a in flips])
        return next(a for a in flips if (a.row, a.col) == (row, col))
