"""Exhaustive checks: every well-formed action around a grid, every order of a small deck."""

from __future__ import annotations

from collections.abc import Iterator

from ..actions import ACTION_TYPES, Action, Draw
from ..config import Variant
from ..errors import Code, ConfigError

__all__ = ["action_space", "check_setup", "deck_orders"]


def check_setup(variant: object, players: object, who: str) -> tuple[Variant, int]:
    if not isinstance(variant, Variant):
        raise ConfigError(Code.INVALID_VARIANT,
                          f"{who}: variant must be a Variant, got {type(variant).__name__}")
    if type(players) is not int or not 1 <= players <= variant.max_players:
        raise ConfigError(Code.INVALID_PLAYERS,
                          f"{who}: players must be an int from 1 to {variant.max_players}, got {players!r}")
    return variant, players


def action_space(variant: Variant, players: int) -> tuple[Action, ...]:
    """Every well-formed action with a seat in `[-1, players]`, a row in `[-1, rows]` and a column
    in `[-1, cols]`: every legal action of any state of such a game, and a margin of illegal ones.

    Listed by kind (in `ACTION_TYPES` order), then seat, row and column.

    Raises:
        ConfigError: code `invalid_variant` or `invalid_players` for a bad
            argument.

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.Variant.standard().replace(rows=2, cols=1, min_players=1, max_players=2, initial_flips=1)
        >>> space = action_space(v, 2)
        >>> len(space)            # 4 kinds x 4 seats x 4 rows x 3 columns, plus 4 draws
        196
        >>> state = ar.new_game(2, v, seed=0)
        >>> set(ar.legal_actions(state)) <= set(space)
        True
    """
    v, p = check_setup(variant, players, "action_space()")
    seats = range(-1, p + 1)
    spaces = [(r, c) for r in range(-1, v.rows + 1) for c in range(-1, v.cols + 1)]
    out: list[Action] = []
    for kind in ACTION_TYPES:
        if kind is Draw:
            out.extend(Draw(seat) for seat in seats)
        else:
            out.extend(kind(seat, r, c) for seat in seats for r, c in spaces)  # type: ignore[call-arg]
    return tuple(out)


def deck_orders(variant: Variant) -> Iterator[tuple[int, ...]]:
    """Every distinct order of `variant`'s deck (top first), for exhaustive checks with
    `new_game(..., decks=[order])` (rule 9.6). Only sensible for tiny decks: a deck with
    counts `c1, c2, ...` has `(c1 + c2 + ...)! / (c1! c2! ...)` orders.

    Raises:
        ConfigError: code `invalid_variant` if `variant` is not a Variant.

    Examples:
        >>> v = Variant(rows=2, cols=1, min_players=1, max_players=1, initial_flips=1, deck=[(0, 2), (1, 2)])
        >>> list(deck_orders(v))
        [(0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0), (1, 1, 0, 0)]
    """
    if not isinstance(variant, Variant):
        raise ConfigError(Code.INVALID_VARIANT, f"deck_orders(): variant must be a Variant, "
                                                f"got {type(variant).__name__}")
    counts = dict(variant.deck)
    size = variant.deck_size

    def extend(prefix: list[int]) -> Iterator[tuple[int, ...]]:
        if len(prefix) == size:
            yield tuple(prefix)
            return
        for value in counts:
            if counts[value]:
                counts[value] -= 1
                prefix.append(value)
                yield from extend(prefix)
                prefix.pop()
                counts[value] += 1

    return extend([])
