"""The server's web layer: a Starlette (ASGI) app, served by uvicorn (`abyss-rules serve`).

Routes (every refusal is a `verdict` document with a stable `code`; see docs/server-example.md):

    GET  /                       the play page
    GET  /health                 200 while the process runs; GET /ready: 200 when the database answers
    POST /games                  create a game -> 201 {"game", "seats": [{"seat", "token"}], "view"}
    GET  /games/{id}/view        the view of the seat whose token is sent, else a spectator's
    POST /games/{id}/actions     an action document (or {"notation", "seq"})
                                 -> 200 {"verdict", "view", "events"}
    GET  /games/{id}/record      the redacted record: every action so far, no seed
    GET  /games/{id}/picture     an SVG picture of what the seat (or a spectator) sees
    GET  /games/{id}/events      Server-Sent Events: the current view, then each action
    WS   /games/{id}/ws          a WebSocket: send {"token"}, get the view; send actions, get verdicts;
                                 every move is pushed to every connection of the game

What runs where: the event loop parses, routes, checks actions with the rules and writes the
answers. A read of the database runs on the event loop where it is a call into SQLite that never
waits on a lock (WAL mode), and in a worker thread where it waits on a network (PostgreSQL); so do
the slow, rare answers (the picture, the record). Every write goes to the store's writer thread,
which commits the writes waiting together (group commit) while the event loop serves others. An
action's answer is encoded in full before its move is committed: a move is never stored unless its
answer can be sent. Waiting (long polls, streams, WebSockets) is asynchronous: the `Hub` wakes
waiters when this process stores a move, and looks at the database every `poll_interval` for moves
stored by other processes.

A worker of `--workers N` stops (gracefully, as on SIGTERM) when its supervisor is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from importlib import resources
from typing import Any, Final

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, Router, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import _library as ar
from ._connections import EDGE_STATUS
from ._games import Games, Limits, Move
from ._hub import Hub
from ._requests import HttpError, encode, parse_body, read_action_body, read_game_request
from ._settings import Settings
from ._store import open_store

__all__ = ["create_app"]

_LOG: Final = logging.getLogger("abyss_rules.serve")
_SWITCH_INTERVAL: Final = 0.0005
MAX_REPLAY: Final = 64
"""A stream that fell further behind than this many actions gets the current view, not each action."""
_UNAUTHORIZED: Final = {"WWW-Authenticate": 'Bearer realm="abyss"'}
_PAGE_HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                               "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_ROUTES_TEXT: Final = ("GET /, GET /health, GET /ready, POST /games, GET /games/{id}/view, "
                       "POST /games/{id}/actions, GET /games/{id}/record, GET /games/{id}/picture, "
                       "GET /games/{id}/events, WS /games/{id}/ws")


def _is_text(text: str) -> bool:
    """Whether `text` can be sent (as UTF-8): it holds no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _with_request_id(error: HttpError, request_id: str | int | None) -> HttpError:
    """A refusal of the server's own (no rule) echoing the action's request id."""
    verdict = error.verdict
    return HttpError(error.status, ar.Verdict(False, verdict.code, None, verdict.message, verdict.seq, None,
                                              request_id), error.headers)


def _json(status: int, doc: Any, headers: Mapping[str, str] | None = None) -> Response:
    try:
        body = encode(doc)
    except HttpError as error:  # a refusal echoing what cannot be sent: refused without the echo
        status, body, headers = error.status, encode(error.verdict.to_dict()), error.headers
    return Response(body, status, {"Cache-Control": "no-store", **(headers or {})},
                    media_type="application/json")


def _refusal(error: HttpError) -> Response:
    return _json(error.status, error.verdict.to_dict(), error.headers)


class _Server:
    """The app's state: settings, games, hub, and the endpoints."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        limits = Limits(max_games=settings.max_games, client_games=settings.client_games or None,
                        client_window=settings.client_window, finished_ttl=settings.finished_ttl,
                        idle_ttl=settings.idle_ttl, max_actions=settings.max_actions)
        self.games = Games(open_store(settings.db), limits, bot_delay=settings.bot_delay,
                           poll_interval=settings.poll_interval)
        self.hub = Hub(self.games, settings.poll_interval)
        self.page = (resources.files(__package__ or "abyss_rules.serve") / "page.html").read_bytes()
        self.inline = self.games.store.local

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """`function(*args)` in a worker thread (slow work that would hold up every other connection)."""
        return await anyio.to_thread.run_sync(lambda: function(*args))

    async def read(self, function: Callable[..., Any], *args: Any) -> Any:
        """`function(*args)`, which may read the database: here where reads never wait (SQLite in WAL mode),
        else in a worker thread."""
        if self.inline:
            return function(*args)
        return await self.run(function, *args)

    # -- reading requests ----------------------------------------------------------------

    async def body(self, request: Request) -> Any:
        """The JSON body: 415 unless application/json, 413 over `max_body` (refused unread), 400 if bad."""
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise HttpError.refuse(415, "unsupported_media_type",
                                   f"send the body as application/json (got {content_type or 'none'})")
        limit = self.settings.max_body
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or len(declared) > 18):
            raise HttpError.refuse(400, "bad_request", "Content-Length must be one decimal number")
        if declared is not None and int(declared) > limit:
            raise self.too_large(int(declared))
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise self.too_large(size)
            chunks.append(chunk)
        return parse_body(b"".join(chunks))

    def too_large(self, size: int) -> HttpError:
        return HttpError.refuse(413, ar.Code.DOCUMENT_TOO_LARGE, f"the body is at least {size} bytes; this "
                                f"server takes at most {self.settings.max_body}",
                                headers={"Connection": "close"})

    @staticmethod
    def query(request: Request, allowed: frozenset[str]) -> dict[str, str]:
        if not request.scope["query_string"]:
            return {}
        items = request.query_params.multi_items()
        out: dict[str, str] = {}
        for key, value in items[:9]:
            if key not in allowed:
                raise HttpError.refuse(400, "unknown_parameter", f"unknown query parameter {key[:40]!r}")
            if key in out:
                raise HttpError.refuse(400, "bad_query", f"query parameter {key!r} is given twice")
            out[key] = value
        if len(items) > 8:
            raise HttpError.refuse(400, "bad_query", "too many query parameters")
        return out

    @staticmethod
    def seq_of(value: str | None, what: str) -> int | None:
        if value is None:
            return None
        value = value.strip()
        if not (value.isascii() and value.isdigit()) or len(value) > 15:
            raise HttpError.refuse(400, ar.Code.BAD_VALUE, f"{what} must be a seq (an integer >= 0)")
        return int(value)

    def seat_now(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """The seat whose token is `token`; `None` for no token (401 if `required`); 404 first.

        In a worker thread (it reads the database): with the work that follows, in one hop.
        """
        if token is None:
            self.games.state(game_id)  # 404 for an unknown game comes first
            if required:
                raise HttpError.refuse(401, "missing_token", "send your seat's token: Authorization: "
                                                             "Bearer <token>", headers=_UNAUTHORIZED)
            return None
        seat = self.games.seat_of(game_id, token) if 0 < len(token) <= 200 else None
        if seat is None:
            self.games.state(game_id)
            raise HttpError.refuse(401, "unknown_token", "the token is not one of this game's seats",
                                   headers=_UNAUTHORIZED)
        return seat

    async def seat(self, game_id: str, token: str | None, *, required: bool) -> int | None:
        """`seat_now` from the event loop."""
        seat: int | None = await self.read(lambda: self.seat_now(game_id, token, required=required))
        return seat

    @staticmethod
    def token(request: Request) -> str | None:
        values = request.headers.getlist("authorization")
        if not values:
            return None
        scheme, _, token = values[0].strip().partition(" ")
        if scheme.lower() != "bearer" or len(values) > 1:
            return ""  # present but unreadable: 401 unknown_token
        return token.strip()

    # -- endpoints ------------------------------------------------------------------------

    async def page_route(self, request: Request) -> Response:
        return Response(self.page, 200, _PAGE_HEADERS, media_type="text/html; charset=utf-8")

    async def health(self, request: Request) -> Response:
        return _json(200, {"status": "ok"})

    async def ready(self, request: Request) -> Response:
        try:
            with anyio.fail_after(5):
                await self.run(self.games.store.ping)
        except Exception as error:
            _LOG.warning("not ready: the database does not answer", extra={"error": repr(error)})
            return _json(503, {"status": "database unavailable"}, {"Retry-After": "5"})
        return _json(200, {"status": "ready", "database": self.games.store.dialect})

    async def create_game(self, request: Request) -> Response:
        doc = await self.body(request)
        try:
            wanted = read_game_request(doc)
        except ar.AbyssError as error:
            raise HttpError.of(error) from None
        if wanted.seed is not None and not self.settings.allow_seed:
            raise HttpError.refuse(403, "seed_not_allowed", "this server deals from secret seeds only "
                                   "(whoever knows the seed knows every card)", path="/seed")
        creator = request.client.host if request.client else "unknown"
        try:
            game = await self.run(self.games.create, wanted.players, wanted.variant, wanted.seed, wanted.bots,
                                  creator)
        except ar.AbyssError as error:
            path = "/seed" if isinstance(error, ar.SeedError) else "/players"
            raise HttpError.of(error, path=path) from None
        seats = [{"seat": seat, "token": token} if token is not None else {"seat": seat, "bot": bot}
                 for seat, (token, bot) in enumerate(zip(game.tokens, wanted.bots, strict=True))]
        return _json(201, {"game": game.id, "seats": seats, "view": ar.view_to_dict(ar.view(game.state))},
                     {"Location": f"/games/{game.id}"})

    async def get_view(self, request: Request) -> Response:
        game_id = request.path_params["game"]
        after = self.seq_of(self.query(request, frozenset({"after"})).get("after"), "after")
        token = self.token(request)
        if after is None:  # the seat and the state in one read
            seat, state = await self.read(lambda: (self.seat_now(game_id, token, required=False),
                                                   self.games.state(game_id)))
        else:
            seat = await self.seat(game_id, token, required=False)
            await self.hub.wait_past(game_id, after, self.settings.long_poll)
            state = await self.read(self.games.state, game_id)
        return _json(200, ar.view_to_dict(ar.view(state, seat)))

    async def act(self, game_id: str, doc: Any, answer: Callable[[ar.Verdict, int, Move], bytes], *,
                  seat: int | None = None, token: str | None = None) -> bytes:
        """Check and store one action message of `seat` (or of `token`'s seat, checked first).

        Returns `answer(verdict, seat, move)`: the answer's bytes, made (and so encoded) before the move
        is committed: a move whose answer cannot be sent is never stored (400 instead). Raises
        `HttpError` for a refusal; nothing is stored then.
        """
        request_id = doc.get("request_id") if isinstance(doc, dict) else None
        request_id = request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) \
            and 0 < len(str(request_id)) <= 64 and _is_text(str(request_id)) else None

        def check() -> tuple[int, ar.Message, Move]:
            who = seat if seat is not None else self.seat_now(game_id, token, required=True)
            assert who is not None
            message = read_action_body(doc)
            return who, message, self.games.check(game_id, message.action, seq=message.seq, seat=who)

        def known() -> tuple[int, ar.Message, Move] | None:
            """`check` from what this process holds (no read of the database), or None."""
            who = seat if seat is not None else self.games.known_seat(game_id, token) if token else None
            if who is None:
                return None
            message = read_action_body(doc)
            move = self.games.check_known(game_id, message.action, seq=message.seq, seat=who)
            return None if move is None else (who, message, move)

        try:
            checked = None if self.inline else known()  # where a read costs a thread, first without one
            who, message, move = checked or await self.read(check)
        except ar.AbyssError as error:  # nothing was stored
            seq = (await self.read(self.games.state, game_id)).seq
            raise HttpError.of(error, seq, request_id=request_id) from None
        except HttpError as error:
            raise _with_request_id(error, request_id) from None
        after = move.accepted.state
        verdict = ar.Verdict(True, None, None, "legal", after.seq - 1, None, message.request_id,
                             move.accepted.action)
        body = answer(verdict, who, move)  # before the commit: never a stored move without its answer
        try:
            stored = await asyncio.wrap_future(self.games.store_move(move))
            if stored:
                self.games.stored(move, stored)  # no read
            else:
                await self.read(self.games.stored, move, stored)  # 409, or 404 if the game is gone
        except HttpError as error:
            raise _with_request_id(error, request_id) from None
        return body

    async def post_action(self, request: Request) -> Response:
        game_id = request.path_params["game"]
        self.query(request, frozenset())
        token = self.token(request)
        doc = await self.body(request)

        def answer(verdict: ar.Verdict, seat: int, move: Move) -> bytes:
            after, accepted = move.accepted.state, move.accepted
            events = ar.events_to_dict(accepted.events, action=accepted.action, seq=after.seq)
            return encode({"verdict": verdict.to_dict(), "view": ar.view_to_dict(ar.view(after, seat)),
                           "events": events})

        body = await self.act(game_id, doc, answer, token=token)
        return Response(body, 200, {"Cache-Control": "no-store"}, media_type="application/json")

    async def get_record(self, request: Request) -> Response:
        self.query(request, frozenset())
        record = await self.run(self.games.record, request.path_params["game"])
        return _json(200, record.redact().to_dict())

    async def get_picture(self, request: Request) -> Response:
        game_id = request.path_params["game"]
        self.query(request, frozenset())
        seat = await self.seat(game_id, self.token(request), required=False)
        state = await self.read(self.games.state, game_id)
        bots = await self.read(self.games.bots, game_id)  # (where bots play, each panel names its player)
        names = [bot if bot else ("you" if n == seat else "player") for n, bot in enumerate(bots)] \
            if any(bots) else None
        # (public information only)
        picture = await self.run(lambda: ar.to_svg(ar.view(state, seat), names=names))
        return Response(picture, 200, {"Cache-Control": "no-store"}, media_type="image/svg+xml")

    # -- pushes ---------------------------------------------------------------------------

    async def updates(self, game_id: str, seat: int | None,
                      state: ar.State) -> AsyncIterator[tuple[str, Any] | None]:
        """After `state`: ("update", {"view", "events"}) per action, ("view", view) for a stream that fell
        more than `MAX_REPLAY` behind, `None` after `heartbeat` seconds without a move. Ends when the game
        is over, gone, or the server stops."""
        while not state.is_over and not self.hub.closing:
            await self.hub.wait_past(game_id, state.seq, self.settings.heartbeat)
            try:
                new = await self.read(self.games.state, game_id)
            except HttpError:  # expired while followed
                return
            if new.seq <= state.seq:
                yield None
                continue
            if new.seq - state.seq > MAX_REPLAY:
                state = new
                yield "view", ar.view_to_dict(ar.view(new, seat))
                continue
            stored = await self.read(self.games.store.record, game_id, state.seq)
            if stored is None:
                return
            for text in stored[1][:new.seq - state.seq]:
                action = ar.parse_notation(text)
                state, events = ar.apply_with_events(state, action)
                yield "update", {"view": ar.view_to_dict(ar.view(state, seat)),
                                 "events": ar.events_to_dict(events, action=action, seq=state.seq)}

    async def get_events(self, request: Request) -> Response:
        game_id = request.path_params["game"]
        query = self.query(request, frozenset({"after"}))
        seen = self.seq_of(query.get("after", request.headers.get("last-event-id")),
                           "after (or Last-Event-ID)")
        seat = await self.seat(game_id, self.token(request), required=False)
        state = await self.read(self.games.state, game_id)

        async def stream() -> AsyncIterator[bytes]:
            if seen != state.seq:  # from the current view, never the whole history
                yield _sse("view", state.seq, ar.view_to_dict(ar.view(state, seat)))
            over = state.is_over
            async for item in self.updates(game_id, seat, state):
                if item is None:
                    yield b": no move yet\n\n"
                    continue
                kind, doc = item
                shown = doc if kind == "view" else doc["view"]
                over = shown["phase"] == "game_over"
                yield _sse("view" if kind == "view" else "action", shown["seq"], doc)
            yield b"event: end\ndata: " + encode({"over": over}) + b"\n\n"

        return StreamingResponse(stream(), 200, {"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
                                 media_type="text/event-stream")

    async def websocket(self, socket: WebSocket) -> None:
        """One WebSocket: the hello (`{"token"}`), then actions in, verdicts and moves out."""
        game_id = socket.path_params["game"]
        await socket.accept()
        try:
            with anyio.fail_after(self.settings.header_timeout):
                hello = await socket.receive_text()
            doc = json.loads(hello) if len(hello) <= 1024 else None
            token = doc.get("token") if type(doc) is dict else ""
            if token is not None and type(token) is not str:
                token = ""
            seat = await self.seat(game_id, token, required=False)
            state = await self.read(self.games.state, game_id)
        except (TimeoutError, ValueError, WebSocketDisconnect, HttpError) as error:
            if isinstance(error, HttpError):
                with contextlib.suppress(Exception):
                    await socket.send_text(encode({"type": "error", "status": error.status,
                                                   "verdict": error.verdict.to_dict()}).decode("utf-8"))
            with contextlib.suppress(Exception):
                await socket.close(1008)
            return
        shown = ar.view_to_dict(ar.view(state, seat))
        await socket.send_text(encode({"type": "view", "view": shown}).decode("utf-8"))

        acting = anyio.Lock()  # held while an action is checked and stored: its verdict precedes the end

        async def push() -> None:
            async for item in self.updates(game_id, seat, state):
                if item is None:
                    continue
                kind, doc = item
                message = {"type": kind, **({"view": doc} if kind == "view" else doc)}
                await socket.send_text(encode(message).decode("utf-8"))
            with anyio.move_on_after(self.settings.graceful_timeout):
                await acting.acquire()  # the verdict of the game's last action is sent first
            await socket.send_text('{"type":"end"}')
            await socket.close(1000)

        async def receive() -> None:
            while True:
                text = await socket.receive_text()
                async with acting:
                    await answer(text)

        async def answer(text: str) -> None:
            try:
                if seat is None:
                    raise HttpError.refuse(403, "spectator", "a spectator's connection cannot act: send a "
                                                             "seat's token in the hello")
                try:
                    doc = ar.parse_json(text, max_bytes=self.settings.ws_max_bytes)
                except ar.AbyssError as error:
                    raise HttpError.of(error) from None
                reply = await self.act(game_id, doc, lambda verdict, _seat, _move: encode({
                    "type": "verdict", "status": 200, "verdict": verdict.to_dict()}), seat=seat)
            except HttpError as error:
                refusal = {"type": "verdict", "status": error.status, "verdict": error.verdict.to_dict()}
                try:
                    reply = encode(refusal)
                except HttpError as unsendable:  # it echoed what cannot be sent: without the echo
                    reply = encode({"type": "verdict", "status": unsendable.status,
                                   "verdict": unsendable.verdict.to_dict()})
            await socket.send_text(reply.decode("utf-8"))

        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            async with anyio.create_task_group() as group:
                async def first(job: Callable[[], Awaitable[None]]) -> None:
                    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                        await job()
                    group.cancel_scope.cancel()

                group.start_soon(first, push)
                group.start_soon(first, receive)
        if self.hub.closing:
            with contextlib.suppress(Exception):
                await socket.close(1012)  # service restart: reconnect

    # -- the app ------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: object) -> AsyncIterator[None]:
        # The writer thread, back from the disk, waits for the GIL while the event loop runs Python:
        # at most this long, not the default 5 ms (once per statement of each group commit).
        sys.setswitchinterval(_SWITCH_INTERVAL)
        self.hub.start()
        _wake_on_signals(self.hub)
        self.games.start()
        poller = asyncio.create_task(self.hub.poll())
        orphan = _stop_with_supervisor()
        _LOG.info("ready", extra={"database": self.games.store.dialect})
        try:
            yield
        finally:
            orphan()
            self.hub.close()
            poller.cancel()
            await self.run(self.games.stop, 5.0)
            self.games.store.close()
            _LOG.info("stopped")


def _wake_on_signals(hub: Hub) -> None:
    """On SIGTERM or SIGINT, wake the long polls, streams and WebSockets before uvicorn waits for the open
    connections to finish (then passes the signal on to uvicorn's own handler)."""
    if threading.current_thread() is not threading.main_thread():
        return  # an app served from a thread (tests of the app itself): uvicorn handles no signal there
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            loop.call_soon_threadsafe(hub.close)
            if callable(previous):
                previous(signum, frame)

        signal.signal(number, handler)


def _stop_with_supervisor() -> Callable[[], None]:
    """In a worker process of `--workers N`: stop as on SIGTERM when the supervisor is gone (killed, even
    with SIGKILL), so that no worker goes on serving -- and holding the port -- alone. Returns the undo."""
    parent = multiprocessing.parent_process()
    if parent is None or threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    sentinel = parent.sentinel  # readable (end of file) once the supervisor's end of the pipe is closed

    def gone() -> None:
        loop.remove_reader(sentinel)
        _LOG.warning("the supervisor is gone: stopping", extra={"pid": os.getpid()})
        os.kill(os.getpid(), signal.SIGTERM)

    loop.add_reader(sentinel, gone)

    def undo() -> None:
        loop.remove_reader(sentinel)

    return undo


def _sse(name: str, seq: int, doc: Any) -> bytes:
    return f"id: {seq}\nevent: {name}\n".encode() + b"data: " + encode(doc) + b"\n\n"


def _answer_error(scope: Scope, error: Exception) -> Response:
    """The answer to an error a route raised: its refusal, the router's 404 / 405 as verdicts, the client
    gone (`ClientDisconnect`), or 500 for a failure of the server's own (logged with its traceback)."""
    if isinstance(error, HttpError):
        return _refusal(error)
    path = scope["path"][:80]
    if isinstance(error, HTTPException):
        if error.status_code == 404:
            return _refusal(HttpError.refuse(404, "no_such_route", f"no route {path!r}: the routes are "
                                             f"{_ROUTES_TEXT}"))
        if error.status_code == 405:
            methods = {method.strip() for method in (error.headers or {}).get("Allow", "").split(",")}
            allowed = ", ".join(sorted(methods, key=lambda method: (method != "GET", method)))
            return _refusal(HttpError.refuse(405, "method_not_allowed", f"{path} takes {allowed}",
                                             headers={"Allow": allowed}))
        return _refusal(HttpError.refuse(error.status_code, f"http_{error.status_code}", str(error.detail)))
    if isinstance(error, ClientDisconnect):
        # The client went away before its request's body arrived (or the edge cut it off: `EDGE_STATUS`).
        # Nothing can be sent; the access log records 499 (the client closed the connection), or the
        # edge's status.
        return Response(status_code=scope.get(EDGE_STATUS, 499))
    _LOG.error("the server failed to answer a request", exc_info=error,
               extra={"method": scope["method"], "path": scope["path"][:200]})
    return _json(500, ar.Verdict(False, "internal_error", None, "the server failed to answer this request",
                                 None).to_dict())


class Edge:
    """The one layer around the routes (Starlette's `Router`): each error a route raises answered as a
    verdict (`_answer_error`), and one structured log line per HTTP request (method, path, the status
    sent, milliseconds, client).

    A request passes through this, the router and its route, and each message it sends through one
    wrapper (Starlette's application would add two middlewares, each wrapping every message). An error
    raised after the answer started cannot be answered any more: a failure of the server's own is
    logged, and uvicorn closes the connection.
    """

    def __init__(self, router: Router, quiet: bool) -> None:
        self.router, self.quiet = router, quiet

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["app"] = self  # the router raises its 404 / 405 (answered here as verdicts)
        if scope["type"] != "http":
            await self.router(scope, receive, send)
            return
        start, status = time.perf_counter(), 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.router(scope, receive, sending)
        except Exception as error:
            if status:
                if not isinstance(error, (HttpError, HTTPException, ClientDisconnect)):
                    _LOG.error("the server failed while answering a request", exc_info=error,
                               extra={"method": scope["method"], "path": scope["path"][:200]})
            else:
                await _answer_error(scope, error)(scope, receive, sending)
        finally:
            if not self.quiet:
                _LOG.info("request", extra={"method": scope["method"], "path": scope["path"][:200],
                                            "status": status or 500,
                                            "ms": round((time.perf_counter() - start) * 1000, 2),
                                            "client": (scope.get("client") or ("?",))[0]})


def create_app(settings: Settings | None = None) -> ASGIApp:
    """The ASGI app for `settings` (opens the database now; the background work starts with the app)."""
    server = _Server(settings or Settings())
    games = "/games/{game:str}"
    router = Router(
        routes=[  # the ones a game calls most first: a request is matched against them in order
            Route(games + "/view", server.get_view, methods=["GET", "HEAD"]),
            Route(games + "/actions", server.post_action, methods=["POST"]),
            Route("/", server.page_route, methods=["GET", "HEAD"]),
            Route("/health", server.health, methods=["GET", "HEAD"]),
            Route("/ready", server.ready, methods=["GET", "HEAD"]),
            Route("/games", server.create_game, methods=["POST"]),
            Route(games + "/record", server.get_record, methods=["GET", "HEAD"]),
            Route(games + "/picture", server.get_picture, methods=["GET", "HEAD"]),
            Route(games + "/events", server.get_events, methods=["GET"]),
            WebSocketRoute(games + "/ws", server.websocket),
        ],
        lifespan=server.lifespan,
    )
    return Edge(router, quiet=server.settings.quiet)


def app_from_env() -> ASGIApp:
    """The app for the `ABYSS_*` environment variables (uvicorn's factory, in each worker process)."""
    from ._logs import configure
    from ._settings import from_env

    settings = from_env()
    configure(settings.log_level, settings.quiet)
    return create_app(settings)
