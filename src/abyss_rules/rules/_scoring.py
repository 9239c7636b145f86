"""Scoring a round and ending the game (spec sections 6 and 7)."""

from __future__ import annotations

from typing import NamedTuple

from ..config import Variant
from ..state import winners  # rule 7.4, stated with the state that reports it (State.winners)

__all__ = ["RoundScores", "closer_penalty_applies", "game_is_over", "round_scores", "score_round", "winners"]


def round_scores(cards: tuple[int, ...], players: int, cells: int) -> tuple[int, ...]:
    """Each player's round score: the sum of their remaining spaces (rule 6.4).

    Swallowed spaces hold 0 in the flat representation, so they add nothing.

    Examples:
        >>> round_scores((1, 2, 0, -2, 12, 12), players=2, cells=3)
        (3, 22)
    """
    return tuple(sum(cards[p * cells:(p + 1) * cells]) for p in range(players))


def closer_penalty_applies(scores: tuple[int, ...], closer: int) -> bool:
    """Whether the closer's score is multiplied (rule 6.5).

    It is when the closer scored more than zero and some other player scored
    the same or less: the closer must be *strictly* lowest to escape, and a
    score of zero or below is never multiplied.

    Examples:
        >>> closer_penalty_applies((10, 10), closer=0)   # tied: doubled
        True
        >>> closer_penalty_applies((9, 10), closer=0)    # strictly lowest
        False
        >>> closer_penalty_applies((0, -5), closer=0)    # zero is never doubled
        False
    """
    mine = scores[closer]
    if mine <= 0:
        return False
    return any(score <= mine for seat, score in enumerate(scores) if seat != closer)


class RoundScores(NamedTuple):
    """What a round's raw scores come to (see `score_round`)."""

    scores: tuple[int, ...]
    """The round scores: the raw scores, the closer's multiplied if penalized (rule 6.5)."""
    penalized: bool
    """Whether the closer's score was multiplied (rule 6.5)."""
    totals: tuple[int, ...]
    """The totals after the round: the previous totals plus the scores (rule 7.1)."""


def score_round(variant: Variant, raw: tuple[int, ...], closer: int | None,
                previous: tuple[int, ...]) -> RoundScores:
    """Score a round from its raw scores (rule 6.4): the closer's is multiplied by
    `closer_multiplier` when the penalty applies (rule 6.5), and the totals grow by the scores
    (rule 7.1). A round without a closer (ended by the stalling cap, rule 6.7) has no penalty.

    The one statement of the scoring: the engine scores each round with it, and the codec
    checks a loaded round's scores, penalty and totals against it.

    Examples:
        >>> score_round(Variant.standard(), (10, 10), closer=0, previous=(50, 7))
        RoundScores(scores=(20, 10), penalized=True, totals=(70, 17))
        >>> score_round(Variant.standard(), (9, 10), closer=0, previous=(0, 0)).penalized
        False
    """
    scores = raw
    penalized = False
    if closer is not None and variant.closer_multiplier != 1 and closer_penalty_applies(raw, closer):
        penalized = True
        scores = (*raw[:closer], raw[closer] * variant.closer_multiplier, *raw[closer + 1:])
    return RoundScores(scores, penalized, tuple(total + score for total, score in zip(previous, scores,
                                                                                       strict=True)))


def game_is_over(variant: Variant, round_number: int, totals: tuple[int, ...]) -> bool:
    """Whether the game ends after round `round_number` is scored (rules 7.2, 7.3).

    Examples:
        >>> standard = Variant.standard()
        >>> game_is_over(standard, 6, (87, 100, 64)), game_is_over(standard, 6, (87, 99, 64))
        (True, False)
        >>> game_is_over(Variant.short(), 1, (3, 5))
        True
    """
    if variant.max_rounds is not None and round_number >= variant.max_rounds:
        return True
    target = variant.target_score
    return target is not None and max(totals) >= target

