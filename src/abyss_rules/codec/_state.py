"""`state` documents: the authoritative server state, secrets included (rules 1.1-9.6).

The document's layout is the table `STATE` (with `DEALER` inside it); `state_to_dict`,
`dumps_state`, `state_from_dict` and `loads_state` are its four generated functions (see
`abyss_rules.codec._layout`). Its values are checked field by field by the readers the table
names, then together by `assemble_state`: the phase machine, the opening, closer and history
against the grids, and that every card of the deck is in exactly one place (rule 1.1).
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, cast

from ..cards import MAX_CARD_VALUE, MIN_CARD_VALUE
from ..config import Variant
from ..documents import StateDocument
from ..errors import Code, InvalidStateError
from ..rules._dealing import deck_order_problem, player_count_problem
from ..rules._reachable import state_problem
from ..state import Dealer, Phase, RoundResult, State
from ._layout import Field, Layout
from ._rounds import HISTORY, bools, grids_of_text, history_of_text, read_grids, read_history, seat_text
from ._spelling import INT, INT_LISTS, INTS, OPT_INT, WORD, Computed, Named, OffTable
from ._strict import (
    ENCODER,
    HEX64,
    INT_ONLY,
    MAX_DOCUMENT_BYTES,
    MAX_INT,
    bad,
    decode,
    read_cards,
    read_document,
    read_int,
    read_ints,
    read_list,
    read_opt_int,
    read_seat,
    read_str,
    short,
    text_of,
)
from ._variant import VARIANT, read_variant, variant_of_text

PHASES: Final = {phase.value: phase for phase in Phase}
SWALLOWED_SPACE: Final = {"card": None, "face_up": False, "swallowed": True}


# -- the fields' readers ---------------------------------------------------------------------


def read_players(value: Any, path: str, variant: Variant) -> int:
    """The `players` field: a number of players `variant` allows (rule 1.3)."""
    players = read_int(value, path)
    problem = player_count_problem(variant, players)
    if problem is not None:
        raise bad(problem, path)
    return players


def read_phase(value: Any, path: str) -> Phase:
    """The `phase` field: the name of a `Phase`."""
    phase = PHASES.get(read_str(value, path))
    if phase is None:
        raise bad(f"must be one of {', '.join(PHASES)}, got {short(value)}", path)
    return phase


def read_opening(
    value: Any, path: str, players: int, low: int = -MAX_INT, high: int = MAX_INT
) -> tuple[tuple[int, ...], ...]:
    """The `opening` field: per seat, the values of its opening flips (rule 2.1), from `low` to `high`."""
    return tuple(
        read_ints(flips, f"{path}/{p}", low=low, high=high)
        for p, flips in enumerate(read_list(value, path, players, "lists (one per seat)"))
    )


def read_seed(value: Any, path: str) -> bytes:
    """The dealer's `seed`: 64 lowercase hex digits (rule 9.1)."""
    seed = read_str(value, path)
    if HEX64.fullmatch(seed) is None:
        raise bad("must be 64 lowercase hex digits (a 32-byte seed, rule 9.1)", path)
    return bytes.fromhex(seed)


def read_deck_order(value: Any, path: str, variant: Variant) -> tuple[int, ...]:
    """An explicit deck order: exactly the cards of `variant`'s deck (rule 9.6)."""
    order = read_ints(value, path)
    problem = deck_order_problem(variant, order)
    if problem is not None:
        raise bad(f"the deck order {problem} (rule 9.6)", path, Code.CARDS_MISMATCH)
    return order


def read_deck_orders(value: Any, path: str, variant: Variant) -> tuple[tuple[int, ...], ...]:
    """The dealer's `decks`: the explicit deck orders still to deal."""
    orders = read_list(value, path)
    return tuple(read_deck_order(order, f"{path}/{n}", variant) for n, order in enumerate(orders))


# -- the grids of a state: one flat tuple of cards and two bit masks ----------------------------


def state_grids_data(state: State) -> list[list[dict[str, Any]]]:
    """The `grids` of a state document as JSON-ready data."""
    cells = state.variant.cells
    cards, up, gone = state.cards, state.face_up_mask, state.swallowed_mask
    grids = []
    bit = 1
    for p in range(len(state.totals)):
        spaces: list[dict[str, Any]] = []
        for card in cards[p * cells : (p + 1) * cells]:
            if gone & bit:
                spaces.append(SWALLOWED_SPACE)
            else:
                spaces.append({"card": card, "face_up": up & bit != 0, "swallowed": False})
            bit <<= 1
        grids.append(spaces)
    return grids


def state_grids_text(state: State) -> str:
    """The inside of the canonical `grids` array of a state document (`OffTable` for odd cards)."""
    cards, cells = state.cards, state.variant.cells
    if not INT_ONLY.issuperset(map(type, cards)) or len(cards) != len(state.totals) * cells:
        raise OffTable
    up, gone, full = state.face_up_mask, state.swallowed_mask, (1 << cells) - 1
    return ",".join([
        seat_text(cards[base : base + cells], bools(up >> base & full, cells), gone >> base & full, cells)
        for base in range(0, len(cards), cells)
    ])


# -- the layout ------------------------------------------------------------------------------

DEALER: Final = Layout("dealer", (
    Field("seed", WORD, read_seed, get="{o}.seed.hex()"),
    Field("position", INT, read_int, (), (0,)),
    Field("decks", INT_LISTS, read_deck_orders, ("variant",)),
), lambda path, seed, position, decks: Dealer(seed, position, decks))
"""The dealer object of a state document (rules 9.1-9.6)."""

STATE: Final = Layout("state", (
    Field("variant", VARIANT, read_variant, read_text=variant_of_text),
    Field("players", INT, read_players, ("variant",), get="len({o}.totals)"),
    Field("phase", Named(Phase), read_phase),
    Field("round", INT, read_int, (), (1,)),
    Field("grids", Computed(state_grids_text, state_grids_data, "[", "]"), read_grids, ("variant", "players"),
          read_text=grids_of_text, get="{o}"),
    Field("draw_pile", INTS, read_cards),
    Field("discard_pile", INTS, read_cards),
    Field("drawn", OPT_INT, read_opt_int),
    Field("turn", OPT_INT, read_seat, ("players",)),
    Field("closer", OPT_INT, read_seat, ("players",)),
    Field("opening", INT_LISTS, read_opening, ("players",), (MIN_CARD_VALUE, MAX_CARD_VALUE)),
    Field("turns", INT, read_int, (), (0,)),
    Field("totals", INTS, read_ints, ("players",), ("totals (one per seat)",)),
    Field("history", HISTORY, read_history, ("variant", "players"), read_text=history_of_text),
    Field("dealer", DEALER),
    Field("seq", INT, read_int, (), (0,)),
), lambda path, **fields: assemble_state(**fields), document=True)
"""The layout of a `state` document, in reading order (a field is read after those it needs)."""
_FIRST, _LAST = STATE.first_and_last()


# -- the public functions --------------------------------------------------------------------


def check_state(state: Any) -> State:
    if type(state) is not State:
        raise InvalidStateError(f"expected a State, got {type(state).__name__}")
    return state


def state_to_dict(state: State) -> StateDocument:
    """The `state` document of `state`: every field, secrets included (never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> doc = state_to_dict(ar.new_game(players=2, seed=1))
        >>> doc["phase"], len(doc["grids"]), doc["grids"][0][0]["face_up"], len(doc["draw_pile"])
        ('opening', 2, False, 125)
    """
    return cast(StateDocument, STATE.function("data")(check_state(state)))


def dumps_state(state: State) -> str:
    """The canonical JSON text of the `state` document of `state` (secret: never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> dumps_state(ar.new_game(players=2, seed=1))[:46]
        '{"closer":null,"dealer":{"decks":[],"position"'
    """
    check_state(state)
    try:
        return STATE.function("text")(state)  # type: ignore[no-any-return]
    except Exception:  # a field holds something unusual (a bool for an int...): let json write it
        return ENCODER.encode(STATE.function("data")(state))


def state_hash(state: State) -> str:
    """The SHA-256 (hex) of the canonical bytes of `state`'s document.

    Two states are equal exactly when their hashes are (within one rules
    version), across implementations of the same format.

    Examples:
        >>> import abyss_rules as ar
        >>> len(state_hash(ar.new_game(players=2, seed=1)))
        64
    """
    return hashlib.sha256(dumps_state(state).encode("utf-8")).hexdigest()


def state_from_dict(doc: Any) -> State:
    """A `State` from a parsed `state` document, fully checked.

    Checked: the header, field names and JSON types; the shapes (a grid per
    seat, `rows * cols` spaces each, one total per seat...); that the cards
    on the grids, the piles and the drawn card are exactly the variant's deck
    (rule 1.1); and that the phase, turn, opening flips, closer, swallowed
    columns, round history and dealer fit together as the rules allow. Raises
    `DecodeError` naming the first problem found.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=3, seed=2)
        >>> state_from_dict(state_to_dict(state)) == state
        True
    """
    return STATE.function("read")(read_document(doc, "state", STATE.keys), "")  # type: ignore[no-any-return]


def loads_state(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> State:
    """A `State` from `state` document text, fully checked.

    See `state_from_dict` for what is checked. Text longer than
    `max_bytes` (UTF-8) is refused before parsing. The default, 1 MiB,
    holds hundreds of rounds of history of 8 players on 3 x 4 grids;
    raise it for variants with huge grids and endless games.

    Canonical text (what `dumps_state` writes) is read without `json`, by the reader
    generated from the same table: any other text, and any text a check refuses, is
    read the general way, which names the exact problem.

    Examples:
        >>> import abyss_rules as ar
        >>> loads_state("[]")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [wrong_type] must be an object, got an array
    """
    text = text_of(data, max_bytes)
    try:
        return read_canonical_state(text)
    except Exception:  # not canonical, or a check failed: the general path says which, exactly
        pass
    return state_from_dict(decode(text))


def read_canonical_state(text: str) -> State:
    """The state of canonical `state` text, read by the generated reader (raises on any other text)."""
    if not (text.startswith(_FIRST) and text.endswith(_LAST)):
        raise OffTable
    return STATE.function("read_text")(text[len(_FIRST) : -len(_LAST)], "")  # type: ignore[no-any-return]


# -- the checks of the fields together ----------------------------------------------------------


def assemble_state(
    variant: Variant, players: int, phase: Phase, round: int, grids: list[tuple[list[int | None], int, int]],
    draw_pile: tuple[int, ...], discard_pile: tuple[int, ...], drawn: int | None, turn: int | None,
    closer: int | None, opening: tuple[tuple[int, ...], ...], turns: int, totals: tuple[int, ...],
    history: tuple[RoundResult, ...], dealer: Dealer, seq: int,
) -> State:
    """The state of fields read and checked one by one, once they are checked together.

    `grids` are per seat the cards (`None` where swallowed) and the face-up and swallowed
    masks. The fields together are checked by the one answer to "could play reach this
    state?", `state_problem` (rule 3.11): the phase machine, the opening, closer and
    history against the grids, and that every card of the deck is in exactly one place
    (rule 1.1).
    """
    cells = variant.cells
    cards: list[int] = []  # flat, 0 on swallowed spaces (as the engine keeps them)
    up = gone = 0
    for p, (values, seat_up, seat_gone) in enumerate(grids):
        up |= seat_up << (p * cells)
        gone |= seat_gone << (p * cells)
        if seat_gone:
            cards += [0 if card is None else card for card in values]
        else:
            cards += values  # type: ignore[arg-type]  # a grid without swallows holds no null card
    state = State(
        variant=variant, phase=phase, round=round, turn=turn,
        cards=tuple(cards), face_up_mask=up, swallowed_mask=gone, draw_pile=draw_pile,
        discard_pile=discard_pile,
        drawn=drawn, closer=closer, opening=opening, turns=turns, totals=totals, history=history,
        dealer=dealer, seq=seq,
    )
    problem = state_problem(state)  # possible: play from a new game could reach it (rule 3.11)
    if problem is not None:
        raise bad(problem.message, problem.path, problem.code)
    return state
