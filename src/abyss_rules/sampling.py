"""Full states sampled from what one seat knows: the hidden cards dealt again, uniformly (rule 8.2).

Information-set search (determinized rollouts, IS-MCTS, counterfactual regret) needs whole
`State`s that agree with everything a seat has seen. `sample_states` makes them from a
`View` alone; `StateSampler` makes them one at a time, checking the view once.

**What "consistent with the view" means here.** A sampled state has every public fact of the
view (rule 8.1): the variant, round, phase, turn, grids' face-up cards and swallowed columns,
the discard pile (top first), the drawn card, the draw pile's size, the opening flips, closer,
turn count, totals, history and `seq`; so `view(sample, view.viewer) == view`. Its secrets
(rule 8.2) are the *unseen cards* -- the deck (rule 1.1) less every face-up card, the
discard pile and the drawn card; the cards of a swallowed column went onto the discard pile
(rule 4.2), so they are counted there, or, after a reshuffle, among the unseen cards -- laid
out on the face-down spaces (in seat and space order) and then the draw pile (top first). Every
distinct such layout is equally likely. The dealer is new: a 32-byte seed drawn from `rng`,
position 0, no explicit deck orders, so the shuffles after the sample (a reshuffle, the next
rounds' deals) are as unknown as the real ones.

By default the view is all the sampler reads, so it does not use what a player might remember
beyond it: the cards of a discard pile that was shuffled into the draw pile (rule 5.3). Given
the view and nothing else, every layout is as likely as any other, which is what it draws.
With `recall` -- every view the seat has had since its round began, one after each action --
it draws from what a player with *perfect recall* knows: after a reshuffle the draw pile holds
exactly the cards that were shuffled in, less those drawn since, and the face-down spaces the
rest; every layout of each part is equally likely. Nothing else a player remembers changes
the odds: each round deals the whole deck again (rule 1.4), and no player sees a face-down
card, so the others' choices say nothing about one.

Examples:
    >>> import random
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=42)
    >>> mine = ar.view(state, 0)
    >>> samples = sample_states(mine, 3, random.Random(7))
    >>> [ar.view(s, 0) == mine for s in samples]
    [True, True, True]
    >>> samples[0].cards != state.cards or samples[0].draw_pile != state.draw_pile
    True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

import attrs

from ._grid import Grid
from .codec._state import assemble_state
from .errors import AbyssError, Code, SamplingError
from .state import Dealer, Phase, State
from .views import View
from .views import view as view_of

__all__ = ["MAX_SAMPLED_CARDS", "MAX_SAMPLES", "SamplingError", "StateSampler", "sample_states"]

MAX_SAMPLES: Final = 100_000
"""The most states one call of `sample_states` makes."""

MAX_SAMPLED_CARDS: Final = 1 << 24
"""The most cards one call of `sample_states` returns, counted as `n` times the deck's size
(every state holds every card of the deck): 16,777,216, about 8 bytes each, so a call's
memory is bounded (a little over 100,000 states of the standard deck; 8,192 of the largest,
2,048 cards)."""

_SEED_BYTES: Final = 32


class StateSampler:
    """Draws full states consistent with one view, uniformly (see the module's docs).

    The view is checked once, when the sampler is made: a state is assembled from it by the
    state codec's own checks (the cards are the deck's, the phases, opening, closer and
    history fit, rule 3.11) and its view must be the view given. Each `sample` then
    shuffles the unseen cards.

    Args:
        view: A seat's (or a spectator's) `View`.
        recall: `None` (the view alone), or every view of the same seat since its round began,
            in order, one after each action (their `seq` one apart), the last being `view`:
            then the samples agree with all of them (perfect recall, see the module's docs).

    Raises:
        SamplingError: `view` is not a `View`, or `recall` is not such a sequence of views
            (`invalid_sampling`); its public cards are not cards of its variant's deck or are
            more than it holds (`cards_mismatch`, rule 1.1); or no state has this view, or these
            views one after the other (`impossible_state`: a field contradicts the others).

    Examples:
        >>> import random
        >>> import abyss_rules as ar
        >>> sampler = StateSampler(ar.view(ar.new_game(players=2, seed=1), 1))
        >>> sampler.unseen, sampler.hidden_spaces, sampler.draw_pile_size
        (149, 24, 125)
        >>> state = sampler.sample(random.Random(3))
        >>> ar.view(state, 1) == sampler.view
        True
    """

    __slots__ = ("_cards", "_down", "_hidden", "_pile", "_template", "_unseen", "draw_pile_size",
                 "known_draw_pile", "view")

    def __init__(self, view: View, *, recall: Sequence[View] | None = None) -> None:
        if not isinstance(view, View):
            raise SamplingError(f"sample_states needs a View, got {type(view).__name__}")
        known = None if recall is None else _remembered_draw_pile(view, recall)
        self.view = view
        """The view the samples agree with."""
        try:
            self._unseen, self._hidden, cards, grids = _read(view)
            template = assemble_state(
                players=view.players, grids=grids, variant=view.variant, phase=view.phase,
                round=view.round, draw_pile=self._first_pile(), discard_pile=view.discard_pile,
                drawn=view.drawn, turn=view.turn, closer=view.closer, opening=view.opening,
                turns=view.turns, totals=view.totals, history=view.history,
                dealer=Dealer(bytes(_SEED_BYTES)), seq=view.seq,
            )
            again = view_of(template, view.viewer)
        except AbyssError as error:
            code = error.code if error.code in (Code.CARDS_MISMATCH, Code.IMPOSSIBLE_STATE) \
                else Code.IMPOSSIBLE_STATE
            path = getattr(error, "path", "")
            where = f" at {path}" if path else ""
            raise SamplingError(code, f"no state has this view{where}: {error.message}",
                                error.rule) from None
        except (TypeError, ValueError, AttributeError, IndexError, KeyError) as error:
            # a View built by hand whose fields are not of their types
            raise SamplingError(Code.IMPOSSIBLE_STATE, f"no state has this view: a field is not of its "
                                                       f"type ({type(error).__name__}: {error})") from None
        if again != view:
            different = [a.name for a in attrs.fields(View)
                         if getattr(again, a.name) != getattr(view, a.name)]
            raise SamplingError(Code.IMPOSSIBLE_STATE, "no state has this view: its "
                                                       f"{', '.join(different)} do not follow from the rest")
        self._template = template
        self._cards = cards
        self.draw_pile_size = view.draw_pile_size
        """How many of the unseen cards go to the draw pile (the rest fill the face-down spaces)."""
        self.known_draw_pile: Counter[int] | None = None
        """The cards the draw pile holds, by value, when `recall` tells them (after a reshuffle in
        the round); else `None`, and the draw pile and the face-down spaces share the unseen cards."""
        self._down: tuple[int, ...] = ()
        self._pile: tuple[int, ...] = ()
        if known is not None:
            unseen = Counter(self._unseen)
            if known.total() != view.draw_pile_size or known - unseen:
                raise SamplingError(Code.IMPOSSIBLE_STATE, "no state has these views: the cards they put in "
                                                           "the draw pile are not its unseen cards")
            self.known_draw_pile = known
            self._down = tuple(sorted((unseen - known).elements()))
            self._pile = tuple(sorted(known.elements()))

    def _first_pile(self) -> tuple[int, ...]:
        return tuple(self._unseen[len(self._hidden):])

    @property
    def unseen(self) -> int:
        """How many cards the view does not show: its face-down spaces and its draw pile."""
        return len(self._unseen)

    @property
    def hidden_spaces(self) -> int:
        """How many face-down spaces the grids have (swallowed spaces excluded)."""
        return len(self._hidden)

    def unseen_cards(self) -> Counter[int]:
        """The unseen cards, value by value: the deck less every public card (rule 8.1).

        Examples:
            >>> import abyss_rules as ar
            >>> v = ar.view(ar.new_game(players=2, seed=1), 0)
            >>> v.top_discard, dict(ar.Variant.standard().deck)[9], StateSampler(v).unseen_cards()[9]
            (9, 10, 9)
        """
        return Counter(self._unseen)

    def sample(self, rng: random.Random) -> State:
        """One state: the unseen cards shuffled by `rng` onto the face-down spaces and the draw
        pile, and a new dealer whose seed comes from `rng` (see the module's docs).

        Raises:
            SamplingError: `rng` is not a `random.Random` (`invalid_sampling`).
        """
        if not isinstance(rng, random.Random):
            raise SamplingError(f"rng must be a random.Random, got {type(rng).__name__}")
        if self.known_draw_pile is not None:  # (perfect recall: each part shuffled on its own)
            pool = list(self._down)
            rng.shuffle(pool)
            pile = list(self._pile)
            rng.shuffle(pile)
            pool += pile
        else:
            pool = list(self._unseen)
            rng.shuffle(pool)
        cards = self._cards[:]
        hidden = self._hidden
        for i, space in enumerate(hidden):
            cards[space] = pool[i]
        return self._template._replace(cards=tuple(cards), draw_pile=tuple(pool[len(hidden):]),
                                       dealer=Dealer(rng.randbytes(_SEED_BYTES)))


def _remembered_draw_pile(view: View, recall: Sequence[View]) -> Counter[int] | None:
    """The cards of the draw pile by value, as the views of `recall` tell them (`None` when no
    reshuffle happened in the round: then the views add nothing to the last one).

    A reshuffle happens on a draw from an empty draw pile (rules 5.1, 5.2): the cards that left
    the discard pile went into the draw pile, less the card drawn; each later draw takes its
    drawn card from it."""
    if isinstance(recall, (str, bytes)) or not isinstance(recall, Sequence) or not recall \
            or not all(isinstance(v, View) for v in recall):
        raise SamplingError("recall must be a non-empty sequence of Views, the seat's views since its round "
                            "began")
    first, last = recall[0], recall[-1]
    if last != view:
        raise SamplingError("the last view of recall must be the view sampled from")
    if any(v.viewer != view.viewer or v.variant != view.variant or v.round != view.round for v in recall):
        raise SamplingError("recall must hold views of one seat, variant and round")
    if any(b.seq != a.seq + 1 for a, b in pairwise(recall)):
        raise SamplingError("recall must hold every view of the round, one after each action (seq one apart)")
    if len(first.discard_pile) != 1 or first.drawn is not None or first.turns or any(
            True in g.face_up or True in g.swallowed for g in first.grids):
        raise SamplingError("the first view of recall must be the round's deal: every card face down, one "
                            "card on the discard pile")
    known: Counter[int] | None = None
    for before, after in pairwise(recall):
        if before.phase is not Phase.TURN or after.phase is not Phase.DRAWN or after.drawn is None:
            continue  # (not a draw)
        if before.draw_pile_size == 0:  # a reshuffle, then the draw
            known = Counter(before.discard_pile)
            known.subtract(after.discard_pile)
        if known is not None:
            known[after.drawn] -= 1
            if min(known.values(), default=0) < 0:
                raise SamplingError(Code.IMPOSSIBLE_STATE, f"no state has these views: a {after.drawn} is "
                                                           "drawn that the reshuffled draw pile did not hold")
    return None if known is None else +known


def _read(v: View) -> tuple[tuple[int, ...], tuple[int, ...], list[int],
                            list[tuple[list[int | None], int, int]]]:
    """The unseen cards (sorted), the face-down positions (flat, seat by seat), the flat cards
    with the unseen cards' first layout, and the grids as the state codec assembles them."""
    variant = v.variant
    cells = variant.cells
    if len(v.grids) != v.players:
        raise SamplingError(Code.IMPOSSIBLE_STATE, f"no state has this view: {len(v.grids)} grids for "
                                                   f"{v.players} players")
    deck = Counter(variant.unshuffled_deck)
    shown: Counter[int] = Counter(v.discard_pile)
    if v.drawn is not None:
        shown[v.drawn] += 1
    hidden: list[int] = []
    for p, grid in enumerate(v.grids):
        _check_grid(grid, variant.rows, variant.cols, p)
        for s in range(cells):
            if grid.face_up[s]:
                shown[grid.cards[s]] += 1  # type: ignore[index]  # an int: _check_grid
            elif not grid.swallowed[s]:
                hidden.append(p * cells + s)
    extra = shown - deck
    if extra:
        listed = ", ".join(f"{value} (x{n})" for value, n in sorted(extra.items())[:5])
        raise SamplingError(Code.CARDS_MISMATCH, f"the view shows cards its variant's deck has not: {listed}",
                            "1.1")
    unseen = tuple(sorted((deck - shown).elements()))
    if len(unseen) != len(hidden) + v.draw_pile_size:
        raise SamplingError(Code.CARDS_MISMATCH,
                            f"the view leaves {len(unseen)} cards unseen, but has {len(hidden)} face-down "
                            f"spaces and a draw pile of {v.draw_pile_size} (rule 1.1)", "1.1")
    cards = [0] * (cells * v.players)
    grids: list[tuple[list[int | None], int, int]] = []
    for p, grid in enumerate(v.grids):
        up = gone = 0
        for s in range(cells):
            if grid.face_up[s]:
                up |= 1 << s
                cards[p * cells + s] = grid.cards[s]  # type: ignore[assignment]  # an int: _check_grid
            if grid.swallowed[s]:
                gone |= 1 << s
        grids.append(([], up, gone))
    for i, space in enumerate(hidden):
        cards[space] = unseen[i]
    for p, (values, _, gone) in enumerate(grids):
        values.extend(None if gone >> s & 1 else cards[p * cells + s] for s in range(cells))
    return unseen, tuple(hidden), cards, grids


def _check_grid(grid: Grid, rows: int, cols: int, seat: int) -> None:
    if not isinstance(grid, Grid) or (grid.rows, grid.cols) != (rows, cols) \
            or not len(grid.cards) == len(grid.face_up) == len(grid.swallowed) == rows * cols:
        raise SamplingError(Code.IMPOSSIBLE_STATE, f"no state has this view: seat {seat}'s grid is not a "
                                                   f"{rows} x {cols} grid")
    for s in range(rows * cols):
        up, gone, card = grid.face_up[s], grid.swallowed[s], grid.cards[s]
        if (up and gone) or (type(card) is not int if up else card is not None):
            raise SamplingError(Code.IMPOSSIBLE_STATE,
                                f"no state has this view: seat {seat}'s space {s} shows {card!r} while "
                                f"{'swallowed' if gone else 'face up' if up else 'face down'} (rule 8.2)")


def sample_states(view: View, n: int, rng: random.Random, *,
                  recall: Sequence[View] | None = None) -> tuple[State, ...]:
    """`n` full states drawn independently and uniformly from those consistent with `view`.

    Reads the view only: two states with equal views give equal samples for equal `rng`
    states. What "consistent" means is in the module's docs.

    Args:
        view: A seat's (or a spectator's) `View`.
        n: How many states, from 1 to `MAX_SAMPLES`, and at most `MAX_SAMPLED_CARDS` cards in all
            (`n` times the deck's size).
        rng: The source of the shuffles (a `random.Random`; the same state gives the same samples).
        recall: The seat's views since its round began, for perfect recall (see `StateSampler`).

    Returns:
        The states, each one loadable (the state codec and the invariant checker accept it)
        and each with `view(state, view.viewer) == view`.

    Raises:
        SamplingError: A bad `n` or `rng` (`invalid_sampling`; also when `n` states of this
            view's deck would hold more than `MAX_SAMPLED_CARDS` cards), or a `view` no state
            has (see `StateSampler`).

    Examples:
        >>> import random
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=3)
        >>> a = sample_states(ar.view(state, 0), 2, random.Random(1))
        >>> b = sample_states(ar.view(state, 0), 2, random.Random(1))
        >>> a == b, len(a)
        (True, 2)
    """
    if type(n) is not int or not 1 <= n <= MAX_SAMPLES:
        raise SamplingError(f"n must be an int from 1 to {MAX_SAMPLES}, got {n!r}")
    if not isinstance(rng, random.Random):
        raise SamplingError(f"rng must be a random.Random, got {type(rng).__name__}")
    sampler = StateSampler(view, recall=recall)
    cards = view.variant.deck_size
    if n * cards > MAX_SAMPLED_CARDS:
        raise SamplingError(f"n = {n:,} states of {cards:,} cards would hold more than {MAX_SAMPLED_CARDS:,} "
                            f"cards: ask for at most {MAX_SAMPLED_CARDS // cards:,} states of this view "
                            "per call (or draw them one at a time from a StateSampler)")
    return tuple([sampler.sample(rng) for _ in range(n)])
