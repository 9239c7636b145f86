"""The server's play page in a real headless Chromium (tests/browser.py): create a game against a
bot, play by clicking the cards of the player's own picture, see the bot answer over the WebSocket,
provoke a refusal and see it explained.

Skipped, saying so loudly, where no Chromium is installed (`.ci/run` installs Debian's).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.browser import chromium
from tests.servers import Served

import abyss_rules as ar
from abyss_rules.codec import view_to_dict

GameServer = Served


@pytest.fixture
def server(tmp_path: Path) -> Iterator[GameServer]:
    with Served(tmp_path, "--bot-delay", "0.05", "--client-games", "0") as running:
        yield running


_SEQ = "(me.view ? me.view.seq : -1)"


@pytest.mark.rule("8.2", "8.3")
def test_play_against_a_bot_in_headless_chromium(server: GameServer) -> None:
    with chromium() as page:
        for domain in ("Network", "Runtime", "Page"):
            page.send(f"{domain}.enable")
        page.send("Page.navigate", url=server.url + "/")
        page.wait_for("document.getElementById('create') && document.getElementById('seat-1')")
        assert page.evaluate("document.getElementById('seat-1').value") == "counting"  # medium
        options = page.evaluate("Array.from(document.getElementById('seat-1').options, "
                                "o => [o.value, o.text])")
        assert options == [[bot, f"bot: {level} ({bot})"] for level, bot in ar.bots.LEVELS.items()] + [
            ["", "a friend"]]
        page.click("#create")
        game = page.wait_for("new URLSearchParams(location.hash.slice(1)).get('game')")
        assert game in server.game_ids()
        assert page.wait_for("document.getElementById('status').textContent").startswith("Opening")
        page.wait_for("document.getElementById('space-0-1') !== null")  # the picture, clickable

        # The opening: click two of my cards; the bot flips its own meanwhile (a click made at the
        # seq the bot's flip just passed is refused as stale_action, and the page says so: click again).
        for col in (0, 1):
            for _ in range(10):
                page.wait_for(f"document.getElementById('space-0-{col}') !== null")
                page.click(f"#space-0-{col}")
                page.wait_for(f"!me.busy && (me.view.grids[0][{col}].face_up || "
                              "!document.getElementById('refusal').hidden)")
                if page.evaluate(f"me.view.grids[0][{col}].face_up"):
                    break
                assert page.evaluate("document.getElementById('refusal').dataset.code") == "stale_action"
            assert page.evaluate(f"me.view.grids[0][{col}].face_up") is True
        page.wait_for("me.view.turn === 0")  # whoever opened, it comes to me
        assert page.evaluate("document.getElementById('status').textContent").startswith("Your turn")
        page.wait_for("document.querySelector('#table svg') !== null")  # the library's picture
        # The picture is the board: the player's twelve cards in it are the buttons; there is no
        # second grid, and the other seat's cards are not clickable.
        assert page.evaluate("document.querySelectorAll('#table svg g.space').length") == 12
        assert page.evaluate("document.querySelectorAll('button[id^=space], table').length") == 0
        assert page.evaluate("document.getElementById('space-0-0').querySelector('title').textContent"
                             ".startsWith('seat 0, row 0, column 0')") is True
        assert page.evaluate("me.socket !== null && me.socket.readyState === WebSocket.OPEN") is True

        # A refusal, explained: flipping a card that is already face up (rule 3.10).
        page.wait_for("document.getElementById('space-0-0') !== null")
        page.click("#space-0-0")
        page.wait_for("!document.getElementById('refusal').hidden")
        refusal = page.evaluate("document.getElementById('refusal').textContent")
        assert page.evaluate("document.getElementById('refusal').dataset.code") == "space_face_up"
        assert "rule 3.10" in refusal and "space_face_up" in refusal
        seq = page.evaluate(_SEQ)
        assert server.game_state(game).seq == seq  # refused: nothing changed

        # Two moves by clicking: draw then place; take the discard onto a space. The bot answers each.
        for clicks, mine in ((["#draw", "#space-1-0"], 2), (["#take", "#space-1-1"], 1)):
            page.wait_for("!me.busy && (me.view.turn === 0 || me.view.phase === 'game_over')")
            if page.evaluate("me.view.phase") == "game_over":
                break
            before = page.evaluate(_SEQ)
            for selector in clicks:
                page.wait_for(f"document.querySelector('{selector}') !== null")
                page.click(selector)
                if selector == "#draw":
                    # The pushed view can show the drawn card before the POST's answer has been
                    # handled; the page ignores clicks while a request is in flight (`me.busy`).
                    page.wait_for("!me.busy && me.view.drawn !== null")
            # My actions, then the bot's turn (one action or two), then mine again.
            page.wait_for(f"(me.view.turn === 0 && {_SEQ} > {before} + {mine}) "
                          "|| me.view.phase === 'game_over'")
            log = page.evaluate("Array.from(document.querySelectorAll('#log li'))"
                                ".map((li) => li.textContent)")
            assert any(line.startswith("seat 1 ") for line in log), log
            assert page.evaluate("document.getElementById('refusal').hidden") is True

        # What the page holds is exactly seat 0's view of the authoritative state: no secret.
        held = json.loads(page.evaluate("JSON.stringify(me.view)"))
        state = server.game_state(game)
        if held["seq"] == state.seq:
            assert held == view_to_dict(ar.view(state, 0))
        record = server.full_record(game)
        assert {action.player for action in record.actions} == {0, 1}

        requested = {e["params"]["request"]["url"] for e in page.events
                     if e.get("method") == "Network.requestWillBeSent"}
        assert all(url.startswith(server.url + "/") for url in requested), requested  # nothing elsewhere
        problems = [e for e in page.events if e.get("method") == "Runtime.exceptionThrown"
                    or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
        assert problems == []
