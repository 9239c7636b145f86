"""Built-in bots: players that choose their actions from a `View` alone.

A bot is anything with a `choose(view) -> Action` method (the `Bot` protocol).
It is handed the public view of its own seat (rule 8.3) -- never the `State`,
so it cannot see a face-down card or the draw pile (rule 8.2) -- and must
return one of `view.legal_actions`.

Five bots come with the library, weakest first (their measured strength is on the Bots page of
the docs; `LEVELS` names four of them for apps):

| bot | how it plays |
|---|---|
| `RandomBot` | a uniformly random legal action (a seeded `random.Random`) |
| `GreedyBot` | one-step greedy on the expected score of its own grid, with a fixed guess (the deck's mean) for every face-down card |
| `CountingBot` | the same search, but it counts cards: the unseen cards are the deck minus every public card (rule 8.1), which gives the odds of the next draw; it also weighs what its discards give the next player and the risk of the closer penalty (rule 6.5) |
| `SearchBot` | `counting`'s moves, except near a round's end: determinized rollouts over states sampled from its view, with a budget of rollouts or seconds |
| `ExpertBot` | `counting`'s planner with its weights tuned for winning (what a card turned up is worth, when to close): the strongest |

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.bots import GreedyBot
    >>> state = ar.new_game(players=2, seed=5)
    >>> action = GreedyBot().choose(ar.view(state, 0))
    >>> action in ar.legal_actions(state)
    True
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import importlib.util
import os
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar, Final, Protocol, runtime_checkable

from ..actions import Action
from ..errors import BotError, Code
from ..views import View


def _sources(names: tuple[str, ...]) -> None:
    """Import the modules `names` of this package from their `.py` sources, even where a compiled
    module of the same name lies beside them (Python would take that one first): what
    `ABYSS_RULES_PURE=1` asks for. In dependency order: each imports only the ones before it."""
    for name in names:
        full = f"{__name__}.{name}"
        spec = importlib.util.spec_from_file_location(full, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)


if os.environ.get("ABYSS_RULES_PURE") == "1":
    _sources(("_odds", "_model", "_tables", "_planner"))

from . import _model, _odds, _planner, _tables  # noqa: E402  (after the choice of the sources)
from ._search import RolloutSearch, check_seed  # noqa: E402

__all__ = [
    "BOTS",
    "COMPILED",
    "LEVELS",
    "Bot",
    "BotError",
    "BotFactory",
    "CountingBot",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "make_bot",
]


@runtime_checkable
class Bot(Protocol):
    """What a player program must provide: `choose(view) -> Action`.

    `view` is the bot's own `View` (public facts only, rule 8.3); the bot must return
    one of `view.legal_actions`. A bot may keep state between calls (the built-in ones
    need none). `play_game` and the command line only ever hand bots views.

    Examples:
        >>> class FirstLegal:
        ...     def choose(self, view):
        ...         return view.legal_actions[0]
        >>> isinstance(FirstLegal(), Bot)
        True
    """

    def choose(self, view: View) -> Action:
        """The action to play in `view` (one of `view.legal_actions`)."""
        ...


_COMPILED_MODULES: Final = (_odds, _model, _tables, _planner)
"""The modules a wheel's build compiles (`hatch_build.COMPILED`; tests/test_compiled.py checks
that the two lists name the same modules)."""

COMPILED: Final[bool] = not any(str(m.__file__).endswith(".py") for m in _COMPILED_MODULES)
"""Whether the planner's modules, where GreedyBot and CountingBot spend their time, are the
compiled ones: a wheel's build compiles them from their sources with mypyc (the same decisions,
faster: docs/performance.md has the figures); an editable install, `ABYSS_RULES_PURE=1` at build
time or a build without a C compiler runs the sources, and so does a compiled wheel when the
environment sets `ABYSS_RULES_PURE=1` at import (see the Installation page of the docs)."""

BotFactory = Callable[[int], Bot]
"""Makes a fresh bot from an integer seed; every built-in bot class is one (`RandomBot(seed)`)."""




def _no_action(bot: object, view: object) -> BotError:
    if not isinstance(view, View):
        return BotError(Code.BOT_CANNOT_ACT, f"{type(bot).__name__}.choose needs a View, got "
                                            f"{type(view).__name__}")
    return BotError(
        Code.BOT_CANNOT_ACT,
        f"seat {view.viewer} has no legal action in this view (phase {view.phase.value}); "
        "ask a bot only for a seat that is to act",
    )


class RandomBot:
    """Plays a uniformly random legal action: the baseline.

    Its choices come from a `random.Random` seeded with `seed`, so the same seed and the
    same views give the same actions.

    Args:
        seed: The seed of its random choices; `None` seeds them from the operating system.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> RandomBot(7).choose(ar.view(state, 1)) == RandomBot(7).choose(ar.view(state, 1))
        True
    """

    name: ClassVar[str] = "random"
    """The name the registry `BOTS` and the command line know it by."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = check_seed(seed)
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        """A uniformly random action of `view.legal_actions`.

        Raises:
            BotError: `view` is not a `View` or lists no legal action (code
                `bot_cannot_act`).
        """
        if not isinstance(view, View) or not view.legal_actions:
            raise _no_action(self, view)
        return self.choose_among(view.legal_actions)

    def choose_among(self, legal: tuple[Action, ...]) -> Action:
        """`choose(view)` from `view.legal_actions` alone, for a caller that has those without
        the view (the RL environments): `choose` draws through this, so the action and the draw
        of the generator are the same.

        Raises:
            BotError: `legal` is not a non-empty tuple (code `bot_cannot_act`).

        Examples:
            >>> import abyss_rules as ar
            >>> v = ar.view(ar.new_game(players=2, seed=1), 1)
            >>> RandomBot(7).choose_among(v.legal_actions) == RandomBot(7).choose(v)
            True
        """
        if type(legal) is not tuple or not legal:
            raise BotError(Code.BOT_CANNOT_ACT, f"RandomBot.choose_among needs a non-empty tuple of legal "
                                                f"actions, got {legal!r:.80}")
        return self._rng.choice(legal)

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed!r})"


class _ModelBot:
    """Common code of the bots that search on the expected-score model."""

    name: ClassVar[str] = "model"
    counts_cards: ClassVar[bool] = False
    feed_weight: ClassVar[float] = 0.0
    closing_margin: ClassVar[float] = 0.0
    take_threshold: ClassVar[float] = 1.0
    flip_bonus: ClassVar[float] = 0.5
    patience: ClassVar[int] = 30
    """After `patience * players` turns in a round, only moves that reveal a card (so rounds end)."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # accepted for a uniform factory signature; these bots use no randomness

    def choose(self, view: View) -> Action:
        """The best action of `view.legal_actions` by the bot's model (see the class docs).

        Raises:
            BotError: `view` is not a `View`, is a spectator's, lists no legal action,
                shows a card its variant's deck has not, or is a hand-made view whose
                fields are not of their types (code `bot_cannot_act`).
        """
        if not isinstance(view, View) or not view.legal_actions or view.viewer is None:
            raise _no_action(self, view)
        problem = _planner.unreadable(view)
        if problem is not None:
            raise BotError(Code.BOT_CANNOT_ACT, f"{type(self).__name__} cannot read this view: {problem}")
        return _planner.choose(self, view)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class GreedyBot(_ModelBot):
    """One-step greedy: keeps low cards, builds columns, avoids a doubled close.

    It guesses every face-down card at the deck's mean (about 5.07 with the standard
    deck) and scores its grid column by column, counting the chance that a column's
    face-down cards match its face-up ones (a swallowed column scores 0, rules 4.1, 4.3).
    On its turn it takes the discard when that lowers its expected score by at least 1,
    placing it where it helps most (on a high card, on a face-down card, or completing a
    column); otherwise it draws, then places the drawn card where it helps, or discards it
    and flips a face-down card when nothing helps (in the column it knows most about). It
    does not close the round (rule 6.1) when another player already shows a score at or
    below its own, since the closer's score would be doubled (rule 6.5).

    Every round ends: after `30 x players` turns in a round it only makes moves that turn
    one of its face-down cards up. Its opening flips are the two top cards of its first
    column.

    Args:
        seed: Accepted so that the class is a `BotFactory`; unused (the bot is
            deterministic: the same view gives the same action).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=2)
        >>> bot = GreedyBot()
        >>> while not state.is_over:
        ...     seat = state.to_act[0]
        ...     state = ar.apply(state, bot.choose(ar.view(state, seat)))
        >>> state.is_over, max(state.totals) >= 100
        (True, True)
    """

    name: ClassVar[str] = "greedy"
    """The name the registry `BOTS` and the command line know it by."""
    closing_margin: ClassVar[float] = 1.0


class CountingBot(_ModelBot):
    """Counts cards: plays the odds of the unseen cards, weighs its discards and the closer risk.

    The unseen cards are the deck minus every public card: the face-up cards of all
    grids, the discard pile since the last reshuffle and a drawn card (rules 5.3, 8.1).
    They give the expected value of a face-down card and of the next draw, and the chance
    that a column's face-down cards match. On its turn it compares taking the discard (at
    its best place), drawing (the best choice for every card it could draw, averaged over
    the odds) and flipping, and plays the best. It charges each move for the card it
    leaves on the discard pile, by how much more that card would help the next player
    than a draw, and it closes the round only when its score cannot be doubled by its
    estimate of the others' scores after their last turn (rules 6.2, 6.5). The same
    end-of-round safety as `GreedyBot`.

    Args:
        seed: Accepted so that the class is a `BotFactory`; unused (the bot is
            deterministic: the same view gives the same action).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=2)
        >>> bot = CountingBot()
        >>> while not state.is_over:
        ...     seat = state.to_act[0]
        ...     state = ar.apply(state, bot.choose(ar.view(state, seat)))
        >>> state.is_over, len(state.history)
        (True, 1)
    """

    name: ClassVar[str] = "counting"
    """The name the registry `BOTS` and the command line know it by."""
    counts_cards: ClassVar[bool] = True
    feed_weight: ClassVar[float] = 0.5
    closing_margin: ClassVar[float] = 0.0


class ExpertBot(CountingBot):
    """`CountingBot`'s planner with its weights tuned for winning: the strongest built-in bot.

    It counts cards, weighs its discards and the closer risk as `CountingBot` does, with two
    weights set by paired matches against `CountingBot` (the same deals, seats swapped) instead
    of by hand: turning a card up is worth `flip_bonus` (2) points more than its expected score
    says -- what a card known early is worth later in the round, when it can be replaced or
    matched -- and it closes the round only when its estimate of every other seat's score after
    its last turn is more than `closing_margin` (10) points above its own (rule 6.5: a close
    that is not strictly lowest is doubled). It is as fast as `CountingBot`: the same planner,
    other weights.

    Args:
        seed: Accepted so that the class is a `BotFactory`; unused (the bot is
            deterministic: the same view gives the same action).

    Examples:
        >>> from abyss_rules.simulation import play_game
        >>> result = play_game([ExpertBot(), "counting"], seed=2)
        >>> result.bots, result.final.totals, result.final.winners
        (('expert', 'counting'), (91, 104), (0,))
    """

    name: ClassVar[str] = "expert"
    """The name the registry `BOTS` and the command line know it by."""
    flip_bonus: ClassVar[float] = 2.0
    closing_margin: ClassVar[float] = 10.0


class SearchBot(RolloutSearch):
    """Searches where it matters: determinized rollouts near a round's end, `counting` elsewhere.

    When it has at most `horizon` face-down cards left, or another seat has, or the round is
    closed, it samples full states from its view (uniform over the layouts of the unseen cards,
    `StateSampler`), plays each candidate move in each of them and plays the round out with
    `CountingBot` at every seat, and plays the move with the best mean outcome: the others'
    lowest round score minus its own, closer penalty included, plus or minus `win_bonus` when
    the round ends the game. Every other decision is `CountingBot`'s (see
    `abyss_rules.bots._search`).

    Args:
        seed: Seeds its sampling: with the rollout budget (the default) the same seed and the
            same views give the same actions.
        rollouts: Rollouts per searched decision, shared among the candidate moves.
        seconds: A time budget per searched decision instead of `rollouts` (not reproducible).
        horizon: Search when a seat has at most this many face-down cards.
        win_bonus: What winning (or losing) the game in a rollout adds (or takes).
        confidence: It leaves `CountingBot`'s move only for one whose mean lead over the same
            sampled states is at least this many standard errors.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=2)
        >>> SearchBot(5).choose(ar.view(state, 0)) in ar.legal_actions(state)
        True
    """

    name: ClassVar[str] = "search"
    """The name the registry `BOTS` and the command line know it by."""

    def __init__(self, seed: int | None = None, *, rollouts: int = 32, seconds: float | None = None,
                 horizon: int = 2, win_bonus: float = 20.0, confidence: float = 1.0) -> None:
        super().__init__(CountingBot(), seed, rollouts=rollouts, seconds=seconds, horizon=horizon,
                         win_bonus=win_bonus, confidence=confidence)


BOTS: Final[Mapping[str, type[RandomBot] | type[GreedyBot] | type[CountingBot] | type[SearchBot]]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "counting": CountingBot,
    "search": SearchBot,
    "expert": ExpertBot,
}
"""The built-in bots by name, weakest first; each class is a `BotFactory` (`BOTS["greedy"](seed)`)."""

LEVELS: Final[Mapping[str, str]] = {
    "beginner": "random",
    "easy": "greedy",
    "medium": "counting",
    "hard": "expert",
}
"""Levels of play for apps, weakest first: the built-in bot that plays each (`make_bot(LEVELS[level])`).
Their measured strength is on the Bots page of the docs.

Examples:
    >>> list(LEVELS) == ["beginner", "easy", "medium", "hard"]
    True
    >>> make_bot(LEVELS["hard"], seed=1)
    ExpertBot()
"""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A built-in bot by name.

    Args:
        name: `"random"`, `"greedy"`, `"counting"` or `"search"` (the keys of
            `BOTS`).
        seed: The bot's seed (`RandomBot` and `SearchBot` use it).

    Returns:
        A new bot.

    Raises:
        BotError: No built-in bot has that name (code `unknown_bot`).

    Examples:
        >>> make_bot("random", seed=3)
        RandomBot(seed=3)
    """
    factory = BOTS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise BotError(Code.UNKNOWN_BOT, f"no built-in bot {name!r}; choose one of: {', '.join(BOTS)}")
    return factory(seed)
