"""Running the server: `abyss-rules serve` binds the socket, then uvicorn serves the app from it.

uvicorn runs the app on its fastest event loop (uvloop where installed) with the protocols of
`_connections`: httptools for HTTP/1.1, with deadlines for each request's headers and body, a bound on
the headers, a cap per client address, and websockets (sans I/O) for WebSockets, with heartbeats and a
bound on what waits to be sent to a slow client. It also bounds a WebSocket message (`--ws-max-bytes`),
the connections of a worker (`--max-connections`, uvicorn's `limit_concurrency`: more get 503) and how
many wait to be accepted (`--backlog`). With `--workers N`, N processes accept from the one socket and
share the database; each stops when the supervisor is gone.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import os
import socket
import sys
from collections.abc import Sequence
from typing import Final

from uvicorn import Config, Server
from uvicorn.supervisors import Multiprocess

from ._connections import HttpProtocol, WebSocketProtocol
from ._logs import configure, uvicorn_log_config
from ._settings import Settings, parse_settings, to_env

__all__ = ["main", "serve"]

_LOG: Final = logging.getLogger("abyss_rules.serve")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(settings: Settings) -> socket.socket:
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
        sock.listen(settings.backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def config(settings: Settings, sock: socket.socket) -> Config:
    """uvicorn's configuration for `settings`, serving the app of the `ABYSS_*` variables from `sock`."""
    return Config(
        "abyss_rules.serve._app:app_from_env", factory=True, fd=None, workers=settings.workers,
        http=HttpProtocol, ws=WebSocketProtocol, loop="auto", lifespan="on", interface="asgi3",
        limit_concurrency=settings.max_connections, backlog=settings.backlog,
        ws_max_size=settings.ws_max_bytes,
        ws_ping_interval=settings.ws_ping_interval, ws_ping_timeout=settings.ws_ping_timeout,
        timeout_keep_alive=int(max(1, settings.keep_alive)),
        timeout_graceful_shutdown=int(settings.graceful_timeout),
        log_config=uvicorn_log_config(settings.log_level), access_log=False, server_header=False,
        proxy_headers=False, date_header=True,
    )


def serve(settings: Settings) -> int:
    """Serve until SIGINT or SIGTERM (then stop gracefully); print the URL first."""
    configure(settings.log_level, settings.quiet)
    os.environ.update(to_env(settings))  # the workers' settings (each process builds its own app)
    try:
        from ._store import open_store

        open_store(settings.db).close()  # create the tables once, and say now if the database is wrong
    except Exception as error:
        print(f"cannot open the database {settings.db[:60]!r}: {error}", file=sys.stderr)
        return 1
    try:
        sock = _bind(settings)
    except OSError as error:
        hint = ""
        if error.errno == errno.EADDRINUSE:
            hint = (" (another program listens there: another `abyss-rules serve`, say; the docs site's "
                    "`mkdocs serve` uses 8001). Choose another port with --port N, or --port 0 for any "
                    "free one")
        print(f"cannot listen on {settings.host}:{settings.port}: {error}{hint}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    print(f"abyss-rules serve listening on {url} ({settings.workers} worker(s), database "
          f"{settings.db.split(':', 1)[0]}); Ctrl-C stops it", flush=True)
    if not _is_loopback(settings.host):
        _LOG.warning("not a loopback address: other machines can reach this server (no TLS: put a "
                     "TLS-terminating proxy in front of it)", extra={"host": settings.host})
    uvicorn_config = config(settings, sock)
    try:
        if settings.workers > 1:
            Multiprocess(uvicorn_config, sockets=[sock]).run()
        else:
            Server(uvicorn_config).run(sockets=[sock])
    finally:
        sock.close()
    return 0


def main(argv: Sequence[str] | None = None, prog: str = "abyss-rules serve") -> int:
    """`abyss-rules serve [options]`: the settings of the command line, then `serve`."""
    return serve(parse_settings(argv, prog))


