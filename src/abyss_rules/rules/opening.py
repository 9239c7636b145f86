"""Opening a round: the opening flips and the choice of the opener (spec section 2)."""

from __future__ import annotations

from ..config import Opener, Variant
from ..state import RoundResult

__all__ = ["choose_opener"]


def choose_opener(
    variant: Variant, opening: tuple[tuple[int, ...], ...], history: tuple[RoundResult, ...]
) -> int:
    """The seat that takes the first turn of a round (rules 2.3, 2.4).

    With `opener = "previous_closer"` and a previous round that had a closer,
    that closer opens (rule 2.4). Otherwise the highest sum of opening flips
    opens; among those tied, the highest single flipped card; among those
    still tied, the lowest seat (rule 2.3).

    Examples:
        >>> v = Variant.standard()
        >>> choose_opener(v, ((5, 5), (12, -2), (3, 7)), ())   # sums 10, 10, 10: 12 is highest
        1
        >>> choose_opener(v, ((4, 4), (8, 0)), ())            # 8 beats 4
        1
        >>> choose_opener(v, ((6, 2), (2, 6)), ())            # full tie: lowest seat
        0
    """
    if variant.opener is Opener.PREVIOUS_CLOSER and history and history[-1].closer is not None:
        return history[-1].closer
    best_seat = 0
    best_key: tuple[int, int] | None = None
    for seat, flips in enumerate(opening):
        key = (sum(flips), max(flips) if flips else 0)
        if best_key is None or key > best_key:
            best_seat, best_key = seat, key
    return best_seat
