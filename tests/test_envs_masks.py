"""The action masks of the environments (abyss_rules.envs._masks): the indices of a tuple of legal
actions, remembered in one bounded cache for the whole process."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numpy", reason="the 'batch' extra is not installed: pip install -e '.[batch]'")

import abyss_rules as ar
from abyss_rules.action_space import ActionSpace
from abyss_rules.caches import cache_stats, clear_caches
from abyss_rules.envs._masks import LegalMasks
from abyss_rules.rules._legal import seat_legal_actions


def _states(variant: ar.Variant, seed: int) -> list[ar.State]:
    rng = random.Random(seed)
    state, states = ar.new_game(2, variant, seed=seed), []
    while not state.is_over:
        states.append(state)
        legal = ar.legal_actions(state)
        state = ar.apply(state, legal[rng.randrange(len(legal))])
    return states


def test_a_mask_marks_exactly_the_seats_legal_indices_in_two_shapes_at_once() -> None:
    standard, small = ar.Variant.standard(), ar.Variant(rows=2, cols=3)
    cases = [(LegalMasks(ActionSpace(v)), s) for v in (standard, small) for s in _states(v, 3)[:400]]
    random.Random(5).shuffle(cases)  # the two shapes' look-ups interleaved in one cache
    for masks, state in cases:
        for seat in range(2):
            expected = np.array(masks.space.mask(state, seat), dtype=np.int8)
            mask = masks.of(seat_legal_actions(state, seat))
            assert mask.dtype == np.int8 and mask.tolist() == expected.tolist()


def test_one_tuple_asked_by_two_shapes_gets_each_shapes_indices() -> None:
    actions = (ar.Flip(0, 1, 0),)  # index cols * 1: 4 on a 3x4 grid, 3 on a 4x3 grid
    wide, tall = LegalMasks(ActionSpace(ar.Variant.standard())), LegalMasks(
        ActionSpace(ar.Variant(rows=4, cols=3)))
    for _ in range(2):
        assert wide.of(actions).nonzero()[0].tolist() == [4]
        assert tall.of(actions).nonzero()[0].tolist() == [3]


def test_of_hands_out_new_arrays_and_shared_the_read_only_one() -> None:
    masks = LegalMasks(ActionSpace(ar.Variant.standard()))
    actions = seat_legal_actions(ar.new_game(2, seed=1), 0)
    first, second = masks.of(actions), masks.of(actions)
    first[:] = 0
    assert second.sum() == 12 and masks.of(actions).sum() == 12
    shared = masks.shared(actions)
    assert shared is masks.shared(actions) and not shared.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        shared[0] = 0


def test_the_cache_is_bounded_registered_and_emptied_by_clear_caches() -> None:
    masks = LegalMasks(ActionSpace(ar.Variant.standard()))
    for state in _states(ar.Variant.standard(), 8)[:50]:
        masks.of(seat_legal_actions(state, 0))
    entries, _ = cache_stats()["envs.masks"]
    assert 0 < entries <= 32768
    clear_caches()
    assert cache_stats()["envs.masks"][0] == 0
    state = _states(ar.Variant.standard(), 8)[10]
    assert masks.of(seat_legal_actions(state, 0)).tolist() == [int(b) for b in masks.space.mask(state, 0)]
