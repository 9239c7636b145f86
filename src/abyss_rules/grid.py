"""Grid geometry and per-player grid snapshots (spec rule 1.2).

A grid has ``rows x cols`` spaces. Space ``(row, col)`` has the *index*
``row * cols + col`` (row-major). The engine keeps every player's grid in one
flat tuple of card values (player ``p``'s space ``s`` at ``p * cells + s``)
and two bit masks over the same positions: face-up spaces and swallowed
spaces. :class:`Geometry` holds the precomputed tables for one shape;
:class:`Grid` is a friendly read-only snapshot of one player's grid.

>>> g = Geometry(3, 4)
>>> g.index(1, 2)
6
>>> g.position(6)
(1, 2)
>>> bin(g.column_masks[0])
'0b100010001'
"""

from __future__ import annotations

import attrs

__all__ = ["Geometry", "Grid"]

class Geometry:
    """Precomputed tables for a ``rows x cols`` grid (rule 1.2).

    Not part of the state: every :class:`~abyss_rules.Variant` owns one.
    """

    __slots__ = ("rows", "cols", "cells", "full_mask", "space_of", "positions", "column_masks",
                 "column_spaces", "column_of", "spaces_of_mask")

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

    @classmethod
    def of(cls, rows: int, cols: int) -> Geometry:
        """The shared tables of a shape (built once per shape)."""
        key = (rows, cols)
        found = _GEOMETRIES.get(key)
        if found is None:
            found = _GEOMETRIES[key] = cls(rows, cols)
        return found

    def index(self, row: int, col: int) -> int:
        """The index of space ``(row, col)``."""
        return self.space_of[(row, col)]

    def position(self, index: int) -> tuple[int, int]:
        """The ``(row, col)`` of space ``index``."""
        return self.positions[index]

    def spaces(self, mask: int) -> tuple[int, ...]:
        """The space indices whose bits are set in ``mask``, ascending (cached)."""
        found = self.spaces_of_mask.get(mask)
        if found is None:
            found = tuple(s for s in range(self.cells) if mask >> s & 1)
            if len(self.spaces_of_mask) < 1 << 16:
                self.spaces_of_mask[mask] = found
        return found


_GEOMETRIES: dict[tuple[int, int], Geometry] = {}
_BITS: dict[int, tuple[int, ...]] = {}


def _bits(cells: int) -> tuple[int, ...]:
    """``(1, 2, 4, ...)``: the bit of each of ``cells`` spaces."""
    found = _BITS.get(cells)
    if found is None:
        found = _BITS[cells] = tuple(1 << s for s in range(cells))
    return found


@attrs.frozen(slots=True)
class Grid:
    """One player's grid at one moment: a read-only snapshot.

    ``cards`` holds every card value, face-down ones included -- only the
    authoritative :class:`~abyss_rules.State` can build it that way; a view
    holds ``None`` for face-down spaces. Swallowed spaces hold ``None`` in
    both.

    >>> grid = Grid(rows=1, cols=2, cards=(5, None), face_up=(True, False), swallowed=(False, False))
    >>> grid.visible
    (5, None)
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
        cls, rows: int, cols: int, cards: tuple[int, ...], up: int, gone: int, player: int
    ) -> Grid:
        """Player ``player``'s grid from the engine's flat representation.

        See :mod:`abyss_rules.state` for the representation.
        """
        cells = rows * cols
        base = player * cells
        bits = _bits(cells)
        up, gone = up >> base, gone >> base
        mine = cards[base:base + cells]
        return cls(
            rows=rows,
            cols=cols,
            cards=tuple([None if gone & b else c for c, b in zip(mine, bits, strict=True)]),
            face_up=tuple([up & b != 0 for b in bits]),
            swallowed=tuple([gone & b != 0 for b in bits]),
        )

    @property
    def visible(self) -> tuple[int | None, ...]:
        """Face-up values by space index, ``None`` where face down or swallowed."""
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
        """The grid as rows of short strings, for printing."""
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
