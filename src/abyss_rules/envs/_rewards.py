"""Rewards: what each seat earns at the end of a round and of the game (a constructor option).

Every environment takes `reward=` one of `REWARDS`; rewards come only when a round or the
game ends (between those moments every reward is 0):

| `reward` | at each round's end, seat `p` earns | at the game's end | over a whole game |
|---|---|---|---|
| `"score"` (default) | minus its round score, closer penalty included (rules 6.4, 6.5) | nothing more | minus its final total |
| `"margin"` | the mean round score of the other seats minus its own | nothing more | the other seats' mean total minus its own (the seats' sum is 0) |
| `"win"` | 0 | +1 if it is among the winners (rule 7.4: ties share the win), else -1 | +1 or -1 |

Rewards are computed from public facts only: the round scores (how much each total grew) and
the final totals. `Rewards.of_scores` is the one definition, on arrays of many games at
once; the single-game environments call it for one game.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.envs import Rewards
    >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=5)
    >>> while not state.is_over:
    ...     state = ar.apply(state, ar.legal_actions(state)[-1])
    >>> state.totals, state.winners
    ((48, 64), (0,))
    >>> before = ar.new_game(players=2, variant=ar.Variant.short(), seed=5)
    >>> [Rewards(kind, 2).of_step(before, state) for kind in ("score", "margin", "win")]
    [(-48.0, -64.0), (16.0, -16.0), (1.0, -1.0)]
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

from typing import Any, Final

import numpy as np

from ..state import State
from ._options import bad_option

__all__ = ["REWARDS", "Rewards"]

REWARDS: Final[tuple[str, ...]] = ("score", "margin", "win")
"""The reward schemes, by name (the values of the environments' `reward=` option)."""

Array = np.ndarray[Any, Any]


class Rewards:
    """One reward scheme for a player count.

    Args:
        kind: One of `REWARDS`.
        players: The number of players.

    Raises:
        ConfigError: `kind` is not a reward scheme (code `invalid_env_option`).

    Examples:
        >>> Rewards("score", 2)
        Rewards('score', players=2)
        >>> Rewards("points", 2)
        Traceback (most recent call last):
        ...
        abyss_rules.errors.ConfigError: [invalid_env_option] reward must be one of score, margin, win, ...
    """

    __slots__ = ("kind", "players", "zero")

    def __init__(self, kind: str, players: int) -> None:
        if kind not in REWARDS:
            raise bad_option(f"reward must be one of {', '.join(REWARDS)}, got {kind!r}")
        self.kind = kind
        self.players = players
        self.zero: tuple[float, ...] = (0.0,) * players
        """Every seat's reward of a step that ends nothing."""

    def __repr__(self) -> str:
        return f"Rewards({self.kind!r}, players={self.players})"

    def of_scores(self, scores: Array, over: Array, totals: Array) -> Array:
        """Every seat's reward in each of `N` games: the definition of the table above.

        Args:
            scores: `(N, players)`: the round scores of a round that ended during the step (closer
                penalty included), all 0 in a game where no round ended.
            over: `(N,)` bool: whether the step ended the game.
            totals: `(N, players)`: the totals after the step (the final totals where `over`).

        Returns:
            `(N, players)` float64.

        Examples:
            >>> import numpy as np
            >>> scores, totals = np.array([[20, 4, 1], [0, 0, 0]]), np.array([[40, 12, 12], [5, 3, 9]])
            >>> Rewards("margin", 3).of_scores(scores, np.array([True, False]), totals).tolist()
            [[-17.5, 6.5, 11.0], [0.0, 0.0, 0.0]]
            >>> Rewards("win", 3).of_scores(scores, np.array([True, False]), totals).tolist()
            [[-1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
        """
        scores = np.asarray(scores, dtype=np.float64)
        if self.kind == "score":
            return 0.0 - scores  # not -scores: no -0.0
        if self.kind == "margin":
            if self.players < 2:
                return np.zeros_like(scores)
            others = (scores.sum(axis=1, keepdims=True) - scores) / (self.players - 1)
            margins: Array = others - scores
            return margins
        best = totals == totals.min(axis=1, keepdims=True)  # rule 7.4: ties share the win
        ends: Array = np.where(np.asarray(over)[:, None], np.where(best, 1.0, -1.0), 0.0)
        return ends

    def of_step(self, before: State, after: State) -> tuple[float, ...]:
        """Every seat's reward for the action that led from `before` to `after` (one game).

        Non-zero only when the action ended a round (its result is the last of `after.history`)
        or the game.

        Examples:
            >>> import abyss_rules as ar
            >>> before = ar.new_game(players=2, variant=ar.Variant.short(), seed=5)
            >>> after = before
            >>> while not after.is_over:
            ...     after = ar.apply(after, ar.legal_actions(after)[-1])
            >>> Rewards("score", 2).of_step(before, after), after.totals
            ((-48.0, -64.0), (48, 64))
        """
        if len(after.history) == len(before.history):
            return self.zero
        scores = np.array([after.history[-1].scores])
        rewards = self.of_scores(scores, np.array([after.is_over]), np.array([after.totals]))
        return tuple(float(r) for r in rewards[0])
