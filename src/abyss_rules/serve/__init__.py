"""The shipped game server: `pip install 'abyss-rules[server]'`, then `abyss-rules serve`.

An ASGI app (Starlette) on uvicorn, with several worker processes on one database (SQLite on one
machine, PostgreSQL through psycopg 3 beyond), WebSockets and Server-Sent Events for pushes, and
a page to play in. See docs/server-example.md.

| module | what it is |
|---|---|
| `_app` | the routes, the WebSocket, the pushes, the structured access log |
| `_connections` | uvicorn's HTTP and WebSocket protocols with the edge's deadlines and limits |
| `_hub` | wakes the long polls, streams and WebSockets when a game moves (in this process or another) |
| `_games` | the games: create, read, act (`UPDATE ... WHERE seq = ?`), expire, the server's bots |
| `_store` | the database: three tables, the few statements, SQLite and PostgreSQL; the writer |
| `_requests` | request bodies and refusals, every bound checked first; the bytes of every answer |
| `_settings` | the options: flags and `ABYSS_*` environment variables |
| `_runner` | the socket, uvicorn's settings, the worker processes (`abyss-rules serve`) |
| `_logs` | JSON log lines |
| `client` | a small Python client of the HTTP API (standard library only): the one public module |
| `_library` | the names of abyss-rules the server uses |

Nothing here is imported by `import abyss_rules`: the web stack is needed only to serve.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

__all__ = ["serve_command"]


def serve_command(argv: Sequence[str], stderr: TextIO) -> int:
    """`abyss-rules serve ...`: run the server, or say which extra to install (exit status 2)."""
    try:
        from ._runner import main
    except ImportError as error:
        print(f"abyss-rules serve: error: the server needs the `server` extra ({error.name} is missing): "
              "pip install 'abyss-rules[server]'", file=stderr)
        return 2
    return main(argv)
