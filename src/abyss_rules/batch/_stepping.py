"""One lockstep step of many games, on arrays: the legal masks and the actions of a step.

The functions behind `abyss_rules.batch.Batch.step`.

`abyss_rules.batch.Batch` steps copies of its arrays (a batch never changes);
`abyss_rules.batch.random_playouts` steps its own arrays in place, through the same
functions. Each works on an `Arrays` that the caller owns and does for every game what
the rule function it names does for one state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._arrays import DISCARD, DRAW, DRAWN, FLIP, KINDS, OPENING, OVER, PLACE, TAKE, TURN, Arrays, Tables, flat
from ._rounds import deal, draw, end_turns, opener, swallow_if_complete

__all__ = ["advance", "legal", "legal_folded", "legal_parts", "new_games", "restart"]

Array = np.ndarray[Any, Any]


def legal_parts(t: Tables, a: Arrays) -> tuple[Array, Array, Array]:
    """What makes each game's actor's action indices legal (rule 11.3; `legal_actions`):
    `(down, kept, open)`. `down` and `kept` are `(cells, N)` bool arrays, the actor's face-down
    spaces and its spaces not swallowed; `open` is `(len(KINDS), N)`, whether each kind's block of
    the layout (rule 11.2) is open. Index `i` of the `FLIP` or `DISCARD` block is legal when the
    block is open and space `i` is face down; of the `TAKE` or `PLACE` block, when the block is
    open and space `i` is kept; the draw, when its block is open. Every block is closed for a
    finished game."""
    n, cells, players = len(a.phase), t.cells, t.players
    # The actor's grid of every game, as (cells, N) codes: 0 face down, 1 face up, 2 swallowed.
    # Gathered as whole rows of `cells` bytes (three times cheaper than space by space), then
    # transposed once.
    rows = np.arange(0, n * players, players) + np.maximum(a.actor, 0)
    code = a.gone.reshape(n * players, cells).take(rows, axis=0).view(np.uint8) * np.uint8(2)
    code |= a.up.reshape(n * players, cells).take(rows, axis=0).view(np.uint8)
    code = np.ascontiguousarray(code.T)
    phase = a.phase
    turn, drawn = phase == TURN, phase == DRAWN
    blocks = np.empty((len(KINDS), n), bool)
    np.logical_or(phase == OPENING, turn & t.flip_turn, out=blocks[FLIP])
    np.logical_and(turn, a.disc_len > 0, out=blocks[TAKE])
    np.logical_and(turn, (a.draw_len > 0) | (a.disc_len >= 2), out=blocks[DRAW])
    blocks[PLACE] = drawn
    blocks[DISCARD] = drawn
    return code == 0, code != 2, blocks


def legal(t: Tables, a: Arrays) -> Array:
    """The legal action indices of each game's actor, as a `(space.size, N)` bool array: one row
    per index over all games, the fast layout for NumPy (rule 11.3; `legal_actions`), laid out
    from `legal_parts`. All false for a finished game."""
    down, kept, blocks = legal_parts(t, a)
    cells = t.cells
    mask = np.empty((t.size, len(a.phase)), bool)
    np.logical_and(down, blocks[FLIP], out=mask[:cells])
    np.logical_and(kept, blocks[TAKE], out=mask[cells:2 * cells])
    mask[2 * cells] = blocks[DRAW]
    np.logical_and(kept, blocks[PLACE], out=mask[2 * cells + 1:3 * cells + 1])
    np.logical_and(down, blocks[DISCARD], out=mask[3 * cells + 1:])
    return mask


def legal_folded(t: Tables, a: Arrays) -> tuple[Array, Array]:
    """The legal mask of `legal` folded to `2 * cells + 1` rows, and which games hold a drawn
    card. No phase opens blocks of both halves of the layout (rule 11.2): before a draw only
    flips, takes and the draw are open, after it only places and discards. So row `r` of a game
    that holds a drawn card is index `space.place_drawn + r`, and row `r` of any other game is
    index `r`: the legal indices in the same order, with half the rows."""
    down, kept, blocks = legal_parts(t, a)
    cells = t.cells
    drawn = blocks[PLACE]
    folded = np.empty((2 * cells + 1, len(a.phase)), bool)
    swap = down ^ kept
    swap &= drawn  # where a drawn card is held, the halves trade places (bitwise: no np.where)
    np.logical_and(down ^ swap, blocks[FLIP] | drawn, out=folded[:cells])
    np.logical_and(kept ^ swap, blocks[TAKE] | drawn, out=folded[cells:2 * cells])
    folded[2 * cells] = blocks[DRAW]
    return folded, drawn


def advance(t: Tables, a: Arrays, w: Arrays, k: Array, seeds: Sequence[bytes]) -> tuple[Array, int]:
    """Apply the legal action index `k[i]` of each live game's actor, reading the arrays `a` and
    writing `w` (a copy of `a`, or `a` itself to step in place), up to the ends of the turns.

    Returns the rows whose round ends now, for `abyss_rules.batch._rounds.end_rounds`, and the
    number of turns that ended (as `benchmarks/playouts.py` counts them: every action but a draw
    and an opening flip). Entries of other games (finished, or waiting for the end of their round)
    are ignored; the indices must be legal (the caller checks them)."""
    n = len(k)
    phase = a.phase
    live = phase < OVER
    kind = t.kind_of.take(k)
    space = t.space_of.take(k)
    seat = np.maximum(a.actor, 0)
    # at: each game's acted-on space as an index of the flattened (N, seats) arrays
    at = np.arange(0, n * t.seats, t.seats) + seat * t.cells + space
    w.seq += live
    opening = phase == OPENING
    g = np.flatnonzero(live & opening)
    if len(g):
        _opening_flips(t, w, g, seat[g], space[g], at[g])
    drawing = kind == DRAW
    g = np.flatnonzero(live & drawing)
    if len(g):
        draw(t, w, g, seeds)
        w.phase[g] = DRAWN
    g = np.flatnonzero(live & ~drawing & ~opening)
    if not len(g):
        return g, 0
    g_at, g_kind = at[g], kind[g]
    # One pass for every kind: a take swaps the space's card with the top discard; a place puts
    # the drawn card on the space and the replaced card on the discard pile; a discard puts the
    # drawn card there and leaves the space's card; a flip in a turn moves no card (it writes
    # the top discard over itself).
    cards, disc = flat(w.cards), flat(w.disc)
    flip = g_kind == FLIP
    take = g_kind == TAKE
    keep = (g_kind == DISCARD) | flip  # the space keeps its card
    stay = take | flip  # the discard pile keeps its length
    length = w.disc_len[g]
    top = g * t.deck + length - 1  # the flat index of each top discard
    old = cards.take(g_at)
    drawn = w.drawn[g]
    top_card = disc.take(top)
    cards[g_at] = np.where(keep, old, np.where(take, top_card, drawn))
    disc[top + ~stay] = np.where(flip, top_card, np.where(keep, drawn, old))  # over the top, or on it
    w.disc_len[g] = length + ~stay
    turned = ~flat(a.up).take(g_at)  # face down before (a legal index's space is not swallowed)
    flat(w.up)[g_at] = True
    ended: Array = end_turns(t, w, g, seat[g], space[g], g_at, turned)
    return ended, len(g)


def _opening_flips(t: Tables, w: Arrays, g: Array, seat: Array, space: Array, at: Array) -> None:
    """Opening flips of the lowest seats still owing one, `at` the flat indices of their spaces
    (rules 2.1-2.4, 4.1; `abyss_rules.rules._turn.opening_flip`)."""
    flat(w.up)[at] = True
    counts = flat(w.own("nflips"))
    owner = g * t.players + seat
    made = counts.take(owner)
    flat(w.own("flips"))[owner * w.flips.shape[2] + made] = flat(w.cards).take(at)
    made += 1
    counts[owner] = made
    hidden = flat(w.hidden)
    hidden[owner] = hidden.take(owner) - 1
    swallow_if_complete(t, w, g, at, space)
    seat_done = made == t.flips
    w.actor[g] = seat + seat_done
    last = g[seat_done & (seat == t.players - 1)]
    if len(last):
        w.phase[last] = TURN
        w.actor[last] = opener(t, w, last)


def new_games(t: Tables, w: Arrays, rows: Array, first_gid: int) -> None:
    """Make the games at `rows` new games before their first deal, logged under the ids
    `first_gid`, `first_gid + 1`, ... (`new_game`)."""
    for name, value in (("round", 1), ("closer", -1), ("turns", 0), ("totals", 0), ("seq", 0),
                        ("position", 0), ("prev_closer", -1), ("nflips", 0)):
        w.own(name)[rows] = value
    w.own("gid")[rows] = np.arange(first_gid, first_gid + len(rows))


def restart(t: Tables, w: Arrays, rows: Array, first_gid: int, seeds: Sequence[bytes]) -> None:
    """Replace the games at `rows` by new ones (`new_games`) and deal them from `seeds[row]` (seeds
    by row)."""
    new_games(t, w, rows, first_gid)
    deal(t, w, rows, seeds)
