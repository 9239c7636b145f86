"""`loads_state`, with its fast path for canonical text (the text this library writes).

Most state documents a server loads are ones this library wrote. Instead of `json` building a
dict per grid space for `state_from_dict` to take apart, `_read_canonical_state` cuts canonical
text at its fixed keys and looks spaces and numbers up in the writer's own spellings (`text`),
then checks the values with the functions `state_from_dict` uses (`state`); any other text and
any failed check fall back to the general path, which names the exact problem. Kept because it
is measured to be needed: without it a state JSON round trip costs 1.8 times as many
instructions (1.12M against 0.62M per state, callgrind), over the 1.5 times allowed.
"""

from __future__ import annotations

import re
from typing import Final

from ..caches import BoundedCache
from ..config import Variant
from ..grid import Grid
from ..state import RoundResult, State
from .rounds import _add_final_grid, _check_round_number, _check_whole_columns, _round_result, deck_values
from .state import (
    _add_cards,
    _assemble_state,
    _read_opening,
    _read_players,
    make_dealer,
    read_phase,
    state_from_dict,
)
from .strict import (
    MAX_DOCUMENT_BYTES,
    decode,
    read_int,
    read_ints,
    read_opt_int,
    read_seat,
    reads_rules_version,
    text_of,
)
from .text import _BOOL_SPELLING, _FACE_DOWN, _FACE_UP, _INT_SPELLINGS, SWALLOWED_TEXT
from .variant import read_variant


def loads_state(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> State:
    """A [`State`][abyss_rules.State] from `state` document text, fully checked.

    See [`state_from_dict`][abyss_rules.state_from_dict] for what is checked.
    Text longer than `max_bytes` (UTF-8) is refused before parsing. The
    default, 1 MiB, holds hundreds of rounds of history of 8 players on
    3 x 4 grids; raise it for variants with huge grids and endless games.

    Examples:
        >>> import abyss_rules as ar
        >>> loads_state("[]")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [wrong_type] must be an object, got an array
    """
    text = text_of(data, max_bytes)
    try:
        return _read_canonical_state(text)
    except Exception:  # not canonical, or a check failed: the general path says which, exactly
        pass
    return state_from_dict(decode(text))


# -- the fast path for canonical state text --------------------------------------------------
#
# Most state documents a server loads are ones this library wrote: canonical text. `json` would
# build a dict per grid space only for `state_from_dict` to take it apart again. Instead,
# `_read_canonical_state` cuts canonical text at its fixed keys and looks every space and number
# up in tables of their canonical spellings. It reads a text only if the text is exactly the
# canonical encoding of the values it found -- so `json` would have parsed it to the same
# document -- and it checks those values with the same functions `state_from_dict` uses. Any
# other text (another spelling, whitespace, a key out of order, a value it has no spelling for)
# and any failed check raise, and `loads_state` loads the text the general way, which names the
# exact problem. So the fast path changes the speed of loading, never its outcome.


class _NotCanonical(ValueError):
    """Internal: the text is not in the canonical form the fast path reads."""


_STATE_LAYOUT: Final = (
    '{"closer":',
    ',"dealer":{"decks":[',
    '],"position":',
    ',"seed":"',
    '"},"discard_pile":[',
    '],"draw_pile":[',
    '],"drawn":',
    ',"format":"state","format_version":1,"grids":[',
    '],"history":[',
    '],"opening":[',
    '],"phase":"',
    '","players":',
    ',"round":',
    ',"rules_version":"',
    '","seq":',
    ',"totals":[',
    '],"turn":',
    ',"turns":',
    ',"variant":',
)
"""The text of a canonical state document around its values, in order (its keys are sorted)."""
_ROUND_START: Final = '{"capped":'
_ROUND_LAYOUT: Final = (
    "",
    ',"closer":',
    ',"grids":[',
    '],"penalized":',
    ',"raw_scores":[',
    '],"round":',
    ',"scores":[',
    '],"totals":[',
    '],"turns":',
)
"""The text of a canonical round object of the history around its values, after `{"capped":`."""
_SIZED: Final[dict[tuple[str, ...], tuple[tuple[str, int], ...]]] = {
    layout: tuple((part, len(part)) for part in layout[1:]) for layout in (_STATE_LAYOUT, _ROUND_LAYOUT)
}
"""Each layout's parts after the first, with their lengths."""
_INT_OF_TEXT: Final = {text: value for value, text in _INT_SPELLINGS.items()}
"""The integers a state mostly holds, by their canonical spelling (the writer's table, inverted)."""
_CANONICAL_INT: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,14})")
"""A canonical JSON integer of at most 15 digits (so always within +-MAX_INT)."""
_BOOL_OF_TEXT: Final = {text: value for value, text in _BOOL_SPELLING.items()}
_VARIANT_OF_TEXT: Final = BoundedCache[str, Variant](
    "codec.variants_by_text", max_entries=64, max_size=1 << 20
)
"""Variants read by the fast path, by the text of their object (size: characters)."""


def _cut(text: str, layout: tuple[str, ...]) -> list[str]:
    """The pieces of `text` between the parts of `layout`, then the rest after the last part.

    Each part is found at its first occurrence after the previous one; pieces are not
    checked here.
    """
    if not text.startswith(layout[0]):
        raise _NotCanonical
    pieces = []
    start = len(layout[0])
    for part, size in _SIZED[layout]:
        end = text.find(part, start)
        if end < 0:
            raise _NotCanonical
        pieces.append(text[start:end])
        start = end + size
    pieces.append(text[start:])
    return pieces


def _int_text(text: str) -> int:
    """The integer of its canonical spelling (`"-12"`); `_NotCanonical` for anything else."""
    value = _INT_OF_TEXT.get(text)
    if value is None:
        if _CANONICAL_INT.fullmatch(text) is None:
            raise _NotCanonical
        value = int(text)
    return value


def _opt_int_text(text: str) -> int | None:
    """`None` for `"null"`, else [`_int_text`][]."""
    return None if text == "null" else _int_text(text)


def _ints_text(text: str) -> list[int]:
    """The integers of the inside of a canonical array (`"3,-1,12"`; `""` for none)."""
    if not text:
        return []
    parts = text.split(",")
    try:  # one lookup per number at C speed; a number not in the table is spelled out below
        return list(map(_INT_OF_TEXT.__getitem__, parts))
    except KeyError:
        return [_int_text(part) for part in parts]


def _int_lists_text(text: str) -> list[list[int]]:
    """The integer arrays of the inside of a canonical array of them (`"[1,2],[]"`; `""` for none)."""
    if not text:
        return []
    if text[0] != "[" or text[-1] != "]":
        raise _NotCanonical
    return [_ints_text(part) for part in text[1:-1].split("],[")]


def _space_tables(variant: Variant) -> tuple[dict[str, int | None], dict[str, str]]:
    """Every canonical spelling of a state's space object of `variant`, without its braces.

    Two tables, cached on the variant: the spelling's card (`None` when swallowed) and a
    digit saying how the space lies: `"0"` face down, `"1"` face up, `"2"` swallowed. They
    hold exactly the spaces `read_grid` accepts: a card of the deck face up or down, or
    a swallowed space with no card.
    """
    found: tuple[dict[str, int | None], dict[str, str]] | None = variant._memo.get("codec.spaces")
    if found is None:
        cards: dict[str, int | None] = {}
        digits: dict[str, str] = {}
        # The writer's spellings (`_FACE_DOWN`, `_FACE_UP`, `SWALLOWED_TEXT`), without braces.
        for value in sorted(deck_values(variant)):
            for spellings, digit in ((_FACE_DOWN, "0"), (_FACE_UP, "1")):
                spelling = spellings[value][1:-1]
                cards[spelling], digits[spelling] = value, digit
        gone = SWALLOWED_TEXT[1:-1]
        cards[gone], digits[gone] = None, "2"
        found = variant._memo["codec.spaces"] = (cards, digits)
    return found


def _grids_text(
    text: str, variant: Variant, players: int, path: str
) -> list[tuple[list[int | None], int, int]]:
    """The grids of the inside of a canonical `grids` array (`[{space},...],[...]`) at `path`.

    Per seat, as `read_grid` gives them: the cards (`None` where swallowed) and the
    masks of the face-up and the swallowed spaces; columns must be swallowed whole.
    """
    if not (text.startswith("[{") and text.endswith("}]")):
        raise _NotCanonical
    card_of, digit_of = _space_tables(variant)
    seats = text[2:-2].split("}],[{")
    if len(seats) != players:
        raise _NotCanonical
    out = []
    for p, seat in enumerate(seats):
        spaces = seat.split("},{")
        if len(spaces) != variant.cells:
            raise _NotCanonical
        cards = list(map(card_of.__getitem__, spaces))
        spaces.reverse()  # the last space is the highest bit
        digits = "".join(map(digit_of.__getitem__, spaces))
        if "2" in digits:
            gone = int(digits.replace("1", "0").replace("2", "1"), 2)
            _check_whole_columns(variant, gone, f"{path}/{p}")
            out.append((cards, int(digits.replace("2", "0"), 2), gone))
        else:
            out.append((cards, int(digits, 2), 0))
    return out


def _variant_text_read(text: str) -> Variant:
    """The variant of the text of the `variant` object of a state document (cached by text)."""
    variant = _VARIANT_OF_TEXT.get(text)
    if variant is None:
        variant = read_variant(decode(text), "/variant")
        _VARIANT_OF_TEXT.put(text, variant, len(text))
    return variant


def _history_text(text: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The round history of the inside of a canonical `history` array (see `read_history`).

    Every state of a round holds the same history, so the last histories read are kept by
    their text (with the variant and number of players they were checked for).
    """
    if not text:
        return ()
    known = _HISTORIES.get(text)
    if known is not None and known[0] is variant and known[1] == players:
        return known[2]
    history = _read_history_text(text, variant, players)
    _HISTORIES.put(text, (variant, players, history), len(text))
    return history


_HISTORIES: Final = BoundedCache[str, tuple[Variant, int, tuple[RoundResult, ...]]](
    "codec.histories", max_entries=16, max_size=1 << 21
)
"""Histories read by the fast path, by their text (size: characters)."""
"""The last histories read by the fast path: text -> (variant, players, history)."""


def _read_history_text(text: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The round history of the inside of a canonical `history` array, read and checked."""
    if not (text.startswith(_ROUND_START) and text.endswith("}")):
        raise _NotCanonical
    history: list[RoundResult] = []
    totals = (0,) * players
    for n, body in enumerate(text[len(_ROUND_START) : -1].split("}," + _ROUND_START)):
        path = f"/history/{n}"
        (capped, closer, grids_text, penalized, raw, number, scores, round_totals, turns) = _cut(
            body, _ROUND_LAYOUT
        )
        _check_round_number(_int_text(number), path, n + 1)
        grids: list[Grid] = []
        raw_sums: list[int] = []
        for p, seat in enumerate(_grids_text(grids_text, variant, players, f"{path}/grids")):
            _add_final_grid(variant, *seat, f"{path}/grids/{p}", grids, raw_sums)
        result = _round_result(
            path,
            variant,
            players,
            n + 1,
            totals,
            grids,
            raw_sums,
            _opt_int_text(closer),
            _ints_text(raw),
            _ints_text(scores),
            _BOOL_OF_TEXT[penalized],
            _BOOL_OF_TEXT[capped],
            _int_text(turns),
            _ints_text(round_totals),
        )
        totals = result.totals
        history.append(result)
    return tuple(history)


def _read_canonical_state(text: str) -> State:
    """The state of canonical `state` document text, checked as `state_from_dict` checks it.

    Raises (any exception) when the text is not canonical or a check fails: the caller
    then loads the text the general way.
    """
    (
        closer,
        decks,
        position,
        seed,
        discard_pile,
        draw_pile,
        drawn,
        grids_text,
        history_text,
        opening,
        phase_name,
        players_text,
        round_text,
        rules,
        seq,
        totals,
        turn,
        turns,
        rest,
    ) = _cut(text, _STATE_LAYOUT)
    if not rest.endswith("}") or not reads_rules_version(rules):
        raise _NotCanonical
    variant = _variant_text_read(rest[:-1])
    players = _read_players(_int_text(players_text), variant)
    phase = read_phase(phase_name)
    round_number = read_int(_int_text(round_text), "/round", 1)
    cells = variant.cells
    cards: list[int] = []
    in_play: list[int] = []
    up = gone = 0
    for p, (values, seat_up, seat_gone) in enumerate(_grids_text(grids_text, variant, players, "/grids")):
        up |= seat_up << (p * cells)
        gone |= seat_gone << (p * cells)
        _add_cards(values, seat_gone, cards, in_play)
    return _assemble_state(
        variant,
        players,
        phase,
        round_number,
        cards,
        in_play,
        up,
        gone,
        tuple(_ints_text(draw_pile)),
        tuple(_ints_text(discard_pile)),
        read_opt_int(_opt_int_text(drawn), "/drawn"),
        read_seat(_opt_int_text(turn), "/turn", players),
        read_seat(_opt_int_text(closer), "/closer", players),
        _read_opening(_int_lists_text(opening), players),
        read_int(_int_text(turns), "/turns", 0),
        read_ints(_ints_text(totals), "/totals", players, "totals (one per seat)"),
        _history_text(history_text, variant, players),
        make_dealer(seed, _int_text(position), _int_lists_text(decks), "/dealer", variant),
        read_int(_int_text(seq), "/seq", 0),
    )
