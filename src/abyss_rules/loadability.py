"""What makes a state loadable: it shows no fact play cannot produce, and play can go on (rule 3.11).

The loaders (`loads_state`, `state_from_dict`) read a document's fields one by one (types,
shapes, card values); then they build the `State` and ask the rule function
`state_problem` whether play from `new_game` could reach it in its phase.
`abyss_rules.testing.check_invariants` asks the same function, and so does `impossibility`
here: a state the engine could not reach is refused by all three, for the same reason,
with the same JSON pointer.

A loaded state holds at most what play could have put there, and a state that shows none of
the facts of rule 3.11 is loaded (what play decides out of sight -- where the cards were dealt,
the order of the draw pile, the words of the stream -- is taken as the state says):

* swallowed spaces are whole columns, and no column is left face up with equal cards
  (rule 4.1);
* the history has one result per finished round, with running totals, no round after the
  game was over, no round with a closer in fewer turns than its closer needed, and no finished
  grid holding more copies of a card than the deck has (rules 1.1, 6.2, 6.6, 7.1-7.3);
* the phase machine holds: a drawn card only in the drawn phase, a seat to act only in the
  turn and drawn phases, every seat's opening flips made after the opening, and in it exactly
  its face-up cards; after the opening every seat still shows (face up or swallowed) at least
  its opening flips, and seat by seat no more than its flips and its own turns could have
  turned (rules 2.1, 3.1-3.4);
* the discard pile is never empty, and holds at most one card a completed turn besides the
  card dealt onto it and the swallowed ones -- exactly those before the first turn ends
  (rules 1.4, 4.1);
* the closer has no face-down card and is not to act; with no closer everybody still has
  one; the stalling cap and the round limit are not passed (rules 6.1, 6.2, 6.7, 7.3);
* every card of the deck is in exactly one place (rule 1.1);
* `seq` and `turns` are below `COUNTER_LIMIT` (2**40) and the dealer's position is at most
  `WORDS_PER_ACTION * (seq + 1)` (rule 3.12); at `seq == COUNTER_LIMIT - 1` no action is
  legal, so every state reached from a loaded one can be saved and loaded again, and every
  counter stays below 2**53 - 1;
* the seat to act can act, the opening flips chose the opener, no finished grid shows a
  column the final reveal swallows (rule 4.3), `seq` fits the flips and turns taken, and
  a legal action exists exactly when the game is not over and not at the bound (rules 3.11,
  3.12, 7.5).

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(2, seed=1)
    >>> impossibility(state) is None
    True
    >>> impossibility(state._replace(seq=5))[:2]
    ('impossible_state', '/seq')
"""

from __future__ import annotations

from .rules.reachable import COUNTER_LIMIT, state_problem
from .state import State

__all__ = ["COUNTER_LIMIT", "impossibility"]

Problem = tuple[str, str, str]
"""`(code, JSON pointer, message)` of the first reason a state is not loadable."""


def impossibility(state: State) -> Problem | None:
    """The first reason `state` (well formed: one grid, opening record and total per seat) is
    not loadable, or `None`: `state_problem` as a `(code, JSON pointer, message)` triple."""
    problem = state_problem(state)
    return None if problem is None else (problem.code, problem.path, problem.message)
