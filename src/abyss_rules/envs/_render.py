"""Text pictures of a game for the environments' `render()`: public facts only (a spectator's view)."""

from __future__ import annotations

from typing import Final

import gymnasium

from ..state import State
from ..views import View, view
from ._options import bad_option

__all__ = ["RENDER_MODES", "check_render_mode", "render", "render_text"]

RENDER_MODES: Final[tuple[str, ...]] = ("ansi", "human")
"""`"ansi"`: `render()` returns the text; `"human"`: it prints it (after every step, too)."""


def check_render_mode(mode: str | None) -> str | None:
    """`mode` if it is `None` or one of `RENDER_MODES`.

    Raises:
        ConfigError: Anything else (`invalid_env_option`).
    """
    if mode is not None and mode not in RENDER_MODES:
        raise bad_option(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {mode!r}")
    return mode


def render(mode: str | None, state: State) -> str | None:
    """An environment's `render()`: the text of the public table (a spectator's view of `state`)
    for `"ansi"`, printed for `"human"`; `None` (and a warning) without a render mode."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
        return None
    text = render_text(view(state))
    if mode == "human":
        print(text)
        return None
    return text


def render_text(v: View) -> str:
    """The table as text: each seat's total and grid, the piles and the drawn card.

    Examples:
        >>> import abyss_rules as ar
        >>> print(render_text(ar.view(ar.new_game(players=2, seed=3))))
        round 1, opening; discard pile: 0 (1 card), draw pile: 125 cards
        seat 0: total 0
        ?? ?? ?? ??
        ?? ?? ?? ??
        ?? ?? ?? ??
        seat 1: total 0
        ?? ?? ?? ??
        ?? ?? ?? ??
        ?? ?? ?? ??
    """
    top = "empty" if v.top_discard is None else f"{v.top_discard} ({len(v.discard_pile)} cards)"
    if len(v.discard_pile) == 1:
        top = f"{v.top_discard} (1 card)"
    head = f"round {v.round}, {v.phase.value.replace('_', ' ')}"
    if v.turn is not None:
        head += f", seat {v.turn} to play"
    if v.drawn is not None:
        head += f" (holding {v.drawn})"
    lines = [f"{head}; discard pile: {top}, draw pile: {v.draw_pile_size} cards"]
    for seat, grid in enumerate(v.grids):
        closer = " (closed the round)" if v.closer == seat else ""
        lines.append(f"seat {seat}: total {v.totals[seat]}{closer}")
        lines.append(str(grid))
    return "\n".join(lines)
