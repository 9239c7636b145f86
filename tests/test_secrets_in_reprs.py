"""No repr or str of any public type shows a seed or a deck order (issue 12, section 5).

A seed (and an explicit deck order) is the whole future of a game: logging a record with `%r`
must not leak it. Every public type that holds one is built here with a distinctive seed and
every spelling of that seed -- its bytes, their hex, the int -- is looked for in `repr()` and
`str()` of the value, and of the values holding it (a tuple of results, a simulation).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import abyss_rules as ar
from abyss_rules.protocol import Accepted, submit
from abyss_rules.records import Record
from abyss_rules.simulation import GameResult, GameSummary, SimulationResult, play_game, simulate
from abyss_rules.state import Dealer
from abyss_rules.testing import Game

SEED = int.from_bytes(bytes(range(0xA0, 0xC0)), "big")  # a recognisable 32-byte seed
SEED_BYTES = SEED.to_bytes(32, "big")
DECK = tuple(range(150, 0, -1))  # a recognisable deck order (rule 9.6)


def spellings(seed: int | bytes = SEED) -> list[str]:
    """Every way a seed could show up in text: the int, the hex of the bytes, their repr, a piece of each."""
    raw = seed if isinstance(seed, bytes) else seed.to_bytes(32, "big")
    number = int.from_bytes(raw, "big")
    hexed = raw.hex()
    texts = [hexed, hexed.upper(), repr(raw), repr(raw)[2:30], hexed[8:24]]
    return texts + ([str(number), str(number)[:20]] if number > 10 ** 12 else [])


def values_holding_a_seed() -> dict[str, Any]:
    variant = ar.Variant(name="deck", deck=tuple((v, 1) for v in range(1, 151)))
    record = Record.start(variant=variant, players=2, seed=SEED).with_actions(ar.Flip(0, 0, 0))
    stacked = Record(variant, 2, SEED_BYTES, (DECK,), ())
    state = ar.new_game(2, seed=SEED)
    played = play_game(["random", "random"], variant="short", seed=SEED)
    simulation = simulate(["random", "random"], games=2, seed=SEED, variant="short")
    game = Game(state.variant, 2, SEED, (), (state,))
    return {
        "Record": record, "Record with decks": stacked, "State": state, "Dealer": state.dealer,
        "Dealer with decks": Dealer(SEED_BYTES, 0, (DECK,)), "GameResult": played,
        "GameSummary": simulation.games[0], "SimulationResult": simulation, "testing.Game": game,
        "a sealed record": record.sealed(), "Accepted": submit(state, ar.Flip(0, 0, 0)),
    }


VALUES = values_holding_a_seed()


def test_every_type_holding_a_seed_is_covered() -> None:
    kinds = {type(value) for value in VALUES.values()}
    assert {Record, ar.State, Dealer, GameResult, GameSummary, SimulationResult, Game, Accepted} <= kinds
    # Every attrs class of the package whose fields include a seed is one of them.
    holders = {cls for cls in (Record, GameResult, GameSummary, SimulationResult, Game, Dealer)
               if "seed" in {f.name for f in attrs.fields(cls)}}
    assert holders == {Record, GameResult, GameSummary, SimulationResult, Game, Dealer}


@pytest.mark.rule("8.2", "9.1")
@pytest.mark.parametrize("name", list(VALUES))
def test_no_repr_or_str_shows_the_seed(name: str) -> None:
    value = VALUES[name]
    own = getattr(value, "seed", None)  # a game's own seed (derived from the master seed in a simulation)
    hidden = spellings() + (spellings(own) if isinstance(own, (int, bytes)) else [])
    logged = ("%r" % (value,), "%s" % (value,))  # noqa: UP031  # as logging spells its arguments
    for text in (repr(value), str(value), repr((value,)), f"{value!r}", *logged):
        for spelling in hidden:
            assert spelling not in text, (name, spelling, text[:300])


@pytest.mark.rule("8.2", "9.6")
@pytest.mark.parametrize("name", ["Record with decks", "Dealer with decks"])
def test_no_repr_shows_an_explicit_deck_order(name: str) -> None:
    text = repr(VALUES[name])
    assert ", ".join(map(str, DECK[:12])) not in text


def test_the_seed_is_still_there_and_the_reprs_still_say_something() -> None:
    record = VALUES["Record"]
    assert record.seed == SEED_BYTES and "secret" in repr(record) and "players=2" in repr(record)
    assert VALUES["GameResult"].seed == SEED and "secret" in repr(VALUES["GameResult"])
    assert ar.Record.start(seed=None).redact().seed is None
    assert "seed=None" in repr(ar.Record.start(players=2, seed=1).redact())
