"""The batch engine's API (abyss_rules.batch): building, stepping, refusing, resetting, reading.

Its equality with the reference engine over thousands of games is checked in
tests/property/test_batch_differential.py.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import abyss_rules as ar
from abyss_rules import batch
from abyss_rules.action_space import ActionSpace
from abyss_rules.batch import choose_uniformly
from abyss_rules.randomness import normalize_seed, stream_blocks

STANDARD = ar.Variant.standard()
TINY = ar.Variant(rows=2, cols=2, max_players=3, initial_flips=1, deck=((0, 3), (5, 4), (9, 7)),
                  target_score=40)


@pytest.mark.rule("10.2")
def test_every_batch_entry_point_takes_a_preset_name_as_new_game_does() -> None:
    short = ar.Variant.short()
    assert batch.Batch.new(2, "short", seeds=[4]).state(0) == ar.new_game(2, "short", seed=4)
    assert batch.Env(2, "short").variant is short
    assert batch.random_playouts(3, 2, "short", seed=1) == batch.random_playouts(3, 2, short, seed=1)
    assert batch.Observation("short", 2).size == batch.Observation(short, 2).size
    for make in (lambda: batch.Batch.new(2, "quick", seeds=[4]), lambda: batch.Env(2, 7),  # type: ignore[arg-type]
                 lambda: batch.Observation("quick", 2)):
        with pytest.raises(ar.ConfigError) as info:
            make()
        assert info.value.code == "invalid_variant"


@pytest.mark.rule("9.1", "9.5")
def test_games_are_dealt_as_new_game_deals_them() -> None:
    seeds = [0, 1, 2**255 + 7, bytes(range(32)), 42]
    for players, variant in [(2, STANDARD), (8, STANDARD), (3, TINY), (1, ar.Variant(min_players=1))]:
        b = batch.Batch.new(players, variant, seeds=seeds)
        assert len(b) == len(seeds)
        for i, seed in enumerate(seeds):
            assert b.state(i) == ar.new_game(players, variant, seed=seed)
    assert batch.Batch.new(seeds=[5]).state(0) == ar.new_game(seed=5)  # 2 players, standard
    fresh = batch.Batch.new(2, STANDARD, seeds=[None, None])
    assert fresh.state(0).dealer.seed != fresh.state(1).dealer.seed


def test_state_accepts_numpy_and_negative_game_numbers_and_refuses_others() -> None:
    b = batch.Batch.new(2, STANDARD, seeds=[3, 4])
    assert b.state(np.int64(1)) == b.state(-1) == ar.new_game(2, seed=4)
    for bad in (2, -3, "0", 1.0):
        with pytest.raises(IndexError):
            b.state(bad)  # type: ignore[arg-type]
    assert b.states() == [ar.new_game(2, seed=3), ar.new_game(2, seed=4)]


@pytest.mark.parametrize(("kwargs", "error", "code"), [
    ({"players": 9, "seeds": [1]}, ar.ConfigError, "invalid_players"),
    ({"players": True, "seeds": [1]}, ar.ConfigError, "invalid_players"),
    ({"players": 2, "variant": "quick", "seeds": [1]}, ar.ConfigError, "invalid_variant"),
    ({"players": 2, "variant": 3, "seeds": [1]}, ar.ConfigError, "invalid_variant"),
    ({"players": 2, "seeds": []}, ar.SeedError, "invalid_seed"),
    ({"players": 2, "seeds": [1, -1]}, ar.SeedError, "invalid_seed"),
    ({"players": 2, "seeds": [b"short"]}, ar.SeedError, "invalid_seed"),
    ({"players": 2, "seeds": 12}, ar.SeedError, "invalid_seed"),
    ({"players": 2, "seeds": "12"}, ar.SeedError, "invalid_seed"),
])
def test_bad_setups_are_refused_with_typed_errors(kwargs: dict[str, object], error: type[ar.AbyssError],
                                                  code: str) -> None:
    with pytest.raises(error) as caught:
        batch.Batch.new(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == code
    if kwargs.get("seeds") == [1, -1]:
        assert "seeds[1]" in caught.value.message


def _flip_everything_legal(b: batch.Batch) -> np.ndarray:
    return np.argmax(b.legal_mask(), axis=1)


@pytest.mark.rule("11.3")
def test_actor_and_masks_follow_the_games() -> None:
    b = batch.Batch.new(2, STANDARD, seeds=range(4))
    space = b.space
    assert space == ActionSpace(STANDARD) and b.players == 2 and b.variant == STANDARD
    assert b.actor.tolist() == [0, 0, 0, 0]
    assert b.legal_mask()[:, :12].all() and not b.legal_mask()[:, 12:].any()
    b = b.step([0, 1, 2, 3]).step([4, 5, 6, 7])  # seat 0's two opening flips
    assert b.actor.tolist() == [1, 1, 1, 1]
    assert (b.phase == 0).all()
    b = b.step([0, 0, 0, 0]).step([1, 1, 1, 1])
    for i in range(4):
        state = b.state(i)
        assert state.phase is ar.Phase.TURN and b.actor[i] == state.turn
        assert b.legal_mask()[i].tolist() == list(space.mask(state, state.turn))
        assert b.phase[i] == 1 and batch.PHASES[b.phase[i]] is ar.Phase.TURN


def test_a_step_returns_a_new_batch_and_leaves_the_old_one_unchanged() -> None:
    b = batch.Batch.new(3, TINY, seeds=range(6))
    before = b.states()
    arrays = {name: getattr(b, name).copy() for name in ("actor", "phase", "round", "totals", "cards",
                                                         "face_up", "swallowed", "draw_size", "discard_size")}
    rng = np.random.default_rng(1)
    after = b
    for _ in range(60):
        after = after.step(choose_uniformly(after.legal_mask(), rng))
    assert after.states() != before
    assert b.states() == before
    for name, value in arrays.items():
        assert np.array_equal(getattr(b, name), value), name
    # a batch stepped twice from the same point gives the same games both times (no shared writes)
    again = b
    rng = np.random.default_rng(1)
    for _ in range(60):
        again = again.step(choose_uniformly(again.legal_mask(), rng))
    assert again.states() == after.states()


def test_the_arrays_are_read_only() -> None:
    b = batch.Batch.new(2, STANDARD, seeds=[1, 2])
    for name in ("actor", "phase", "round", "totals", "cards", "face_up", "swallowed", "seq", "turns",
                 "closer", "draw_size", "discard_size"):
        array = getattr(b, name)
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    assert b.cards.shape == (2, 2, 12) and b.totals.shape == (2, 2)
    assert b.top_discard.tolist() == [ar.new_game(2, seed=s).top_discard for s in (1, 2)]
    assert b.draw_size.tolist() == [125, 125] and b.discard_size.tolist() == [1, 1]
    assert b.drawn.tolist() == [0, 0] and b.closer.tolist() == [-1, -1]
    assert not b.winners.any() and not b.done.any()


def test_an_illegal_index_is_refused_naming_the_game_and_the_index_and_nothing_is_applied() -> None:
    b = batch.Batch.new(2, STANDARD, seeds=range(3))
    b = b.step([0, 0, 0])  # seat 0 flipped space 0 in every game
    before = b.states()
    with pytest.raises(ar.BatchStepError) as caught:
        b.step([1, 0, 24])  # game 1 flips a face-up space; game 2 draws in the opening
    error = caught.value
    assert isinstance(error, ar.IllegalActionError)
    assert (error.game, error.index, error.code, error.rule) == (1, 0, "space_face_up", "3.10")
    assert "game 1" in error.message and "index 0" in error.message
    assert "Flip(player=0, row=0, col=0)" in str(error)
    assert b.states() == before
    with pytest.raises(ar.BatchStepError) as caught:
        b.step([1, 2, 24])
    assert (caught.value.game, caught.value.index, caught.value.code) == (2, 24, "wrong_phase")
    for index in (49, -1, 10**12):
        with pytest.raises(ar.BatchStepError) as caught:
            b.step([1, index, 2])
        assert (caught.value.game, caught.value.index, caught.value.code, caught.value.rule) == (
            1, index, "no_such_action_index", "11.2")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.game, copy.index, copy.code) == (1, 10**12, "no_such_action_index")
    assert b.states() == before


@pytest.mark.parametrize("bad", [[0, 0], [[0], [0], [0]], [0.0, 0.0, 0.0], [True, False, True],
                                 ["0", "1", "2"], None, [0, [1], 2]])
def test_malformed_index_arrays_are_refused(bad: object) -> None:
    b = batch.Batch.new(2, STANDARD, seeds=range(3))
    with pytest.raises(ar.MalformedActionError) as caught:
        b.step(bad)
    assert caught.value.code == "malformed_action"


def test_finished_games_ignore_their_entries() -> None:
    b = batch.Batch.new(2, ar.Variant.short(), seeds=range(5))
    rng = np.random.default_rng(0)
    while not b.done.all():
        chosen = choose_uniformly(b.legal_mask(), rng)
        chosen[b.done] = 10**9  # garbage for finished games
        b = b.step(chosen)
    final = b.states()
    assert all(state.is_over for state in final)
    assert (b.actor == -1).all() and not b.legal_mask().any()
    assert b.step(np.full(5, -7)).states() == final
    winners = b.winners
    for i, state in enumerate(final):
        assert winners[i].tolist() == [seat in state.winners for seat in range(2)]


def test_reset_replaces_the_chosen_games_only() -> None:
    b = batch.Batch.new(2, TINY, seeds=[10, 11, 12])
    rng = np.random.default_rng(3)
    for _ in range(40):
        b = b.step(choose_uniformly(b.legal_mask(), rng))
    kept = [b.state(0), b.state(2)]
    r = b.reset([False, True, False], seeds=[99])
    assert r.state(1) == ar.new_game(2, TINY, seed=99)
    assert [r.state(0), r.state(2)] == kept
    assert b.state(1) != r.state(1)  # the old batch still holds the old game
    with pytest.raises(ar.SeedError):
        b.reset([True, True, False], seeds=[1])
    with pytest.raises(ar.MalformedActionError):
        b.reset([1, 0, 0], seeds=[1])
    with pytest.raises(ar.MalformedActionError):
        b.reset([True], seeds=[1])
    assert b.reset([False, False, False], seeds=[]).states() == b.states()


def test_reset_many_times_keeps_histories_apart() -> None:
    # Replaced games' rounds are dropped from the log once they pile up; live games keep theirs.
    variant = ar.Variant(rows=2, cols=1, max_players=2, initial_flips=0, max_rounds=3, deck=((1, 3), (2, 3)))
    b = batch.Batch.new(2, variant, seeds=range(4))
    rng = np.random.default_rng(5)
    refs = [ar.new_game(2, variant, seed=s) for s in range(4)]
    next_seed = 4
    for _ in range(1500):
        done = b.done
        if done.any():
            fresh = list(range(next_seed, next_seed + int(done.sum())))
            next_seed += len(fresh)
            b = b.reset(done, fresh)
            for i, seed in zip(np.flatnonzero(done).tolist(), fresh, strict=True):
                refs[i] = ar.new_game(2, variant, seed=seed)
        chosen = choose_uniformly(b.legal_mask(), rng)
        for i in range(4):
            refs[i] = ar.apply(refs[i], b.space.action(int(chosen[i]), int(b.actor[i])))
        b = b.step(chosen)
    assert next_seed > 150
    assert b.states() == refs
    assert b._log.rows < 4 * 3 + 2048  # replaced games' rounds do not pile up without bound


def test_random_playouts_counts_turns_like_the_reference() -> None:
    stats = batch.random_playouts(games=40, players=3, variant=TINY, seed=7, width=16)
    assert stats.games == 40 and stats.steps > 0
    assert stats.actions > stats.turns > stats.rounds >= 40
    # The same games through the reference engine: the same deals; the counts follow the actions.
    root = normalize_seed(7)
    assert batch.Batch.new(3, TINY, seeds=[stream_blocks(root, 5, 1)]).state(0) == ar.new_game(
        3, TINY, seed=stream_blocks(root, 5, 1))
    one = batch.random_playouts(games=1, players=2, variant=ar.Variant.short(), seed=3)
    b = batch.Batch.new(2, ar.Variant.short(), seeds=[stream_blocks(normalize_seed(3), 0, 1)])
    rng = np.random.default_rng(int.from_bytes(normalize_seed(3), "big"))
    while not b.done.all():
        b = b.step(choose_uniformly(b.legal_mask(), rng))
    final = b.state(0)
    assert one.turns == sum(result.turns for result in final.history)
    assert one.actions == final.seq and one.rounds == len(final.history) == 1


@pytest.mark.parametrize(("players", "variant", "games", "width"),
                         [(3, TINY, 90, 48), (2, STANDARD, 40, 32), (5, ar.Variant.short(), 45, 40),
                          (2, TINY.replace(reshuffle_keeps_top=False), 80, 64)])
def test_random_playouts_are_the_reference_games(players: int, variant: ar.Variant, games: int,
                                                 width: int) -> None:
    """`random_playouts` steps its arrays in place, scores ended rounds and deals many games at
    once (a game waits meanwhile). Every game it plays, replayed through the reference engine
    with the same actions, is the same game: before every step each lane is the reference state
    (history aside: none is kept), and the counts are the reference games' counts."""
    from abyss_rules.batch._arrays import WAITING
    from abyss_rules.batch._convert import to_state
    from abyss_rules.batch._playouts import play
    from abyss_rules.batch._rounds import HistoryLog

    root = normalize_seed(11)
    refs: dict[int, ar.State] = {}
    seen_waiting = 0

    def watch(t: object, w: object, chosen: np.ndarray) -> None:  # type: ignore[type-arg]
        nonlocal seen_waiting
        for i in range(len(chosen)):
            gid = int(w.gid[i])  # type: ignore[attr-defined]
            if gid not in refs:
                refs[gid] = ar.new_game(players, variant, seed=stream_blocks(root, gid, 1))
            if w.phase[i] == WAITING:  # type: ignore[attr-defined]
                seen_waiting += 1
                continue
            seed = stream_blocks(root, gid, 1)
            assert to_state(t, w, i, seed, HistoryLog(None, None)) == refs[gid]._replace(history=())
            if refs[gid].phase is not ar.Phase.GAME_OVER:
                actor = int(w.actor[i])  # type: ignore[attr-defined]
                refs[gid] = ar.apply(refs[gid], ActionSpace(variant).action(int(chosen[i]), actor))

    stats = play(games, players, variant, root, width, watch)
    assert sorted(refs) == list(range(games)) and seen_waiting > 0
    assert all(state.phase is ar.Phase.GAME_OVER for state in refs.values())
    assert stats.games == games
    assert stats.rounds == sum(len(state.history) for state in refs.values())
    assert stats.turns == sum(result.turns for state in refs.values() for result in state.history)
    assert stats.actions == sum(state.seq for state in refs.values())
    assert stats.totals.tolist() == [list(refs[n].totals) for n in range(games)]  # the final scores
    assert stats.winners.tolist() == [[p in refs[n].winners for p in range(players)] for n in range(games)]
    again = batch.random_playouts(games=games, players=players, variant=variant, seed=11, width=width)
    assert stats == again and np.array_equal(stats.totals, again.totals)


@pytest.mark.parametrize(("players", "variant"), [
    (2, STANDARD), (3, TINY), (4, STANDARD.replace(flip_turn=False)),
    (2, ar.Variant(rows=4, cols=16, max_players=2, deck=((1, 100), (4, 100)))),
])
def test_random_playouts_choose_what_choose_uniformly_chooses_on_the_legal_mask(players: int,
                                                                               variant: ar.Variant) -> None:
    """`random_playouts` ranks the legal indices on a folded mask (half the rows); before every
    step of a run its choice is `choose_uniformly`'s on the whole mask from the same random
    numbers (the last variant's grid is the widest that rule 10.4 allows: its whole mask ranks
    in 32 bits, the folded one in bytes)."""
    from abyss_rules.batch._playouts import _choose_legal, play
    from abyss_rules.batch._stepping import legal

    compared = 0

    def watch(t: object, w: object, chosen: np.ndarray) -> None:  # type: ignore[type-arg]
        nonlocal compared
        state = np.random.default_rng(compared).bit_generator.state
        ours, theirs = np.random.default_rng(), np.random.default_rng()
        ours.bit_generator.state = theirs.bit_generator.state = state
        mask = legal(t, w).T  # type: ignore[arg-type]
        assert (_choose_legal(t, w, ours) == choose_uniformly(mask, theirs)).all()  # type: ignore[arg-type]
        compared += 1

    play(60, players, variant, normalize_seed(5), 24, watch)
    assert compared > 20


@pytest.mark.parametrize("kwargs", [{"games": 0}, {"games": 2.0}, {"games": 4, "width": 0}])
def test_random_playouts_refuses_bad_counts(kwargs: dict[str, object]) -> None:
    with pytest.raises(ar.ConfigError) as caught:
        batch.random_playouts(**kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_simulation"


def test_repr_shows_no_secrets() -> None:
    b = batch.Batch.new(2, STANDARD, seeds=[2**200])
    text = repr(b)
    assert text == "<Batch games=1 players=2 variant='standard' live=1>"


def test_the_batch_tables_are_one_of_the_library_bounded_caches() -> None:
    """The per-(variant, players) tables are a registered BoundedCache: bounded, and emptied by
    clear_caches() like every other cache of the library (issue 12 §3)."""
    from abyss_rules.batch._engine import _TABLES
    from abyss_rules.caches import cache_stats, clear_caches

    for rows in range(2, 5):
        for cols in range(2, 5):
            variant = ar.Variant.standard().replace(rows=rows, cols=cols, initial_flips=1)
            batch.Batch.new(players=2, variant=variant, seeds=[rows * 10 + cols])
    assert "batch.tables" in cache_stats()
    assert 0 < len(_TABLES) <= _TABLES.max_entries and _TABLES.size <= _TABLES.max_size
    clear_caches()
    assert cache_stats()["batch.tables"] == (0, 0)
