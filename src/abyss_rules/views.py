"""What one player (or a spectator) may see: views built from public information (spec section 8).

`view` copies, field by field, only what rule 8.1 makes public -- an
allow-list: face-up values, the discard pile, the size of the draw pile, the
drawn card, the scores, whose turn it is. Face-down values, the draw pile's
contents and the dealer's seed are never read into a view (rule 8.2), so a
view is safe to send to a client.

Since no player holds private information in *Abyss* (ruling 26), every
seat's view holds the same game facts; `viewer` and `legal_actions` (the
viewer's own) differ.

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=3)
    >>> v = ar.view(state, 0)
    >>> v.grids[0].cards          # all twelve cards face down: no values
    (None, None, None, None, None, None, None, None, None, None, None, None)
    >>> v.draw_pile_size, len(v.legal_actions)
    (125, 12)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import attrs

from ._grid import Geometry, Grid, fast_constructor, snapshots
from .actions import Action
from .config import Variant
from .errors import ArgumentError
from .rules._illegal import not_a_state
from .rules._legal import legal_actions
from .rules._opening import choose_opener
from .state import Phase, RoundResult, State, no_such_seat

if TYPE_CHECKING:
    from .documents import ViewDocument

__all__ = ["View", "unseen_counts", "view"]


@attrs.frozen(slots=True)
class View:
    """The public facts of a game as one seat (or a spectator) sees them (rules 8.1, 8.3).

    Build one with `view`. Its grids are `Grid` snapshots
    whose `cards` are `None` on face-down spaces.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=42)
        >>> for action in [ar.Flip(0, 0, 3), ar.Flip(0, 1, 0), ar.Flip(1, 1, 1), ar.Flip(1, 1, 2)]:
        ...     state = ar.apply(state, action)
        >>> v = ar.view(state, 1)
        >>> v.phase, v.turn, v.opener, v.opening
        (<Phase.TURN: 'turn'>, 1, 1, ((8, 2), (9, 1)))
        >>> print(v.grids[1])
        ?? ?? ?? ??
        ??  9  1 ??
        ?? ?? ?? ??
    """

    viewer: int | None
    """The seat this view is for; `None` for a spectator."""
    variant: Variant
    """The rules in play (public, rule 8.1)."""
    players: int
    """The number of players."""
    round: int
    """The round number, from 1."""
    phase: Phase
    """What the game waits for."""
    turn: int | None
    """The seat to act in the turn and drawn phases, else `None` (as `State.turn`)."""
    opener: int | None
    """The seat that opened this round, once the opening is over."""
    grids: tuple[Grid, ...]
    """Every seat's grid; `cards` is `None` on face-down and swallowed spaces."""
    opening: tuple[tuple[int, ...], ...]
    """Per seat, the values of this round's opening flips (rule 2.1)."""
    owing_flips: tuple[int, ...]
    """The seat numbers (not counts) that still owe opening flips, in seat order; `()` outside the
    opening. How many flips a seat has made is `len(opening[seat])`."""
    discard_pile: tuple[int, ...]
    """The whole discard pile since the last reshuffle, top first (rule 5.3)."""
    draw_pile_size: int
    """How many cards the draw pile holds (never which)."""
    drawn: int | None
    """The drawn card while a player holds one (public, rule 3.4)."""
    closer: int | None
    """The seat that closed this round, if any (rule 6.1)."""
    turns: int
    """Turns completed this round (rule 6.7)."""
    totals: tuple[int, ...]
    """Every seat's total of the finished rounds (rule 7.1)."""
    history: tuple[RoundResult, ...]
    """The finished rounds, reveals included (rule 6.6)."""
    winners: tuple[int, ...]
    """The winners once the game is over, else `()` (rule 7.4)."""
    seq: int
    """The number of actions applied since the game began (for stale-action checks)."""
    legal_actions: tuple[Action, ...]
    """The actions the viewer may take now (`()` for a spectator)."""

    @property
    def top_discard(self) -> int | None:
        """The top card of the discard pile, or `None`."""
        return self.discard_pile[0] if self.discard_pile else None

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now: in the opening every seat that still owes flips, in the turn
        and drawn phases `(turn,)`, after the game `()`.

        The same as `State.to_act`, from public facts.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=3, seed=1)).to_act
            (0, 1, 2)
        """
        if self.phase is Phase.OPENING:
            return self.owing_flips
        return () if self.turn is None else (self.turn,)

    def to_dict(self) -> ViewDocument:
        """The `view` document of this view: public facts only, safe to send to a client.

        See `view_to_dict` and `docs/json.md`.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=2, seed=3), 1).to_dict()["viewer"]
            1
        """
        from .codec._view import view_data  # on use: the codec's facade imports this module

        return cast("ViewDocument", view_data(self))

    def to_json(self) -> str:
        """The canonical JSON text of the `view` document (see `dumps_view`).

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=2, seed=3)).to_json()[:40]
            '{"closer":null,"discard_pile":[0],"draw_'
        """
        from .codec._view import view_text  # on use: the codec's facade imports this module

        return view_text(self)

    def _repr_svg_(self) -> str:
        """The picture Jupyter shows: `to_svg` of this view."""
        from .pictures._svg import to_svg  # on use: the pictures import this module

        return to_svg(self)


def view(state: State, player: int | None = None) -> View:
    """The view of `state` for seat `player`, or for a spectator when `player` is `None` (rule 8.3).

    Args:
        state: The authoritative game state.
        player: The viewer's seat, or `None` for a spectator.

    Returns:
        The public facts (rule 8.1) and the viewer's legal actions; two states that differ
        only in secret information (rule 8.2) give equal views.

    Raises:
        SeatError: `player` is an int that is not a seat of the game (code `no_such_player`,
            rule 1.3, as `apply` reports an action for it; an `IndexError`).
        MalformedActionError: `player` is neither an int nor `None` (code `malformed_action`).
        InvalidStateError: `state` is not a `State` (code `invalid_state`).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=42)
        >>> ar.view(state, 1).legal_actions[0]
        Flip(player=1, row=0, col=0)
        >>> spectator = ar.view(state)
        >>> spectator.viewer, spectator.legal_actions, spectator.discard_pile
        (None, (), (-1,))
    """
    if type(state) is not State:
        raise not_a_state("view", state)
    # The state is read by field name (only rules/ builds or unpacks it by position); the dealer
    # (rule 8.2) is never read.
    v, phase, turn, opening, totals, history = (state.variant, state.phase, state.turn, state.opening,
                                                state.totals, state.history)
    players = len(totals)
    if player is not None and (type(player) is not int or not 0 <= player < players):
        raise no_such_seat(player, players)
    grids = _public_grids(v, state.cards, state.face_up_mask, state.swallowed_mask, players)
    opener: int | None = None
    if phase is not _OPENING:
        opener = _opener(v, opening, history, phase is _GAME_OVER)
    mine: tuple[Action, ...] = ()
    if player is not None:
        if phase is _OPENING:
            mine = tuple([a for a in legal_actions(state) if a.player == player])
        elif player == turn:  # outside the opening, every legal action is the mover's
            mine = legal_actions(state)
    # The allow-list (rule 8.1): every field is a public fact; of the draw pile, only its size.
    return _fast_view(
        player, v, players, state.round, phase, turn, opener, grids, opening,
        state.owing_flips if phase is _OPENING else (), state.discard_pile, len(state.draw_pile),
        state.drawn, state.closer, state.turns, totals, history, state.winners if phase is _GAME_OVER else (),
        state.seq, mine,
    )


_OPENING = Phase.OPENING
_GAME_OVER = Phase.GAME_OVER


# One-entry memos, checked by identity: the states of one game share these objects (every
# seat's view of one state, a draw that leaves the grids alone, the turns of one round).
# Each memo holds its keys, so an identity cannot be reused while it is in the memo.
_last_grids: tuple[object, int, int, object, int, tuple[Grid, ...]] = (None, -1, -1, None, -1, ())
_last_opener: tuple[object, object, object, bool, int] = (None, None, None, False, -1)


def _public_grids(v: Variant, cards: tuple[int, ...], up: int, gone: int, players: int) -> tuple[Grid, ...]:
    """Every seat's grid from public facts only: face-up values and the masks (rules 8.1, 8.2).

    The same grids as `Grid.from_flat(..., public=True)` for each seat, shared with the
    previous view when the grids have not changed since (grids are immutable).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=3)
        >>> up, gone = state.face_up_mask, state.swallowed_mask
        >>> grids = _public_grids(state.variant, state.cards, up, gone, 2)
        >>> grids == tuple(Grid.from_flat(3, 4, state.cards, up, gone, p, public=True)
        ...                for p in range(2))
        True
    """
    global _last_grids
    last = _last_grids
    if last[0] is cards and last[3] is v and last[4] == players:
        changed = (up ^ last[1]) | (gone ^ last[2])
        if not changed:
            return last[5]
        # The same cards: a seat whose masks did not change shows the same grid.
        geometry = v.geometry
        cells, full = geometry.cells, geometry.full_mask
        grids = tuple([
            grid if not changed >> p * cells & full else _one(geometry, cards, up, gone, p)
            for p, grid in enumerate(last[5])
        ])
    else:
        grids = snapshots(v.geometry, cards, up, gone, True, 0, players)
    _last_grids = (cards, up, gone, v, players, grids)
    return grids


def _one(geometry: Geometry, cards: tuple[int, ...], up: int, gone: int, player: int) -> Grid:
    """Seat `player`'s public grid."""
    return snapshots(geometry, cards, up, gone, True, player, player + 1)[0]


def _opener(v: Variant, opening: tuple[tuple[int, ...], ...], history: tuple[RoundResult, ...],
            over: bool) -> int:
    """The round's opener (rules 2.3, 2.4); once the game is `over`, the history holds this round too.

    Examples:
        >>> import abyss_rules as ar
        >>> _opener(ar.Variant.standard(), ((8, 2), (9, 1)), (), False)
        1
    """
    global _last_opener
    last = _last_opener
    if last[0] is v and last[1] is opening and last[2] is history and last[3] is over:
        return last[4]
    # After the game ends, the history already holds this round: leave it out.
    opener = choose_opener(v, opening, history[:-1] if over else history)
    _last_opener = (v, opening, history, over, opener)
    return opener


_fast_view = fast_constructor(View)
"""`View(...)` with the fields in their order, built without attrs' `__init__` (a view is built
on every call of `view`; docs/performance.md says what it saves): every
value `view` passes is already one of the view's types (`tests/test_views.py` checks that it
builds what `View(...)` builds)."""


def unseen_counts(v: View) -> tuple[tuple[int, int], ...]:
    """How many cards of each value are still unseen in view `v`: the deck (rule 1.1) minus every
    public card (rule 8.1) -- the face-up cards of every grid, the discard pile since the last
    reshuffle (rule 5.3) and a drawn card. Card counting from public facts only: the unseen
    cards are the face-down ones and the draw pile, in some order nobody knows (rule 8.2).

    Returns:
        `(value, count)` for every value of the deck, in the deck's order (a count may be 0).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.apply(ar.new_game(players=2, seed=42), ar.Flip(0, 0, 3))
        >>> v = ar.view(state)
        >>> v.discard_pile, v.grids[0].cards[3]
        ((-1,), 8)
        >>> dict(unseen_counts(v))[-1], dict(unseen_counts(v))[8]
        (9, 9)
    """
    if not isinstance(v, View):
        raise ArgumentError(f"expected a View, got {type(v).__name__}")
    seen: dict[int, int] = {}
    public = [card for grid in v.grids for card, up in zip(grid.cards, grid.face_up, strict=True)
              if up and card is not None]
    public.extend(v.discard_pile)
    if v.drawn is not None:
        public.append(v.drawn)
    for card in public:
        seen[card] = seen.get(card, 0) + 1
    return tuple((value, max(0, count - seen.get(value, 0))) for value, count in v.variant.deck)
