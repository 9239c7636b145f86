"""An example HTTP game server for abyss-rules: games in a database, several processes, a page to play.

Run it from the repository root (port 0 picks a free port and prints it):

    python -m examples.server --db sqlite:///games.db --port 0
    python -m examples.server --db postgresql://abyss@db.internal/abyss --port 8000

Each game's authoritative `State`, its record and its seats' token hashes live in the database
(`store.py`); every accepted action is stored in one transaction that succeeds only if the game
is still at the seq the action was checked against, so any number of processes may serve one
database. The server speaks JSON:

    GET  /                       the play page (HTML + JavaScript, no external resources)
    POST /games                  create a game -> 201 {"game", "seats": [{"seat", "token"}], "view"}
    GET  /games/{id}/view        the view of the seat whose token is sent, else a spectator's -> 200
    GET  /games/{id}/events      a Server-Sent Events stream: the seat's view after each action
    POST /games/{id}/actions     an action (or {"notation", "seq"}) -> 200 {"view", "events"} or 4xx
    GET  /games/{id}/record      the redacted record: every action so far, no seed -> 200
    GET  /games/{id}/picture     an SVG picture of what the seat (or a spectator) sees -> 200

Every refusal, on every endpoint, is a `verdict` document (`abyss_rules.Verdict`) with `legal`
false and a stable `code`: 400 a malformed request, 401 a missing or unknown token, 403 an
action for another seat (`seat_mismatch`) or a seed the server does not accept, 404 an unknown
(or expired) game or route, 405 a wrong method, 409 an action the game's current state refuses
(`stale_action` and every rule's code), 411 no Content-Length, 413 a body over the limit, 415 a
body that is not `application/json`, 429 a client creating too many games, 503 too many games.
See README.md next to this file.

Only loopback is served by default (127.0.0.1). It has no TLS and no accounts: put it behind a
TLS-terminating proxy to serve it beyond one machine.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import re
import socket
import sys
import threading
import time
import traceback
import urllib.parse
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

if __package__ in (None, ""):  # run as a script: python examples/server/app.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "examples.server"

import abyss_rules as ar

from .games import DEFAULT_LIMITS, Games, Limits
from .protocol import HttpError, parse_json, read_game_request, read_message
from .store import open_store

__all__ = ["DEFAULT_MAX_BODY", "GameServer", "HttpError"]

DEFAULT_MAX_BODY: Final = 64 * 1024
"""The largest request body accepted, in bytes (an action document is about 150 bytes)."""
DEFAULT_LONG_POLL: Final = 20.0
"""How long `GET /games/{id}/view?after=N` waits for the game to pass seq N, in seconds."""
DEFAULT_IDLE_TIMEOUT: Final = 30.0
"""How long a connection may sit idle (or stall mid-request) before it is closed, in seconds."""
HEARTBEAT: Final = 15.0
"""An event stream sends a comment after this many seconds without a move (proxies keep it open)."""
_DRAIN_LIMIT: Final = 64 << 20
"""An over-limit body is read and dropped, up to this size, so the client gets its 413 cleanly."""
_DRAIN_TIME: Final = 5.0
_PAGE: Final = Path(__file__).with_name("page.html")
_PAGE_HEADERS: Final = {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                               "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class GameServer(http.server.ThreadingHTTPServer):
    """The example server: a `ThreadingHTTPServer` whose games live in a database.

    Args:
        address: `(host, port)`; the default binds loopback only, port 0 picks a free port.
        db: The database URL: `sqlite:///PATH` (a file), `sqlite:///:memory:` (this process only,
            the default: for tests) or `postgresql://...` (shared by several processes).
        limits: Creation limits and expiry (`games.Limits`).
        max_body: The largest request body accepted (bytes); larger gets 413.
        allow_seed: Accept a `seed` when creating a game (for tests and reproducible demos: whoever
            knows the seed knows every card). Refused with 403 `seed_not_allowed` otherwise.
        long_poll: How long `GET .../view?after=N` may wait (seconds).
        idle_timeout: How long a connection may stay idle or stall mid-request (seconds).
        bot_delay: Seconds a bot waits before each of its moves.
        quiet: Log nothing (the default logs one line per request to stderr).

    Use `running()` to serve from a background thread (tests, notebooks), or `serve_forever()`
    and then `close_gracefully()`.
    """

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int] = ("127.0.0.1", 0),
        *,
        db: str = "sqlite:///:memory:",
        limits: Limits = DEFAULT_LIMITS,
        max_body: int = DEFAULT_MAX_BODY,
        allow_seed: bool = False,
        long_poll: float = DEFAULT_LONG_POLL,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        bot_delay: float = 0.5,
        quiet: bool = False,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        try:
            self.games = Games(open_store(db), limits, bot_delay=bot_delay)
        except BaseException:
            super().server_close()
            raise
        self.games.start()
        self.max_body = max_body
        self.allow_seed = allow_seed
        self.long_poll = long_poll
        self.idle_timeout = idle_timeout
        self.quiet = quiet
        self.closing = False
        self._active = 0
        self._idle = threading.Condition()

    @property
    def url(self) -> str:
        """The base URL, e.g. `http://127.0.0.1:8000`."""
        host, port = self.server_address[0], self.server_address[1]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    # -- for tests and operators: never for clients (rule 8.2) -----------------------------

    def game_ids(self) -> tuple[str, ...]:
        """The ids of every stored game, oldest first."""
        return tuple(self.games.store.game_ids())

    def game_state(self, game_id: str) -> ar.State:
        """The authoritative state of a game."""
        return self.games.state(game_id)

    def full_record(self, game_id: str) -> ar.Record:
        """The full record (seed included) of a game."""
        return self.games.record(game_id)

    # -- running -------------------------------------------------------------------------

    @contextlib.contextmanager
    def running(self) -> Iterator[GameServer]:
        """Serve from a background thread for the duration of a `with` block, then close the server."""
        thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1},
                                  name="abyss-example-server", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.shutdown()
            thread.join()
            self.close_gracefully(timeout=5.0)

    def close_gracefully(self, timeout: float = 10.0) -> bool:
        """After `serve_forever` returned: let requests in progress finish, then close everything.

        Long polls and event streams answer at once; every other request gets up to `timeout`
        seconds. Returns whether all of them finished in time.
        """
        self.closing = True
        self.games.stop(timeout)
        with self._idle:
            finished = self._idle.wait_for(lambda: self._active == 0, timeout=timeout)
        self.server_close()
        self.games.store.close()
        return finished

    def stop_waiting(self) -> None:
        """Wake every long poll and event stream so that it answers now (when the server stops)."""
        self.closing = True
        self.games.stop(0)

    @contextlib.contextmanager
    def serving_request(self) -> Iterator[None]:
        """Counts the requests in progress (`close_gracefully` waits for them)."""
        with self._idle:
            self._active += 1
        try:
            yield
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away is not an error; anything else is printed (never sent)."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


# -- requests --------------------------------------------------------------------------------

class _Stream:
    """A reply that is a stream of Server-Sent Events: the seat's view after each action."""

    def __init__(self, seat: int | None, first: tuple[ar.State, ar.Action | None, tuple[ar.Event, ...]],
                 rest: Iterator[tuple[ar.State, ar.Action | None, tuple[ar.Event, ...]]]) -> None:
        self.seat, self.first, self.rest = seat, first, rest

    def messages(self) -> Iterator[bytes]:
        """`view` first (or the `action`s since the seq the client saw), an `action` per move, `end`."""
        last: ar.State | None = None
        for state, action, events in itertools.chain([self.first], self.rest):
            if action is not None:
                doc = {"view": ar.view_to_dict(ar.view(state, self.seat)),
                       "events": ar.events_to_dict(events, action=action, seq=state.seq)}
                yield _event("action", state.seq, doc)
            elif last is not None and last.seq == state.seq:
                yield b": no move yet\n\n"
            else:
                yield _event("view", state.seq, ar.view_to_dict(ar.view(state, self.seat)))
            last = state
        over = last is not None and last.is_over
        yield f"event: end\ndata: {ar.canonical_json({'over': over})}\n\n".encode()


def _event(name: str, seq: int, doc: Any) -> bytes:
    return f"id: {seq}\nevent: {name}\ndata: {ar.canonical_json(doc)}\n\n".encode()


_Reply = tuple[int, Any, Mapping[str, str]]

_GAME: Final = r"/games/(?P<game>[^/]{1,100})"
_GET: Final = {"GET": "", "HEAD": ""}
_ROUTES: Final[tuple[tuple[str, str, dict[str, str], frozenset[str]], ...]] = (
    # path pattern, handler, methods, query parameters
    ("/", "page", _GET, frozenset()),
    ("/games", "create_game", {"POST": ""}, frozenset()),
    (_GAME + "/view", "get_view", _GET, frozenset({"after"})),
    (_GAME + "/events", "get_events", _GET, frozenset({"after"})),
    (_GAME + "/actions", "post_action", {"POST": ""}, frozenset()),
    (_GAME + "/record", "get_record", _GET, frozenset()),
    (_GAME + "/picture", "get_picture", _GET, frozenset()),
)
_UNAUTHORIZED: Final = {"WWW-Authenticate": 'Bearer realm="abyss"'}


class _Handler(http.server.BaseHTTPRequestHandler):
    """One connection: parses each request, routes it, answers with JSON."""

    server: GameServer
    protocol_version = "HTTP/1.1"  # keep-alive: a client reuses its connection
    disable_nagle_algorithm = True  # headers and body are two writes: don't wait 40 ms between them
    server_version = "abyss-example-server"

    def version_string(self) -> str:
        return self.server_version  # not the Python version

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)  # idle or stalled connections are closed

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)

    # Every method goes through _dispatch: a route answers 405 to the methods it does not take.
    def do_GET(self) -> None:
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors found by `http.server` itself (bad request line, unknown method...) as JSON too."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # the request line was unreadable: still send a status line
            self.request_version = "HTTP/1.0"
        names = {400: "bad_request", 408: "request_timeout", 414: "uri_too_long",
                 431: "headers_too_large", 501: "not_implemented", 505: "http_version_not_supported"}
        self._send(code, HttpError.refuse(code, names.get(code, f"http_{code}"),
                                          message or "bad request").verdict.to_dict())

    def handle_expect_100(self) -> bool:
        """`Expect: 100-continue`: refuse an over-limit body before the client sends it."""
        try:
            length = self._content_length()
        except HttpError as error:
            self._send(error.status, error.verdict.to_dict(), error.headers)
            return False
        if length is not None and length > self.server.max_body:
            self.close_connection = True
            error = self._too_large(length)
            self._send(error.status, error.verdict.to_dict())
            return False
        return super().handle_expect_100()

    def _dispatch(self) -> None:
        with self.server.serving_request():
            self._answer()

    def _answer(self) -> None:
        drain = 0
        try:
            body = self._read_body()  # first: whatever the answer, the connection stays in step
            name, game_id, query = self._route()
            reply = getattr(self, "_" + name)(game_id, query, body)
        except HttpError as error:
            reply = (error.status, error.verdict.to_dict(), error.headers)
            drain = error.drain
        except Exception:  # a bug: logged here, never sent (the game is unharmed: nothing was stored)
            traceback.print_exc(file=sys.stderr)
            reply = (500, ar.Verdict(False, "internal_error", None, "the server failed to answer this "
                                     "request", None).to_dict(), {})
        if self.server.closing:
            self.close_connection = True
        if isinstance(reply[1], _Stream):
            self._send_stream(reply[1])
        else:
            self._send(*reply)
        if drain:
            self._drop(drain)

    def _send(self, status: int, doc: Any, headers: Mapping[str, str] | None = None) -> None:
        body = doc if isinstance(doc, bytes) else ar.canonical_json(doc).encode("utf-8")
        self.send_response(status)
        sent = {"Content-Type": "application/json", "Content-Length": str(len(body)),
                "Cache-Control": "no-store"}
        sent.update(headers or {})
        for name, value in sent.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_stream(self, stream: _Stream) -> None:
        self.close_connection = True  # the stream ends when the game does: no Content-Length
        self.send_response(200)
        for name, value in (("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                            ("X-Accel-Buffering", "no"), ("Connection", "close")):
            self.send_header(name, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        self.connection.settimeout(max(self.server.idle_timeout, HEARTBEAT * 2))
        for message in stream.messages():
            self.wfile.write(message)
            self.wfile.flush()

    # -- parsing -------------------------------------------------------------------------

    def _route(self) -> tuple[str, str, dict[str, str]]:
        parts = urllib.parse.urlsplit(self.path)
        for pattern, name, methods, parameters in _ROUTES:
            match = re.fullmatch(pattern, parts.path)
            if match is None:
                continue
            if self.command not in methods:
                allowed = ", ".join(methods)
                raise HttpError.refuse(405, "method_not_allowed",
                                       f"{parts.path} takes {allowed}, not {self.command}",
                                       headers={"Allow": allowed})
            return name, match.groupdict().get("game") or "", self._query(parts.query, parameters)
        raise HttpError.refuse(404, "no_such_route", f"no route {parts.path[:80]!r}: the routes are "
                               "GET /, POST /games, GET /games/{id}/view, GET /games/{id}/events, "
                               "POST /games/{id}/actions, GET /games/{id}/record and GET /games/{id}/picture")

    @staticmethod
    def _query(query: str, allowed: frozenset[str]) -> dict[str, str]:
        try:
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query),
                                           max_num_fields=8)
        except ValueError:
            raise HttpError.refuse(400, "bad_query", "the query string cannot be read") from None
        out: dict[str, str] = {}
        for key, value in pairs:
            if key not in allowed:
                raise HttpError.refuse(400, "unknown_parameter", f"unknown query parameter {key[:40]!r}"
                                       + (f" (this route takes: {', '.join(sorted(allowed))})" if allowed
                                          else " (this route takes none)"))
            if key in out:
                raise HttpError.refuse(400, "bad_query", f"query parameter {key!r} is given twice")
            out[key] = value
        return out

    def _content_length(self) -> int | None:
        """The declared body length (`None`: none declared); 411 or 400 for bad framing."""
        if self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = True
            raise HttpError.refuse(411, "length_required", "send the body with a Content-Length, "
                                                           "not Transfer-Encoding")
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            if self.command in ("POST", "PUT", "PATCH"):
                raise HttpError.refuse(411, "length_required", "a request with a body needs a "
                                                               "Content-Length header")
            return None
        text = lengths[0].strip()
        if len(lengths) > 1 or not (text.isascii() and text.isdigit()) or len(text) > 18:
            self.close_connection = True
            raise HttpError.refuse(400, "bad_request", "Content-Length must be one decimal number")
        return int(text)

    def _too_large(self, length: int) -> HttpError:
        return HttpError.refuse(413, ar.Code.DOCUMENT_TOO_LARGE, f"the body is {length} bytes; this server "
                                                                 f"takes at most {self.server.max_body}")

    def _read_body(self) -> bytes:
        """The request body (Content-Length framing only); 411, 413 or 400 before anything else.

        An over-limit body is not read: the 413 is sent at once, then the body is read and dropped
        (the number returned), so that the client sees the answer instead of a reset connection.
        """
        length = self._content_length()
        if length is None:
            return b""
        if length > self.server.max_body:
            self.close_connection = True
            error = self._too_large(length)
            error.drain = length
            raise error
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True
            raise HttpError.refuse(408, "request_timeout", "the body did not arrive in time") from None
        if len(body) != length:
            self.close_connection = True
            raise HttpError.refuse(400, "bad_request", "the body is shorter than its Content-Length")
        return body

    def _drop(self, length: int) -> None:
        """Read and drop up to `length` bytes of a refused body (bounded in size and time)."""
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)  # the answer is complete: the client may read it
            deadline = time.monotonic() + _DRAIN_TIME
            length = min(length, _DRAIN_LIMIT)
            self.connection.settimeout(1.0)
            while length > 0 and time.monotonic() < deadline:
                chunk = self.connection.recv(min(length, 65536))
                if not chunk:
                    break
                length -= len(chunk)

    def _json_body(self, body: bytes) -> Any:
        content_type = self.headers.get_content_type() if "Content-Type" in self.headers else ""
        if content_type != "application/json":
            got = content_type or "no Content-Type"
            raise HttpError.refuse(415, "unsupported_media_type",
                                   f"send the body as application/json (got {got})")
        return parse_json(body)

    def _seat(self, game_id: str, *, required: bool) -> int | None:
        """The seat authenticated by `Authorization: Bearer <token>`; `None` without the header."""
        values = self.headers.get_all("Authorization") or []
        if not values:
            self.server.games.state(game_id)  # 404 for an unknown game comes first
            if required:
                raise HttpError.refuse(401, "missing_token", "send your seat's token: Authorization: "
                                                             "Bearer <token>", headers=_UNAUTHORIZED)
            return None
        scheme, _, token = values[0].strip().partition(" ")
        token = token.strip()
        seat = (self.server.games.seat_of(game_id, token)
                if scheme.lower() == "bearer" and len(values) == 1 and 0 < len(token) <= 200 else None)
        if seat is None:
            self.server.games.state(game_id)  # 404 for an unknown game comes first
            raise HttpError.refuse(401, "unknown_token", "the token is not one of this game's seats "
                                                         "(expected Authorization: Bearer <token>)",
                                   headers=_UNAUTHORIZED)
        return seat

    @staticmethod
    def _seen(value: str | None, what: str) -> int | None:
        if value is None:
            return None
        value = value.strip()
        if not (value.isascii() and value.isdigit()) or len(value) > 15:
            raise HttpError.refuse(400, ar.Code.BAD_VALUE, f"{what} must be a seq (an integer >= 0)")
        return int(value)

    # -- the endpoints -------------------------------------------------------------------

    def _page(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        return 200, _PAGE.read_bytes(), {**_PAGE_HEADERS, "Cache-Control": "no-cache"}

    def _create_game(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        doc = self._json_body(body)
        try:
            request = read_game_request(doc)
            if request.seed is not None and not self.server.allow_seed:
                raise HttpError.refuse(403, "seed_not_allowed", "this server deals from secret seeds only "
                                                                "(whoever knows the seed knows every card)",
                                       path="/seed")
            game = self.server.games.create(request.players, request.variant, request.seed, request.bots,
                                            creator=self.client_address[0])
        except ar.AbyssError as error:
            path = "/seed" if isinstance(error, ar.SeedError) else "/players"  # for errors without a path
            raise HttpError.of(error, path=path) from None
        seats = [{"seat": seat, "token": token} if token is not None else {"seat": seat, "bot": bot}
                 for seat, (token, bot) in enumerate(zip(game.tokens, request.bots, strict=True))]
        reply = {"game": game.id, "seats": seats, "view": ar.view_to_dict(ar.view(game.state))}
        return 201, reply, {"Location": f"/games/{game.id}"}

    def _get_view(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        seat = self._seat(game_id, required=False)
        seen = self._seen(query.get("after"), "after")
        games = self.server.games
        state = games.state(game_id) if seen is None else games.wait(game_id, seen, self.server.long_poll)
        return 200, ar.view_to_dict(ar.view(state, seat)), {}

    def _get_events(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        seat = self._seat(game_id, required=False)
        seen = self._seen(query.get("after", self.headers.get("Last-Event-ID")), "after (or Last-Event-ID)")
        follow = self.server.games.follow(game_id, 2**62 if seen is None else seen, HEARTBEAT)
        first = next(follow)  # 404 now, before the stream starts
        return 200, _Stream(seat, first, follow), {}

    def _post_action(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        seat = self._seat(game_id, required=True)
        doc = self._json_body(body)
        games = self.server.games
        try:
            action, seq = read_message(doc)
            accepted = games.act(game_id, action, seq=seq, seat=seat)
        except ar.AbyssError as error:  # nothing was stored
            raise HttpError.of(error, games.state(game_id).seq) from None
        after = accepted.state
        events = ar.events_to_dict(accepted.events, action=accepted.action, seq=after.seq)
        return 200, {"view": ar.view_to_dict(ar.view(after, seat)), "events": events}, {}

    def _get_picture(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        seat = self._seat(game_id, required=False)
        picture = ar.to_svg(ar.view(self.server.games.state(game_id), seat))  # public information only
        return 200, picture.encode("utf-8"), {"Content-Type": "image/svg+xml; charset=utf-8"}

    def _get_record(self, game_id: str, query: dict[str, str], body: bytes) -> _Reply:
        return 200, self.server.games.record(game_id).redact().to_dict(), {}


if __name__ == "__main__":
    from .cli import main

    sys.exit(main())
