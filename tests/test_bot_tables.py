"""The bots' tables (abyss_rules.bots._tables): a grid's reading through its kept masks is the
reading computed the long way, for the engine's grids and for odd hand-built ones."""

from __future__ import annotations

import random

import attrs
import pytest
from tests.builders import mixed_games

import abyss_rules as ar
from abyss_rules.bots import _tables as bot_tables

STD = ar.Variant.standard()


def _grids(variant: ar.Variant, games: int, seed: int) -> list[ar.Grid]:
    """Every grid of the views of some games between a random and a greedy player, and each
    mover's full grid (face-down values included, as only a state holds them)."""
    out = []
    for state, v in mixed_games(variant, games, seed):
        out.extend(v.grids)
        out.append(state.grid(v.viewer))  # type: ignore[arg-type]
    return out


def _long_way(grid: ar.Grid, tables: bot_tables.Tables) -> tuple[object, ...]:
    """What `GridInfo` reads of `grid`, from its face-up values alone (rule 8.2), space by space."""
    cols = tables.cols
    shown = tuple(c if up else None for c, up in zip(grid.cards, grid.face_up, strict=True))
    gone = True in grid.swallowed
    shapes = tuple(None if gone and grid.swallowed[c] else tables.shape(shown[c::cols]) for c in range(cols))
    remaining = tuple(s for s in tables.spaces if shapes[s % cols] is not None)
    down = tuple(s for s in remaining if shown[s] is None)
    flip = bot_tables.flip_space(shapes, [divmod(s, cols) for s in down]) if down else None
    return shown, shapes, sum(s.hidden for s in shapes if s is not None), remaining, down, flip


def _read(grid: ar.Grid, tables: bot_tables.Tables) -> tuple[object, ...]:
    info = bot_tables.GridInfo(grid, tables)
    flip = info.flip() if info.hidden else None
    return info.shown, info.shapes, info.hidden, info.remaining, info.down(), flip


def _odd(grid: ar.Grid, rng: random.Random) -> ar.Grid:
    """`grid` made odd as a hand-built view's may be: face-up flags as ints, a face-up space
    showing None, a swallowed flag off the top row, a face-down value shown."""
    kind = rng.randrange(4)
    if kind == 0:
        return attrs.evolve(grid, face_up=tuple(int(u) for u in grid.face_up))
    s = rng.randrange(len(grid.cards))
    if kind == 1:
        return attrs.evolve(grid, face_up=grid.face_up[:s] + (True,) + grid.face_up[s + 1:])
    if kind == 2:
        return attrs.evolve(grid, swallowed=grid.swallowed[:s] + (True,) + grid.swallowed[s + 1:])
    return attrs.evolve(grid, cards=grid.cards[:s] + (7,) + grid.cards[s + 1:])


@pytest.mark.parametrize("variant", [STD, STD.replace(rows=2, cols=3), STD.replace(rows=4, cols=1)],
                         ids=["standard", "2x3", "one-column"])
def test_a_grids_reading_through_its_masks_is_the_long_ways(variant: ar.Variant) -> None:
    tables = bot_tables.tables_of(variant)
    rng = random.Random(4)
    grids = _grids(variant, 3, 5)
    swallowed = masked = 0
    for grid in grids + [_odd(g, rng) for g in grids[::3]]:
        assert _read(grid, tables) == _long_way(grid, tables)
        swallowed += True in grid.swallowed
        masked += grid.cards != grid.visible
    assert swallowed > 20 and masked > 100


def test_the_masks_memo_never_gives_a_grid_the_masks_of_others() -> None:
    """Masks are kept by the face-up mask's identity: an entry kept under that id for other
    masks (as after those are gone and the id is reused) is never used, and the memos are bounded."""
    tables = bot_tables.tables_of(STD)
    grids = _grids(STD, 2, 6)
    first = next(g for g in grids if g.cards == g.visible and True in g.face_up)
    other = next(g for g in grids if g.face_up != first.face_up and g.swallowed != first.swallowed)
    wrong = tables.masks(other.face_up, other.swallowed)
    assert wrong is not None and wrong is not tables.masks(first.face_up, first.swallowed)
    for kept in [(other.face_up, other.swallowed, wrong), (first.face_up, other.swallowed, wrong)]:
        tables._masks[id(first.face_up)] = kept
        assert _read(first, tables) == _long_way(first, tables)
    tables._masks.pop(id(first.face_up))
    assert _read(first, tables) == _long_way(first, tables)
    for grid in grids:
        assert _read(grid, tables) == _long_way(grid, tables)
    assert len(tables._masks) <= bot_tables.RECENT and len(tables._mask_kinds) <= bot_tables.RECENT
