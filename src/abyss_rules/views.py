"""What one player (or a spectator) may see: views built from public information (spec section 8).

[`view`][abyss_rules.view] copies, field by field, only what rule 8.1 makes public -- an
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

from typing import Any

import attrs

from .actions import Action
from .config import Variant
from .grid import Grid
from .rules.legal import legal_actions
from .rules.opening import choose_opener
from .state import Phase, RoundResult, State

__all__ = ["View", "view"]


@attrs.frozen(slots=True)
class View:
    """The public facts of a game as one seat (or a spectator) sees them (rules 8.1, 8.3).

    Build one with [`view`][abyss_rules.view]. Its grids are
    [`Grid`][abyss_rules.Grid] snapshots whose `cards` are `None` on face-down spaces.

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
    """The seat to act in the turn and drawn phases, else `None`."""
    opener: int | None
    """The seat that opened this round, once the opening is over."""
    grids: tuple[Grid, ...]
    """Every seat's grid; `cards` is `None` on face-down and swallowed spaces."""
    opening: tuple[tuple[int, ...], ...]
    """Per seat, the values of this round's opening flips (rule 2.1)."""
    owing_flips: tuple[int, ...]
    """The seats that still owe opening flips."""
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
        """The seats that may act now: those owing opening flips, or the player to move.

        The same as [`State.to_act`][abyss_rules.State.to_act], from public facts.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=3, seed=1)).to_act
            (0, 1, 2)
        """
        if self.phase is Phase.OPENING:
            return self.owing_flips
        return () if self.turn is None else (self.turn,)

    def to_dict(self) -> dict[str, Any]:
        """The `view` document of this view: public facts only, safe to send to a client.

        See [`view_to_dict`][abyss_rules.view_to_dict] and `docs/json.md`.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=2, seed=3), 1).to_dict()["viewer"]
            1
        """
        from .codec import view_to_dict  # the codec imports this module

        return view_to_dict(self)

    def to_json(self) -> str:
        """The canonical JSON text of the `view` document (see [`dumps_view`][abyss_rules.dumps_view]).

        Examples:
            >>> import abyss_rules as ar
            >>> ar.view(ar.new_game(players=2, seed=3)).to_json()[:40]
            '{"closer":null,"discard_pile":[0],"draw_'
        """
        from .codec import dumps_view

        return dumps_view(self)


def view(state: State, player: int | None = None) -> View:
    """The view of `state` for seat `player`, or for a spectator when `player` is `None` (rule 8.3).

    Args:
        state: The authoritative game state.
        player: The viewer's seat, or `None` for a spectator.

    Returns:
        The public facts (rule 8.1) and the viewer's legal actions; two states that differ
        only in secret information (rule 8.2) give equal views.

    Raises:
        IndexError: `player` is not a seat of the game.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=42)
        >>> ar.view(state, 1).legal_actions[0]
        Flip(player=1, row=0, col=0)
        >>> spectator = ar.view(state)
        >>> spectator.viewer, spectator.legal_actions, spectator.discard_pile
        (None, (), (-1,))
    """
    players = state.players
    if player is not None and (type(player) is not int or not 0 <= player < players):
        raise IndexError(f"no seat {player!r} in a {players}-player game")
    v = state.variant
    phase = state.phase
    grids = tuple(_public_grid(state, p) for p in range(players))
    opener: int | None = None
    if phase is not Phase.OPENING:
        # After the game ends, the history already holds this round: leave it out.
        earlier = state.history[:-1] if phase is Phase.GAME_OVER else state.history
        opener = choose_opener(v, state.opening, earlier)
    mine: tuple[Action, ...] = ()
    if player is not None:
        if phase is Phase.OPENING:
            mine = tuple(a for a in legal_actions(state) if a.player == player)
        elif player == state.turn:  # outside the opening, every legal action is the mover's
            mine = legal_actions(state)
    return View(
        viewer=player,
        variant=v,
        players=players,
        round=state.round,
        phase=state.phase,
        turn=state.current_player,
        opener=opener,
        grids=grids,
        opening=state.opening,
        owing_flips=state.owing_flips,
        discard_pile=state.discard_pile,
        draw_pile_size=len(state.draw_pile),
        drawn=state.drawn,
        closer=state.closer,
        turns=state.turns,
        totals=state.totals,
        history=state.history,
        winners=state.winners,
        seq=state.seq,
        legal_actions=mine,
    )


def _public_grid(state: State, player: int) -> Grid:
    """Seat `player`'s grid from public facts only: face-up values, masks (rules 8.1, 8.2)."""
    v = state.variant
    return Grid.from_flat(v.rows, v.cols, state.cards, state.face_up, state.swallowed, player, public=True)
