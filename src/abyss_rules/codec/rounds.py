"""Grids and round results as JSON: written for states and views, read and checked (rules 4.1, 6.3-6.6)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Final

from ..caches import BoundedCache
from ..config import Variant
from ..errors import Code, DecodeError
from ..grid import Grid
from ..rules.scoring import closer_penalty_applies
from ..state import RoundResult
from .strict import bad, read_bool, read_int, read_ints, read_list, read_object, read_seat, wrong_type

# -- grids and round results ---------------------------------------------------------------

_SPACE_FIELDS: Final = frozenset({"card", "face_up", "swallowed"})
_get_space: Final = itemgetter("card", "face_up", "swallowed")
_ROUND_FIELDS: Final = frozenset(
    {"round", "grids", "closer", "raw_scores", "scores", "penalized", "capped", "turns", "totals"}
)


def grid_body(grid: Grid) -> list[dict[str, Any]]:
    return [
        {"card": card, "face_up": up, "swallowed": gone}
        for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True)
    ]


def round_body(result: RoundResult) -> dict[str, Any]:
    return {
        "round": result.round,
        "grids": [grid_body(g) for g in result.grids],
        "closer": result.closer,
        "raw_scores": list(result.raw_scores),
        "scores": list(result.scores),
        "penalized": result.penalized,
        "capped": result.capped,
        "turns": result.turns,
        "totals": list(result.totals),
    }


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


def deck_values(variant: Variant) -> frozenset[int]:
    """The distinct card values of `variant`'s deck (cached on the variant)."""
    found: frozenset[int] | None = variant._memo.get("codec.values")
    if found is None:
        found = variant._memo["codec.values"] = frozenset(value for value, _ in variant.deck)
    return found


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
        _check_whole_columns(variant, gone, path)
    return cards, up, gone


def _check_whole_columns(variant: Variant, gone: int, path: str) -> None:
    """A grid's swallowed spaces (`gone`) make whole columns (rule 4.1)."""
    for col, mask in enumerate(variant.geometry.column_masks):
        part = gone & mask
        if part and part != mask:
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


def _read_round(
    value: Any, path: str, variant: Variant, players: int, number: int, previous: tuple[int, ...]
) -> RoundResult:
    d = read_object(value, path, _ROUND_FIELDS)
    _check_round_number(d["round"], path, number)
    grids: list[Grid] = []
    raw_sums: list[int] = []
    for p, spaces in enumerate(read_list(d["grids"], f"{path}/grids", players, "grids (one per seat)")):
        where = f"{path}/grids/{p}"
        _add_final_grid(variant, *read_grid(spaces, where, variant), where, grids, raw_sums)
    return _round_result(
        path,
        variant,
        players,
        number,
        previous,
        grids,
        raw_sums,
        d["closer"],
        d["raw_scores"],
        d["scores"],
        d["penalized"],
        d["capped"],
        d["turns"],
        d["totals"],
    )


def _check_round_number(value: Any, path: str, number: int) -> None:
    """The `round` field of the history's round `number` (at `path`) says `number`."""
    if read_int(value, f"{path}/round", 1) != number:
        raise bad(
            f"round {number} of the history says it is round {value}", f"{path}/round", Code.IMPOSSIBLE_STATE
        )


def _add_final_grid(
    variant: Variant,
    cards: list[int | None],
    up: int,
    gone: int,
    path: str,
    grids: list[Grid],
    raw_sums: list[int],
) -> None:
    """Append a finished round's grid (read at `path`) and its raw score to `grids` and `raw_sums`."""
    if up | gone != (1 << variant.cells) - 1:
        s = next(s for s in range(variant.cells) if not (up | gone) >> s & 1)
        raise bad(
            "a finished round has no face-down card (rule 6.3)", f"{path}/{s}/face_up", Code.IMPOSSIBLE_STATE
        )
    grids.append(make_grid(variant, cards, up, gone))
    raw_sums.append(sum(card for card in cards if card is not None))


def _round_result(
    path: str,
    variant: Variant,
    players: int,
    number: int,
    previous: tuple[int, ...],
    grids: list[Grid],
    raw_sums: list[int],
    closer_value: Any,
    raw_value: Any,
    scores_value: Any,
    penalized_value: Any,
    capped_value: Any,
    turns_value: Any,
    totals_value: Any,
) -> RoundResult:
    """Round `number` of the history (at `path`) from its grids, read already, and its other fields.

    Checks the fields' types and that the scores, penalty, cap and totals follow from the
    grids and the `previous` totals (rules 6.4-6.7, 7.1).
    """
    closer = read_seat(closer_value, f"{path}/closer", players)
    raw = read_ints(raw_value, f"{path}/raw_scores", players, "scores (one per seat)")
    scores = read_ints(scores_value, f"{path}/scores", players, "scores (one per seat)")
    penalized = read_bool(penalized_value, f"{path}/penalized")
    capped = read_bool(capped_value, f"{path}/capped")
    turns = read_int(turns_value, f"{path}/turns", 0)
    totals = read_ints(totals_value, f"{path}/totals", players, "totals (one per seat)")
    if list(raw) != raw_sums:
        p = next(p for p in range(players) if raw[p] != raw_sums[p])
        raise bad(
            f"seat {p}'s round score is the sum of its cards (rule 6.4)",
            f"{path}/raw_scores/{p}",
            Code.IMPOSSIBLE_STATE,
        )
    cap = variant.max_turns_per_round
    if capped != (cap is not None and turns >= cap) or (cap is not None and turns > cap):
        raise bad(
            f"capped must say whether the round reached max_turns_per_round ({cap}) (rule 6.7)",
            f"{path}/capped",
            Code.IMPOSSIBLE_STATE,
        )
    if (closer is None) != capped:
        raise bad(
            "a round ends with a closer, or by the stalling cap with none (rules 6.2, 6.7)",
            f"{path}/closer",
            Code.IMPOSSIBLE_STATE,
        )
    applies = closer is not None and variant.closer_multiplier != 1 and closer_penalty_applies(raw, closer)
    expected = raw
    if applies and closer is not None:
        expected = raw[:closer] + (raw[closer] * variant.closer_multiplier,) + raw[closer + 1 :]
    if penalized != applies:
        raise bad(
            "penalized does not match the closer penalty (rule 6.5)",
            f"{path}/penalized",
            Code.IMPOSSIBLE_STATE,
        )
    if scores != expected:
        raise bad(
            "the scores do not follow from the raw scores (rule 6.5)", f"{path}/scores", Code.IMPOSSIBLE_STATE
        )
    if totals != tuple(a + b for a, b in zip(previous, scores, strict=True)):
        raise bad(
            "the totals are not the previous totals plus the scores (rule 7.1)",
            f"{path}/totals",
            Code.IMPOSSIBLE_STATE,
        )
    return RoundResult(
        round=number,
        grids=tuple(grids),
        closer=closer,
        raw_scores=raw,
        scores=scores,
        penalized=penalized,
        capped=capped,
        turns=turns,
        totals=totals,
    )


def read_history(value: Any, path: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    history = []
    totals = (0,) * players
    for n, item in enumerate(read_list(value, path)):
        result = _read_round(item, f"{path}/{n}", variant, players, n + 1, totals)
        totals = result.totals
        history.append(result)
    return tuple(history)
