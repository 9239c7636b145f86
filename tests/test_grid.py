"""The grid: shape, space indices, snapshots (spec rule 1.2)."""

from __future__ import annotations

import random

import attrs
import pytest
from tests.builders import open_round, play, stacked, tiny

import abyss_rules as ar
from abyss_rules import _grid as grid_module
from abyss_rules._grid import Geometry
from abyss_rules.errors import SeatError


@pytest.mark.rule("1.2")
def test_space_index_is_row_major() -> None:
    g = Geometry(3, 4)
    assert g.cells == 12
    assert g.index(1, 2) == 6 and g.index(2, 3) == 11 and g.index(0, 0) == 0
    assert [g.position(s) for s in range(12)] == [(r, c) for r in range(3) for c in range(4)]
    with pytest.raises(KeyError):
        g.index(3, 0)


@pytest.mark.rule("1.2", "4.1")
def test_columns() -> None:
    g = Geometry(3, 4)
    assert g.column_spaces[2] == (2, 6, 10)  # (0, 2), (1, 2), (2, 2)
    assert g.column_masks[0] == 0b100010001
    assert g.column_of == (0, 1, 2, 3) * 3
    assert g.spaces(0b101) == (0, 2)
    assert Geometry.of(3, 4) is Geometry.of(3, 4)


@pytest.mark.rule("1.2", "1.4")
def test_a_dealt_grid_snapshot() -> None:
    rows = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    state = stacked(ar.Variant.standard(), 2, grids=[rows, None])
    grid = state.grid(0)
    assert (grid.rows, grid.cols) == (3, 4)
    assert grid.cards == tuple(range(1, 13))
    assert grid.face_up == (False,) * 12 and grid.swallowed == (False,) * 12
    assert grid.visible == (None,) * 12
    assert grid.face_down == tuple(range(12)) and grid.remaining == tuple(range(12))
    assert str(grid) == "?? ?? ?? ??\n?? ?? ?? ??\n?? ?? ?? ??"


@pytest.mark.rule("1.2", "4.1", "3.10")
def test_snapshot_after_flips_and_a_swallow() -> None:
    # tiny 2 x 2: seat 0 flips both 5s of column 0 in the opening and the column is swallowed
    v = tiny()
    state = stacked(v, 2, grids=[[5, 3, 5, 7], [1, 2, 4, 6]])
    state = open_round(state, {0: [(0, 0), (1, 0)], 1: [(0, 0), (1, 1)]})
    grid = state.grid(0)
    assert grid.swallowed == (True, False, True, False)
    assert grid.cards == (None, 3, None, 7)
    assert grid.face_up == (False, False, False, False)
    assert grid.face_down == (1, 3) and grid.remaining == (1, 3)
    assert str(grid) == "   ??\n   ??"
    other = state.grid(1)
    assert other.visible == (1, None, None, 6)
    assert str(other) == " 1 ??\n??  6"
    assert state.turn == 0  # flips 5 + 5 beat 1 + 6 (rule 2.3)
    state = play(state, [ar.Flip(0, 0, 1)])
    assert state.grids()[0].rows_of(hidden="#", gone=".") == [[".", " 3"], [".", "#"]]


@pytest.mark.rule("1.3")
def test_grid_of_a_seat_not_in_the_game() -> None:
    state = ar.new_game(2, seed=1)
    for bad in (-1, 2):
        with pytest.raises(SeatError) as caught:
            state.grid(bad)
        assert caught.value.code == "no_such_player"
    for wrong in ("0", True, None):
        with pytest.raises(ar.MalformedActionError):
            state.grid(wrong)  # type: ignore[arg-type]
    assert len(state.grids()) == 2


def _plain_from_flat(rows: int, cols: int, cards: tuple[int, ...], up: int, gone: int, player: int,
                     public: bool) -> ar.Grid:
    """The snapshot as the first, plain `from_flat` built it: the reference for the fast one."""
    cells = rows * cols
    base = player * cells
    mine = cards[base:base + cells]
    up_of = [bool(up >> (base + s) & 1) for s in range(cells)]
    gone_of = [bool(gone >> (base + s) & 1) for s in range(cells)]
    if public:
        shown = [c if u else None for c, u in zip(mine, up_of, strict=True)]
    else:
        shown = [None if g else c for c, g in zip(mine, gone_of, strict=True)]
    return ar.Grid(rows=rows, cols=cols, cards=tuple(shown), face_up=tuple(up_of), swallowed=tuple(gone_of))


@pytest.mark.rule("1.2", "8.2")
def test_from_flat_matches_the_plain_snapshot() -> None:
    # the fast path caches a picker per masks and reuses the last grid built with them:
    # the same masks over other cards must still give those cards, and `public` never a face-down one
    rng = random.Random(5)
    for rows, cols, players in [(3, 4, 2), (2, 1, 3), (2, 3, 8), (1, 2, 2)]:
        cells = rows * cols
        masks = [(rng.getrandbits(cells * players), rng.getrandbits(cells * players)) for _ in range(4)]
        for _ in range(60):
            cards = tuple(rng.randint(-2, 12) for _ in range(cells * players))
            up, gone = rng.choice(masks)
            up &= ~gone  # swallowed spaces are never face up
            for player in range(players):
                for public in (False, True):
                    grid = ar.Grid.from_flat(rows, cols, cards, up, gone, player, public=public)
                    assert grid == _plain_from_flat(rows, cols, cards, up, gone, player, public)
                    assert type(grid) is ar.Grid
                    if public:
                        assert all(c is None for c, u in zip(grid.cards, grid.face_up, strict=True) if not u)


@pytest.mark.rule("1.2")
def test_from_flat_unusual_arguments_keep_their_behaviour() -> None:
    class Sub(ar.Grid):
        pass

    sub = Sub.from_flat(1, 2, (7, 8, 9, 10), up=0b0100, gone=0b1000, player=1)
    assert type(sub) is Sub and sub.cards == (9, None)
    assert ar.Grid.from_flat(1, 2, [7, 8, 9, 10], 0b0001, 0, 0, public=True).cards == (7, None)  # type: ignore[arg-type]
    assert ar.Grid.from_flat(1, 1, (7, 8), 0b10, 0, 1, public=True).cards == (8,)  # one space
    with pytest.raises(ValueError):
        ar.Grid.from_flat(1, 2, (7, 8, 9), 0, 0, 1)  # too few cards for seat 1
    with pytest.raises(ValueError):
        ar.Grid.from_flat(1, 2, (7, 8, 9, 10), 0, 0, -1)


@pytest.mark.parametrize("args", [
    (None, None, None, None, None, 0),
    (-1, -1, -1, -1, -1, -1),
    (2**70, 2**70, (1,), 0, 0, 2**70),  # refused at once: no grid of 2**140 spaces is built
    (1, 2, (7, 8, 9, 10), "x", 0, 1),
    (1, 2, (7, 8, 9, 10), 0, -1, 1),
    (1, 2, "7890", 0, 0, 0),
    (1, 2, (7, 8, 9, 10), 0, 0, True),
])
def test_from_flat_refuses_arguments_that_name_no_grid(args: tuple[object, ...]) -> None:
    with pytest.raises(ar.ArgumentError) as refused:
        ar.Grid.from_flat(*args)  # type: ignore[arg-type]
    assert refused.value.code == "invalid_argument"


def test_fast_snapshots_are_frozen_grids_and_their_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grid_module, "_PARTS_LIMIT", 3)
    geometry = Geometry.of(2, 2)
    geometry._parts_of.clear()  # a cache: other tests' entries may be in it
    cards = tuple(range(8))
    seen = []
    for up in range(16):
        grid = ar.Grid.from_flat(2, 2, cards, up << 4, 0, 1, public=True)
        assert type(grid) is ar.Grid and grid == _plain_from_flat(2, 2, cards, up << 4, 0, 1, True)
        assert len(geometry._parts_of) <= 3
        seen.append(grid)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        seen[0].cards = (1, 2, 3, 4)  # type: ignore[misc]
    assert hash(seen[5]) == hash(_plain_from_flat(2, 2, cards, 5 << 4, 0, 1, True))


def test_frozen_objects_are_built_by_a_class_swap_only_in_fast_constructor() -> None:
    import ast
    from pathlib import Path

    package = Path(grid_module.__file__).parent
    swaps = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            swaps += [f"{path.name}:{node.lineno}" for target in targets
                      if isinstance(target, ast.Attribute) and target.attr == "__class__"]
            if isinstance(node, ast.Constant) and ".__class__ = " in str(node.value):
                swaps.append(f"{path.name}:{node.lineno} (generated)")
    assert len(swaps) == 1 and swaps[0].startswith("_grid.py:") and swaps[0].endswith("(generated)"), swaps
    build = grid_module.fast_constructor(ar.Grid)
    built = build(2, 1, (4, None), (True, False), (False, True))
    assert type(built) is ar.Grid and built == ar.Grid(2, 1, (4, None), (True, False), (False, True))
