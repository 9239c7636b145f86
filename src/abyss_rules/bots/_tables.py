"""What one variant's bots keep, whatever the odds: grids, legal actions, column shapes, models.

The grids as the planner reads them, the legal actions sorted by kind, the column shapes and
the models of the odds seen.

Everything here reads a `View` only (rule 8.3): face-up values, the discard pile, the drawn
card. The tables of a variant (`tables_of`) are one of the library's bounded caches; each
bounds its own (`RECENT` grids and legal-action tuples, `LIMIT` shapes).

Examples:
    >>> import abyss_rules as ar
    >>> t = tables_of(ar.Variant.standard())
    >>> state = ar.new_game(players=2, seed=5)
    >>> info = t.grid(ar.view(state, 0).grids[0])
    >>> info.hidden, info.remaining == t.spaces, len(info.down())
    (12, True, 12)
    >>> info.flip()                               # (row, col): the top card of the first column
    (0, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import Final

from .._grid import Grid
from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..caches import BoundedCache
from ..config import Variant
from ..views import View
from ._model import Column, ColumnClass, Model, Shape
from ._odds import LIMIT, Odds

__all__: list[str] = []  # private: the bots module is the public face

Placing = tuple[int, int, int]
"""Where a class of a column is scored: `(position of its first space, column, class)`."""

RECENT: Final = 1 << 10
"""Entries per cache of recent objects (grids, legal-action tuples)."""


class GridInfo:
    """One grid as the planner reads it: column shapes (`None` for a swallowed column), its
    face-up values, its face-down count, remaining spaces and the face-down space it would
    flip first (see `flip_space`), and where a placed card is scored (`classes`)."""

    __slots__ = (
        "_counts",
        "_down",
        "_flip",
        "_model",
        "_placings",
        "_seen",
        "_value",
        "grid",
        "hidden",
        "remaining",
        "shapes",
        "shown",
        "_tables",
    )

    def __init__(self, grid: Grid, tables: Tables) -> None:
        shown, up, gone = grid.cards, grid.face_up, grid.swallowed
        kept = tables._masks.get(id(up))
        masks = kept[2] if kept is not None and kept[0] is up and kept[1] is gone else tables.masks(up, gone)
        # A view's grid holds None exactly on its face-down and swallowed spaces (rule 8.2): then
        # what depends only on where those are is its masks' (`Masks`, kept per pair of masks).
        if not (masks is not None and len(shown) == masks.cells and shown.count(None) == masks.closed
                and masks.pick(shown) == masks.blank):
            masks = None
            down = shown.count(None)
            if down != up.count(False) or None in compress(shown, up):  # mask any other (rule 8.2)
                shown = grid.visible
                down = shown.count(None)
        # (C-level maps: a grid is built for almost every decision)
        shapes: tuple[Shape | None, ...] = tuple(map(tables.shape_of, tables.columns_of(shown)))
        if None in shapes:
            shapes = tuple([s or tables.shape(shown[c::tables.cols]) for c, s in enumerate(shapes)])
        if masks is not None:
            if masks.gone:  # (a swallowed column is gone, rule 4.1)
                shapes = tuple([None if c in masks.gone else s for c, s in enumerate(shapes)])
            self.hidden: int = masks.hidden
            """The face-down cards outside swallowed columns."""
            self.remaining: tuple[int, ...] = masks.remaining
            """The spaces of the columns that are not swallowed, in index order (the very tuple
            `Tables.spaces` when none is)."""
            self._down: tuple[int, ...] | None = masks.down
            self._flip: tuple[int, int] | None = masks.flip
        else:
            if True in gone:  # (a swallowed column is gone, rule 4.1: count what is left)
                shapes = tuple([None if gone[c] else s for c, s in enumerate(shapes)])
                down = sum([s.hidden for s in shapes if s is not None])
                self.remaining = tables.remaining(shapes)
            else:
                self.remaining = tables.spaces
            self.hidden = down
            self._down = None
            self._flip = None
        self.grid = grid
        """The grid read (a memo of grids by identity holds it)."""
        self.shapes = shapes
        self.shown: tuple[int | None, ...] = shown
        self._tables = tables
        self._seen: tuple[int, ...] | None = None
        self._counts: tuple[int, ...] | None = None
        self._placings: Placings | None = None
        self._model = -1
        self._value: float | None = None

    def seen(self) -> tuple[int, ...]:
        """The face-up values."""
        if self._seen is None:
            self._seen = tuple([v for v in self.shown if v is not None])
        return self._seen

    def seen_counts(self) -> tuple[int, ...]:
        """How many face-up cards of each value of the deck (in `Tables.values` order) it shows."""
        found = self._counts
        if found is None:  # (a count per value, in one pass; a value off the deck counts nowhere)
            index = self._tables.index
            counts = [0] * len(index)
            for v in self.shown:
                if v is not None:
                    i = index.get(v)
                    if i is not None:
                        counts[i] += 1
            found = self._counts = tuple(counts)
        return found

    def down(self) -> tuple[int, ...]:
        """The face-down spaces, in index order."""
        if self._down is None:  # (the remaining spaces that show None; C-level maps)
            remaining = self.remaining
            self._down = tuple(compress(remaining, map(is_, map(self.shown.__getitem__, remaining),
                                                       repeat(None))))
        return self._down

    def flip(self) -> tuple[int, int]:
        """`flip_space` over every face-down space (there must be one), column by column: the
        first face-down row of the first column with the most face-up cards among those with
        a face-down one; kept."""
        if self._flip is None:
            best, where = -1, -1
            for col, shape in enumerate(self.shapes):
                if shape is not None and shape.hidden and shape.known > best:
                    best, where = shape.known, col
            self._flip = (self.shapes[where].column.index(None), where)  # type: ignore[union-attr]
        return self._flip

    def placings(self) -> Placings:
        """Where a placed card is scored on this grid's columns (`Placings`); kept."""
        found = self._placings
        if found is None:
            found = self._placings = self._tables.placings(self.shapes, self.remaining)
        return found

    def value(self, model: Model) -> float:
        """The expected score of the grid under `model` (kept for the last model asked, by its
        serial number: a grid does not keep a model alive)."""
        if self._model != model.serial or self._value is None:
            self._model, self._value = model.serial, sum(map(model.value, self.shapes))
        return self._value


class Placings:
    """Where a card placed on some columns is scored, whatever the card, and the best placement
    of each card under the deck's model (GreedyBot's), kept as the planner finds them."""

    __slots__ = ("classes", "deck_best")

    def __init__(self, classes: list[Placing], values: int) -> None:
        self.classes = classes
        """Each class of each column once, as `(position in remaining, column, class)` at its
        first row (`Shape.firsts`), in the order of those spaces: where a placement of a card
        is scored (the planner's `best_place`)."""
        self.deck_best: list[tuple[float, int] | None] = [None] * (2 * values)
        """The planner's best placement on every class under the deck's model with nothing
        but the gains to score, by the card's index and the hurry (`2 * index + hurry`): its
        score and the position of its move (`-1`: none). The columns, the card and the hurry
        fix it: the deck's odds never change."""


class Masks:
    """What every grid whose face-down and swallowed spaces are the `False` spaces of one
    face-up mask (a public grid, rule 8.2) shares, with one swallowed mask (kept by
    `Tables.masks`): where its cards must hold None, its swallowed columns (read on the top
    row, rule 4.1), its remaining and face-down spaces and the space it would flip first.
    """

    __slots__ = ("blank", "cells", "closed", "down", "flip", "gone", "hidden", "pick", "remaining")

    def __init__(self, up: tuple[bool, ...], gone: tuple[bool, ...], tables: Tables) -> None:
        cols, spaces = tables.cols, tables.spaces
        self.cells = len(spaces)
        closed = [s for s in spaces if not up[s]]
        self.closed = len(closed)
        """How many spaces must hold None."""
        # (itemgetter: one space gives the card itself, none a slice's empty tuple)
        self.pick: Callable[[tuple[int | None, ...]], object] = itemgetter(*closed) if closed else \
            itemgetter(slice(0, 0))
        self.blank: object = None if len(closed) == 1 else (None,) * len(closed)
        """What `pick` reads from a grid holding None on those spaces."""
        self.gone = tuple([c for c in range(cols) if gone[c]]) if True in gone else ()
        """The swallowed columns (as `GridInfo` reads them: by the top row's flag)."""
        self.remaining = tuple([s for s in spaces if s % cols not in self.gone]) if self.gone else spaces
        self.down = tuple([s for s in self.remaining if not up[s]])
        self.hidden = len(self.down)
        # `GridInfo.flip` of such a grid (None if it has no face-down card)
        best, flip = -1, None
        for col in range(cols):
            if col not in self.gone:
                closed_rows = [not up[s] for s in spaces[col::cols]]
                known = closed_rows.count(False)
                if known < len(closed_rows) and known > best:
                    best, flip = known, (closed_rows.index(True), col)
        self.flip: tuple[int, int] | None = flip


def flip_space(shapes: tuple[Shape | None, ...], spaces: list[tuple[int, int]]) -> tuple[int, int]:
    """The face-down space to turn: in the column with the most face-up cards (then the first).

    Turning a card where the rest of its column is known tells the most
    about that column (rule 4.1): a pair can become a swallow.
    """

    def known(space: tuple[int, int]) -> int:
        shape = shapes[space[1]]
        return 0 if shape is None else shape.known

    return max(spaces, key=lambda space: (known(space), -space[1], -space[0]))


class Tables:
    """What one variant's bots keep whatever the odds: shapes, grids, the deck's odds."""

    __slots__ = (
        "_classes",
        "_grids",
        "_layouts",
        "_mask_kinds",
        "_masks",
        "_models",
        "_piles",
        "_placings",
        "_shapes",
        "cols",
        "column_slices",
        "columns_of",
        "counts",
        "deck",
        "deck_model",
        "index",
        "no_feed",
        "rows",
        "shape_of",
        "spaces",
        "values",
        "variant",
        "weight",
    )

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.rows, self.cols = variant.rows, variant.cols
        self.deck: dict[int, int] = dict(variant.deck)
        self.values = tuple(self.deck)
        self.counts = tuple(self.deck.values())
        self.index = {v: i for i, v in enumerate(self.values)}
        self.no_feed = [0.0] * len(self.values)
        """The feed costs when no next player will take the discard (it closed, or none)."""
        self.weight = 1.0 if variant.swallow_on_final_reveal else 0.5
        self.spaces = tuple(range(self.rows * self.cols))
        self.column_slices = tuple(slice(c, None, self.cols) for c in range(self.cols))
        self.columns_of: Callable[[tuple[int | None, ...]], tuple[Column, ...]] = (
            itemgetter(*self.column_slices) if self.cols > 1 else lambda cards: (cards,))
        self._shapes: dict[Column, Shape] = {}
        self.shape_of = self._shapes.get
        """The kept shape of a column, or `None` (`shape` makes one)."""
        self._classes: dict[tuple[int | None, ...], ColumnClass] = {}
        self._piles: dict[tuple[int, ...], list[int]] = {}
        self._placings: dict[tuple[Shape | None, ...], Placings] = {}
        self._grids: dict[int, GridInfo] = {}
        self._models: dict[tuple[int, ...], Model] = {}
        self._layouts: dict[int, Layout] = {}
        self._masks: dict[int, tuple[tuple[bool, ...], tuple[bool, ...], Masks | None]] = {}
        """By the face-up mask's identity: it, the swallowed mask and their `Masks`."""
        self._mask_kinds: dict[tuple[tuple[bool, ...], tuple[bool, ...]], Masks] = {}
        self.deck_model = Model(Odds(list(self.deck.values()), self.values), self.weight, self.rows,
                                 self.index, deck=True)

    def shape(self, column: Column) -> Shape:
        found = self._shapes.get(column)
        if found is None:
            found = Shape(column, self.values, self.index, self._classes)
            if len(self._shapes) >= LIMIT:
                self._shapes.clear()
            self._shapes[column] = found
        return found

    def placings(self, shapes: tuple[Shape | None, ...], remaining: tuple[int, ...]) -> Placings:
        """`GridInfo.placings` of a grid of these column shapes and remaining spaces, kept by the
        shapes (which fix the remaining spaces: a swallowed column is `None`)."""
        found = self._placings.get(shapes)
        if found is None:
            cols, where = self.cols, remaining.index
            found = Placings(sorted([(where(row * cols + col), col, c)
                                     for col, shape in enumerate(shapes) if shape is not None
                                     for c, (_, row) in enumerate(shape.firsts)]), len(self.values))
            if len(self._placings) >= LIMIT:
                self._placings.clear()
            self._placings[shapes] = found
        return found

    def remaining(self, shapes: tuple[Shape | None, ...]) -> tuple[int, ...]:
        """The spaces of the columns that are not swallowed, in index order."""
        if None not in shapes:
            return self.spaces
        cols = self.cols
        return tuple(s for s in self.spaces if shapes[s % cols] is not None)

    def grid(self, grid: Grid) -> GridInfo:
        """What the planner reads of `grid`, kept by the grid's identity (grids are immutable,
        and the memo holds the grid: the views of one game share their grid snapshots, and a
        turn's two views share the mover's)."""
        found = self._grids.get(id(grid))
        if found is not None and found.grid is grid:
            return found
        found = GridInfo(grid, self)
        if len(self._grids) >= RECENT:
            self._grids.clear()
        self._grids[id(grid)] = found
        return found

    def masks(self, up: tuple[bool, ...], gone: tuple[bool, ...]) -> Masks | None:
        """The `Masks` of a face-up and a swallowed mask (`None` unless both are tuples of one
        flag per space), kept by the masks' identity (the engine's grids share them; the memo
        holds them) and by their contents."""
        if type(up) is not tuple or type(gone) is not tuple or len(up) != len(self.spaces) \
                or len(gone) != len(self.spaces):
            found = None
        else:
            found = self._mask_kinds.get((up, gone))
            if found is None:
                found = Masks(up, gone, self)
                if len(self._mask_kinds) >= RECENT:
                    self._mask_kinds.clear()
                self._mask_kinds[up, gone] = found
        if len(self._masks) >= RECENT:
            self._masks.clear()
        self._masks[id(up)] = (up, gone, found)
        return found

    def layout(self, legal: tuple[Action, ...]) -> Layout:
        """The legal actions sorted by kind, kept by the tuple's identity (the engine shares them)."""
        found = self._layouts.get(id(legal))
        if found is None or found.legal is not legal:
            found = Layout(legal, self.cols, self.spaces)
            if len(self._layouts) >= RECENT:
                self._layouts.clear()
            self._layouts[id(legal)] = found
        return found

    def unseen_model(self, view: View, grids: list[GridInfo]) -> Model:
        """The model whose odds are the unseen cards: the deck minus every public card (rule 8.1).

        The cards seen are counted per value from kept counts: each grid's (kept on its
        `GridInfo`) and the discard pile's (kept by the pile, from the pile under its top card).
        """
        pile = view.discard_pile
        rest = self._piles.get(pile)
        unseen = list(self.pile_rest(pile) if rest is None else rest)  # (a new list: the kept
        # counts never change)
        for info in grids:
            seen = info.seen_counts()
            for j in range(len(unseen)):
                unseen[j] -= seen[j]
        drawn = view.drawn
        if drawn is not None and drawn in self.index:
            unseen[self.index[drawn]] -= 1
        if min(unseen) < 0:  # (more cards shown than the deck has: none of them is unseen)
            unseen = [c if c > 0 else 0 for c in unseen]
        key = tuple(unseen)
        found = self._models.get(key)
        if found is None:
            found = Model(Odds(unseen, self.values), self.weight, self.rows, self.index,
                          delta=self.deck_model.delta)
            if len(self._models) >= 64:
                self._models.clear()
            self._models[key] = found
        return found

    def pile_rest(self, pile: tuple[int, ...]) -> list[int]:
        """How many cards of each value the deck holds outside `pile` (kept; a pile is usually
        the one before with a card more or less on top)."""
        under = self._piles.get(pile[1:]) if pile else None
        if under is not None:
            found = list(under)
            if pile[0] in self.index:
                found[self.index[pile[0]]] -= 1
        else:  # (a value off the deck counts nowhere)
            found = list(self.counts)
            index = self.index
            for v in pile:
                i = index.get(v)
                if i is not None:
                    found[i] -= 1
        if len(self._piles) >= RECENT:
            self._piles.clear()
        self._piles[pile] = found
        return found


class Layout:
    """One tuple of legal actions by kind, in its order: `(action, row, col)` for the placing
    kinds, and whether the placing spaces go in index order (row-major)."""

    __slots__ = (
        "discard_actions",
        "discard_at",
        "discard_spaces",
        "discards",
        "draw",
        "flip_at",
        "flip_pairs",
        "flip_spaces",
        "flips",
        "legal",
        "place_spaces",
        "places",
        "take_spaces",
        "takes",
    )

    def __init__(self, legal: tuple[Action, ...], cols: int, spaces: tuple[int, ...] = ()) -> None:
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
        # (every space, as the very tuple `spaces`: `GridInfo.remaining` of a grid with no
        # swallowed column is that tuple too, so the planner's tests are identity tests)
        self.take_spaces = tuple(r * cols + c for _, r, c in self.takes)
        if self.take_spaces == spaces:
            self.take_spaces = spaces
        self.place_spaces = tuple(r * cols + c for _, r, c in self.places)
        if self.place_spaces == spaces:
            self.place_spaces = spaces
        self.discard_spaces = tuple(r * cols + c for r, c in self.discards)
        self.discard_at = dict(zip(self.discards[::-1], self.discard_actions[::-1], strict=True))
        """The first discard on each `(row, col)`."""
        self.flip_pairs = [(a.row, a.col) for a in self.flips]
        self.flip_spaces = tuple(r * cols + c for r, c in self.flip_pairs)
        self.flip_at = dict(zip(self.flip_pairs[::-1], self.flips[::-1], strict=True))
        """The first flip on each `(row, col)`."""


# One of the library's bounded caches (caches.py); each variant's tables bound their own by LIMIT.
# `_LAST` holds the tables asked last (the views of a game share their variant); emptied with it.
_LAST: Final[list[Tables | None]] = [None]
TABLES: Final = BoundedCache[int, Tables]("planner.tables", max_entries=64, max_size=64,
                                          on_clear=lambda _: _LAST.__setitem__(0, None))


def tables_of(variant: Variant) -> Tables:
    """The tables of `variant` (kept by its identity: the views of a game share their variant)."""
    found = _LAST[0]
    if found is not None and found.variant is variant:
        return found
    found = TABLES.get(id(variant))
    if found is None or found.variant is not variant:
        found = TABLES.put(id(variant), Tables(variant))
    _LAST[0] = found
    return found
