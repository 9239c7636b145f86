"""The observation encoding written field by field, one writer per field, straight from the layout's
table: the reference that the fast [`Observation.encode`][abyss_rules.envs.Observation.encode] is
compared with (tests/test_envs_observation.py). Slow and plain on purpose; reads the view only."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import abyss_rules as ar
from abyss_rules.envs import Observation
from abyss_rules.envs._observation import TOTAL_CLIP

PHASES = (ar.Phase.OPENING, ar.Phase.TURN, ar.Phase.DRAWN, ar.Phase.GAME_OVER)

Writer = Callable[[ar.Variant, ar.View, list[int], list[tuple[int, float]], int], None]


def _phase(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    out.append((at + PHASES.index(v.phase), 1.0))


def _to_act(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    if v.viewer is not None and v.viewer in v.to_act:
        out.append((at, 1.0))


def _seat_hot(name: str) -> Writer:
    def write(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
        seat = getattr(v, name)
        if seat is not None:
            out.append((at + order.index(seat), 1.0))
    return write


def _rank(var: ar.Variant, card: int) -> int:
    return [value for value, _ in var.deck].index(card)


def _value_hot(name: str) -> Writer:
    def write(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
        card = getattr(v, name)
        if card is not None:
            out.append((at + _rank(var, card), 1.0))
    return write


def _opening_flips(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]],
                   at: int) -> None:
    if var.initial_flips:
        for k, seat in enumerate(order):
            out.append((at + k, len(v.opening[seat]) / var.initial_flips))


def _discard_counts(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]],
                    at: int) -> None:
    for k, (value, total) in enumerate(var.deck):
        out.append((at + k, v.discard_pile.count(value) / total))


def _draw_pile(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    out.append((at, v.draw_pile_size / var.deck_size))


def _turns(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    cap = var.max_turns_per_round
    if cap is not None:
        out.append((at, min(v.turns, cap) / cap))


def _totals(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    scale = float(var.target_score or 100)
    for k, seat in enumerate(order):
        out.append((at + k, min(TOTAL_CLIP, max(-TOTAL_CLIP, v.totals[seat] / scale))))


def _grids(var: ar.Variant, v: ar.View, order: list[int], out: list[tuple[int, float]], at: int) -> None:
    width = len(var.deck) + 2
    for seat in order:
        grid = v.grids[seat]
        for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True):
            if gone:
                out.append((at + 1, 1.0))
            elif up:
                assert card is not None
                out.append((at + 2 + _rank(var, card), 1.0))
            else:
                out.append((at, 1.0))
            at += width


WRITERS: dict[str, Writer] = {
    "phase": _phase, "to_act": _to_act, "turn": _seat_hot("turn"), "opening_flips": _opening_flips,
    "closer": _seat_hot("closer"), "drawn": _value_hot("drawn"), "top_discard": _value_hot("top_discard"),
    "discard_counts": _discard_counts, "draw_pile": _draw_pile, "turns": _turns, "totals": _totals,
    "grids": _grids,
}


def reference_encode(obs: Observation, v: ar.View) -> np.ndarray:
    """`obs.encode(v)` as the layout's table says it, field by field."""
    p = obs.players
    viewer = 0 if v.viewer is None else v.viewer
    order = [(viewer + k) % p for k in range(p)]
    entries: list[tuple[int, float]] = []
    assert [f.name for f in obs.fields] == list(WRITERS)
    for field in obs.fields:
        WRITERS[field.name](obs.variant, v, order, entries, field.start)
    out = np.zeros(obs.size, dtype=np.float32)
    for index, value in entries:
        out[index] = value
    return out
