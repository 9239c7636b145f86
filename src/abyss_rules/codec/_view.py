"""`view` documents: what a seat or a spectator may see (rules 8.1-8.3).

The document's layout is the table `VIEW`. The codec reads and writes the *fields* of a view:
`view_data` and `view_text` read the attributes of the view object given to them, and
`view_fields` checks a parsed document and returns the fields a `View` is made of. The
codec's facade (`abyss_rules.codec`) pairs them with the `View` class, so that no module of
the codec imports `abyss_rules.views`.
"""

from __future__ import annotations

from typing import Any, Final

from .._grid import Grid
from ..actions import Action
from ..cards import MAX_CARD_VALUE, MIN_CARD_VALUE
from ..config import Variant
from ..errors import Code
from ..state import Phase
from . import _strict as strict
from ._action import ACTION, ACTIONS
from ._layout import Field, Layout
from ._rounds import GRIDS, HISTORY, deck_values, make_grid, read_grid, read_history
from ._spelling import INT, INT_LISTS, INTS, OPT_INT, Named, OffTable
from ._state import read_opening, read_phase, read_players
from ._strict import bad, read_int, read_ints, read_list, read_opt_int, read_seat
from ._variant import VARIANT, read_variant


def read_view_grids(value: Any, path: str, variant: Variant, players: int) -> tuple[Grid, ...]:
    """A view's `grids`: one per seat, a card shown exactly on the face-up spaces (rule 8.2)."""
    return tuple(
        make_grid(variant, *read_grid(spaces, f"{path}/{p}", variant, view=True))
        for p, spaces in enumerate(read_list(value, path, players, "grids (one per seat)"))
    )


def read_seats(value: Any, path: str, players: int) -> tuple[int, ...]:
    """An array of seat numbers."""
    return read_ints(value, path, low=0, high=players - 1)


def read_actions(value: Any, path: str) -> tuple[Action, ...]:
    """An array of action objects."""
    read = ACTION.read
    return tuple(read(item, f"{path}/{i}") for i, item in enumerate(read_list(value, path)))


def check_view(path: str, **fields: Any) -> dict[str, Any]:
    """The fields of a view read one by one, once they are checked together: the shapes a
    state's view has (what its hidden part is cannot be checked)."""
    viewer, variant, phase = fields["viewer"], fields["variant"], fields["phase"]
    rows, cols, need = variant.rows, variant.cols, variant.initial_flips
    seen: set[Action] = set()
    for i, action in enumerate(fields["legal_actions"]):
        if action.player != viewer:
            raise bad("a view lists only the viewer's own legal actions", f"{path}/legal_actions/{i}/player",
                      Code.IMPOSSIBLE_STATE)
        row, col = getattr(action, "row", 0), getattr(action, "col", 0)
        if not (0 <= row < rows and 0 <= col < cols):
            raise bad(f"({row}, {col}) is not a space of a {rows} x {cols} grid (rule 1.2)",
                      f"{path}/legal_actions/{i}", Code.IMPOSSIBLE_STATE)
        if action in seen:
            raise bad("a view lists each legal action once", f"{path}/legal_actions/{i}",
                      Code.IMPOSSIBLE_STATE)
        seen.add(action)
    values = deck_values(variant)
    for p, flips in enumerate(fields["opening"]):
        if len(flips) > need or (phase is not Phase.OPENING and len(flips) != need):
            raise bad(f"seat {p} made {len(flips)} opening flips; every seat makes exactly {need} (rule 2.1)",
                      f"{path}/opening/{p}", Code.IMPOSSIBLE_STATE)
        for i, card in enumerate(flips):
            if card not in values:
                raise bad(f"{card} is not a card of the deck (rule 2.1)", f"{path}/opening/{p}/{i}",
                          Code.CARDS_MISMATCH)
    playing = phase is Phase.TURN or phase is Phase.DRAWN
    if playing != (fields["turn"] is not None):
        raise bad("turn names the player to act in the turn and drawn phases, else it is null",
                  f"{path}/turn", Code.IMPOSSIBLE_STATE)
    drawn = fields["drawn"]
    if (phase is Phase.DRAWN) != (drawn is not None) or (drawn is not None and drawn not in values):
        raise bad("a drawn card of the deck is held exactly in the drawn phase (rule 3.4)", f"{path}/drawn",
                  Code.IMPOSSIBLE_STATE)
    discard_pile = fields["discard_pile"]
    if not discard_pile:
        raise bad("the discard pile always holds a card (rules 1.4, 5.1, 5.2)", f"{path}/discard_pile",
                  Code.IMPOSSIBLE_STATE)
    if len(discard_pile) + fields["draw_pile_size"] > variant.deck_size:
        raise bad(f"the piles hold more cards than the deck ({variant.deck_size})", f"{path}/discard_pile",
                  Code.IMPOSSIBLE_STATE)
    for i, card in enumerate(discard_pile):
        if card not in values:
            raise bad(f"{card} is not a card of the deck", f"{path}/discard_pile/{i}", Code.CARDS_MISMATCH)
    return fields


_TOTALS: Final = ("totals (one per seat)",)
VIEW: Final = Layout("view", (
    Field("variant", VARIANT, read_variant),
    Field("players", INT, read_players, ("variant",)),
    Field("viewer", OPT_INT, read_seat, ("players",)),
    Field("round", INT, read_int, (), (1,)),
    Field("phase", Named(Phase), read_phase),
    Field("turn", OPT_INT, read_seat, ("players",)),
    Field("opener", OPT_INT, read_seat, ("players",)),
    Field("grids", GRIDS, read_view_grids, ("variant", "players")),
    Field("opening", INT_LISTS, read_opening, ("players",), (MIN_CARD_VALUE, MAX_CARD_VALUE)),
    Field("owing_flips", INTS, read_seats, ("players",)),
    Field("discard_pile", INTS, read_ints),
    Field("draw_pile_size", INT, read_int, (), (0,)),
    Field("drawn", OPT_INT, read_opt_int),
    Field("closer", OPT_INT, read_seat, ("players",)),
    Field("turns", INT, read_int, (), (0,)),
    Field("totals", INTS, read_ints, ("players",), _TOTALS),
    Field("history", HISTORY, read_history, ("variant", "players")),
    Field("winners", INTS, read_seats, ("players",)),
    Field("seq", INT, read_int, (), (0,)),
    Field("legal_actions", ACTIONS, read_actions),
), check_view, document="view")
"""The layout of a `view` document, in reading order; the fields are those of a `View`."""


def view_data(view: Any) -> dict[str, Any]:
    """The `view` document of the view object `view` as JSON-ready data."""
    return VIEW.function("data")(view)  # type: ignore[no-any-return]


def view_text(view: Any) -> str:
    """The canonical text of the `view` document of the view object `view`."""
    try:
        return VIEW.function("text")(view)  # type: ignore[no-any-return]
    except OffTable:  # a field holds something the fast writer does not spell (a bool for an int...)
        return strict.canonical_json(view_data(view))


def view_fields(doc: Any) -> dict[str, Any]:
    """The fields of a `View` from a parsed `view` document, checked (see `view_from_dict`)."""
    return VIEW.function("read")(doc, "")  # type: ignore[no-any-return]
