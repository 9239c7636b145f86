"""A bounded load test of the game server: moves per second and action latency, the shipped server
(`abyss-rules serve`) against the standard-library example server it replaced, interleaved in one run.

Run from the repository root of a git checkout (it starts and stops everything itself, on 127.0.0.1):

    python benchmarks/server_load.py                       # SQLite, and PostgreSQL where installed
    python benchmarks/server_load.py --seconds 30 --clients 20 --rounds 3
    python benchmarks/server_load.py --wrk                 # the same, then wrk (apt) as a second opinion

**The old server** is the whole tree of commit `OLD_COMMIT` -- the last one where the example server
(`python -m examples.server`, `http.server` with a thread per connection) was complete -- exported
with `git archive` into a temporary directory and run from there with `PYTHONPATH` on its own
`src/`: it runs on the library it was written for.

**The new server** runs from this tree with `--workers 2` by default (one per core of the machine
it was measured on; `--workers` changes it) and waits until every worker serves.

**The load.** `--clients` client processes (one keep-alive connection each: separate programs, as
players are, which never wait for each other) create 2-player `short` games and play them to the
end with random legal moves: per move a `GET .../view` with the seat's token, then a `POST
.../actions` (the action document and the seq it was chosen at), which the server commits durably
before it answers. The clients parse only what they need (the JSON of the
view, its `legal_actions`), so that the load generator takes as little of the machine as it can.
Each row prints accepted moves per second, the p50 / p99 latency of the action requests, and the
server's CPU time per move (its processes' user + system time, from /proc). After each row every
acknowledged move is looked up in the server's database: a row with a missing one fails the run.

**Interleaving.** For each database and round, old and new run one after the other on fresh
databases (the order alternates between rounds), so that whatever else loads the machine hits both
alike; the ratios new / old are printed per round. Compare the ratios of one run, never figures of
different runs.

**wrk** (`--wrk`, Debian's `wrk`): the same game loop written for wrk's Lua interface
(`benchmarks/server_load.lua`), one connection per wrk thread, run against both servers in the same
interleaved way; it prints wrk's own latency figures and the moves it counted.

PostgreSQL runs in a temporary directory (tests/tempdb.py) with fsync on, like SQLite's
`synchronous=FULL`: both commit durably.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import re
import selectors
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tempdb import PostgresUnavailable, TemporaryPostgres  # noqa: E402

OLD_COMMIT: Final = "84c70da"
"""The last commit where `examples/server` was the whole standard-library example server (the next one
moved its storage and games into the package, and the one after removed it)."""
KINDS: Final = ("old", "new")
OPTIONS: Final = ("--client-games", "0", "--max-games", "1000000", "--quiet", "--port", "0")
LUA: Final = Path(__file__).with_suffix(".lua")


def old_tree(directory: Path) -> Path:
    """The whole tree of `OLD_COMMIT` (library included), from git history, in `directory`."""
    directory.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", OLD_COMMIT], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    return directory


class Server:
    """A server on a loopback port: `new` (abyss-rules serve, this tree) or `old` (the example server)."""

    def __init__(self, kind: str, db: str, old_root: Path, workers: int) -> None:
        env = dict(os.environ)
        if kind == "new":
            command = [sys.executable, "-m", "abyss_rules", "serve", "--db", db, "--workers", str(workers),
                       *OPTIONS]
            cwd = ROOT
            env["PYTHONPATH"] = str(ROOT / "src")
        else:
            command = [sys.executable, "-m", "examples.server", "--db", db, *OPTIONS]
            cwd = old_root
            env["PYTHONPATH"] = str(old_root / "src")  # its own library, not this tree's
        self.kind, self.db = kind, db
        # stderr: never a pipe that could fill and stall the server
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=self.log,
                                        stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            ready = selector.select(60)
        match = re.search(r"http://127\.0\.0\.1:(\d+)", self.process.stdout.readline()) if ready else None
        if match is None:
            errors = self.errors()
            self.stop()
            raise RuntimeError(f"the {kind} server did not start: {errors}")
        self.url, self.port = match.group(0), int(match.group(1))
        deadline = time.monotonic() + 120
        while kind == "new" and self.errors(None).count("Application startup complete") < workers:
            # uvicorn's workers start after the URL is printed: wait until each one serves
            if self.process.poll() is not None or time.monotonic() > deadline:
                errors = self.errors()
                self.stop()
                raise RuntimeError(f"the new server did not start: {errors}")
            time.sleep(0.05)

    def errors(self, last: int | None = 800) -> str:
        """What the server wrote to stderr so far (its `last` characters; None: all of it)."""
        self.log.seek(0)
        text = self.log.read()
        return text if last is None else text[-last:]

    def cpu_seconds(self) -> float:
        """User + system time of the server's processes (its session: the workers too)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == self.process.pid:  # the session id (it leads its own session)
                total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.communicate()
        self.log.close()


class Player:
    """One client: a keep-alive connection, playing games with random legal moves until `until`."""

    def __init__(self, port: int, seed: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.acknowledged: list[tuple[str, int]] = []
        self.refusals: dict[int, int] = {}

    def call(self, method: str, path: str, body: bytes | None = None, token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self.connection.request(method, path, body, headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read())

    def run(self, until: float) -> None:
        try:
            while time.monotonic() < until:
                status, created = self.call("POST", "/games", b'{"players": 2, "variant": "short"}')
                assert status == 201, created
                game = created["game"]
                tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
                view = created["view"]
                while view["phase"] != "game_over" and time.monotonic() < until:
                    seat = view["turn"] if view["turn"] is not None else view["owing_flips"][0]
                    _, mine = self.call("GET", f"/games/{game}/view", token=tokens[seat])
                    action = self.rng.choice(mine["legal_actions"])
                    body = json.dumps({**action, "format": "action", "format_version": 1,
                                       "rules_version": mine["rules_version"], "seq": mine["seq"]}).encode()
                    started = time.perf_counter()
                    status, reply = self.call("POST", f"/games/{game}/actions", body, tokens[seat])
                    if status != 200:
                        self.refusals[status] = self.refusals.get(status, 0) + 1
                        _, view = self.call("GET", f"/games/{game}/view")
                        continue
                    self.latencies.append(time.perf_counter() - started)
                    view = reply["view"]
                    self.acknowledged.append((game, view["seq"]))
        finally:
            self.connection.close()


def _play(port: int, seed: int, until: float) -> tuple[list[float], list[tuple[str, int]], dict[int, int]]:
    """One client process's game loop (its own process: clients never wait for each other's GIL)."""
    player = Player(port, seed)
    player.run(until)
    return player.latencies, player.acknowledged, player.refusals


def stored_moves(db: str) -> set[tuple[str, int]]:
    """Every (game, seq) in the `actions` table (the same table in the old server and the new)."""
    query = "SELECT game, seq FROM actions"
    if db.startswith("sqlite:///"):
        with sqlite3.connect(db.removeprefix("sqlite:///")) as connection:
            return {(game, int(seq)) for game, seq in connection.execute(query)}
    import psycopg

    with psycopg.connect(db) as connection:
        return {(game, int(seq)) for game, seq in connection.execute(query)}


def measure(kind: str, db: str, old_root: Path, clients: int, seconds: float,
            workers: int) -> dict[str, float]:
    """One row: `clients` players against a fresh `kind` server for `seconds`."""
    server = Server(kind, db, old_root, workers)
    try:
        with multiprocessing.get_context("fork").Pool(clients) as pool:
            pool.apply(time.sleep, (0,))  # the client processes are up before the clock starts
            cpu = server.cpu_seconds()
            started = time.monotonic()
            played = pool.starmap(_play, [(server.port, index, started + seconds)
                                          for index in range(clients)])
            elapsed = time.monotonic() - started
            cpu = server.cpu_seconds() - cpu
    finally:
        server.stop()
    moves = [latency for latencies, _, _ in played for latency in latencies]
    missing = {move for _, acknowledged, _ in played for move in acknowledged} - stored_moves(db)
    if missing:
        raise SystemExit(f"{kind}: {len(missing)} acknowledged moves are not in the database")
    refusals: dict[int, int] = {}
    for _, _, refused in played:
        for status, count in refused.items():
            refusals[status] = refusals.get(status, 0) + count
    if refusals:
        print(f"  {kind}: refusals {refusals}", file=sys.stderr)
    quantiles = statistics.quantiles(moves, n=100) if len(moves) >= 100 else [float("nan")] * 99
    return {"moves": len(moves), "moves_per_s": len(moves) / elapsed, "p50_ms": quantiles[49] * 1000,
            "p99_ms": quantiles[98] * 1000, "cpu_ms": cpu * 1000 / max(1, len(moves))}


def run_wrk(kind: str, db: str, old_root: Path, clients: int, seconds: float, workers: int) -> str:
    """wrk's report for one row (its latency covers every request: creations, views and actions)."""
    server = Server(kind, db, old_root, workers)
    try:
        done = subprocess.run(["wrk", "-t", str(clients), "-c", str(clients), "-d", f"{seconds:g}s",
                               "--latency", "-s", str(LUA), server.url], capture_output=True, text=True,
                              timeout=seconds + 120, check=True)
    finally:
        server.stop()
    return done.stdout


def database_maker(backend: str, tmp: Path) -> tuple[Callable[[str], str], Callable[[], None]] | None:
    """A fresh database per row (`make(name)`), and how to stop it; `None` if PostgreSQL is missing."""
    if backend == "sqlite":
        return (lambda name: f"sqlite:///{tmp / name}.db"), (lambda: None)
    try:
        cluster = TemporaryPostgres(durable=True)
        cluster.start()
    except PostgresUnavailable as error:
        print(f"{backend:<11} skipped: {error}")
        return None
    return (lambda name: cluster.create_database()), cluster.stop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="load time per row (default 20)")
    parser.add_argument("--clients", type=int, default=20, help="client threads (default 20)")
    parser.add_argument("--rounds", type=int, default=2, help="old/new pairs per database (default 2)")
    parser.add_argument("--workers", type=int, default=2,
                        help="the new server's worker processes (default 2: one per core here)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--wrk", action="store_true", help="then the same rounds with wrk (Debian's wrk)")
    args = parser.parse_args(argv)
    if min(args.seconds, args.clients, args.rounds, args.workers) <= 0:
        parser.error("--seconds, --clients, --rounds and --workers must be positive")
    if args.wrk and shutil.which("wrk") is None:
        parser.error("--wrk needs wrk on PATH (Debian: apt-get install wrk)")
    print(f"{args.clients} clients, {args.seconds:g} s per row, 2-player short games, random legal moves; "
          f"new: {args.workers} worker(s); old: {OLD_COMMIT}; latency of POST .../actions")
    print(f"{'database':<11} {'round':>5} {'server':<6} {'moves':>7} {'moves/s':>8} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'cpu ms/move':>11}")
    with tempfile.TemporaryDirectory(prefix="abyss-load-") as name:
        tmp = Path(name)
        old_root = old_tree(tmp / "old")
        for backend in args.backends.split(","):
            made = database_maker(backend, tmp)
            if made is None:
                continue
            make, stop = made
            try:
                ratios: list[tuple[float, float, float]] = []
                for number in range(args.rounds):
                    rows = {}
                    for kind in KINDS if number % 2 == 0 else KINDS[::-1]:
                        rows[kind] = row = measure(kind, make(f"{kind}-{number}"), old_root, args.clients,
                                                   args.seconds, args.workers)
                        print(f"{backend:<11} {number + 1:>5} {kind:<6} {row['moves']:>7.0f} "
                              f"{row['moves_per_s']:>8.0f} {row['p50_ms']:>7.1f} {row['p99_ms']:>7.1f} "
                              f"{row['cpu_ms']:>11.2f}", flush=True)
                    old, new = rows["old"], rows["new"]
                    ratios.append((new["moves_per_s"] / old["moves_per_s"], new["p50_ms"] / old["p50_ms"],
                                   new["p99_ms"] / old["p99_ms"]))
                print(f"{backend}: new / old per round: moves/s {' '.join(f'{r[0]:.2f}' for r in ratios)}; "
                      f"p50 {' '.join(f'{r[1]:.2f}' for r in ratios)}; "
                      f"p99 {' '.join(f'{r[2]:.2f}' for r in ratios)}", flush=True)
                if args.wrk:
                    for number in range(args.rounds):
                        for kind in KINDS if number % 2 == 0 else KINDS[::-1]:
                            report = run_wrk(kind, make(f"wrk-{kind}-{number}"), old_root, args.clients,
                                             args.seconds, args.workers)
                            summary = [line for line in report.splitlines()
                                       if line.startswith(("moves ", "latency of every"))]
                            print(f"wrk {backend:<11} {number + 1:>5} {kind:<6} {'; '.join(summary)}",
                                  flush=True)
            finally:
                stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
