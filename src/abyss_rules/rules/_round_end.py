"""Ending a round: final reveal, scores, and the next round or the end (spec sections 6 and 7)."""

from __future__ import annotations

from .._event_types import Event, FinalReveal, GameOver, NewRound, OpeningDone, RoundClosed, RoundScored
from .._grid import Grid
from ..state import Phase, RoundResult, State
from ._columns import swallow_complete_columns
from ._dealing import deal_round
from ._positional import new_state
from ._scoring import game_is_over, round_scores, score_round

__all__ = ["end_round"]


def end_round(
    s: State,
    cards: tuple[int, ...],
    up: int,
    gone: int,
    draw_pile: tuple[int, ...],
    discard: tuple[int, ...],
    closer: int | None,
    turns: int,
    log: list[Event] | None = None,
) -> State:
    """End the round of `s` after its last turn, given that turn's results.

    1. If the stalling cap ended it, there is no closer (rule 6.7), also when that turn was the
       last of the closer's last turns (rule 6.8).
    2. Every face-down card is turned over (rule 6.3) and, with
       `swallow_on_final_reveal`, complete columns are swallowed (rule 4.3).
    3. Each round score is the sum of the player's remaining cards (rule 6.4);
       the closer's is multiplied when the penalty applies (rule 6.5).
    4. Totals grow by the round scores (rule 7.1); the round is kept in the
       history (rule 6.6).
    5. The game ends (rules 7.2, 7.3), or the next round is dealt (rule 1.4).

    Each step is reported to `log`, when given, as the events of `abyss_rules.events`.
    """
    v = s.variant
    g = v.geometry
    players = len(s.totals)
    capped = v.max_turns_per_round is not None and turns >= v.max_turns_per_round
    if capped:
        closer = None
    if log is not None:
        if s.closer is None and closer is not None:
            log.append(RoundClosed(closer=closer))
        log.append(FinalReveal(cards=tuple(
            (p, *g.positions[space], cards[p * g.cells + space])
            for p in range(players) for space in g.spaces(g.full_mask & ~((up | gone) >> p * g.cells)))))
    up = ((1 << players * g.cells) - 1) & ~gone
    if v.swallow_on_final_reveal:
        cards, up, gone, discard = swallow_complete_columns(g, players, cards, up, gone, discard, log)
    raw = round_scores(cards, players, g.cells)
    scores, penalized, totals = score_round(v, raw, closer, s.totals)
    grids = tuple(Grid.from_flat(v.rows, v.cols, cards, up, gone, p) for p in range(players))
    result = RoundResult(
        round=s.round, grids=grids, closer=closer, raw_scores=raw, scores=scores,
        penalized=penalized, capped=capped, turns=turns, totals=totals,
    )
    history = (*s.history, result)
    if log is not None:
        log.append(RoundScored(round=s.round, raw_scores=raw, scores=scores, penalized=penalized,
                               closer=closer, capped=capped, totals=totals))
    if game_is_over(v, s.round, totals):
        after = new_state((
            v, Phase.GAME_OVER, s.round, None, cards, up, gone, draw_pile, discard,
            None, closer, s.opening, turns, totals, history, s.dealer, s.seq + 1,
        ))
        if log is not None:
            log.append(GameOver(winners=after.winners, totals=totals))
        return after
    after = deal_round(v, s.round + 1, totals, history, s.dealer, s.seq + 1)
    if log is not None:
        log.append(NewRound(round=after.round, draw_pile_size=len(after.draw_pile),
                            top_discard=after.discard_pile[0]))
        if after.turn is not None:  # initial_flips = 0: the opener plays at once
            log.append(OpeningDone(opener=after.turn))
    return after
