"""The game state: one immutable, hashable value (spec sections 1-7).

`State` holds everything about a game, secret cards included: it is the
authoritative state a server keeps. It never changes; the rule functions
return new states. It compares and hashes by value.

Representation (chosen for speed; docs/performance.md says why):

* `cards` -- every player's grid in one flat tuple of ints: player `p`'s
  space `s` is `cards[p * cells + s]` (space `s = row * cols + col`).
  A swallowed space holds `0`.
* `face_up_mask` and `swallowed_mask` -- the engine's fast form of which spaces are face up
  and swallowed: bit masks over the same positions (bit `p * cells + s`). Read them as
  `face_up` and `swallowed`, tuples of booleans by position, as a `Grid` gives them by space.
* `draw_pile` and `discard_pile` -- tuples of ints listed **top first**.

`State.grid` and the other properties give friendlier read access.

`State` is a `typing.NamedTuple` underneath -- a state is built on every action, and a
tuple is the cheapest value to build -- but it is not equal to any plain tuple, and its
`repr` never shows secret information.

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=42)
    >>> state
    <State round=1 phase=opening turn=None players=2 seq=0 totals=[0, 0]>
    >>> state.cards[:4], state.face_up[:4], state.discard_pile
    ((3, 6, 3, 8), (False, False, False, False), (-1,))
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, NamedTuple

import attrs

from ._grid import Grid, flags
from .config import Variant
from .errors import AbyssError, ArgumentError, Code, IllegalActionError, MalformedActionError, SeatError

__all__ = [
    "COUNTER_LIMIT", "WORDS_PER_ACTION", "Dealer", "Phase", "RoundResult", "State", "counter_limit",
    "winners",
]

def winners(totals: tuple[int, ...]) -> tuple[int, ...]:
    """The seats with the lowest total; ties share the win (rule 7.4).

    Stated here, with the state that reports it (`State.winners`), so that the state needs
    nothing of `rules/`; `abyss_rules.rules._scoring` re-exports it.

    Examples:
        >>> winners((12, 7, 7))
        (1, 2)
    """
    if not isinstance(totals, (tuple, list)) or not totals or not all(type(t) is int for t in totals):
        raise ArgumentError(f"totals are one int per seat, got {type(totals).__name__}"
                            f"{'' if isinstance(totals, (tuple, list)) and totals else ' (none)'}")
    low = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == low)


class Phase(StrEnum):
    """What the game is waiting for (spec section 3, "Phases").

    A string enum: each phase compares equal to its value.

    Examples:
        >>> Phase.OPENING == "opening", Phase("drawn")
        (True, <Phase.DRAWN: 'drawn'>)
    """

    OPENING = "opening"
    """Players still owe opening flips (rules 2.1, 2.2); any of them may act."""
    TURN = "turn"
    """`State.turn` chooses a turn option (rule 3.2)."""
    DRAWN = "drawn"
    """`State.turn` holds a drawn card and must place or discard it (rule 3.4)."""
    GAME_OVER = "game_over"
    """The game has ended (rules 7.2-7.5)."""


@attrs.frozen(slots=True, repr=False)
class Dealer:
    """The secret source of every future card: the seed, the generator's
    position, and any explicit deck orders still to deal (rules 9.1-9.6).

    Never shown to a player (rule 8.2); its `repr` hides the seed.

    Examples:
        >>> import abyss_rules as ar
        >>> ar.new_game(players=2, seed=42).dealer      # round 1's deal used words 0 to 148
        Dealer(<secret>, position=149, decks=0)
    """

    seed: bytes
    """The 32-byte seed (rule 9.1)."""
    position: int = 0
    """Words of the stream consumed so far (rule 9.2)."""
    decks: tuple[tuple[int, ...], ...] = ()
    """Explicit deck orders (top first) for the next rounds, used before any shuffle (rule 9.6)."""

    def __repr__(self) -> str:
        return f"Dealer(<secret>, position={self.position}, decks={len(self.decks)})"


@attrs.frozen(slots=True)
class RoundResult:
    """The end of one round, kept in `abyss_rules.State` (rule 6.6).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, variant=ar.Variant.short(), seed=5)
        >>> while not state.is_over:                   # always the last legal action: flips
        ...     state = ar.apply(state, ar.legal_actions(state)[-1])
        >>> result = state.last_round
        >>> result.round, result.closer, result.raw_scores, result.penalized
        (1, 0, (48, 64), False)
        >>> result.scores == result.totals == state.totals
        True
    """

    round: int
    """The round number, from 1."""
    grids: tuple[Grid, ...]
    """Every player's grid after the final reveal (rule 6.3) and its swallows (rule 4.3)."""
    closer: int | None
    """The seat that closed the round (rule 6.1); `None` when the stalling cap ended it (rule 6.7)."""
    raw_scores: tuple[int, ...]
    """Each player's round score before the closer penalty (rule 6.4)."""
    scores: tuple[int, ...]
    """Each player's round score after the closer penalty (rule 6.5)."""
    penalized: bool
    """Whether the closer's score was multiplied (rule 6.5)."""
    capped: bool
    """Whether the stalling cap ended the round (rule 6.7)."""
    turns: int
    """Turns completed in the round (opening flips are not turns, rule 6.7)."""
    totals: tuple[int, ...]
    """Every player's total after this round (rule 7.1)."""

    def _repr_svg_(self) -> str:
        """The picture Jupyter shows: `to_svg` of this round's final reveal."""
        from .pictures._svg import to_svg  # on use: the pictures import this module

        return to_svg(self)


class _Fields(NamedTuple):
    variant: Variant
    phase: Phase
    round: int
    turn: int | None
    cards: tuple[int, ...]
    face_up_mask: int
    swallowed_mask: int
    draw_pile: tuple[int, ...]
    discard_pile: tuple[int, ...]
    drawn: int | None
    closer: int | None
    opening: tuple[tuple[int, ...], ...]
    turns: int
    totals: tuple[int, ...]
    history: tuple[RoundResult, ...]
    dealer: Dealer
    seq: int


class State(_Fields):
    """The whole game at one moment. Build one with `new_game`.

    Fields (all public, all immutable):

    * `variant` -- the `Variant`;
    * `phase` -- the `Phase`;
    * `round` -- the round number, from 1;
    * `turn` -- the seat to act in the turn and drawn phases, else `None` (as `View.turn`; see
      `to_act` for the seats that may act in the opening);
    * `cards` -- every grid's cards in one flat tuple (see `abyss_rules.state`);
    * `face_up_mask`, `swallowed_mask` -- the fast form of `face_up` and `swallowed` (bit masks);
    * `draw_pile`, `discard_pile` -- the piles, top first;
    * `drawn` -- the drawn card in the drawn phase, else `None`;
    * `closer` -- the seat that closed this round (rule 6.1), else `None`;
    * `opening` -- per seat, the values of this round's opening flips (rule 2.1);
    * `turns` -- turns completed this round (rule 6.7);
    * `totals` -- every seat's total of the rounds already scored (rule 7.1);
    * `history` -- a `RoundResult` per finished round (rule 6.6);
    * `dealer` -- the secret `Dealer` (rule 8.2);
    * `seq` -- the number of actions applied since the game began.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=42)
        >>> state.phase, state.round, state.turn, state.owing_flips
        (<Phase.OPENING: 'opening'>, 1, None, (0, 1))
        >>> state.top_discard, state.draw_pile_size
        (-1, 125)
        >>> ar.apply(state, ar.Flip(0, 0, 3)).opening
        ((8,), ())
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is State and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return (
            f"<State round={self.round} phase={self.phase.value} turn={self.turn} "
            f"players={len(self.totals)} seq={self.seq} totals={list(self.totals)}>"
        )

    def _repr_svg_(self) -> str:
        """The picture Jupyter shows: `to_svg` of the public view, no secret."""
        from .pictures._svg import to_svg  # on use: the pictures import this module

        return to_svg(self)

    def __copy__(self) -> State:
        return self

    def __deepcopy__(self, memo: Any) -> State:
        return self

    # -- read access -----------------------------------------------------------

    @property
    def players(self) -> int:
        """The number of players (rule 1.3)."""
        return len(self.totals)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (rules 7.2, 7.3)."""
        return self.phase is Phase.GAME_OVER

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total once the game is over (rule 7.4); `()` before."""
        if self.phase is not Phase.GAME_OVER:
            return ()
        return winners(self.totals)

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now: in the opening every seat that still owes flips (any of
        them may flip first, rule 2.2); in the turn and drawn phases `(turn,)`; after the game `()`.

        `turn` is the one seat whose turn it is, or `None` in the opening and after the game; `to_act`
        also covers the opening, where several seats may act.

        Examples:
            >>> import abyss_rules as ar
            >>> state = ar.new_game(players=3, seed=1)
            >>> state.turn, state.to_act
            (None, (0, 1, 2))
        """
        if self.phase is Phase.OPENING:
            return self.owing_flips
        turn = self.turn
        return () if turn is None else (turn,)

    @property
    def owing_flips(self) -> tuple[int, ...]:
        """The seat numbers that still owe opening flips, in seat order (rule 2.1); `()` outside the opening.

        A list of seats, not a count per seat: `(0, 2)` means seats 0 and 2 still have flips to
        make. How many flips a seat has made is `len(opening[seat])`.

        Examples:
            >>> import abyss_rules as ar
            >>> state = ar.apply(ar.new_game(players=3, seed=1), ar.Flip(1, 0, 0))
            >>> state.owing_flips, [len(flips) for flips in state.opening]
            ((0, 1, 2), [0, 1, 0])
        """
        if self.phase is not Phase.OPENING:
            return ()
        need = self.variant.initial_flips
        return tuple(p for p, flips in enumerate(self.opening) if len(flips) < need)

    @property
    def face_up(self) -> tuple[bool, ...]:
        """Whether each space is face up, by position `p * cells + s` as in `cards` (rule 8.1).

        The same booleans as every `grid(p).face_up`, end to end; `face_up_mask` is their
        fast form.

        Examples:
            >>> import abyss_rules as ar
            >>> state = ar.apply(ar.new_game(players=2, seed=42), ar.Flip(1, 0, 3))
            >>> state.face_up[12:16], state.face_up[12:24] == state.grid(1).face_up
            ((False, False, False, True), True)
        """
        return flags(len(self.cards), self.face_up_mask)

    @property
    def swallowed(self) -> tuple[bool, ...]:
        """Whether each space has been swallowed this round, by position `p * cells + s` as in
        `cards` (rule 4.1); `swallowed_mask` is their fast form."""
        return flags(len(self.cards), self.swallowed_mask)

    @property
    def top_discard(self) -> int | None:
        """The top card of the discard pile, or `None` if it is empty."""
        return self.discard_pile[0] if self.discard_pile else None

    @property
    def draw_pile_size(self) -> int:
        """How many cards the draw pile holds (public, rule 8.1)."""
        return len(self.draw_pile)

    @property
    def last_round(self) -> RoundResult | None:
        """The most recently finished round, or `None` during round 1 (rule 6.6)."""
        return self.history[-1] if self.history else None

    def grid(self, player: int) -> Grid:
        """A snapshot of `player`'s grid, face-down values included.

        This is the authoritative state; never send it to a client. Use
        `view` for what a player may see (rule 8.3).

        Raises:
            SeatError: `player` is an int that is not a seat of the game (`no_such_player`; an
                `IndexError`).
            MalformedActionError: `player` is not an int (`malformed_action`; a `TypeError`).

        Examples:
            >>> import abyss_rules as ar
            >>> print(ar.apply(ar.new_game(players=2, seed=42), ar.Flip(0, 0, 3)).grid(0))
            ?? ?? ??  8
            ?? ?? ?? ??
            ?? ?? ?? ??
        """
        if type(player) is not int or not 0 <= player < len(self.totals):
            raise no_such_seat(player, len(self.totals))
        v = self.variant
        return Grid.from_flat(v.rows, v.cols, self.cards, self.face_up_mask, self.swallowed_mask, player)

    def grids(self) -> tuple[Grid, ...]:
        """Every player's grid (see `grid`)."""
        return tuple(self.grid(p) for p in range(len(self.totals)))

    def face_down_count(self, player: int) -> int:
        """How many face-down cards `player` has (rule 6.1).

        Raises:
            SeatError: `player` is an int that is not a seat of the game (`no_such_player`; an
                `IndexError`).
            MalformedActionError: `player` is not an int (`malformed_action`; a `TypeError`).

        Examples:
            >>> import abyss_rules as ar
            >>> ar.new_game(players=2, seed=42).face_down_count(0)
            12
        """
        if type(player) is not int or not 0 <= player < len(self.totals):
            raise no_such_seat(player, len(self.totals))
        cells = self.variant.cells
        shift = player * cells
        full = (1 << cells) - 1
        return (full & ~((self.face_up_mask | self.swallowed_mask) >> shift)).bit_count()


COUNTER_LIMIT: Final = 1 << 40
"""A game takes fewer actions than this (rule 3.12): once `seq` is `COUNTER_LIMIT - 1` no action is
legal, and a loaded state's `seq` is below it."""
WORDS_PER_ACTION: Final = 1 << 12
"""A loaded state's dealer position is at most `WORDS_PER_ACTION * (seq + 1)` (rule 3.12): a shuffle
of at most 2,048 cards happens in the first deal and at most once an action."""


def counter_limit() -> IllegalActionError:
    """The refusal of an action that passed every other check in a game at the bound (rule 3.12).

    The bound is decided from `seq`, which is public (rule 3.13): a game that has taken
    `COUNTER_LIMIT - 1` actions takes no more.

    Examples:
        >>> error = counter_limit()
        >>> error.code, error.rule
        ('counter_limit', '3.12')
    """
    return IllegalActionError(Code.COUNTER_LIMIT, "the game has taken 2**40 - 1 actions, the most a game may "
                                                  "take: no action is legal")


def no_such_seat(player: object, players: int) -> AbyssError:
    """The error for a `player` argument that names no seat of a `players`-player game.

    An int out of range is a `SeatError` (code `no_such_player`, rule 1.3, the code `apply`
    gives an action for such a seat); anything else is `malformed_action`.

    Examples:
        >>> no_such_seat(5, 2)
        SeatError(code='no_such_player', message='there is no seat 5 in a 2-player game', rule='1.3')
        >>> no_such_seat("1", 2).code
        'malformed_action'
    """
    if type(player) is not int:
        return MalformedActionError(f"a seat must be an int, got {player!r}")
    return SeatError(Code.NO_SUCH_PLAYER, f"there is no seat {player} in a {players}-player game")
