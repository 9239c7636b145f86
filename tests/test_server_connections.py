"""The server's connections under attack, with real processes over real sockets (`_connections`).

Each test plays a client that misbehaves at the level of bytes -- trickling the next request of a
kept-alive connection, a body a byte at a time, many connections from one address, a request framed
both by Content-Length and by Transfer-Encoding with another pipelined behind it, a WebSocket that
floods pings and never reads -- and checks that the server ends it within its limits while a
well-behaved client, from another loopback address, is served all along. WebSockets that behave
live as long as their client does: past every HTTP deadline, kept alive by pings.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.servers import Served
from websockets.sync.client import connect

from abyss_rules.codec import action_to_dict, view_from_dict
from abyss_rules.serve.client import Client

MB = 1 << 20
ATTACKER, BYSTANDER = "127.0.0.2", "127.0.0.3"
"""Loopback addresses the tests' clients connect from (Linux routes all of 127.0.0.0/8 to lo)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with Served(tmp_path_factory.mktemp("connections"), "--client-games", "0", "--header-timeout", "1",
                "--body-timeout", "1", "--client-connections", "8", "--max-connections", "60",
                "--ws-ping-interval", "0.5", "--ws-ping-timeout", "1",
                "--ws-max-backlog", "65536") as running:
        yield running


def _connect(server: Served, source: str = BYSTANDER, timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=timeout, source_address=(source, 0))


def _read_all(sock: socket.socket, limit: float = 10) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    started, data = time.monotonic(), b""
    sock.settimeout(limit)
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data, time.monotonic() - started


def _trickle(sock: socket.socket, piece: bytes, pause: float) -> tuple[bytes, float]:
    """Send `piece` every `pause` seconds (for at most 6 s) until the server answers or closes;
    return everything it sent and when the trickle began."""
    started, first = time.monotonic(), b""
    with contextlib.suppress(OSError):
        while time.monotonic() - started < 6:
            sock.sendall(piece)
            sock.settimeout(pause)
            with contextlib.suppress(TimeoutError):
                first = sock.recv(4096)
                break
    rest, _ = _read_all(sock)
    return first + rest, started


def _one_answer(sock: socket.socket) -> bytes:
    """One whole answer (its head, and a body of its Content-Length) from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.lower().split(b"\r\n")
                      if line.startswith(b"content-length:")))
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


def _health(server: Served, source: str = BYSTANDER) -> int:
    with _connect(server, source) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer, _ = _read_all(sock)
    return int(answer.split(b" ", 2)[1])


def _memory(server: Served) -> int:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# -- deadlines ----------------------------------------------------------------------------------

def test_the_next_request_on_a_kept_alive_connection_has_a_header_deadline(server: Served) -> None:
    """One request answered, then the next trickled a byte at a time: 408 and closed after
    --header-timeout (1 s), though bytes keep coming."""
    with _connect(server, ATTACKER) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _one_answer(sock).startswith(b"HTTP/1.1 200 ")
        sock.sendall(b"GET /health HTTP/1.1\r\nX-Slow: ")
        answer, started = _trickle(sock, b"a", 0.2)
    assert time.monotonic() - started < 3, "the trickled request was never cut off"
    assert answer.startswith(b"HTTP/1.1 408 ") and b'"code":"request_timeout"' in answer
    assert b"connection: close" in answer.lower()


def test_a_body_trickled_a_byte_at_a_time_is_cut_off(server: Served) -> None:
    before = server.game_ids()
    with _connect(server, ATTACKER) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n")
        answer, started = _trickle(sock, b" ", 0.3)
    assert time.monotonic() - started < 3, "the slow body was held open"
    assert answer.startswith(b"HTTP/1.1 408 ") and b"request_timeout" in answer
    assert server.game_ids() == before


def test_a_connection_that_sends_nothing_is_closed(server: Served) -> None:
    with _connect(server, ATTACKER) as sock:
        answer, elapsed = _read_all(sock)
    assert answer == b"" and elapsed < 3  # an idle connection is closed without a word


def test_one_address_cannot_take_the_servers_connections(server: Served) -> None:
    """100 connections from one address trickling their headers: past --client-connections (8) each
    is refused at once with 503; a client from another address is served throughout, and the
    trickling ones are cut off after --header-timeout."""
    attackers: list[socket.socket] = []
    try:
        for _ in range(100):
            sock = _connect(server, ATTACKER)
            attackers.append(sock)
            with contextlib.suppress(OSError):
                sock.sendall(b"GET /health HTTP/1.1\r\nX-Slow: a")
        assert _health(server) == 200  # the bystander, during the attack
        answers = []
        for sock in attackers:
            answer, _ = _read_all(sock, limit=5)
            answers.append(answer.split(b" ", 2)[1] if answer else b"closed")
    finally:
        for sock in attackers:
            sock.close()
    assert answers.count(b"503") >= 92 and set(answers) <= {b"503", b"408", b"closed"}, answers
    assert answers.count(b"408") + answers.count(b"closed") <= 8
    assert _health(server, ATTACKER) == 200  # its connections are gone: it is served again


# -- framing -------------------------------------------------------------------------------------

@pytest.mark.parametrize("framing", [b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                                     b"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
                                     b"Content-Length: 4\r\nContent-Length: 5\r\n"])
def test_ambiguous_framing_is_refused_and_nothing_pipelined_behind_it_is_answered(server: Served,
                                                                                 framing: bytes) -> None:
    """RFC 9112 section 6.1: a request with both Content-Length and Transfer-Encoding may be a request
    smuggled past a proxy: 400 and close. The request pipelined behind it is never read."""
    before = server.game_ids()
    with _connect(server, ATTACKER) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + framing +
                     b"\r\n0\r\n\r\n"
                     b'POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
                     b'Content-Length: 13\r\n\r\n{"players":2}')
        answer, _ = _read_all(sock)
    assert answer.count(b"HTTP/1.1 ") == 1, answer  # one answer: the second request was not answered
    assert answer.startswith(b"HTTP/1.1 400 ") and b"connection: close" in answer.lower()
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "bad_request"
    assert server.game_ids() == before  # neither request created a game


def test_headers_over_the_limit_trickled_or_whole_get_431(server: Served) -> None:
    for pieces in ([b"a" * 20_000], [b"a" * 1000] * 20):
        with _connect(server, ATTACKER) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ")
            with contextlib.suppress(OSError):
                for piece in pieces:
                    sock.sendall(piece)
                sock.sendall(b"\r\n\r\n")
            answer, _ = _read_all(sock)
        assert answer.startswith(b"HTTP/1.1 431 ") and b'"code":"headers_too_large"' in answer


# -- WebSockets ------------------------------------------------------------------------------------

def _ws_handshake(server: Served, game: str) -> socket.socket:
    sock = _connect(server, ATTACKER)
    key = base64.b64encode(os.urandom(16))
    sock.sendall(b"GET /games/%s/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (game.encode(), key))
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101 "), head
    return sock


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: final, masked (RFC 6455 section 5.2)."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) +
                                     size.to_bytes(2, "big"))
    return head + mask + bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """The server's (unmasked) frames in `data`: (opcode, payload)."""
    frames, at = [], 0
    while at + 2 <= len(data):
        opcode, size, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, at = int.from_bytes(data[at:at + 2], "big"), at + 2
        elif size == 127:
            size, at = int.from_bytes(data[at:at + 8], "big"), at + 8
        frames.append((opcode, data[at:at + size]))
        at += size
    return frames


def test_a_websocket_lives_past_the_http_deadlines_while_its_client_answers_pings(server: Served) -> None:
    """Idle for 3 s -- three times --header-timeout, with pings every 0.5 s answered by the client
    library -- the socket still plays."""
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    with connect(server.url.replace("http://", "ws://") + f"/games/{game.id}/ws", open_timeout=10) as ws:
        ws.send(json.dumps({"token": game.tokens[0]}))
        view = view_from_dict(json.loads(ws.recv(timeout=10))["view"])
        time.sleep(3)
        ws.send(json.dumps(action_to_dict(view.legal_actions[0], seq=view.seq, request_id="late")))
        kinds = {json.loads(ws.recv(timeout=10))["type"] for _ in range(2)}
    assert kinds == {"verdict", "update"}
    assert server.game_state(game.id).seq == 1


def test_a_websocket_client_that_never_answers_pings_is_closed(server: Served) -> None:
    """The heartbeat: pings every --ws-ping-interval (0.5 s); no pong within --ws-ping-timeout (1 s):
    closed with 1011."""
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    with _ws_handshake(server, game.id) as sock:
        sock.sendall(_frame(0x1, json.dumps({"token": None}).encode()))
        data, elapsed = _read_all(sock, limit=10)
    frames = _frames(data)
    assert [opcode for opcode, _ in frames][:1] == [0x1]  # the view
    assert 0x9 in [opcode for opcode, _ in frames]  # a ping
    opcode, payload = frames[-1]
    assert opcode == 0x8 and int.from_bytes(payload[:2], "big") == 1011 and elapsed < 5


def test_a_websocket_client_that_floods_pings_and_never_reads_is_cut_off(server: Served) -> None:
    """Each ping asks for a pong; a client that never reads them is disconnected once --ws-max-backlog
    (64 KiB) waits for it, and the server's memory does not grow with what it sent."""
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    before = _memory(server)
    sock = _ws_handshake(server, game.id)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sent, cut_off = 0, False
    flood = _frame(0x9, b"p" * 125) * 512  # 64 KiB of pings a write
    started = time.monotonic()
    try:
        sock.sendall(_frame(0x1, json.dumps({"token": None}).encode()))
        sock.settimeout(5)
        while sent < 64 * MB and time.monotonic() - started < 30:
            sock.sendall(flood)
            sent += len(flood)
    except OSError:
        cut_off = True
    finally:
        sock.close()
    assert cut_off, f"the server read {sent} bytes of pings and kept the connection"
    assert _memory(server) - before < 16 * MB
    assert _health(server) == 200
