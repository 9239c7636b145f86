"""An example HTTP game server for abyss-rules: the public API of `abyss_rules` and the standard library.

Run it from the repository root (port 0 picks a free port and prints it):

    python -m examples.server --port 0
    python examples/server/app.py --port 0

The server keeps each game's authoritative `State` in memory and speaks JSON:

    POST /games                  create a game -> 201 {"game", "seats": [{"seat", "token"}], "view"}
    GET  /games/{id}/view        the view of the seat whose token is sent, else a spectator's -> 200
    POST /games/{id}/actions     an action (or {"notation", "seq"}) -> 200 {"view", "events"} or 4xx
    GET  /games/{id}/record      the redacted record: every action so far, no seed -> 200

Every refusal, on every endpoint, is a `verdict` document (`abyss_rules.Verdict`) with `legal`
false and a stable `code`: 400 a malformed request, 401 a missing or unknown token, 403 an
action for another seat (`seat_mismatch`) or a seed the server does not accept, 404 an unknown
game or route, 405 a wrong method, 409 an action the game's current state refuses (`stale_action`
and every rule's code), 411 no Content-Length, 413 a body over the limit, 415 a body that is not
`application/json`, 503 too many games. A game's state is replaced only when an action is accepted,
under that game's lock, so no bad request can harm a game. See README.md next to this file.

Only loopback is served by default (127.0.0.1); this is an example, not a hardened service:
no TLS, no rate limits, games live in memory until the process ends.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import ipaddress
import re
import secrets
import signal
import socket
import sys
import threading
import traceback
import urllib.parse
from collections.abc import Iterator, Mapping
from typing import Any, Final

import abyss_rules as ar

__all__ = ["DEFAULT_MAX_BODY", "Game", "GameServer", "HttpError", "main", "status_of"]

DEFAULT_MAX_BODY: Final = 64 * 1024
"""The largest request body accepted, in bytes (an action document is about 150 bytes)."""
DEFAULT_MAX_GAMES: Final = 1000
"""How many games one server process keeps; creating more is refused with 503."""
DEFAULT_LONG_POLL: Final = 20.0
"""How long `GET /games/{id}/view?after=N` waits for the game to pass seq N, in seconds."""
DEFAULT_IDLE_TIMEOUT: Final = 30.0
"""How long a connection may sit idle (or stall mid-request) before it is closed, in seconds."""
_DRAIN_LIMIT: Final = 1 << 20
"""An over-limit body up to this size is read and dropped so the client gets its 413 cleanly."""
_GAME_ID: Final = re.compile(r"[0-9a-f]{16}")


# -- errors ----------------------------------------------------------------------------------

class HttpError(Exception):
    """A refused request: the HTTP status, and the `verdict` document sent back as the body."""

    def __init__(self, status: int, verdict: ar.Verdict, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"{status} {verdict.code}: {verdict.message}")
        self.status = status
        self.verdict = verdict
        self.headers = dict(headers or {})

    @classmethod
    def refuse(cls, status: int, code: str, message: str, *, path: str | None = None,
               seq: int | None = None, headers: Mapping[str, str] | None = None) -> HttpError:
        """A refusal with one of the server's own codes (they involve no game rule)."""
        return cls(status, ar.Verdict(False, code, None, message, seq, path), headers)

    @classmethod
    def of(cls, error: ar.AbyssError, seq: int | None = None, path: str | None = None) -> HttpError:
        """The refusal for a library error, against the game at `seq`; `path` if the error has none."""
        verdict = ar.Verdict.from_error(error, seq)
        if verdict.path is None and path is not None:
            verdict = ar.Verdict(False, verdict.code, verdict.rule, verdict.message, seq, path)
        return cls(status_of(error), verdict)


def status_of(error: ar.AbyssError) -> int:
    """The HTTP status for a library error.

    400: the message is malformed whatever the game's state (`DecodeError`, `MalformedActionError`,
    a bad variant or player count); 413: `document_too_large`; 403: `seat_mismatch`; 409: the
    message is well formed but the game's current state refuses it -- `stale_action` and every
    rule's code (`not_your_turn`, `space_face_up`, `game_over`...): look at the new view, act again.
    """
    if error.code == ar.Code.DOCUMENT_TOO_LARGE:
        return 413
    if isinstance(error, ar.DecodeError):
        return 400
    if error.code == ar.Code.SEAT_MISMATCH:
        return 403
    if isinstance(error, ar.IllegalActionError):
        return 409
    return 400


# -- JSON ------------------------------------------------------------------------------------

def parse_json(body: bytes) -> Any:
    """A request body as JSON, parsed as strictly as the library parses its documents (400 otherwise).

    The body's size was already checked against the server's limit.
    """
    try:
        return ar.parse_json(body, max_bytes=max(len(body), 1))
    except ar.DecodeError as error:
        raise HttpError.refuse(400, error.code, error.message) from None


def _pointer(key: str) -> str:
    return "/" + key.replace("~", "~0").replace("/", "~1")


def _only(doc: Any, allowed: frozenset[str], what: str) -> dict[str, Any]:
    """`doc` as an object whose keys are among `allowed` (`DecodeError` `wrong_type` / `unknown_field`)."""
    if type(doc) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, f"the body must be a JSON object: {what}", "")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise ar.DecodeError(ar.Code.UNKNOWN_FIELD, f"unknown field {unknown[0][:40]!r} (expected {what})",
                             _pointer(unknown[0]))
    return doc


def read_message(doc: Any) -> tuple[ar.Action, int | None]:
    """The action of a request body and the seq its sender saw (`None` if it says none).

    The body is an `action` document (its `seq` field carries the seq) or `{"notation": "0f12",
    "seq": 5}`. Raises `DecodeError` (400) for anything else.
    """
    if type(doc) is dict and "notation" in doc:
        _only(doc, frozenset({"notation", "seq"}), '{"notation": ..., "seq": ...}')
        text = doc["notation"]
        if type(text) is not str:
            raise ar.DecodeError(ar.Code.WRONG_TYPE, "notation must be a string such as '0f12'", "/notation")
        try:
            action = ar.parse_notation(text)
        except ar.DecodeError as error:
            raise ar.DecodeError(error.code, error.message, "/notation") from None
        return ar.read_action(action, seq=doc.get("seq"))
    if type(doc) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, 'the body must be an action document or {"notation", '
                                                 '"seq"}, a JSON object', "")
    return ar.read_action(doc)


# -- games -----------------------------------------------------------------------------------

class Game:
    """One game: the authoritative state (secret), the seats' tokens, the actions applied so far.

    `state` is replaced only by the server, under `changed` (a condition: long polls wait on it).
    """

    def __init__(self, game_id: str, start: ar.Record, tokens: tuple[str, ...]) -> None:
        self.id = game_id
        self.start = start
        """The record with no action yet: the set-up, the seed included (secret, rule 8.2)."""
        self.tokens = tokens
        """Seat `i`'s bearer token is `tokens[i]` (secret: only the game's creator receives them)."""
        self.state: ar.State = start.initial_state()
        self.actions: list[ar.Action] = []
        self.changed = threading.Condition()

    def seat_of(self, token: str) -> int | None:
        """The seat whose token is `token` (compared in constant time), or `None`."""
        given = token.encode("utf-8", "surrogatepass")
        found = None
        for seat, secret in enumerate(self.tokens):
            if secrets.compare_digest(secret.encode("ascii"), given):
                found = seat
        return found

    def record(self) -> ar.Record:
        """The full record so far: the set-up, the seed and every action (secret while the game runs)."""
        with self.changed:
            actions = tuple(self.actions)
        return self.start.with_actions(*actions)


class GameServer(http.server.ThreadingHTTPServer):
    """The example server: a `ThreadingHTTPServer` holding games in memory.

    Args:
        address: `(host, port)`; the default binds loopback only, port 0 picks a free port.
        max_body: The largest request body accepted (bytes); larger gets 413.
        max_games: How many games it keeps; more gets 503.
        allow_seed: Accept a `seed` when creating a game (for tests and reproducible demos: whoever
            knows the seed knows every card). Refused with 403 `seed_not_allowed` otherwise.
        long_poll: How long `GET .../view?after=N` may wait (seconds).
        idle_timeout: How long a connection may stay idle or stall mid-request (seconds).
        quiet: Log nothing (the default logs one line per request to stderr).

    Use `running()` to serve from a background thread (tests, notebooks), or `serve_forever()`.
    """

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int] = ("127.0.0.1", 0),
        *,
        max_body: int = DEFAULT_MAX_BODY,
        max_games: int = DEFAULT_MAX_GAMES,
        allow_seed: bool = False,
        long_poll: float = DEFAULT_LONG_POLL,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        quiet: bool = False,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.max_body = max_body
        self.max_games = max_games
        self.allow_seed = allow_seed
        self.long_poll = long_poll
        self.idle_timeout = idle_timeout
        self.quiet = quiet
        self.closing = False
        self._games: dict[str, Game] = {}
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL, e.g. `http://127.0.0.1:8000`."""
        host, port = self.server_address[0], self.server_address[1]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    # -- games ---------------------------------------------------------------------------

    def create_game(self, players: int, variant: ar.Variant, seed: int | None = None) -> Game:
        """A new game with a fresh token per seat (raises `AbyssError` for a bad set-up)."""
        start = ar.Record.start(players, variant, seed)  # seed=None: a fresh secret seed (rule 9.1)
        tokens = tuple(secrets.token_urlsafe(24) for _ in range(players))
        with self._lock:
            if len(self._games) >= self.max_games:
                raise HttpError.refuse(503, "server_full", f"this server keeps at most {self.max_games} "
                                                           "games", headers={"Retry-After": "60"})
            game_id = secrets.token_hex(8)
            while game_id in self._games:
                game_id = secrets.token_hex(8)
            game = self._games[game_id] = Game(game_id, start, tokens)
        return game

    def game(self, game_id: str) -> Game:
        """The game `game_id` (404 `no_such_game` if there is none)."""
        with self._lock:
            game = self._games.get(game_id) if _GAME_ID.fullmatch(game_id) else None
        if game is None:
            raise HttpError.refuse(404, "no_such_game", f"no game {game_id[:40]!r} on this server")
        return game

    def game_ids(self) -> tuple[str, ...]:
        """The ids of every game, oldest first."""
        with self._lock:
            return tuple(self._games)

    def game_state(self, game_id: str) -> ar.State:
        """The authoritative state of a game: for tests and operators, never for clients (rule 8.2)."""
        return self.game(game_id).state

    def full_record(self, game_id: str) -> ar.Record:
        """The full record (seed included) of a game: for tests and operators, never for clients."""
        return self.game(game_id).record()

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
            self.stop_waiting()
            self.shutdown()
            thread.join()
            self.server_close()

    def stop_waiting(self) -> None:
        """Wake every long poll so it answers now (called when the server stops)."""
        self.closing = True
        with self._lock:
            games = list(self._games.values())
        for game in games:
            with game.changed:
                game.changed.notify_all()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away is not an error; anything else is printed (never sent)."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


# -- requests --------------------------------------------------------------------------------

_Reply = tuple[int, Any, Mapping[str, str]]

_GAME_PATH: Final = r"/games/(?P<game>[^/]{1,100})"
_ROUTES: Final[tuple[tuple[re.Pattern[str], dict[str, str]], ...]] = (
    (re.compile(r"/games"), {"POST": "create_game"}),
    (re.compile(_GAME_PATH + "/view"), {"GET": "get_view"}),
    (re.compile(_GAME_PATH + "/actions"), {"POST": "post_action"}),
    (re.compile(_GAME_PATH + "/record"), {"GET": "get_record"}),
)
_PARAMETERS: Final = {"create_game": frozenset(), "get_view": frozenset({"after"}),
                      "post_action": frozenset(), "get_record": frozenset()}
_CREATE_FIELDS: Final = frozenset({"players", "variant", "seed"})
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

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def do_HEAD(self) -> None:
        self._dispatch()

    def do_OPTIONS(self) -> None:
        self._dispatch()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors found by `http.server` itself (bad request line, unknown method...) as JSON too."""
        self.close_connection = True
        names = {400: "bad_request", 408: "request_timeout", 414: "uri_too_long",
                 431: "headers_too_large", 501: "not_implemented", 505: "http_version_not_supported"}
        self._send(code, HttpError.refuse(code, names.get(code, f"http_{code}"),
                                          message or "bad request").verdict.to_dict())

    def _dispatch(self) -> None:
        try:
            body = self._read_body()  # first: whatever the answer, the connection stays in step
            name, game_id, query = self._route()
            if name == "create_game":
                reply = self._create_game(body)
            elif name == "get_view":
                reply = self._get_view(self.server.game(game_id), query)
            elif name == "post_action":
                reply = self._post_action(self.server.game(game_id), body)
            else:
                reply = self._get_record(self.server.game(game_id))
        except HttpError as error:
            reply = (error.status, error.verdict.to_dict(), error.headers)
        except Exception:  # a bug: logged here, never sent (the game is unharmed: see _post_action)
            traceback.print_exc(file=sys.stderr)
            reply = (500, ar.Verdict(False, "internal_error", None, "the server failed to answer this "
                                     "request", None).to_dict(), {})
        self._send(*reply)

    def _send(self, status: int, doc: Any, headers: Mapping[str, str] | None = None) -> None:
        body = ar.canonical_json(doc).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # -- parsing -------------------------------------------------------------------------

    def _route(self) -> tuple[str, str, dict[str, str]]:
        parts = urllib.parse.urlsplit(self.path)
        for pattern, methods in _ROUTES:
            match = pattern.fullmatch(parts.path)
            if match is None:
                continue
            name = methods.get(self.command)
            if name is None:
                allowed = ", ".join(methods)
                raise HttpError.refuse(405, "method_not_allowed",
                                       f"{parts.path} takes {allowed}, not {self.command}",
                                       headers={"Allow": allowed})
            return name, match.groupdict().get("game") or "", self._query(parts.query, _PARAMETERS[name])
        raise HttpError.refuse(404, "no_such_route", f"no route {parts.path[:80]!r}: the routes are POST "
                                                     "/games, GET /games/{id}/view, POST /games/{id}/actions"
                                                     " and GET /games/{id}/record")

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

    def _read_body(self) -> bytes:
        """The request body (Content-Length framing only); 411, 413 or 400 before anything else."""
        if self.headers.get("Transfer-Encoding") is not None:
            self.close_connection = True
            raise HttpError.refuse(411, "length_required", "send the body with a Content-Length, "
                                                           "not Transfer-Encoding")
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            if self.command in ("POST", "PUT", "PATCH"):
                raise HttpError.refuse(411, "length_required", "a request with a body needs a "
                                                               "Content-Length header")
            return b""
        text = lengths[0].strip()
        if len(lengths) > 1 or not (text.isascii() and text.isdigit()) or len(text) > 18:
            self.close_connection = True
            raise HttpError.refuse(400, "bad_request", "Content-Length must be one decimal number")
        length = int(text)
        if length > self.server.max_body:
            self.close_connection = True
            if length <= _DRAIN_LIMIT:  # read and drop it, so the client sees the 413, not a reset
                self._drop(length)
            raise HttpError.refuse(413, ar.Code.DOCUMENT_TOO_LARGE, f"the body is {length} bytes; this "
                                                                    f"server takes at most "
                                                                    f"{self.server.max_body}")
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
        with contextlib.suppress(OSError):
            while length > 0:
                chunk = self.rfile.read(min(length, 65536))
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

    def _seat(self, game: Game, *, required: bool) -> int | None:
        """The seat authenticated by `Authorization: Bearer <token>`; `None` without the header."""
        values = self.headers.get_all("Authorization") or []
        if not values:
            if required:
                raise HttpError.refuse(401, "missing_token", "send your seat's token: Authorization: "
                                                             "Bearer <token>", headers=_UNAUTHORIZED)
            return None
        scheme, _, token = values[0].strip().partition(" ")
        seat = game.seat_of(token.strip()) if scheme.lower() == "bearer" and len(values) == 1 else None
        if seat is None:
            raise HttpError.refuse(401, "unknown_token", "the token is not one of this game's seats "
                                                         "(expected Authorization: Bearer <token>)",
                                   headers=_UNAUTHORIZED)
        return seat

    # -- the endpoints -------------------------------------------------------------------

    def _create_game(self, body: bytes) -> _Reply:
        doc = self._json_body(body)
        try:
            players, variant, seed = _game_request(doc)
            if seed is not None and not self.server.allow_seed:
                raise HttpError.refuse(403, "seed_not_allowed", "this server deals from secret seeds only "
                                                                "(whoever knows the seed knows every card)",
                                       path="/seed")
            game = self.server.create_game(players, variant, seed)
        except ar.AbyssError as error:
            path = "/seed" if isinstance(error, ar.SeedError) else "/players"  # for errors without a path
            raise HttpError.of(error, path=path) from None
        reply = {
            "game": game.id,
            "seats": [{"seat": seat, "token": token} for seat, token in enumerate(game.tokens)],
            "view": ar.view_to_dict(ar.view(game.state)),
        }
        return 201, reply, {"Location": f"/games/{game.id}"}

    def _get_view(self, game: Game, query: dict[str, str]) -> _Reply:
        seat = self._seat(game, required=False)
        after = query.get("after")
        if after is None:
            state = game.state  # one read of an immutable value: no lock needed
        else:
            if not (after.isascii() and after.isdigit()) or len(after) > 15:
                raise HttpError.refuse(400, ar.Code.BAD_VALUE, "after must be a seq (an integer >= 0)")
            seen = int(after)
            with game.changed:  # long poll: answer once the game has moved past the seq the client saw
                game.changed.wait_for(lambda: game.state.seq > seen or game.state.is_over
                                      or self.server.closing, timeout=self.server.long_poll)
                state = game.state
        return 200, ar.view_to_dict(ar.view(state, seat)), {}

    def _post_action(self, game: Game, body: bytes) -> _Reply:
        seat = self._seat(game, required=True)
        doc = self._json_body(body)
        try:
            action, seq = read_message(doc)
            with game.changed:  # check and apply against the current state, then replace it
                accepted = ar.submit(game.state, action, seq=seq, player=seat, require_seq=True)
                game.state = accepted.state
                game.actions.append(accepted.action)
                game.changed.notify_all()
        except ar.AbyssError as error:  # the state was not touched
            raise HttpError.of(error, game.state.seq) from None
        after = accepted.state
        events = ar.events_to_dict(accepted.events, action=accepted.action, seq=after.seq)
        return 200, {"view": ar.view_to_dict(ar.view(after, seat)), "events": events}, {}

    def _get_record(self, game: Game) -> _Reply:
        return 200, game.record().redact().to_dict(), {}


def _game_request(doc: Any) -> tuple[int, ar.Variant, int | None]:
    """The players, variant and seed of a `POST /games` body (`DecodeError` for a bad field)."""
    _only(doc, _CREATE_FIELDS, '{"players", "variant", "seed"}')
    if "players" not in doc:
        raise ar.DecodeError(ar.Code.MISSING_FIELD, "missing field 'players'", "/players")
    players = doc["players"]
    if type(players) is not int:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "players must be an integer", "/players")
    seed = doc.get("seed")
    if seed is not None and type(seed) is not int:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "seed must be an integer from 0 to 2**256 - 1", "/seed")
    return players, _variant(doc.get("variant", "standard")), seed


def _variant(value: Any) -> ar.Variant:
    """The `variant` field: a preset's name or a `variant` document (`DecodeError` otherwise)."""
    if isinstance(value, str):
        presets = ar.Variant.presets()
        if value not in presets:
            raise ar.DecodeError(ar.Code.BAD_VALUE, f"no preset {value[:40]!r}: choose "
                                                    f"{', '.join(presets)} or send a variant document",
                                 "/variant")
        return presets[value]
    if type(value) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "variant must be a preset's name or a variant document",
                             "/variant")
    try:
        return ar.variant_from_dict(value)
    except ar.DecodeError as error:
        raise ar.DecodeError(error.code, error.message, "/variant" + error.path, error.rule) from None


# -- the command line ------------------------------------------------------------------------

def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run the server until Ctrl-C (or SIGTERM); print the URL (with the port chosen) first."""
    parser = argparse.ArgumentParser(prog="python -m examples.server",
                                     description="An example abyss-rules game server (JSON over HTTP).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to bind (default 127.0.0.1: loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (0: any free port; default 8000)")
    parser.add_argument("--max-body", type=int, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help=f"the largest request body (default {DEFAULT_MAX_BODY})")
    parser.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES,
                        help=f"how many games to keep (default {DEFAULT_MAX_GAMES})")
    parser.add_argument("--allow-seed", action="store_true",
                        help="accept a client's seed when creating a game (tests and demos only)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be from 0 to 65535, got {args.port}")
    try:
        server = GameServer((args.host, args.port), max_body=args.max_body, max_games=args.max_games,
                            allow_seed=args.allow_seed, quiet=args.quiet)
    except OSError as error:
        print(f"cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    if not _is_loopback(args.host):
        print(f"warning: {args.host} is not a loopback address: other machines can reach this example "
              "server (no TLS, no rate limits)", file=sys.stderr)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    print(f"abyss example server listening on {server.url} (port {server.server_address[1]}); "
          "Ctrl-C stops it", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
