"""One game of a batch as a reference `State`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._grid import Grid
from ..state import Dealer, Phase, RoundResult, State
from ._arrays import DRAWN, OPENING, OVER, TURN, Arrays, Tables
from ._rounds import Chunk, HistoryLog

__all__ = ["PHASES", "to_state"]

Array = np.ndarray[Any, Any]

PHASES: tuple[Phase, ...] = (Phase.OPENING, Phase.TURN, Phase.DRAWN, Phase.GAME_OVER)
"""The `Phase` of each code of the `phase` array: `PHASES[batch.phase[i]]`."""
assert (PHASES[OPENING], PHASES[TURN], PHASES[DRAWN], PHASES[OVER]) == tuple(Phase)


def _mask(flags: Array) -> int:
    """A bool row as the engine's bit mask (bit `k` set when `flags[k]`)."""
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def _none_if_negative(value: int) -> int | None:
    return None if value < 0 else value


def _round_result(t: Tables, chunk: Chunk, n: int) -> RoundResult:
    found: RoundResult | None = chunk.results.get(n)
    if found is None:
        found = chunk.results[n] = _build_round_result(t, chunk.row(n))
    return found


def _build_round_result(t: Tables, row: dict[str, Any]) -> RoundResult:
    cards = tuple(row["cards"].tolist())
    gone = _mask(row["gone"])
    up = ((1 << t.seats) - 1) & ~gone
    return RoundResult(
        round=int(row["round"]),
        grids=tuple(Grid.from_flat(t.rows, t.cols, cards, up, gone, p) for p in range(t.players)),
        closer=_none_if_negative(int(row["closer"])),
        raw_scores=tuple(row["raw"].tolist()),
        scores=tuple(row["scores"].tolist()),
        penalized=bool(row["penalized"]),
        capped=bool(row["capped"]),
        turns=int(row["turns"]),
        totals=tuple(row["totals"].tolist()),
    )


def to_state(t: Tables, a: Arrays, i: int, seed: bytes, log: HistoryLog) -> State:
    """Game `i` of the arrays `a` as the reference engine's state, every field."""
    phase = int(a.phase[i])
    players = t.players
    draw = a.draw[i, :a.draw_len[i]]
    disc = a.disc[i, :a.disc_len[i]]
    flips = a.flips[i]
    counts = a.nflips[i].tolist()
    return State(
        variant=t.variant,
        phase=PHASES[phase],
        round=int(a.round[i]),
        turn=int(a.actor[i]) if phase in (TURN, DRAWN) else None,
        cards=tuple(a.cards[i].tolist()),
        face_up_mask=_mask(a.up[i]),
        swallowed_mask=_mask(a.gone[i]),
        draw_pile=tuple(draw[::-1].tolist()),
        discard_pile=tuple(disc[::-1].tolist()),
        drawn=int(a.drawn[i]) if phase == DRAWN else None,
        closer=_none_if_negative(int(a.closer[i])),
        opening=tuple(tuple(flips[p, :counts[p]].tolist()) for p in range(players)),
        turns=int(a.turns[i]),
        totals=tuple(a.totals[i].tolist()),
        history=tuple(_round_result(t, chunk, n) for chunk, n in log.rounds_of(int(a.gid[i]))),
        dealer=Dealer(seed, int(a.position[i]), ()),
        seq=int(a.seq[i]),
    )
