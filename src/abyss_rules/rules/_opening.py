"""Opening a round: the opening flips and the choice of the opener (spec section 2)."""

from __future__ import annotations

from ..config import Opener, Variant
from ..state import RoundResult

__all__ = ["choose_opener", "opener_decision"]


def choose_opener(
    variant: Variant, opening: tuple[tuple[int, ...], ...], history: tuple[RoundResult, ...]
) -> int:
    """The seat that takes the first turn of a round (rules 2.3, 2.4).

    With `opener = "previous_closer"` and a previous round that had a closer,
    that closer opens (rule 2.4). Otherwise the highest sum of opening flips
    opens; among those tied, the highest single flipped card; among those
    still tied, the lowest seat (rule 2.3). See `opener_decision` for which
    step chose it.

    Examples:
        >>> v = Variant.standard()
        >>> choose_opener(v, ((5, 5), (12, -2), (3, 7)), ())   # sums 10, 10, 10: 12 is highest
        1
        >>> choose_opener(v, ((4, 4), (8, 0)), ())            # 8 beats 4
        1
        >>> choose_opener(v, ((6, 2), (2, 6)), ())            # full tie: lowest seat
        0
    """
    return opener_decision(variant, opening, history)[0]


def opener_decision(
    variant: Variant, opening: tuple[tuple[int, ...], ...], history: tuple[RoundResult, ...]
) -> tuple[int, str]:
    """The opener of a round (rules 2.3, 2.4) and the step that chose it.

    The step is `"previous_closer"` (rule 2.4), `"no_flips"` (no seat made an opening flip,
    `initial_flips = 0`: all tie and seat 0 opens), or the step of rule 2.3 that left one seat:
    `"sum"`, `"highest_card"` or `"lowest_seat"`.

    Examples:
        >>> v = Variant.standard()
        >>> opener_decision(v, ((8, 2), (9, 1)), ())
        (1, 'highest_card')
        >>> opener_decision(v, ((), ()), ())
        (0, 'no_flips')
    """
    if variant.opener is Opener.PREVIOUS_CLOSER and history and history[-1].closer is not None:
        return history[-1].closer, "previous_closer"
    keys = [(sum(flips), max(flips) if flips else 0) for flips in opening]
    best = max(keys)
    seat = keys.index(best)  # the first of the best: the lowest seat
    if not any(opening):
        return seat, "no_flips"
    if [key[0] for key in keys].count(best[0]) == 1:
        return seat, "sum"
    return seat, "highest_card" if keys.count(best) == 1 else "lowest_seat"
