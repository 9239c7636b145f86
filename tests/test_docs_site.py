"""The documentation site as a reader meets it: built by `mkdocs build --strict`, served over HTTP on
loopback, read in headless Chromium (tests/browser.py).

A reader who searches for "swallow" finds the rule before an internal function, the pictures of
the home page and of "How to play" load, and a name written in plain backticks in a docstring is a
link to its object (tools/griffe_crossrefs.py).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.browser import Page, chromium, require_chromium

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site, served on 127.0.0.1 at a port the system picks; its base URL."""
    require_chromium()
    pytest.importorskip("mkdocs", reason="the docs tools are in the dev extra")
    folder = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(folder)]
    built = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr[-3000:]
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _open(url: str) -> Iterator[Page]:
    with chromium(1400, 900) as page:
        page.send("Page.enable")
        page.send("Page.navigate", url=url)
        page.wait_for("document.readyState === 'complete'")
        yield page


def _search(page: Page, query: str) -> list[str]:
    """The links of the search results for `query`, in the order shown (each result's own page or
    section first, then its sub-results)."""
    page.wait_for("!!document.querySelector('.md-search__input')")
    page.evaluate(
        "(function () { document.querySelector('#__search').checked = true;"
        " var input = document.querySelector('.md-search__input'); input.focus();"
        f" input.value = {json.dumps(query)};"
        " input.dispatchEvent(new Event('input', {bubbles: true})); return true; })()")
    page.wait_for("document.querySelectorAll('.md-search-result__item').length > 0")
    time.sleep(0.3)  # the worker answers once; let the list settle
    links: list[str] = page.evaluate(
        "Array.from(document.querySelectorAll('.md-search-result__item a'))"
        ".map(a => a.getAttribute('href'))")
    return links


def test_search_finds_the_rule_before_an_internal_function(site: str) -> None:
    with _open(site) as page:
        links = _search(page, "swallow")
    rule = next(i for i, link in enumerate(links) if link.endswith("rules/#rule-4.1"))
    api = [i for i, link in enumerate(links) if "/api" in link]
    assert api, links  # the API pages do mention swallowing: the check compares real results
    assert rule < min(api), links


@pytest.mark.parametrize("path", ["", "how-to-play/"])
def test_the_pictures_load(site: str, path: str) -> None:
    with _open(site + path) as page:
        pictures = page.wait_for(
            "(function () { var images = Array.from(document.querySelectorAll('article img'));"
            " return images.length && images.every(i => i.complete) &&"
            " images.map(i => [i.getAttribute('src'), i.naturalWidth, i.alt]); })()")
    assert pictures and all(width > 0 and alt for _, width, alt in pictures), pictures
    if path == "how-to-play/":
        assert len(pictures) == 7


def test_a_backticked_name_in_a_docstring_links_to_its_object(site: str) -> None:
    """The module docstring of `abyss_rules.action_space` says `Draw` in plain backticks (so `help()`
    reads plainly); on the site it links to `Draw` on the game's API page, and the link lands there."""
    with _open(site + "api-modules/") as page:
        href = page.wait_for(
            "(function () { var module = document.getElementById('abyss_rules.action_space').parentElement;"
            " var code = Array.from(module.querySelectorAll('.doc-contents code'))"
            ".find(c => c.textContent === 'Draw');"
            " var link = code && code.closest('a'); return link && link.getAttribute('href'); })()")
        assert href == "../api-game/#abyss_rules.Draw", href
        target = json.dumps(href)
        page.evaluate(f"(function () {{ location.href = new URL({target}, location.href).href;"
                      " return true; })()")
        page.wait_for("location.pathname.endsWith('/api-game/') && document.readyState === 'complete'")
        heading = page.wait_for("(function () { var h = document.getElementById('abyss_rules.Draw');"
                                " return h && h.textContent; })()")
    assert "Draw" in heading
