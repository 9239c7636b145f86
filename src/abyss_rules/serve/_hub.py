"""Waking the coroutines that wait for a game to move: the long polls, event streams and WebSockets.

One `Hub` per worker process, on its event loop. A move stored by this process wakes its waiters
at once (`Games.listeners`, called from the worker thread that stored it); a move stored by another
process is seen within `poll_interval`, when the hub reads the seqs of every game waited on in one
query. Only games someone waits on are remembered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Final

import anyio
import anyio.to_thread

from ._games import Games

__all__ = ["Hub"]

_LOG: Final = logging.getLogger("abyss_rules.serve")


class Hub:
    """Wakes the coroutines waiting for a game to move past a seq (one per process, on the event loop)."""

    def __init__(self, games: Games, poll_interval: float) -> None:
        self.games = games
        self.poll_interval = poll_interval
        self.closing = False
        self._known: dict[str, int] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._waiting: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0

    def start(self) -> None:
        """Listen to this process's moves (any thread) -- call on the event loop."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self.games.listeners.append(self._from_thread)

    def _from_thread(self, game_id: str, seq: int) -> None:
        if self._loop is None or self._loop.is_closed():
            return
        if threading.get_ident() == self._thread:  # on the event loop already: no wake-up needed
            self.moved(game_id, seq)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self._loop.call_soon_threadsafe(self.moved, game_id, seq)

    def moved(self, game_id: str, seq: int) -> None:
        """Game `game_id` is at `seq` now: wake its waiters (on the event loop). Only games someone
        waits on are remembered."""
        if game_id in self._waiting and seq > self._known.get(game_id, -1):
            self._known[game_id] = seq
            event = self._events.pop(game_id, None)
            if event is not None:
                event.set()

    def close(self) -> None:
        """Wake everyone: the server stops."""
        self.closing = True
        for event in self._events.values():
            event.set()
        self._events.clear()

    async def wait_past(self, game_id: str, seq: int, timeout: float) -> None:
        """Return once the game is known to be past `seq`, after `timeout` seconds, or when closing."""
        deadline = time.monotonic() + timeout
        self._waiting[game_id] = self._waiting.get(game_id, 0) + 1
        try:
            while self._known.get(game_id, -1) <= seq and not self.closing:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                event = self._events.setdefault(game_id, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), remaining)
        finally:
            self._waiting[game_id] -= 1
            if not self._waiting[game_id]:
                del self._waiting[game_id]
                self._known.pop(game_id, None)
                self._events.pop(game_id, None)

    async def poll(self) -> None:
        """Forever: every `poll_interval`, read the seqs of the games waited on (moves of other processes)."""
        while not self.closing:
            await asyncio.sleep(self.poll_interval)
            watched = list(self._waiting)[:1000]
            if not watched:
                continue
            try:
                seqs = await anyio.to_thread.run_sync(self.games.store.seqs, watched)
            except Exception as error:  # the database is away: waiters keep waiting, readiness says so
                _LOG.warning("polling the database failed", extra={"error": repr(error)})
                continue
            for game_id in watched:
                if game_id not in seqs:  # deleted (expired): wake its waiters, they will find out
                    self.moved(game_id, 2**62)
                else:
                    self.moved(game_id, seqs[game_id])
