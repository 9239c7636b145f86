"""Hostile requests against the server process: each answered 4xx (or closed) fast, with bounded memory.

The server's peak resident memory (VmHWM of /proc) is read before and after each attack: a request
may not make it allocate in proportion to what the client claims (a hundred million players, a
20 MB body, 65 KB of headers sent a byte at a time...). Every number a client controls has a bound
checked before anything is built from it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.servers import Served

from abyss_rules.codec import action_to_dict
from abyss_rules.serve.client import Client

MB = 1 << 20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with Served(tmp_path_factory.mktemp("hostile"), "--client-games", "3", "--header-timeout", "1",
                "--max-connections", "60", "--max-actions", "12") as running:
        yield running


def _memory(server: Served, field: str = "VmHWM") -> int:
    """The server process's peak (VmHWM) or current (VmRSS) resident memory, in bytes."""
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field}")


def _post(server: Served, body: bytes,
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
    with Client(server.url, timeout=10) as client:
        response = client.request("POST", "/games", data=body, headers=headers)
    return response.status, response.json() if response.body.startswith(b"{") else {}


def _timed(function: object, *args: object) -> tuple[float, object]:
    started = time.monotonic()
    result = function(*args)  # type: ignore[operator]
    return time.monotonic() - started, result


def test_a_huge_player_count_is_refused_before_anything_is_allocated(server: Served) -> None:
    before = _memory(server)
    answers: list[tuple[float, object]] = []
    bodies = [b'{"players": 100000000}', b'{"players": 1e30}', b'{"players": -1}',
              b'{"players": 100000000, "bots": null}', b'{"players": 99999999999999999999999}']

    def attack(body: bytes) -> None:
        answers.append(_timed(_post, server, body))

    threads = [threading.Thread(target=attack, args=(body,)) for body in bodies * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(answers) == len(bodies) * 4
    for elapsed, (status, verdict) in answers:  # type: ignore[misc]
        assert status == 400 and elapsed < 2, (status, verdict)
        assert verdict["code"] in ("invalid_players", "wrong_type", "bad_value")
        assert verdict["path"] == "/players"
    assert _memory(server) - before < 20 * MB  # the old example server: ~800 MB per request
    assert server.game_ids() == ()  # nothing was created, and the refusals cost no creation quota
    with Client(server.url) as client:
        assert client.create_game(2, "short").id


@pytest.mark.parametrize("size", [2 * MB, 20 * MB])
def test_a_huge_body_is_refused_unread(server: Served, size: int) -> None:
    before = _memory(server)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % size + b" " * 65536)
        answer = b""
        while not answer.endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 ") and b"document_too_large" in answer
    assert _memory(server) - before < 5 * MB


@pytest.mark.parametrize("size", [20 * 1024, 65 * 1024, 4 * MB])
def test_headers_over_the_limit_are_refused(server: Served, size: int) -> None:
    before = _memory(server)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        with contextlib.suppress(OSError):  # the server may answer and close before reading it all
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n")
        answer = sock.recv(65536)
    assert answer.split(b" ")[1] == b"431", answer[:100]  # the edge's refusal, however they came
    assert time.monotonic() - started < 2 and _memory(server) - before < 20 * MB


def test_slow_headers_are_cut_off_and_hold_no_memory(server: Served) -> None:
    """40 connections send their headers a byte at a time; after --header-timeout (1 s) each gets 408 and
    is closed."""
    before = _memory(server)
    sockets = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(40)]
    started = time.monotonic()
    closed = 0
    try:
        for sock in sockets:
            sock.sendall(b"GET /health HTTP/1.1\r\nX-Slow: ")
        for _ in range(30):  # a byte every 0.1 s each, for up to 3 s
            for sock in sockets:
                try:
                    sock.sendall(b"a")
                except OSError:
                    continue
            time.sleep(0.1)
        for sock in sockets:
            sock.settimeout(5)
            try:
                answer = sock.recv(4096)
                while answer and (chunk := sock.recv(4096)):  # a 408, then the close
                    answer += chunk
                closed += answer == b"" or answer.startswith(b"HTTP/1.1 408 ")
            except OSError:
                closed += 1
    finally:
        for sock in sockets:
            sock.close()
    assert closed == 40 and time.monotonic() - started < 10
    assert _memory(server) - before < 10 * MB
    with Client(server.url) as client:  # the server serves the next client at once
        assert client.request("GET", "/health").status == 200


def test_a_burst_of_connections_is_accepted_and_the_cap_answers_503(server: Served) -> None:
    """200 connections at once all get in (backlog 2048, not 5); past --max-connections (60) a request
    gets 503 at once, and holds no thread: the server serves again as soon as they are gone."""
    sockets: list[socket.socket] = []
    try:
        started = time.monotonic()
        for _ in range(200):
            sockets.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
        assert time.monotonic() - started < 5
        for sock in sockets[:100]:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        statuses = [sock.recv(200).split(b" ")[1] for sock in sockets[:100]]
        # uvicorn counts a connection once its event loop has accepted it: the first ones may still
        # be served if they were read before the rest were accepted, but never more than the cap.
        assert set(statuses) <= {b"200", b"503"} and statuses.count(b"200") <= 60
        assert statuses.count(b"503") >= 40 and time.monotonic() - started < 10
    finally:
        for sock in sockets:
            sock.close()
    time.sleep(0.5)
    with Client(server.url) as client:  # once they are gone, service is back
        assert client.request("GET", "/health").status == 200


def test_a_game_stops_at_the_servers_action_cap(server: Served) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "standard")
        for _ in range(12):
            view = client.view(game.id)
            seat = view.turn if view.turn is not None else view.owing_flips[0]
            mine = client.view(game.id, game.tokens[seat])
            client.act(game.id, game.tokens[seat], mine.legal_actions[0], seq=mine.seq)
        view = client.view(game.id)
        seat = view.turn if view.turn is not None else view.owing_flips[0]
        mine = client.view(game.id, game.tokens[seat])
        refused = client.request("POST", f"/games/{game.id}/actions",
                                 action_to_dict(mine.legal_actions[0], seq=mine.seq, request_id="late"),
                                 token=game.tokens[seat])
    assert refused.status == 409 and refused.json()["code"] == "game_too_long"
    assert refused.json()["request_id"] == "late" and server.game_state(game.id).seq == 12


def test_an_event_stream_never_replays_the_history(server: Served) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        for seat in (0, 1, 0, 1):
            mine = client.view(game.id, game.tokens[seat])
            client.act(game.id, game.tokens[seat], mine.legal_actions[0], seq=mine.seq)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"GET /games/{game.id}/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 0\r\n\r\n".encode())
        time.sleep(0.5)
        data = sock.recv(1 << 20)
    events = [line for line in data.split(b"\n") if line.startswith(b"event: ")]
    assert events == [b"event: view"] and b"id: 4" in data  # the current view only
    assert len(data) < 16 * 1024


def test_creations_past_the_clients_quota_are_refused(server: Served) -> None:
    with Client(server.url) as client:
        answers = [client.request("POST", "/games", {"players": 2}) for _ in range(4)]
    codes = [(a.status, (a.json() or {}).get("code")) for a in answers]
    assert (429, "too_many_games") in codes
    assert all(code in ((201, None), (429, "too_many_games")) for code in codes)
    assert json.loads(answers[-1].body)["format"] == "verdict"
