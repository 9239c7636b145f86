"""The games of the server: created, read, played and expired through a `Store`.

`Games` is what the web layer calls, from worker threads (every call may wait for the
database); it knows nothing of HTTP. Every game's authoritative
`State` lives in the database; this process only caches the state of a game at a seq it has seen
(a state at a given seq never changes, so the cache is right whichever process wrote it).

An action is checked with `abyss_rules.protocol.submit` against the state at the seq its sender
saw, then stored with `Store.commit_action` only if the game is still at that seq; the loser of a
race -- in this process or another one -- gets `stale_action`. When this process holds the state at
that seq, the action is checked against it without reading the database: the commit's
`WHERE seq = ?` is what says whether the game is still there (and a refusal is confirmed against the
database before it is sent). Seats' tokens never change: the seat of a token is read once.

Bots seated by the creator play from their own views in a background thread of the process that
accepted the move before theirs; if that process dies, the sweeper of any process picks the game up
again.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from . import _library as ar
from ._requests import HttpError
from ._store import Full, Store, TooMany, hash_token

__all__ = ["DEFAULT_LIMITS", "Games", "Limits", "Move", "NewGame"]

_CACHED_STATES: Final = 2048
_CACHED_SEATS: Final = 8192
_LOG: Final = logging.getLogger("abyss_rules.serve")


class Limits(NamedTuple):
    """What the server accepts and keeps (see the command line options of the same names)."""

    max_games: int = 1000
    """Games kept at once (all processes together); one more is refused with 503 `server_full`."""
    client_games: int | None = 60
    """Games one client (address) may create per `client_window` seconds; more: 429. None: no limit."""
    client_window: float = 600.0
    finished_ttl: float = 3600.0
    """A finished game is deleted this many seconds after its last action."""
    idle_ttl: float = 86400.0
    """Any game is deleted after this many seconds without an action."""
    max_actions: int = 5000
    """Actions one game may take (a whole standard game takes a few hundred); more: 409 `game_too_long`."""


DEFAULT_LIMITS: Final = Limits()


class NewGame(NamedTuple):
    """A game just created: its id, the tokens of the seats people play (None for bots), its state."""

    id: str
    tokens: tuple[str | None, ...]
    state: ar.State


class _Known(NamedTuple):
    """What this process last saw of a game: its state (at its seq), its bots, when it last moved."""

    state: ar.State
    bots: list[str | None]
    updated: float


class Move(NamedTuple):
    """An action checked against the game at its seq, not yet stored (`Games.check`; `Games.store_move`)."""

    game_id: str
    before: ar.State
    accepted: ar.Accepted
    bots: list[str | None]


def _to_act(state: ar.State) -> tuple[int, ...]:
    """The seats that may act: the player to move, or those owing opening flips."""
    public = ar.view(state)
    if public.is_over:
        return ()
    return (public.turn,) if public.turn is not None else tuple(public.owing_flips)


class Games:
    """The games of one server process, stored in `store` (shared with other processes or not).

    Args:
        store: The database.
        limits: Creation limits and expiry times.
        bot_delay: Seconds a bot waits before it acts (so that people see each move).
        poll_interval: How often a waiting request looks at the database for moves made by another
            process (moves made by this one wake it at once).
    """

    def __init__(self, store: Store, limits: Limits | None = None, *, bot_delay: float = 0.5,
                 poll_interval: float = 0.25) -> None:
        self.store = store
        self.limits = limits or DEFAULT_LIMITS
        self.bot_delay = bot_delay
        self.poll_interval = poll_interval
        self.closing = False
        self._known: collections.OrderedDict[str, _Known] = collections.OrderedDict()
        self._seats: collections.OrderedDict[tuple[str, str], int] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.changed = threading.Condition()
        """Notified whenever this process stores an action (or stops): waiting requests wake up."""
        self.listeners: list[Callable[[str, int], None]] = []
        """Called as `listener(game_id, seq)` after each action this process stores (from its thread)."""
        self._bot_games: collections.deque[str] = collections.deque()
        self._bot_wakeup = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- background work ---------------------------------------------------------------------

    def start(self, sweep_interval: float | None = None) -> None:
        """Start the bot player and the sweeper (expiry, and bots of games a dead process left)."""
        interval = sweep_interval if sweep_interval is not None else min(
            60.0, max(0.2, min(self.limits.finished_ttl, self.limits.idle_ttl) / 4))
        for name, target, args in (("bots", self._bot_loop, ()), ("sweeper", self._sweep_loop, (interval,))):
            thread = threading.Thread(target=target, args=args, name=f"abyss-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the background threads, and wake every waiting request so that it answers now."""
        self.closing = True
        self._bot_wakeup.set()
        with self.changed:
            self.changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    def _sweep_loop(self, interval: float) -> None:
        """Expire games every `interval` seconds; every second, pick up bots a dead process left."""
        expired_at = -float("inf")
        while not self.closing:
            try:
                if time.monotonic() - expired_at >= interval:
                    self.expire()
                    expired_at = time.monotonic()
                stalled = self.store.waiting_for_bots(time.time() - max(2.0, 4 * self.bot_delay))
                if stalled:
                    self._bot_games.extend(stalled)
                    self._bot_wakeup.set()
            except Exception as error:  # a database hiccup: say so, try again next time
                _LOG.warning("the sweeper failed; retrying", extra={"error": repr(error)})
            with self.changed:
                self.changed.wait_for(lambda: self.closing, timeout=min(interval, 1.0))

    def expire(self) -> list[str]:
        """Delete the games whose time is up now; their ids."""
        gone = self.store.expire(time.time(), self.limits.finished_ttl, self.limits.idle_ttl)
        with self._lock:
            for game_id in gone:
                self._known.pop(game_id, None)
        return gone

    # -- games ---------------------------------------------------------------------------------

    def create(self, players: int, variant: ar.Variant, seed: int | None, bots: Sequence[str | None],
               creator: str) -> NewGame:
        """A new game with a fresh token per seat played by a person; `bots[i]` names seat i's bot.

        Raises `AbyssError` for a bad set-up, `HttpError` 503 / 429 for the limits.
        """
        start = ar.Record.start(players, variant, seed)  # seed=None: a fresh secret seed (rule 9.1)
        state = start.initial_state()
        tokens = tuple(None if bot else secrets.token_urlsafe(24) for bot in bots)
        game_id = secrets.token_hex(8)
        try:
            self.store.create(game_id, state=ar.dumps_state(state), start=start.to_json(),
                              token_hashes=[None if token is None else hash_token(token) for token in tokens],
                              bots=json.dumps(list(bots)), waiting_bot=self._bot_to_act(state, bots),
                              creator=creator, now=time.time(), max_games=self.limits.max_games,
                              client_limit=None if self.limits.client_games is None
                              else (self.limits.client_games, self.limits.client_window))
        except Full:
            raise HttpError.refuse(503, "server_full", f"this server keeps at most {self.limits.max_games} "
                                   "games", headers={"Retry-After": "60"}) from None
        except TooMany as error:
            raise HttpError.refuse(429, "too_many_games", f"a client may create {self.limits.client_games} "
                                   f"games per {self.limits.client_window:g} s; try again in "
                                   f"{error.retry_after:.0f} s",
                                   headers={"Retry-After": str(int(error.retry_after + 0.999))}) from None
        self._remember(game_id, _Known(state, list(bots), time.time()))
        if any(bots):
            self._wake_bots(game_id)
        return NewGame(game_id, tokens, state)

    def _remember(self, game_id: str, known: _Known) -> None:
        with self._lock:
            cached = self._known.get(game_id)
            if cached is None or cached.state.seq <= known.state.seq:
                self._known[game_id] = known
                self._known.move_to_end(game_id)
                while len(self._known) > _CACHED_STATES:
                    self._known.popitem(last=False)

    def _expired(self, over: bool, updated: float) -> bool:
        idle = time.time() - updated
        return idle > self.limits.idle_ttl or (over and idle > self.limits.finished_ttl)

    def _row(self, game_id: str) -> _Known:
        """The game as stored now (404 `no_such_game` for an unknown or expired one)."""
        with self._lock:
            cached = self._known.get(game_id)
        row = self.store.load(game_id, -1 if cached is None else cached.state.seq) \
            if len(game_id) == 16 else None
        if row is None or self._expired(row.over, row.updated):
            raise HttpError.refuse(404, "no_such_game", f"no game {game_id[:40]!r} on this server "
                                   "(games expire: see the server's options)")
        if row.state is None or row.bots is None:  # held at this seq: a state at a given seq never changes
            assert cached is not None
            known = _Known(cached.state, cached.bots, row.updated)
        else:
            known = _Known(ar.loads_state(row.state), json.loads(row.bots), row.updated)
        self._remember(game_id, known)
        return known

    def state(self, game_id: str) -> ar.State:
        """The authoritative state of a game (404 `no_such_game`): never sent to clients (rule 8.2)."""
        return self._row(game_id).state

    def known_seat(self, game_id: str, token: str) -> int | None:
        """The seat whose token is `token` if this process has seen it, else None (`seat_of` reads)."""
        with self._lock:
            return self._seats.get((game_id, hash_token(token)))

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat whose token is `token`, or `None` (only hashes are stored)."""
        key = (game_id, hash_token(token))
        with self._lock:
            seat = self._seats.get(key)
        if seat is None:
            seat = self.store.seat_of(*key)
            if seat is not None:  # a seat's token never changes: remember it
                with self._lock:
                    self._seats[key] = seat
                    while len(self._seats) > _CACHED_SEATS:
                        self._seats.popitem(last=False)
        return seat

    def bots(self, game_id: str) -> list[str | None]:
        """Seat i's bot's name, or None for a seat a person plays."""
        return self._row(game_id).bots

    def check(self, game_id: str, action: ar.Action, *, seq: int | None, seat: int | None) -> Move:
        """Check `action`, made at `seq` by `seat`, against the game at `seq`; nothing is stored yet.

        Raises `AbyssError` (the rules' refusal, `stale_action`, `seat_mismatch`...) or `HttpError`
        (404 for an unknown game, 409 `game_too_long`), as the stored game at this moment says.
        """
        return self.check_known(game_id, action, seq=seq, seat=seat) or \
            self._check(game_id, self._row(game_id), action, seq, seat)

    def check_known(self, game_id: str, action: ar.Action, *, seq: int | None,
                    seat: int | None) -> Move | None:
        """`check` against the state this process holds at `seq`, without the database: the move if the
        action is accepted there, else None (the database has the last word: call `check`)."""
        with self._lock:
            known = self._known.get(game_id)
        if known is None or seq is None or known.state.seq != seq or known.state.is_over \
                or self._expired(False, known.updated):
            return None
        with contextlib.suppress(ar.AbyssError, HttpError):  # refused: confirmed by the database
            return self._check(game_id, known, action, seq, seat)
        return None

    def _check(self, game_id: str, known: _Known, action: ar.Action, seq: int | None,
               seat: int | None) -> Move:
        state = known.state
        if state.seq >= self.limits.max_actions and not state.is_over:
            raise HttpError.refuse(409, ar.Code.GAME_TOO_LONG, f"this server stops a game at "
                                   f"{self.limits.max_actions} actions", seq=state.seq)
        accepted = ar.submit(state, action, seq=seq, player=seat, require_seq=True)
        return Move(game_id, state, accepted, known.bots)

    def store_move(self, move: Move) -> concurrent.futures.Future[bool]:
        """Start storing a checked move: the future says whether it was stored (False: another won)."""
        after = move.accepted.state
        return self.store.commit_action(move.game_id, move.before.seq, state=ar.dumps_state(after),
                                        action=ar.to_notation(move.accepted.action), over=after.is_over,
                                        waiting_bot=self._bot_to_act(after, move.bots), now=time.time())

    def stored(self, move: Move, stored: bool) -> None:
        """After `store_move`: remember and announce a stored move, or raise 409 `stale_action` (or 404)."""
        if not stored:
            self._row(move.game_id)  # 404 if the game expired meanwhile
            seq = move.before.seq
            raise HttpError.refuse(409, ar.Code.STALE_ACTION, f"the action was made at seq {seq}, and "
                                   "another action was accepted at that seq first: look at the new view",
                                   seq=seq + 1)
        after = move.accepted.state
        self._remember(move.game_id, _Known(after, move.bots, time.time()))
        for listener in self.listeners:
            listener(move.game_id, after.seq)
        if any(move.bots):
            self._wake_bots(move.game_id)

    def act(self, game_id: str, action: ar.Action, *, seq: int | None, seat: int | None) -> ar.Accepted:
        """Check `action`, made at `seq` by `seat`, and store it (waits for the commit).

        Raises what `check` raises, or `HttpError` 409 `stale_action` when another request stored an
        action at this seq first.
        """
        move = self.check(game_id, action, seq=seq, seat=seat)
        self.stored(move, self.store_move(move).result())
        return move.accepted

    def record(self, game_id: str) -> ar.Record:
        """The full record: the set-up, the seed and every action (secret while the game runs)."""
        self.state(game_id)  # 404 for an unknown or expired game
        stored = self.store.record(game_id)
        if stored is None:
            raise HttpError.refuse(404, "no_such_game", f"no game {game_id[:40]!r} on this server")
        start, actions = stored
        return ar.Record.from_json(start).with_actions(*(ar.parse_notation(text) for text in actions))

    # -- bots ----------------------------------------------------------------------------------

    @staticmethod
    def _bot_to_act(state: ar.State, bots: Sequence[str | None]) -> bool:
        return any(bots[seat] for seat in _to_act(state))

    def _wake_bots(self, game_id: str) -> None:
        self._bot_games.append(game_id)
        self._bot_wakeup.set()

    def _bot_loop(self) -> None:
        while not self.closing:
            self._bot_wakeup.wait()
            self._bot_wakeup.clear()
            while self._bot_games and not self.closing:
                game_id = self._bot_games.popleft()
                try:
                    self.play_bots(game_id)
                except HttpError:  # the game expired meanwhile
                    pass
                except Exception as error:  # the database is away...: the sweeper retries
                    _LOG.warning("a bot could not move; the sweeper retries",
                                 extra={"game": game_id, "error": repr(error)})

    def play_bots(self, game_id: str) -> int:
        """Let the bots of a game act while one of them is to act; how many actions they made."""
        made = 0
        while not self.closing:
            state, bots, _ = self._row(game_id)
            seats = [seat for seat in _to_act(state) if bots[seat]]
            if not seats:
                return made
            if self.bot_delay:
                with self.changed:
                    self.changed.wait_for(lambda: self.closing, timeout=self.bot_delay)
            seat = seats[0]
            bot = ar.make_bot(str(bots[seat]), seed=secrets.randbits(64))
            try:
                self.act(game_id, bot.choose(ar.view(state, seat)), seq=state.seq, seat=seat)
                made += 1
            except (ar.AbyssError, HttpError) as error:
                if getattr(error, "code", None) != ar.Code.STALE_ACTION and not (
                        isinstance(error, HttpError) and error.verdict.code == ar.Code.STALE_ACTION):
                    raise
        return made
