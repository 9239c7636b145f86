"""abyss-rules: the reference rules engine for the card game *Abyss*.

Immutable state, pure functions: `new_game` deals a game, `legal_actions` lists what may be
played now, and `apply` returns the state after an action, leaving its input untouched. Every
name listed in `__all__` is importable from `abyss_rules` itself.

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

from __future__ import annotations

from .action_space import ACTION_LAYOUT_VERSION, ActionSpace
from .actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .cards import STANDARD_DECK
from .codec import (
    DecodeError,
    action_from_dict,
    action_to_dict,
    canonical_json,
    dumps_action,
    dumps_state,
    dumps_variant,
    dumps_view,
    loads_action,
    loads_state,
    loads_variant,
    loads_view,
    parse_json,
    state_from_dict,
    state_hash,
    state_to_dict,
    variant_from_dict,
    variant_to_dict,
    view_from_dict,
    view_to_dict,
)
from .config import Opener, Variant
from .documents import (
    ActionBody,
    ActionDocument,
    CardDiscardedDict,
    CardDrawnDict,
    CardPlacedDict,
    CardRevealedDict,
    ColumnSwallowedDict,
    DealerDict,
    DrawActionBody,
    DrawActionDocument,
    EventDict,
    EventsDocument,
    FinalRevealDict,
    GameOverDict,
    GridDict,
    NewRoundDict,
    OpeningDoneDict,
    RecordDocument,
    ReshuffledDict,
    RoundClosedDict,
    RoundResultDict,
    RoundScoredDict,
    SpaceActionBody,
    SpaceActionDocument,
    SpaceDict,
    StateDocument,
    VariantDict,
    VariantDocument,
    VerdictDocument,
    ViewDocument,
)
from .errors import (
    RULE_OF_CODE,
    AbyssError,
    ActionIndexError,
    BatchStepError,
    Code,
    ConfigError,
    IllegalActionError,
    MalformedActionError,
    SamplingError,
    SeedError,
)
from .events import Event, apply_with_events, dumps_events, events_to_dict
from .grid import Grid
from .json_schemas import SCHEMAS, schema
from .notation import parse_notation, to_notation
from .pictures import PictureError, replay_html, to_svg
from .protocol import (
    HTTP_STATUS,
    Accepted,
    Judgement,
    Message,
    Verdict,
    action_documents,
    http_status,
    judge,
    read_action,
    read_message,
    submit,
    validate,
)
from .public_table import PublicTable, apply_events
from .records import Record, ReplayError
from .rules.dealing import new_game
from .rules.engine import apply, check
from .rules.legal import legal_actions
from .sampling import StateSampler, sample_states
from .simulation import GameResult, SimulationResult, play_game, simulate
from .state import Dealer, Phase, RoundResult, State
from .versions import FORMAT_VERSION, RULES_VERSION, __version__
from .views import View, view

__all__ = [
    "ACTION_LAYOUT_VERSION",
    "ACTION_TYPES",
    "FORMAT_VERSION",
    "HTTP_STATUS",
    "RULES_VERSION",
    "RULE_OF_CODE",
    "SCHEMAS",
    "STANDARD_DECK",
    "AbyssError",
    "Accepted",
    "Action",
    "ActionBody",
    "ActionDocument",
    "ActionIndexError",
    "ActionSpace",
    "BatchStepError",
    "CardDiscardedDict",
    "CardDrawnDict",
    "CardPlacedDict",
    "CardRevealedDict",
    "Code",
    "ColumnSwallowedDict",
    "ConfigError",
    "Dealer",
    "DealerDict",
    "DecodeError",
    "DiscardDrawn",
    "Draw",
    "DrawActionBody",
    "DrawActionDocument",
    "Event",
    "EventDict",
    "EventsDocument",
    "FinalRevealDict",
    "Flip",
    "GameOverDict",
    "GameResult",
    "Grid",
    "GridDict",
    "IllegalActionError",
    "Judgement",
    "MalformedActionError",
    "Message",
    "NewRoundDict",
    "Opener",
    "OpeningDoneDict",
    "Phase",
    "PictureError",
    "PlaceDrawn",
    "PublicTable",
    "Record",
    "RecordDocument",
    "ReplayError",
    "ReshuffledDict",
    "RoundClosedDict",
    "RoundResult",
    "RoundResultDict",
    "RoundScoredDict",
    "SamplingError",
    "SeedError",
    "SimulationResult",
    "SpaceActionBody",
    "SpaceActionDocument",
    "SpaceDict",
    "State",
    "StateDocument",
    "StateSampler",
    "TakeDiscard",
    "Variant",
    "VariantDict",
    "VariantDocument",
    "Verdict",
    "VerdictDocument",
    "View",
    "ViewDocument",
    "__version__",
    "action_documents",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "apply_events",
    "apply_with_events",
    "canonical_json",
    "check",
    "dumps_action",
    "dumps_events",
    "dumps_state",
    "dumps_variant",
    "dumps_view",
    "events_to_dict",
    "http_status",
    "judge",
    "legal_actions",
    "loads_action",
    "loads_state",
    "loads_variant",
    "loads_view",
    "new_game",
    "parse_json",
    "parse_notation",
    "play_game",
    "read_action",
    "read_message",
    "replay_html",
    "sample_states",
    "schema",
    "simulate",
    "state_from_dict",
    "state_hash",
    "state_to_dict",
    "submit",
    "to_notation",
    "to_svg",
    "validate",
    "variant_from_dict",
    "variant_to_dict",
    "view",
    "view_from_dict",
    "view_to_dict",
]
