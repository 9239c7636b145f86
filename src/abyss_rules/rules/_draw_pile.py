"""The draw pile running out (spec section 5)."""

from __future__ import annotations

from ..config import Variant
from ..randomness import shuffled
from ..state import Dealer

__all__ = ["can_draw", "reshuffle"]


def can_draw(draw_pile: tuple[int, ...], discard_pile: tuple[int, ...]) -> bool:
    """Whether a card can be had by drawing (rule 5.4).

    Either the draw pile holds a card, or a reshuffle can make one: the
    discard pile holds at least two cards (one stays, or opens the new
    discard pile, and at least one is left to draw).

    Examples:
        >>> can_draw((), (5,)), can_draw((), (5, 7)), can_draw((3,), ())
        (False, True, True)
    """
    return bool(draw_pile) or len(discard_pile) >= 2


def reshuffle(
    variant: Variant, discard_pile: tuple[int, ...], dealer: Dealer
) -> tuple[tuple[int, ...], tuple[int, ...], Dealer]:
    """Form a new draw pile from the discard pile (rules 5.1, 5.2, 5.3).

    With `reshuffle_keeps_top` (rule 5.1) every discard but the top is
    shuffled into the new draw pile and the top card stays. Without it (rule
    5.2) the whole discard pile is shuffled and the first card of the result
    opens a new discard pile. Either way the old discard history is gone
    (rule 5.3). Requires `can_draw((), discard_pile)`. Returns `(draw_pile,
    discard_pile, dealer)`.

    Examples:
        The examples of rules 5.1 and 5.2 (all-zero seed, position 0):

        >>> from abyss_rules.state import Dealer
        >>> dealer = Dealer(bytes(32))
        >>> reshuffle(Variant.standard(), (5, 9, -1, 3), dealer)[:2]
        ((3, 9, -1), (5,))
        >>> reshuffle(Variant(reshuffle_keeps_top=False), (5, 9, -1, 3), dealer)[:2]
        ((3, -1, 9), (5,))
    """
    if variant.reshuffle_keeps_top:
        new_draw, position = shuffled(dealer.seed, dealer.position, discard_pile[1:])
        new_discard = discard_pile[:1]
    else:
        mixed, position = shuffled(dealer.seed, dealer.position, discard_pile)
        new_discard, new_draw = mixed[:1], mixed[1:]
    return new_draw, new_discard, Dealer(dealer.seed, position, dealer.decks)
