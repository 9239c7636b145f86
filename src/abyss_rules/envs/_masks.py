"""Action masks: the legal indices of a decision as a NumPy vector.

`LegalMasks` turns a tuple of legal actions -- a view's `legal_actions`, that is
`legal_actions` of the viewer -- into the vector of `ActionSpace` indices the environments
return: 1 on the index of each action, 0 elsewhere. Where no decision is left (the game is
over), the Gymnasium environments' mask is all 1 instead (`legal_or_all`, Pgx's convention): a
masked softmax never meets an empty mask.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.action_space import ActionSpace
    >>> from abyss_rules.envs._masks import LegalMasks
    >>> masks = LegalMasks(ActionSpace(ar.Variant.standard()))
    >>> state = ar.new_game(players=2, seed=42)
    >>> mask = masks.of(ar.view(state, 1).legal_actions)
    >>> mask.dtype, int(mask.sum()), mask.tolist() == [int(b) for b in masks.space.mask(state, 1)]
    (dtype('int8'), 12, True)
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..action_space import ActionSpace
from ..actions import Action
from ..caches import BoundedCache

__all__ = ["LegalMasks", "Mask", "legal_or_all"]

Mask = npt.NDArray[np.int8]

_MEMO_LIMIT: Final = 1024
"""Action indices remembered per `LegalMasks` before its memo is emptied."""

_MASKS: Final = BoundedCache[int, tuple[tuple[Action, ...], tuple[int, int], Mask]](
    "envs.masks", max_entries=32768, max_size=32768)
"""The masks of the engine's legal-action tuples, by the tuple's identity, shared by every
`LegalMasks` of the process (an entry: the tuple, the grid shape its indices are for, the
read-only mask). About 300 bytes an entry: 10 MB at most."""


class LegalMasks:
    """The masks of one `ActionSpace`.

    The engine keeps its legal-action tuples and hands out the same tuple for the same
    situation, so the masks are remembered by the tuple's identity, in one bounded cache for
    the whole process (`envs._masks`, emptied by `abyss_rules.caches.clear_caches`); and the
    engine builds those tuples from one set of action objects per grid shape, so each action's
    index is remembered by the action's identity too. Each entry holds its object, so that an
    identity cannot be reused while it is remembered.

    Args:
        space: The indices.
    """

    __slots__ = ("space", "_shape", "_index", "_held", "_all")

    def __init__(self, space: ActionSpace) -> None:
        self.space = space
        self._shape = (space.rows, space.cols)  # what an action's index depends on
        self._index: dict[int, int] = {}  # id(action) -> its index
        self._held: list[Action] = []     # the actions of `_index`, kept alive
        self._all = np.ones(space.size, dtype=np.int8)
        self._all.flags.writeable = False

    def everything(self) -> Mask:
        """The mask with every index set (read-only): where no decision is left."""
        return self._all

    def of(self, actions: tuple[Action, ...]) -> Mask:
        """An `int8` vector of `space.size` (a new array): 1 on the index of each of `actions`."""
        return self.shared(actions).copy()

    def shared(self, actions: tuple[Action, ...]) -> Mask:
        """`of(actions)`, but the remembered array itself, read-only (one copy less, for a caller
        that keeps it without handing it out)."""
        found = _MASKS.get(id(actions))
        if found is None or found[0] is not actions or found[1] != self._shape:
            mask = np.zeros(self.space.size, dtype=np.int8)
            try:
                indices = list(map(self._index.__getitem__, map(id, actions)))
            except KeyError:
                indices = [self._index_of(a) for a in actions]
            mask[indices] = 1
            mask.flags.writeable = False
            found = _MASKS.put(id(actions), (actions, self._shape, mask))
        return found[2]

    def _index_of(self, action: Action) -> int:
        index = self._index.get(id(action))
        if index is None:
            index = self.space.index(action)
            if len(self._held) >= _MEMO_LIMIT:
                self._index.clear()
                self._held.clear()
            self._index[id(action)] = index
            self._held.append(action)
        return index

    def __getstate__(self) -> dict[str, Any]:
        return {"space": self.space}  # the index memo is rebuilt empty

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["space"])  # type: ignore[misc]


def legal_or_all(masks: LegalMasks, actions: tuple[Action, ...]) -> Mask:
    """`masks.shared(actions)`, or every index where there is no legal action (the game is over)."""
    return masks.shared(actions) if actions else masks.everything()

