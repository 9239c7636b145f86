"""A stateful test: Hypothesis plays games step by step, mixing legal and arbitrary (mostly illegal)
actions, and checks every invariant after every step (spec section 3, "Rejecting an action")."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import abyss_rules as ar
from abyss_rules.errors import RULE_OF_CODE
from abyss_rules.testing import actions, check_invariants, seeds, variants


class PlayWithMistakes(RuleBasedStateMachine):
    """One game: legal moves make progress, arbitrary actions must be rejected or be legal, and a
    rejected action never changes the state."""

    state: ar.State

    @initialize(variant=variants(), data=st.data(), seed=seeds())
    def start(self, variant: ar.Variant, data: st.DataObject, seed: int | bytes) -> None:
        players = data.draw(st.integers(variant.min_players, variant.max_players), label="players")
        self.state = ar.new_game(players, variant, seed)
        self.arbitrary = actions(variant, players)
        self.rejected = 0

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data(), count=st.integers(1, 12))
    def play_legal_actions(self, data: st.DataObject, count: int) -> None:
        for _ in range(count):
            legal = ar.legal_actions(self.state)
            if not legal:
                break
            action = data.draw(st.sampled_from(legal), label="legal action")
            before = self.state
            self.state = ar.apply(before, action)
            assert self.state.seq == before.seq + 1
            check_invariants(self.state)

    @rule(data=st.data())
    def try_an_arbitrary_action(self, data: st.DataObject) -> None:
        action = data.draw(self.arbitrary, label="arbitrary action")
        before = self.state
        legal = action in ar.legal_actions(before)
        try:
            after = ar.apply(before, action)
        except ar.IllegalActionError as error:
            assert not legal
            assert error.code in set(ar.Code) and error.rule == RULE_OF_CODE[error.code]
            assert ar.check(before, action) is not None
            assert self.state is before and self.state == before
            self.rejected += 1
        else:
            assert legal
            self.state = after

    @rule(data=st.data())
    def try_a_stale_or_foreign_object(self, data: st.DataObject) -> None:
        junk = data.draw(st.sampled_from([None, 3, "flip", (0, 0, 0), ar.Flip]), label="junk")
        with pytest.raises(ar.MalformedActionError):
            ar.apply(self.state, junk)

    @invariant()
    def invariants_hold(self) -> None:
        if hasattr(self, "state"):
            check_invariants(self.state)


# The profile's max_examples (tests/conftest.py), with longer games than the default 50 steps.
PlayWithMistakes.TestCase.settings = settings(stateful_step_count=60)
TestPlayWithMistakes = pytest.mark.rule("3.2", "3.9", "3.10", "7.5", "2.2")(PlayWithMistakes.TestCase)
