"""The server's connections: uvicorn's HTTP (httptools) and WebSocket protocols, with the edge's limits.

uvicorn parses each request with httptools (llhttp): a request whose framing cannot be trusted -- both
`Content-Length` and `Transfer-Encoding`, two lengths, a bad chunk -- is refused with 400 and the
connection is closed, so nothing pipelined behind it is ever read (RFC 9112, section 6.1). uvicorn
also bounds the connections of a worker (`--max-connections`) and closes idle ones (`--keep-alive`).
These subclasses add what a server facing the internet needs and uvicorn leaves open:

- every request on a connection has a deadline for its line and headers (`--header-timeout`, counted
  from when the connection is ready for it: opened, or the previous answer sent) and one for its body
  (`--body-timeout`, from the end of its headers): 408 and close;
- the line and headers are bounded (`--max-header-bytes`: 431), whether they come in one piece or a
  byte at a time (httptools itself keeps a header until its end);
- one client address holds at most `--client-connections` connections at once (503 beyond), so that
  no one address can take a worker's `--max-connections`;
- a WebSocket client that reads too slowly -- or not at all, even while it floods pings, each of which
  asks for a pong -- is disconnected once `--ws-max-backlog` bytes wait to be sent to it. The
  heartbeat (pings every `--ws-ping-interval`, `--ws-ping-timeout` for the pong) and the closing
  handshake are uvicorn's.

Every refusal here is a `verdict` document like the app's, and one log line (`refused`) at INFO. The
limits are read from the `ABYSS_*` environment variables, where `abyss-rules serve` puts them for
every worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http
import logging
import socket
from typing import Any, Final

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from . import _library as ar
from ._requests import encode
from ._settings import Settings, from_env

__all__ = ["EDGE_STATUS", "HttpProtocol", "WebSocketProtocol"]

_LOG: Final = logging.getLogger("abyss_rules.serve")
EDGE_STATUS: Final = "abyss.edge_status"
"""The scope key where the edge leaves the status it answered a request with while the app was reading
its body (the app then sees the client gone, and its access log line records this status)."""


@functools.cache
def _limits() -> Settings:
    return from_env()


class _PerAddress:
    """How many connections each client address holds open in this process."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}
        self._address: dict[asyncio.BaseTransport, str] = {}

    def admit(self, transport: asyncio.BaseTransport, address: str, limit: int) -> bool:
        """Count `transport` for `address` (once), unless the address holds `limit` already (0: no limit)."""
        if transport in self._address:
            return True
        held = self._open.get(address, 0)
        if limit and held >= limit:
            return False
        self._open[address] = held + 1
        self._address[transport] = address
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        address = self._address.pop(transport, None)
        if address is not None:
            held = self._open[address] - 1
            if held:
                self._open[address] = held
            else:
                del self._open[address]


_CLIENTS: Final = _PerAddress()


def _answer(status: int, code: str, message: str, default_headers: list[tuple[bytes, bytes]],
            headers: dict[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 response: the refusal as a verdict document, and `Connection: close`."""
    body = encode(ar.Verdict(False, code, None, message, None).to_dict())
    lines = [b"HTTP/1.1 %d %s" % (status, http.HTTPStatus(status).phrase.encode("ascii"))]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [b"content-type: application/json", b"content-length: %d" % len(body),
              b"cache-control: no-store", b"connection: close"]
    lines += [f"{name}: {value}".encode("ascii") for name, value in (headers or {}).items()]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class _OneSend:
    """A connection's transport whose writes within one turn of the event loop go out as one send.

    uvicorn writes an answer's head and its body separately: two system calls and two packets, and
    the client wakes twice. Gathered, an answer is one of each; an answer is sent the moment it is
    complete, and a stream's pieces at the end of the loop's turn that wrote them.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport, self._loop = transport, loop
        self._parts: list[bytes] = []
        self._later: asyncio.Handle | None = None

    def write(self, data: bytes) -> None:
        self._parts.append(data)
        if self._later is None:
            self._later = self._loop.call_soon(self.flush)

    def flush(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None
        if self._parts:
            data = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
            self._parts.clear()
            self.transport.write(data)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def discard(self) -> None:
        """Drop what was not sent: the connection is gone."""
        self._parts.clear()
        self.flush()

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines for each request's headers and body, a bound on the
    headers' size, a cap on the connections of one address, and refusals as verdict documents."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = _limits()
        self._timer: asyncio.TimerHandle | None = None
        self._in_head = True  # waiting for, or reading, a request's line and headers
        self._head_bytes = 0
        self._begun = False  # some of the request being waited for has arrived
        self._too_large = False

    # -- the connection -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._sends = _OneSend(transport, self.loop)
        self.transport = self._sends  # type: ignore[assignment]  # the answers' writes, gathered
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # an answer's head and body are two writes: no Nagle delay
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        limit = self.limits.client_connections
        if not _CLIENTS.admit(transport, self._address(), limit):
            self._refuse(503, "too_many_connections", f"this address holds {limit} connections to this "
                         "server already: close one, or wait", {"Retry-After": "5"})
            return
        self._arm(self.limits.header_timeout, self._head_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._sends.discard()
        _CLIENTS.release(self._sends.transport)
        super().connection_lost(exc)

    def _address(self) -> str:
        return self.client[0] if self.client else "?"

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        if self._in_head:
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as error:
            if self._too_large:
                self._refuse_head_too_large()
            else:
                self._refuse(400, "bad_request", f"the request is not valid HTTP/1.1: {str(error)[:120]}")
            return
        if self._in_head and self._head_bytes > self.limits.max_header_bytes:
            self._refuse_head_too_large()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the WebSocket protocol takes the connection over (and its count)
        self._sends.flush()
        self.transport = self._sends.transport
        super().handle_websocket_upgrade()

    # -- httptools' callbacks --------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._begun = True
        if self._timer is None:
            self._arm(self.limits.header_timeout, self._head_too_slow)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._disarm()
        if len(self.url) + sum(len(name) + len(value) for name, value in self.headers) \
                > self.limits.max_header_bytes:
            self._too_large = True
            raise ValueError("headers too large")  # httptools stops; data_received refuses the request
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.scope is self.scope:  # for the app (not an upgrade)
            self._arm(self.limits.body_timeout, self._body_too_slow)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()
        self._in_head, self._head_bytes, self._begun = True, 0, False
        self._ready_for_next()

    def on_response_complete(self) -> None:
        self._sends.flush()  # the whole answer, at once
        super().on_response_complete()
        self._ready_for_next()

    def _ready_for_next(self) -> None:
        """Once a request is read and answered, the next one's headers have `--header-timeout` to arrive."""
        if self._in_head and self._timer is None and not self.pipeline and not self.transport.is_closing() \
                and (self.cycle is None or self.cycle.response_complete):
            self._arm(self.limits.header_timeout, self._head_too_slow)

    # -- deadlines and refusals -------------------------------------------------------------

    def _arm(self, delay: float, callback: Any) -> None:
        self._disarm()
        self._timer = self.loop.call_later(delay, callback)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if not self._begun and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()  # nothing of a request came: an idle connection, closed without a word
            return
        self._refuse(408, "request_timeout", f"the request's line and headers took more than "
                     f"{self.limits.header_timeout:g} s")

    def _body_too_slow(self) -> None:
        self._timer = None
        if not self.transport.is_closing():
            self._refuse(408, "request_timeout", f"the request's body took more than "
                         f"{self.limits.body_timeout:g} s", current=True)

    def _refuse_head_too_large(self) -> None:
        self._refuse(431, "headers_too_large", f"the request's line and headers are over "
                     f"{self.limits.max_header_bytes} bytes")

    def _refuse(self, status: int, code: str, message: str, headers: dict[str, str] | None = None, *,
                current: bool = False) -> None:
        """Answer `status` and close the connection. `current`: the refused request is the one the app
        is reading (the app sees its client gone); else the request after any answer in progress, which
        is then the connection's last."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if not current:  # the answer in progress is another request's: it goes out, then the close
                cycle.keep_alive = False
                self.pipeline.clear()
                self.flow.pause_reading()
                _LOG.info("refused", extra={"status": status, "code": code, "client": self._address()})
                return
            cycle.disconnected = True  # the app's answer, if it still makes one, goes nowhere
            cycle.message_event.set()
            cycle.scope[EDGE_STATUS] = status  # type: ignore[typeddict-unknown-key]  # for the access log
            if cycle.response_started:
                self.transport.close()
                return
        else:
            _LOG.info("refused", extra={"status": status, "code": code, "client": self._address()})
        self.transport.write(_answer(status, code, message, self.server_state.default_headers, headers))
        self.transport.close()


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans I/O) that disconnects a client that falls more than
    `--ws-max-backlog` bytes behind, and counts the connection for its address until it closes."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        _CLIENTS.admit(transport, self.client[0] if self.client else "?", 0)  # counted since its request
        limit = _limits().ws_max_backlog
        self.transport.set_write_buffer_limits(high=limit, low=limit // 4)

    def connection_lost(self, exc: Exception | None) -> None:
        _CLIENTS.release(self.transport)
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if not self.transport.is_closing():
            _LOG.info("a WebSocket client fell behind: disconnected",
                      extra={"client": self.client[0] if self.client else "?",
                             "waiting_bytes": self.transport.get_write_buffer_size()})
            self.transport.abort()

    def handle_ping(self) -> None:
        if not self.transport.is_closing():  # no pong for a client already cut off
            super().handle_ping()
