"""Playing whole games between bots, one at a time or by the thousand.

* :func:`play_game` plays one game between bots (each sees only its own
  :class:`~abyss_rules.View`, rule 8.3) and returns a :class:`GameResult`
  with the seed, every action and the final state (and, on request, every
  state), so the game can be replayed exactly (rule 9.5).
* :func:`simulate` plays many games between a line-up of bots, on any
  :class:`concurrent.futures.Executor` (threads, processes, or a cluster's
  executor such as Dask's ``Client.get_executor()``), and aggregates them
  into a :class:`SimulationResult`. The result depends only on the line-up,
  the variant, the number of games and the seed -- never on what ran the games.

>>> from abyss_rules.simulate import play_game
>>> result = play_game(["random", "random"], variant="short", seed=1)
>>> result.totals, result.winners
((61, 122), (0,))
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Final

import attrs

from .actions import Action
from .bots import Bot, BotError, make_bot
from .config import Variant
from .errors import AbyssError, Code
from .randomness import normalize_seed
from .rules.dealing import new_game
from .rules.engine import apply
from .state import RoundResult, State
from .views import view

__all__ = [
    "GameResult",
    "SimulationError",
    "derive_seed",
    "play_game",
    "resolve_variant",
]

DEFAULT_MAX_ACTIONS: Final = 1_000_000
"""The default limit on the actions of one game in :func:`play_game` (a safety net against stalling bots)."""


class SimulationError(AbyssError, ValueError):
    """Bad arguments to :func:`play_game` or :func:`simulate`, or a game that never ends.

    >>> try:
    ...     play_game(["greedy"], seed=1)
    ... except SimulationError as error:
    ...     print(error.code, error.rule)
    invalid_players 1.3
    """


def derive_seed(seed: int | bytes, *parts: int | str) -> int:
    """A 64-bit seed derived from ``seed`` and some labels (SHA-256), for games and bots.

    The same inputs always give the same seed, on every machine.

    >>> derive_seed(42, "game", 0) == derive_seed(42, "game", 0) != derive_seed(42, "game", 1)
    True
    """
    h = hashlib.sha256(b"abyss-rules/derive-seed\0" + normalize_seed(seed))
    for part in parts:
        h.update(b"\0" + str(part).encode())
    return int.from_bytes(h.digest()[:8], "big")


def resolve_variant(variant: Variant | str | None) -> Variant:
    """A :class:`~abyss_rules.Variant`, a preset name (``"standard"``, ``"short"``, ``"long"``) or ``None``.

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

    ``states`` is ``None`` unless :func:`play_game` was asked to keep them;
    then ``states[0]`` is the initial state and ``states[i + 1]`` the state
    after ``actions[i]``.

    >>> result = play_game(["random", "random"], variant="short", seed=3, keep_states=True)
    >>> len(result.states) == len(result.actions) + 1, result.states[-1] == result.final
    (True, True)
    """

    seed: int | bytes
    """The game's seed (rule 9.1): ``new_game(players, variant, seed)`` deals the same cards."""
    variant: Variant
    """The rules played."""
    bots: tuple[str, ...]
    """The name of each seat's bot."""
    actions: tuple[Action, ...]
    """Every action, in order."""
    final: State
    """The state at the end (phase ``game_over``)."""
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


def play_game(
    bots: Sequence[Bot | str],
    variant: Variant | str | None = None,
    seed: int | bytes | None = None,
    *,
    keep_states: bool = False,
    max_actions: int = DEFAULT_MAX_ACTIONS,
) -> GameResult:
    """Play one game to its end: seat ``p`` is played by ``bots[p]``.

    A bot is a :class:`~abyss_rules.bots.Bot` or the name of a built-in one
    (``"random"``, ``"greedy"``, ``"counting"``), which is then seeded from
    ``seed`` and its seat. Each bot is asked to act with its own view (rule
    8.3) only, when it is its turn or it owes an opening flip (lowest seat
    first). ``seed=None`` picks a fresh random seed, kept in the result.

    An illegal or malformed action from a bot raises the engine's error, with
    a note naming the seat; a game longer than ``max_actions`` raises
    :class:`SimulationError` (code ``game_too_long``).

    >>> from abyss_rules.bots import CountingBot, GreedyBot
    >>> result = play_game([GreedyBot(), CountingBot()], variant="short", seed=11)
    >>> result.bots, len(result.rounds), result.final.phase.value
    (('greedy', 'counting'), 1, 'game_over')
    """
    v = resolve_variant(variant)
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise SimulationError(Code.INVALID_SIMULATION, f"bots must be a sequence of bots, got {bots!r}")
    if not v.min_players <= len(bots) <= v.max_players:
        raise SimulationError(
            Code.INVALID_PLAYERS,
            f"this variant takes {v.min_players} to {v.max_players} players, got {len(bots)} bot(s)",
        )
    if type(max_actions) is not int or max_actions < 1:
        raise SimulationError(Code.INVALID_SIMULATION, f"max_actions must be a positive int, got "
                                                       f"{max_actions!r}")
    if seed is None:
        seed = secrets.randbits(64)
    players: list[Bot] = []
    for seat, bot in enumerate(bots):
        if isinstance(bot, str):
            players.append(make_bot(bot, derive_seed(seed, "bot", seat)))
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
        seat = state.to_act[0]
        action = players[seat].choose(view(state, seat))
        try:
            state = apply(state, action)
        except AbyssError as error:
            error.add_note(f"raised for {action!r}, chosen by seat {seat}'s bot "
                           f"({_bot_name(players[seat])}) at action {len(actions)}")
            raise
        actions.append(action)
        if states is not None:
            states.append(state)
    return GameResult(
        seed=seed,
        variant=v,
        bots=tuple(_bot_name(b) for b in players),
        actions=tuple(actions),
        final=state,
        states=None if states is None else tuple(states),
    )
