"""The server (`abyss-rules serve`, uvicorn) over real HTTP on 127.0.0.1, as a separate process.

Bots play whole games through the server (2 players one request at a time, 4 players in
concurrent threads); every kind of bad request gets its documented status and code and leaves
the game unharmed; no response ever carries a face-down value, the draw pile or the seed -- each
view and events document received is compared with the library's own, computed from the
server's authoritative state. The server also runs once as a real program.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.servers import Served

import abyss_rules as ar
from abyss_rules.bots import CountingBot, GreedyBot, RandomBot
from abyss_rules.codec import action_to_dict, events_to_dict, state_hash, variant_to_dict, view_to_dict
from abyss_rules.errors import RULE_OF_CODE
from abyss_rules.notation import to_notation
from abyss_rules.serve._settings import Settings
from abyss_rules.serve.client import Client, Response, play, play_concurrently

DEFAULT_MAX_BODY = Settings().max_body
GameServer = Served


def ROOT_TMP() -> Path:
    return Path(tempfile.mkdtemp(prefix="abyss-server-"))

SHORT = ar.Variant.short()

Seen = list[tuple[str, str, Response]]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GameServer]:
    """One server process for the module, on a free loopback port; defaults but for quiet."""
    with Served(tmp_path_factory.mktemp("server"), "--long-poll", "5", "--client-games", "0") as running:
        yield running


@pytest.fixture
def seen() -> Seen:
    """Every response a test's clients received (filled by `Client(observer=...)`)."""
    return []


def observer(seen: Seen) -> Callable[[str, str, Response], None]:
    return lambda method, path, response: seen.append((method, path, response))


# -- the secrecy check: every response against the server's authoritative state ------------------

def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def assert_public(server: GameServer, seen: Seen) -> None:
    """No response holds a seed, a face-down value or the draw pile (rules 8.2, 8.3).

    Each view received must be exactly `ar.view` of the authoritative state at its seq for its
    viewer, and each events document exactly the library's events of that action.
    """
    assert seen, "no response to check"
    records = {game: server.full_record(game) for game in server.game_ids()}
    states = {game: list(record.states()) for game, record in records.items()}
    seeds = [record.seed for record in records.values() if record.seed is not None]
    secret_texts = [seed.hex() for seed in seeds] + [str(int.from_bytes(seed, "big")) for seed in seeds
                                                     if int.from_bytes(seed, "big") >= 10**12]
    views = 0
    for method, path, response in seen:
        text = response.body.decode("utf-8")
        for secret in secret_texts:
            assert secret not in text, f"{method} {path} sent a seed"
        doc = json.loads(text)
        assert not {"draw_pile", "dealer"} & set(_keys(doc)), f"{method} {path} sent state fields"
        if response.status >= 400:
            assert doc["format"] == "verdict" and doc["legal"] is False and doc["code"], doc
            continue
        game = doc["game"] if path == "/games" else path.split("/")[2]
        if doc.get("format") == "record":
            assert doc["seed"] is None and doc["decks"] is None
        for view in [doc] if doc.get("format") == "view" else [doc["view"]] if "view" in doc else []:
            state = states[game][view["seq"]]
            assert view == view_to_dict(ar.view(state, view["viewer"])), f"{method} {path}"
            for grid in view["grids"]:
                assert all(space["card"] is None for space in grid if not space["face_up"])
            views += 1
        if "events" in doc:
            seq = doc["events"]["seq"]
            action = records[game].actions[seq - 1]
            _, events = ar.apply_with_events(states[game][seq - 1], action)
            assert doc["events"] == events_to_dict(events, action=action, seq=seq)
    assert views, "no view among the responses"


def assert_consistent(server: GameServer, game: str) -> None:
    """The server's state is the replay of its record: every action it accepted, in order."""
    state = server.game_state(game)
    record = server.full_record(game)
    assert record.replay() == state
    assert len(record.actions) == state.seq


# -- whole games -----------------------------------------------------------------------------------

def test_the_server_binds_loopback_by_default(server: GameServer) -> None:
    assert server.url.startswith("http://127.0.0.1:") and "1 worker(s)" in server.first_line


@pytest.mark.rule("8.2", "8.3")
def test_two_bots_play_a_short_game_over_http(server: GameServer, seen: Seen) -> None:
    outcome = play(server.url, [GreedyBot(), CountingBot()], "short", observer=observer(seen))
    state = server.game_state(outcome.game.id)
    assert outcome.final.is_over and state.is_over
    assert outcome.final == ar.view(state)
    assert outcome.actions == state.seq
    assert_consistent(server, outcome.game.id)
    assert_public(server, seen)


@pytest.mark.rule("2.2", "8.2", "8.3")
def test_four_bots_play_concurrently_over_http(server: GameServer, seen: Seen) -> None:
    bots = [GreedyBot(), CountingBot(), RandomBot(3), GreedyBot()]
    outcome = play_concurrently(server.url, bots, "short", observer=observer(seen), timeout=60)
    state = server.game_state(outcome.game.id)
    assert state.is_over and outcome.final == ar.view(state)
    assert outcome.actions == state.seq  # stale actions were refused, never applied
    assert_consistent(server, outcome.game.id)
    assert_public(server, seen)


def test_the_record_is_redacted(server: GameServer) -> None:
    outcome = play(server.url, [RandomBot(1), RandomBot(2)], "short")
    with Client(server.url) as client:
        doc = client.call("GET", f"/games/{outcome.game.id}/record")
        record = client.record(outcome.game.id)
    full = server.full_record(outcome.game.id)
    assert doc["seed"] is None and doc["decks"] is None
    assert record == full.redact() and record.is_redacted
    assert record.notation() == full.notation() and len(record.actions) == outcome.actions


@pytest.mark.rule("9.1")
def test_a_seed_is_used_only_when_the_server_allows_it(server: GameServer) -> None:
    with Client(server.url) as client:
        refused = client.request("POST", "/games", {"players": 2, "seed": 42})
    assert refused.status == 403
    assert (refused.json()["code"], refused.json()["path"]) == ("seed_not_allowed", "/seed")

    seed = 2**200 + 12345
    seen: Seen = []
    with Served(ROOT_TMP(), "--allow-seed") as seeded:
        outcome = play(seeded.url, [GreedyBot(), GreedyBot()], SHORT, seed=seed, observer=observer(seen))
        assert outcome.game.view == ar.view(ar.new_game(2, SHORT, seed))  # dealt from that seed
        assert seeded.full_record(outcome.game.id).seed == seed.to_bytes(32, "big")
        assert_consistent(seeded, outcome.game.id)
        with Client(seeded.url, observer=observer(seen)) as client:
            for bad in (-1, 2**256):
                response = client.request("POST", "/games", {"players": 2, "seed": bad})
                assert response.status == 400, bad
                assert (response.json()["code"], response.json()["path"]) == ("invalid_seed", "/seed")
        assert_public(seeded, seen)  # the seed is never echoed


# -- bad requests --------------------------------------------------------------------------------

class Table(NamedTuple):
    """A game in its first turn: the seat to play (`turn`) and the other seat (`other`)."""

    client: Client
    game: str
    tokens: tuple[str, ...]
    turn: int
    other: int
    view: ar.View
    """The turn player's view."""

    @property
    def actions(self) -> str:
        return f"/games/{self.game}/actions"

    def flip(self) -> ar.Flip:
        """A legal flip of the turn player (rule 3.7)."""
        return next(action for action in self.view.legal_actions if isinstance(action, ar.Flip))

    def doc(self, **changes: Any) -> dict[str, Any]:
        """The turn player's legal flip as an action document, with `changes`."""
        doc = action_to_dict(self.flip(), seq=self.view.seq)
        doc.update(changes)
        return doc

    def post(
        self, doc: Any = None, *, data: bytes | None = None, token: str | None = "turn",
        headers: dict[str, str] | None = None, path: str | None = None, method: str = "POST",
    ) -> Response:
        """Send a request as the turn player (`token="other"`: the other seat; else that token)."""
        sent = {"turn": self.tokens[self.turn], "other": self.tokens[self.other]}.get(token or "", token)
        if doc is None and data is None:
            return self.client.request(method, path or self.actions, token=sent, headers=headers)
        if data is not None:
            return self.client.request(method, path or self.actions, data=data, token=sent, headers=headers)
        return self.client.request(method, path or self.actions, doc, token=sent, headers=headers)


def start(client: Client) -> Table:
    """A new 2-player short game, its opening played over HTTP."""
    game = client.create_game(2, "short")
    bots = [RandomBot(0), RandomBot(1)]
    view = game.view
    while view.turn is None:
        seat = view.owing_flips[0]
        mine = client.view(game.id, game.tokens[seat])
        view, _ = client.act(game.id, game.tokens[seat], bots[seat].choose(mine), seq=mine.seq)
    turn = view.turn
    return Table(client, game.id, game.tokens, turn, 1 - turn, client.view(game.id, game.tokens[turn]))


def finish(table: Table) -> ar.View:
    """Play the game to its end over HTTP (random bots); the final spectator view."""
    bots = [RandomBot(5), RandomBot(6)]
    client = table.client
    for _ in range(2000):
        view = client.view(table.game)
        if view.is_over:
            return view
        seat = view.turn if view.turn is not None else view.owing_flips[0]
        mine = client.view(table.game, table.tokens[seat])
        client.act(table.game, table.tokens[seat], bots[seat].choose(mine), seq=mine.seq)
    raise AssertionError("the game did not end")


def _face_up_space(table: Table) -> tuple[int, int]:
    grid = table.view.grids[table.turn]
    space = grid.face_up.index(True)
    return divmod(space, grid.cols)


def _face_down_of_other(table: Table) -> ar.Flip:
    grid = table.view.grids[table.other]
    row, col = divmod(grid.face_up.index(False), grid.cols)
    return ar.Flip(table.other, row, col)


def _other_token(table: Table) -> str:
    return table.client.create_game(2, "short").tokens[table.turn]


BAD: dict[str, tuple[Callable[[Table], Response], int, str, str | None]] = {
    # name: (request, status, code, path)
    "malformed JSON": (lambda t: t.post(data=b'{"type": "flip", "player": '), 400, "invalid_json", None),
    "not UTF-8": (lambda t: t.post(data=b'{"type": "\xff"}'), 400, "invalid_json", None),
    "not an object": (lambda t: t.post([1, 2]), 400, "wrong_type", ""),
    "unknown field": (lambda t: t.post(t.doc(colour="red")), 400, "unknown_field", "/colour"),
    "wrong type": (lambda t: t.post(t.doc(row="1")), 400, "wrong_type", "/row"),
    "missing seq": (lambda t: t.post({k: v for k, v in t.doc().items() if k != "seq"}), 400,
                    "missing_field", "/seq"),
    "duplicate key": (lambda t: t.post(data=json.dumps(t.doc()).replace("{", '{"row": 0, ', 1).encode()),
                      400, "duplicate_field", None),
    "not an action document": (lambda t: t.post(t.doc(format="view")), 400, "wrong_format", "/format"),
    "bad notation": (lambda t: t.post({"notation": "0z12", "seq": t.view.seq}), 400, "bad_notation",
                     "/notation"),
    "notation with an unknown field": (lambda t: t.post({"notation": "0d", "seq": t.view.seq, "by": "me"}),
                                       400, "unknown_field", "/by"),
    "notation without seq": (lambda t: t.post({"notation": to_notation(t.flip())}), 400,
                             "missing_field", "/seq"),
    "illegal move": (lambda t: t.post(t.doc(row=_face_up_space(t)[0], col=_face_up_space(t)[1])), 409,
                     "space_face_up", None),
    "not your turn": (lambda t: t.post(action_to_dict(_face_down_of_other(t), seq=t.view.seq),
                                       token="other"), 409, "not_your_turn", None),
    "stale seq": (lambda t: t.post(t.doc(seq=t.view.seq - 1)), 409, "stale_action", None),
    "seq from the future": (lambda t: t.post(t.doc(seq=t.view.seq + 1)), 409, "stale_action", None),
    "another seat's token": (lambda t: t.post(t.doc(), token="other"), 403, "seat_mismatch", None),
    "no token": (lambda t: t.post(t.doc(), token=None), 401, "missing_token", None),
    "unknown token": (lambda t: t.post(t.doc(), token="not-a-token"), 401, "unknown_token", None),
    "another game's token": (lambda t: t.post(t.doc(), token=_other_token(t)), 401, "unknown_token", None),
    "not a bearer token": (lambda t: t.post(t.doc(), token=None, headers={"Authorization": "Basic eDp5"}),
                           401, "unknown_token", None),
    "too large a body": (lambda t: t.post(data=b" " * (DEFAULT_MAX_BODY + 1)), 413, "document_too_large",
                         None),
    "not JSON content": (lambda t: t.post(t.doc(), headers={"Content-Type": "text/plain"}), 415,
                         "unsupported_media_type", None),
    "unknown game": (lambda t: t.post(t.doc(), path="/games/0123456789abcdef/actions"), 404,
                     "no_such_game", None),
    "unknown route": (lambda t: t.post(t.doc(), path=f"/games/{t.game}/moves"), 404, "no_such_route", None),
    "GET on actions": (lambda t: t.post(method="GET"), 405, "method_not_allowed", None),
    "DELETE on view": (lambda t: t.post(method="DELETE", path=f"/games/{t.game}/view"), 405,
                       "method_not_allowed", None),
    "unknown parameter": (lambda t: t.post(method="GET", path=f"/games/{t.game}/view?seat=1"), 400,
                          "unknown_parameter", None),
    "bad long-poll seq": (lambda t: t.post(method="GET", path=f"/games/{t.game}/view?after=-1"), 400,
                          "bad_value", None),
}
@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_request_is_refused_and_the_game_goes_on(server: GameServer, seen: Seen, name: str) -> None:
    send, status, code, path = BAD[name]
    with Client(server.url, observer=observer(seen)) as client:
        table = start(client)
        before = state_hash(server.game_state(table.game))
        response = send(table)
        assert response.status == status, response.body
        verdict = response.json()
        assert verdict["format"] == "verdict" and verdict["legal"] is False
        assert verdict["code"] == code and verdict["message"]
        if path is not None:
            assert verdict["path"] == path
        if code in ("space_face_up", "not_your_turn"):
            assert verdict["rule"] == RULE_OF_CODE[code] and verdict["seq"] == table.view.seq
        if status == 401:
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
        if status == 405:
            assert response.headers["Allow"] in ("GET, HEAD", "POST")
        # Unharmed: the same state, the same view; and the game takes the legal action it was refused.
        assert state_hash(server.game_state(table.game)) == before
        assert client.view(table.game, table.tokens[table.turn]) == table.view
        view, events = client.act(table.game, table.tokens[table.turn], table.flip(), seq=table.view.seq)
        assert view.seq == table.view.seq + 1 and events["events"][0]["type"] == "card_revealed"
    assert_public(server, seen)


def test_after_every_bad_request_the_game_can_be_finished(server: GameServer, seen: Seen) -> None:
    with Client(server.url, observer=observer(seen)) as client:
        table = start(client)
        before = state_hash(server.game_state(table.game))
        for name, (send, status, code, _) in BAD.items():
            response = send(table)
            assert (response.status, response.json()["code"]) == (status, code), name
        assert state_hash(server.game_state(table.game)) == before
        final = finish(table)
    assert final.is_over and final == ar.view(server.game_state(table.game))
    assert_consistent(server, table.game)
    assert_public(server, seen)


CREATE: dict[str, tuple[Any, int, str, str | None]] = {
    # name: (body, status, code, path)
    "no players": ({"variant": "short"}, 400, "missing_field", "/players"),
    "players as a string": ({"players": "2"}, 400, "wrong_type", "/players"),
    "players as a boolean": ({"players": True}, 400, "wrong_type", "/players"),
    "too few players": ({"players": 1}, 400, "invalid_players", "/players"),
    "too many players": ({"players": 9}, 400, "invalid_players", "/players"),
    "unknown preset": ({"players": 2, "variant": "huge"}, 400, "bad_value", "/variant"),
    "variant of a wrong type": ({"players": 2, "variant": 3}, 400, "wrong_type", "/variant"),
    "invalid variant document": ({"players": 2, "variant": {**variant_to_dict(SHORT), "rows": 1}}, 400,
                                 "invalid_variant", "/variant"),
    "variant document with an unknown field": (
        {"players": 2, "variant": {**variant_to_dict(SHORT), "colour": 1}}, 400, "unknown_field",
        "/variant/colour"),
    "unknown field": ({"players": 2, "colour": "red"}, 400, "unknown_field", "/colour"),
    "not an object": ([2], 400, "wrong_type", ""),
    "seed of a wrong type": ({"players": 2, "seed": "42"}, 400, "wrong_type", "/seed"),
}


@pytest.mark.parametrize("name", list(CREATE))
def test_a_bad_game_request_is_refused(server: GameServer, name: str) -> None:
    body, status, code, path = CREATE[name]
    games = len(server.game_ids())
    with Client(server.url) as client:
        response = client.request("POST", "/games", body)
    assert response.status == status, response.body
    assert (response.json()["code"], response.json()["path"]) == (code, path)
    assert len(server.game_ids()) == games


def test_a_game_of_a_custom_variant(server: GameServer, seen: Seen) -> None:
    variant = SHORT.replace(name="small", rows=2, cols=3, initial_flips=1)
    outcome = play(server.url, [GreedyBot(), RandomBot(0), CountingBot()], variant, observer=observer(seen))
    assert outcome.final.variant == variant and outcome.final.is_over
    assert_public(server, seen)


def test_wrong_methods_and_routes_elsewhere(server: GameServer) -> None:
    with Client(server.url) as client:
        for method, path, status, code in [
            ("GET", "/games", 405, "method_not_allowed"),
            ("PUT", "/games", 405, "method_not_allowed"),
            ("GET", "/index.html", 404, "no_such_route"),
            ("GET", "/games/0123456789abcdef/view", 404, "no_such_game"),
            ("GET", "/games/nope/view", 404, "no_such_game"),
            ("GET", "/games/../etc/view", 404, "no_such_route"),
            ("GET", "/games/0123456789abcdef/record", 404, "no_such_game"),
        ]:
            response = client.request(method, path)
            assert (response.status, response.json()["code"]) == (status, code), (method, path)
        head = client.request("HEAD", "/games")
        assert head.status == 405 and head.body == b""
        unknown = client.request("BREW", "/games")  # a method the HTTP parser does not know: unreadable
        assert unknown.status == 400 and unknown.json()["code"] == "bad_request"
        webdav = client.request("PROPFIND", "/games")  # an HTTP method this route does not take
        assert webdav.status == 405 and webdav.json()["code"] == "method_not_allowed"


def test_one_action_wins_a_race(server: GameServer) -> None:
    """Eight connections post the same legal action at once: the lock lets exactly one through."""
    with Client(server.url) as client:
        table = start(client)
    barrier = threading.Barrier(8)
    statuses: list[tuple[int, str | None]] = []

    def racer() -> None:
        with Client(server.url) as mine:
            barrier.wait(timeout=10)
            response = mine.request("POST", table.actions, table.doc(), token=table.tokens[table.turn])
            statuses.append((response.status, response.json().get("code")))

    threads = [threading.Thread(target=racer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(statuses) == [(200, None)] + [(409, "stale_action")] * 7
    assert server.game_state(table.game).seq == table.view.seq + 1
    assert_consistent(server, table.game)


def test_a_long_poll_answers_when_the_game_moves(server: GameServer) -> None:
    with Client(server.url) as client:
        table = start(client)

    def move() -> None:
        time.sleep(0.2)
        with Client(server.url) as other:
            other.act(table.game, table.tokens[table.turn], table.flip(), seq=table.view.seq)

    mover = threading.Thread(target=move)
    mover.start()
    with Client(server.url) as waiting:
        view = waiting.view(table.game, table.tokens[table.other], after=table.view.seq)
    mover.join(timeout=10)
    assert view.seq == table.view.seq + 1 and view.viewer == table.other


def test_a_long_poll_times_out_with_the_current_view(tmp_path: Path) -> None:
    with Served(tmp_path, "--long-poll", "0.3") as quick, Client(quick.url) as client:
        game = client.create_game(2, "short")
        started = time.monotonic()
        view = client.view(game.id, after=0)
        assert time.monotonic() - started >= 0.25
        assert view == game.view


# -- the program -----------------------------------------------------------------------------------

def _first_line(process: subprocess.Popen[str], timeout: float) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise AssertionError(f"the server printed nothing in {timeout} s")
    return process.stdout.readline()


def test_the_server_runs_as_a_program(seen: Seen, tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "abyss_rules", "serve", "--db", f"sqlite:///{tmp_path / 'games.db'}", "--port",
         "0", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )
    try:
        line = _first_line(process, 30)
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        url = match.group(0)
        outcome = play(url, [GreedyBot(), CountingBot()], "short", observer=observer(seen))
        assert outcome.final.is_over and outcome.final.winners
        script = subprocess.run(
            [sys.executable, "-m", "abyss_rules.serve.client", url, "--bots", "random,greedy,counting"],
            capture_output=True, text=True, timeout=60,
        )
        assert script.returncode == 0, script.stderr
        assert re.fullmatch(r"game [0-9a-f]{16}: \d+ actions, 0 stale; totals \[.*\], winners \[.*\]\n",
                            script.stdout)
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=20)
    # SIGTERM stops it cleanly: uvicorn shuts the app down, then ends by the signal it got (-15)
    assert process.returncode in (0, -15), errors
    assert "Traceback" not in errors
    assert all(response.status < 400 for _, _, response in seen)


def test_bad_options_and_a_port_in_use_are_reported(server: GameServer) -> None:
    def run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "abyss_rules", "serve", *argv], capture_output=True,
                              text=True, timeout=60, env={**os.environ, **(env or {})},
                              stdin=subprocess.DEVNULL)

    busy = run("--port", str(server.port), "--db", server.db)
    assert busy.returncode == 1 and "cannot listen on 127.0.0.1" in busy.stderr
    for argv, env, words in [(("--max-body", "0"), None, "--max-body must be positive"),
                             (("--port", "70000"), None, "--port must be from 0 to 65535"),
                             (("--workers", "two"), None, "invalid"),
                             ((), {"ABYSS_MAX_BODY": "lots"}, "ABYSS_MAX_BODY"),
                             (("--db", "mysql://x"), None, "cannot open the database")]:
        result = run(*argv, env=env)
        assert result.returncode in (1, 2) and words in result.stderr, (argv, result.stderr)
    helped = run("--help")
    assert helped.returncode == 0 and "ABYSS_DB" in helped.stdout and "--max-connections" in helped.stdout


def test_the_client_retries_once_when_the_server_closed_an_idle_connection(tmp_path: Path) -> None:
    with Served(tmp_path, "--keep-alive", "1") as impatient, Client(impatient.url) as client:
        game = client.create_game(2, "short")
        time.sleep(1.5)  # the server closes the idle keep-alive connection meanwhile
        assert client.view(game.id) == game.view


def test_a_raw_http_exchange(server: GameServer) -> None:
    """What the docs show: the status line, headers and a canonical JSON body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    body = json.dumps({"players": 2, "variant": "short"})
    connection.request("POST", "/games", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    doc = json.loads(response.read())
    connection.close()
    assert response.status == 201
    assert response.getheader("Content-Type") == "application/json"
    assert response.getheader("Cache-Control") == "no-store"
    assert response.getheader("Location") == f"/games/{doc['game']}"
    assert [seat["seat"] for seat in doc["seats"]] == [0, 1]
    assert len({seat["token"] for seat in doc["seats"]}) == 2
    assert doc["view"]["viewer"] is None and doc["view"]["legal_actions"] == []
