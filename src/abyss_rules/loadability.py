"""What makes a state loadable beyond its shape: it could have been reached, and play can go on (rule 3.11).

The loaders (`loads_state`, `state_from_dict`) check a document's types, shapes, cards and
phase machine as they read it; then they build the `State` and ask `impossibility` whether
it is one that `new_game` plus legal play could reach in its phase.
`abyss_rules.testing.check_invariants` asks the same question, so a state the engine could
not reach is refused by both, for the same reason:

* the seat to act can act: it has a space that is not swallowed, and there is a legal
  action unless the game is over (rule 3.11);
* the opening flips are cards of the deck; during the opening they are the cards face up on
  the flipper's grid; after it, the seat to act is the one the flips chose (rules 2.1-2.4,
  3.1): so tampered flips cannot change who opens;
* with `swallow_on_final_reveal`, no finished grid shows a face-up column of equal cards
  (rule 4.3);
* `seq` counts the actions a game with these rounds, flips and turns can have taken: at least
  one per opening flip and turn, at most two per turn (a draw and its follow-up);
* the counters `seq`, `turns` and the dealer's position stay below `COUNTER_LIMIT` (2**48), so
  that any state reached from a loaded one by play can still be written and read (the formats
  hold counters up to 2**53 - 1; no game comes near 2**48 actions).

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(2, seed=1)
    >>> impossibility(state) is None
    True
    >>> impossibility(state._replace(seq=5))[:2]
    ('impossible_state', '/seq')
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from .errors import Code
from .rules.legal import legal_actions
from .rules.opening import choose_opener
from .state import Phase, State

__all__ = ["COUNTER_LIMIT", "impossibility"]

COUNTER_LIMIT: Final = 1 << 48
"""Counters (`seq`, `turns`, the dealer's position) of a loadable state are below this (rule 3.11)."""

Problem = tuple[str, str, str]
"""`(code, JSON pointer, message)` of the first reason a state is not loadable."""


def _impossible(path: str, message: str) -> Problem:
    return (Code.IMPOSSIBLE_STATE.value, path, message)


def impossibility(state: State) -> Problem | None:
    """The first reason `state` (well formed: shapes and cards checked) is not loadable, or `None`."""
    return (_counters(state) or _acting_seat(state) or _opening(state) or _final_columns(state)
            or _actions_taken(state))


def _counters(s: State) -> Problem | None:
    for path, value in (("/seq", s.seq), ("/turns", s.turns), ("/dealer/position", s.dealer.position)):
        if value >= COUNTER_LIMIT:
            return _impossible(path, f"counters stay below 2**48 (rule 3.11), got {value}")
    return None


def _acting_seat(s: State) -> Problem | None:
    if s.phase is Phase.GAME_OVER:
        return None
    if s.turn >= 0:
        cells = s.variant.cells
        if not ~(s.swallowed >> (s.turn * cells)) & ((1 << cells) - 1):
            return _impossible("/turn", f"seat {s.turn} has every space swallowed: it could not act, and no "
                                        "such seat is ever to act (rules 3.10, 6.1, 3.11)")
    if not legal_actions(s):
        return _impossible("/phase", "the game is not over but nobody has a legal action (rule 3.11)")
    return None


def _opening(s: State) -> Problem | None:
    values = {value for value, _ in s.variant.deck}
    for p, flips in enumerate(s.opening):
        for i, card in enumerate(flips):
            if card not in values:
                return (Code.CARDS_MISMATCH.value, f"/opening/{p}/{i}",
                        f"{card} is not a card of the deck (rule 2.1)")
    cells = s.variant.cells
    if s.phase is Phase.OPENING:
        for p, flips in enumerate(s.opening):
            base = p * cells
            shown = [s.cards[base + i] for i in range(cells) if s.face_up >> (base + i) & 1]
            if Counter(shown) - Counter(flips):
                return _impossible(f"/opening/{p}", f"seat {p}'s face-up cards {sorted(shown)} are not its "
                                                    f"opening flips {sorted(flips)} (rule 2.1)")
        return None
    if s.phase is Phase.GAME_OVER:
        return None
    opener = choose_opener(s.variant, s.opening, s.history)
    expected = (opener + s.turns) % len(s.totals)
    if s.turn != expected:
        return _impossible("/turn", f"the opening flips choose seat {opener} to open (rules 2.3, 2.4) and "
                                    f"{s.turns} turns were taken, so seat {expected} is to act, not {s.turn} "
                                    "(rule 3.1)")
    return None


def _final_columns(s: State) -> Problem | None:
    if not s.variant.swallow_on_final_reveal:
        return None
    for n, result in enumerate(s.history):
        for p, grid in enumerate(result.grids):
            col = _equal_face_up_column(grid.rows, grid.cols, grid.cards, grid.face_up, grid.swallowed)
            if col is not None:
                return _impossible(f"/history/{n}/grids/{p}",
                                   f"column {col} is face up with equal cards: the final reveal swallows it "
                                   "(rule 4.3)")
    return None


def _equal_face_up_column(rows: int, cols: int, cards: tuple[int | None, ...], up: tuple[bool, ...],
                          gone: tuple[bool, ...]) -> int | None:
    for col in range(cols):
        spaces = range(col, rows * cols, cols)
        if all(up[i] and not gone[i] for i in spaces) and len({cards[i] for i in spaces}) == 1:
            return col
    return None


def _actions_taken(s: State) -> Problem | None:
    flips_per_round = len(s.totals) * s.variant.initial_flips
    low = high = 0
    for result in s.history:
        low += flips_per_round + result.turns
        high += flips_per_round + 2 * result.turns
    if s.phase is not Phase.GAME_OVER:
        made = sum(map(len, s.opening))
        held = 1 if s.phase is Phase.DRAWN else 0
        low += made + s.turns + held
        high += made + 2 * s.turns + held
    if not low <= s.seq <= high:
        return _impossible("/seq", f"a game with these rounds, flips and turns has taken {low} to {high} "
                                   f"actions, not {s.seq} (rule 3.11)")
    return None
