"""Where the server keeps its games: SQLite (standard library) or PostgreSQL (psycopg 3).

Three tables, the same in both databases:

    games    one row per game: its authoritative state (secret), the record's set-up with the
             seed (secret), seq, whether it is over, which seats are bots, who created it, when
    seats    one row per seat: the SHA-256 of its bearer token (never the token itself)
    actions  one row per accepted action: (game, seq, the action in notation)

An action is stored by `commit_action`: the game's row is updated `WHERE id = ? AND seq = ?` (the
seq the action was checked against) and the action is inserted at that seq, in one transaction. If
another process (or thread) got there first, the update matches no row, nothing is written and the
caller answers `stale_action`: several server processes on one database get exactly one winner per
seq. The answer is sent only after the commit returned, so a process killed at any moment loses no
accepted action (SQLite runs in WAL mode with `synchronous=FULL`; PostgreSQL commits synchronously).

**Group commit.** Every write of a process goes through its one writer thread (`Store.write`): the
writer takes every write waiting, runs them in one transaction and commits once, so one flush to
disk acknowledges all of them; while it commits, the next writes gather. A write that fails alone
(a database error) is retried alone, so it cannot take others with it. Reads use a pool of
connections and never wait for the writer (SQLite's WAL readers, PostgreSQL's MVCC).

`open_store("sqlite:///games.db")`, `open_store("sqlite:///:memory:")` (one process, gone when
it stops) or `open_store("postgresql://user@host/dbname")` (needs the `server` extra: psycopg).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import os
import queue
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NamedTuple, TypeVar

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: SQLite's own waiting alone
    fcntl = None  # type: ignore[assignment]

__all__ = ["Full", "GameRow", "Refused", "Store", "TooMany", "hash_token", "open_store"]

T = TypeVar("T")
_Write = tuple[Callable[[Any], Any], "concurrent.futures.Future[Any]"]
"""A write waiting for the writer: the job, and the future of its result."""
MAX_BATCH: Final = 256
"""The most writes one transaction of the writer commits together."""

SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        seq BIGINT NOT NULL,
        state TEXT NOT NULL,
        start TEXT NOT NULL,
        over INTEGER NOT NULL,
        bots TEXT NOT NULL,
        waiting_bot INTEGER NOT NULL,
        creator TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        updated DOUBLE PRECISION NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS games_by_creator ON games (creator, created)",
    "CREATE INDEX IF NOT EXISTS games_by_update ON games (updated)",
    """CREATE TABLE IF NOT EXISTS seats (
        game TEXT NOT NULL,
        seat INTEGER NOT NULL,
        token_hash TEXT NOT NULL,
        PRIMARY KEY (game, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS seats_by_token ON seats (token_hash)",
    """CREATE TABLE IF NOT EXISTS actions (
        game TEXT NOT NULL,
        seq BIGINT NOT NULL,
        action TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game, seq)
    )""",
)

_ROW: Final = ("SELECT seq, CASE WHEN seq = ? THEN NULL ELSE state END, over, CASE WHEN seq = ? THEN NULL "
               "ELSE bots END, updated FROM games WHERE id = ?")


_MOVE: Final = ("UPDATE games SET seq = ?, state = ?, over = ?, waiting_bot = ?, updated = ? "
                "WHERE id = ? AND seq = ?")
_ACTION: Final = "INSERT INTO actions (game, seq, action, at) VALUES (?, ?, ?, ?)"
_MOVE_AND_ACTION: Final = (f"WITH moved AS ({_MOVE} RETURNING id) "
                           "INSERT INTO actions (game, seq, action, at) SELECT id, ?, ?, ? FROM moved")
"""`_MOVE` and `_ACTION` in one statement (PostgreSQL): the action is inserted only if the update matched."""


def hash_token(token: str) -> str:
    """The stored form of a seat's token: its SHA-256 in hex.

    Tokens are 192 random bits (`secrets.token_urlsafe(24)`), so a fast hash without salt is
    enough: nobody can find a token from its hash, and a leaked database lets nobody play.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Refused(Exception):
    """A write that decided, before writing anything, not to write (the transaction goes on for others)."""


class Full(Refused):
    """The database holds `max_games` games already (the server answers 503 `server_full`)."""


class TooMany(Refused):
    """This client created its share of games in the window (the server answers 429)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:.0f} s")
        self.retry_after = retry_after


class GameRow(NamedTuple):
    """A game as stored: its seq, its state document (secret), whether it is over, its bots."""

    seq: int
    state: str | None
    """None when the caller holds the state at `seq` already (`Store.load`'s `held`)."""
    over: bool
    bots: str | None
    """A JSON list, one entry per seat: a bot's name or null (a person); None like `state`."""
    updated: float


class Store:
    """A pool of connections to one database, and the few statements the server needs.

    Thread-safe: each read takes a connection from the pool for the duration of one transaction;
    each write is run by the writer thread (`write`), in a transaction it shares with the writes
    waiting beside it.
    """

    dialect: str = ""
    local: bool = False
    """Reads are calls into a library in this process that never wait on a lock (SQLite in WAL mode):
    the server runs them on its event loop instead of a thread."""

    def __init__(self, url: str, size: int) -> None:
        self.url = url
        self._size = size
        self._pool: queue.LifoQueue[Any] = queue.LifoQueue()
        self._made = 0
        self._lock = threading.Lock()
        self._closed = False
        self._writes: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        with self._transaction() as cursor:
            self._serialize_creations(cursor)  # two processes starting at once on a new database
            for statement in SCHEMA:
                self._run(cursor, statement)

    # -- connections (one dialect each) -----------------------------------------------------

    def _connect(self) -> Any:
        raise NotImplementedError

    def _begin(self, connection: Any, write: bool) -> Any:
        """Start a transaction; return a cursor."""
        raise NotImplementedError

    def _sql(self, statement: str) -> str:
        return statement

    def _serialize_creations(self, cursor: Any) -> None:
        """Make creations (with their limit checks) one at a time across processes."""

    def _writers_turn(self) -> contextlib.AbstractContextManager[Any]:
        """Held by the writer around each transaction: the writers of all processes take turns."""
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        try:
            connection = self._pool.get_nowait()
        except queue.Empty:
            with self._lock:
                make = self._made < self._size
                self._made += make
            connection = self._connect() if make else self._pool.get(timeout=30)
        healthy = True
        try:
            yield connection
        except BaseException as error:
            healthy = not self._is_broken(error)
            raise
        finally:
            if healthy and not self._closed:
                self._pool.put(connection)
            else:
                with self._lock:
                    self._made -= 1
                with contextlib.suppress(Exception):
                    connection.close()

    def _is_broken(self, error: BaseException) -> bool:
        return False

    @contextlib.contextmanager
    def _transaction(self, write: bool = True) -> Iterator[Any]:
        with self._connection() as connection:
            cursor = self._begin(connection, write)
            try:
                yield cursor
            except BaseException:
                with contextlib.suppress(Exception):
                    connection.rollback()
                raise
            connection.commit()

    def _run(self, cursor: Any, statement: str, params: Sequence[Any] = ()) -> Any:
        cursor.execute(self._sql(statement), tuple(params))
        return cursor

    def _read(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one read statement, outside any transaction (one round trip to the database)."""
        with self._connection() as connection:
            return list(connection.execute(self._sql(statement), tuple(params)).fetchall())

    # -- the writer ------------------------------------------------------------------------------

    def write(self, job: Callable[[Any], T]) -> concurrent.futures.Future[T]:
        """Run `job(cursor)` in the writer's next transaction; the future of its result, set once committed.

        `job` may raise `Refused` before it writes anything: that is its result, and the others commit.
        Any other error rolls the transaction back, and each of its writes is tried again alone.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the store is closed")
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="abyss-writer", daemon=True)
                self._writer.start()
            self._writes.put((job, future))
        return future

    def _write_loop(self) -> None:
        while True:
            first = self._writes.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < MAX_BATCH:
                try:
                    job = self._writes.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    self._writes.put(None)  # stop after this batch
                    break
                batch.append(job)
            try:
                self._commit(batch)
            except BaseException as error:
                if len(batch) == 1:
                    batch[0][1].set_exception(error)
                    continue
                for job in batch:  # one bad write takes no other with it
                    try:
                        self._commit([job])
                    except BaseException as alone:
                        job[1].set_exception(alone)

    def _commit(self, batch: list[_Write]) -> None:
        """Run a batch of writes in one transaction; their futures get their results once it committed."""
        outcomes: list[tuple[bool, Any]] = []
        with self._writers_turn(), self._transaction() as cursor:
            for job, _ in batch:
                try:
                    outcomes.append((True, job(cursor)))
                except Refused as refused:
                    outcomes.append((False, refused))
        for (ok, value), (_, future) in zip(outcomes, batch, strict=True):
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def close(self) -> None:
        """Stop the writer (after the writes already asked for) and close every pooled connection."""
        with self._lock:
            self._closed = True
            writer, self._writer = self._writer, None
        if writer is not None:
            self._writes.put(None)
            writer.join(30)
        while True:
            try:
                connection = self._pool.get_nowait()
            except queue.Empty:
                return
            with contextlib.suppress(Exception):
                connection.close()

    # -- the statements ----------------------------------------------------------------------

    def create(self, game_id: str, *, state: str, start: str, token_hashes: Sequence[str | None],
               bots: str, waiting_bot: bool, creator: str, now: float, max_games: int,
               client_limit: tuple[int, float] | None) -> None:
        """Insert a new game and its seats, unless a limit says no (`Full`, `TooMany`).

        The limits are checked in the same transaction, one creation at a time across processes,
        so they hold exactly however many processes share the database.
        """
        def job(cursor: Any) -> None:
            self._serialize_creations(cursor)
            (games,) = self._run(cursor, "SELECT count(*) FROM games").fetchone()
            if games >= max_games:
                raise Full
            if client_limit is not None:
                count, window = client_limit
                rows = self._run(cursor, "SELECT created FROM games WHERE creator = ? AND created > ? "
                                 "ORDER BY created", (creator, now - window)).fetchall()
                if len(rows) >= count:
                    raise TooMany(max(1.0, rows[len(rows) - count][0] + window - now))
            self._run(cursor, "INSERT INTO games (id, seq, state, start, over, bots, waiting_bot, creator, "
                      "created, updated) VALUES (?, 0, ?, ?, 0, ?, ?, ?, ?, ?)",
                      (game_id, state, start, bots, int(waiting_bot), creator, now, now))
            for seat, token_hash in enumerate(token_hashes):
                if token_hash is not None:
                    self._run(cursor, "INSERT INTO seats (game, seat, token_hash) VALUES (?, ?, ?)",
                              (game_id, seat, token_hash))

        self.write(job).result()

    def load(self, game_id: str, held: int = -1) -> GameRow | None:
        """The stored game, or `None`; without its state and bots if it is at seq `held` (the caller holds
        them: a game's state at a seq never changes, nor do its bots)."""
        rows = self._read(_ROW, (held, held, game_id))
        if not rows:
            return None
        row = rows[0]
        return GameRow(int(row[0]), row[1], bool(row[2]), row[3], float(row[4]))

    def seat_of(self, game_id: str, token_hash: str) -> int | None:
        """The seat of the game whose token has this hash, or `None`."""
        rows = self._read("SELECT seat FROM seats WHERE game = ? AND token_hash = ?", (game_id, token_hash))
        return int(rows[0][0]) if rows else None

    def commit_action(self, game_id: str, seq: int, *, state: str, action: str, over: bool,
                      waiting_bot: bool, now: float) -> concurrent.futures.Future[bool]:
        """Store the action made at `seq` and the state it led to, if the game is still at `seq`.

        The future's result is False (and nothing was written) if the stored seq moved on meanwhile:
        another request won. It is set once the transaction committed.
        """
        def job(cursor: Any) -> bool:
            return self._move(cursor, (seq + 1, state, int(over), int(waiting_bot), now, game_id, seq),
                              (game_id, seq + 1, action, now))

        return self.write(job)

    def _move(self, cursor: Any, update: Sequence[Any], insert: Sequence[Any]) -> bool:
        """`_MOVE` then, if it updated the game's row, `_ACTION`: whether the move was stored."""
        if self._run(cursor, _MOVE, update).rowcount != 1:
            return False
        self._run(cursor, _ACTION, insert)
        return True

    def record(self, game_id: str, after: int = 0) -> tuple[str, list[str]] | None:
        """The game's set-up (with the seed: secret) and its actions after seq `after`, in order."""
        with self._transaction(write=False) as cursor:
            row = self._run(cursor, "SELECT start FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            actions = self._run(cursor, "SELECT action FROM actions WHERE game = ? AND seq > ? ORDER BY seq",
                                (game_id, after)).fetchall()
        return row[0], [action for (action,) in actions]

    def expire(self, now: float, finished_ttl: float, idle_ttl: float) -> list[str]:
        """Delete finished games idle for `finished_ttl` seconds and any game idle for `idle_ttl`."""
        def job(cursor: Any) -> list[str]:
            gone = [game_id for (game_id,) in self._run(
                cursor, "SELECT id FROM games WHERE (over = 1 AND updated < ?) OR updated < ?",
                (now - finished_ttl, now - idle_ttl)).fetchall()]
            for game_id in gone:
                for table, column in (("actions", "game"), ("seats", "game"), ("games", "id")):
                    self._run(cursor, f"DELETE FROM {table} WHERE {column} = ?", (game_id,))
            return gone

        return self.write(job).result()

    def waiting_for_bots(self, idle_since: float) -> list[str]:
        """Games where a bot is to act and nothing happened since `idle_since` (a process died)."""
        rows = self._read("SELECT id FROM games WHERE waiting_bot = 1 AND over = 0 AND updated < ?",
                          (idle_since,))
        return [game_id for (game_id,) in rows]

    def seqs(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The stored seq of each of these games that exists (one query)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" * len(game_ids))
        rows = self._read(f"SELECT id, seq FROM games WHERE id IN ({marks})", game_ids)
        return {game_id: int(seq) for game_id, seq in rows}

    def ping(self) -> None:
        """Run `SELECT 1` (raises if the database cannot be reached): the readiness check."""
        self._read("SELECT 1")

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        return [game_id for (game_id,) in self._read("SELECT id FROM games ORDER BY created, id")]


class SqliteStore(Store):
    """A SQLite file (`sqlite:///PATH`) or a private in-memory database (`sqlite:///:memory:`).

    WAL mode: readers never wait for the writer; writers take the database's write lock with
    `BEGIN IMMEDIATE` and wait for it up to `busy_timeout` (10 s), so processes sharing the file
    commit one at a time. SQLite waits for that lock by sleeping and trying again, longer and
    longer each time; so the writers of the server's processes first take turns on an
    operating-system lock (`flock` on the file `PATH-lock` beside the database), which wakes the next
    one the moment the last one is done.
    """

    dialect = "sqlite"
    local = True

    def __init__(self, url: str, path: str) -> None:
        self.memory = path == ":memory:"
        # One connection for an in-memory database (it is that connection's); each request
        # takes it in turn. A file gets a pool.
        self._target = f"file:abyss-{uuid.uuid4().hex}?mode=memory" if self.memory else path
        self._turns = None if self.memory or fcntl is None else \
            os.open(path + "-lock", os.O_RDWR | os.O_CREAT, 0o600)
        super().__init__(url, 1 if self.memory else 8)

    @contextlib.contextmanager
    def _writers_turn(self) -> Iterator[None]:
        if self._turns is None:
            yield
            return
        fcntl.flock(self._turns, fcntl.LOCK_EX)  # waits in the kernel, without the GIL
        try:
            yield
        finally:
            fcntl.flock(self._turns, fcntl.LOCK_UN)

    def close(self) -> None:
        super().close()
        if self._turns is not None:
            os.close(self._turns)
            self._turns = None

    def _connect(self) -> Any:
        connection = sqlite3.connect(self._target, timeout=10.0, isolation_level=None,
                                     check_same_thread=False, uri=self.memory)
        if not self.memory:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA busy_timeout=10000")
        return connection

    def _begin(self, connection: Any, write: bool) -> Any:
        cursor = connection.cursor()
        cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        return cursor


class PostgresStore(Store):
    """A PostgreSQL database (`postgresql://...`), through psycopg 3.

    Each transaction runs at READ COMMITTED: a concurrent `UPDATE ... WHERE seq = ?` on the same
    game waits for the first to commit, then finds the seq changed and updates nothing. Creations
    take a transaction-scoped advisory lock, so the creation limits are exact across processes.
    """

    dialect = "postgresql"

    def __init__(self, url: str, size: int = 8) -> None:
        try:
            import psycopg
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("PostgreSQL storage needs psycopg: pip install 'abyss-rules[server]'") from None
        self._psycopg = psycopg
        super().__init__(url, size)

    def _connect(self) -> Any:
        # Autocommit: a read of one statement is one round trip; a transaction says BEGIN itself.
        return self._psycopg.connect(self.url, autocommit=True, connect_timeout=10)

    def _begin(self, connection: Any, write: bool) -> Any:
        cursor = connection.cursor()
        cursor.execute("BEGIN")
        return cursor

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    def _serialize_creations(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(19190001)")

    def _move(self, cursor: Any, update: Sequence[Any], insert: Sequence[Any]) -> bool:
        # one round trip to the database instead of two (a concurrent move of the same game waits for
        # the first to commit, then finds its seq changed: the update matches nothing, nor the insert)
        return int(self._run(cursor, _MOVE_AND_ACTION, (*update, *insert[1:])).rowcount) == 1

    def _is_broken(self, error: BaseException) -> bool:
        return isinstance(error, self._psycopg.OperationalError)


def open_store(url: str) -> Store:
    """The store for a database URL: `sqlite:///PATH`, `sqlite:///:memory:` or `postgresql://...`.

    Raises `ValueError` for any other URL.
    """
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
        if not path:
            raise ValueError("a SQLite URL names a file: sqlite:///games.db (relative) or "
                             "sqlite:////var/lib/abyss/games.db (absolute)")
        return SqliteStore(url, path)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    raise ValueError(f"unknown database URL {url[:60]!r}: use sqlite:///PATH or postgresql://...")
