"""Cards and decks (spec rule 1.1).

A card is a plain `int`: its value. A deck composition is a tuple of
`(value, count)` pairs in ascending value order; the *unshuffled* deck lists
each value `count` times in that order (rule 9.4).

Examples:
    >>> len(unshuffled_deck(STANDARD_DECK))
    150
    >>> unshuffled_deck(((0, 2), (5, 1)))
    (0, 0, 5)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

__all__ = [
    "MAX_CARD_VALUE",
    "MIN_CARD_VALUE",
    "STANDARD_DECK",
    "Composition",
    "composition_of",
    "deck_difference",
    "unshuffled_deck",
]

Composition = tuple[tuple[int, int], ...]
"""A deck composition: `(value, count)` pairs, values ascending and distinct."""

STANDARD_DECK: Final[Composition] = ((-2, 5), (-1, 10), (0, 15)) + tuple((v, 10) for v in range(1, 13))
"""The 150-card deck of rule 1.1: five -2s, ten -1s, fifteen 0s, ten each of 1 to 12."""

MIN_CARD_VALUE: Final = -1_000_000
"""The lowest card value a variant may use (keeps documents and scores sane)."""
MAX_CARD_VALUE: Final = 1_000_000
"""The highest card value a variant may use."""


def unshuffled_deck(composition: Composition) -> tuple[int, ...]:
    """The deck in its unshuffled order: values ascending, each repeated its count (rule 9.4).

    Examples:
        >>> unshuffled_deck(((-2, 2), (0, 1), (7, 3)))
        (-2, -2, 0, 7, 7, 7)
    """
    return tuple(value for value, count in composition for _ in range(count))


def composition_of(cards: Iterable[int]) -> Composition:
    """The composition (multiset) of some cards, as `(value, count)` pairs.

    Examples:
        >>> composition_of([3, -2, 3])
        ((-2, 1), (3, 2))
    """
    return tuple(sorted(Counter(cards).items()))


def deck_difference(cards: list[int], deck: tuple[int, ...]) -> str | None:
    """`None` if the sorted `cards` are the unshuffled `deck` (rule 1.1), else what differs.

    Examples:
        >>> deck_difference([0, 0, 5], (0, 0, 5)) is None
        True
        >>> deck_difference([0, 5, 5], (0, 0, 5))
        'too many 5 (x1); missing 0 (x1)'
    """
    if cards == list(deck):
        return None
    have, want = Counter(cards), Counter(deck)
    extra = sorted((have - want).items())
    lacking = sorted((want - have).items())
    parts = []
    if extra:
        parts.append("too many " + ", ".join(f"{value} (x{n})" for value, n in extra[:5]))
    if lacking:
        parts.append("missing " + ", ".join(f"{value} (x{n})" for value, n in lacking[:5]))
    return "; ".join(parts)
