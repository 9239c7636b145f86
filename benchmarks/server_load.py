"""A bounded load test of the game server: moves per second and p99 latency, the shipped server
(`abyss-rules serve`, uvicorn) against the standard-library example server it replaced, in one run.

Run from the repository root of a git checkout (it starts and stops everything itself, on 127.0.0.1):

    python benchmarks/server_load.py                      # SQLite, and PostgreSQL where installed
    python benchmarks/server_load.py --seconds 10 --threads 8 --rounds 3

The old server is the `examples/server` package as it was at commit `OLD_COMMIT`, extracted with
`git archive` into a temporary directory (it runs on the installed library). For each database
and each round, the servers are measured one after the other (old, new, new with 2 workers: noise
hits both alike), each on a fresh database: `--threads` client threads create 2-player short games
and play them to the end with random legal moves -- a `GET .../view` with the seat's token, then
a `POST .../actions` (each a committed transaction) -- over keep-alive connections, for `--seconds`.
It prints accepted moves per second and the p50 / p99 latency of the action requests, and the
ratios new / old. PostgreSQL runs in a temporary directory (tests/tempdb.py) with fsync on, like
SQLite's synchronous=FULL: both commit durably.

Timings on a shared machine are noisy: compare the rows of one run (the ratios), not figures from
different runs.
"""

from __future__ import annotations

import argparse
import io
import random
import re
import selectors
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tempdb import PostgresUnavailable, TemporaryPostgres  # noqa: E402

import abyss_rules as ar  # noqa: E402
from abyss_rules.serve.client import Client, ServerError  # noqa: E402

OLD_COMMIT = "02c290d"
"""The last commit with the standard-library example server (`python -m examples.server`)."""
KINDS = ("old", "new", "newx2")
"""Measured in this order in each round: the example server, the shipped one, and with 2 workers."""
OPTIONS = ("--client-games", "0", "--max-games", "1000000", "--quiet", "--port", "0")


class Server:
    """A server on a loopback port: `new` (abyss-rules serve), `newx2` (2 workers), `old` (the example)."""

    def __init__(self, kind: str, db: str, old_root: Path) -> None:
        if kind.startswith("new"):
            workers = kind.partition("x")[2] or "1"
            command = [sys.executable, "-m", "abyss_rules", "serve", "--db", db, "--workers", workers,
                       *OPTIONS]
            cwd = ROOT
        else:
            command = [sys.executable, "-m", "examples.server", "--db", db, *OPTIONS]
            cwd = old_root
        self.process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(60):
                self.stop()
                raise RuntimeError(f"the {kind} server printed nothing")
        match = re.search(r"http://127\.0\.0\.1:\d+", self.process.stdout.readline())
        if match is None:
            self.stop()
            raise RuntimeError(f"the {kind} server did not start: {self.process.communicate()[1][-500:]}")
        self.url = match.group(0)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()


def old_server(directory: Path) -> Path:
    """The old example server's files, from git history, under `directory`."""
    archive = subprocess.run(["git", "archive", "--format=tar", OLD_COMMIT, "examples"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    return directory


def _player(url: str, index: int, until: float, moves: list[float], errors: list[str]) -> None:
    rng = random.Random(index)
    with Client(url, timeout=60) as client:
        while time.monotonic() < until:
            game = client.create_game(2, "short")
            view = game.view
            while not view.is_over and time.monotonic() < until:
                seat = view.turn if view.turn is not None else view.owing_flips[0]
                token = game.tokens[seat]
                assert token is not None
                mine = client.view(game.id, token)
                started = time.perf_counter()
                try:
                    view, _ = client.act(game.id, token, rng.choice(mine.legal_actions), seq=mine.seq)
                except ServerError as error:
                    errors.append(error.code or "?")
                    view = client.view(game.id)
                    continue
                moves.append(time.perf_counter() - started)


def measure(kind: str, db: str, old_root: Path, threads: int, seconds: float) -> dict[str, float]:
    server = Server(kind, db, old_root)
    try:
        moves: list[float] = []
        errors: list[str] = []
        until = time.monotonic() + seconds
        started = time.monotonic()
        workers = [threading.Thread(target=_player, args=(server.url, i, until, moves, errors))
                   for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(seconds + 120)
        elapsed = time.monotonic() - started
    finally:
        server.stop()
    if errors:
        print(f"  {kind}: refusals: {len(errors)} ({', '.join(sorted(set(errors)))})", file=sys.stderr)
    quantiles = statistics.quantiles(moves, n=100) if len(moves) >= 100 else [float("nan")] * 99
    return {"moves": len(moves), "moves_per_s": len(moves) / elapsed, "p50_ms": quantiles[49] * 1000,
            "p99_ms": quantiles[98] * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="load time per row (default 10)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="old/new pairs per database (default 2)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args(argv)
    print(f"abyss-rules {ar.__version__}, {args.threads} client threads, {args.seconds:g} s per row, "
          "2-player short games, random legal moves; latency of POST .../actions")
    print(f"{'database':<11} {'server':<7} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
    with tempfile.TemporaryDirectory(prefix="abyss-load-") as tmp:
        old_root = old_server(Path(tmp) / "old")
        for backend in args.backends.split(","):
            cluster = None
            rows: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
            try:
                if backend == "postgresql":
                    try:
                        cluster = TemporaryPostgres(durable=True)
                        cluster.start()
                    except PostgresUnavailable as error:
                        print(f"{backend:<11} skipped: {error}")
                        continue
                for number in range(args.rounds):
                    for kind in KINDS:
                        if cluster is not None:
                            db = cluster.create_database()
                        else:
                            db = f"sqlite:///{Path(tmp) / f'{kind}-{number}.db'}"
                        row = measure(kind, db, old_root, args.threads, args.seconds)
                        rows[kind].append(row)
                        print(f"{backend:<11} {kind:<7} {row['moves']:>7.0f} {row['moves_per_s']:>8.0f} "
                              f"{row['p50_ms']:>7.1f} {row['p99_ms']:>7.1f}", flush=True)
            finally:
                if cluster is not None:
                    cluster.stop()
            for kind in KINDS[1:]:
                if rows["old"] and rows[kind]:
                    pairs = list(zip(rows["old"], rows[kind], strict=True))
                    speed = [new["moves_per_s"] / old["moves_per_s"] for old, new in pairs]
                    p99 = [new["p99_ms"] / old["p99_ms"] for old, new in pairs]
                    print(f"{backend}: {kind} / old, moves/s {' '.join(f'{r:.2f}' for r in speed)}; "
                          f"p99 {' '.join(f'{r:.2f}' for r in p99)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
