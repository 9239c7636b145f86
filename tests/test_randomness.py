"""Randomness: seeds, the SHA-256 word stream, bounded integers, the shuffle (spec section 9).

The vectors are copied from spec section 9.7; the rejection path is checked against a
word-by-word reference written here from the spec's pseudocode (rules 9.2-9.4).
"""

from __future__ import annotations

import hashlib
import platform
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ZERO_SEED, deck_order, hand_built, stacked, tiny

import abyss_rules as ar
from abyss_rules import randomness
from abyss_rules.config import MAX_DECK_SIZE
from abyss_rules.randomness import normalize_seed, randbelow, shuffled, words

SEED_1 = (1).to_bytes(32, "big")
SEED_42 = (42).to_bytes(32, "big")

# ---------------------------------------------------------------------------
# The test vectors of rule 9.7, verbatim.
# ---------------------------------------------------------------------------


def _ints(text: str) -> list[int]:
    return [int(word) for word in text.split()]


ZERO_WORDS_0_7 = _ints(
    "741658141 4063986572 1522477695 1681378467 3540418261 167716337 502706459 1479234027"
)
ZERO_HEX_0_7 = "2c34ce1d f23b838c 5abf2a7f 6437cca3 d3067ed5 09ff25f1 1df6b11b 582b51eb"
ZERO_WORDS_8_15 = _ints(
    "148898406 4293962444 1687637794 2771788455 3695545025 3053274218 3888749130 2577753318"
)
SEED1_WORDS_0_7 = _ints(
    "688252919 2251994774 1513202863 1129912263 1764378289 891723888 1814197450 2991000287"
)
SEED1_HEX_0_7 = "2905e7f7 863ab696 5a31a4af 435917c7 692a46b1 3526a070 6c2274ca b2470adf"
SEED42_WORDS_0_7 = _ints(
    "2175056216 1998597509 3187081137 709793513 2613312268 552604741 4248438587 496401369"
)
BELOW_AT_0 = [  # n, zero seed, seed 1
    (1, 0, 0), (2, 1, 1), (3, 1, 2), (6, 1, 5), (10, 1, 9), (13, 3, 3), (150, 91, 119),
    (2**32, 741658141, 688252919),
]
SHUFFLE_ZERO_DRAWS = [(10, 1), (9, 5), (8, 7), (7, 6), (6, 1), (5, 2), (4, 3), (3, 0), (2, 0)]
SHUFFLE_ZERO = [9, 5, 1, 4, 3, 10, 7, 8, 6, 2]
SHUFFLE_SEED1 = [1, 9, 7, 3, 4, 2, 5, 8, 6, 10]
SHUFFLE_SEED42_AT_149 = [10, 1, 9, 3, 5, 4, 6, 2, 8, 7]
DECK_SEED42 = [
    3, 6, 3, 8, 2, 2, 8, 6, -1, 10, 5, 5, 5, 3, 7, -2, 6, 9, 1, 12,
    4, -1, 12, -2, -1, -1, 0, 12, 4, 4, 0, 9, 10, 6, 1, 12, 12, 7, 1, 7,
    2, 3, 11, 0, 9, 5, 8, 9, 7, 4, 7, 6, 7, 3, 1, 1, 10, 3, 8, 7,
    -1, 4, 0, 4, 11, 10, 1, 12, 10, 10, 0, -1, 12, 0, 8, 4, 6, 0, 5, -2,
    9, 0, 1, 8, 5, 8, 7, 11, -1, 9, 9, 11, 5, 12, 2, -1, 1, 0, 10, 12,
    11, 12, 3, 0, 7, 4, 5, 5, 11, 6, 6, 5, 8, 10, 1, 2, 0, 4, 6, 3,
    6, 7, 3, 10, -1, 2, 11, -2, 2, 8, 0, 9, 3, 10, 2, 9, 2, 0, 11, 11,
    11, 4, 1, 8, 0, -1, 2, -2, 0, 9,
]


@pytest.mark.rule("9.2", "9.7")
def test_vector_words() -> None:
    assert list(words(ZERO_SEED, 0, 8)) == ZERO_WORDS_0_7
    assert " ".join(f"{w:08x}" for w in words(ZERO_SEED, 0, 8)) == ZERO_HEX_0_7
    assert list(words(ZERO_SEED, 8, 8)) == ZERO_WORDS_8_15
    assert list(words(ZERO_SEED, 0, 16)) == ZERO_WORDS_0_7 + ZERO_WORDS_8_15
    assert list(words(SEED_1, 0, 8)) == SEED1_WORDS_0_7
    assert " ".join(f"{w:08x}" for w in words(SEED_1, 0, 8)) == SEED1_HEX_0_7
    assert list(words(SEED_42, 0, 8)) == SEED42_WORDS_0_7
    assert list(words(ZERO_SEED, 5, 6)) == (ZERO_WORDS_0_7 + ZERO_WORDS_8_15)[5:11]


@pytest.mark.rule("9.3", "9.7")
@pytest.mark.parametrize(("n", "zero", "one"), BELOW_AT_0)
def test_vector_below_at_position_0(n: int, zero: int, one: int) -> None:
    assert randbelow(ZERO_SEED, 0, n) == (zero, 1)
    assert randbelow(SEED_1, 0, n) == (one, 1)


@pytest.mark.rule("9.3", "9.7")
def test_vector_rejection() -> None:
    # below(3000000000) at position 1 rejects 4063986572 and accepts 1522477695
    assert randbelow(ZERO_SEED, 1, 3_000_000_000) == (1522477695, 3)


@pytest.mark.rule("9.3")
def test_below_takes_n_from_1_to_2_pow_32() -> None:
    for bad in (0, -1, 2**32 + 1):
        with pytest.raises(ValueError):
            randbelow(ZERO_SEED, 0, bad)


@pytest.mark.rule("9.4", "9.7")
def test_vector_shuffles() -> None:
    # the draws of the zero-seed shuffle are the below() values of the spec, one word each
    position = 0
    for n, expected in SHUFFLE_ZERO_DRAWS:
        value, position = randbelow(ZERO_SEED, position, n)
        assert value == expected
    assert position == 9
    items = list(range(1, 11))
    assert shuffled(ZERO_SEED, 0, items) == (tuple(SHUFFLE_ZERO), 9)
    assert shuffled(SEED_1, 0, items) == (tuple(SHUFFLE_SEED1), 9)
    assert shuffled(SEED_42, 149, items) == (tuple(SHUFFLE_SEED42_AT_149), 158)
    assert shuffled(ZERO_SEED, 0, [1, 2, 3, 4, 5]) == ((3, 5, 4, 1, 2), 4)  # rule 9.4's example
    assert items == list(range(1, 11))  # the input is not touched


@pytest.mark.rule("9.4", "9.5", "9.7", "1.4")
def test_vector_default_deck_seed_42() -> None:
    deck = ar.Variant.standard().unshuffled_deck
    result, position = shuffled(SEED_42, 0, deck)
    assert list(result[:20]) == DECK_SEED42[:20]
    assert list(result) == DECK_SEED42
    assert position == 149
    # and it is what a game with seed 42 deals (rules 1.4, 9.5): grids, discard, draw pile
    state = ar.new_game(2, ar.Variant.standard(), seed=42)
    assert list(state.cards + state.discard_pile + state.draw_pile) == DECK_SEED42
    assert state.dealer.position == 149


@pytest.mark.rule("9.4")
def test_short_lists_consume_no_words() -> None:
    assert shuffled(ZERO_SEED, 7, []) == ((), 7)
    assert shuffled(ZERO_SEED, 7, ["x"]) == (("x",), 7)
    assert shuffled(ZERO_SEED, 7, "ab")[1] == 8


@pytest.mark.rule("9.2")
def test_word_formula_from_hashlib() -> None:
    for seed in (ZERO_SEED, SEED_1, bytes(range(32))):
        for k in (0, 7, 8, 9, 63, 1000, 2**20 + 3):
            block = hashlib.sha256(seed + (k // 8).to_bytes(8, "big")).digest()
            o = 4 * (k % 8)
            assert words(seed, k, 1) == (int.from_bytes(block[o:o + 4], "big"),)


# ---------------------------------------------------------------------------
# A word-by-word reference of rules 9.2-9.4, and the rejection path of shuffled().
# ---------------------------------------------------------------------------


def _ref_word(seed: bytes, k: int) -> int:
    block = randomness._digest(seed, k // 8)  # its SHA-256 is patched in the rejection tests
    o = 4 * (k % 8)
    return int.from_bytes(block[o:o + 4], "big")


def reference_shuffle(seed: bytes, position: int, items: Sequence[Any]) -> tuple[tuple[Any, ...], int, int]:
    """The spec's pseudocode, literally. Returns (result, position after, words rejected)."""
    a = list(items)
    pos = position
    rejected = 0

    def below(n: int) -> int:
        nonlocal pos, rejected
        limit = 2**32 - (2**32 % n)
        while True:
            x = _ref_word(seed, pos)
            pos += 1
            if x < limit:
                return x % n
            rejected += 1

    for i in range(len(a) - 1, 0, -1):
        j = below(i + 1)
        a[i], a[j] = a[j], a[i]
    return tuple(a), pos, rejected


@pytest.mark.rule("9.2", "9.3", "9.4")
def test_reference_agrees_without_rejections() -> None:
    deck = ar.Variant.standard().unshuffled_deck
    for seed in (ZERO_SEED, SEED_1, SEED_42):
        for position in (0, 1, 7, 149, 1003):
            for items in (deck, list(range(10)), [4, 4, 9]):
                result, pos, _ = reference_shuffle(seed, position, items)
                assert shuffled(seed, position, items) == (result, pos)


def _rejecting_digest(original: Any) -> Any:
    """A SHA-256 whose blocks' even words are among the 64 highest 32-bit values: rejected by
    below(n) for most n (those with 2^32 mod n large enough), accepted for others. It replaces
    `randomness._hash`, which every block of every stream goes through."""

    class Rejecting:
        def __init__(self, message: bytes) -> None:
            self._block = original(message).digest()

        def digest(self) -> bytes:
            block = bytearray(self._block)
            for o in range(0, 32, 8):
                block[o:o + 4] = (0xFFFFFFFF - (block[o + 3] & 0x3F)).to_bytes(4, "big")
            return bytes(block)

    return Rejecting


@pytest.mark.rule("9.3", "9.4")
def test_rejection_path_matches_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
    deck = ar.Variant.standard().unshuffled_deck
    total_rejected = 0
    for seed in (ZERO_SEED, SEED_1, SEED_42):
        for position in (0, 3, 8, 149, 999):
            for items in (deck, list(range(1, 11)), list(range(100)), [1, 2]):
                result, pos, rejected = reference_shuffle(seed, position, items)
                total_rejected += rejected
                assert shuffled(seed, position, items) == (result, pos), (seed.hex(), position, len(items))
                assert sorted(result) == sorted(items)
    assert total_rejected > 100  # the rejection path really ran


@pytest.mark.rule("9.3")
def test_below_rejects_like_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
    rejected = 0
    for n in (3, 6, 150, 3_000_000_000):
        limit = 2**32 - 2**32 % n
        expected_pos = 0
        while _ref_word(ZERO_SEED, expected_pos) >= limit:
            expected_pos += 1
        value, after = randbelow(ZERO_SEED, 0, n)
        assert (value, after) == (_ref_word(ZERO_SEED, expected_pos) % n, expected_pos + 1)
        rejected += expected_pos
    assert rejected >= 2  # the patched word 0 is rejected for 150 and for 3e9 (deterministic digest)


# ---------------------------------------------------------------------------
# Seeds (rule 9.1)
# ---------------------------------------------------------------------------


@pytest.mark.rule("9.1")
def test_int_and_bytes_seeds() -> None:
    assert normalize_seed(1) == bytes(31) + b"\x01"
    assert normalize_seed(42)[-1] == 0x2A and normalize_seed(42)[:31] == bytes(31)
    assert normalize_seed(0) == ZERO_SEED
    assert normalize_seed(2**256 - 1) == b"\xff" * 32
    raw = bytes(range(32))
    assert normalize_seed(raw) == raw
    assert normalize_seed(bytearray(raw)) == raw and type(normalize_seed(bytearray(raw))) is bytes


@pytest.mark.rule("9.1")
def test_no_seed_draws_a_fresh_one() -> None:
    a, b = normalize_seed(None), normalize_seed(None)
    assert len(a) == len(b) == 32 and a != b
    g1, g2 = ar.new_game(2), ar.new_game(2)
    assert g1.dealer.seed != g2.dealer.seed


BAD_SEEDS: list[Any] = [-1, 2**256, bytes(31), bytes(33), b"", True, False, "42", 1.0, [0] * 32, object()]


@pytest.mark.rule("9.1")
@pytest.mark.parametrize("bad", BAD_SEEDS, ids=lambda s: type(s).__name__ + repr(s)[:12])
def test_bad_seeds_are_refused(bad: Any) -> None:
    with pytest.raises(ar.SeedError) as caught:
        normalize_seed(bad)
    assert caught.value.code == ar.Code.INVALID_SEED and caught.value.rule == "9.1"
    with pytest.raises(ar.SeedError):
        ar.new_game(2, seed=bad)


# ---------------------------------------------------------------------------
# One stream per game (9.5), explicit deck orders (9.6), determinism.
# ---------------------------------------------------------------------------


def _drain_draw_pile(state: ar.State) -> ar.State:
    """Play draw-and-place turns (placing on a face-up space when there is one) until the
    draw pile is empty at the start of a turn; nobody closes meanwhile."""
    v = state.variant
    state = ar.apply(state, ar.Flip(0, 0, 0)) if state.phase is ar.Phase.OPENING else state
    while state.phase is ar.Phase.OPENING:
        state = ar.apply(state, ar.legal_actions(state)[0])
    while state.draw_pile:
        assert state.phase is ar.Phase.TURN
        state = ar.apply(state, ar.Draw(state.turn))
        grid = state.grid(state.turn)
        up = [s for s in grid.remaining if grid.face_up[s]] or list(grid.remaining)
        row, col = divmod(up[0], v.cols)
        state = ar.apply(state, ar.PlaceDrawn(state.turn, row, col))
        assert state.round == 1
    return state


@pytest.mark.rule("9.5", "5.1")
def test_first_reshuffle_of_round_1_starts_at_position_149() -> None:
    state = _drain_draw_pile(ar.new_game(2, ar.Variant.standard(), seed=42))
    assert state.dealer.position == 149 and state.phase is ar.Phase.TURN
    discard = state.discard_pile
    after = ar.apply(state, ar.Draw(state.turn))
    expected, position = shuffled(SEED_42, 149, discard[1:])
    assert (after.drawn,) + after.draw_pile == expected
    assert after.discard_pile == discard[:1]
    assert after.dealer.position == position


@pytest.mark.rule("9.5", "9.6", "1.4")
def test_explicit_order_consumes_no_words_and_round_2_uses_the_stream() -> None:
    v = tiny(max_rounds=2)
    order = deck_order(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0, 0, 1])
    state = ar.new_game(2, v, seed=7, decks=[order])
    assert state.dealer.position == 0 and state.dealer.decks == ()
    assert list(state.cards + state.discard_pile + state.draw_pile) == order
    # end round 1 by flip-only turns (no word consumed), then round 2 is shuffled from position 0
    while state.round == 1:
        state = ar.apply(state, ar.legal_actions(state)[-1])
    assert state.round == 2
    expected, position = shuffled(normalize_seed(7), 0, v.unshuffled_deck)
    assert state.cards + state.discard_pile + state.draw_pile == expected
    assert state.dealer.position == position == 43


@pytest.mark.rule("9.5", "9.6", "5.1")
def test_reshuffle_after_an_explicit_deal_starts_at_position_0() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, seed=3)
    state = _drain_draw_pile(state)
    assert state.dealer.position == 0
    discard = state.discard_pile
    after = ar.apply(state, ar.Draw(state.turn))
    expected, position = shuffled(normalize_seed(3), 0, discard[1:])
    assert (after.drawn,) + after.draw_pile == expected and after.dealer.position == position


@pytest.mark.rule("9.5", "5.1")
def test_reshuffle_reads_the_stream_where_it_stands() -> None:
    base = ar.new_game(2, seed=1)
    state = hand_built(base, seed=ZERO_SEED, position=0, phase=ar.Phase.TURN, turn=0,
                       draw_pile=(), discard_pile=(0, *range(1, 11)))
    after = ar.apply(state, ar.Draw(0))
    assert (after.drawn,) + after.draw_pile == tuple(SHUFFLE_ZERO)
    assert after.dealer.position == 9
    at_149 = hand_built(state, seed=SEED_42, position=149)
    after = ar.apply(at_149, ar.Draw(0))
    assert (after.drawn,) + after.draw_pile == tuple(SHUFFLE_SEED42_AT_149)
    assert after.dealer.position == 158


@pytest.mark.rule("9.6")
def test_bad_deck_orders_are_refused() -> None:
    v = tiny()
    good = deck_order(v, 2)
    bad_orders: list[Any] = [
        good[:-1],                       # a card short
        good + [0],                      # a card too many
        [10 if c == 9 else c for c in good],  # a value not in the deck
        [True if c == 1 else c for c in good],  # bools are not cards
        [float(c) for c in good],
        "0123",
        42,
        None,
    ]
    for order in bad_orders:
        with pytest.raises(ar.ConfigError) as caught:
            ar.new_game(2, v, seed=1, decks=[order])
        assert caught.value.code == ar.Code.INVALID_DECK_ORDER and caught.value.rule == "9.6", order
    with pytest.raises(ar.ConfigError) as caught:  # a bad later order is refused at the start too
        ar.new_game(2, v, seed=1, decks=[good, good[1:]])
    assert caught.value.code == "invalid_deck_order" and "1" in caught.value.message
    assert ar.new_game(2, v, seed=1, decks=[tuple(good), list(reversed(good))]).dealer.decks == (
        tuple(reversed(good)),
    )


@pytest.mark.rule("9.5")
def test_same_seed_and_actions_give_the_same_states() -> None:
    def run(seed: int, choices: int) -> list[ar.State]:
        rng = random.Random(choices)
        state = ar.new_game(3, ar.Variant.standard().replace(max_rounds=3), seed=seed)
        states = [state]
        while not state.is_over:
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
            states.append(state)
        return states

    a, b = run(11, 5), run(11, 5)
    assert a == b and [hash(s) for s in a] == [hash(s) for s in b]
    c = run(12, 5)
    assert c[0].cards != a[0].cards


@pytest.mark.rule("9.5")
def test_each_round_is_a_fresh_shuffle_of_the_stream() -> None:
    v = ar.Variant.standard().replace(max_rounds=2, initial_flips=0, flip_turn=True)
    state = ar.new_game(2, v, seed=5)
    first = state.cards + state.discard_pile + state.draw_pile
    expected, position = shuffled(normalize_seed(5), 0, v.unshuffled_deck)
    assert first == expected and state.dealer.position == position
    while state.round == 1:  # flip-only turns: no reshuffle
        state = ar.apply(state, ar.legal_actions(state)[-1])
    second = state.cards + state.discard_pile + state.draw_pile
    assert second == shuffled(normalize_seed(5), position, v.unshuffled_deck)[0]
    assert second != first


@pytest.mark.rule("9.2")
def test_stream_blocks_are_sha256_of_seed_and_counter_in_bulk_too() -> None:
    """Blocks from the counter table (below 1,024) and past it, one game at a time and many at once."""
    def block(seed: bytes, index: int) -> bytes:
        return hashlib.sha256(seed + index.to_bytes(8, "big")).digest()

    requests = [(ZERO_SEED, 0, 3), (SEED_1, 1020, 9), (SEED_42, 5, 0), (SEED_42, 2**40, 2)]
    for seed, first, count in requests:
        assert randomness.stream_blocks(seed, first, count) == b"".join(
            block(seed, b) for b in range(first, first + count))
    assert randomness.many_stream_blocks(requests) == b"".join(
        randomness.stream_blocks(*request) for request in requests)
    assert randomness.many_stream_blocks([]) == b""


# ---------------------------------------------------------------------------
# The bulk hash: the pure path and the compiled one (`_sha256_blocks.c`, built with the wheel:
# tests/test_compiled.py runs this module against it, on each Python; an editable install has
# only the pure path, and the compiled variants skip there).
# ---------------------------------------------------------------------------


def _compiled_module() -> Any:
    try:
        from abyss_rules import _sha256_blocks
    except ImportError:
        pytest.skip("no compiled bulk hash here (an editable install): tests/test_compiled.py runs "
                    "these tests on the wheel's")
    return _sha256_blocks


def _bulk(kind: str) -> Any:
    if kind == "pure":
        return randomness._many_stream_blocks_pure
    module = _compiled_module()
    return module.many_stream_blocks if kind == "compiled" else module.many_stream_blocks_portable


BULK_KINDS = ("pure", "compiled", "compiled-portable")
U64 = 2**64
# The counter's edges (rule 9.2, a u64 big-endian): a carry into each byte, the end of the pure
# path's counter table (1,024), the 32-bit word boundary, and the last blocks below 2**64.
COUNTER_EDGES = (0, 1, 7, 8, 255, 256, 1023, 1024, 65535, 65536, 2**24 - 1, 2**32 - 1, 2**32,
                 2**56 - 1, 2**56, 2**63 - 1, 2**63, U64 - 3, U64 - 1)


def _expected(requests: Sequence[tuple[bytes, int, int]]) -> bytes:
    return b"".join(hashlib.sha256(seed + b.to_bytes(8, "big")).digest()
                    for seed, first, count in requests for b in range(first, first + count))


@pytest.mark.rule("9.2", "9.7")
@pytest.mark.parametrize("kind", BULK_KINDS)
def test_the_bulk_hash_gives_the_spec_vectors(kind: str) -> None:
    bulk = _bulk(kind)
    data = bulk([(ZERO_SEED, 0, 2), (SEED_1, 0, 1), (SEED_42, 0, 1)])
    got = [int.from_bytes(data[o:o + 4], "big") for o in range(0, len(data), 4)]
    assert got == ZERO_WORDS_0_7 + ZERO_WORDS_8_15 + SEED1_WORDS_0_7 + SEED42_WORDS_0_7
    assert " ".join(data[o:o + 4].hex() for o in range(0, 32, 4)) == ZERO_HEX_0_7
    assert bulk([]) == b"" and bulk([(ZERO_SEED, 5, 0)]) == b""


@pytest.mark.rule("9.2")
@pytest.mark.parametrize("kind", BULK_KINDS)
def test_the_bulk_hash_equals_hashlib_over_random_seeds_and_counters(kind: str) -> None:
    bulk = _bulk(kind)
    rng = random.Random(2026)
    requests: list[tuple[bytes, int, int]] = []
    for _ in range(400):
        seed = rng.randbytes(32)
        first = rng.choice((*COUNTER_EDGES, rng.getrandbits(64) >> rng.randrange(64)))
        count = min(rng.choice((0, 1, 2, 3, 19, 40)), U64 - first)
        requests.append((seed, first, count))
    requests.append((rng.randbytes(32), U64 - 2, 2))  # the last two blocks a stream has
    requests.append((bytes([255] * 32), 1020, 10))  # across the table's end
    assert bulk(requests) == _expected(requests)
    # and request by request, in any grouping, from a generator too (the batch engine's zip)
    assert b"".join(bulk([r]) for r in requests[:50]) == _expected(requests[:50])
    assert bulk(r for r in requests[:50]) == _expected(requests[:50])


@pytest.mark.rule("9.1", "9.2")
@pytest.mark.parametrize("kind", ["compiled", "compiled-portable"])
def test_the_compiled_bulk_hash_refuses_what_is_no_stream_block(kind: str) -> None:
    bulk = _bulk(kind)
    for bad, error in (
        ([(bytes(31), 0, 1)], ValueError),      # a seed is 32 bytes (rule 9.1)
        ([(bytearray(32), 0, 1)], ValueError),  # ... of bytes
        ([(ZERO_SEED, -1, 1)], OverflowError),  # counters are u64 (rule 9.2)
        ([(ZERO_SEED, 0, -1)], OverflowError),
        ([(ZERO_SEED, U64, 1)], OverflowError),
        ([(ZERO_SEED, U64 - 1, 2)], OverflowError),  # the last block past 2**64 - 1
        ([(ZERO_SEED, 0, U64 - 1)], OverflowError),  # more blocks than a bytes object holds
        ([(ZERO_SEED, 0.0, 1)], TypeError),
        ([[ZERO_SEED, 0, 1]], TypeError),
        ([(ZERO_SEED, 0)], TypeError),
        (7, TypeError),
    ):
        with pytest.raises(error):
            bulk(bad)
    assert bulk([(ZERO_SEED, U64 - 1, 1)]) == _expected([(ZERO_SEED, U64 - 1, 1)])  # the very last


def test_the_compiled_flag_says_which_path_the_stream_takes() -> None:
    assert randomness.COMPILED is (randomness._bulk is not None)
    if not randomness.COMPILED:
        return  # (the pure path: what every test above checks)
    module = _compiled_module()
    assert module.implementation() in ("sha-ni", "portable")
    cpuinfo = Path("/proc/cpuinfo")  # (Linux: the CPU's flags; an x86-64 with SHA-NI lists sha_ni)
    if platform.machine() == "x86_64" and cpuinfo.is_file():
        has_sha_ni = "sha_ni" in cpuinfo.read_text(encoding="utf-8").split()
        assert module.implementation() == ("sha-ni" if has_sha_ni else "portable")
    # A replaced SHA-256 (the rejection tests') takes the pure path, so that every block goes through it.
    requests = [(SEED_42, 3, 4)]
    assert randomness.many_stream_blocks(requests) == _expected(requests)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
        assert randomness.many_stream_blocks(requests) != _expected(requests)
        assert randomness.stream_blocks(SEED_42, 3, 4) != _expected(requests)


# ---------------------------------------------------------------------------
# The shuffle's two tiers: the pure path (`randomness._shuffled_pure`, the reference) and the
# compiled one (`_sha256_blocks.shuffled`, which `shuffled` calls where the wheel has it; it
# skips in an editable install, and tests/test_compiled.py runs it on the wheel's).
# ---------------------------------------------------------------------------

SHUFFLE_KINDS = ("pure", "compiled")


def _shuffle(kind: str) -> Any:
    return randomness._shuffled_pure if kind == "pure" else _compiled_module().shuffled


@pytest.mark.rule("9.4", "9.5", "9.7")
@pytest.mark.parametrize("kind", SHUFFLE_KINDS)
def test_both_shuffles_give_the_spec_vectors(kind: str) -> None:
    shuffle = _shuffle(kind)
    items = list(range(1, 11))
    assert shuffle(ZERO_SEED, 0, items) == (tuple(SHUFFLE_ZERO), 9)
    assert shuffle(SEED_1, 0, items) == (tuple(SHUFFLE_SEED1), 9)
    assert shuffle(SEED_42, 149, items) == (tuple(SHUFFLE_SEED42_AT_149), 158)
    assert shuffle(ZERO_SEED, 0, [1, 2, 3, 4, 5]) == ((3, 5, 4, 1, 2), 4)
    assert shuffle(SEED_42, 0, ar.Variant.standard().unshuffled_deck) == (tuple(DECK_SEED42), 149)
    assert items == list(range(1, 11))  # the input is not touched
    assert shuffle(ZERO_SEED, 7, []) == ((), 7) and shuffle(ZERO_SEED, 7, ["x"]) == (("x",), 7)
    assert shuffle(ZERO_SEED, 7, "ab")[1] == 8 and shuffle(ZERO_SEED, 7, iter([3, 4]))[1] == 8


@pytest.mark.rule("9.2", "9.3", "9.4")
def test_the_compiled_shuffle_equals_the_pure_one_on_every_deck_size() -> None:
    # Every deck size a variant allows (rule 10.4) and one more, from positions at every offset
    # within a block, near the start of the stream and far into it.
    compiled, pure = _shuffle("compiled"), _shuffle("pure")
    rng = random.Random(2026)
    for n in range(MAX_DECK_SIZE + 2):
        seed = rng.randbytes(32)
        position = rng.choice((0, 8, 149)) + n % 8 if n % 2 else rng.randrange(2**48)
        items = [rng.randrange(-2, 13) for _ in range(n)]
        assert compiled(seed, position, items) == pure(seed, position, items), (n, position)


@pytest.mark.rule("9.3", "9.4")
def test_the_compiled_shuffle_rejects_words_as_the_pure_one() -> None:
    # A shuffle of 200,000 items draws below(m) for every m up to 200,000, which rejects a word with
    # probability about m / 2**32: some of its words are rejected (the position goes past n - 1).
    compiled, pure = _shuffle("compiled"), _shuffle("pure")
    n = 200_000
    for seed, position in ((ZERO_SEED, 3), (SEED_42, 149)):
        result = compiled(seed, position, range(n))
        assert result == pure(seed, position, range(n))
        assert result[1] > position + n - 1  # words were rejected (rule 9.3)


def test_the_compiled_shuffle_keeps_the_very_items_and_their_references() -> None:
    compiled = _shuffle("compiled")
    items = [object() for _ in range(50)]
    counts = [sys.getrefcount(item) for item in items]
    result, position = compiled(SEED_1, 5, items)
    assert {id(item) for item in result} == {id(item) for item in items} and position == 54
    assert [sys.getrefcount(item) for item in items] == [count + 1 for count in counts]
    del result
    assert [sys.getrefcount(item) for item in items] == counts


@pytest.mark.rule("9.1", "9.2")
def test_the_compiled_shuffle_refuses_what_it_cannot_shuffle() -> None:
    compiled = _shuffle("compiled")
    for args, error in (
        ((bytes(31), 0, [1, 2]), ValueError),      # a seed is 32 bytes (rule 9.1)
        ((bytearray(32), 0, [1, 2]), ValueError),
        ((ZERO_SEED, -1, [1, 2]), OverflowError),  # a position is a count of words
        ((ZERO_SEED, 2**62, [1, 2]), OverflowError),
        ((ZERO_SEED, 0.0, [1, 2]), TypeError),
        ((ZERO_SEED, 0, 7), TypeError),
        ((ZERO_SEED, 0), TypeError),
    ):
        with pytest.raises(error):
            compiled(*args)
    assert compiled(ZERO_SEED, 2**62 - 1, [1, 2]) == _shuffle("pure")(ZERO_SEED, 2**62 - 1, [1, 2])


@pytest.mark.rule("9.4")
def test_shuffled_takes_the_pure_path_where_the_compiled_one_does_not_go() -> None:
    # positions from 2**62 on, and a replaced SHA-256 (the rejection tests')
    pure = _shuffle("pure")
    for position in (2**62, 2**64 + 5):
        assert shuffled(SEED_1, position, range(20)) == pure(SEED_1, position, range(20))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(randomness, "_hash", _rejecting_digest(randomness._hash))
        assert shuffled(SEED_1, 0, range(20)) == reference_shuffle(SEED_1, 0, list(range(20)))[:2]
        assert randomness.compiled_row_shuffle() is None
    if randomness.COMPILED:
        assert randomness.compiled_row_shuffle() is _compiled_module().shuffle_rows
    else:
        assert randomness.compiled_row_shuffle() is None
