"""Playing whole games between bots, one at a time or by the thousand.

- `play_game` plays one game between bots (each sees only its own `View`, rule 8.3) and
  returns a `GameResult` with the seed, every action and the final state (and, on
  request, every state), so the game can be replayed exactly (rule 9.5).
- `simulate` plays many games between a line-up of bots, on any
  `concurrent.futures.Executor` (threads, processes, or a cluster's executor such as
  Dask's `Client.get_executor()`), and aggregates them into a `SimulationResult`.
  The result depends only on the line-up, the variant, the number of games and the
  seed -- never on what ran the games.

Examples:
    >>> from abyss_rules.simulation import play_game
    >>> result = play_game(["random", "random"], variant="short", seed=1)
    >>> result.totals, result.winners
    ((61, 122), (0,))
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from itertools import islice
from typing import Final

import attrs

from ..actions import Action
from ..bots import Bot, BotError, BotFactory, make_bot
from ..config import Variant
from ..errors import AbyssError, Code, SimulationError
from ..randomness import normalize_seed, secret_repr
from ..records import Record
from ..rules._dealing import new_game, player_count_problem
from ..rules._engine import apply
from ..state import RoundResult, State
from ..views import view
from ._results import (
    BotStats,
    GameStore,
    GameSummaries,
    GameSummary,
    RoundSummary,
    SimulationInterrupted,
    SimulationResult,
    aggregate,
    lineup,
    wilson_interval,
)

__all__ = [
    "DEFAULT_MAX_ACTIONS",
    "BotStats",
    "GameResult",
    "GameStore",
    "GameSummaries",
    "GameSummary",
    "RoundSummary",
    "SimulationError",
    "SimulationInterrupted",
    "SimulationResult",
    "derive_seed",
    "lineup",
    "play_game",
    "resolve_variant",
    "simulate",
    "wilson_interval",
]

_PROGRESS_EVERY: Final = 1.0
"""Seconds between two calls of `simulate`'s `progress` callback at most, with an executor."""

_IN_FLIGHT: Final = 64
"""Tasks `simulate` keeps submitted to an executor at most: more are sent as these finish, so
that an interruption has few tasks to cancel (a Dask cancellation is a round trip each) and a
long run holds few futures."""

DEFAULT_MAX_ACTIONS: Final = 1_000_000
"""The default limit on the actions of one game in `play_game` (a safety net against
stalling bots)."""




def derive_seed(seed: int | bytes, *parts: int | str) -> int:
    """A 64-bit seed derived from `seed` and some labels (SHA-256), for games and bots.

    The first 8 bytes, big-endian, of SHA-256 over `b"abyss-rules/derive-seed\\0"`, the 32
    bytes of `seed` (rule 9.1) and, for each label, a zero byte and the label's text. The
    same inputs give the same seed on every machine.

    Args:
        seed: An int seed (`0 <= seed < 2**256`) or 32 bytes.
        *parts: Labels, e.g. `"game", 17` or `"bot", 1`.

    Returns:
        An int from 0 to `2**64 - 1`.

    Examples:
        >>> derive_seed(42, "game", 0) == derive_seed(42, "game", 0) != derive_seed(42, "game", 1)
        True
    """
    h = hashlib.sha256(b"abyss-rules/derive-seed\0" + normalize_seed(seed))
    for part in parts:
        h.update(b"\0" + str(part).encode())
    return int.from_bytes(h.digest()[:8], "big")


def resolve_variant(variant: Variant | str | None) -> Variant:
    """The variant meant by a `Variant`, a preset name or `None`.

    Args:
        variant: A variant, `"standard"`, `"short"`, `"long"`, or `None` (standard).

    Raises:
        SimulationError: Anything else (code `invalid_variant`).

    Examples:
        >>> resolve_variant("long").target_score
        150
    """
    if variant is None:
        return Variant.standard()
    if isinstance(variant, Variant):
        return variant
    presets = Variant.presets()
    if isinstance(variant, str) and variant in presets:
        return presets[variant]
    raise SimulationError(
        Code.INVALID_VARIANT,
        f"variant must be a Variant or one of {', '.join(presets)}, got {variant!r}",
    )


def _bot_name(bot: object) -> str:
    name = getattr(bot, "name", None)
    return name if isinstance(name, str) else type(bot).__name__


@attrs.frozen(slots=True)
class GameResult:
    """One finished game: how to replay it, and how it ended (rules 6.6, 7.4).

    `states` is `None` unless `play_game` was asked to keep them; then `states[0]` is the
    initial state and `states[i + 1]` the state after `actions[i]`.

    Examples:
        >>> result = play_game(["random", "random"], variant="short", seed=3, keep_states=True)
        >>> len(result.states) == len(result.actions) + 1, result.states[-1] == result.final
        (True, True)
    """

    seed: int | bytes = attrs.field(repr=secret_repr)
    """The game's seed (rule 9.1): `new_game(players, variant, seed)` deals the same cards."""
    variant: Variant
    """The rules played."""
    bots: tuple[str, ...]
    """The name of each seat's bot."""
    actions: tuple[Action, ...]
    """Every action, in order."""
    final: State
    """The state at the end (phase `game_over`)."""
    states: tuple[State, ...] | None = None
    """Every state, when kept."""

    @property
    def players(self) -> int:
        """The number of players."""
        return self.final.players

    @property
    def totals(self) -> tuple[int, ...]:
        """Every seat's final total (rule 7.1)."""
        return self.final.totals

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total (rule 7.4)."""
        return self.final.winners

    @property
    def rounds(self) -> tuple[RoundResult, ...]:
        """Every round's result, reveal and scores included (rule 6.6)."""
        return self.final.history

    def to_record(self) -> Record:
        """The game as a `Record`: its set-up and actions, the document of a played game
        (`to_json()` writes it; `states()` replays it, rule 9.5).

        Examples:
            >>> result = play_game(["random", "random"], variant="short", seed=3)
            >>> record = result.to_record()
            >>> record.actions == result.actions and record.replay() == result.final
            True
        """
        return Record.start(self.players, self.variant, self.seed).with_actions(*self.actions)


def _check_callbacks(**callbacks: object) -> None:
    for name, callback in callbacks.items():
        if callback is not None and not callable(callback):
            raise SimulationError(Code.INVALID_SIMULATION, f"{name} must be a function or None, got "
                                                           f"{type(callback).__name__}")


def play_game(
    bots: Sequence[Bot | str],
    variant: Variant | str | None = None,
    seed: int | bytes | None = None,
    *,
    keep_states: bool = False,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    on_action: Callable[[State, Action, State], object] | None = None,
    next_seat: Callable[[State], int] | None = None,
) -> GameResult:
    """Play one game to its end: seat `p` is played by `bots[p]`.

    Each bot is asked to act with its own `View` only (rule 8.3), when it is its
    turn or it owes an opening flip (the lowest such seat first, unless
    `next_seat` says otherwise).

    The two hooks are the seam for a caller that drives a game of its own on this loop,
    e.g. the command line's `play` (a human is a bot that reads its moves, and the hook
    tells each action as it happens). An exception raised by a bot or a hook stops the
    game and propagates.

    Args:
        bots: One per seat: a `Bot`, or the name of a built-in one (`"random"`,
            `"greedy"`, `"counting"`), which is then made with the seed
            `derive_seed(seed, "bot", seat)`.
        variant: A `Variant`, a preset name, or `None` (standard).
        seed: The game's seed (rule 9.1); `None` picks a fresh random one, kept in the result.
        keep_states: Keep every state in the result (`GameResult.states`).
        max_actions: Stop a game that has not ended after this many actions.
        on_action: Called as `on_action(before, action, after)` after every action is
            applied (its return value is ignored).
        next_seat: Called with the state when several seats may act (the opening flips,
            which may come in any order, rule 2.2); it returns the seat to ask, one of
            `state.to_act`. By default the lowest.

    Returns:
        The finished game.

    Raises:
        SimulationError: Bad arguments (`invalid_players`, `invalid_variant`,
            `invalid_simulation`; also when `next_seat` returns a seat that may not act), or
            the game reached `max_actions` (`game_too_long`).
        BotError: An entry is neither a bot nor a built-in bot's name (`unknown_bot`).
        IllegalActionError: A bot chose an illegal action; a note on the error names the
            seat and the bot (`MalformedActionError` for something that is not an action).

    Examples:
        >>> from abyss_rules.bots import CountingBot, GreedyBot
        >>> result = play_game([GreedyBot(), CountingBot()], variant="short", seed=11)
        >>> result.bots, len(result.rounds), result.final.phase.value
        (('greedy', 'counting'), 1, 'game_over')
    """
    v = resolve_variant(variant)
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise SimulationError(Code.INVALID_SIMULATION, f"bots must be a sequence of bots, got {bots!r}")
    if (problem := player_count_problem(v, len(bots))) is not None:
        raise SimulationError(Code.INVALID_PLAYERS, f"{problem} (one bot per seat)")
    if type(max_actions) is not int or max_actions < 1:
        raise SimulationError(Code.INVALID_SIMULATION, f"max_actions must be a positive int, got "
                                                       f"{max_actions!r}")
    _check_callbacks(on_action=on_action, next_seat=next_seat)
    if seed is None:
        seed = secrets.randbits(64)
    players: list[Bot] = []
    for seat, bot in enumerate(bots):
        if isinstance(bot, str):
            players.append(make_bot(bot, derive_seed(seed, "bot", seat)))
        elif isinstance(bot, type):
            raise BotError(Code.UNKNOWN_BOT, f"seat {seat}: {bot.__name__} is a class; pass a bot "
                                             f"({bot.__name__}()) or a built-in bot's name")
        elif isinstance(bot, Bot):
            players.append(bot)
        else:
            raise BotError(Code.UNKNOWN_BOT, f"seat {seat}: {bot!r} is neither a bot (no choose method) "
                                             "nor the name of a built-in bot")
    state = new_game(len(players), v, seed)
    actions: list[Action] = []
    states: list[State] | None = [state] if keep_states else None
    while not state.is_over:
        if len(actions) >= max_actions:
            raise SimulationError(
                Code.GAME_TOO_LONG,
                f"the game did not end within {max_actions} actions (round {state.round}); "
                "the bots may be stalling: consider the variant's max_turns_per_round (rule 6.7)",
            )
        to_act = state.to_act
        seat = to_act[0]
        if next_seat is not None and len(to_act) > 1:
            seat = next_seat(state)
            if seat not in to_act:
                raise SimulationError(Code.INVALID_SIMULATION, f"next_seat returned {seat!r}; the seats "
                                                               f"that may act are {to_act}")
        action = players[seat].choose(view(state, seat))
        before = state
        try:
            state = apply(state, action)
        except AbyssError as error:
            error.add_note(f"raised for {action!r}, chosen by seat {seat}'s bot "
                           f"({_bot_name(players[seat])}) at action {len(actions)}")
            raise
        actions.append(action)
        if states is not None:
            states.append(state)
        if on_action is not None:
            on_action(before, action, state)
    return GameResult(
        seed=seed,
        variant=v,
        bots=tuple(_bot_name(b) for b in players),
        actions=tuple(actions),
        final=state,
        states=None if states is None else tuple(states),
    )


# ---------------------------------------------------------------------------
# Many games: simulate
# ---------------------------------------------------------------------------

Entry = str | BotFactory
"""A line-up entry of `simulate`: a built-in bot's name, or a factory `seed -> Bot`."""


def _play_chunk(
    entries: tuple[Entry, ...], variant: Variant, seed: int | bytes, start: int, stop: int, rotate: bool,
    max_actions: int,
) -> GameStore:
    """Play games `start` to `stop - 1` of a simulation (runs wherever the executor sends it)
    and keep their numbers (a few integers a game travel back, not objects)."""
    players = len(entries)
    out = GameStore(players)
    for index in range(start, stop):
        game_seed = derive_seed(seed, "game", index)
        bots: list[Bot] = []
        for seat, entry in enumerate(lineup(index, players, rotate)):
            factory = entries[entry]
            bot_seed = derive_seed(game_seed, "bot", seat)
            bots.append(make_bot(factory, bot_seed) if isinstance(factory, str) else factory(bot_seed))
        result = play_game(bots, variant, game_seed, max_actions=max_actions)
        out.add(game_seed, len(result.actions), result.winners, result.totals, [
            (r.scores, -1 if r.closer is None else r.closer,
             r.penalized * GameStore.PENALIZED | r.capped * GameStore.CAPPED, r.turns)
            for r in result.rounds
        ])
    return out


def _labels(entries: Sequence[Entry]) -> list[str]:
    names = [e if isinstance(e, str) else str(getattr(e, "name", getattr(e, "__name__", "bot")))
             for e in entries]
    return [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def simulate(
    bots: Sequence[Entry],
    games: int,
    seed: int | bytes | None = None,
    executor: Executor | None = None,
    *,
    variant: Variant | str | None = None,
    rotate: bool = True,
    chunk_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_actions: int = DEFAULT_MAX_ACTIONS,
) -> SimulationResult:
    """Play `games` games between the line-up `bots` and aggregate the results.

    Game `i` is dealt with the seed `derive_seed(seed, "game", i)` and its bots are made
    with `derive_seed(game_seed, "bot", seat)`; the summaries are put back in game order.
    So the result depends only on the arguments, never on what played the games: `None`
    (here, in order), a `ThreadPoolExecutor`, a `ProcessPoolExecutor` or a cluster's
    executor (Dask's `Client.get_executor()`) give equal results.

    Args:
        bots: The line-up, one entry per seat: a built-in bot's name or a factory
            `seed -> Bot` (a bot class such as `GreedyBot` is one). Every game gets fresh
            bots. For process or cluster executors the factories must be picklable
            (module-level classes or functions, `functools.partial`; not lambdas).
        games: How many games to play (at least 1).
        seed: The master seed (rule 9.1); `None` picks a fresh one, kept in the result.
        executor: Any `concurrent.futures.Executor`, or `None` to play in this thread.
        variant: A `Variant`, a preset name, or `None` (standard).
        rotate: Rotate the seats: in game `i`, seat `s` is played by entry
            `(s + i) % players`, so with 2 players every entry plays both seat orders
            equally often (for an even number of games). `False` keeps every entry in its
            seat.
        chunk_size: Games per task sent to the executor (default: one task per game
            without an executor, else `games // 64` clamped to 1..16, so that tasks are
            short: progress comes often and an interruption stops soon). At most 64 tasks
            are in flight at once; the next are sent as they finish.
        progress: Called as `progress(done, total)` in this thread: once with `done = 0`
            at the start, then as games finish and, with an executor, at least once a
            second even when none did (a progress display can update its clock).
        max_actions: The limit of `play_game` for each game.

    Returns:
        The per-bot statistics and every game's summary.

    Raises:
        SimulationError: Bad arguments (`invalid_simulation`, `invalid_players`,
            `invalid_variant`) or a game that does not end (`game_too_long`).
        BotError: A name that is not a built-in bot (`unknown_bot`).
        SeedError: A seed that is not an int in `[0, 2**256)` or 32 bytes.
        SimulationInterrupted: Ctrl-C (a `KeyboardInterrupt`) arrived: the pending tasks
            are cancelled and the exception's `result` holds the games that finished.

    Examples:
        >>> from concurrent.futures import ThreadPoolExecutor
        >>> from abyss_rules.bots import GreedyBot
        >>> here = simulate([GreedyBot, "random"], games=6, seed=7, variant="short")
        >>> with ThreadPoolExecutor(2) as pool:
        ...     there = simulate([GreedyBot, "random"], games=6, seed=7, variant="short",
        ...                      executor=pool)
        >>> here == there, [b.label for b in here.bots], here.bots[0].games
        (True, ['greedy', 'random'], 6)
    """
    v = resolve_variant(variant)
    entries = _check_entries(bots, v)
    if type(games) is not int or games < 1:
        raise SimulationError(Code.INVALID_SIMULATION, f"games must be a positive int, got {games!r}")
    if chunk_size is not None and (type(chunk_size) is not int or chunk_size < 1):
        raise SimulationError(Code.INVALID_SIMULATION, f"chunk_size must be a positive int, got "
                                                       f"{chunk_size!r}")
    if executor is not None and not isinstance(executor, Executor):
        raise SimulationError(Code.INVALID_SIMULATION, f"executor must be a concurrent.futures.Executor, "
                                                       f"got {type(executor).__name__}")
    _check_callbacks(progress=progress)
    if seed is None:
        seed = secrets.randbits(64)
    else:
        normalize_seed(seed)  # a bad seed fails here, not in a worker (rule 9.1)
    if chunk_size is None:
        chunk_size = 1 if executor is None else max(1, min(16, games // 64))
    bounds = [(start, min(start + chunk_size, games)) for start in range(0, games, chunk_size)]
    results: dict[int, GameStore] = {}  # by chunk (an executor finishes them in any order)
    labels = _labels(entries)
    store = GameStore(len(entries))

    def finished() -> SimulationResult:
        for n in sorted(results):
            store.extend(results[n])
        results.clear()
        return SimulationResult(seed=seed, variant=v, rotate=rotate, bots=aggregate(labels, store, rotate),
                                store=store)

    if progress is not None:
        progress(0, games)
    done = 0
    if executor is None:
        try:
            for start, stop in bounds:  # in order: straight into the store
                store.extend(_play_chunk(entries, v, seed, start, stop, rotate, max_actions))
                done += stop - start
                if progress is not None:
                    progress(done, games)
        except KeyboardInterrupt:
            raise SimulationInterrupted(finished(), games) from None
        return finished()
    futures: dict[Future[GameStore], int] = {}  # the tasks in flight
    chunks = iter(enumerate(bounds))
    try:
        while True:
            for n, (start, stop) in islice(chunks, _IN_FLIGHT - len(futures)):
                futures[executor.submit(_play_chunk, entries, v, seed, start, stop, rotate,
                                        max_actions)] = n
            if not futures:
                break
            ready, _ = wait(futures, timeout=_PROGRESS_EVERY, return_when=FIRST_COMPLETED)
            for future in ready:  # dropped from the tasks in flight once its games are kept
                n = futures[future]
                results[n] = future.result()
                del futures[future]
                done += len(results[n])
            if progress is not None:  # also when nothing finished: the caller's clock moves on
                progress(done, games)
    except BaseException as error:
        for future in futures:
            future.cancel()
        if isinstance(error, KeyboardInterrupt):
            for future, n in futures.items():
                if n not in results and future.done() and not future.cancelled() \
                        and future.exception() is None:
                    results[n] = future.result()
            raise SimulationInterrupted(finished(), games) from None
        raise
    return finished()


def _check_entries(bots: object, v: Variant) -> tuple[Entry, ...]:
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise SimulationError(Code.INVALID_SIMULATION, f"bots must be a sequence (one entry per seat), got "
                                                       f"{bots!r}")
    if (problem := player_count_problem(v, len(bots))) is not None:
        raise SimulationError(Code.INVALID_PLAYERS, f"{problem} (one bot per seat)")
    for i, entry in enumerate(bots):
        if isinstance(entry, str):
            make_bot(entry, 0)  # an unknown name raises BotError (unknown_bot)
        elif not callable(entry) or (not isinstance(entry, type) and isinstance(entry, Bot)):
            raise SimulationError(
                Code.INVALID_SIMULATION,
                f"line-up entry {i} ({entry!r}) must be a bot name or a factory seed -> Bot (e.g. the class "
                "GreedyBot), not a bot: every game needs fresh bots",
            )
    return tuple(bots)
