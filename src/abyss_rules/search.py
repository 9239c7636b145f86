"""Determinized rollouts over sampled states: the search of [`SearchBot`][abyss_rules.bots.SearchBot].

Where a decision matters most -- near the end of a round, when a move may close it or the
others are about to (rules 6.1-6.5) -- the bot samples full states from its view
([`StateSampler`][abyss_rules.StateSampler], uniform over the layouts of the
unseen cards, rule 8.2), plays each candidate move in every sampled state, and plays the
round out with a policy bot at every seat on the scalar engine (`SearchBot`'s is
[`CountingBot`][abyss_rules.bots.CountingBot]). The move with the best mean outcome is
played; every candidate meets the same sampled states (common random numbers), so their
differences are measured with less noise than their values. Elsewhere it plays the policy's move.

The outcome of one rollout, for the bot's seat: the lowest round score of the others minus
its own (closer penalty included, rule 6.5), plus `win_bonus` if the round ended the game
with the bot among the winners, minus it if the game ended otherwise (rules 7.2-7.4).

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.bots import CountingBot
    >>> bot = RolloutSearch(CountingBot(), seed=1, rollouts=8)
    >>> result = ar.play_game([bot, "counting"], variant="short", seed=3)
    >>> result.final.is_over
    True
"""

from __future__ import annotations

import math
import random
import time
from typing import Final, Protocol

from .actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from .errors import BotError, Code, SamplingError
from .rules.engine import apply
from .sampling import StateSampler
from .state import Phase, State
from .views import View, view

__all__ = ["Policy", "RolloutSearch"]

MAX_ROLLOUT_ACTIONS: Final = 2_000
"""A rollout that has not finished its round after this many actions is scored where it stands."""


class Policy(Protocol):
    """The rollouts' player: a deterministic bot (`choose(view) -> Action`)."""

    def choose(self, view: View) -> Action:
        """The action to play in `view`."""
        ...


class RolloutSearch:
    """Determinized rollouts near the end of a round, the policy's move elsewhere (see the module).

    Args:
        policy: The bot that plays every seat in the rollouts, and the bot's moves where it
            does not search.
        seed: Seeds the sampling of hidden cards: with a rollout budget the same seed and the
            same views give the same actions. `None` seeds it from the operating system.
        rollouts: Rollouts per searched decision, shared among the candidate moves (each
            candidate gets `max(2, rollouts // candidates)`, on the same sampled states).
        seconds: A time budget per searched decision instead (then the choices depend on the
            machine's speed: not reproducible). `None` uses `rollouts`.
        horizon: Search when the bot has at most this many face-down cards left, or when
            another seat has at most this many, or has closed the round.
        win_bonus: What ending the game as a winner (or not) adds to (or takes from) an outcome.
        confidence: Another move than the policy's is played only when its mean lead over the
            policy's move, over the same sampled states, is at least this many standard errors.

    Raises:
        BotError: A budget that is not a positive number (code `bot_cannot_act`).

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.bots import CountingBot
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=2)
        >>> RolloutSearch(CountingBot(), 5).choose(ar.view(state, 0)) in ar.legal_actions(state)
        True
    """

    def __init__(self, policy: Policy, seed: int | None = None, *, rollouts: int = 32,
                 seconds: float | None = None, horizon: int = 2, win_bonus: float = 20.0,
                 confidence: float = 2.5) -> None:
        if type(rollouts) is not int or rollouts < 1:
            raise BotError(Code.BOT_CANNOT_ACT, f"rollouts must be a positive int, got {rollouts!r}")
        if seconds is not None and (type(seconds) not in (int, float) or not 0 < seconds < 3600):
            raise BotError(Code.BOT_CANNOT_ACT, f"seconds must be a number in (0, 3600), got {seconds!r}")
        if type(horizon) is not int or horizon < 0:
            raise BotError(Code.BOT_CANNOT_ACT, f"horizon must be an int of at least 0, got {horizon!r}")
        self.seed = seed
        self.rollouts = rollouts
        self.seconds = seconds
        self.horizon = horizon
        self.win_bonus = float(win_bonus)
        self.confidence = float(confidence)
        self._rng = random.Random(seed)
        self._policy = policy
        self.searched = 0
        """How many decisions it searched (the others were `CountingBot`'s)."""

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(seed={self.seed!r}, rollouts={self.rollouts}, "
                f"seconds={self.seconds!r})")

    def choose(self, view: View) -> Action:
        """The best of the candidate moves by rollouts, or `CountingBot`'s move (see the class).

        Raises:
            BotError: `view` is not a [`View`][abyss_rules.View], is a spectator's or lists
                no legal action, or no state has this view (code `bot_cannot_act`).
        """
        if not isinstance(view, View) or not view.legal_actions or view.viewer is None:
            raise BotError(Code.BOT_CANNOT_ACT, f"{type(self).__name__}.choose needs the View of a seat "
                                                f"that is to act, got {type(view).__name__}")
        default = self._policy.choose(view)
        if not self._critical(view):
            return default
        candidates = self._candidates(view, default)
        if len(candidates) < 2:
            return default
        try:
            sampler = StateSampler(view)
        except SamplingError as error:  # a hand-made view that no state has
            raise BotError(Code.BOT_CANNOT_ACT, f"SearchBot cannot sample this view: {error}") from None
        self.searched += 1
        return self._search(view.viewer, candidates, sampler)

    def _critical(self, v: View) -> bool:
        if v.phase is not Phase.TURN and v.phase is not Phase.DRAWN:
            return False
        if v.closer is not None:
            return True
        for grid in v.grids:
            down = sum(1 for up, gone in zip(grid.face_up, grid.swallowed, strict=True)
                       if not up and not gone)
            if down <= self.horizon:
                return True
        return False

    def _candidates(self, v: View, default: Action) -> list[Action]:
        """The legal moves worth a rollout: every move onto a face-down space, every draw and
        flip, and onto a face-up space only a card lower than the one there, or equal to
        another face-up card of its column; `default` first."""
        me = v.viewer
        assert me is not None
        grid = v.grids[me]
        cols = grid.cols
        card = v.drawn if v.phase is Phase.DRAWN else v.top_discard
        out = [default]
        for a in v.legal_actions:
            if a == default:
                continue
            if isinstance(a, (TakeDiscard, PlaceDrawn)):
                space = a.row * cols + a.col
                there = grid.cards[space]
                if there is not None and card is not None:
                    column = [grid.cards[s] for s in range(a.col, len(grid.cards), cols) if s != space]
                    if card >= there and card not in column:
                        continue
            elif not isinstance(a, (Draw, Flip, DiscardDrawn)):  # pragma: no cover - every kind is above
                continue
            out.append(a)
        return out

    def _search(self, me: int, candidates: list[Action], sampler: StateSampler) -> Action:
        """The candidate whose outcomes beat the first one's (the policy's move) by the most, if
        that lead is at least `confidence` standard errors of the paired differences; else the
        first (noise alone does not overrule the policy)."""
        n = len(candidates)
        outcomes: list[list[float]] = [[] for _ in range(n)]
        rounds = max(2, self.rollouts // n)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            state = sampler.sample(self._rng)
            for i, action in enumerate(candidates):
                outcomes[i].append(self._rollout(apply(state, action), me))
            done += 1
            if deadline is None:
                if done >= rounds:
                    break
            elif done >= 2 and time.perf_counter() >= deadline:
                break
        base = outcomes[0]
        best, best_mean = 0, 0.0
        for i in range(1, n):
            diffs = [x - y for x, y in zip(outcomes[i], base, strict=True)]
            mean = sum(diffs) / done
            if mean <= best_mean:
                continue
            spread = sum((d - mean) ** 2 for d in diffs) / (done - 1)
            if mean >= self.confidence * math.sqrt(spread / done):
                best, best_mean = i, mean
        return candidates[best]

    def _rollout(self, state: State, me: int) -> float:
        """Play the round out with the policy at every seat; the outcome for seat `me`."""
        start = state.round
        policy = self._policy
        for _ in range(MAX_ROLLOUT_ACTIONS):
            if state.round != start or state.phase is Phase.GAME_OVER:
                break
            seat = state.to_act[0]
            state = apply(state, policy.choose(view(state, seat)))
        else:
            return 0.0
        result = state.history[start - 1]
        scores = result.scores
        others = min(s for p, s in enumerate(scores) if p != me)
        value = float(others - scores[me])
        if state.phase is Phase.GAME_OVER:
            value += self.win_bonus if me in state.winners else -self.win_bonus
        return value
