"""Dealing, swallowing, reshuffling and ending rounds for many games at once.

Each function works on a group of rows `g` (ascending row numbers, no repeats) of an
`Arrays` that the caller owns, and does for each of those games what the rule function of
`abyss_rules.rules` that it names does for one state. The differential tests
(`tests/test_batch_differential.py`) check every field of every game against the reference
engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from ._arrays import OPENING, OVER, TURN, Arrays, Tables, flat
from ._shuffle import shuffle_rows

__all__ = ["Chunk", "HistoryLog", "deal", "draw", "end_rounds", "end_turns", "lay_out", "opener",
           "shuffled_decks", "swallow_if_complete"]

Array = np.ndarray[Any, Any]


class Chunk:
    """The rounds that ended in one step, one row per game: what
    `RoundResult` holds, as arrays (`gid` names the games)."""

    __slots__ = ("arrays", "row_of", "results")

    def __init__(self, arrays: dict[str, Array]) -> None:
        self.arrays = arrays
        self.row_of: dict[int, int] = {gid: row for row, gid in enumerate(arrays["gid"].tolist())}
        self.results: dict[int, Any] = {}
        """Round results already built from a row (by `convert`), by row."""

    def row(self, row: int) -> dict[str, Any]:
        """Row `row` as a dict of its values."""
        return {name: values[row] for name, values in self.arrays.items()}


class HistoryLog:
    """The finished rounds of a batch: an immutable chain of chunks, newest first.

    Appending a chunk shares the older ones. Which rounds belong to which game is indexed on
    first use, per log, from the nearest older log already indexed.
    """

    __slots__ = ("chunk", "older", "rows", "_index")

    def __init__(self, chunk: Chunk | None, older: HistoryLog | None) -> None:
        self.chunk = chunk
        self.older = older
        self.rows: int = (older.rows if older else 0) + (len(chunk.row_of) if chunk else 0)
        self._index: dict[int, tuple[tuple[Chunk, int], ...]] | None = None

    def chunks(self) -> list[Chunk]:
        """Every chunk, oldest first."""
        out = []
        node: HistoryLog | None = self
        while node is not None:
            if node.chunk is not None:
                out.append(node.chunk)
            node = node.older
        out.reverse()
        return out

    def rounds_of(self, gid: int) -> tuple[tuple[Chunk, int], ...]:
        """The finished rounds of game `gid`, oldest first, as (chunk, row) pairs."""
        return self._indexed().get(gid, ())

    def _indexed(self) -> dict[int, tuple[tuple[Chunk, int], ...]]:
        if self._index is not None:
            return self._index
        newer: list[Chunk] = []
        node: HistoryLog | None = self
        while node is not None and node._index is None:
            if node.chunk is not None:
                newer.append(node.chunk)
            node = node.older
        index: dict[int, tuple[tuple[Chunk, int], ...]] = {}
        if node is not None and node._index is not None:
            index = dict(node._index)
            node._index = None  # only the newest index is kept: an older log builds its own again
        for chunk in reversed(newer):
            for gid, row in chunk.row_of.items():
                index[gid] = index.get(gid, ()) + ((chunk, row),)
        self._index = index
        return index

    def keep(self, gids: Array) -> HistoryLog:
        """A one-chunk log of the rounds of the games `gids` only (dropping replaced games)."""
        chunks = self.chunks()
        if not chunks:
            return HistoryLog(None, None)
        names = list(chunks[0].arrays)
        merged = {name: np.concatenate([c.arrays[name] for c in chunks]) for name in names}
        kept = np.isin(merged["gid"], gids)
        return HistoryLog(Chunk({name: values[kept] for name, values in merged.items()}), None)


def swallow_if_complete(t: Tables, w: Arrays, g: Array, at: Array, space: Array) -> None:
    """Swallow the column of each game's space `space` where it is complete, `at` the flat index
    of that space in the `(N, seats)` arrays (rules 4.1, 4.2;
    `abyss_rules.rules.swallow_column`)."""
    # (rows, k): the flat indices of the column's spaces, top row first
    spaces = (at - t.row_start.take(space))[None, :] + t.row_offsets
    cards, up = flat(w.cards), flat(w.up)
    values = cards.take(spaces)
    hit = np.logical_and.reduce(up.take(spaces), axis=0) & np.logical_and.reduce(values == values[0], axis=0)
    if not hit.any():
        return
    which = np.flatnonzero(hit)
    g, spaces, value = g.take(which), spaces.take(which, axis=1), values[0].take(which)
    cards[spaces] = 0
    up[spaces] = False
    flat(w.gone)[spaces] = True
    at = w.disc_len[g]
    piled = (g * t.deck + at)[None, :] + np.arange(t.rows)[:, None]
    flat(w.disc)[piled] = value
    w.disc_len[g] = at + t.rows


def opener(t: Tables, w: Arrays, g: Array) -> Array:
    """The seat that opens the round once every opening flip is made (rules 2.3, 2.4;
    `abyss_rules.rules.choose_opener`)."""
    flips = w.flips[g].astype(np.int64)
    # Highest sum, then highest card (both exact in the key: cards are within +-2**20, rule 10.3),
    # then the lowest seat (argmax takes the first).
    key = flips.sum(axis=2) * (1 << 21) + flips.max(axis=2) + (1 << 20)
    best: Array = key.argmax(axis=1).astype(np.int64)
    if t.previous_closer:
        previous = w.prev_closer[g]
        best = np.where(previous >= 0, previous, best)
    return best


def deal(t: Tables, w: Arrays, g: Array, seeds: Sequence[bytes]) -> None:
    """Deal the next round of each game from a fresh shuffle (rules 1.4, 9.4, 9.5;
    `abyss_rules.rules.deal_round`). `seeds` are the games' seeds, by row."""
    if not len(g):
        return
    order, position = shuffled_decks(t, [seeds[i] for i in g.tolist()], w.position[g])
    lay_out(t, w, g, order, position)


def shuffled_decks(t: Tables, seeds: Sequence[bytes], positions: Array) -> tuple[Array, Array]:
    """The complete deck shuffled from each seed's stream at its position (rules 9.4, 9.5), as
    `(orders, positions after)`: row `i` of `orders` is the list `d` of rule 1.4."""
    k = len(seeds)
    return shuffle_rows(seeds, positions, np.broadcast_to(t.unshuffled, (k, t.deck)), np.full(k, t.deck))


def lay_out(t: Tables, w: Arrays, g: Array, order: Array, position: Array) -> None:
    """Deal the rounds of `g` from the shuffled decks `order` (one row per game, as
    `shuffled_decks` makes them), the stream then standing at `position` (rule
    1.4)."""
    w.own("position")[g] = position
    dealt = t.seats
    w.cards[g] = order[:, :dealt]
    w.up[g] = False
    w.gone[g] = False
    w.disc[g, 0] = order[:, dealt]
    w.disc_len[g] = 1
    rest = t.deck - dealt - 1
    w.own("draw")[g, :rest] = order[:, :dealt:-1]  # the draw pile is order[dealt + 1:], top first
    w.draw_len[g] = rest
    w.own("nflips")[g] = 0
    w.own("hidden")[g] = t.cells
    w.closer[g] = -1
    w.turns[g] = 0
    if t.flips:
        w.phase[g] = OPENING
        w.actor[g] = 0
    else:  # no opening flips: the opener plays at once (rules 2.3, 2.4)
        w.phase[g] = TURN
        previous = w.prev_closer[g]
        w.actor[g] = np.where(previous >= 0, previous, 0) if t.previous_closer else 0


def draw(t: Tables, w: Arrays, g: Array, seeds: Sequence[bytes]) -> None:
    """Take the top of each draw pile into the hand, reshuffling an empty one first (rules 3.4,
    5.1, 5.2; `abyss_rules.rules.draw` and `abyss_rules.rules.reshuffle`)."""
    empty = g[w.draw_len[g] == 0]
    if len(empty):
        _reshuffle(t, w, empty, seeds)
    top = w.draw_len[g] - 1
    w.drawn[g] = flat(w.draw).take(g * t.deck + top)
    w.draw_len[g] = top


def _reshuffle(t: Tables, w: Arrays, g: Array, seeds: Sequence[bytes]) -> None:
    k = len(g)
    length = w.disc_len[g]
    keep = 1 if t.keeps_top else 0
    count = length - keep  # the cards shuffled, listed top first below
    u = np.arange(t.deck)
    rows = np.arange(k)[:, None]
    source = (length - 1 - keep)[:, None] - u[None, :]
    valid = u[None, :] < count[:, None]
    items = np.where(valid, w.disc[g[:, None], np.maximum(source, 0)], 0).astype(t.dtype)
    mixed, position = shuffle_rows([seeds[i] for i in g.tolist()], w.position[g], items, count)
    w.own("position")[g] = position
    if t.keeps_top:  # rule 5.1: the top discard stays; the rest is the new draw pile
        top = w.disc[g, length - 1]
        rest = count
    else:  # rule 5.2: the first card of the shuffle opens the new discard pile
        top = mixed[:, 0]
        rest = count - 1
    # Bottom first, both ways: draw[v] = mixed[count - 1 - v] for v < rest.
    source = (count - 1)[:, None] - u[None, :]
    valid = u[None, :] < rest[:, None]
    w.own("draw")[g] = np.where(valid, mixed[rows, np.maximum(source, 0)], 0)
    w.draw_len[g] = rest
    w.disc[g, 0] = top
    w.disc_len[g] = 1


def end_turns(t: Tables, w: Arrays, g: Array, seat: Array, space: Array, at: Array, turned: Array) -> Array:
    """Finish the turns of `seat` whose card was placed or turned at `space` (flat index `at`;
    `turned`: where it was face down): swallow, close, pass the turn, and return the rows whose
    round ends now, whose phase and actor the caller sets when it scores them (rules 3.1, 4.1,
    6.1, 6.2, 6.7; `abyss_rules.rules.end_turn`)."""
    swallow_if_complete(t, w, g, at, space)  # a swallowed column was face up: `hidden` holds
    hidden = flat(w.hidden)
    owner = g * t.players + seat
    left = hidden.take(owner) - turned
    hidden[owner] = left
    done = left == 0
    closer = w.closer[g]
    closer = np.where((closer < 0) & done, seat, closer)
    w.closer[g] = closer
    turns = w.turns[g] + 1
    w.turns[g] = turns
    following = t.next_seat.take(seat)
    ends = following == closer
    if t.max_turns:
        ends |= turns == t.max_turns
    w.phase[g] = TURN
    w.actor[g] = following
    ended: Array = g[ends]
    return ended


@overload
def end_rounds(t: Tables, w: Arrays, g: Array, log: HistoryLog) -> tuple[HistoryLog, Array]: ...
@overload
def end_rounds(t: Tables, w: Arrays, g: Array, log: None) -> tuple[None, Array]: ...
def end_rounds(t: Tables, w: Arrays, g: Array, log: HistoryLog | None) -> tuple[HistoryLog | None, Array]:
    """Reveal, swallow, score and log the rounds of `g`, and end each game that is over (rules
    4.3, 6.3-6.7, 7.1-7.3; `abyss_rules.rules.end_round`). Returns the log with
    these rounds added (`None`: no log kept) and the rows whose game goes on: the caller deals
    their next round (`deal`)."""
    if not len(g):
        return log, g
    k, p, cells = len(g), t.players, t.cells
    capped = w.turns[g] >= t.max_turns if t.max_turns else np.zeros(k, bool)
    closer = np.where(capped, -1, w.closer[g])
    w.closer[g] = closer
    w.up[g] = ~w.gone[g]  # the final reveal (rule 6.3)
    w.own("hidden")[g] = 0
    if t.final_swallow:
        _swallow_complete_columns(t, w, g)
    raw = w.cards[g].reshape(k, p, cells).sum(axis=2, dtype=np.int64)
    scores = raw.copy()
    penalized = np.zeros(k, bool)
    if t.multiplier != 1:
        seat = np.maximum(closer, 0)
        every = np.arange(k)
        mine = raw[every, seat]
        other = np.arange(p)[None, :] != seat[:, None]
        penalized = (closer >= 0) & (mine > 0) & ((raw <= mine[:, None]) & other).any(axis=1)
        scores[every[penalized], seat[penalized]] *= t.multiplier
    totals = w.totals[g] + scores
    w.own("totals")[g] = totals
    if log is not None:
        log = HistoryLog(Chunk({
            "gid": w.gid[g], "round": w.round[g].copy(), "cards": w.cards[g], "gone": w.gone[g],
            "closer": closer, "raw": raw, "scores": scores, "penalized": penalized, "capped": capped,
            "turns": w.turns[g].copy(), "totals": totals,
        }), log)
    over = np.zeros(k, bool)
    if t.max_rounds:
        over |= w.round[g] >= t.max_rounds
    if t.target is not None:
        over |= totals.max(axis=1) >= t.target
    finished = g[over]
    w.phase[finished] = OVER
    w.actor[finished] = -1
    going = g[~over]
    w.own("prev_closer")[going] = closer[~over]
    w.own("round")[going] += 1
    return log, going


def _swallow_complete_columns(t: Tables, w: Arrays, g: Array) -> None:
    """Rule 4.3 after the final reveal: every complete column, seat 0 first, columns left to right
    (`abyss_rules.rules.swallow_complete_columns`)."""
    k, p, rows, cols = len(g), t.players, t.rows, t.cols
    cards = w.cards[g].reshape(k, p, rows, cols)
    gone = w.gone[g].reshape(k, p, rows, cols)
    complete = (~gone.any(axis=2) & (cards == cards[:, :, :1, :]).all(axis=2)).reshape(k, p * cols)
    if not complete.any():
        return
    before = np.cumsum(complete, axis=1) - complete  # complete columns earlier in (seat, column) order
    row, column = np.nonzero(complete)
    seat, col = np.divmod(column, cols)
    value = cards[row, seat, 0, col]
    spaces = (seat * t.cells + col)[:, None] + np.arange(rows)[None, :] * cols
    games = g[row][:, None]
    w.cards[games, spaces] = 0
    w.up[games, spaces] = False
    w.gone[games, spaces] = True
    at = w.disc_len[g][row] + before[row, column] * rows
    w.disc[games, at[:, None] + np.arange(rows)] = value[:, None]
    w.disc_len[g] += complete.sum(axis=1) * rows
