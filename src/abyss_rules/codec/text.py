"""The direct writer of canonical state and view text (the fast path of `dumps_state` and `dumps_view`).

It spells the same text as `canonical_json` of the document's dict without building the dict:
the fields in sorted-key order, integers spelled by value (never by position in a table),
cached spellings of grid spaces, finished rounds, actions and the variant. A value it does not
spell (a bool where an int belongs, an int subclass...) raises, and the caller writes the
document with `json` instead, so the text is always what `json` writes; the property tests of
`tests/property/test_integer_spelling.py` compare the two over the whole range of every
integer field.
"""

from __future__ import annotations

from itertools import chain
from typing import Final

from ..actions import ACTION_TYPES, Action
from ..caches import BoundedCache
from ..grid import Grid
from ..state import Phase, RoundResult, State
from ..versions import FORMAT_VERSION, RULES_VERSION
from ..views import View
from .action import action_body
from .rounds import bools
from .strict import INT_ONLY, canonical_json
from .variant import variant_text

SWALLOWED_TEXT: Final = '{"card":null,"face_up":false,"swallowed":true}'
PHASE_SPELLING: Final = {phase: phase.value for phase in Phase}


# Writing canonical text directly: `json` walks a dict built for it and sorts its keys; the
# writer below spells the fields of a state in sorted-key order from tables of spellings. It
# handles plain values only -- ints, None where a field may be null, bools for flags -- and
# refuses anything else (`_Unusual`, or the TypeError or IndexError of a table), so that its
# text is always exactly what `json` writes.


class _Unusual(ValueError):
    """Internal: a value the direct writer does not spell; `json` writes it instead."""


class _IntSpellings(dict[int, str]):
    """`str(i)` by the int `i`: the common ones (`-512 <= i < 2048`) kept, any other spelled on demand.

    Looked up by value, never by position: every int is spelled as `str` spells it (a table
    indexed by position once spelled 2100 as -460).
    """

    def __missing__(self, value: int) -> str:
        return str(value)


_INT_SPELLINGS: Final = _IntSpellings((i, str(i)) for i in range(-512, 2048))
_NULLABLE_INT: Final = frozenset({int, type(None)})
_BOOL_SPELLING: Final = {True: "true", False: "false"}


def _array(values: tuple[int, ...]) -> str:
    """The inside of the canonical array of the plain ints `values` (`"3,-1,12"`).

    A bool would be spelled as an int: the caller checks the types first.
    """
    return ",".join(map(_INT_SPELLINGS.__getitem__, values))


def _null_or(value: int | None) -> str:
    """`"null"` or the plain int `value` spelled."""
    return "null" if value is None else str(value)


class _Spellings(dict[int | None, str]):
    """The canonical text of the space objects with one `face_up` and `swallowed`, by card.

    Filled as cards are met (at most 4096 kept); cards must be plain ints or None.
    """

    def __init__(self, face_up: bool, swallowed: bool) -> None:
        super().__init__()
        self.rest = f',"face_up":{_BOOL_SPELLING[face_up]},"swallowed":{_BOOL_SPELLING[swallowed]}}}'

    def __missing__(self, card: int | None) -> str:
        text = f'{{"card":{"null" if card is None else card}{self.rest}'
        if len(self) < 4096:
            self[card] = text
        return text


_SPELLINGS: Final = tuple(_Spellings(up, gone) for gone in (False, True) for up in (False, True))
"""The spellings of space objects by `face_up + 2 * swallowed`, then by card."""
_FACE_DOWN: Final = _SPELLINGS[0]
_FACE_UP: Final = _SPELLINGS[1]


_BOOL_TYPE: Final = frozenset({bool})


def grid_text(grid: Grid) -> str:
    """The canonical text of a grid's array of space objects (see `grid_body`)."""
    cards, face_up, swallowed = grid.cards, grid.face_up, grid.swallowed
    if not (
        _NULLABLE_INT.issuperset(map(type, cards))
        and _BOOL_TYPE.issuperset(map(type, face_up))
        and _BOOL_TYPE.issuperset(map(type, swallowed))
        and len(cards) == len(face_up) == len(swallowed)
    ):
        raise _Unusual
    spaces = [
        _SPELLINGS[up + 2 * gone][card] for card, up, gone in zip(cards, face_up, swallowed, strict=True)
    ]
    return f"[{','.join(spaces)}]"


def round_text(result: RoundResult) -> str:
    """The canonical text of a round object of the history (see `round_body`).

    The states of a game share their finished rounds, so the texts of the last rounds written
    are kept by the identity of their (immutable) `RoundResult`, which the cache holds alive.
    """
    known = _ROUND_TEXTS.get(id(result))
    if known is not None and known[0] is result:
        return known[1]
    text = _spell_round(result)
    _ROUND_TEXTS.put(id(result), (result, text), len(text))
    return text


_ROUND_TEXTS: Final = BoundedCache[int, tuple[RoundResult, str]](
    "codec.round_texts", max_entries=64, max_size=1 << 20
)
"""The text of the last rounds written, by the identity of the result it holds (size: characters)."""


def _spell_round(result: RoundResult) -> str:
    """The canonical text of a round object of the history, spelled."""
    raw, scores, totals = result.raw_scores, result.scores, result.totals
    if not (
        INT_ONLY.issuperset(map(type, chain(raw, scores, totals)))
        and type(result.round) is int
        and type(result.turns) is int
        and type(result.closer) in _NULLABLE_INT
        and type(result.penalized) is bool
        and type(result.capped) is bool
    ):
        raise _Unusual
    return (
        f'{{"capped":{_BOOL_SPELLING[result.capped]},"closer":{_null_or(result.closer)},'
        f'"grids":[{",".join(map(grid_text, result.grids))}],'
        f'"penalized":{_BOOL_SPELLING[result.penalized]},"raw_scores":[{_array(raw)}],'
        f'"round":{_INT_SPELLINGS[result.round]},"scores":[{_array(scores)}],"totals":[{_array(totals)}],'
        f'"turns":{_INT_SPELLINGS[result.turns]}}}'
    )


def state_text(state: State) -> str:
    """The canonical text of `state`'s document up to its variant, without the closing brace.

    The same text as `ENCODER.encode(state_body(state))[:-1]`, written directly.
    """
    cards, draw_pile, discard_pile, totals, opening = (
        state.cards,
        state.draw_pile,
        state.discard_pile,
        state.totals,
        state.opening,
    )
    dealer = state.dealer
    if not (
        INT_ONLY.issuperset(map(type, chain(cards, draw_pile, discard_pile, totals, *opening, *dealer.decks)))
        and type(state.phase) is Phase
        and type(state.round) is int
        and type(state.turn) is int
        and type(state.turns) is int
        and type(state.seq) is int
        and type(dealer.position) is int
        and type(state.drawn) in _NULLABLE_INT
        and type(state.closer) in _NULLABLE_INT
    ):
        raise _Unusual
    players = len(totals)
    cells = state.variant.cells
    if len(cards) != players * cells:
        raise _Unusual
    up, gone = state.face_up, state.swallowed
    seats = []
    for p in range(players):
        base = p * cells
        seat_up = bools(up >> base & ((1 << cells) - 1), cells)
        seat_cards = cards[base : base + cells]
        if gone >> base & ((1 << cells) - 1):
            seat_gone = bools(gone >> base & ((1 << cells) - 1), cells)
            spaces = [
                SWALLOWED_TEXT if g else (_FACE_UP if u else _FACE_DOWN)[c]
                for c, u, g in zip(seat_cards, seat_up, seat_gone, strict=True)
            ]
        else:
            spaces = [(_FACE_UP if u else _FACE_DOWN)[c] for c, u in zip(seat_cards, seat_up, strict=True)]
        seats.append(f"[{','.join(spaces)}]")
    turn = state.turn
    decks = ",".join(f"[{_array(order)}]" for order in dealer.decks)
    flips = ",".join(f"[{_array(seat)}]" for seat in opening)
    return (
        f'{{"closer":{_null_or(state.closer)},"dealer":{{"decks":[{decks}],"position":{dealer.position},'
        f'"seed":"{dealer.seed.hex()}"}},"discard_pile":[{_array(discard_pile)}],'
        f'"draw_pile":[{_array(draw_pile)}],"drawn":{_null_or(state.drawn)},'
        f'"format":"state","format_version":{FORMAT_VERSION},"grids":[{",".join(seats)}],'
        f'"history":[{",".join(map(round_text, state.history))}],"opening":[{flips}],'
        f'"phase":"{PHASE_SPELLING[state.phase]}","players":{players},"round":{state.round},'
        f'"rules_version":"{RULES_VERSION}","seq":{state.seq},"totals":[{_array(totals)}],'
        f'"turn":{turn if turn >= 0 else "null"},'
        f'"turns":{state.turns}'
    )


def action_text(action: Action) -> str:
    """The canonical text of an action object (cached: a game has few distinct actions)."""
    found = _ACTION_SPELLINGS.get(action)
    if found is None:
        found = _ACTION_SPELLINGS.put(action, canonical_json(action_body(action)))
    return found


_ACTION_SPELLINGS: Final = BoundedCache[Action, str]("codec.action_texts", max_entries=4096, max_size=4096)


def view_text(view: View) -> str:
    """The canonical text of `view`'s document written directly (see `state_text`).

    The same text as `canonical_json(view_to_dict(view))`.
    """
    opening, owing, discard_pile, totals, winners = (
        view.opening,
        view.owing_flips,
        view.discard_pile,
        view.totals,
        view.winners,
    )
    if not (
        INT_ONLY.issuperset(map(type, chain(discard_pile, totals, owing, winners, *opening)))
        and type(view.phase) is Phase
        and type(view.players) is int
        and type(view.round) is int
        and type(view.draw_pile_size) is int
        and type(view.turns) is int
        and type(view.seq) is int
        and _NULLABLE_INT.issuperset(
            map(type, (view.viewer, view.turn, view.opener, view.drawn, view.closer))
        )
        and all(type(action) in ACTION_TYPES for action in view.legal_actions)
    ):
        raise _Unusual
    flips = ",".join(f"[{_array(seat)}]" for seat in opening)
    return (
        f'{{"closer":{_null_or(view.closer)},"discard_pile":[{_array(discard_pile)}],'
        f'"draw_pile_size":{view.draw_pile_size},"drawn":{_null_or(view.drawn)},"format":"view",'
        f'"format_version":{FORMAT_VERSION},"grids":[{",".join(map(grid_text, view.grids))}],'
        f'"history":[{",".join(map(round_text, view.history))}],'
        f'"legal_actions":[{",".join(map(action_text, view.legal_actions))}],'
        f'"opener":{_null_or(view.opener)},"opening":[{flips}],"owing_flips":[{_array(owing)}],'
        f'"phase":"{PHASE_SPELLING[view.phase]}","players":{view.players},"round":{view.round},'
        f'"rules_version":"{RULES_VERSION}","seq":{view.seq},"totals":[{_array(totals)}],'
        f'"turn":{_null_or(view.turn)},"turns":{view.turns},"variant":{variant_text(view.variant)},'
        f'"viewer":{_null_or(view.viewer)},"winners":[{_array(winners)}]}}'
    )
