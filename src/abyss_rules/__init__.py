"""abyss-rules: the reference rules engine for the card game *Abyss*.

Immutable state, pure functions: [`new_game`][abyss_rules.new_game] deals a game,
[`legal_actions`][abyss_rules.legal_actions] lists what may be played now, and
[`apply`][abyss_rules.apply] returns the state after an action, leaving its input
untouched. Every name listed in `__all__` is importable from `abyss_rules` itself.

The spec rules each function implements are cited by id in its docstring
(see `spec/rules.md`, the rules page of the documentation).

Examples:
    A whole 3-player game of the standard variant, with random choices:

    >>> import random
    >>> import abyss_rules as ar
    >>> rng = random.Random(0)                     # the bot's choices, not the game's
    >>> state = ar.new_game(players=3, variant=ar.Variant.standard(), seed=42)
    >>> while not state.is_over:
    ...     state = ar.apply(state, rng.choice(ar.legal_actions(state)))
    >>> state.totals, state.winners
    ((56, 140, 40), (2,))
"""

from __future__ import annotations

from .actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .cards import STANDARD_DECK
from .config import Opener, Variant
from .errors import (
    RULE_OF_CODE,
    AbyssError,
    Code,
    ConfigError,
    IllegalActionError,
    MalformedActionError,
    SeedError,
)
from .grid import Grid
from .rules.dealing import new_game
from .rules.engine import apply, check
from .rules.legal import legal_actions
from .simulation import GameResult, SimulationResult, play_game, simulate
from .state import Dealer, Phase, RoundResult, State
from .views import View, view

__version__ = "0.1.0"
"""The version of the abyss-rules library."""
RULES_VERSION = "1.0.0"
"""The version of `spec/rules.md` (its `rules_version` line) this engine implements."""

__all__ = [
    "ACTION_TYPES",
    "RULES_VERSION",
    "RULE_OF_CODE",
    "STANDARD_DECK",
    "AbyssError",
    "Action",
    "Code",
    "ConfigError",
    "Dealer",
    "DiscardDrawn",
    "Draw",
    "Flip",
    "GameResult",
    "Grid",
    "IllegalActionError",
    "MalformedActionError",
    "Opener",
    "Phase",
    "PlaceDrawn",
    "RoundResult",
    "SeedError",
    "SimulationResult",
    "State",
    "TakeDiscard",
    "Variant",
    "View",
    "__version__",
    "apply",
    "check",
    "legal_actions",
    "new_game",
    "play_game",
    "simulate",
    "view",
]
