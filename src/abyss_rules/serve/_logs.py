"""Structured logs: one JSON object per line on stderr.

Each line holds the time, the level, the logger, the message and the fields a log call passes as
`extra`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Final

__all__ = ["JsonFormatter", "configure", "uvicorn_log_config"]

_STANDARD: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                                + f".{int(record.msecs):03d}Z", "level": record.levelname.lower(),
                                "logger": record.name, "message": record.getMessage()}
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def uvicorn_log_config(level: str) -> dict[str, Any]:
    """uvicorn's `log_config`: its loggers write JSON lines like the server's."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "abyss_rules.serve": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
        },
    }


def configure(level: str, quiet: bool = False) -> None:
    """Send the server's logs to stderr as JSON lines (`quiet`: warnings and errors only)."""
    logger = logging.getLogger("abyss_rules.serve")
    if not any(isinstance(handler.formatter, JsonFormatter) for handler in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.setLevel("WARNING" if quiet else level.upper())
    logger.propagate = False
