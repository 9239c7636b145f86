"""A throwaway PostgreSQL server on loopback, in a temporary directory: for tests, benchmarks and trying.

    with TemporaryPostgres() as pg:                  # initdb + pg_ctl start, 127.0.0.1, a free port
        url = pg.create_database("abyss")            # postgresql://abyss@127.0.0.1:PORT/abyss
        ...                                          # abyss-rules serve --db URL
    # stopped (pg_ctl stop -m fast) and its directory removed

It needs PostgreSQL's server programs (Debian: `apt-get install postgresql`, found under
/usr/lib/postgresql/*/bin) and psycopg (the `server` extra). As root, the cluster runs as the
`postgres` system user (PostgreSQL refuses to run as root). Nothing is installed or left behind,
and it never listens beyond 127.0.0.1.

As a script, it starts one and waits (Ctrl-C stops it):

    python -m tests.tempdb
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["PostgresUnavailable", "TemporaryPostgres", "find_postgres_bin"]


class PostgresUnavailable(RuntimeError):
    """PostgreSQL's server programs (or psycopg) are not installed, or the server would not start."""


def find_postgres_bin() -> Path | None:
    """The directory holding `initdb` and `pg_ctl` (the newest version installed), or `None`."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0)
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TemporaryPostgres:
    """A PostgreSQL cluster in a temporary directory, serving 127.0.0.1 on a free port until `stop()`.

    Args:
        durable: Keep `fsync` on (for benchmarks). Off by default: tests kill server processes,
            never the database, and run faster without it.
        user: The database superuser (trusted on loopback: no password).
    """

    def __init__(self, *, durable: bool = False, user: str = "abyss") -> None:
        self.durable = durable
        self.user = user
        self.port = 0
        self.directory: Path | None = None
        self._as: list[str] = []

    def __enter__(self) -> TemporaryPostgres:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def data(self) -> Path:
        assert self.directory is not None, "not started"
        return self.directory / "data"

    def url(self, database: str = "postgres") -> str:
        """The URL of one of its databases."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self._as, *map(str, command)], capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, check=False)

    def start(self) -> None:
        """initdb, then start the server and wait until it accepts connections."""
        bin_dir = find_postgres_bin()
        if bin_dir is None:
            raise PostgresUnavailable("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise PostgresUnavailable("psycopg is not installed: pip install 'abyss-rules[server]'") from None
        self.directory = Path(tempfile.mkdtemp(prefix="abyss-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as the postgres user
            shutil.chown(self.directory, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        initdb = self._run(bin_dir / "initdb", "-D", self.data, "-U", self.user, "-A", "trust", "-E", "UTF8",
                           "--no-sync", "--no-instructions")
        if initdb.returncode != 0:
            self.stop()
            raise PostgresUnavailable(f"initdb failed: {initdb.stderr.strip()[-500:]}")
        options = ["-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={self.directory}",
                   "-c max_connections=200", "-c shared_buffers=64MB"]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        for _ in range(5):  # another program may take the free port first: try another one
            self.port = _free_port()
            started = self._run(bin_dir / "pg_ctl", "-D", self.data, "-l", self.directory / "log", "-w",
                                "-t", "60", "-o", " ".join([f"-p {self.port}", *options]), "start")
            if started.returncode == 0:
                break
        else:
            log = (self.directory / "log").read_text(errors="replace")[-800:]
            self.stop()
            raise PostgresUnavailable(f"PostgreSQL did not start: {started.stderr.strip()[-300:]} {log}")
        self._bin = bin_dir
        deadline = time.monotonic() + 30
        while True:
            try:
                self.execute("SELECT 1")
                return
            except Exception:
                if time.monotonic() > deadline:
                    self.stop()
                    raise PostgresUnavailable("PostgreSQL started but accepts no connection") from None
                time.sleep(0.1)

    def execute(self, statement: str, database: str = "postgres") -> Any:
        """Run one statement outside a transaction (e.g. CREATE DATABASE)."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=10) as connection:
            cursor = connection.execute(statement)  # type: ignore[arg-type]
            return cursor.fetchall() if cursor.description else None

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (a fresh name by default); its URL."""
        name = name or f"abyss_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by `create_database` (its connections are closed first)."""
        name = url.rsplit("/", 1)[1]
        self.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        self.execute(f'DROP DATABASE IF EXISTS "{name}"')

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its directory."""
        if self.directory is None:
            return
        bin_dir = getattr(self, "_bin", None)
        if bin_dir is not None and (self.data / "postmaster.pid").exists():
            self._run(bin_dir / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop")
        with contextlib.suppress(OSError):
            shutil.rmtree(self.directory)
        self.directory = None


if __name__ == "__main__":
    with TemporaryPostgres(durable=True) as pg:
        print(f"PostgreSQL on {pg.create_database('abyss')} (Ctrl-C stops it and deletes it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
