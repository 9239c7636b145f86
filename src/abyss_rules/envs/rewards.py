"""Rewards: what each seat earns at the end of a round and of the game (a constructor option).

Every environment takes `reward=` one of [`REWARDS`][abyss_rules.envs.REWARDS]; rewards come
only when a round or the game ends (between those moments every reward is 0):

| `reward` | at each round's end, seat `p` earns | at the game's end | over a whole game |
|---|---|---|---|
| `"score"` (default) | minus its round score, closer penalty included (rules 6.4, 6.5) | nothing more | minus its final total |
| `"margin"` | the mean round score of the other seats minus its own | nothing more | the other seats' mean total minus its own (the seats' sum is 0) |
| `"win"` | 0 | +1 if it is among the winners (rule 7.4: ties share the win), else -1 | +1 or -1 |

Rewards are computed from the finished rounds' public results
([`RoundResult`][abyss_rules.RoundResult]) only.

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

from typing import Final

from ..rules.scoring import winners
from ..state import RoundResult, State
from .options import bad_option

__all__ = ["REWARDS", "Rewards"]

REWARDS: Final[tuple[str, ...]] = ("score", "margin", "win")
"""The reward schemes, by name (the values of the environments' `reward=` option)."""


class Rewards:
    """One reward scheme for a player count: the rewards of a step, from the states before and after it.

    Args:
        kind: One of [`REWARDS`][abyss_rules.envs.REWARDS].
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

    def of_round(self, result: RoundResult) -> tuple[float, ...]:
        """Every seat's reward for the end of the round `result` (game end not included).

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.grid import Grid
            >>> result = ar.RoundResult(round=1, grids=(), closer=0, raw_scores=(10, 4, 1),
            ...                         scores=(20, 4, 1), penalized=True, capped=False, turns=9,
            ...                         totals=(20, 4, 1))
            >>> Rewards("score", 3).of_round(result), Rewards("margin", 3).of_round(result)
            ((-20.0, -4.0, -1.0), (-17.5, 6.5, 11.0))
        """
        scores = result.scores
        if self.kind == "score":
            return tuple(-float(s) for s in scores)
        if self.kind == "margin":
            return _margins(scores)
        return self.zero

    def of_end(self, totals: tuple[int, ...]) -> tuple[float, ...]:
        """Every seat's reward for the end of the game with these final totals (round rewards not included).

        Examples:
            >>> Rewards("win", 3).of_end((40, 12, 12)), Rewards("score", 3).of_end((40, 12, 12))
            ((-1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
        """
        if self.kind != "win":
            return self.zero
        best = winners(totals)
        return tuple(1.0 if seat in best else -1.0 for seat in range(self.players))

    def of_step(self, before: State, after: State) -> tuple[float, ...]:
        """Every seat's reward for the action that led from `before` to `after`.

        Non-zero only when the action ended a round (its result is the last of
        `after.history`) or the game.
        """
        if len(after.history) == len(before.history):
            return self.zero
        rewards = self.of_round(after.history[-1])
        if after.is_over:
            rewards = tuple(a + b for a, b in zip(rewards, self.of_end(after.totals), strict=True))
        return rewards


def _margins(scores: tuple[int, ...]) -> tuple[float, ...]:
    """Per seat, the mean of the other seats' scores minus its own (they sum to 0)."""
    n = len(scores)
    if n < 2:
        return (0.0,) * n
    total = sum(scores)
    return tuple((total - s) / (n - 1) - s for s in scores)
