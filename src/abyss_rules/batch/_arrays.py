"""The arrays of a batch of games and the fixed tables of its variant.

One row per game. Piles are stored bottom first (the top card at `length - 1`), so that
drawing only shortens the pile. `Arrays` is what a `abyss_rules.batch.Batch` holds,
read only; a step works on a copy of the arrays it changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..action_space import ActionSpace
from ..config import Opener, Variant

__all__ = ["DISCARD", "DRAW", "DRAWN", "FIELDS", "FLIP", "KINDS", "OPENING", "OVER", "PLACE", "TAKE", "TURN",
           "WAITING", "Arrays", "Tables", "flat"]

Array = np.ndarray[Any, Any]

OPENING, TURN, DRAWN, OVER = 0, 1, 2, 3
"""Phase codes of the `phase` array, in the order of `abyss_rules.batch.PHASES`."""

WAITING = 4
"""The phase code of a game whose round ended and waits for its scoring and next deal, which
`abyss_rules.batch.random_playouts` makes for many games at once. Internal: no
`abyss_rules.batch.Batch` ever holds it (its `step` ends rounds at once)."""

KINDS = (FLIP, TAKE, DRAW, PLACE, DISCARD) = range(5)
"""Kinds of action index, in the order of their blocks in the layout of rule 11.2."""

FIELDS = (
    "phase",        # (N,) int8: OPENING, TURN, DRAWN or OVER
    "actor",        # (N,) int64: the seat to act, -1 once over
    "round",        # (N,) int64: the round number, from 1
    "cards",        # (N, P * cells) card values; a swallowed space holds 0
    "up",           # (N, P * cells) bool: face up
    "gone",         # (N, P * cells) bool: swallowed
    "draw",         # (N, deck) the draw pile, bottom first
    "draw_len",     # (N,) int64
    "disc",         # (N, deck) the discard pile, bottom first
    "disc_len",     # (N,) int64
    "drawn",        # (N,) the drawn card (meaningful in the drawn phase only)
    "closer",       # (N,) int64: the closer of this round, -1 for none
    "flips",        # (N, P, max(1, initial_flips)) the values of this round's opening flips
    "nflips",       # (N, P) int64: how many each seat has made
    "hidden",       # (N, P) int64: each seat's face-down spaces (until the round's final reveal)
    "turns",        # (N,) int64: turns completed this round
    "totals",       # (N, P) int64
    "seq",          # (N,) int64: actions applied since the game began
    "position",     # (N,) int64: the dealer's position in the game's stream (rule 9.2)
    "prev_closer",  # (N,) int64: the closer of the last finished round, -1 for none
    "gid",          # (N,) int64: which game a row holds (its history is logged under this id)
)


class Arrays:
    """Every array of a batch (see `FIELDS`)."""

    __slots__ = FIELDS

    phase: Array
    actor: Array
    round: Array
    cards: Array
    up: Array
    gone: Array
    draw: Array
    draw_len: Array
    disc: Array
    disc_len: Array
    drawn: Array
    closer: Array
    flips: Array
    nflips: Array
    hidden: Array
    turns: Array
    totals: Array
    seq: Array
    position: Array
    prev_closer: Array
    gid: Array

    def copy(self, names: tuple[str, ...] = FIELDS) -> Arrays:
        """A new `Arrays` with copies of the arrays `names` and the others shared."""
        out = Arrays()
        for name in FIELDS:
            value = getattr(self, name)
            setattr(out, name, value.copy() if name in names else value)
        return out

    def rows(self, rows: Array) -> Arrays:
        """A new `Arrays` of the games at `rows` only (copies)."""
        out = Arrays()
        for name in FIELDS:
            setattr(out, name, getattr(self, name)[rows])
        return out

    def own(self, name: str) -> Array:
        """Array `name`, made writable: a read-only (shared) array is replaced by a copy first."""
        value: Array = getattr(self, name)
        if not value.flags.writeable:
            value = value.copy()
            setattr(self, name, value)
        return value

    def freeze(self) -> Arrays:
        """Make every array read only; return `self`."""
        for name in FIELDS:
            getattr(self, name).flags.writeable = False
        return self


def flat(array: Array) -> Array:
    """A flat view of a C-contiguous array, through which `take` and indexing by one array of flat
    indices read and write it (rather than NumPy's indexing by pairs of index arrays, and
    `flat[i] = v` rather than `flat.put(i, v)`: `benchmarks/representation.py` measures both)."""
    if not array.flags.c_contiguous:  # pragma: no cover - every array of a batch is C-contiguous
        raise ValueError("flat() needs a C-contiguous array")
    view: Array = array.reshape(-1)
    return view


def card_dtype(variant: Variant) -> np.dtype[Any]:
    """The smallest signed integer type that holds every card of the deck (and 0)."""
    low, high = min(variant.deck[0][0], 0), max(variant.deck[-1][0], 0)
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return np.dtype(kind)
    return np.dtype(np.int64)  # pragma: no cover - rule 10.3 bounds values by 10**6


class Tables:
    """The fixed facts of a batch: its variant, player count and lookup tables."""

    __slots__ = ("variant", "players", "rows", "cols", "cells", "seats", "deck", "flips", "size",
                 "dtype", "unshuffled", "row_start", "row_offsets", "next_seat", "kind_of", "space_of",
                 "space", "flip_turn", "keeps_top", "final_swallow", "multiplier", "max_turns",
                 "max_rounds", "target", "previous_closer")

    def __init__(self, variant: Variant, players: int) -> None:
        self.variant = variant
        self.players = players
        self.rows, self.cols, self.cells = variant.rows, variant.cols, variant.cells
        self.seats = players * variant.cells
        self.deck = variant.deck_size
        self.flips = variant.initial_flips
        self.dtype = card_dtype(variant)
        self.unshuffled: Array = np.array(variant.unshuffled_deck, dtype=self.dtype)
        rows, cols = variant.rows, variant.cols
        # row_start[s]: the first space of the row of space s, that is s minus the top space of
        # its column; row_offsets[r, 0]: the space in row r of a column, minus its top space
        self.row_start: Array = np.arange(variant.cells, dtype=np.int64) // cols * cols
        self.row_offsets: Array = np.arange(rows, dtype=np.int64)[:, None] * cols
        self.next_seat: Array = np.roll(np.arange(players, dtype=np.int64), -1)  # who plays after seat s
        # Each action index's kind and space (rule 11.2; 0 for the draw).
        self.space = space = ActionSpace(variant)
        self.size = space.size
        firsts = (space.flip, space.take_discard, space.draw, space.place_drawn, space.discard_drawn)
        kinds = [sum(index >= first for first in firsts[1:]) for index in range(self.size)]
        self.kind_of: Array = np.array(kinds, dtype=np.int64)
        self.space_of: Array = np.array([0 if kind == DRAW else index - firsts[kind]
                                         for index, kind in enumerate(kinds)], dtype=np.int64)
        self.flip_turn = variant.flip_turn
        self.keeps_top = variant.reshuffle_keeps_top
        self.final_swallow = variant.swallow_on_final_reveal
        self.multiplier = variant.closer_multiplier
        self.max_turns = variant.max_turns_per_round or 0
        self.max_rounds = variant.max_rounds or 0
        self.target = variant.target_score
        self.previous_closer = variant.opener is Opener.PREVIOUS_CLOSER

    def empty(self, n: int) -> Arrays:
        """The arrays of `n` games, all zero (a deal fills them)."""
        a = Arrays()
        p, i64 = self.players, np.int64
        a.phase = np.zeros(n, np.int8)
        a.actor = np.zeros(n, i64)
        a.round = np.ones(n, i64)
        a.cards = np.zeros((n, self.seats), self.dtype)
        a.up = np.zeros((n, self.seats), bool)
        a.gone = np.zeros((n, self.seats), bool)
        a.draw = np.zeros((n, self.deck), self.dtype)
        a.draw_len = np.zeros(n, i64)
        a.disc = np.zeros((n, self.deck), self.dtype)
        a.disc_len = np.zeros(n, i64)
        a.drawn = np.zeros(n, self.dtype)
        a.closer = np.full(n, -1, i64)
        a.flips = np.zeros((n, p, max(1, self.flips)), self.dtype)
        a.nflips = np.zeros((n, p), i64)
        a.hidden = np.zeros((n, p), i64)
        a.turns = np.zeros(n, i64)
        a.totals = np.zeros((n, p), i64)
        a.seq = np.zeros(n, i64)
        a.position = np.zeros(n, i64)
        a.prev_closer = np.full(n, -1, i64)
        a.gid = np.zeros(n, i64)
        return a
