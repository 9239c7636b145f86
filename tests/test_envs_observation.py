"""The observation encoding (abyss_rules.envs._observation): its layout, what it says, its bounds,
and that it reads public facts only (rules 8.1-8.3)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import numpy as np
from tests.builders import hand_built, tiny, with_other_secrets

import abyss_rules as ar
from abyss_rules.envs import Observation
from abyss_rules.envs._observation import TOTAL_CLIP


def _walk(variant: ar.Variant, players: int, seed: int, limit: int = 4000) -> list[ar.State]:
    """The states of one game of uniformly random legal actions (to the end, or `limit` actions)."""
    rng = random.Random(seed)
    state = ar.new_game(players, variant, seed=seed)
    states = [state]
    while not state.is_over and len(states) <= limit:
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
        states.append(state)
    return states


SETUPS = [
    (ar.Variant.standard(), 2),
    (ar.Variant.standard(), 5),
    (ar.Variant.short(), 8),
    (tiny(), 3),                                                             # a small deck: reshuffles
    (tiny(reshuffle_keeps_top=False, max_turns_per_round=9, initial_flips=0), 4),
    (ar.Variant.standard().replace(rows=2, cols=5, opener="previous_closer", flip_turn=False), 3),
]


def test_the_layout_is_contiguous_and_sized_from_players_cells_and_values() -> None:
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        k, c, p = len(variant.deck), variant.cells, players
        assert obs.size == 4 + 1 + 3 * p + 3 * k + 1 + 1 + p + p * c * (k + 2)
        at = 0
        for field in obs.fields:
            assert field.start == at and field.stop > field.start and field.low < field.high
            at = field.stop
        assert at == obs.size == obs.low.size == obs.high.size
    assert Observation(ar.Variant.standard(), 2).size == 468


def _decode_checks(obs: Observation, state: ar.State, seat: int, vector: np.ndarray) -> None:
    """What each field says, read back from `vector` and compared with the view."""
    v = ar.view(state, seat)
    p = state.players
    values = [value for value, _ in state.variant.deck]
    order = [(seat + k) % p for k in range(p)]

    def part(name: str) -> np.ndarray:
        return vector[obs.slice(name)]

    def hot(name: str) -> list[int]:
        return [int(i) for i in np.flatnonzero(part(name))]

    assert hot("phase") == [["opening", "turn", "drawn", "game_over"].index(v.phase.value)]
    assert part("to_act")[0] == (seat in v.to_act)
    assert hot("turn") == ([] if v.turn is None else [order.index(v.turn)])
    assert hot("closer") == ([] if v.closer is None else [order.index(v.closer)])
    assert hot("drawn") == ([] if v.drawn is None else [values.index(v.drawn)])
    assert hot("top_discard") == ([] if v.top_discard is None else [values.index(v.top_discard)])
    counts = part("discard_counts") * np.array([n for _, n in state.variant.deck])
    assert np.allclose(counts, [v.discard_pile.count(value) for value in values], atol=1e-4)
    assert part("draw_pile")[0] == pytest.approx(v.draw_pile_size / state.variant.deck_size)
    need = state.variant.initial_flips
    assert np.allclose(part("opening_flips"), [len(v.opening[s]) / need if need else 0 for s in order])
    scale = state.variant.target_score or 100
    assert np.allclose(part("totals"), [np.clip(v.totals[s] / scale, -TOTAL_CLIP, TOTAL_CLIP) for s in order])
    width = len(values) + 2
    grids = part("grids").reshape(p, state.variant.cells, width)
    for k, s in enumerate(order):
        grid = v.grids[s]
        for space in range(state.variant.cells):
            entries = [int(i) for i in np.flatnonzero(grids[k, space])]
            if grid.swallowed[space]:
                assert entries == [1]
            elif grid.face_up[space]:
                assert entries == [2 + values.index(grid.cards[space])]
            else:
                assert entries == [0]


def test_every_field_says_what_the_table_says() -> None:
    checked = 0
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        for state in _walk(variant, players, seed=players)[::7]:
            for seat in range(players):
                _decode_checks(obs, state, seat, obs.encode(ar.view(state, seat)))
                checked += 1
    assert checked > 300


def test_seats_are_relative_to_the_viewer() -> None:
    variant = ar.Variant.standard()
    obs = Observation(variant, 3)
    state = ar.new_game(players=3, seed=9)
    state = ar.apply(state, ar.Flip(2, 0, 0))       # seat 2 flips one card
    grids = obs.slice("grids")
    width = len(variant.deck) + 2
    for viewer in range(3):
        vector = obs.encode(ar.view(state, viewer))
        k = (2 - viewer) % 3                         # where seat 2 sits for this viewer
        first_space = vector[grids][k * variant.cells * width:][:width]
        assert first_space[0] == 0 and first_space[2:].sum() == 1   # face up, one value
        assert vector[obs.slice("opening_flips")][k] == 0.5


def test_observations_stay_within_the_box() -> None:
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        for state in _walk(variant, players, seed=11)[::3]:
            for seat in range(players):
                vector = obs.encode(ar.view(state, seat))
                assert vector.dtype == np.float32 and vector.shape == (obs.size,)
                assert (obs.low <= vector).all() and (vector <= obs.high).all()


def test_totals_are_clipped() -> None:
    state = hand_built(ar.new_game(players=2, seed=1), totals=(10_000, -10_000))
    obs = Observation(ar.Variant.standard(), 2)
    assert list(obs.encode(ar.view(state, 0))[obs.slice("totals")]) == [TOTAL_CLIP, -TOTAL_CLIP]


def test_a_spectator_is_encoded_in_seat_order_without_to_act() -> None:
    obs = Observation(ar.Variant.standard(), 2)
    state = ar.new_game(players=2, seed=3)
    spectator, seat0 = obs.encode(ar.view(state)), obs.encode(ar.view(state, 0))
    assert spectator[obs.slice("to_act")][0] == 0 and seat0[obs.slice("to_act")][0] == 1
    differs = np.flatnonzero(spectator != seat0)
    assert list(differs) == [obs.slice("to_act").start]


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_states_differing_only_in_secrets_give_identical_observations_for_every_agent() -> None:
    rng = random.Random(15)
    checked = 0
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        for state in _walk(variant, players, seed=5):
            twin = with_other_secrets(state, rng)
            if twin.cards == state.cards and twin.draw_pile == state.draw_pile:
                continue  # nothing secret left to change (e.g. after the final reveal)
            for seat in range(players):
                assert obs.encode(ar.view(twin, seat)).tobytes() == obs.encode(ar.view(state, seat)).tobytes()
            checked += 1
    assert checked > 500


def test_an_observation_changes_when_a_public_fact_does() -> None:
    # The non-interference test above would pass for a constant encoding: this one would not.
    obs = Observation(ar.Variant.standard(), 2)
    states = _walk(ar.Variant.standard(), 2, seed=8)
    vectors = {obs.encode(ar.view(s, 0)).tobytes() for s in states}
    views = {ar.dumps_view(ar.view(s, 0)) for s in states}
    assert len(vectors) > 0.9 * len(views)


def test_bad_arguments_are_refused_with_typed_errors() -> None:
    with pytest.raises(ar.ConfigError) as error:
        Observation(ar.Variant.standard(), 9)
    assert error.value.code == "invalid_players"
    with pytest.raises(ar.ConfigError) as error:
        Observation("quick", 2)
    assert error.value.code == "invalid_variant"
    obs = Observation(ar.Variant.standard(), 2)
    with pytest.raises(ar.ConfigError) as error:
        obs.encode(ar.view(ar.new_game(players=3, seed=1), 0))
    assert error.value.code == "invalid_players"
    with pytest.raises(ar.ConfigError) as error:
        obs.encode(ar.view(ar.new_game(players=2, variant=ar.Variant.short(), seed=1), 0))
    assert error.value.code == "invalid_variant"
    with pytest.raises(ar.ConfigError) as error:
        obs.encode(ar.new_game(players=2, seed=1))  # type: ignore[arg-type]  # a State, not a View
    assert error.value.code == "invalid_variant"


def _table_after(marker: str, text: str) -> str:
    """The Markdown table that starts after `marker` in `text`."""
    lines = text.split(marker, 1)[1].strip().splitlines()
    end = next(i for i, line in enumerate(lines + [""]) if not line.startswith("|"))
    return "\n".join(lines[:end])


def test_the_docs_tables_are_the_codes() -> None:
    from pathlib import Path

    from abyss_rules.envs import _rewards as rewards

    page = (Path(__file__).resolve().parents[1] / "docs" / "rl.md").read_text(encoding="utf-8")
    table = Observation(ar.Variant.standard(), 2).table()
    assert _table_after("<!-- observation-table: standard, 2 players -->", page) == table
    doc = rewards.__doc__
    assert doc is not None
    in_code = _table_after("between those moments every reward is 0):", doc)
    assert _table_after("<!-- reward-table -->", page) == in_code


def test_the_encoder_gives_the_reference_encoding_byte_for_byte() -> None:
    # The fast encoder (byte rows, memos of the last discard pile, opening flips and totals)
    # against the layout written field by field (tests/observation_reference.py), for every seat
    # and a spectator at every state of random games, in the order the environments see them.
    from tests.observation_reference import reference_encode

    checked = 0
    for variant, players in SETUPS:
        obs = Observation(variant, players)
        for seed in range(3):
            for state in _walk(variant, players, seed, limit=600):
                for seat in [*range(players), None]:
                    v = ar.view(state, seat)
                    assert obs.encode(v).tobytes() == reference_encode(obs, v).tobytes(), (variant, seat)
                    checked += 1
    assert checked > 5000


def test_hand_built_views_with_swallowed_or_hidden_values_are_encoded_as_the_reference() -> None:
    # Views not made by ar.view (a value on a face-down space, swallowed spaces): the slow path.
    from tests.observation_reference import reference_encode

    state = ar.new_game(2, seed=3)
    v = ar.view(state, 0)
    secret = ar.Grid.from_flat(3, 4, state.cards, 0b1, 0b10, 0)  # not public: face-down values shown
    odd = attrs_evolve(v, grids=(secret, v.grids[1]))
    obs = Observation(ar.Variant.standard(), 2)
    assert obs.encode(odd).tobytes() == reference_encode(obs, odd).tobytes()
    assert obs.encode(odd).tobytes() == obs.encode(attrs_evolve(v, grids=(
        ar.Grid.from_flat(3, 4, state.cards, 0b1, 0b10, 0, public=True), v.grids[1]))).tobytes()


def attrs_evolve(v: ar.View, **changes: object) -> ar.View:
    import attrs

    return attrs.evolve(v, **changes)


def test_an_encoder_pickles_and_its_copy_encodes_the_same() -> None:
    import pickle

    obs = Observation(ar.Variant.standard(), 3)
    states = _walk(ar.Variant.standard(), 3, 4, limit=200)
    for state in states[:50]:
        obs.encode(ar.view(state, 1))
    copy = pickle.loads(pickle.dumps(obs))
    for state in states[50:]:
        assert copy.encode(ar.view(state, 2)).tobytes() == obs.encode(ar.view(state, 2)).tobytes()
