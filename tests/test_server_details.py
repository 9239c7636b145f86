"""The server's HTTP details: bodies over the limit, malformed request lines, HEAD, the event stream
(Server-Sent Events), the built-in bots as seats, the play page's document, graceful shutdown.

The event stream is checked as the views are: every view it carries is exactly the library's view
of the authoritative state for that seat, and every events document the library's own.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.servers import Served, ServerProcess, read_stream, wait_for

import abyss_rules as ar
from abyss_rules.bots import GreedyBot
from abyss_rules.codec import canonical_json, events_to_dict, variant_to_dict, view_to_dict
from abyss_rules.pictures import to_svg
from abyss_rules.serve._requests import encode
from abyss_rules.serve._settings import Settings
from abyss_rules.serve.client import Client, ServerError

DEFAULT_MAX_BODY = Settings().max_body
GameServer = Served


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GameServer]:
    with Served(tmp_path_factory.mktemp("server"), "--long-poll", "5", "--client-games", "0") as running:
        yield running


def _raw(port: int, data: bytes, *, read_after: bool = True, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if not read_after:
            return b""
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


# -- bodies and request lines ---------------------------------------------------------------------

@pytest.mark.parametrize("size", [DEFAULT_MAX_BODY + 1, 2 << 20, 20 << 20])
def test_an_oversized_body_gets_a_413_verdict_not_a_reset(server: GameServer, size: int) -> None:
    port = server.port
    body = b" " * size
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % size)
        sender = threading.Thread(target=lambda: _send_quietly(sock, body))
        sender.start()
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        sender.join(timeout=30)
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"connection: close" in head.lower()
    verdict = json.loads(payload)
    assert verdict["format"] == "verdict" and verdict["code"] == "document_too_large"
    assert str(size) in verdict["message"]


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the server may stop reading a huge body once it has answered
        sock.sendall(data)


def test_expect_100_continue_is_refused_before_the_body_is_sent(server: GameServer) -> None:
    answer = _raw(server.port, b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: "
                  b"application/json\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 ") and b"100 Continue" not in answer
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "document_too_large"
    small = canonical_json({"players": 2, "variant": "short"}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(small))
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(small)
        assert sock.recv(100).startswith(b"HTTP/1.1 201 ")


@pytest.mark.parametrize("line", [b"GARBAGE", b"GET", b"GET /games/x/view HTTP/1.1 extra", b"\x00\xff\xfe",
                                  b"GET / HTTP/x.y"])
def test_a_malformed_request_line_gets_a_status_line(server: GameServer, line: bytes) -> None:
    # the HTTP parser refuses it before the app sees anything: a 400 verdict, then the close
    answer = _raw(server.port, line + b"\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"connection: close" in head.lower(), answer[:200]
    assert json.loads(body)["code"] == "bad_request"


def test_head_answers_like_get_without_a_body(server: GameServer) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        for path in ("/", f"/games/{game.id}/view", f"/games/{game.id}/record"):
            get = client.request("GET", path)
            head = client.request("HEAD", path)
            assert head.status == 200 and head.body == b"", path
            if get is not None:
                assert head.headers["Content-Type"] == get.headers["Content-Type"]
                assert head.headers["Content-Length"] == get.headers["Content-Length"] == str(len(get.body))
        wrong = client.request("DELETE", f"/games/{game.id}/view")
        assert wrong.status == 405 and wrong.headers["Allow"] == "GET, HEAD"
        assert client.request("HEAD", "/games/0123456789abcdef/view").status == 404


# -- the event stream ------------------------------------------------------------------------------

def test_a_seats_event_stream_carries_its_views_and_the_events(server: GameServer) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        messages: list[tuple[str, int, Any]] = []
        reader = threading.Thread(target=read_stream,
                                  args=(server.url, game.id, game.tokens[1], messages, 10**6))
        reader.start()
        wait_for(lambda: messages)  # the stream has started
        bots = [GreedyBot(), GreedyBot()]
        while True:
            view = client.view(game.id)
            if view.is_over:
                break
            seat = view.turn if view.turn is not None else view.owing_flips[0]
            mine = client.view(game.id, game.tokens[seat])
            client.act(game.id, game.tokens[seat], bots[seat].choose(mine), seq=mine.seq)
        reader.join(timeout=30)
        assert not reader.is_alive()
    full = server.full_record(game.id)
    states = list(full.states())
    names = [name for name, _, _ in messages]
    assert names == ["view"] + ["action"] * len(full.actions) + ["end"]
    assert messages[0][2] == view_to_dict(ar.view(states[0], 1))
    for (_, seq, doc), action in zip(messages[1:-1], full.actions, strict=True):
        assert doc["view"] == view_to_dict(ar.view(states[seq], 1))  # seat 1's view: nothing more
        _, events = ar.apply_with_events(states[seq - 1], action)
        assert doc["events"] == events_to_dict(events, action=action, seq=seq)
    assert messages[-1][2] == {"over": True}
    text = json.dumps(messages)
    assert full.seed is not None and full.seed.hex() not in text and "draw_pile\"" not in text


def test_an_event_stream_resumes_from_the_current_view(server: GameServer) -> None:
    # A client that reconnects gets the current view, not the history since the id it last saw: the
    # replay is bounded by the game's size, not by what the client asks for.
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        for seat in (0, 1, 0):
            mine = client.view(game.id, game.tokens[seat])
            flip = next(a for a in mine.legal_actions if a.player == seat)
            client.act(game.id, game.tokens[seat], flip, seq=mine.seq)
    for how in ({"headers": {"Last-Event-ID": "0"}}, {"query": "?after=1"}, {}):
        messages: list[tuple[str, int, Any]] = []
        read_stream(server.url, game.id, None, messages, 1, **how)  # type: ignore[arg-type]
        assert [(name, seq) for name, seq, _ in messages] == [("view", 3)]
        assert messages[0][2]["viewer"] is None and messages[0][2]["seq"] == 3  # a spectator's view
    with Client(server.url) as client:
        assert client.request("GET", f"/games/{game.id}/events?after=x").status == 400
        assert client.request("GET", f"/games/{game.id}/events", token="nope").status == 401


# -- bots as seats ---------------------------------------------------------------------------------

def test_a_person_plays_against_the_servers_bots(server: GameServer) -> None:
    with Client(server.url) as client:
        game = client.create_game(3, "short", bots=[None, "greedy", "counting"])
        assert game.tokens[0] is not None and game.tokens[1:] == (None, None)
        token = game.tokens[0]
        moves = 0
        while True:
            view = client.view(game.id, token, after=None)
            if view.is_over:
                break
            if not view.legal_actions:
                view = client.view(game.id, token, after=view.seq)  # the bots play meanwhile
                continue
            try:
                client.act(game.id, token, GreedyBot().choose(view), seq=view.seq)
                moves += 1
            except ServerError as error:  # in the opening, the bots flip at the same time
                assert error.code == "stale_action"
        record = server.full_record(game.id)
    assert record.replay().is_over and moves < len(record.actions)
    assert {action.player for action in record.actions} == {0, 1, 2}


@pytest.mark.parametrize(("bots", "code", "path"), [
    ("greedy", "wrong_type", "/bots"),
    ([None], "bad_value", "/bots"),
    ([None, "grandmaster"], "bad_value", "/bots/1"),
    ([None, {"name": "greedy"}], "bad_value", "/bots/1"),
    (["greedy", "greedy"], "bad_value", "/bots"),
])
def test_bad_bots_are_refused(server: GameServer, bots: Any, code: str, path: str) -> None:
    with Client(server.url) as client:
        response = client.request("POST", "/games", {"players": 2, "bots": bots})
    assert response.status == 400 and (response.json()["code"], response.json()["path"]) == (code, path)


@pytest.mark.rule("8.2", "8.3")
def test_the_picture_is_the_libraries_svg_of_the_seats_view(server: GameServer) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        mine = client.view(game.id, game.tokens[0])
        client.act(game.id, game.tokens[0], mine.legal_actions[0], seq=mine.seq)
        state = server.game_state(game.id)
        for seat, token in [(0, game.tokens[0]), (1, game.tokens[1]), (None, None)]:
            response = client.request("GET", f"/games/{game.id}/picture", token=token)
            assert response.status == 200 and response.headers["Content-Type"].startswith("image/svg+xml")
            assert response.body.decode() == to_svg(ar.view(state, seat))  # public information only
        assert client.request("GET", f"/games/{game.id}/picture", token="nope").status == 401


@pytest.mark.rule("10.4")
@pytest.mark.parametrize("change", [
    {"deck": [[1, 100_000]]},                                  # a deck far over the card bound
    {"deck": [[value, 8] for value in range(-2000, 2000)]},   # too many distinct values
    {"rows": 16, "cols": 16},                                  # a grid over the space bound
    {"target_score": 10**9},
])
def test_a_custom_variant_over_the_librarys_bounds_is_refused(server: GameServer,
                                                              change: dict[str, Any]) -> None:
    games = len(server.game_ids())
    variant = {**variant_to_dict(ar.Variant.short()), **change}
    with Client(server.url) as client:
        response = client.request("POST", "/games", {"players": 2, "variant": variant})
    verdict = response.json()
    assert response.status == 400 and verdict["code"] == "invalid_variant", verdict
    assert verdict["path"].startswith("/variant") and verdict["rule"] == "10.4"
    assert len(server.game_ids()) == games  # nothing was created


# -- the page --------------------------------------------------------------------------------------

def test_the_play_page_is_one_self_contained_document(server: GameServer) -> None:
    with Client(server.url) as client:
        page = client.request("GET", "/")
    assert page.status == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    text = page.body.decode("utf-8")
    assert text.startswith("<!doctype html>") and "<script>" in text
    for external in ("src=\"http", "href=\"http", "@import", "url(http"):
        assert external not in text  # no network resource: everything is inline
    assert page.body == (Path(ar.__file__).parent / "serve" / "page.html").read_bytes()


# -- stopping ----------------------------------------------------------------------------------------

def test_sigterm_answers_the_waiting_requests_then_exits(tmp_path: Path) -> None:
    with ServerProcess(f"sqlite:///{tmp_path / 'games.db'}", quiet=False) as process:
        with Client(process.url) as client:
            game = client.create_game(2, "short")
        answers: list[int] = []

        def wait() -> None:
            with Client(process.url) as mine:
                answers.append(mine.request("GET", f"/games/{game.id}/view?after=0").status)

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.5)  # the long poll is waiting (up to 20 s)
        started = time.monotonic()
        code, errors = process.terminate()
        waiter.join(timeout=10)
        assert answers == [200]  # answered at once, not cut off
        assert time.monotonic() - started < 15
    assert code in (0, -15) and "Traceback" not in errors and '"message": "stopped"' in errors


# -- the bytes the server sends ------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["short", "standard"])
def test_the_servers_writer_sends_exactly_the_librarys_canonical_json(variant: str) -> None:
    """`requests.encode` (orjson) and the library's `canonical_json` write the same bytes, for every
    document the server sends over whole games: each seat's and a spectator's view at every seq, each
    answer to an action (verdict, view, events), the redacted record, and refusals."""
    from abyss_rules.events import apply_with_events
    from abyss_rules.protocol import Verdict
    from abyss_rules.records import Record

    for seed in range(4):
        rng = random.Random(seed)
        record = Record.start(3, ar.Variant.presets()[variant], seed)
        state = record.initial_state()
        docs: list[Any] = []
        while not state.is_over and state.seq < 400:
            docs += [view_to_dict(ar.view(state, seat)) for seat in (None, 0, 1, 2)]
            public = ar.view(state)
            seat = public.turn if public.turn is not None else public.owing_flips[0]
            action = rng.choice(ar.view(state, seat).legal_actions)
            state, events = apply_with_events(state, action)
            record = record.with_actions(action)
            verdict = Verdict(True, None, None, "legal", state.seq - 1, None, f"r{state.seq}", action)
            docs.append({"verdict": verdict.to_dict(), "view": view_to_dict(ar.view(state, seat)),
                         "events": events_to_dict(events, action=action, seq=state.seq)})
        docs += [record.redact().to_dict(), {"type": "end"}, {"over": state.is_over, "seats": []},
                 Verdict(False, "stale_action", "8.3", "é ✓ \u2028 \x1f \"quoted\"", 3, "/seq", 7).to_dict()]
        for doc in docs:
            assert encode(doc) == canonical_json(doc).encode("utf-8")
    assert encode({"seed": 2**200}) == canonical_json({"seed": 2**200}).encode("utf-8")  # past 64 bits
