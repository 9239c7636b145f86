"""abyss-rules: the reference rules engine for the card game *Abyss*.

Immutable state, pure functions: `new_game` deals a game, `legal_actions` lists what may be
played now, and `apply` returns the state after an action, leaving its input untouched.

The package itself exports the game (the functions above, the state, the views, the actions,
the variants, records and events), every error class, and the JSON text of states, views,
actions, variants and events (`__all__` lists them). Everything else is imported from its
module: `abyss_rules.bots`, `abyss_rules.simulation`, `abyss_rules.pictures`,
`abyss_rules.protocol` (checking a client's message), `abyss_rules.codec` (documents as dicts),
`abyss_rules.documents` (their `TypedDict`s), `abyss_rules.notation`, `abyss_rules.sampling` and
the others.

The docstrings cite the rules they implement by id ("rule 4.1"): the ids of the rules
specification, the Rules page of the documentation site.

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

# (No `from __future__ import annotations`: it would leave a public name, `annotations`, here.)
from ._event_types import Event
from ._grid import Grid
from ._versions import FORMAT_VERSION, RULES_VERSION, __version__
from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .codec import (
    dumps_action,
    dumps_events,
    dumps_state,
    dumps_variant,
    dumps_view,
    loads_action,
    loads_state,
    loads_variant,
    loads_view,
)
from .config import Opener, Variant
from .errors import (
    AbyssError,
    ActionIndexError,
    ArgumentError,
    BatchStepError,
    BotError,
    Code,
    ConfigError,
    DecodeError,
    IllegalActionError,
    InvalidStateError,
    MalformedActionError,
    PictureError,
    ReplayError,
    SamplingError,
    SeatError,
    SeedError,
    SimulationError,
)
from .records import Record
from .rules._dealing import new_game
from .rules._engine import apply, apply_with_events, check
from .rules._legal import legal_actions
from .state import Dealer, Phase, RoundResult, State
from .views import View, view

# The names of the package itself, by what they are for (docs/architecture.md says why these).
__all__ = [  # the game
    "Action",
    "Dealer",
    "DiscardDrawn",
    "Draw",
    "Event",
    "Flip",
    "Grid",
    "Opener",
    "Phase",
    "PlaceDrawn",
    "Record",
    "RoundResult",
    "State",
    "TakeDiscard",
    "Variant",
    "View",
    "apply",
    "apply_with_events",
    "check",
    "legal_actions",
    "new_game",
    "view",
]
__all__ += [  # the errors
    "AbyssError",
    "ActionIndexError",
    "ArgumentError",
    "BatchStepError",
    "BotError",
    "Code",
    "ConfigError",
    "DecodeError",
    "IllegalActionError",
    "InvalidStateError",
    "MalformedActionError",
    "PictureError",
    "ReplayError",
    "SamplingError",
    "SeatError",
    "SeedError",
    "SimulationError",
]
__all__ += [  # the JSON of states, views, actions, variants and events
    "FORMAT_VERSION",
    "RULES_VERSION",
    "__version__",
    "dumps_action",
    "dumps_events",
    "dumps_state",
    "dumps_variant",
    "dumps_view",
    "loads_action",
    "loads_state",
    "loads_variant",
    "loads_view",
]
