"""A real headless browser for tests: Debian's Chromium driven over the Chrome DevTools protocol.

`chromium()` starts `/usr/bin/chromium` (or `chromium` on the PATH) headless, on loopback,
with a fresh profile, and yields a [`Page`][] that talks to its one tab over a websocket
(the `websockets` package: no browser download, no driver). A test that needs it calls
`require_chromium()` first: it skips, saying loudly why, where no Chromium is installed --
unless `ABYSS_BROWSER_TESTS=required` (set by `.ci/run` once it has installed Chromium), where
a missing browser fails the test instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--no-default-browser-check",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0")
WAIT = 60.0
"""Seconds to wait for the browser to start or a page to get ready (a bound, not a measurement)."""


def chromium_path() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_chromium() -> str:
    """The Chromium executable; skips the test (or fails it, where CI requires one) without it."""
    path = chromium_path()
    why = None
    if path is None:
        why = ("NO CHROMIUM: the headless-browser test of the replay page did not run. Install Debian's "
               "Chromium (as root: apt-get update && apt-get install -y chromium); .ci/run does.")
    else:
        try:
            import websockets.sync.client  # noqa: F401
        except ImportError:
            why = "NO websockets PACKAGE: the browser test needs it (pip install -e '.[test]')."
    if why is not None:
        if os.environ.get("ABYSS_BROWSER_TESTS") == "required":
            pytest.fail(why + " (ABYSS_BROWSER_TESTS=required)")
        pytest.skip(why)
    assert path is not None
    return path


class Page:
    """One browser tab: send DevTools commands, collect their events."""

    def __init__(self, ws: Any) -> None:
        self._ws = ws
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Run one command; its result (events that arrive meanwhile are kept in `events`)."""
        self._next += 1
        ident = self._next
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv(timeout=WAIT))
            if message.get("id") == ident:
                if "error" in message:
                    raise AssertionError(f"{method} failed: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-like values only)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str) -> Any:
        """Evaluate `expression` until it is truthy (at most `WAIT` seconds); its value."""
        deadline = time.monotonic() + WAIT
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never made {expression!r} true")
            time.sleep(0.05)

    def press(self, key: str, code: int) -> None:
        """A real key press (down and up) as the keyboard sends it."""
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code,
                      nativeVirtualKeyCode=code)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element `selector`."""
        box = self.evaluate(f"(function () {{ var r = document.querySelector({json.dumps(selector)})"
                            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        x, y = box
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)



def _devtools_port(profile: Path, process: subprocess.Popen[bytes]) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"Chromium exited at start-up with status {process.returncode}")
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(marker.read_text().split()[0])
        time.sleep(0.05)
    raise AssertionError("Chromium did not open its DevTools port")


@contextlib.contextmanager
def chromium(width: int = 1200, height: int = 900) -> Iterator[Page]:
    """A headless Chromium with one blank tab; stopped (and its profile removed) on exit."""
    executable = require_chromium()
    # ignore_cleanup_errors: a helper process may still write its last file as the profile goes.
    with tempfile.TemporaryDirectory(prefix="abyss-chromium-", ignore_cleanup_errors=True) as tmp:
        profile = Path(tmp) / "profile"
        log = open(Path(tmp) / "chromium.log", "wb")  # noqa: SIM115  # closed below
        process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "about:blank"], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        try:
            from websockets.sync.client import connect

            port = _devtools_port(profile, process)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=WAIT) as answer:
                targets = json.load(answer)
            tab = next(t for t in targets if t.get("type") == "page")
            with connect(tab["webSocketDebuggerUrl"], max_size=None, open_timeout=WAIT) as ws:
                yield Page(ws)
        finally:
            process.terminate()
            try:
                process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # its helpers (zygote, renderers) too
            log.close()
