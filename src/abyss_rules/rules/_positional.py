"""The one place a `State` is built by position, and the order the rules read it in.

A state is a tuple underneath (see `abyss_rules.state`). On every action the rules build the
next one with `new_state` (`tuple.__new__`, skipping the keywords of `State(...)`), and read a
state by unpacking it whole, in `ORDER`, into local names -- `v, phase, _, turn, cards, up,
gone, ... = s` -- one bytecode instead of a look-up per field. Only the modules of `rules/`
import this (it is private to the package), and only they unpack a state: each unpacking names
the fields as `SHORT_NAMES` allows (or `_`), which `tests/test_layering.py` checks. Everywhere
else a state is read by field name and built with keywords, so that mypy and a reader can tell
its 17 fields apart.

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=42)
    >>> new_state(tuple(state)) == state, type(new_state(tuple(state))) is ar.State
    (True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from ..state import State

__all__ = ["ORDER", "SHORT_NAMES", "new_state"]

ORDER: Final = ("variant", "phase", "round", "turn", "cards", "face_up_mask", "swallowed_mask", "draw_pile",
                "discard_pile", "drawn", "closer", "opening", "turns", "totals", "history", "dealer", "seq")
"""The fields of a `State` in their order: the order of the values `new_state` takes and of the
names a state unpacks into."""
if State._fields != ORDER:  # (checked on import: every builder and unpacking relies on it)
    raise ImportError(f"State's fields changed: {State._fields}; update rules/_positional.py")

SHORT_NAMES: Final[dict[str, frozenset[str]]] = {
    "variant": frozenset({"v", "variant"}), "phase": frozenset({"phase"}), "round": frozenset({"rnd"}),
    "turn": frozenset({"turn", "p"}), "cards": frozenset({"cards"}), "face_up_mask": frozenset({"up"}),
    "swallowed_mask": frozenset({"gone"}), "draw_pile": frozenset({"pile"}),
    "discard_pile": frozenset({"discard"}), "drawn": frozenset({"drawn"}), "closer": frozenset({"closer"}),
    "opening": frozenset({"opening"}), "turns": frozenset({"turns"}), "totals": frozenset({"totals"}),
    "history": frozenset({"history"}), "dealer": frozenset({"dealer"}), "seq": frozenset({"seq"}),
}
"""The local names a field may take when the rules unpack a state (besides `_`)."""

new_state: Final[Callable[[tuple[Any, ...]], State]] = partial(tuple.__new__, State)
"""`new_state(values)`: the `State` of the 17 `values`, in `ORDER`, without checks."""
