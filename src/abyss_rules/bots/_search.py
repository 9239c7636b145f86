"""Determinized rollouts over sampled states: the search of `abyss_rules.bots.SearchBot`.

Where a decision matters most -- near the end of a round, when a move may close it or the
others are about to (rules 6.1-6.5) -- the bot samples full states from its view
(`StateSampler`, uniform over the layouts of the unseen cards, rule 8.2), plays each
candidate move in every sampled state, and plays the round out with a policy bot at every
seat on the scalar engine (`SearchBot`'s is `abyss_rules.bots.CountingBot`). Half of the
budget screens the candidates: every candidate meets the same sampled states (common random
numbers), so their differences are measured with less noise than their values, and the one
that beats the policy's move by the most is the challenger. The other half verifies it on
new samples, the two moves alone: the challenger is played only if its mean lead there is
at least `confidence` standard errors, so that noise does not overrule the policy.
Elsewhere it plays the policy's move.

The outcome of one rollout, for the bot's seat: the lowest round score of the others minus
its own (closer penalty included, rule 6.5), plus `win_bonus` if the round ended the game
with the bot among the winners, minus it if the game ended otherwise (rules 7.2-7.4).

Examples:
    >>> from abyss_rules.simulation import play_game
    >>> from abyss_rules.bots import CountingBot
    >>> bot = RolloutSearch(CountingBot(), seed=1, rollouts=8)
    >>> result = play_game([bot, "counting"], variant="short", seed=3)
    >>> result.final.is_over
    True
"""

from __future__ import annotations

import math
import random
import time
from typing import Final, Protocol

from ..actions import Action, DiscardDrawn, Draw, Flip, PlaceDrawn, TakeDiscard
from ..errors import ArgumentError, BotError, Code, SamplingError
from ..rules._engine import apply
from ..sampling import StateSampler
from ..state import Phase, State
from ..views import View, view

__all__ = ["Policy", "RolloutSearch"]

MAX_ROLLOUT_ACTIONS: Final = 2_000
"""A rollout that has not finished its round after this many actions is scored where it stands."""


def check_seed(seed: object) -> int | None:
    """`seed` as a bot's seed, an int or `None` (`ArgumentError` otherwise)."""
    if seed is not None and type(seed) is not int:
        raise ArgumentError(f"a bot's seed is an int or None, got {type(seed).__name__}")
    return seed


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
        rollouts: Rollouts per searched decision: half screen the candidate moves on the same
            sampled states (at least 2 each), half verify the best challenger against the
            policy's move on new ones (at least 3 each).
        seconds: A time budget per searched decision instead (then the choices depend on the
            machine's speed: not reproducible). `None` uses `rollouts`.
        horizon: Search when the bot has at most this many face-down cards left, or when
            another seat has at most this many, or has closed the round.
        win_bonus: What ending the game as a winner (or not) adds to (or takes from) an outcome.
        confidence: Another move than the policy's is played only when its mean lead over the
            policy's move, on the verifying samples, is at least this many standard errors.

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
                 confidence: float = 1.0) -> None:
        if type(rollouts) is not int or rollouts < 1:
            raise BotError(Code.BOT_CANNOT_ACT, f"rollouts must be a positive int, got {rollouts!r}")
        if seconds is not None and (type(seconds) not in (int, float) or not 0 < seconds < 3600):
            raise BotError(Code.BOT_CANNOT_ACT, f"seconds must be a number in (0, 3600), got {seconds!r}")
        if type(horizon) is not int or horizon < 0:
            raise BotError(Code.BOT_CANNOT_ACT, f"horizon must be an int of at least 0, got {horizon!r}")
        check_seed(seed)
        for name, number in (("win_bonus", win_bonus), ("confidence", confidence)):
            if type(number) not in (int, float) or not math.isfinite(number):
                raise ArgumentError(f"{name} must be a finite number, got {number!r}")
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
            BotError: `view` is not a `View`, is a spectator's or lists no legal action, or
                no state has this view (code `bot_cannot_act`).
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
        """The legal moves worth a rollout, `default` first: the draw; of the moves that put the
        card in play onto a face-up space, the two that lower it most and those that match
        another face-up card of the column (the two with the most such cards: a swallow, rule 4.1);
        of those onto a face-down space and of the flips, the two in the columns with the most
        face-up cards (a match there tells the most)."""
        me = v.viewer
        assert me is not None
        grid = v.grids[me]
        cols, cards = grid.cols, grid.cards
        card = v.drawn if v.phase is Phase.DRAWN else v.top_discard

        def column_of(space: int) -> list[int]:
            return [c for s in range(space % cols, len(cards), cols) if s != space
                    and (c := cards[s]) is not None]

        lowering: list[tuple[int, int, Action]] = []
        matching: list[tuple[int, int, Action]] = []
        blind: list[tuple[int, int, Action]] = []
        flips: list[tuple[int, int, Action]] = []
        out = [default]
        for i, a in enumerate(v.legal_actions):
            if a == default:
                continue
            if isinstance(a, Draw):
                out.append(a)
                continue
            if not isinstance(a, (TakeDiscard, PlaceDrawn, DiscardDrawn, Flip)):  # pragma: no cover
                continue
            space = a.row * cols + a.col
            column = column_of(space)
            there = cards[space]
            if isinstance(a, (DiscardDrawn, Flip)):
                flips.append((-len(column), i, a))
            elif card is not None and card in column:
                matching.append((-column.count(card), i, a))
            elif there is None:
                blind.append((-len(column), i, a))
            elif card is not None and card < there:
                lowering.append((card - there, i, a))
        for group in (matching, lowering, blind, flips):
            out += [a for _, _, a in sorted(group)[:2]]
        return out

    def _search(self, me: int, candidates: list[Action], sampler: StateSampler) -> Action:
        """Screen, then verify: half the budget finds the candidate whose outcomes beat the first
        one's (the policy's move) by the most over the same sampled states; the other half, on new
        samples, plays only those two, and the challenger is played only if its mean lead there
        is at least `confidence` standard errors of the paired differences. (The lead of the best
        of several is biased upwards by the noise it was chosen on; fresh samples are not.)"""
        n = len(candidates)
        half = max(2 * n, self.rollouts // 2)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds / 2
        outcomes = self._play(me, candidates, sampler, max(2, half // n), deadline)
        base = outcomes[0]
        best, best_mean = 0, 0.0
        for i in range(1, n):
            mean = (sum(outcomes[i]) - sum(base)) / len(base)
            if mean > best_mean:
                best, best_mean = i, mean
        if best == 0:
            return candidates[0]
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds / 2
        pair = [candidates[0], candidates[best]]
        base, challenger = self._play(me, pair, sampler, max(3, half // 2), deadline)
        diffs = [x - y for x, y in zip(challenger, base, strict=True)]
        k = len(diffs)
        mean = sum(diffs) / k
        spread = sum((d - mean) ** 2 for d in diffs) / (k - 1)
        if mean > 0 and mean >= self.confidence * math.sqrt(spread / k):
            return candidates[best]
        return candidates[0]

    def _play(self, me: int, candidates: list[Action], sampler: StateSampler, samples: int,
              deadline: float | None) -> list[list[float]]:
        """Each candidate's outcomes over the same sampled states: `samples` of them, or as
        many as fit before `deadline` (at least 3)."""
        outcomes: list[list[float]] = [[] for _ in candidates]
        done = 0
        while True:
            state = sampler.sample(self._rng)
            for i, action in enumerate(candidates):
                outcomes[i].append(self._rollout(apply(state, action), me, state.round))
            done += 1
            if deadline is None:
                if done >= samples:
                    return outcomes
            elif done >= 3 and time.perf_counter() >= deadline:
                return outcomes

    def _rollout(self, state: State, me: int, start: int) -> float:
        """Play round `start` out with the policy at every seat; the outcome for seat `me`.
        (The move searched may have ended the round itself: then `state` is already in the
        next round, or over, and nothing is played.)"""
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
