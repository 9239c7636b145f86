"""The rules as pure functions over `State` (spec sections 1-7): every rule function, one import.

A program plays through the package itself (`abyss_rules.new_game`, `legal_actions`, `apply`,
`check`, `apply_with_events`); this module holds those and the rule functions behind them, for
readers of the engine and for other implementations of the spec. Each part of the spec has one
private module here: dealing (1.4, 9.5, 9.6), the opening (2), the turn (3), columns (4), the
draw pile (5), the round's end (6), scoring (6, 7), what may be played (`legal_actions`), why
an action is refused (`diagnose`), which states play can reach (rule 3.11: `state_problem`,
`impossibility`) and the engine (`apply`).

Examples:
    >>> from abyss_rules.rules import legal_actions, new_game, state_problem
    >>> state = new_game(2, seed=1)
    >>> state_problem(state) is None, len(legal_actions(state))
    (True, 24)
"""

from ._columns import complete_column, partly_swallowed, swallow_column, swallow_complete_columns
from ._dealing import deal_round, deck_order_problem, new_game, player_count_problem
from ._draw_pile import can_draw, reshuffle
from ._engine import apply, apply_with_events, check
from ._illegal import diagnose, not_a_state, rejection
from ._legal import legal_actions
from ._opening import choose_opener, opener_decision
from ._reachable import CHECKS, COUNTER_LIMIT, Problem, impossibility, state_problem
from ._round_end import end_round
from ._scoring import RoundScores, closer_penalty_applies, game_is_over, round_scores, score_round, winners
from ._turn import discard_drawn, draw, end_turn, flip, place_drawn, take_discard

__all__ = [
    "CHECKS",
    "COUNTER_LIMIT",
    "Problem",
    "RoundScores",
    "apply",
    "apply_with_events",
    "can_draw",
    "check",
    "choose_opener",
    "closer_penalty_applies",
    "complete_column",
    "deal_round",
    "deck_order_problem",
    "diagnose",
    "discard_drawn",
    "draw",
    "end_round",
    "end_turn",
    "flip",
    "game_is_over",
    "impossibility",
    "legal_actions",
    "new_game",
    "not_a_state",
    "opener_decision",
    "partly_swallowed",
    "place_drawn",
    "player_count_problem",
    "rejection",
    "reshuffle",
    "round_scores",
    "score_round",
    "state_problem",
    "swallow_column",
    "swallow_complete_columns",
    "take_discard",
    "winners",
]
