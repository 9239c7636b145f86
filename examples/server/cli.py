"""The example server's command line: `python -m examples.server --db sqlite:///games.db --port 0`."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys
import threading

from .app import DEFAULT_MAX_BODY, GameServer
from .games import DEFAULT_LIMITS, Limits

__all__ = ["main"]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the server until Ctrl-C or SIGTERM (then stop gracefully); print the URL first."""
    defaults = DEFAULT_LIMITS
    parser = argparse.ArgumentParser(prog="python -m examples.server",
                                     description="An example abyss-rules game server (JSON over HTTP).")
    parser.add_argument("--db", default="sqlite:///games.db",
                        help="the database: sqlite:///PATH (default sqlite:///games.db, in the current "
                             "directory) or postgresql://USER@HOST/NAME (several processes may share it)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to bind (default 127.0.0.1: loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (0: any free port; default 8000)")
    parser.add_argument("--max-body", type=int, default=DEFAULT_MAX_BODY, metavar="BYTES",
                        help=f"the largest request body (default {DEFAULT_MAX_BODY})")
    parser.add_argument("--max-games", type=int, default=defaults.max_games,
                        help=f"how many games the database keeps at once (default {defaults.max_games})")
    parser.add_argument("--client-games", type=int, default=defaults.client_games, metavar="N",
                        help=f"games one client address may create per --client-window (default "
                             f"{defaults.client_games}; 0: no limit)")
    parser.add_argument("--client-window", type=_positive, default=defaults.client_window, metavar="SECONDS",
                        help=f"the window of --client-games (default {defaults.client_window:g})")
    parser.add_argument("--finished-ttl", type=_positive, default=defaults.finished_ttl, metavar="SECONDS",
                        help=f"delete a finished game this long after its last action (default "
                             f"{defaults.finished_ttl:g})")
    parser.add_argument("--idle-ttl", type=_positive, default=defaults.idle_ttl, metavar="SECONDS",
                        help=f"delete any game this long after its last action (default "
                             f"{defaults.idle_ttl:g})")
    parser.add_argument("--bot-delay", type=float, default=0.5, metavar="SECONDS",
                        help="how long a bot waits before each move (default 0.5)")
    parser.add_argument("--allow-seed", action="store_true",
                        help="accept a client's seed when creating a game (tests and demos only)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be from 0 to 65535, got {args.port}")
    limits = Limits(max_games=args.max_games, client_games=args.client_games or None,
                    client_window=args.client_window, finished_ttl=args.finished_ttl, idle_ttl=args.idle_ttl)
    try:
        server = GameServer((args.host, args.port), db=args.db, limits=limits, max_body=args.max_body,
                            allow_seed=args.allow_seed, bot_delay=max(args.bot_delay, 0.0), quiet=args.quiet)
    except OSError as error:
        print(f"cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # a bad --db, a database that cannot be reached...
        print(f"cannot open the database {args.db[:60]!r}: {error}", file=sys.stderr)
        return 1
    if not _is_loopback(args.host):
        print(f"warning: {args.host} is not a loopback address: other machines can reach this example "
              "server (no TLS: put a TLS-terminating proxy in front of it)", file=sys.stderr)

    def stop(signum: int, frame: object) -> None:  # serve_forever runs here: stop it from another thread
        threading.Thread(target=server.shutdown, name="abyss-stop", daemon=True).start()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
    print(f"abyss example server listening on {server.url} (port {server.server_address[1]}, database "
          f"{server.games.store.dialect}); Ctrl-C stops it", flush=True)
    server.serve_forever()
    finished = server.close_gracefully()
    if not args.quiet:
        print("stopped" + ("" if finished else " (some requests were cut short)"), file=sys.stderr)
    return 0

