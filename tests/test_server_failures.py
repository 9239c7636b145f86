"""What the server does when something goes wrong, with real processes over real sockets: an answer it
cannot send, clients that drop mid-request, a database that fails, a supervisor killed outright.

- A move is stored only if its answer can be sent: a request id (or any string of the request) that
  UTF-8 cannot carry -- a lone surrogate -- is refused with 400 and the game is unchanged, over HTTP and
  over a WebSocket; `act` encodes the whole answer before it commits, whatever the library accepts.
- A client that drops mid-body is one line at INFO (status 499), never an ERROR with a traceback.
- The access log records the status that was sent, 500 included, and a failure is logged once.
- With `--workers N`, a SIGKILL of the supervisor alone stops the workers, and the port is free again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from tests.servers import Served, ServerProcess, wait_for
from websockets.sync.client import connect

from abyss_rules.codec import action_to_dict, view_from_dict
from abyss_rules.config import Variant
from abyss_rules.serve.client import Client
from abyss_rules.views import view


def _logs(errors: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in errors.splitlines() if line.startswith("{")]


# -- an answer that cannot be sent -------------------------------------------------------------------

@pytest.mark.parametrize("extra", [{"request_id": "\udc00"}, {"request_id": "ok", "\udc00": 1}])
def test_an_action_whose_answer_cannot_be_sent_is_refused_and_not_stored(tmp_path: Path,
                                                                         extra: dict[str, Any]) -> None:
    with Served(tmp_path, quiet=False) as server, Client(server.url) as client:
        game = client.create_game(2, "short")
        seen = client.view(game.id, game.tokens[0])
        body = json.dumps({**action_to_dict(seen.legal_actions[0], seq=seen.seq), **extra}).encode()
        refused = client.request("POST", f"/games/{game.id}/actions", data=body, token=game.tokens[0])
        assert refused.status == 400, refused.body
        assert refused.json()["code"] in ("invalid_json", "lone_surrogate", "unknown_field")
        refused.body.decode("utf-8")  # what was sent is UTF-8
        assert server.game_state(game.id).seq == 0 and server.full_record(game.id).actions == ()
        assert client.act(game.id, game.tokens[0], seen.legal_actions[0], seq=0)[0].seq == 1  # plays on
        _, errors = server.terminate()
    assert not [line for line in _logs(errors) if line["level"] == "error"]


def test_over_a_websocket_such_an_action_gets_a_refusal_and_is_not_stored(tmp_path: Path) -> None:
    with Served(tmp_path) as server, Client(server.url) as client:
        game = client.create_game(2, "short")
        with connect(server.url.replace("http://", "ws://") + f"/games/{game.id}/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"token": game.tokens[0]}))
            seen = view_from_dict(json.loads(ws.recv(timeout=10))["view"])
            doc = action_to_dict(seen.legal_actions[0], seq=seen.seq)
            ws.send(json.dumps({**doc, "request_id": "\udc00"}))  # JSON's escape: ASCII on the wire
            answer = json.loads(ws.recv(timeout=10))
            assert answer["type"] == "verdict" and answer["status"] == 400
            assert answer["verdict"]["legal"] is False and "request_id" not in answer["verdict"]
            assert server.game_state(game.id).seq == 0
            ws.send(json.dumps({**doc, "request_id": 1}))
            kinds = {json.loads(ws.recv(timeout=10))["type"] for _ in range(2)}
        assert kinds == {"verdict", "update"} and server.game_state(game.id).seq == 1


def test_act_encodes_the_whole_answer_before_it_commits(tmp_path: Path) -> None:
    """Whatever the library lets through, `act` stores no move whose answer cannot be encoded: the
    answer is built and encoded first, then the move is committed."""
    from abyss_rules.serve._app import _Server
    from abyss_rules.serve._requests import HttpError, encode
    from abyss_rules.serve._settings import Settings

    server = _Server(Settings(db=f"sqlite:///{tmp_path / 'games.db'}"))
    try:
        game = server.games.create(2, Variant.presets()["short"], None, (None, None), "test")
        doc = dict(action_to_dict(view(game.state, 0).legal_actions[0], seq=0))

        async def attempt(answer: Any) -> bytes:
            return await server.act(game.id, doc, answer, seat=0)

        with pytest.raises(HttpError) as refused:
            asyncio.run(attempt(lambda verdict, seat, move: encode({"note": "\ud800"})))
        assert refused.value.status == 400 and refused.value.verdict.code == "lone_surrogate"
        assert server.games.state(game.id).seq == 0 and server.games.store.record(game.id)[1] == []
        accepted = asyncio.run(attempt(lambda verdict, seat, move: encode(verdict.to_dict())))
        assert json.loads(accepted)["legal"]
        assert server.games.state(game.id).seq == 1
    finally:
        server.games.store.close()


# -- clients that go away ---------------------------------------------------------------------------

def test_clients_dropping_mid_body_are_one_info_line_each(tmp_path: Path) -> None:
    with Served(tmp_path, quiet=False) as server:
        for _ in range(30):
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             b'Content-Length: 1000\r\n\r\n{"players": 2')
        started = time.monotonic()
        with Client(server.url) as client:
            assert client.request("GET", "/health").status == 200
        assert time.monotonic() - started < 2
        time.sleep(0.5)
        _, errors = server.terminate()
    lines = _logs(errors)
    assert "Traceback" not in errors and not [line for line in lines if line["level"] == "error"]
    dropped = [line for line in lines if line.get("path") == "/games"]  # the access log's lines
    assert len(dropped) == 30 and {(line["level"], line["status"]) for line in dropped} == {("info", 499)}


def test_the_access_log_records_a_500_and_the_failure_is_logged_once(tmp_path: Path) -> None:
    with Served(tmp_path, quiet=False) as server, Client(server.url) as client:
        game = client.create_game(2, "short")
        seen = client.view(game.id, game.tokens[0])
        with sqlite3.connect(tmp_path / "games.db") as database:  # the database breaks under the server
            database.execute("DROP TABLE actions")
        failed = client.request("POST", f"/games/{game.id}/actions",
                                action_to_dict(seen.legal_actions[0], seq=seen.seq), token=game.tokens[0])
        assert failed.status == 500 and failed.json()["code"] == "internal_error"
        _, errors = server.terminate()
    lines = _logs(errors)
    posted = [line for line in lines if line["message"] == "request" and line["path"].endswith("/actions")]
    assert [line["status"] for line in posted] == [500]
    failures = [line for line in lines if line["level"] == "error"]
    assert len(failures) == 1 and "no such table: actions" in failures[0]["exception"]
    assert errors.count("Traceback") == 1


# -- the supervisor --------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError):
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
    except OSError:
        return False
    return state != "Z"


def _workers(pid: int) -> list[int]:
    """The worker processes of a supervisor (multiprocessing's spawned children)."""
    found = []
    for child in _children(pid):
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
    return found


def _healthy(url: str) -> bool:
    with Client(url) as client:
        return client.request("GET", "/health").status == 200


def test_workers_stop_when_their_supervisor_is_killed(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    with ServerProcess(db, "--workers", "2") as first:
        wait_for(lambda: len(_workers(first.process.pid)) == 2, timeout=60)
        workers = _workers(first.process.pid)
        wait_for(lambda: _healthy(first.url), timeout=60)
        os.kill(first.process.pid, signal.SIGKILL)  # the supervisor alone
        wait_for(lambda: not any(_alive(pid) for pid in workers), timeout=30)
        with ServerProcess(db, "--port", str(first.port)) as second, Client(second.url) as client:
            assert second.port == first.port and client.request("GET", "/health").status == 200
