"""The server's settings: one value per option, from command-line flags or `ABYSS_*` environment variables.

Every option has a flag (`--max-body 65536`) and an environment variable (`ABYSS_MAX_BODY=65536`);
a flag wins over the variable, the variable over the default. The worker processes read their
settings from the environment, where `abyss-rules serve` puts them.
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

__all__ = ["OPTIONS", "Settings", "parse_settings"]


@attrs.frozen(slots=True)
class Settings:
    """Everything the server can be told (see `abyss-rules serve --help`)."""

    db: str = "sqlite:///games.db"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    max_body: int = 64 * 1024
    max_games: int = 1000
    client_games: int = 60
    client_window: float = 600.0
    finished_ttl: float = 3600.0
    idle_ttl: float = 86400.0
    max_actions: int = 5000
    bot_delay: float = 0.5
    allow_seed: bool = False
    long_poll: float = 20.0
    heartbeat: float = 15.0
    poll_interval: float = 0.25
    max_connections: int = 1000
    backlog: int = 2048
    max_header_bytes: int = 16 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    keep_alive: float = 5.0
    client_connections: int = 64
    graceful_timeout: float = 10.0
    ws_max_bytes: int = 16 * 1024
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    ws_max_backlog: int = 1024 * 1024
    log_level: str = "info"
    quiet: bool = False


OPTIONS: Final[dict[str, str]] = {
    "db": "the database: sqlite:///PATH (one machine) or postgresql://USER@HOST/NAME (several processes "
          "or machines)",
    "host": "the address to bind (loopback only by default)",
    "port": "the port (0: any free port; the first line printed holds the URL)",
    "workers": "worker processes sharing the listening socket and the database",
    "max_body": "the largest request body, in bytes (an action document is about 150); larger: 413",
    "max_games": "games the database keeps at once (all processes together); more: 503 server_full",
    "client_games": "games one client address may create per --client-window (0: no limit); more: 429",
    "client_window": "the window of --client-games, in seconds",
    "finished_ttl": "delete a finished game this many seconds after its last action",
    "idle_ttl": "delete any game this many seconds after its last action",
    "max_actions": "actions one game may take; more: 409 game_too_long (every variant gets this cap)",
    "bot_delay": "seconds the server's bots wait before each move",
    "allow_seed": "accept a client's seed when creating a game (tests and demos: whoever knows it knows "
                  "every card)",
    "long_poll": "seconds GET /games/{id}/view?after=N may wait",
    "heartbeat": "seconds between keep-alive messages on an idle event stream",
    "poll_interval": "seconds between looks at the database for moves made by other processes",
    "max_connections": "connections (and requests in progress) per worker; more: 503 (uvicorn "
                       "--limit-concurrency)",
    "backlog": "the listen backlog: connections the kernel queues before they are accepted",
    "max_header_bytes": "the largest request line and headers, in bytes; larger: 431",
    "header_timeout": "seconds a request's line and headers may take to arrive, counted from when the "
                      "connection is ready for it (opened, or the last answer sent); later: 408 and close",
    "body_timeout": "seconds a request's body may take to arrive after its headers; later: 408 and close",
    "keep_alive": "seconds an idle connection is kept open between requests",
    "client_connections": "connections one client address may hold open at once, per worker (0: no limit); "
                          "more: 503 too_many_connections",
    "graceful_timeout": "seconds SIGTERM waits for requests and streams in progress before it cuts them",
    "ws_max_bytes": "the largest WebSocket message, in bytes",
    "ws_ping_interval": "seconds between the server's pings on a WebSocket (a client answers them by itself)",
    "ws_ping_timeout": "seconds a WebSocket client has to answer a ping before the server closes it (1011)",
    "ws_max_backlog": "bytes waiting to be sent to one WebSocket client; a client that falls further behind "
                      "(or never reads) is disconnected",
    "log_level": "debug, info, warning or error (logs are JSON lines on stderr)",
    "quiet": "log no request (warnings and errors only)",
}
"""The help text of each option (and so the list of options)."""


def _env_name(field: str) -> str:
    return "ABYSS_" + field.upper()


def _convert(field: attrs.Attribute, text: str) -> Any:  # type: ignore[type-arg]
    kind = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "str")
    if kind == "bool":
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"expected true or false, got {text!r}")
    if kind == "int":
        return int(text)
    if kind == "float":
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite number, got {text!r}")
        return value
    return text


def _check(settings: Settings) -> Settings:
    problems = [f"--{name.replace('_', '-')} must be positive" for name in (
        "max_body", "max_games", "client_window", "finished_ttl", "idle_ttl", "max_actions", "workers",
        "long_poll", "heartbeat", "poll_interval", "max_connections", "backlog", "max_header_bytes",
        "header_timeout", "body_timeout", "keep_alive", "graceful_timeout", "ws_max_bytes",
        "ws_ping_interval", "ws_ping_timeout", "ws_max_backlog")
        if not getattr(settings, name) > 0]
    if not 0 <= settings.port <= 65535:
        problems.append(f"--port must be from 0 to 65535, got {settings.port}")
    if settings.client_games < 0 or settings.client_connections < 0 or settings.bot_delay < 0:
        problems.append("--client-games, --client-connections and --bot-delay must not be negative")
    if settings.log_level not in ("debug", "info", "warning", "error"):
        problems.append(f"--log-level must be debug, info, warning or error, got {settings.log_level!r}")
    if problems:
        raise ValueError("; ".join(problems))
    return settings


def from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings the `ABYSS_*` variables of `environ` (default: `os.environ`) give.

    Raises `ValueError` for a value that is not of its option's type or range.
    """
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for field in attrs.fields(Settings):
        text = environ.get(_env_name(field.name))
        if text is not None:
            try:
                values[field.name] = _convert(field, text)
            except ValueError as error:
                raise ValueError(f"{_env_name(field.name)}: {error}") from None
    return _check(Settings(**values))


def to_env(settings: Settings) -> dict[str, str]:
    """The `ABYSS_*` variables that give `settings` (for the worker processes)."""
    return {_env_name(field.name): str(getattr(settings, field.name)) for field in attrs.fields(Settings)}


def parse_settings(argv: Sequence[str] | None, prog: str = "abyss-rules serve",
                   environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of a command line (flags over `ABYSS_*` variables over defaults); exits on an error."""
    parser = argparse.ArgumentParser(prog=prog, description="Serve abyss-rules games over HTTP and "
                                     "WebSockets (an ASGI app on uvicorn). Every option is also an ABYSS_* "
                                     "environment variable, e.g. ABYSS_DB.")
    try:
        base = from_env(environ)
    except ValueError as error:
        parser.error(str(error))
    for field in attrs.fields(Settings):
        flag = "--" + field.name.replace("_", "-")
        default = getattr(base, field.name)
        help_text = f"{OPTIONS[field.name]} (default {default}; env {_env_name(field.name)})"
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=help_text)
        else:
            parser.add_argument(flag, type=functools.partial(_convert, field), default=default,
                                help=help_text, metavar=field.name.upper())
    args = parser.parse_args(argv)
    try:
        return _check(Settings(**vars(args)))
    except ValueError as error:
        parser.error(str(error))
