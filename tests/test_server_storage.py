"""The server's storage, with real processes (uvicorn), real HTTP and a real database.

Every test runs twice: on a SQLite file and on a PostgreSQL server started on loopback in a
temporary directory (skipped, loudly, only where PostgreSQL cannot be installed). Bots play whole
games; a server is killed with SIGKILL mid-game and restarted on the same database; two processes
race actions at one seq; games expire; the creation limits hold across processes; tokens are
stored only as hashes.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.servers import ServerProcess, postgres_cluster, read_stream, wait_for

import abyss_rules as ar
from abyss_rules.bots import CountingBot, GreedyBot, RandomBot
from abyss_rules.codec import action_to_dict, events_to_dict, view_to_dict
from abyss_rules.notation import parse_notation
from abyss_rules.serve.client import Client, ServerError, play, play_concurrently


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    yield from postgres_cluster()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database's URL: a SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
        return
    cluster = request.getfixturevalue("postgres")
    url = cluster.create_database()
    try:
        yield url
    finally:
        cluster.drop_database(url)


def rows(db: str, query: str) -> list[tuple[Any, ...]]:
    """Read the database directly (as an operator would)."""
    if db.startswith("sqlite:///"):
        with sqlite3.connect(db[len("sqlite:///"):]) as connection:
            return connection.execute(query).fetchall()
    import psycopg

    with psycopg.connect(db) as connection:
        return connection.execute(query).fetchall()  # type: ignore[arg-type]


def full_record(db: str, game: str) -> ar.Record:
    """The game's full record (seed included), read from the database directly."""
    ((start,),) = rows(db, f"SELECT start FROM games WHERE id = '{game}'")
    actions = rows(db, f"SELECT action FROM actions WHERE game = '{game}' ORDER BY seq")
    return ar.Record.from_json(start).with_actions(*(parse_notation(text) for (text,) in actions))


def test_bots_play_whole_games_and_tokens_are_stored_as_hashes(db: str) -> None:
    with ServerProcess(db) as server:
        first = play(server.url, [GreedyBot(), CountingBot()], "short")
        second = play_concurrently(server.url, [RandomBot(1), GreedyBot(), CountingBot()], "short",
                                   timeout=90)
        with Client(server.url) as client:
            for outcome in (first, second):
                final = client.view(outcome.game.id)
                assert final.is_over and final == outcome.final
                record = client.record(outcome.game.id)
                assert len(record.actions) == outcome.actions == final.seq
    stored = rows(db, "SELECT game, seat, token_hash FROM seats ORDER BY game, seat")
    tokens = {(outcome.game.id, seat): token for outcome in (first, second)
              for seat, token in enumerate(outcome.game.tokens)}
    assert len(stored) == len(tokens) == 5
    for game, seat, token_hash in stored:
        assert token_hash == hashlib.sha256(tokens[(game, seat)].encode()).hexdigest()
    dump = json.dumps([rows(db, f"SELECT * FROM {table}") for table in ("games", "seats", "actions")])
    assert not any(token in dump for token in tokens.values())  # never in clear
    (count,) = rows(db, "SELECT count(*) FROM actions")[0]
    assert count == first.actions + second.actions


def test_a_hard_kill_loses_no_accepted_action(db: str) -> None:
    """SIGKILL while a client is posting moves; after a restart every acknowledged move is there."""
    server = ServerProcess(db)
    with Client(server.url) as client:
        game = client.create_game(2, "short")
    bots = [RandomBot(1), RandomBot(2)]
    acknowledged: list[int] = []  # the seq of each action the server answered 200
    stop = threading.Event()

    def player() -> None:
        with Client(server.url, timeout=5) as mine:
            try:
                while not stop.is_set():
                    view = mine.view(game.id)
                    seat = view.turn if view.turn is not None else view.owing_flips[0]
                    token = game.tokens[seat]
                    assert token is not None
                    seen = mine.view(game.id, token)
                    after, _ = mine.act(game.id, token, bots[seat].choose(seen), seq=seen.seq)
                    acknowledged.append(after.seq)
            except (OSError, http.client.HTTPException, ServerError):
                pass  # the server is gone (a response cut short is an IncompleteRead, no OSError)

    thread = threading.Thread(target=player)
    thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 25 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()  # mid-game, with a request probably in flight
    stop.set()
    thread.join(timeout=30)
    assert len(acknowledged) >= 25
    with ServerProcess(db) as restarted, Client(restarted.url) as client:
        view = client.view(game.id)
        record = client.record(game.id)
        # Every acknowledged action is stored (at most the one in flight was stored unanswered).
        assert view.seq >= acknowledged[-1] and view.seq <= acknowledged[-1] + 1
        assert len(record.actions) == view.seq
        # The game goes on from where it was: the same tokens, to its end.
        for _ in range(3000):
            view = client.view(game.id)
            if view.is_over:
                break
            seat = view.turn if view.turn is not None else view.owing_flips[0]
            token = game.tokens[seat]
            assert token is not None
            mine = client.view(game.id, token)
            client.act(game.id, token, bots[seat].choose(mine), seq=mine.seq)
        assert view.is_over
        assert len(client.record(game.id).actions) == view.seq


def _to_turn(client: Client, game: Any) -> ar.View:
    """Play the opening flips; the turn player's view."""
    view = game.view
    while view.turn is None:
        seat = view.owing_flips[0]
        mine = client.view(game.id, game.tokens[seat])
        view, _ = client.act(game.id, game.tokens[seat], mine.legal_actions[0], seq=mine.seq)
    return client.view(game.id, game.tokens[view.turn])


def test_two_processes_race_at_one_seq(db: str) -> None:
    """Eight connections, four to each of two processes, post one legal action at the same seq."""
    with ServerProcess(db) as one, ServerProcess(db) as two:
        with Client(one.url) as client:
            game = client.create_game(2, "short")
            view = _to_turn(client, game)
        for _ in range(4):  # four races in a row, at four seqs
            token = game.tokens[view.turn]
            doc = action_to_dict(view.legal_actions[0], seq=view.seq)
            barrier = threading.Barrier(8)
            answers: list[tuple[int, str | None]] = []

            def racer(url: str, token: str, doc: dict[str, Any], barrier: threading.Barrier,
                      answers: list[tuple[int, str | None]]) -> None:
                with Client(url) as mine:
                    mine.view(game.id)  # connected before the race
                    barrier.wait(timeout=20)
                    response = mine.request("POST", f"/games/{game.id}/actions", doc, token=token)
                    answers.append((response.status, response.json().get("code")))

            threads = [threading.Thread(target=racer, args=(url, token, doc, barrier, answers))
                       for url in [one.url, two.url] * 4]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            assert sorted(answers) == [(200, None)] + [(409, "stale_action")] * 7
            with Client(two.url) as client:
                after = client.view(game.id)
                assert after.seq == view.seq + 1
                assert len(client.record(game.id).actions) == after.seq
                turn = after.turn if after.turn is not None else 0
                view = client.view(game.id, game.tokens[turn])
    full = full_record(db, game.id)
    assert len(full.actions) == view.seq and full.replay().seq == view.seq


def test_bots_left_waiting_by_a_killed_process_are_played_by_another(db: str) -> None:
    with ServerProcess(db, "--bot-delay", "30") as first, Client(first.url) as client:
        game = client.create_game(2, "short", bots=[None, "greedy"])
        first.kill()  # before its bot (waiting 30 s) made its opening flips
    with ServerProcess(db) as second, Client(second.url) as client:
        # The sweeper of the new process finds the game waiting for a bot, idle for 2 s, and plays it.
        wait_for(lambda: 1 not in client.view(game.id).owing_flips, timeout=30)
        view = client.view(game.id, game.tokens[0])
        assert view.seq == 2 and view.owing_flips == (0,)
        record = client.record(game.id)
        assert [action.player for action in record.actions] == [1, 1]


def _gone(client: Client, game: str) -> bool:
    response = client.request("GET", f"/games/{game}/view")
    assert response.status in (200, 404), response.body
    return response.status == 404 and response.json()["code"] == "no_such_game"


def test_finished_and_idle_games_expire(db: str) -> None:
    with ServerProcess(db, "--finished-ttl", "1", "--idle-ttl", "3") as server, Client(server.url) as client:
        finished = play(server.url, [GreedyBot(), GreedyBot()], "short").game.id
        idle = client.create_game(2, "short").id
        followed: list[tuple[str, int, Any]] = []  # a spectator follows the idle game until it goes
        reader = threading.Thread(target=read_stream, args=(server.url, idle, None, followed, 10))
        reader.start()
        deadline = time.monotonic() + 30
        while not _gone(client, finished):
            assert time.monotonic() < deadline, "the finished game did not expire"
            time.sleep(0.1)
        assert not _gone(client, idle)  # 1 s is the finished games' time, not the idle ones'
        while not _gone(client, idle):
            assert time.monotonic() < deadline, "the idle game did not expire"
            time.sleep(0.1)
        for path in ("view", "record", "events"):
            assert client.request("GET", f"/games/{idle}/{path}").status == 404
        reader.join(timeout=10)
        assert [name for name, _, _ in followed] == ["view", "end"] and followed[-1][2] == {"over": False}
        # Refused at once; deleted by the sweeper within its interval (a quarter of the shortest ttl).
        for table, column in (("games", "id"), ("seats", "game"), ("actions", "game")):
            wait_for(lambda table=table, column=column: rows(  # type: ignore[misc]
                db, f"SELECT * FROM {table} WHERE {column} IN ('{finished}', '{idle}')") == [])


def test_the_creation_limits_hold_across_processes(db: str) -> None:
    options = ("--client-games", "3", "--client-window", "600", "--max-games", "5")
    with ServerProcess(db, *options) as one, ServerProcess(db, *options) as two:
        barrier = threading.Barrier(8)
        statuses: list[tuple[int, str | None, str | None]] = []

        def create(url: str) -> None:
            with Client(url) as mine:
                mine.request("GET", "/")  # connected before the race
                barrier.wait(timeout=20)
                response = mine.request("POST", "/games", {"players": 2, "variant": "short"})
                statuses.append((response.status, (response.json() or {}).get("code"),
                                 response.headers.get("Retry-After")))

        threads = [threading.Thread(target=create, args=(url,)) for url in [one.url, two.url] * 4]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        created = [s for s in statuses if s[0] == 201]
        refused = [s for s in statuses if s[0] != 201]
        assert len(created) == 3  # one client (127.0.0.1): 3 per window, whichever process it asks
        assert {(status, code) for status, code, _ in refused} == {(429, "too_many_games")}
        assert all(retry is not None and int(retry) > 0 for _, _, retry in refused)
    (count,) = rows(db, "SELECT count(*) FROM games")[0]
    assert count == 3
    # The total: a fresh server with no per-client limit stops at --max-games.
    with ServerProcess(db, "--client-games", "0", "--max-games", "5") as server, Client(server.url) as client:
        answers = [client.request("POST", "/games", {"players": 2}) for _ in range(3)]
        assert [a.status for a in answers] == [201, 201, 503]
        assert answers[2].json()["code"] == "server_full" and answers[2].headers["Retry-After"]


def test_an_event_stream_sees_moves_made_through_another_process(db: str) -> None:
    with ServerProcess(db) as one, ServerProcess(db) as two, Client(one.url) as client:
        game = client.create_game(2, "short")
        messages: list[tuple[str, int, Any]] = []
        reader = threading.Thread(target=read_stream, args=(two.url, game.id, game.tokens[1], messages, 4))
        reader.start()
        wait_for(lambda: messages)  # the stream has started
        for seat in (0, 1, 0):
            mine = client.view(game.id, game.tokens[seat])
            flip = next(a for a in mine.legal_actions if a.player == seat)
            client.act(game.id, game.tokens[seat], flip, seq=mine.seq)
        reader.join(timeout=30)
        record = client.record(game.id)
    assert [(name, seq) for name, seq, _ in messages] == [("view", 0), ("action", 1), ("action", 2),
                                                           ("action", 3)]
    full = full_record(db, game.id)
    assert full.notation() == record.notation()
    states = list(full.states())
    assert messages[0][2] == view_to_dict(ar.view(states[0], 1))
    for (_, seq, doc), action in zip(messages[1:], full.actions, strict=True):
        assert doc["view"] == view_to_dict(ar.view(states[seq], 1))  # what seat 1 may see, no more
        _, events = ar.apply_with_events(states[seq - 1], action)
        assert doc["events"] == events_to_dict(events, action=action, seq=seq)
