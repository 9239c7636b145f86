"""The short tellings of the rules for newcomers (README.md, docs/index.md, docs/how-to-play.md,
docs/bots.md) against the spec and the code they summarize."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import abyss_rules as ar
from abyss_rules.bots import BOTS

ROOT = Path(__file__).resolve().parent.parent
WORDS = {5: "five", 10: "ten", 15: "fifteen"}


def _text(page: str) -> str:
    return " ".join((ROOT / page).read_text(encoding="utf-8").split())


@pytest.mark.rule("6.5")
@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_the_summary_doubles_the_closer_as_rule_6_5_does(page: str) -> None:
    # Rule 6.5: doubled only when the raw score is above 0 and not strictly lowest.
    assert "is doubled unless strictly lowest or not above 0." in _text(page)


@pytest.mark.rule("1.1")
def test_how_to_play_gives_the_decks_make_up() -> None:
    deck = dict(ar.Variant.standard().deck)
    values = sorted(deck)
    common = deck[values[-1]]
    first = next(n for n in range(len(values)) if all(deck[v] == common for v in values[n:]))
    ranged = values[first:]  # (the run of values of the same count, at the top)
    rare = [f"{WORDS[deck[v]]} {v}s" for v in values[:first]]
    assert ranged == list(range(min(ranged), max(ranged) + 1))
    told = f"The deck has {sum(deck.values())} cards valued from {min(deck)} to {max(deck)}: " \
           f"{', '.join(rare)}, and {WORDS[common]} each of {min(ranged)} to {max(ranged)}"
    assert told in _text("docs/how-to-play.md")


@pytest.mark.rule("2.3")
def test_how_to_play_gives_the_openers_tie_break() -> None:
    text = _text("docs/how-to-play.md")
    assert "on a tie, the one of them with the highest single card, and if that ties too, the lowest seat" \
        in text


def test_the_bots_page_lists_every_built_in_bot_and_counts_none_in_words() -> None:
    page = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    table = page[page.index("## The built-in bots"):]
    rows = re.findall(r"^\| `([a-z]+)` \| \[`(\w+)`\]", table, re.M)
    assert [name for name, _ in rows] == list(BOTS)
    assert [cls for _, cls in rows] == [bot.__name__ for bot in BOTS.values()]
    numbers = r"\b(two|three|four|five|six|seven|eight|nine|ten)\b"
    counted = numbers + r" built-in bots\b|\bcomes with " + numbers + r"\b|\ball " + numbers + r" are\b"
    assert not re.search(counted, page, re.I)
