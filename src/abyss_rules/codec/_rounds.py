"""Grids and round results as JSON: the spellings of grid spaces, the layout of a round (rules 4.1, 6.3-6.7).

A grid is an array of space objects `{"card", "face_up", "swallowed"}`; their canonical
spellings are kept here once (`SPACE_TEXT`), written by `grid_text` and by the state
document's grids, and read back by `grids_of_text`. A round of the history is the layout
`ROUND`, read and written as every layout is (`abyss_rules.codec._layout`).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Final, NamedTuple

from .._grid import Grid
from ..caches import BoundedCache, Memo
from ..config import Variant
from ..errors import Code, DecodeError
from ..rules._columns import partly_swallowed
from ..rules._scoring import round_scores, score_round
from ..state import RoundResult
from ._layout import Field, Layout
from ._spelling import BOOL, BOOL_TEXT, INT, INTS, NULLABLE_INT, OPT_INT, Items, OffTable
from ._strict import bad, read_bool, read_int, read_ints, read_list, read_object, read_seat, wrong_type

# -- the spellings of grid spaces ----------------------------------------------------------

_SPACE_FIELDS: Final = frozenset({"card", "face_up", "swallowed"})
_get_space: Final = itemgetter("card", "face_up", "swallowed")


class _SpaceTexts(dict[int | None, str]):
    """The canonical text of the space objects with one `face_up` and `swallowed`, by card.

    Filled as cards are met (at most 4096 kept); cards must be plain ints or None.
    """

    def __init__(self, face_up: bool, swallowed: bool) -> None:
        super().__init__()
        self.rest = f',"face_up":{BOOL_TEXT[face_up]},"swallowed":{BOOL_TEXT[swallowed]}}}'

    def __missing__(self, card: int | None) -> str:
        text = f'{{"card":{"null" if card is None else card}{self.rest}'
        if len(self) < 4096:
            self[card] = text
        return text


SPACE_TEXT: Final = tuple(_SpaceTexts(up, gone) for gone in (False, True) for up in (False, True))
"""The canonical text of a space object by `face_up + 2 * swallowed`, then by card."""
FACE_DOWN: Final = SPACE_TEXT[0]
FACE_UP: Final = SPACE_TEXT[1]
SWALLOWED_TEXT: Final = SPACE_TEXT[2][None]
_BOOL_TYPE: Final = frozenset({bool})


def grid_body(grid: Grid) -> list[dict[str, Any]]:
    """A grid's array of space objects, as JSON-ready data."""
    return [
        {"card": card, "face_up": up, "swallowed": gone}
        for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True)
    ]


def grid_text(grid: Grid) -> str:
    """The canonical text of a grid's array of space objects (see `grid_body`)."""
    cards, face_up, swallowed = grid.cards, grid.face_up, grid.swallowed
    if not (
        NULLABLE_INT.issuperset(map(type, cards))
        and _BOOL_TYPE.issuperset(map(type, face_up))
        and _BOOL_TYPE.issuperset(map(type, swallowed))
        and len(cards) == len(face_up) == len(swallowed)
    ):
        raise OffTable
    spaces = [
        SPACE_TEXT[up + 2 * gone][card] for card, up, gone in zip(cards, face_up, swallowed, strict=True)
    ]
    return f"[{','.join(spaces)}]"


GRIDS: Final = Items(grid_text, grid_body)
"""The spelling of an array of grids."""


def seat_text(cards: Any, up: tuple[bool, ...], gone: int, cells: int) -> str:
    """The canonical text of one seat's grid of a state: its cards, face-up flags and swallowed mask."""
    if gone:
        swallowed = bools(gone, cells)
        spaces = [SWALLOWED_TEXT if g else (FACE_UP if u else FACE_DOWN)[c]
                  for c, u, g in zip(cards, up, swallowed, strict=True)]
    else:
        spaces = [(FACE_UP if u else FACE_DOWN)[c] for c, u in zip(cards, up, strict=True)]
    return f"[{','.join(spaces)}]"


def bools(mask: int, cells: int) -> tuple[bool, ...]:
    """The bits of `mask` as a tuple of `cells` booleans (cached: grids repeat their masks)."""
    key = (mask, cells)
    found = _BOOLS.get(key)
    if found is None:
        found = _BOOLS.put(key, tuple(mask >> s & 1 == 1 for s in range(cells)), cells)
    return found


_BOOLS: Final = BoundedCache[tuple[int, int], tuple[bool, ...]](
    "codec.bools", max_entries=4096, max_size=4096 * 64
)


def _values(variant: Variant) -> frozenset[int]:
    return frozenset(value for value, _ in variant.deck)


_VALUES: Final = Memo[Variant, frozenset[int]]("codec.deck_values", _values, max_entries=64,
                                               max_size=64 * 256, size=len)
"""The distinct card values of the last variants read (size: values)."""


def deck_values(variant: Variant) -> frozenset[int]:
    """The distinct card values of `variant`'s deck (cached)."""
    return _VALUES(variant)


class _Invalid(Exception):
    """Internal: the fast path met something to explain (see `_explain_grid`)."""


def read_grid(
    value: Any, path: str, variant: Variant, view: bool = False
) -> tuple[list[int | None], int, int]:
    """A grid of `variant`: `cells` space objects `{"card", "face_up", "swallowed"}`.

    Returns the cards (`None` where swallowed, and in a view where face down)
    and the bit masks of the face-up and swallowed spaces. Checks the types,
    that cards are cards of the deck (rule 1.1), that a swallowed space is not
    face up and holds no card, that a space that is not swallowed holds a card
    (in a view: exactly when it is face up, rule 8.2) and that columns are
    swallowed whole (rule 4.1).
    """
    spaces = read_list(value, path, variant.cells, "spaces")
    values = deck_values(variant)
    cards: list[int | None] = []
    up = gone = 0
    bit = 1
    try:
        for space in spaces:  # one tight loop: the hot path of loading a state
            if type(space) is not dict or len(space) != 3:
                raise _Invalid
            card, face_up, swallowed = _get_space(space)
            if swallowed is False:
                if face_up is True:
                    up |= bit
                elif face_up is not False:
                    raise _Invalid
                elif view:
                    if card is not None:
                        raise _Invalid
                    cards.append(None)
                    bit <<= 1
                    continue
                if type(card) is not int or card not in values:
                    raise _Invalid
            elif swallowed is not True or face_up is not False or card is not None:
                raise _Invalid
            else:
                gone |= bit
            cards.append(card)
            bit <<= 1
    except (_Invalid, KeyError):
        raise _explain_grid(spaces, path, values, view) from None
    if gone:
        check_whole_columns(variant, gone, path)
    return cards, up, gone


def check_whole_columns(variant: Variant, gone: int, path: str) -> None:
    """A grid's swallowed spaces (`gone`) make whole columns (rule 4.1: `rules.partly_swallowed`)."""
    col = partly_swallowed(variant.geometry, gone)
    if col is not None:
        first = next(s for s in variant.geometry.column_spaces[col] if gone >> s & 1)
        raise bad(
            f"column {col} is only partly swallowed: a column is swallowed whole (rule 4.1)",
            f"{path}/{first}/swallowed",
            Code.IMPOSSIBLE_STATE,
        )


def _explain_grid(spaces: list[Any], path: str, values: frozenset[int], view: bool) -> DecodeError:
    """The error for the first bad space of a grid that `read_grid` refused."""
    for s, space in enumerate(spaces):
        where = f"{path}/{s}"
        read_object(space, where, _SPACE_FIELDS)
        card, face_up, swallowed = _get_space(space)
        if type(face_up) is not bool:
            return wrong_type(face_up, "a boolean", f"{where}/face_up")
        if type(swallowed) is not bool:
            return wrong_type(swallowed, "a boolean", f"{where}/swallowed")
        if card is not None:
            if type(card) is not int:
                return wrong_type(card, "an integer or null", f"{where}/card")
            if card not in values:
                return bad(
                    f"{card} is not a card of this variant's deck (rule 1.1)",
                    f"{where}/card",
                    Code.CARDS_MISMATCH,
                )
        if face_up and swallowed:
            return bad("a swallowed space cannot be face up", where, Code.IMPOSSIBLE_STATE)
        if swallowed and card is not None:
            return bad(
                "a swallowed space holds no card: card must be null", f"{where}/card", Code.IMPOSSIBLE_STATE
            )
        if view and not swallowed and (card is None) == face_up:
            return bad(
                "a view shows the value of exactly the face-up spaces (rule 8.2)",
                f"{where}/card",
                Code.IMPOSSIBLE_STATE,
            )
        if not view and not swallowed and card is None:
            return bad(
                "a space that is not swallowed holds a card: card must be an integer",
                f"{where}/card",
                Code.IMPOSSIBLE_STATE,
            )
    return bad("not a valid grid", path)  # pragma: no cover - every refusal is explained above


def make_grid(variant: Variant, cards: list[int | None], up: int, gone: int) -> Grid:
    cells = variant.cells
    return Grid(
        rows=variant.rows,
        cols=variant.cols,
        cards=tuple(cards),
        face_up=bools(up, cells),
        swallowed=bools(gone, cells),
    )


# -- grids in canonical text (the fast reader of `loads_state`) --------------------------------


def _space_tables(variant: Variant) -> tuple[dict[str, int | None], dict[str, str]]:
    """Every canonical spelling of a space object of `variant` (`SPACE_TEXT`), without its braces.

    Two tables, cached: the spelling's card (`None` when swallowed) and a
    digit saying how the space lies: `"0"` face down, `"1"` face up, `"2"` swallowed. They
    hold exactly the spaces `read_grid` accepts in a state: a card of the deck face up or
    down, or a swallowed space with no card.
    """
    return _SPACE_TABLES(variant)


def _make_space_tables(variant: Variant) -> tuple[dict[str, int | None], dict[str, str]]:
    cards: dict[str, int | None] = {}
    digits: dict[str, str] = {}
    for value in sorted(deck_values(variant)):
        for texts, digit in ((FACE_DOWN, "0"), (FACE_UP, "1")):
            spelling = texts[value][1:-1]
            cards[spelling], digits[spelling] = value, digit
    gone = SWALLOWED_TEXT[1:-1]
    cards[gone], digits[gone] = None, "2"
    return cards, digits


_SPACE_TABLES: Final = Memo[Variant, tuple[dict[str, int | None], dict[str, str]]](
    "codec.space_tables", _make_space_tables, max_entries=16, max_size=16 * 512,
    size=lambda tables: len(tables[0]))
"""`_space_tables` of the last variants read (size: spellings)."""


def grids_of_text(inside: str, variant: Variant) -> list[tuple[list[int | None], int, int]]:
    """The grids of the inside of a canonical array of grids (`[{space},...],[...]`), parsed.

    Per seat, as `read_grid` gives them: the cards (`None` where swallowed) and the masks of
    the face-up and the swallowed spaces; every space is one `read_grid` accepts in a state.
    Raises `OffTable` for any other text. Nothing is checked across spaces here: the grids
    are then read by `read_parsed_grids`.
    """
    if not (inside.startswith("[{") and inside.endswith("}]")):
        raise OffTable
    card_of, digit_of = _space_tables(variant)
    out = []
    for seat in inside[2:-2].split("}],[{"):
        spaces = seat.split("},{")
        if len(spaces) != variant.cells:
            raise OffTable
        try:
            cards = list(map(card_of.__getitem__, spaces))
            spaces.reverse()  # the last space is the highest bit
            digits = "".join(map(digit_of.__getitem__, spaces))
        except KeyError:  # a space that is not the canonical spelling of one a state may hold
            raise OffTable from None
        if "2" in digits:
            gone = int(digits.replace("1", "0").replace("2", "1"), 2)
            out.append((cards, int(digits.replace("2", "0"), 2), gone))
        else:
            out.append((cards, int(digits, 2), 0))
    return out


def read_parsed_grids(
    grids: list[tuple[list[int | None], int, int]], path: str, variant: Variant, players: int
) -> list[tuple[list[int | None], int, int]]:
    """The grids `grids_of_text` parsed, read as `read_grids` reads them: one per seat (else
    `OffTable`: the general reader names the problem), columns swallowed whole."""
    if len(grids) != players:
        raise OffTable
    for p, (_, _, gone) in enumerate(grids):
        if gone:
            check_whole_columns(variant, gone, f"{path}/{p}")
    return grids


def read_grids(
    value: Any, path: str, variant: Variant, players: int
) -> list[tuple[list[int | None], int, int]]:
    """The `grids` of a state or a round: one grid per seat, as `read_grid` reads each."""
    return [read_grid(spaces, f"{path}/{p}", variant)
            for p, spaces in enumerate(read_list(value, path, players, "grids (one per seat)"))]


# -- rounds of the history -------------------------------------------------------------------


def _final_grids(
    grids: list[tuple[list[int | None], int, int]], path: str, variant: Variant
) -> tuple[tuple[Grid, ...], tuple[int, ...]]:
    """A finished round's grids (read at `path`) and their raw scores (rule 6.4): no face-down card
    (rule 6.3)."""
    full = (1 << variant.cells) - 1
    out: list[Grid] = []
    flat: list[int] = []
    for p, (cards, up, gone) in enumerate(grids):
        if up | gone != full:
            s = next(s for s in range(variant.cells) if not (up | gone) >> s & 1)
            raise bad("a finished round has no face-down card (rule 6.3)", f"{path}/{p}/{s}/face_up",
                      Code.IMPOSSIBLE_STATE)
        out.append(make_grid(variant, cards, up, gone))
        flat += [0 if card is None else card for card in cards]
    return tuple(out), round_scores(tuple(flat), len(grids), variant.cells)


def read_final_grids(
    value: Any, path: str, variant: Variant, players: int
) -> tuple[tuple[Grid, ...], tuple[int, ...]]:
    """A finished round's `grids` and their raw scores."""
    return _final_grids(read_grids(value, path, variant, players), path, variant)


def read_parsed_final_grids(
    grids: list[tuple[list[int | None], int, int]], path: str, variant: Variant, players: int
) -> tuple[tuple[Grid, ...], tuple[int, ...]]:
    """`read_final_grids` of the grids `grids_of_text` parsed."""
    return _final_grids(read_parsed_grids(grids, path, variant, players), path, variant)


def check_round_number(value: Any, path: str, number: int) -> int:
    """The `round` field of the history's round `number` (at `path`) says `number`."""
    if read_int(value, path, 1) != number:
        raise bad(f"round {number} of the history says it is round {value}", path, Code.IMPOSSIBLE_STATE)
    return number


def round_result(
    path: str,
    variant: Variant,
    players: int,
    number: int,
    previous: tuple[int, ...],
    grids: tuple[tuple[Grid, ...], tuple[int, ...]],
    **fields: Any,
) -> RoundResult:
    """Round `number` of the history (at `path`) of its fields read, once they are checked together.

    The raw scores are the sums of the grids (rule 6.4); the cap and the closer fit the turns
    (rules 6.2, 6.7); the scores, penalty and totals are those `rules.score_round` makes of
    the raw scores, the closer and the `previous` totals (rules 6.5, 7.1).
    """
    final, raw_sums = grids
    raw, closer, capped, turns = fields["raw_scores"], fields["closer"], fields["capped"], fields["turns"]
    if raw != raw_sums:
        p = next(p for p in range(players) if raw[p] != raw_sums[p])
        raise bad(f"seat {p}'s round score is the sum of its cards (rule 6.4)", f"{path}/raw_scores/{p}",
                  Code.IMPOSSIBLE_STATE)
    cap = variant.max_turns_per_round
    if capped != (cap is not None and turns >= cap) or (cap is not None and turns > cap):
        raise bad(f"capped must say whether the round reached max_turns_per_round ({cap}) (rule 6.7)",
                  f"{path}/capped", Code.IMPOSSIBLE_STATE)
    if (closer is None) != capped:
        raise bad("a round ends with a closer, or by the stalling cap with none (rules 6.2, 6.7)",
                  f"{path}/closer", Code.IMPOSSIBLE_STATE)
    expected = score_round(variant, raw, closer, previous)
    if fields["penalized"] != expected.penalized:
        raise bad("penalized does not match the closer penalty (rule 6.5)", f"{path}/penalized",
                  Code.IMPOSSIBLE_STATE)
    if fields["scores"] != expected.scores:
        raise bad("the scores do not follow from the raw scores (rule 6.5)", f"{path}/scores",
                  Code.IMPOSSIBLE_STATE)
    if fields["totals"] != expected.totals:
        raise bad("the totals are not the previous totals plus the scores (rule 7.1)", f"{path}/totals",
                  Code.IMPOSSIBLE_STATE)
    return RoundResult(grids=final, **fields)


_SCORES: Final = ("scores (one per seat)",)
ROUND: Final = Layout("round", (
    Field("round", INT, check_round_number, ("number",)),
    Field("grids", GRIDS, read_final_grids, ("variant", "players"),
          parse_text=grids_of_text, parse_context=("variant",), read_parsed=read_parsed_final_grids),
    Field("closer", OPT_INT, read_seat, ("players",)),
    Field("raw_scores", INTS, read_ints, ("players",), _SCORES),
    Field("scores", INTS, read_ints, ("players",), _SCORES),
    Field("penalized", BOOL, read_bool),
    Field("capped", BOOL, read_bool),
    Field("turns", INT, read_int, (), (0,)),
    Field("totals", INTS, read_ints, ("players",), ("totals (one per seat)",)),
), round_result, params=("variant", "players", "number", "previous"))
"""The layout of a round object of the history (a `RoundResult`), in reading order."""
_ROUND_FIRST, _ROUND_LAST = ROUND.first_and_last()


def round_body(result: RoundResult) -> dict[str, Any]:
    """A round of the history as JSON-ready data."""
    return ROUND.function("data")(result)  # type: ignore[no-any-return]


def round_text(result: RoundResult) -> str:
    """The canonical text of a round object of the history (see `round_body`).

    The states of a game share their finished rounds, so the texts of the last rounds written
    are kept by the identity of their (immutable) `RoundResult`, which the cache holds alive.
    """
    known = _ROUND_TEXTS.get(id(result))
    if known is not None and known[0] is result:
        return known[1]
    text: str = ROUND.function("text")(result)
    _ROUND_TEXTS.put(id(result), (result, text), len(text))
    return text


_ROUND_TEXTS: Final = BoundedCache[int, tuple[RoundResult, str]](
    "codec.round_texts", max_entries=64, max_size=1 << 20
)
"""The text of the last rounds written, by the identity of the result it holds (size: characters)."""
HISTORY: Final = Items(round_text, round_body)
"""The spelling of a round history."""


def read_history(value: Any, path: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The `history` of a state or a view: its rounds in order, each checked against the one before."""
    read = ROUND.function("read")
    history = []
    totals = (0,) * players
    for n, item in enumerate(read_list(value, path)):
        result = read(item, f"{path}/{n}", variant, players, n + 1, totals)
        totals = result.totals
        history.append(result)
    return tuple(history)


class ParsedHistory(NamedTuple):
    """A history's canonical text and its rounds' pieces, parsed (see `history_of_text`)."""

    text: str
    rounds: list[tuple[Any, ...]]


_NO_HISTORY: Final = ParsedHistory("", [])


def history_of_text(
    inside: str, variant: Variant
) -> ParsedHistory | tuple[Variant, int, tuple[RoundResult, ...]]:
    """The history of the inside of its canonical array, parsed: each round's pieces
    (`OffTable` for any other text), read then by `read_parsed_history`.

    Every state of a round holds the same history, so the last histories read are kept by
    their text (with the variant and number of players they were checked for): a history met
    again is returned as it was kept.
    """
    if not inside:
        return _NO_HISTORY
    known = _HISTORIES.get(inside)
    if known is not None and known[0] is variant:
        return known
    if not (inside.startswith(_ROUND_FIRST) and inside.endswith(_ROUND_LAST)):
        raise OffTable
    parse = ROUND.function("parse_text")
    items = inside[len(_ROUND_FIRST):-len(_ROUND_LAST)].split(f"{_ROUND_LAST},{_ROUND_FIRST}")
    return ParsedHistory(inside, [parse(item, variant) for item in items])


def read_parsed_history(parsed: ParsedHistory | tuple[Variant, int, tuple[RoundResult, ...]], path: str,
                        variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The history `history_of_text` parsed, read as `read_history` reads it."""
    if not isinstance(parsed, ParsedHistory):  # a history read before
        if parsed[1] != players:
            raise OffTable  # read for another number of players: the general reader says what is wrong
        return parsed[2]
    if not parsed.rounds:
        return ()
    read = ROUND.function("read_parsed")
    rounds: list[RoundResult] = []
    totals = (0,) * players
    for n, pieces in enumerate(parsed.rounds):
        result = read(pieces, f"{path}/{n}", variant, players, n + 1, totals)
        totals = result.totals
        rounds.append(result)
    history = tuple(rounds)
    _HISTORIES.put(parsed.text, (variant, players, history), len(parsed.text))
    return history


_HISTORIES: Final = BoundedCache[str, tuple[Variant, int, tuple[RoundResult, ...]]](
    "codec.histories", max_entries=16, max_size=1 << 21
)
"""Histories read by the fast reader, by their text: (variant, players, history); size: characters."""
