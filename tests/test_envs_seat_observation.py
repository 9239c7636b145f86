"""The environments' fast path (abyss_rules.envs._seat_observation): the encoding of a seat's view,
straight from the state, byte for byte, and from public facts only (rules 8.1-8.3).

tests/property/test_envs_observation_secrets.py checks the same over generated variants."""

from __future__ import annotations

import pickle
import random

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

from tests.builders import with_other_secrets
from tests.test_envs_observation import SETUPS, _walk

import abyss_rules as ar
from abyss_rules.envs import Observation
from abyss_rules.envs._seat_observation import COMPILED, SeatObservation

TIERS = [False, pytest.param(True, marks=pytest.mark.skipif(
    not COMPILED, reason="no compiled observation here (an editable install): tests/test_compiled.py runs "
                         "this on the wheel's"))]
"""The `compiled` options of `SeatObservation`: the pure tier, and the compiled one where it is built."""


@pytest.mark.parametrize("compiled", TIERS)
def test_every_seat_of_every_state_is_encoded_as_its_view_is(compiled: bool) -> None:
    checked = 0
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        fast = SeatObservation(obs, compiled=compiled)
        for seed in range(3):
            rng = random.Random(seed)
            for state in _walk(variant, players, seed, limit=600):
                # Every seat, in a random order (the order the environments ask in varies).
                for seat in rng.sample(range(players), players):
                    assert fast.encode(state, seat).tobytes() == obs.encode(ar.view(state, seat)).tobytes()
                    checked += 1
    assert checked > 5000


@pytest.mark.rule("8.1", "8.2", "8.3")
@pytest.mark.parametrize("compiled", TIERS)
def test_states_differing_only_in_secrets_give_identical_fast_observations(compiled: bool) -> None:
    rng = random.Random(16)
    checked = 0
    for variant, players in SETUPS:
        fast = SeatObservation(Observation(variant, players), compiled=compiled)
        for state in _walk(variant, players, seed=6):
            twin = with_other_secrets(state, rng)
            if twin.cards == state.cards and twin.draw_pile == state.draw_pile:
                continue
            for seat in range(players):
                assert fast.encode(twin, seat).tobytes() == fast.encode(state, seat).tobytes()
            checked += 1
    assert checked > 500


@pytest.mark.rule("8.1", "8.3")
def test_the_state_path_reads_the_public_facts_that_view_exposes() -> None:
    # One writer (batch._observation.Writer) makes every vector: Observation.encode hands it the
    # view's facts, the environments the state's fields read by _READ. Those fields are the view's,
    # face-down values aside (which the writer never puts in a vector: the secrecy tests).
    from abyss_rules.batch._observation import view_facts
    from abyss_rules.envs._seat_observation import _READ

    checked = 0
    for variant, players in SETUPS:
        bits = tuple(1 << i for i in range(players * variant.cells))
        for state in _walk(variant, players, seed=2, limit=300)[::5]:
            fields = _READ(state)
            for seat in range(players):
                v = ar.view(state, seat)
                facts = view_facts(v, bits)
                assert len(fields[5]) == v.draw_pile_size
                assert fields[:2] == facts[:2] and fields[3:5] == facts[3:5] and fields[6:] == facts[6:]
                up = fields[3]
                assert [card for i, card in enumerate(fields[2]) if up >> i & 1] == \
                    [card for i, card in enumerate(facts[2]) if up >> i & 1]
                assert all(card is None for i, card in enumerate(facts[2]) if not up >> i & 1)
                assert (len(state.opening[seat]) < variant.initial_flips if state.phase is ar.Phase.OPENING
                        else state.turn == seat) == (seat in v.to_act)
                checked += 1
    assert checked > 300


@pytest.mark.parametrize("compiled", TIERS)
def test_the_vectors_are_new_writable_float32_arrays(compiled: bool) -> None:
    fast = SeatObservation(Observation(ar.Variant.standard(), 2), compiled=compiled)
    state = ar.new_game(2, seed=1)
    first, second = fast.encode(state, 0), fast.encode(state, 0)
    assert first.dtype == "float32" and first.shape == (468,) and first.flags.writeable
    first[:] = 7
    assert (second != 7).any() and (fast.encode(state, 0) != 7).any()


def test_it_refuses_what_is_not_an_observation_and_pickles_without_its_memos() -> None:
    with pytest.raises(ar.ConfigError) as caught:
        SeatObservation("standard")  # type: ignore[arg-type]
    assert caught.value.code == "invalid_env_option"
    with pytest.raises(ar.ConfigError, match="compiled must be"):
        SeatObservation(Observation(ar.Variant.standard(), 2), compiled="yes")  # type: ignore[arg-type]
    obs = Observation(ar.Variant.standard(), 3)
    fast = SeatObservation(obs)
    states = _walk(ar.Variant.standard(), 3, 4, limit=200)
    for state in states[:50]:
        fast.encode(state, 1)
    copy = pickle.loads(pickle.dumps(fast))
    for state in states[50:]:
        assert copy.encode(state, 2).tobytes() == fast.encode(state, 2).tobytes()


def test_the_default_tier_is_the_compiled_one_where_it_is_built() -> None:
    obs = Observation(ar.Variant.standard(), 2)
    assert SeatObservation(obs).compiled is COMPILED
    assert SeatObservation(obs, compiled=False).compiled is False
    if not COMPILED:
        with pytest.raises(ar.ConfigError, match="no compiled observation") as caught:
            SeatObservation(obs, compiled=True)
        assert caught.value.code == "invalid_env_option"


@pytest.mark.skipif(not COMPILED, reason="no compiled observation here (an editable install): "
                                         "tests/test_compiled.py runs this on the wheel's")
def test_the_compiled_writer_refuses_bad_arguments_without_writing_out_of_bounds() -> None:
    import numpy as np

    from abyss_rules._seat_encode import encode_into

    obs = Observation(ar.Variant.standard(), 2)
    fast = SeatObservation(obs, compiled=True)
    state = ar.new_game(2, seed=3)
    fields = (state.phase, state.turn, state.cards, state.face_up_mask, state.swallowed_mask, state.draw_pile,
              state.discard_pile, state.drawn, state.closer, state.opening, state.turns, state.totals)
    consts = fast._c
    masks = (state.face_up_mask.to_bytes(3, "little"), state.swallowed_mask.to_bytes(3, "little"))
    out = np.empty(obs.size, np.float32)
    encode_into(out, 0, fields, consts, *masks)
    assert out.tobytes() == obs.encode(ar.view(state, 0)).tobytes()
    bad = [
        ((np.empty(obs.size - 1, np.float32), 0, fields, consts, *masks), ValueError),  # too short
        ((np.empty(obs.size, np.float32)[::-1], 0, fields, consts, *masks), (ValueError, BufferError)),
        ((bytes(4 * obs.size), 0, fields, consts, *masks), (TypeError, BufferError)),  # read-only
        ((out, 2, fields, consts, *masks), ValueError),  # no such seat
        ((out, "0", fields, consts, *masks), TypeError),
        ((out, 0, fields[:11], consts, *masks), TypeError),
        ((out, 0, fields, consts[:3], *masks), TypeError),
        ((out, 0, (*fields[:2], state.cards[:5], *fields[3:]), consts, *masks), TypeError),
        ((out, 0, ("turn", *fields[1:]), consts, *masks), ValueError),  # not a phase
        ((out, 0, (*fields[:6], (99,), *fields[7:]), consts, *masks), ValueError),  # no such card
        ((out, 0, fields, (consts[0], b"\0" * 8, *consts[2:]), *masks), TypeError),  # a short table
    ]
    for arguments, error in bad:
        with pytest.raises(error):
            encode_into(*arguments)
    with pytest.raises(TypeError):
        encode_into(out, 0)
