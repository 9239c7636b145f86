"""A bounded load test of the example game server: moves per second and latency, SQLite vs PostgreSQL.

Run from the repository root (it starts and stops everything itself, on 127.0.0.1 only):

    python benchmarks/server_load.py                       # SQLite, and PostgreSQL where installed
    python benchmarks/server_load.py --seconds 10 --threads 8 --processes 1,2

For each database it starts `python -m examples.server` (one process, or several on the same
database: PostgreSQL is what lets a deployment scale out), then `--threads` client threads each
create 2-player games and play them to the end with random legal moves -- a `GET .../view` with the
seat's token, then a `POST .../actions` -- over keep-alive connections, for `--seconds` seconds.
It prints accepted moves per second and the p50 / p99 latency of the action requests (each one a
committed transaction). PostgreSQL runs in a temporary directory (examples/server/tempdb.py) with
fsync on, like SQLite's synchronous=FULL: both commit durably.

Timings on a shared machine are noisy: compare the rows of one run (the ratios are printed), not
figures from different runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from examples.server.client import Client, ServerError  # noqa: E402
from examples.server.tempdb import PostgresUnavailable, TemporaryPostgres  # noqa: E402

import abyss_rules as ar  # noqa: E402
from servers import ServerProcess  # noqa: E402  (tests/servers.py: the test suite's process helper)

SERVER_OPTIONS = ("--client-games", "0", "--max-games", "1000000")


def _player(urls: list[str], index: int, until: float, moves: list[float], views: list[float],
            errors: list[str]) -> None:
    rng = random.Random(index)
    url = urls[index % len(urls)]
    with Client(url, timeout=60) as client:
        while time.monotonic() < until:
            game = client.create_game(2, "short")
            view = game.view
            while not view.is_over and time.monotonic() < until:
                seat = view.turn if view.turn is not None else view.owing_flips[0]
                token = game.tokens[seat]
                assert token is not None
                started = time.perf_counter()
                mine = client.view(game.id, token)
                views.append(time.perf_counter() - started)
                action = rng.choice(mine.legal_actions)
                started = time.perf_counter()
                try:
                    view, _ = client.act(game.id, token, action, seq=mine.seq)
                except ServerError as error:
                    errors.append(error.code or "?")
                    view = client.view(game.id)
                    continue
                moves.append(time.perf_counter() - started)


def run(db: str, *, processes: int, threads: int, seconds: float) -> dict[str, float]:
    servers = [ServerProcess(db, *SERVER_OPTIONS) for _ in range(processes)]
    try:
        moves: list[float] = []
        views: list[float] = []
        errors: list[str] = []
        until = time.monotonic() + seconds
        started = time.monotonic()
        workers = [threading.Thread(target=_player, args=([s.url for s in servers], i, until, moves, views,
                                                          errors)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(seconds + 120)
        elapsed = time.monotonic() - started
    finally:
        for server in servers:
            server.terminate()
    if errors:
        print(f"  refusals: {len(errors)} ({', '.join(sorted(set(errors)))})", file=sys.stderr)
    quantiles = statistics.quantiles(moves, n=100) if len(moves) >= 100 else [float("nan")] * 99
    view_quantiles = statistics.quantiles(views, n=100) if len(views) >= 100 else [float("nan")] * 99
    return {"moves": len(moves), "moves_per_s": len(moves) / elapsed, "p50_ms": quantiles[49] * 1000,
            "p99_ms": quantiles[98] * 1000, "view_p99_ms": view_quantiles[98] * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0, help="load time per row (default 15)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--processes", default="1,2",
                        help="server processes on one database, one row each (default 1,2)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.processes.split(",")]
    print(f"abyss-rules {ar.__version__}, {args.threads} client threads, {args.seconds:g} s per row, "
          "2-player short games, random legal moves; one move = GET view + POST action")
    print(f"{'database':<12} {'processes':>9} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'view p99':>9}")
    rows: dict[tuple[str, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="abyss-load-") as tmp:
        for backend in args.backends.split(","):
            cluster = None
            try:
                if backend == "postgresql":
                    try:
                        cluster = TemporaryPostgres(durable=True)
                        cluster.start()
                    except PostgresUnavailable as error:
                        print(f"{backend:<12} skipped: {error}")
                        continue
                for processes in counts:
                    if backend == "sqlite":
                        db = f"sqlite:///{Path(tmp) / f'load-{processes}.db'}"
                    else:
                        assert cluster is not None
                        db = cluster.create_database()
                    row = run(db, processes=processes, threads=args.threads, seconds=args.seconds)
                    rows[(backend, processes)] = row
                    print(f"{backend:<12} {processes:>9} {row['moves']:>7.0f} {row['moves_per_s']:>8.0f} "
                          f"{row['p50_ms']:>7.1f} {row['p99_ms']:>7.1f} {row['view_p99_ms']:>9.1f}",
                          flush=True)
            finally:
                if cluster is not None:
                    cluster.stop()
    base = rows.get(("sqlite", counts[0]))
    if base:
        for (backend, processes), row in rows.items():
            speed = row["moves_per_s"] / base["moves_per_s"]
            print(f"ratio {backend} x{processes} / sqlite x{counts[0]}: moves/s {speed:.2f}, "
                  f"p99 {row['p99_ms'] / base['p99_ms']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
