"""A small client of the server's HTTP API (standard library + `abyss_rules`), and bots that play through it.

    from abyss_rules.serve.client import Client
    with Client("http://127.0.0.1:8000") as client:
        game = client.create_game(players=2, variant="short")
        view = client.view(game.id, game.tokens[0])            # seat 0's view (an abyss_rules.View)
        view, events = client.act(game.id, game.tokens[0], view.legal_actions[0], seq=view.seq)

`play` lets built-in bots (`abyss_rules.bots`) play a whole game over HTTP, one request at a time;
`play_concurrently` gives each seat its own thread and connection, waiting for its turn with long
polls, as separate programs would. Each bot chooses from the view it fetched -- never the state.

As a script, against a running server:

    python -m abyss_rules.serve.client http://127.0.0.1:8000 --bots greedy,counting --variant short
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from ..bots import Bot, make_bot
from . import _library as ar

__all__ = ["Client", "NewGame", "Outcome", "Response", "ServerError", "play", "play_concurrently"]

_NO_BODY: Final = object()


class Response(NamedTuple):
    """One HTTP response, as received."""

    status: int
    headers: Mapping[str, str]
    """The response headers (looked up in any case)."""
    body: bytes

    def json(self) -> Any:
        """The body as JSON (`None` if empty)."""
        return json.loads(self.body) if self.body else None


Observer = Callable[[str, str, Response], None]
"""Called with `(method, path, response)` after every response (from the requesting thread)."""


class ServerError(Exception):
    """The server refused a request: the HTTP `status` and its `verdict` document."""

    def __init__(self, status: int, verdict: Mapping[str, Any]) -> None:
        self.status = status
        self.verdict = dict(verdict)
        self.code: str | None = self.verdict.get("code")
        self.rule: str | None = self.verdict.get("rule")
        self.message: str = self.verdict.get("message") or ""
        super().__init__(f"{status} {self.code}: {self.message}")


class NewGame(NamedTuple):
    """What `POST /games` returned: the game's id, each seat's token (secret) and the first view.

    A seat played by one of the server's bots has no token (`None`).
    """

    id: str
    tokens: tuple[str | None, ...]
    view: ar.View


class Client:
    """A connection to the example server (one per thread: it keeps one keep-alive connection).

    Args:
        url: The server's base URL, e.g. `http://127.0.0.1:8000`.
        timeout: Seconds to wait for the server (a long poll waits longer: see `view`).
        observer: Called after every response (tests use it to inspect every byte received).
    """

    def __init__(self, url: str, *, timeout: float = 30.0, observer: Observer | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or parts.path not in ("", "/"):
            raise ValueError(f"expected a base URL such as http://127.0.0.1:8000, got {url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout = timeout
        self.observer = observer
        self._connection: http.client.HTTPConnection | None = None
        self._reused = False

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    # -- raw requests ----------------------------------------------------------------------

    def request(self, method: str, path: str, doc: Any = _NO_BODY, *, token: str | None = None,
                data: bytes | None = None, headers: Mapping[str, str] | None = None) -> Response:
        """Send one request and return the response, whatever its status.

        `doc` is sent as JSON; `data` as raw bytes instead (for malformed bodies). `token`
        becomes `Authorization: Bearer <token>`; `headers` are added last (and override).
        """
        body = data if data is not None else None if doc is _NO_BODY else json.dumps(doc).encode("utf-8")
        sent = {"Accept": "application/json"}
        if body is not None:
            sent["Content-Type"] = "application/json"
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        sent.update(headers or {})
        for attempt in range(2):
            if self._connection is None:
                self._connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self._reused = False
            connection, reused = self._connection, self._reused
            try:
                connection.request(method, path, body=body, headers=sent)
                raw = connection.getresponse()
                payload = raw.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                # A kept-alive connection the server had closed meanwhile: retry once on a new one.
                # (An action retried after all is refused as stale_action, never applied twice.)
                if attempt or not reused:
                    raise
                continue
            except BaseException:
                self.close()
                raise
            self._reused = True
            if raw.will_close:
                self.close()
            response = Response(raw.status, raw.headers, payload)  # type: ignore[arg-type]  # an email.message.Message: any case
            if self.observer is not None:
                self.observer(method, path, response)
            return response
        raise AssertionError("unreachable")

    def call(self, method: str, path: str, doc: Any = _NO_BODY, *, token: str | None = None,
             expect: int = 200) -> Any:
        """Send a request and return its JSON; raise `ServerError` unless the status is `expect`."""
        response = self.request(method, path, doc, token=token)
        if response.status != expect:
            try:
                verdict = response.json()
            except ValueError:
                verdict = None
            if not isinstance(verdict, dict):
                verdict = {"code": None, "message": response.body[:200].decode("utf-8", "replace")}
            raise ServerError(response.status, verdict)
        return response.json()

    # -- the endpoints -----------------------------------------------------------------------

    def create_game(self, players: int, variant: str | ar.Variant = "standard", *,
                    seed: int | None = None, bots: Sequence[str | None] | None = None) -> NewGame:
        """`POST /games`: a new game (a preset's name or any `Variant`).

        `bots` names, per seat, the server's built-in bot that plays it (`None`: a person);
        such seats get no token.
        """
        doc: dict[str, Any] = {"players": players}
        doc["variant"] = variant if isinstance(variant, str) else ar.variant_to_dict(variant)
        if seed is not None:
            doc["seed"] = seed
        if bots is not None:
            doc["bots"] = list(bots)
        reply = self.call("POST", "/games", doc, expect=201)
        seats = sorted(reply["seats"], key=lambda seat: seat["seat"])
        tokens = tuple(seat.get("token") for seat in seats)
        return NewGame(reply["game"], tokens, ar.view_from_dict(reply["view"]))

    def view(self, game: str, token: str | None = None, *, after: int | None = None) -> ar.View:
        """`GET /games/{game}/view`: the view of `token`'s seat (a spectator's without a token).

        With `after`, the server waits (up to its long-poll time) until the game has passed that
        seq -- or is over -- before answering: how a seat waits for its turn without busy polling.
        """
        path = f"/games/{game}/view" + ("" if after is None else f"?after={after}")
        return ar.view_from_dict(self.call("GET", path, token=token))

    def act(
        self, game: str, token: str, action: ar.Action | str, *, seq: int
    ) -> tuple[ar.View, dict[str, Any]]:
        """`POST /games/{game}/actions`: an action (object or notation such as `"0f12"`) made at `seq`.

        Returns the seat's new view and the `events` document; raises `ServerError` if refused.
        """
        if isinstance(action, str):
            doc: dict[str, Any] = {"notation": action, "seq": seq}
        else:
            doc = dict(ar.action_to_dict(action, seq=seq))
        reply = self.call("POST", f"/games/{game}/actions", doc, token=token)
        return ar.view_from_dict(reply["view"]), reply["events"]

    def record(self, game: str) -> ar.Record:
        """`GET /games/{game}/record`: the redacted record (every action so far; no seed)."""
        return ar.Record.from_dict(self.call("GET", f"/games/{game}/record"))


# -- bots over HTTP --------------------------------------------------------------------------

class Outcome(NamedTuple):
    """A game played over HTTP: the game, its final (spectator's) view and counts."""

    game: NewGame
    final: ar.View
    actions: int
    """Actions accepted by the server."""
    stale: int
    """Actions refused as `stale_action` (another seat acted first) and retried from a new view."""


def _to_act(view: ar.View) -> tuple[int, ...]:
    """The seats that may act in `view`: the player to move, or those owing opening flips."""
    return (view.turn,) if view.turn is not None else view.owing_flips


def play(url: str, bots: Sequence[Bot], variant: str | ar.Variant = "short", *, seed: int | None = None,
         max_actions: int = 10_000, observer: Observer | None = None) -> Outcome:
    """Create a game for `len(bots)` players and let the bots play it through one connection.

    Each step fetches the acting seat's view with its token, asks its bot, and posts the action.
    """
    with Client(url, observer=observer) as client:
        game = client.create_game(len(bots), variant, seed=seed)
        view = game.view
        for count in range(max_actions + 1):
            if view.is_over:
                return Outcome(game, client.view(game.id), count, 0)
            seat = _to_act(view)[0]
            token = game.tokens[seat]
            if token is None:
                raise ValueError("play() needs every seat played by a person: no server bots")
            mine = client.view(game.id, token)
            view, _ = client.act(game.id, token, bots[seat].choose(mine), seq=mine.seq)
    raise RuntimeError(f"the game was not over after {max_actions} actions")


def play_concurrently(url: str, bots: Sequence[Bot], variant: str | ar.Variant = "short", *,
                      seed: int | None = None, max_requests: int = 10_000, timeout: float = 120.0,
                      observer: Observer | None = None) -> Outcome:
    """Like `play`, but each seat runs in its own thread with its own connection.

    A seat long-polls its view (`after=` the seq it last saw) until it may act, then posts its
    bot's choice. In the opening several seats may act at once: the first action wins, the
    others are refused as `stale_action` and choose again from a new view.
    """
    with Client(url, observer=observer) as client:
        game = client.create_game(len(bots), variant, seed=seed)
    counts = [[0, 0] for _ in bots]  # per seat: actions accepted, stale refusals
    failures: list[BaseException] = []

    def seat_loop(seat: int) -> None:
        token = game.tokens[seat]
        if token is None:
            raise ValueError("play_concurrently() needs every seat played by a person: no server bots")
        try:
            with Client(url, observer=observer) as mine:
                seen: int | None = None
                for _ in range(max_requests):
                    view = mine.view(game.id, token, after=seen)
                    if view.is_over:
                        return
                    seen = view.seq
                    if not view.legal_actions:
                        continue
                    try:
                        mine.act(game.id, token, bots[seat].choose(view), seq=view.seq)
                        counts[seat][0] += 1
                    except ServerError as error:
                        if error.code != ar.Code.STALE_ACTION:
                            raise
                        counts[seat][1] += 1
                raise RuntimeError(f"seat {seat}: the game was not over after {max_requests} requests")
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=seat_loop, args=(seat,), name=f"seat-{seat}", daemon=True)
               for seat in range(len(bots))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
        if thread.is_alive():
            raise TimeoutError(f"{thread.name} still plays after {timeout} s")
    if failures:
        raise failures[0]
    with Client(url, observer=observer) as client:
        final = client.view(game.id)
    return Outcome(game, final, sum(n for n, _ in counts), sum(s for _, s in counts))


def main(argv: list[str] | None = None) -> int:
    """Let built-in bots play one game on a running server and print the result."""
    parser = argparse.ArgumentParser(prog="python -m abyss_rules.serve.client",
                                     description="Built-in bots play a game on the example server.")
    parser.add_argument("url", help="the server's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--bots", default="greedy,counting",
                        help="one bot per seat, comma-separated: random, greedy, counting")
    parser.add_argument("--variant", default="short", choices=sorted(ar.Variant.presets()))
    parser.add_argument("--concurrent", action="store_true", help="one thread and connection per seat")
    args = parser.parse_args(argv)
    try:
        bots = [make_bot(name.strip(), seed=seat) for seat, name in enumerate(args.bots.split(","))]
        run = play_concurrently if args.concurrent else play
        outcome = run(args.url, bots, args.variant)
    except (ar.AbyssError, ServerError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    final = outcome.final
    print(f"game {outcome.game.id}: {outcome.actions} actions, {outcome.stale} stale; "
          f"totals {list(final.totals)}, winners {list(final.winners)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
