"""Pictures depend on public facts only (rules 8.1-8.3), over generated variants and games."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.builders import with_other_secrets

import abyss_rules as ar
from abyss_rules.pictures import to_svg
from abyss_rules.testing import Game, games, variants


@pytest.mark.rule("8.1", "8.2", "8.3")
@given(games(variants(), max_actions=200, finish_rounds=True), st.randoms(use_true_random=False))
def test_a_picture_depends_only_on_public_facts(game: Game, rng: random.Random) -> None:
    for state in game.states[:: max(1, len(game.states) // 5)] + (game.final,):
        twin = with_other_secrets(state, rng)
        picture = to_svg(state)
        assert ET.fromstring(picture).tag == "{http://www.w3.org/2000/svg}svg"
        assert to_svg(twin) == picture
        for seat in range(state.players):
            assert to_svg(ar.view(twin, seat)) == to_svg(ar.view(state, seat))
        for result in state.history:
            ET.fromstring(to_svg(result))
