"""`TypedDict`s of the JSON documents (see `docs/json.md`), which Pydantic and FastAPI check too.

Every document's `TypedDict` is here and only here, each event's too (`CardDrawnDict` is the
dict of `abyss_rules.events.CardDrawn`); the package itself exports none of them. The
`*_to_dict` functions of `abyss_rules.codec` (`state_to_dict`, `view_to_dict`,
`variant_to_dict`, `action_to_dict`, `events_to_dict`), `Record.to_dict` and
`abyss_rules.protocol.Verdict.to_dict` return plain dicts of these shapes, so a type checker
knows every key of a document and the type of its value.

Pydantic (and so FastAPI) validates a body or a response declared with a document type exactly as
the library reads that document (`abyss_rules._document_hooks`): it refuses what the library
refuses, converts nothing, and the OpenAPI schema it publishes is the document's JSON Schema
(`spec/schemas/`). Every other `TypedDict` here forbids a key it does not declare and converts no
value under Pydantic. The library itself never imports Pydantic:

    >>> import abyss_rules as ar
    >>> from abyss_rules.codec import view_to_dict
    >>> from abyss_rules.documents import ViewDocument
    >>> doc: ViewDocument = view_to_dict(ar.view(ar.new_game(players=2, seed=1), 0))
    >>> doc["draw_pile_size"]
    125

This module imports nothing of the engine (it sits below every other module, so that any
module may name these types, the classes below the codec too; the Pydantic hooks import the
library's readers only when Pydantic calls them); the keys
declared here are checked against the documents the codec writes and against the JSON
schemas of `spec/schemas/` by `tests/test_documents.py`, so the two cannot drift apart.
"""

# No `from __future__ import annotations`: Python 3.11 would then miss `NotRequired` in
# `__required_keys__`.
import sys
from typing import Annotated, Literal, NotRequired, TypeAlias

from ._document_hooks import Hooks

if sys.version_info >= (3, 12):
    from typing import TypedDict
else:
    # Pydantic (so FastAPI) reads a TypedDict only from typing_extensions before Python 3.12:
    # `typing.TypedDict` lacks what it needs there. A dependency on 3.11 only (pyproject.toml).
    from typing_extensions import TypedDict

__all__ = [
    "ActionBody",
    "ActionDocument",
    "CardDiscardedDict",
    "CardDrawnDict",
    "CardPlacedDict",
    "CardRevealedDict",
    "ColumnSwallowedDict",
    "DealerDict",
    "DrawActionBody",
    "DrawActionDocument",
    "EventDict",
    "EventsDocument",
    "FinalRevealDict",
    "GameOverDict",
    "GridDict",
    "NewRoundDict",
    "OpeningDoneDict",
    "RecordDocument",
    "ReshuffledDict",
    "RoundClosedDict",
    "RoundResultDict",
    "RoundScoredDict",
    "SpaceActionBody",
    "SpaceActionDocument",
    "SpaceDict",
    "StateDocument",
    "VariantDict",
    "VariantDocument",
    "VerdictDocument",
    "ViewDocument",
]

PhaseName: TypeAlias = Literal["opening", "turn", "drawn", "game_over"]
SpaceActionKind: TypeAlias = Literal["flip", "take_discard", "place_drawn", "discard_drawn"]


# -- variants (rule 10.1) --------------------------------------------------------------------

class VariantDict(TypedDict):
    """Every field of a variant (rule 10.1): the `variant` member of state, view and record documents."""

    name: str
    deck: list[list[int]]
    """`[value, count]` pairs."""
    rows: int
    cols: int
    min_players: int
    max_players: int
    initial_flips: int
    opener: Literal["highest_flips", "previous_closer"]
    flip_turn: bool
    swallow_on_final_reveal: bool
    reshuffle_keeps_top: bool
    closer_multiplier: int
    target_score: int | None
    max_rounds: int | None
    max_turns_per_round: int | None


class VariantDocument(VariantDict):
    """The `variant` document (`variant_to_dict`): the header and a variant."""

    format: Literal["variant"]
    format_version: int
    rules_version: str


# -- actions ---------------------------------------------------------------------------------

class SpaceActionBody(TypedDict):
    """An action that names a space (in `events` documents and a view's `legal_actions`)."""

    type: SpaceActionKind
    player: int
    row: int
    col: int


class DrawActionBody(TypedDict):
    """A `draw` action (in `events` documents and a view's `legal_actions`)."""

    type: Literal["draw"]
    player: int


ActionBody: TypeAlias = SpaceActionBody | DrawActionBody
"""An action object without the document header."""


class SpaceActionDocument(SpaceActionBody):
    """The `action` document of an action that names a space; `seq` only if it was given."""

    format: Literal["action"]
    format_version: int
    rules_version: str
    seq: NotRequired[int]
    request_id: NotRequired[str | int]


class DrawActionDocument(DrawActionBody):
    """The `action` document of a `draw`; `seq` only if it was given."""

    format: Literal["action"]
    format_version: int
    rules_version: str
    seq: NotRequired[int]
    request_id: NotRequired[str | int]


ActionDocument: TypeAlias = Annotated[SpaceActionDocument | DrawActionDocument,
                                      Hooks("action", "ActionDocument")]
"""The `action` document (`action_to_dict`): either shape, told apart by its `type`."""


# -- grids and round results -----------------------------------------------------------------

class SpaceDict(TypedDict):
    """One space of a grid; `card` is `None` face down in a view, and `None` once swallowed."""

    card: int | None
    face_up: bool
    swallowed: bool


GridDict: TypeAlias = list[SpaceDict]
"""A grid: its spaces in row-major order."""


class RoundResultDict(TypedDict):
    """A scored round (rule 6), an item of `history`."""

    round: int
    grids: list[GridDict]
    closer: int | None
    raw_scores: list[int]
    scores: list[int]
    penalized: bool
    capped: bool
    turns: int
    totals: list[int]


# -- states and views ------------------------------------------------------------------------

class DealerDict(TypedDict):
    """The dealer of a state: its seed (64 hex digits), position and deck orders (secret)."""

    seed: str
    position: int
    decks: list[list[int]]


class StateDocument(TypedDict):
    """The `state` document (`state_to_dict`); secret."""

    format: Literal["state"]
    format_version: int
    rules_version: str
    variant: VariantDict
    players: int
    phase: PhaseName
    round: int
    turn: int | None
    grids: list[GridDict]
    draw_pile: list[int]
    discard_pile: list[int]
    drawn: int | None
    closer: int | None
    opening: list[list[int]]
    turns: int
    totals: list[int]
    history: list[RoundResultDict]
    dealer: DealerDict
    seq: int


class ViewDocument(TypedDict):
    """The `view` document (`view_to_dict`); public, safe to send."""

    format: Literal["view"]
    format_version: int
    rules_version: str
    viewer: int | None
    variant: VariantDict
    players: int
    round: int
    phase: PhaseName
    turn: int | None
    opener: int | None
    grids: list[GridDict]
    opening: list[list[int]]
    owing_flips: list[int]
    discard_pile: list[int]
    draw_pile_size: int
    drawn: int | None
    closer: int | None
    turns: int
    totals: list[int]
    history: list[RoundResultDict]
    winners: list[int]
    seq: int
    legal_actions: list[ActionBody]


# -- records ---------------------------------------------------------------------------------

class RecordDocument(TypedDict):
    """The `record` document (`Record.to_dict`).

    `seed`, `decks` and `final_hash` are `None` in a redacted record (and `final_hash`
    while the game is unfinished). `names` is there only when the record names its players.
    """

    format: Literal["record"]
    format_version: int
    rules_version: str
    variant: VariantDict
    players: int
    seed: str | None
    decks: list[list[int]] | None
    actions: list[str]
    """The actions in compact notation."""
    final_hash: str | None
    names: NotRequired[list[str]]
    """Optional: a name per seat, e.g. the bots' (absent when the record names nobody)."""


# -- events ----------------------------------------------------------------------------------

class CardRevealedDict(TypedDict):
    """`abyss_rules.events.CardRevealed`."""

    type: Literal["card_revealed"]
    seat: int
    row: int
    col: int
    value: int
    cause: Literal["opening_flip", "flip", "discard_drawn"]


class CardDrawnDict(TypedDict):
    """`abyss_rules.events.CardDrawn`."""

    type: Literal["card_drawn"]
    seat: int
    value: int


class ReshuffledDict(TypedDict):
    """`abyss_rules.events.Reshuffled`."""

    type: Literal["reshuffled"]
    draw_pile_size: int
    top_discard: int


class CardPlacedDict(TypedDict):
    """`abyss_rules.events.CardPlaced`."""

    type: Literal["card_placed"]
    seat: int
    row: int
    col: int
    value: int
    source: Literal["discard", "drawn"]


class CardDiscardedDict(TypedDict):
    """`abyss_rules.events.CardDiscarded`."""

    type: Literal["card_discarded"]
    seat: int
    value: int
    source: Literal["replaced", "drawn"]
    row: int | None
    col: int | None
    was_face_down: bool


class ColumnSwallowedDict(TypedDict):
    """`abyss_rules.events.ColumnSwallowed`."""

    type: Literal["column_swallowed"]
    seat: int
    col: int
    value: int
    count: int
    final_reveal: bool


class OpeningDoneDict(TypedDict):
    """`abyss_rules.events.OpeningDone`."""

    type: Literal["opening_done"]
    opener: int


class RoundClosedDict(TypedDict):
    """`abyss_rules.events.RoundClosed`."""

    type: Literal["round_closed"]
    closer: int


class FinalRevealDict(TypedDict):
    """`abyss_rules.events.FinalReveal`: `cards` are `[seat, row, col, value]`."""

    type: Literal["final_reveal"]
    cards: list[list[int]]


class RoundScoredDict(TypedDict):
    """`abyss_rules.events.RoundScored`."""

    type: Literal["round_scored"]
    round: int
    raw_scores: list[int]
    scores: list[int]
    penalized: bool
    closer: int | None
    capped: bool
    totals: list[int]


class NewRoundDict(TypedDict):
    """`abyss_rules.events.NewRound`."""

    type: Literal["new_round"]
    round: int
    draw_pile_size: int
    top_discard: int


class GameOverDict(TypedDict):
    """`abyss_rules.events.GameOver`."""

    type: Literal["game_over"]
    winners: list[int]
    totals: list[int]


EventDict: TypeAlias = (CardRevealedDict | CardDrawnDict | ReshuffledDict | CardPlacedDict | CardDiscardedDict
                        | ColumnSwallowedDict | OpeningDoneDict | RoundClosedDict | FinalRevealDict
                        | RoundScoredDict | NewRoundDict | GameOverDict)
"""One event of an `events` document, told apart by its `type`."""


class EventsDocument(TypedDict):
    """The `events` document (`events_to_dict`); public."""

    format: Literal["events"]
    format_version: int
    rules_version: str
    action: ActionBody
    events: list[EventDict]
    seq: int


class VerdictDocument(TypedDict):
    """The `verdict` document (`Verdict.to_dict`); public."""

    format: Literal["verdict"]
    format_version: int
    rules_version: str
    legal: bool
    code: str | None
    rule: str | None
    message: str
    seq: int | None
    path: str | None
    request_id: NotRequired[str | int]
    action: NotRequired[ActionBody]


def _configure() -> None:
    """Pydantic's configuration of every `TypedDict` here (no key it does not declare, no value
    converted), and the hooks of the documents (`abyss_rules._document_hooks`)."""
    for value in list(globals().values()):
        if isinstance(value, type) and issubclass(value, dict) and value.__module__ == __name__:
            value.__pydantic_config__ = {"extra": "forbid", "strict": True}  # type: ignore[attr-defined]
    hooked: dict[type, Hooks] = {
        StateDocument: Hooks("state", "StateDocument"),
        ViewDocument: Hooks("view", "ViewDocument"),
        VariantDocument: Hooks("variant", "VariantDocument"),
        SpaceActionDocument: Hooks("action", "SpaceActionDocument", action_type=True),
        DrawActionDocument: Hooks("action", "DrawActionDocument", action_type=False),
        RecordDocument: Hooks("record", "RecordDocument"),
        EventsDocument: Hooks("events", "EventsDocument"),
        VerdictDocument: Hooks("verdict", "VerdictDocument"),
    }
    for document, hooks in hooked.items():
        document.__get_pydantic_core_schema__ = hooks.__get_pydantic_core_schema__  # type: ignore[attr-defined]


_configure()
