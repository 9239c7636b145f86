"""Grid geometry and per-player grid snapshots (spec rule 1.2).

A grid has `rows x cols` spaces. Space `(row, col)` has the *index*
`row * cols + col` (row-major). The engine keeps every player's grid in one
flat tuple of card values (player `p`'s space `s` at `p * cells + s`) and
two bit masks over the same positions: face-up spaces and swallowed spaces.
`Geometry` holds the precomputed tables for one shape; `Grid` is a friendly
read-only snapshot of one player's grid.

Examples:
    >>> g = Geometry(3, 4)
    >>> g.index(1, 2)
    6
    >>> g.position(6)
    (1, 2)
    >>> bin(g.column_masks[0])
    '0b100010001'
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, Final, TypeVar, cast

import attrs

from .caches import BoundedCache
from .errors import ArgumentError

__all__ = ["Geometry", "Grid"]

_T = TypeVar("_T")

class Geometry:
    """Precomputed tables for a `rows x cols` grid (rule 1.2).

    Not part of the state: every `Variant` owns one
    (`Variant.geometry`).

    Examples:
        >>> g = Geometry.of(3, 4)
        >>> g.cells, g.column_spaces[1]
        (12, (1, 5, 9))
    """

    __slots__ = ("rows", "cols", "cells", "full_mask", "space_of", "positions", "column_masks",
                 "column_spaces", "column_of", "spaces_of_mask", "_parts_of")

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.cells = rows * cols
        self.full_mask = (1 << self.cells) - 1
        self.positions: tuple[tuple[int, int], ...] = tuple(divmod(s, cols) for s in range(self.cells))
        self.space_of: dict[tuple[int, int], int] = {rc: s for s, rc in enumerate(self.positions)}
        self.column_spaces: tuple[tuple[int, ...], ...] = tuple(
            tuple(r * cols + c for r in range(rows)) for c in range(cols)
        )
        self.column_masks: tuple[int, ...] = tuple(
            sum(1 << s for s in spaces) for spaces in self.column_spaces
        )
        self.column_of: tuple[int, ...] = tuple(s % cols for s in range(self.cells))
        self.spaces_of_mask: dict[int, tuple[int, ...]] = {}
        # (public, seat, face-up bits, swallowed bits) -> _Parts: see _parts()
        self._parts_of: dict[int, _Parts] = {}

    @classmethod
    def of(cls, rows: int, cols: int) -> Geometry:
        """The shared tables of a shape (built once per shape).

        Examples:
            >>> Geometry.of(3, 4) is Geometry.of(3, 4)
            True
        """
        key = (rows, cols)
        found = _GEOMETRIES.get(key)
        if found is None:
            found = _GEOMETRIES.put(key, cls(rows, cols), rows * cols)
        return found

    def index(self, row: int, col: int) -> int:
        """The index of space `(row, col)`: `row * cols + col`.

        Examples:
            >>> Geometry.of(3, 4).index(2, 3)
            11
        """
        return self.space_of[(row, col)]

    def position(self, index: int) -> tuple[int, int]:
        """The `(row, col)` of space `index`.

        Examples:
            >>> Geometry.of(3, 4).position(11)
            (2, 3)
        """
        return self.positions[index]

    def spaces(self, mask: int) -> tuple[int, ...]:
        """The space indices whose bits are set in `mask`, ascending (cached).

        Examples:
            >>> Geometry.of(3, 4).spaces(0b100000101)
            (0, 2, 8)
        """
        found = self.spaces_of_mask.get(mask)
        if found is None:
            found = tuple(s for s in range(self.cells) if mask >> s & 1)
            if len(self.spaces_of_mask) < 1 << 16:
                self.spaces_of_mask[mask] = found
        return found


def _forget_masks(geometry: Geometry) -> None:
    geometry.spaces_of_mask.clear()
    geometry._parts_of.clear()


_GEOMETRIES: Final = BoundedCache[tuple[int, int], Geometry]("grid.geometries", max_entries=16,
                                                             max_size=16 * 64, on_clear=_forget_masks)
"""The shared tables of the last grid shapes (size: spaces). Each geometry bounds its own mask caches."""
_BITS: Final = BoundedCache[int, tuple[int, ...]]("grid.bits", max_entries=64, max_size=64 * 64)


def _bits(cells: int) -> tuple[int, ...]:
    """`(1, 2, 4, ...)`: the bit of each of `cells` spaces."""
    found = _BITS.get(cells)
    if found is None:
        found = _BITS.put(cells, tuple(1 << s for s in range(cells)), cells)
    return found


_FLAGS: Final = BoundedCache[tuple[int, int], tuple[bool, ...]]("grid.flags", max_entries=1 << 16,
                                                                max_size=1 << 20)
"""Masks as booleans, by (cells, mask) (size: cells)."""


def flags(cells: int, mask: int) -> tuple[bool, ...]:
    """The low `cells` bits of `mask` as booleans (cached: grids repeat their masks).

    Examples:
        >>> flags(4, 0b0101)
        (True, False, True, False)
    """
    key = (cells, mask)
    found = _FLAGS.get(key)
    if found is None:
        found = _FLAGS.put(key, tuple([mask & bit != 0 for bit in _bits(cells)]), cells)
    return found


@attrs.frozen(slots=True)
class Grid:
    """One player's grid at one moment: a read-only snapshot.

    `cards` holds every card value, face-down ones included -- only the
    authoritative `State` can build it that way; a view holds `None`
    for face-down spaces. Swallowed spaces hold `None` in both. Every
    tuple is indexed by space index (`row * cols + col`).

    Examples:
        >>> grid = Grid(rows=1, cols=2, cards=(5, None), face_up=(True, False), swallowed=(False, False))
        >>> grid.visible
        (5, None)
        >>> grid.face_down, grid.remaining
        ((1,), (0, 1))
        >>> print(grid)
         5 ??
    """

    rows: int
    cols: int
    cards: tuple[int | None, ...]
    """Card values by space index; ``None`` on swallowed (and, in views, face-down) spaces."""
    face_up: tuple[bool, ...]
    """Whether each space is face up (swallowed spaces are not)."""
    swallowed: tuple[bool, ...]
    """Whether each space has been swallowed this round (rule 4.1)."""

    @classmethod
    def from_flat(
        cls, rows: int, cols: int, cards: tuple[int, ...], up: int, gone: int, player: int,
        *, public: bool = False,
    ) -> Grid:
        """Player `player`'s grid from the engine's flat representation.

        See `abyss_rules.state` for the representation. With `public=True` only
        face-up values are read (rules 8.1, 8.2): face-down spaces hold `None`, as in
        a view. Arguments that name no grid of `cards` are refused (`ArgumentError`).

        Examples:
            >>> Grid.from_flat(1, 2, (7, 8, 9, 10), up=0b0100, gone=0b1000, player=1).cards
            (9, None)
            >>> Grid.from_flat(1, 2, (7, 8, 9, 10), up=0b0001, gone=0, player=0, public=True).cards
            (7, None)
        """
        if not (type(rows) is int and type(cols) is int and type(player) is int
                and isinstance(cards, (tuple, list)) and type(up) is int and type(gone) is int and rows > 0
                and cols > 0 and player >= 0 and up >= 0 and gone >= 0
                and len(cards) >= (player + 1) * rows * cols):
            what = f"{len(cards)} cards" if isinstance(cards, (tuple, list)) else type(cards).__name__
            raise ArgumentError(f"no grid of seat {player!r} of {rows!r} x {cols!r} spaces is in {what} "
                                "with int masks from 0")
        if cls is Grid and type(cards) is tuple and rows * cols > 1:
            return snapshots(Geometry.of(rows, cols), cards, up, gone, public, player, player + 1)[0]
        # Anything unusual (a subclass, a one-space grid) takes the plain way.
        cells = rows * cols
        base = player * cells
        bits = _bits(cells)
        full = (1 << cells) - 1
        up, gone = up >> base & full, gone >> base & full
        mine = cards[base:base + cells]
        if public:  # swallowed spaces are never face up
            shown = [c if up & b else None for c, b in zip(mine, bits, strict=True)]
        else:
            shown = [None if gone & b else c for c, b in zip(mine, bits, strict=True)]
        return cls(rows=rows, cols=cols, cards=tuple(shown), face_up=flags(cells, up),
                   swallowed=flags(cells, gone))

    @property
    def visible(self) -> tuple[int | None, ...]:
        """Face-up values by space index, `None` where face down or swallowed."""
        return tuple(c if up else None for c, up in zip(self.cards, self.face_up, strict=True))

    @property
    def face_down(self) -> tuple[int, ...]:
        """Indices of the face-down spaces."""
        return tuple(
            s
            for s, (up, gone) in enumerate(zip(self.face_up, self.swallowed, strict=True))
            if not (up or gone)
        )

    @property
    def remaining(self) -> tuple[int, ...]:
        """Indices of the spaces not swallowed (rule 3.10)."""
        return tuple(s for s, gone in enumerate(self.swallowed) if not gone)

    def rows_of(self, hidden: str = "??", gone: str = "  ") -> list[list[str]]:
        """The grid as rows of short strings, for printing.

        Face-up cards show their value, face-down ones `hidden`, swallowed spaces `gone`;
        `str(grid)` joins these rows.

        Examples:
            >>> grid = Grid(rows=2, cols=2, cards=(5, None, -1, None), face_up=(True, False, True, False),
            ...             swallowed=(False, False, False, True))
            >>> grid.rows_of()
            [[' 5', '??'], ['-1', '  ']]
        """
        out: list[list[str]] = []
        for r in range(self.rows):
            line = []
            for c in range(self.cols):
                s = r * self.cols + c
                if self.swallowed[s]:
                    line.append(gone)
                elif self.face_up[s]:
                    line.append(f"{self.cards[s]:>2}")
                else:
                    line.append(hidden)
            out.append(line)
        return out

    def __str__(self) -> str:
        return "\n".join(" ".join(row) for row in self.rows_of())


# -- building many snapshots fast ------------------------------------------------------------------

_Picker = Callable[[tuple[int | None, ...]], tuple[int | None, ...]]
_NONE: tuple[None] = (None,)


def fast_constructor(cls: type[_T]) -> Callable[..., _T]:
    """A function that builds a `cls` -- a frozen, slotted attrs class -- from its fields' values
    in their order, without `cls.__init__`: no validator or converter runs, so it is only for
    values already checked, on hot paths (`snapshots` for `Grid`, `view` for `View`).

    The one place where a frozen object is built by a `__class__` swap. A frozen class refuses
    `setattr`, and storing through a slot descriptor's `__set__` costs a call per field; so the
    function fills an object of a private subclass whose stores are plain (the layouts are the
    same: the subclass adds no slot), then makes it a `cls` by assigning `__class__`. It is
    written out field by field, as attrs writes `__init__`.

    Examples:
        >>> build = fast_constructor(Grid)
        >>> built = build(1, 2, (3, None), (True, False), (False, False))
        >>> type(built) is Grid and built == Grid(1, 2, (3, None), (True, False), (False, False))
        True
    """
    names = [field.name for field in attrs.fields(cast(Any, cls))]
    # Both, so that the type's setattr slot is the generic one that stores into slots directly.
    unfrozen = type(f"_Unfrozen{cls.__name__}", (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
        "__module__": cls.__module__,
    })
    lines = [f"def build({', '.join(names)}):", "    made = new(unfrozen)"]
    lines += [f"    made.{name} = {name}" for name in names]
    lines += ["    made.__class__ = cls", "    return made"]
    namespace: dict[str, Any] = {"new": object.__new__, "unfrozen": unfrozen, "cls": cls}
    exec("\n".join(lines), namespace)  # field names are identifiers: attrs checked them
    build: Callable[..., _T] = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    return build


_build_grid = fast_constructor(Grid)


_PARTS_LIMIT = 1 << 13
"""Entries per shape in `Geometry._parts_of` (about 700 bytes each, with the last grid)."""


class _Parts:
    """What every snapshot of one seat with one pair of masks shares (see `_parts`)."""

    __slots__ = ("picker", "face_up", "swallowed", "last")

    def __init__(self, picker: _Picker, face_up: tuple[bool, ...], swallowed: tuple[bool, ...]) -> None:
        self.picker = picker
        self.face_up = face_up
        self.swallowed = swallowed
        self.last: Grid | None = None
        """The snapshot built last with these masks: reused while the cards it shows stay the same."""


def _parts(geometry: Geometry, public: bool, player: int, up: int, gone: int) -> _Parts:
    """How to cut seat `player`'s snapshot out of `(None,) + cards`, for one pair of masks.

    The picker is an `operator.itemgetter` reading each space's card, or the `None`
    at index 0 where the snapshot shows none: face-down and swallowed spaces when
    `public`, else swallowed spaces only. `up` and `gone` are the seat's own bits.
    """
    cells = geometry.cells
    key = (((player << 1 | public) << cells | gone) << cells) | up
    found = geometry._parts_of.get(key)
    if found is None:
        base = player * cells + 1
        shown = up if public else geometry.full_mask & ~gone
        found = _Parts(itemgetter(*[base + s if shown >> s & 1 else 0 for s in range(cells)]),
                       flags(cells, up), flags(cells, gone))
        if len(geometry._parts_of) >= _PARTS_LIMIT:  # bounded: start over (the masks in play come back)
            geometry._parts_of.clear()
        geometry._parts_of[key] = found
    return found


def snapshots(
    geometry: Geometry, cards: tuple[int, ...], up: int, gone: int, public: bool, start: int, stop: int
) -> tuple[Grid, ...]:
    """Seats `start` to `stop - 1`'s snapshots, as `Grid.from_flat` builds them.

    The fast way, without checks: `geometry` has at least two spaces and `cards` holds
    every seat up to `stop - 1`. The pickers and flag tuples are cached per seat and masks,
    so a snapshot costs one `itemgetter` call and, unless it shows the same cards as the
    last one built with those masks (grids are immutable: then that one is returned), an
    object built by `fast_constructor`'s function for `Grid`. The reuse test compares
    the snapshot's own cards only: with `public`, never a face-down value.

    Examples:
        >>> g = Geometry.of(1, 2)
        >>> cards = (7, 8, 9, 10)
        >>> [grid.cards for grid in snapshots(g, cards, up=0b0110, gone=0, public=True, start=0, stop=2)]
        [(None, 8), (9, None)]
        >>> snapshots(g, cards, 0b0110, 0b1000, False, 1, 2)
        (Grid(rows=1, cols=2, cards=(9, None), face_up=(True, False), swallowed=(False, True)),)
    """
    rows, cols, cells, full = geometry.rows, geometry.cols, geometry.cells, geometry.full_mask
    table = geometry._parts_of
    ext = _NONE + cards
    out = []
    for player in range(start, stop):
        base = player * cells
        mine_up, mine_gone = up >> base & full, gone >> base & full
        parts = table.get((((player << 1 | public) << cells | mine_gone) << cells) | mine_up)
        if parts is None:
            parts = _parts(geometry, public, player, mine_up, mine_gone)
        shown = parts.picker(ext)
        grid = parts.last
        if grid is None or grid.cards != shown:
            parts.last = grid = _build_grid(rows, cols, shown, parts.face_up, parts.swallowed)
        out.append(grid)
    return tuple(out)
