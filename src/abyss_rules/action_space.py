"""Action indices: a fixed integer for every action of a grid shape (spec section 11).

`ActionSpace` numbers the actions of a variant without their seat, in the layout of rule 11.1
(layout version `ACTION_LAYOUT_VERSION`). With `cells = rows * cols` spaces per grid and
space index `s = row * cols + col`:

| indices | action |
|---|---|
| `0 .. cells-1` | `Flip` on space `s` |
| `cells .. 2*cells-1` | `TakeDiscard` onto space `s` |
| `2*cells` | `Draw` |
| `2*cells+1 .. 3*cells` | `PlaceDrawn` onto space `s` |
| `3*cells+1 .. 4*cells` | `DiscardDrawn`, flipping space `s` |

so `size = 4 * cells + 1`: 49 for the standard 3 x 4 grid. Bots, neural networks, other
languages and the batch engine (`abyss_rules.batch`) share it.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.action_space import ActionSpace
    >>> space = ActionSpace(ar.Variant.standard())
    >>> space.size, space.index(ar.Flip(1, 1, 2)), space.index(ar.Draw(0))
    (49, 6, 24)
    >>> space.action(36, player=1)
    PlaceDrawn(player=1, row=2, col=3)
    >>> state = ar.new_game(players=2, seed=42)
    >>> space.mask(state, 0)[:13]            # the opening: seat 0 may flip any of its 12 cards
    (True, True, True, True, True, True, True, True, True, True, True, True, False)
"""

from __future__ import annotations

from typing import Final

from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .config import Variant
from .errors import ActionIndexError, Code, InvalidStateError, MalformedActionError
from .rules._legal import legal_actions
from .state import State

__all__ = ["ACTION_LAYOUT_VERSION", "ActionSpace"]

ACTION_LAYOUT_VERSION: Final = 1
"""The version of the layout of rule 11.1 that `ActionSpace` implements (rule 11.4). It changes
only if the layout does; a model trained on indices records it."""

class ActionSpace:
    """The action indices of a variant's grid shape (spec section 11).

    Indices do not include the seat: `index(Flip(0, 1, 2)) == index(Flip(3, 1, 2))`; the
    seat is given back by `action`. Two spaces are equal when they number the same
    actions: same grid shape and same largest seat.

    Args:
        variant: The rules in play, or a preset's name; only its `rows`, `cols` and
            `max_players` matter.

    Raises:
        ConfigError: `invalid_variant` when `variant` is neither a `Variant` nor a preset's name.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.action_space import ActionSpace
        >>> space = ActionSpace(ar.Variant(rows=2, cols=2))
        >>> space
        ActionSpace(rows=2, cols=2, size=17, layout=1)
        >>> space.flip, space.take_discard, space.draw, space.place_drawn, space.discard_drawn
        (0, 4, 8, 9, 13)
        >>> [space.index(a) for a in space.actions(player=0)] == list(range(space.size))
        True
    """

    __slots__ = ("variant", "rows", "cols", "cells", "size", "flip", "take_discard", "draw",
                 "place_drawn", "discard_drawn", "_offsets", "_actions")

    variant: Variant
    """The variant the space was made for."""
    rows: int
    """Rows of a grid."""
    cols: int
    """Columns of a grid."""
    cells: int
    """Spaces of a grid: `rows * cols`."""
    size: int
    """The number of indices: `4 * cells + 1` (rule 11.1)."""
    flip: int
    """The index of `Flip` on space 0 (always 0)."""
    take_discard: int
    """The index of `TakeDiscard` onto space 0: `cells`."""
    draw: int
    """The index of `Draw`: `2 * cells`."""
    place_drawn: int
    """The index of `PlaceDrawn` onto space 0: `2 * cells + 1`."""
    discard_drawn: int
    """The index of `DiscardDrawn` on space 0: `3 * cells + 1`."""

    def __init__(self, variant: Variant | str) -> None:
        variant = Variant.resolve(variant)
        cells = variant.cells
        self.variant = variant
        self.rows, self.cols, self.cells = variant.rows, variant.cols, cells
        self.size = 4 * cells + 1
        self.flip, self.take_discard, self.draw = 0, cells, 2 * cells
        self.place_drawn, self.discard_drawn = 2 * cells + 1, 3 * cells + 1
        self._offsets: dict[type, int] = {
            Flip: 0, TakeDiscard: cells, PlaceDrawn: 2 * cells + 1, DiscardDrawn: 3 * cells + 1,
        }
        self._actions: dict[int, tuple[Action, ...]] = {}

    def __repr__(self) -> str:
        return (f"ActionSpace(rows={self.rows}, cols={self.cols}, size={self.size}, "
                f"layout={ACTION_LAYOUT_VERSION})")

    def _key(self) -> tuple[int, int, int]:
        return (self.rows, self.cols, self.variant.max_players)

    def __eq__(self, other: object) -> bool:
        if type(other) is not ActionSpace:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # -- actions -> indices ------------------------------------------------------

    def index(self, action: Action) -> int:
        """The index of `action` (rule 11.1); its seat is not part of it.

        Raises:
            MalformedActionError: `action` is not one of the five actions (`malformed_action`).
            ActionIndexError: its seat is not one the variant allows (`no_such_player`), or its
                space is not on the grid (`no_such_space`): such an action has no index (rule 11.2).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.action_space import ActionSpace
            >>> space = ActionSpace(ar.Variant.standard())
            >>> space.index(ar.TakeDiscard(0, 0, 0)), space.index(ar.DiscardDrawn(5, 2, 3))
            (12, 48)
            >>> space.index(ar.Flip(0, 3, 0))
            Traceback (most recent call last):
            ...
            abyss_rules.errors.ActionIndexError: [no_such_space] Flip(player=0, row=3, col=0) names space ...
        """
        kind = type(action)
        if kind is Draw:
            self._check_seat(action.player)
            return self.draw
        offset = self._offsets.get(kind)
        if offset is None:
            raise MalformedActionError(
                f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), got {kind.__name__}"
            )
        assert not isinstance(action, Draw)
        self._check_seat(action.player)
        row, col = action.row, action.col
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ActionIndexError(
                Code.NO_SUCH_SPACE,
                f"{action!r} names space ({row}, {col}), which is not on a {self.rows} x {self.cols} grid: "
                "it has no index",
            )
        return offset + row * self.cols + col

    # -- indices -> actions ------------------------------------------------------

    def action(self, index: int, player: int) -> Action:
        """The action of `index` for seat `player` (rule 11.2).

        Only the index is judged here, after the form of both arguments (spec section 3,
        "Rejecting an action", check 1): the action it names, seat included, is judged by
        `apply` like any other, so a seat no game of the variant has gives an action that
        `apply` refuses in its turn (`game_over` first once the game is over, then
        `no_such_player`).

        Raises:
            MalformedActionError: `index` or `player` is not an int (`malformed_action`).
            ActionIndexError: `index` is not in `[0, size)` (`no_such_action_index`).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.action_space import ActionSpace
            >>> space = ActionSpace(ar.Variant.standard())
            >>> space.action(24, player=3), space.action(37, player=0)
            (Draw(player=3), DiscardDrawn(player=0, row=0, col=0))
            >>> space.action(6, player=20)
            Flip(player=20, row=1, col=2)
            >>> space.action(49, player=0)
            Traceback (most recent call last):
            ...
            abyss_rules.errors.ActionIndexError: [no_such_action_index] action index 49 is not in [0, 49) ...
        """
        if type(index) is not int:
            raise MalformedActionError(f"an action index must be an int, got {index!r}")
        if type(player) is not int:
            raise MalformedActionError(f"a seat must be an int, got {player!r}")
        if not 0 <= index < self.size:
            raise ActionIndexError(
                Code.NO_SUCH_ACTION_INDEX,
                f"action index {index} is not in [0, {self.size}) for {self.rows} x {self.cols} grids",
            )
        if 0 <= player < self.variant.max_players:
            return self.actions(player)[index]
        return self._build(player)[index]  # a seat no game of the variant has: not kept

    def actions(self, player: int) -> tuple[Action, ...]:
        """Every action of seat `player`, in index order: `actions(p)[k]` is `action(k, p)`.

        The tuple is built once per seat and shared.

        Raises:
            MalformedActionError: `player` is not an int.
            ActionIndexError: `player` is not a seat the variant allows (`no_such_player`).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.action_space import ActionSpace
            >>> ActionSpace(ar.Variant(rows=2, cols=1, initial_flips=1)).actions(player=1)[:3]
            (Flip(player=1, row=0, col=0), Flip(player=1, row=1, col=0), TakeDiscard(player=1, row=0, col=0))
        """
        found = self._actions.get(player) if type(player) is int else None
        if found is None:
            self._check_seat(player)
            found = self._actions[player] = self._build(player)
        return found

    def _build(self, player: int) -> tuple[Action, ...]:
        """Every action of seat `player`, in index order (not kept)."""
        positions = self.variant.geometry.positions
        return (
            tuple(Flip(player, r, c) for r, c in positions)
            + tuple(TakeDiscard(player, r, c) for r, c in positions)
            + (Draw(player),)
            + tuple(PlaceDrawn(player, r, c) for r, c in positions)
            + tuple(DiscardDrawn(player, r, c) for r, c in positions)
        )

    def _check_seat(self, player: object) -> None:
        if type(player) is not int:
            raise MalformedActionError(f"a seat must be an int, got {player!r}")
        if not 0 <= player < self.variant.max_players:
            raise ActionIndexError(
                Code.NO_SUCH_PLAYER,
                f"there is no seat {player} in this variant (seats 0 to {self.variant.max_players - 1})",
            )

    # -- states -> masks ---------------------------------------------------------

    def mask(self, state: State, player: int) -> tuple[bool, ...]:
        """Which indices are legal for seat `player` now (rule 11.3).

        `mask(state, p)[k]` is true exactly when `action(k, p)` is one of
        `legal_actions(state)`. A seat that may not act has no legal
        index (all false); once the game is over no seat has one.

        Raises:
            InvalidStateError: `state` is not a `State`, or its grids are not of this
                space's shape (`invalid_state`).
            MalformedActionError: `player` is not an int (`malformed_action`).
            ActionIndexError: `player` is not a seat of the game (`no_such_player`).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.action_space import ActionSpace
            >>> space = ActionSpace(ar.Variant.standard())
            >>> state = ar.new_game(players=2, seed=42)
            >>> sum(space.mask(state, 1)), sum(space.mask(state, 0))
            (12, 12)
        """
        if type(state) is not State:
            raise InvalidStateError(Code.INVALID_STATE, f"mask needs a State, got {type(state).__name__}")
        v = state.variant
        if v.rows != self.rows or v.cols != self.cols:
            raise InvalidStateError(
                Code.INVALID_STATE, f"this ActionSpace numbers {self.rows} x {self.cols} grids; the state's "
                                    f"are {v.rows} x {v.cols}")
        if type(player) is not int:
            raise MalformedActionError(f"a seat must be an int, got {player!r}")
        if not 0 <= player < len(state.totals):
            raise ActionIndexError(
                Code.NO_SUCH_PLAYER, f"there is no seat {player} in a {len(state.totals)}-player game")
        out = [False] * self.size
        offsets = self._offsets
        cols = self.cols
        for a in legal_actions(state):
            if a.player == player:
                if type(a) is Draw:
                    out[self.draw] = True
                else:
                    assert not isinstance(a, Draw)
                    out[offsets[type(a)] + a.row * cols + a.col] = True
        return tuple(out)

    def legal_indices(self, state: State, player: int) -> tuple[int, ...]:
        """The legal indices of seat `player` now, ascending: the true entries of
        `mask`.

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.action_space import ActionSpace
            >>> space = ActionSpace(ar.Variant.standard())
            >>> state = ar.new_game(players=2, variant=ar.Variant(initial_flips=0), seed=42)
            >>> state.turn, space.legal_indices(state, state.turn)[:3], len(space.legal_indices(state, 1))
            (0, (0, 1, 2), 0)
        """
        return tuple(k for k, legal in enumerate(self.mask(state, player)) if legal)
