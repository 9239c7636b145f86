"""Hypothesis strategies and an invariant checker, for testing code built on abyss-rules.

This module needs [Hypothesis](https://hypothesis.readthedocs.io/), an optional dependency:
install the `testing` extra (`pip install 'abyss-rules[testing]'`). Importing it without
Hypothesis raises an `ImportError` that says so; the engine itself never imports it.

| strategy | draws |
|---|---|
| `seeds()` | game seeds: ints in `[0, 2**256)` and 32-byte strings (rule 9.1) |
| `variants()` | the presets and generated valid variants (rules 10.1-10.3) |
| `games()` | a `Game`: a game played legally |
| `states()` | the last state of such a game |
| `legal_actions(state)` | one legal action of `state` |
| `actions(variant, players)` | any well-formed action, legal or not |

`check_invariants` raises `InvariantError` (an
`AssertionError`) naming the first invariant a state breaks.
For exhaustive checks, `action_space` lists every
well-formed action around a grid and `deck_orders` every
order of a small deck.

The package's private modules: `_strategies` (the Hypothesis strategies and `Game`),
`_invariants` (`check_invariants`) and `_exhaustive` (`action_space`, `deck_orders`); every name
is imported from `abyss_rules.testing`.

Examples:
    >>> from hypothesis import given, settings
    >>> import abyss_rules as ar
    >>> @settings(max_examples=10, deadline=None)
    ... @given(states())
    ... def test_any_reachable_state_is_sound(state):
    ...     check_invariants(state)
    ...     assert state.is_over or ar.legal_actions(state)
    >>> test_any_reachable_state_is_sound()
"""

from __future__ import annotations

from .._extras import require

require("hypothesis", name="Hypothesis", extra="testing", module="abyss_rules.testing")

from ._exhaustive import action_space, deck_orders  # noqa: E402 - after the check of the extra
from ._invariants import InvariantError, check_invariants  # noqa: E402
from ._strategies import (  # noqa: E402
    MAX_GAME_ACTIONS,
    Game,
    actions,
    games,
    legal_actions,
    seeds,
    states,
    variants,
)

__all__ = [
    "MAX_GAME_ACTIONS",
    "Game",
    "InvariantError",
    "action_space",
    "actions",
    "check_invariants",
    "deck_orders",
    "games",
    "legal_actions",
    "seeds",
    "states",
    "variants",
]
