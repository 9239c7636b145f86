"""The replay page (abyss_rules.pictures._pages): its frames, its words, a headless browser stepping it."""

from __future__ import annotations

import base64
import gzip
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests import browser
from tests.browser import chromium

import abyss_rules as ar
from abyss_rules import events as ev
from abyss_rules.pictures import _svg as drawing
from abyss_rules.pictures import _words as wording
from abyss_rules.pictures import event_words, replay_frames, replay_html
from abyss_rules.simulation import play_game

TWO_ROUNDS = ar.Variant.standard().replace(max_rounds=2)


def _record(bots: tuple[str, ...] = ("greedy", "random"), variant: ar.Variant = TWO_ROUNDS,
            seed: int = 11) -> ar.Record:
    result = play_game(list(bots), variant, seed)
    return ar.Record.start(len(bots), variant, seed).with_actions(*result.actions)


RECORD = _record()


def _svg_title(svg: str) -> str:
    title = ET.fromstring(svg).find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text
    return title.text


def _packed_frames(page: str) -> list[dict[str, object]]:
    found = re.search(r'<script type="application/octet-stream" id="frames">([A-Za-z0-9+/=]+)</script>', page)
    assert found is not None
    data: list[dict[str, object]] = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    return data


def test_captions_say_what_each_action_did_and_names_show() -> None:
    named = RECORD.with_names(["ann", "greedy"])
    frames = replay_frames(named)
    states = list(named.states())
    steps = [f for f in frames if f.heading.startswith("Step ")]
    for n, (frame, action) in enumerate(zip(steps, named.actions, strict=True)):
        _, events = ar.apply_with_events(states[n], action)
        caption = wording.caption_words(events)
        assert caption.replace("&", "&amp;") in frame.svg
        assert "Seat 0 \u00b7 ann" in frame.svg and "Seat 1 \u00b7 greedy" in frame.svg
    page = replay_html(named)
    assert "<title>Abyss replay: seat 0 (ann), seat 1 (greedy), standard variant" in page
    assert all("Seat 1 \u00b7 greedy" in str(frame["svg"]) for frame in _packed_frames(page))
    plain = replay_html(RECORD)
    assert "<title>Abyss replay: 2 players, standard variant" in plain
    assert not any("\u00b7 greedy" in str(frame["svg"]) for frame in _packed_frames(plain))


def test_one_frame_per_action_plus_the_deals() -> None:
    frames = replay_frames(RECORD)
    final = RECORD.replay()
    assert final.is_over and len(final.history) == 2
    # the deal, every action, and the deal of round 2
    assert len(frames) == 1 + len(RECORD.actions) + 1
    assert frames[0].heading == "The deal of round 1"
    assert [f.heading for f in frames].count("The deal of round 2") == 1
    steps = [f for f in frames if f.heading.startswith("Step ")]
    assert [f.heading for f in steps] == [f"Step {i + 1}: {drawing.action_words(a)}"
                                          for i, a in enumerate(RECORD.actions)]
    end_of_round_1 = frames[[f.heading for f in frames].index("The deal of round 2") - 1]
    assert _svg_title(end_of_round_1.svg).startswith("Abyss: end of round 1: the final reveal")
    assert any(w.startswith("Round 1 is scored") for w in end_of_round_1.words)
    assert frames[-1].words[-1].startswith("The game is over: seat")
    assert _svg_title(frames[-1].svg).startswith("Abyss: game over after 2 rounds")


def test_the_words_are_the_events() -> None:
    """Every event of every action is told, in order, one sentence each."""
    frames = iter(replay_frames(RECORD)[1:])
    state = RECORD.initial_state()
    seen: set[type] = set()
    for action in RECORD.actions:
        state, events = ar.apply_with_events(state, action)
        frame = next(frames)
        told = [event_words(e) for e in events if not isinstance(e, ev.NewRound)]
        assert list(frame.words) == told
        seen.update(type(e) for e in events)
        if any(isinstance(e, ev.NewRound) for e in events):
            assert next(frames).words[0].startswith(f"Round {state.round} is dealt")
    assert {ev.CardRevealed, ev.CardDrawn, ev.CardPlaced, ev.CardDiscarded, ev.OpeningDone, ev.RoundClosed,
            ev.FinalReveal, ev.RoundScored, ev.NewRound, ev.GameOver} <= seen


@pytest.mark.parametrize(("event", "words"), [
    (ev.CardRevealed(0, 1, 2, 7, "opening_flip"), "Seat 0 turns over (1,2): 7."),
    (ev.CardRevealed(1, 0, 0, -2, "flip"), "Seat 1 flips (0,0): -2."),
    (ev.CardDrawn(1, 8), "Seat 1 draws an 8."),
    (ev.Reshuffled(41, 3), "The draw pile is empty: the discards are shuffled into a new draw pile of 41 "
                           "cards; a 3 stays on the discard pile."),
    (ev.CardPlaced(0, 2, 3, 11, "discard"), "Seat 0 places the top discard, an 11, on (2,3)."),
    (ev.CardPlaced(0, 2, 3, 5, "drawn"), "Seat 0 places the drawn card, a 5, on (2,3)."),
    (ev.CardDiscarded(0, 9, "replaced", 2, 3, True),
     "The card it replaces, a 9 (face down until now), goes onto the discard pile."),
    (ev.CardDiscarded(1, 12, "drawn", None, None, False), "Seat 1 discards the drawn 12."),
    (ev.ColumnSwallowed(2, 1, 4, 3, True), "Column 1 of seat 2 holds three 4s after the final reveal: it is "
                                           "swallowed and its cards go onto the discard pile."),
    (ev.OpeningDone(2), "The opening is over: seat 2 plays first."),
    (ev.RoundClosed(0), "Seat 0 has no face-down card left: it closes the round, and every other seat "
                        "plays one last turn."),
    (ev.FinalReveal(((0, 2, 1, 12), (1, 0, 0, -2))),
     "The round ends: the face-down cards are turned over: seat 0 (2,1) 12; seat 1 (0,0) -2."),
    (ev.RoundScored(3, (20, 9), (40, 9), True, 0, False, (70, 33)),
     "Round 3 is scored: seat 0 20 (closer, \u00d7 2 = 40); seat 1 9. Totals: 70, 33."),
    (ev.NewRound(2, 125, 6), "Round 2 is dealt, every card face down; the discard pile opens with a 6, 125 "
                             "cards in the draw pile."),
    (ev.GameOver((0, 2), (40, 52, 40)), "The game is over: seats 0 and 2 share the win with a total of 40."),
])
def test_event_words(event: ev.Event, words: str) -> None:
    assert event_words(event) == words


def test_the_page_is_self_contained_and_holds_the_frames() -> None:
    page = replay_html(RECORD)
    assert page.startswith("<!DOCTYPE html>") and page == replay_html(RECORD)  # the same bytes each time
    outside = r"\b(?:https?|wss?|ftp):|<link|\bsrc=|@import|url\("
    assert not re.search(outside, page.replace("http://www.w3.org/2000/svg", ""))
    frames = replay_frames(RECORD)
    assert _packed_frames(page) == [{"heading": f.heading, "words": list(f.words), "svg": f.svg}
                                    for f in frames]
    assert "<title>Abyss replay: 2 players, standard variant," in page
    custom = replay_html(RECORD, title="Ann & Bob <3")
    assert "<title>Ann &amp; Bob &lt;3</title>" in custom and "<h1>Ann &amp; Bob &lt;3</h1>" in custom


@pytest.mark.rule("8.2")
def test_the_page_shows_no_secret() -> None:
    """Each picture is a spectator's view: of the record's secrets, no seed and no undealt card."""
    page = replay_html(RECORD)
    assert RECORD.seed is not None
    seed = RECORD.seed.to_bytes(32, "big") if isinstance(RECORD.seed, int) else RECORD.seed
    data = json.dumps(_packed_frames(page))
    assert seed.hex() not in data and seed.hex() not in page and "secretly" not in data


def test_bad_arguments() -> None:
    with pytest.raises(ar.PictureError) as caught:
        replay_html(RECORD, title=3)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_picture"
    with pytest.raises(ar.ReplayError) as redacted:
        replay_html(RECORD.redact())
    assert redacted.value.code == "record_redacted"
    for thing in (RECORD.to_json(), None, RECORD.replay()):
        with pytest.raises(ar.PictureError, match="a replay is made from a Record, not"):
            replay_html(thing)  # type: ignore[arg-type]
    broken = ar.Record.start(2, seed=1).with_actions(ar.Draw(0))
    with pytest.raises(ar.ReplayError) as failed:
        replay_frames(broken)
    assert failed.value.code == "replay_failed"


# -- in a real browser ---------------------------------------------------------------------------

def test_without_chromium_the_browser_test_skips_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "chromium_path", lambda: None)
    monkeypatch.delenv("ABYSS_BROWSER_TESTS", raising=False)
    with pytest.raises(pytest.skip.Exception, match="NO CHROMIUM: the headless-browser test"):
        browser.require_chromium()
    monkeypatch.setenv("ABYSS_BROWSER_TESTS", "required")
    with pytest.raises(pytest.fail.Exception, match="ABYSS_BROWSER_TESTS=required"):
        browser.require_chromium()


_SHOWN = """JSON.stringify({
  step: document.body.getAttribute("data-step"),
  counter: document.getElementById("counter").textContent,
  heading: document.getElementById("heading").textContent,
  words: Array.from(document.querySelectorAll("#words li")).map(function (li) { return li.textContent; }),
  title: (document.querySelector("#picture svg > title") || {}).textContent,
  height: document.querySelector("#picture svg").getBoundingClientRect().height,
  back: document.getElementById("back").disabled,
  next: document.getElementById("next").disabled
})"""


def test_the_page_in_headless_chromium(tmp_path: Path) -> None:
    """Load the page in Debian's Chromium, step with real keys and clicks, check what it shows."""
    record = _record(("greedy", "counting", "random"), seed=5)
    frames = replay_frames(record)
    path = tmp_path / "replay.html"
    path.write_text(replay_html(record), encoding="utf-8")
    url = path.as_uri()
    last = len(frames) - 1

    with chromium() as page:
        for domain in ("Network", "Runtime", "Page"):
            page.send(f"{domain}.enable")
        page.send("Page.navigate", url=url)
        page.wait_for("document.body && document.body.getAttribute('data-step') === '0'")

        def shown(index: int) -> None:
            now = json.loads(page.evaluate(_SHOWN))
            frame = frames[index]
            assert now["step"] == str(index) and now["counter"] == f"Step {index} of {last}"
            assert now["heading"] == frame.heading and now["words"] == list(frame.words)
            assert now["title"] == _svg_title(frame.svg)
            assert now["height"] > 200  # the picture is laid out, not just present
            assert now["back"] is (index == 0) and now["next"] is (index == last)

        shown(0)
        page.press("ArrowLeft", 37)  # nothing before the deal
        shown(0)
        for index in range(1, last + 1):  # every step, forward with the arrow key
            page.press("ArrowRight", 39)
            shown(index)
        page.press("ArrowRight", 39)  # nothing after the end
        shown(last)
        assert "The game is over" in frames[last].words[-1]
        page.press("Home", 36)
        shown(0)
        page.click("#next")
        page.click("#next")
        shown(2)
        page.click("#back")
        shown(1)
        page.press("End", 35)
        shown(last)
        page.press("ArrowLeft", 37)
        shown(last - 1)
        page.click("#first")
        shown(0)
        page.click("#last")
        shown(last)

        shot = base64.b64decode(page.send("Page.captureScreenshot", format="png")["data"])
        assert shot.startswith(b"\x89PNG") and len(shot) > 10_000
        requested = {e["params"]["request"]["url"] for e in page.events
                     if e.get("method") == "Network.requestWillBeSent"}
        assert requested == {url}, requested  # nothing from the network
        problems = [e for e in page.events if e.get("method") == "Runtime.exceptionThrown"
                    or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
        assert problems == []
