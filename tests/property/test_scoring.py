"""Score laws: the end of a round and of the game, restated from spec sections 6 and 7 and checked on
every round of generated games."""

from __future__ import annotations

import pytest
from hypothesis import event, given
from tests.property.restated import spec_penalized

import abyss_rules as ar
from abyss_rules.testing import Game, games


def round_ends(game: Game) -> list[tuple[ar.State, ar.Action, ar.State]]:
    return [(b, a, s) for b, a, s in game.steps() if len(s.history) > len(b.history)]


@pytest.mark.rule("6.3", "6.4", "4.3", "6.6")
@given(games(max_actions=400, finish_rounds=True))
def test_a_round_score_is_the_sum_of_the_revealed_grid(game: Game) -> None:
    v = game.variant
    cells = v.cells
    for before, action, after in round_ends(game):
        result = after.history[-1]
        assert result.round == before.round
        for p, grid in enumerate(result.grids):
            # the final reveal turns every remaining card face up (6.3) ...
            assert all(up != gone for up, gone in zip(grid.face_up, grid.swallowed, strict=True))
            # ... and the raw score is the sum of the remaining cards (6.4)
            assert result.raw_scores[p] == sum(c for c in grid.cards if c is not None)
            if p == action.player:
                continue  # the last action changed this grid
            for s in range(cells):
                was_gone = before.swallowed_mask >> (p * cells + s) & 1
                if was_gone:
                    assert grid.swallowed[s]
                elif not grid.swallowed[s]:
                    assert grid.cards[s] == before.cards[p * cells + s]  # revealed as dealt
                else:
                    assert v.swallow_on_final_reveal  # swallowed at the reveal only with 4.3
            if v.swallow_on_final_reveal:  # no complete column is left (4.3)
                for col in range(v.cols):
                    column = [grid.cards[r * v.cols + col] for r in range(v.rows)]
                    assert None in column or len(set(column)) > 1
        event(f"closer: {'none (capped)' if result.closer is None else 'yes'}; penalized: {result.penalized}")


@pytest.mark.rule("6.1", "6.5", "6.7", "6.6")
@given(games(max_actions=400, finish_rounds=True))
def test_the_closer_penalty_applies_exactly_when_the_spec_says(game: Game) -> None:
    v = game.variant
    for before, _, after in round_ends(game):
        result = after.history[-1]
        assert (result.closer is None) == result.capped  # only the cap ends a round without a closer
        assert result.capped == (v.max_turns_per_round is not None and result.turns == v.max_turns_per_round)
        assert result.turns == before.turns + 1
        assert result.penalized == spec_penalized(v, result.raw_scores, result.closer)
        for p, (raw, score) in enumerate(zip(result.raw_scores, result.scores, strict=True)):
            factor = v.closer_multiplier if result.penalized and p == result.closer else 1
            assert score == raw * factor


@pytest.mark.rule("6.1", "6.2", "6.7")
@given(games(max_actions=400, finish_rounds=True))
def test_the_first_player_to_reveal_everything_closes_and_the_others_play_once_more(game: Game) -> None:
    closed_at: int | None = None  # the round's completed turns when it was closed
    for before, action, after in game.steps():
        if before.phase is ar.Phase.OPENING or type(action) is ar.Draw:
            continue  # neither an opening flip nor a draw can close or end a round
        ended = len(after.history) > len(before.history)
        result = after.history[-1] if ended else None
        closer = result.closer if result is not None else after.closer
        if result is not None and result.capped:
            assert closer is None  # the cap leaves no closer (6.7)
            closed_at = None
            continue
        if before.closer is None:
            closes = _no_face_down_after(before, action, after)
            assert closer == (action.player if closes else None)
            if closes:
                closed_at = before.turns + 1
        else:
            assert closer == before.closer  # only one player closes a round
        if result is not None:
            assert closed_at is not None  # an uncapped round ends only after a closing
            assert result.turns - closed_at == before.players - 1  # one more turn each (6.2)
            closed_at = None


def _no_face_down_after(before: ar.State, action: ar.Action, after: ar.State) -> bool:
    """Whether the acting player has no face-down card at the end of their action (rule 6.1)."""
    p = action.player
    if len(after.history) == len(before.history):
        return after.face_down_count(p) == 0
    grid_before = before.grid(p)
    down = set(grid_before.face_down)
    if type(action) in (ar.Flip, ar.DiscardDrawn, ar.TakeDiscard, ar.PlaceDrawn):
        down.discard(action.row * before.variant.cols + action.col)  # type: ignore[union-attr]
    return not down


@pytest.mark.rule("7.1", "7.2", "7.3", "7.4")
@given(games(max_actions=600, finish_rounds=True))
def test_totals_grow_only_by_round_scores_and_the_lowest_totals_win(game: Game) -> None:
    v = game.variant
    for before, _, after in game.steps():
        ended = len(after.history) > len(before.history)
        if not ended:
            assert after.totals == before.totals
            continue
        result = after.history[-1]
        expected = tuple(t + s for t, s in zip(before.totals, result.scores, strict=True))
        assert after.totals == result.totals == expected
        over = (v.max_rounds is not None and result.round >= v.max_rounds) or (
            v.target_score is not None and max(expected) >= v.target_score
        )
        assert after.is_over == over
    final = game.final
    if final.is_over:
        low = min(final.totals)
        assert final.winners == tuple(p for p, t in enumerate(final.totals) if t == low)
        assert final.winners  # somebody always wins
        event("game over")
    else:
        assert final.winners == ()
