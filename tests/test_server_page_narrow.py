"""The play page on a phone-sized screen (420 px wide) in headless Chromium: readable, and every seat
labelled with who plays it.

A game of three (you, `greedy`, `counting`) is created from the page. At 420 px the page has no
sideways scroll of its own; the board is drawn at no less than 70% of its natural size (its numbers
stay readable) and scrolls in its own box; the picture's panels and the status line name the bots.
A screenshot of the page is taken (`Page.captureScreenshot`) and must be 420 px wide.

Skipped, saying so loudly, where no Chromium is installed (`.ci/run` installs Debian's).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.browser import chromium
from tests.servers import Served


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    with Served(tmp_path, "--bot-delay", "0.05", "--client-games", "0") as running:
        yield running


def test_the_play_page_reads_at_420_pixels_and_names_the_bots(server: Served, tmp_path: Path) -> None:
    with chromium(width=420, height=900) as page:
        page.send("Page.enable")
        page.send("Emulation.setDeviceMetricsOverride", width=420, height=900, deviceScaleFactor=1,
                  mobile=True)
        page.send("Page.navigate", url=server.url + "/")
        page.wait_for("document.getElementById('create') && document.getElementById('seat-1')")
        page.evaluate("document.getElementById('players').value = '3'; "
                      "document.getElementById('players').dispatchEvent(new Event('change')); "
                      "document.getElementById('seat-1').value = 'greedy'; "
                      "document.getElementById('seat-2').value = 'counting'; true")
        page.click("#create")
        page.wait_for("document.querySelector('#table svg') !== null && me.view !== null")
        shot = base64.b64decode(page.send("Page.captureScreenshot", format="png")["data"])
        (tmp_path / "play-420.png").write_bytes(shot)
        width, _ = struct.unpack(">II", shot[16:24])  # (the PNG header's size)
        assert width == 420
        # No sideways scroll of the page itself: everything but the board fits the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= 420
        # The board: at least 70% of its natural size, scrolling in its own box.
        natural = page.evaluate("Number(document.querySelector('#table svg').getAttribute('width'))")
        shown = page.evaluate("document.querySelector('#table svg').getBoundingClientRect().width")
        assert shown >= 0.7 * natural - 1, (shown, natural)
        assert page.evaluate("getComputedStyle(document.getElementById('table')).overflowX") == "auto"
        # Every seat is labelled with who plays it: the picture's panels and the status line.
        text = page.evaluate("document.querySelector('#table svg').textContent")
        for label in ("you", "greedy", "counting"):
            assert label in text, text[:400]
        assert page.evaluate("seatName(1)") == "Seat 1 (greedy)"
        assert page.evaluate("seatName(2)") == "Seat 2 (counting)"
        status = page.wait_for("document.getElementById('status').textContent")
        assert "Seat 1 " not in status.replace("Seat 1 (greedy)", ""), status
