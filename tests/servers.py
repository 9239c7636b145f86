"""Helpers for the server's tests: server processes, and a PostgreSQL server on loopback.

`ServerProcess` runs `python -m abyss_rules serve --db URL --port 0` (uvicorn, the shipped server)
as a real program and reads the URL from its first line. `postgres_cluster()` starts a throwaway
PostgreSQL (tests/tempdb.py) for a test session, or uses the one named by `ABYSS_TEST_POSTGRES_URL`;
where PostgreSQL cannot be had, the tests that need it are skipped with a loud reason (and fail
under CI=true, where .ci/run installs it).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.tempdb import PostgresUnavailable, TemporaryPostgres

ROOT = Path(__file__).resolve().parent.parent


def read_stream(url: str, game: str, token: str | None, out: list[tuple[str, int, Any]], count: int,
                headers: dict[str, str] | None = None, query: str = "") -> None:
    """Read `count` messages (or until `end`) of a game's event stream into `out`: (event, id, data)."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    sent = {"Accept": "text/event-stream", **(headers or {})}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    connection.request("GET", f"/games/{game}/events{query}", headers=sent)
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/event-stream")
    fields: dict[str, str] = {}
    try:
        while len(out) < count:
            line = response.fp.readline().decode("utf-8")
            if not line:
                return
            line = line.rstrip("\n")
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(": ")
                fields[name] = value
                continue
            if "event" in fields:
                out.append((fields["event"], int(fields.get("id", "-1")), json.loads(fields["data"])))
                if fields["event"] == "end":
                    return
            fields = {}
    finally:
        connection.close()


def wait_for(condition: Callable[[], object], timeout: float = 20) -> None:
    """Wait until `condition()` is true (fail after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.02)


class ServerProcess:
    """`python -m abyss_rules serve` as a separate process, on a free loopback port."""

    def __init__(self, db: str, *options: str, quiet: bool = True) -> None:
        command = [sys.executable, "-m", "abyss_rules", "serve", "--db", db, "--port", "0", "--bot-delay",
                   "0", "--poll-interval", "0.05", *(["--quiet"] if quiet else []), *options]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            self.first_line = self._first_line(60)
            match = re.search(r"http://127\.0\.0\.1:(\d+)", self.first_line)
            assert match, self.first_line
        except BaseException:
            self.kill()
            raise
        self.url = match.group(0)
        self.port = int(match.group(1))

    def _first_line(self, timeout: float) -> str:
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                raise AssertionError(f"the server printed nothing in {timeout} s")
        line = self.process.stdout.readline()
        if not line:
            _, errors = self.process.communicate(timeout=10)
            raise AssertionError(f"the server exited: {errors}")
        return line

    def kill(self) -> None:
        """SIGKILL to the server and its worker processes: no chance to clean up (a crash, the OOM killer)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # its own session: the workers too, nothing else
        self.process.communicate(timeout=30)

    def terminate(self, timeout: float = 30) -> tuple[int, str]:
        """SIGTERM, then wait: the exit code and what it printed to stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        _, errors = self.process.communicate(timeout=timeout)
        return self.process.returncode, errors

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def postgres_cluster() -> Iterator[Any]:
    """A PostgreSQL server for the session: (`create_database`, `drop_database`) or a skip.

    `ABYSS_TEST_POSTGRES_URL` (an admin URL such as postgresql://postgres@127.0.0.1/postgres)
    points the tests at a server you run; otherwise a throwaway one is started on 127.0.0.1.
    """
    given = os.environ.get("ABYSS_TEST_POSTGRES_URL")
    if given:
        yield _External(given)
        return
    try:
        cluster = TemporaryPostgres()
        cluster.start()
    except PostgresUnavailable as error:
        message = (f"POSTGRESQL TESTS SKIPPED: {error}. Install it (apt-get install postgresql) or set "
                   "ABYSS_TEST_POSTGRES_URL; .ci/run installs it.")
        print(f"\n{'!' * 20} {message} {'!' * 20}", file=sys.stderr)
        if os.environ.get("ABYSS_REQUIRE_POSTGRES"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield cluster
    finally:
        cluster.stop()


class _External:
    """A PostgreSQL server run by someone else: databases are created on it and dropped after."""

    def __init__(self, url: str) -> None:
        self.admin = url

    def _execute(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as connection:
            connection.execute(statement)  # type: ignore[arg-type]

    def create_database(self) -> str:
        import uuid

        name = f"abyss_{uuid.uuid4().hex[:12]}"
        self._execute(f'CREATE DATABASE "{name}"')
        return self.admin.rsplit("/", 1)[0] + "/" + name

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        self._execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        self._execute(f'DROP DATABASE IF EXISTS "{name}"')


class Served(ServerProcess):
    """A server process on a SQLite file, and what an operator can read of its database (never a client).

    `game_ids`, `game_state` and `full_record` read the database directly, through the server's own
    store: the authoritative facts the tests compare every response with.
    """

    def __init__(self, directory: Path, *options: str, quiet: bool = True) -> None:
        self.db = f"sqlite:///{directory / 'games.db'}"
        super().__init__(self.db, *options, quiet=quiet)
        from abyss_rules.serve._games import Games, Limits
        from abyss_rules.serve._store import open_store

        self.games = Games(open_store(self.db), Limits(finished_ttl=1e9, idle_ttl=1e9))

    def game_ids(self) -> tuple[str, ...]:
        return tuple(self.games.store.game_ids())

    def game_state(self, game: str) -> Any:
        return self.games.state(game)

    def full_record(self, game: str) -> Any:
        return self.games.record(game)

    def kill(self) -> None:
        super().kill()
        if hasattr(self, "games"):
            self.games.store.close()
