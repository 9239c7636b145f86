"""Rules restated from the text of spec/rules.md, independently of the engine, for the property tests.

Each function is written from the spec, not from the engine's code, so that a test comparing the two
can fail when they disagree.

    >>> import abyss_rules as ar
    >>> state = ar.new_game(2, seed=1)
    >>> spec_code(state, ar.Draw(0)), spec_code(state, ar.Flip(0, 0, 0))
    ('wrong_phase', None)
    >>> spec_listing(state) == list(ar.legal_actions(state))
    True
"""

from __future__ import annotations

import abyss_rules as ar

OPENING, TURN, DRAWN, OVER = ar.Phase.OPENING, ar.Phase.TURN, ar.Phase.DRAWN, ar.Phase.GAME_OVER

KINDS_OF_PHASE: dict[ar.Phase, tuple[type, ...]] = {
    OPENING: (ar.Flip,),
    TURN: (ar.TakeDiscard, ar.Draw, ar.Flip),
    DRAWN: (ar.PlaceDrawn, ar.DiscardDrawn),
}
"""Spec section 3, "Phases": the kinds of action each phase takes."""

TRANSITIONS: frozenset[tuple[ar.Phase, ar.Phase, bool]] = frozenset({
    (OPENING, OPENING, False), (OPENING, TURN, False),
    (TURN, DRAWN, False), (TURN, TURN, False), (TURN, OVER, False),
    (DRAWN, TURN, False), (DRAWN, OVER, False),
    # a round ends and the next is dealt: opening, or the opener's turn when initial_flips = 0
    (TURN, OPENING, True), (TURN, TURN, True), (DRAWN, OPENING, True), (DRAWN, TURN, True),
})
"""Spec section 3, "Phases": (phase before, phase after, whether a new round began) of one action."""

LAST_SEQ = 2**40 - 1
"""Rule 3.12: a game that has taken this many actions takes no more."""


def spec_code(state: ar.State, action: ar.Action) -> str | None:
    """The code of the first failing check of spec section 3 ("Rejecting an action"), step by step;
    ``None`` when every check passes (step 1, malformed actions, is not reached by actions).

        >>> import abyss_rules as ar
        >>> state = ar.new_game(2, seed=1)
        >>> at_the_bound = state._replace(seq=LAST_SEQ)
        >>> spec_code(at_the_bound, ar.Flip(0, 0, 0)), spec_code(at_the_bound, ar.Draw(0))
        ('counter_limit', 'wrong_phase')
    """
    v = state.variant
    kind = type(action)
    player = action.player
    if state.phase is OVER:  # 2
        return "game_over"
    if not 0 <= player < state.players:  # 3
        return "no_such_player"
    if kind not in KINDS_OF_PHASE[state.phase]:  # 4
        return "wrong_phase"
    if state.phase is OPENING:  # 5
        if len(state.opening[player]) >= v.initial_flips:
            return "no_flips_owed"
    elif player != state.turn:
        return "not_your_turn"
    if state.phase is TURN and kind is ar.Flip and not v.flip_turn:  # 6
        return "flip_turn_disabled"
    if kind is ar.Draw:
        if not state.draw_pile and len(state.discard_pile) < 2:  # 7
            return "no_card_to_draw"
        return "counter_limit" if state.seq >= LAST_SEQ else None  # last (spec check 8, rule 3.12)
    row, col = action.row, action.col  # type: ignore[union-attr]
    if not (0 <= row < v.rows and 0 <= col < v.cols):  # 8
        return "no_such_space"
    bit = 1 << (player * v.cells + row * v.cols + col)
    if state.swallowed_mask & bit:  # 9
        return "space_swallowed"
    if kind in (ar.Flip, ar.DiscardDrawn) and state.face_up_mask & bit:  # 10
        return "space_face_up"
    return "counter_limit" if state.seq >= LAST_SEQ else None  # last (spec check 8, rule 3.12)


def spec_listing(state: ar.State) -> list[ar.Action]:
    """The legal actions in the canonical order of spec section 3, from the players' grids."""
    v = state.variant
    positions = [(s // v.cols, s % v.cols) for s in range(v.cells)]
    out: list[ar.Action] = []
    if state.seq >= LAST_SEQ:  # rule 3.12
        return out
    if state.phase is OPENING:
        for p in range(state.players):
            if len(state.opening[p]) < v.initial_flips:
                down = state.grid(p).face_down
                out += [ar.Flip(p, r, c) for s, (r, c) in enumerate(positions) if s in down]
        return out
    if state.phase is OVER:
        return out
    p = state.turn
    grid = state.grid(p)
    remaining = [rc for s, rc in enumerate(positions) if s in grid.remaining]
    down = [rc for s, rc in enumerate(positions) if s in grid.face_down]
    if state.phase is TURN:
        out += [ar.TakeDiscard(p, r, c) for r, c in remaining]
        if state.draw_pile or len(state.discard_pile) >= 2:  # 5.4
            out.append(ar.Draw(p))
        if v.flip_turn:
            out += [ar.Flip(p, r, c) for r, c in down]
    else:
        out += [ar.PlaceDrawn(p, r, c) for r, c in remaining]
        out += [ar.DiscardDrawn(p, r, c) for r, c in down]
    return out


def spec_opener(variant: ar.Variant, opening: tuple[tuple[int, ...], ...],
                history: tuple[ar.RoundResult, ...]) -> int:
    """Rules 2.3 and 2.4: the previous closer (with that rule, if there was one), else the highest sum
    of opening flips, then the highest single flip, then the lowest seat.

    >>> spec_opener(ar.Variant.standard(), ((5, 5), (12, -2), (3, 7)), ())
    1
    """
    if variant.opener is ar.Opener.PREVIOUS_CLOSER and history and history[-1].closer is not None:
        return history[-1].closer
    return min(range(len(opening)), key=lambda p: (-sum(opening[p]), -max(opening[p], default=0), p))


def spec_penalized(variant: ar.Variant, raw: tuple[int, ...], closer: int | None) -> bool:
    """Rule 6.5: the closer's raw score is > 0 and some other raw score is <= it; a multiplier of 1
    records no penalty.

    >>> v = ar.Variant.standard()
    >>> spec_penalized(v, (7, 12, 7), 2), spec_penalized(v, (7, 12, 6), 2), spec_penalized(v, (-5, -3), 1)
    (True, False, False)
    """
    if closer is None or variant.closer_multiplier == 1:
        return False
    mine = raw[closer]
    return mine > 0 and any(score <= mine for seat, score in enumerate(raw) if seat != closer)
