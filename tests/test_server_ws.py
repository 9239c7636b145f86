"""The server's WebSocket (`/games/{id}/ws`) with real clients: the hello, actions answered by verdicts
that echo the request id, every move pushed to every connection of the game (seats and spectators),
reconnects that get the current view, and refusals that leave the game unharmed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.servers import Served
from websockets.sync.client import ClientConnection, connect

import abyss_rules as ar
from abyss_rules.bots import GreedyBot
from abyss_rules.codec import action_to_dict, view_from_dict, view_to_dict
from abyss_rules.public_table import PublicTable, apply_events
from abyss_rules.serve.client import Client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with Served(tmp_path_factory.mktemp("ws"), "--client-games", "0", "--workers", "2") as running:
        yield running


def _socket(server: Served, game: str, token: str | None) -> ClientConnection:
    ws = connect(server.url.replace("http://", "ws://") + f"/games/{game}/ws", open_timeout=10, legacy=True)
    ws.send(json.dumps({"token": token}))
    return ws


def _receive(ws: ClientConnection) -> dict[str, Any]:
    return json.loads(ws.recv(timeout=20))  # type: ignore[no-any-return]


@pytest.mark.rule("8.2", "8.3")
def test_bots_play_a_whole_game_over_websockets_and_a_spectator_sees_every_move(server: Served) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    spectator = _socket(server, game.id, None)
    first = _receive(spectator)
    assert first["type"] == "view" and first["view"] == view_to_dict(game.view)
    seats = [_socket(server, game.id, token) for token in game.tokens]
    views = [view_from_dict(_receive(ws)["view"]) for ws in seats]
    assert [view.viewer for view in views] == [0, 1]
    bots, pushed, sent = [GreedyBot(), GreedyBot()], [0, 0], 0
    table = PublicTable.from_view(views[0])
    while not views[0].is_over:
        seat = next(seat for seat in (0, 1) if views[seat].legal_actions)
        doc = action_to_dict(bots[seat].choose(views[seat]), seq=views[seat].seq, request_id=f"m{sent}")
        seats[seat].send(json.dumps(doc))
        sent += 1
        # the verdict (echoing the request id and the action) and the move, pushed to both seats
        for index in (0, 1):
            kinds = {"update", "verdict"} if index == seat else {"update"}
            while kinds:  # the acting seat gets its verdict and the move, in either order
                message = _receive(seats[index])
                if message["type"] == "end":  # after the game's last move
                    assert views[index].is_over or "update" in kinds
                    continue
                assert message["type"] in kinds, (index, seat, message, kinds)
                kinds.remove(message["type"])
                if message["type"] == "verdict":
                    assert message["status"] == 200
                    verdict = message["verdict"]
                    assert verdict["legal"] and verdict["request_id"] == f"m{sent - 1}"
                    assert verdict["action"] == {k: v for k, v in doc.items()
                                                 if k in ("type", "player", "row", "col")}
                    continue
                views[index] = view_from_dict(message["view"])
                pushed[index] += 1
                if index == 0:
                    table = apply_events(table, message["events"])  # a client follows the events
    assert pushed == [sent, sent] and table.over and table.winners == views[0].winners
    record = server.full_record(game.id)
    states = list(record.states())
    assert len(record.actions) == sent and views[1] == ar.view(states[-1], 1)
    seen = 0
    while True:  # the spectator got every move, then the end
        message = _receive(spectator)
        if message["type"] == "end":
            break
        seen += 1
        assert message["view"] == view_to_dict(ar.view(states[message["view"]["seq"]]))
    assert seen == sent
    text = json.dumps(message)
    assert record.seed is not None and record.seed.hex() not in text
    for ws in [*seats, spectator]:
        ws.close()


def test_refusals_echo_the_request_id_and_change_nothing(server: Served) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    ws = _socket(server, game.id, game.tokens[0])
    view = view_from_dict(_receive(ws)["view"])
    flip = view.legal_actions[0]
    cases: list[tuple[str, int, str]] = [
        (json.dumps(action_to_dict(flip, seq=view.seq + 3, request_id="a")), 409, "stale_action"),
        (json.dumps(action_to_dict(ar.Flip(1, 0, 0), seq=view.seq, request_id="b")), 403, "seat_mismatch"),
        (json.dumps({**action_to_dict(flip, seq=view.seq, request_id="c"), "row": "0"}), 400,
         "wrong_type"),
        ("0f00", 400, "invalid_json"),  # text that is not JSON: not read as notation here
        ("{", 400, "invalid_json"),
    ]
    for text, status, code in cases:
        ws.send(text)
        answer = _receive(ws)
        assert answer["type"] == "verdict" and answer["status"] == status, answer
        assert answer["verdict"]["code"] == code
        if code in ("stale_action", "seat_mismatch", "wrong_type"):
            assert answer["verdict"]["request_id"] == json.loads(text)["request_id"]
    assert server.game_state(game.id).seq == 0
    ws.send(json.dumps(action_to_dict(flip, seq=0, request_id=7)))
    both = {message["type"]: message for message in (_receive(ws), _receive(ws))}  # in either order
    assert both["verdict"]["verdict"]["legal"] and both["verdict"]["verdict"]["request_id"] == 7
    assert both["update"]["view"]["seq"] == 1
    ws.close()
    spectator = _socket(server, game.id, None)
    assert _receive(spectator)["view"]["seq"] == 1
    spectator.send(json.dumps(action_to_dict(ar.Flip(1, 0, 0), seq=1)))
    answer = _receive(spectator)
    assert (answer["status"], answer["verdict"]["code"]) == (403, "spectator")
    spectator.close()


def test_a_reconnect_gets_the_current_view(server: Served) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
        ws = _socket(server, game.id, game.tokens[1])
        assert _receive(ws)["view"]["seq"] == 0
        ws.close()
        for seat in (0, 1, 0):  # moves made while seat 1 is away
            mine = client.view(game.id, game.tokens[seat])
            client.act(game.id, game.tokens[seat], mine.legal_actions[-1], seq=mine.seq)
        again = _socket(server, game.id, game.tokens[1])
        message = _receive(again)
        assert message["type"] == "view"
        assert view_from_dict(message["view"]) == client.view(game.id, game.tokens[1])
        again.close()


@pytest.mark.parametrize("hello", ['{"token": "nope"}', '{"token": 5}', "not json",
                                   '{"token": "' + "x" * 2000 + '"}'])
def test_a_bad_hello_is_refused_and_closed(server: Served, hello: str) -> None:
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    ws = connect(server.url.replace("http://", "ws://") + f"/games/{game.id}/ws", open_timeout=10,
                 legacy=True)
    ws.send(hello)
    messages = []
    try:
        while True:
            messages.append(json.loads(ws.recv(timeout=10)))
    except Exception:
        pass
    assert ws.close_code == 1008
    assert all(message["type"] == "error" and message["status"] == 401 for message in messages)
    unknown = connect(server.url.replace("http://", "ws://") + "/games/0123456789abcdef/ws", open_timeout=10,
                      legacy=True)
    unknown.send('{"token": null}')
    assert json.loads(unknown.recv(timeout=10))["verdict"]["code"] == "no_such_game"


def test_moves_made_through_the_other_worker_are_pushed(server: Served) -> None:
    # --workers 2: connections land on either process; pushes cross them through the database
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    sockets = [_socket(server, game.id, None) for _ in range(6)]
    for ws in sockets:
        assert _receive(ws)["type"] == "view"
    errors: list[BaseException] = []

    def play() -> None:
        try:
            for index in range(4):
                with Client(server.url) as fresh:  # a new connection each time: any worker
                    seat = index % 2
                    mine = fresh.view(game.id, game.tokens[seat])
                    fresh.act(game.id, game.tokens[seat], mine.legal_actions[0], seq=mine.seq)
        except BaseException as error:
            errors.append(error)

    player = threading.Thread(target=play)
    player.start()
    player.join(timeout=30)
    assert not errors
    for ws in sockets:
        assert [_receive(ws)["view"]["seq"] for _ in range(4)] == [1, 2, 3, 4]
        ws.close()


def test_the_page_file_is_packaged() -> None:
    assert (Path(ar.__file__).parent / "serve" / "page.html").is_file()


def test_two_workers_race_at_one_seq(server: Served) -> None:
    """Eight fresh connections (spread over the 2 workers) post one legal action at the same seq."""
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    view = game.view
    for _ in range(3):  # three races in a row, in the opening (where both seats may act)
        seat = view.owing_flips[0]
        with Client(server.url) as client:
            mine = client.view(game.id, game.tokens[seat])
        doc = action_to_dict(mine.legal_actions[0], seq=mine.seq)
        barrier = threading.Barrier(8)
        answers: list[tuple[int, str | None]] = []

        def racer(doc: dict[str, Any] = doc, token: str | None = game.tokens[seat],
                  barrier: threading.Barrier = barrier,
                  answers: list[tuple[int, str | None]] = answers) -> None:
            with Client(server.url) as fresh:
                fresh.request("GET", "/health")  # connected (to either worker) before the race
                barrier.wait(timeout=20)
                response = fresh.request("POST", f"/games/{game.id}/actions", doc, token=token)
                answers.append((response.status, response.json().get("code")))

        threads = [threading.Thread(target=racer) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(answers) == [(200, None)] + [(409, "stale_action")] * 7
        with Client(server.url) as client:
            view = client.view(game.id)
        assert view.seq == mine.seq + 1
    record = server.full_record(game.id)
    assert len(record.actions) == 3 and record.replay().seq == 3
