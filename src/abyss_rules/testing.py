"""Hypothesis strategies and an invariant checker, for testing code built on abyss-rules.

This module needs [Hypothesis](https://hypothesis.readthedocs.io/), an optional dependency:
install the `testing` extra (`pip install 'abyss-rules[testing]'`). Importing it without
Hypothesis raises an `ImportError` that says so; the engine itself never imports it.

| strategy | draws |
|---|---|
| [`seeds()`][abyss_rules.testing.seeds] | game seeds: ints in `[0, 2**256)` and 32-byte strings (rule 9.1) |
| [`variants()`][abyss_rules.testing.variants] | the presets and generated valid variants (rules 10.1-10.3) |
| [`games()`][abyss_rules.testing.games] | a [`Game`][abyss_rules.testing.Game]: a game played legally |
| [`states()`][abyss_rules.testing.states] | the last state of such a game |
| [`legal_actions(state)`][abyss_rules.testing.legal_actions] | one legal action of `state` |
| [`actions(variant, players)`][abyss_rules.testing.actions] | any well-formed action, legal or not |

[`check_invariants`][abyss_rules.testing.check_invariants] raises
[`InvariantError`][abyss_rules.testing.InvariantError] (an `AssertionError`) naming the first
invariant a state breaks. For exhaustive checks,
[`action_space`][abyss_rules.testing.action_space] lists every well-formed action around a
grid and [`deck_orders`][abyss_rules.testing.deck_orders] every order of a small deck.

Examples:
    >>> from hypothesis import given, settings
    >>> import abyss_rules as ar
    >>> @settings(max_examples=10, deadline=None)
    ... @given(states())
    ... def test_any_reachable_state_is_sound(state):
    ...     check_invariants(state)
    ...     assert state.is_over or ar.legal_actions(state)
    >>> test_any_reachable_state_is_sound()
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Final

try:
    from hypothesis import strategies as st
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by tests/test_testing.py
    raise ImportError(
        "abyss_rules.testing needs Hypothesis, an optional dependency of abyss-rules: "
        "install it with  pip install 'abyss-rules[testing]'"
    ) from _error

import attrs

from .actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip
from .config import MAX_CELLS, Opener, Variant
from .errors import (
    Code,
    ConfigError,
    IllegalActionError,
    InvalidStateError,
    InvariantError,
)
from .loadability import impossibility
from .randomness import Seed, secret_repr
from .rules.columns import complete_column
from .rules.dealing import new_game
from .rules.engine import apply
from .rules.legal import legal_actions as _legal_actions
from .state import Phase, RoundResult, State

__all__ = [
    "MAX_GAME_ACTIONS",
    "Game",
    "InvariantError",
    "action_space",
    "actions",
    "check_invariants",
    "deck_orders",
    "games",
    "legal_actions",
    "seeds",
    "states",
    "variants",
]

SearchStrategy = st.SearchStrategy

MAX_GAME_ACTIONS: Final = 3000
"""The most actions [`games`][abyss_rules.testing.games] plays (Hypothesis caps an example's choices)."""

_PRESETS: Final[tuple[Variant, ...]] = (Variant.standard(), Variant.short(), Variant.long())


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------




def _need_state(state: object, who: str) -> State:
    if type(state) is not State:
        raise InvalidStateError(Code.INVALID_STATE, f"{who} needs a State, got {type(state).__name__}")
    return state


def check_invariants(state: State) -> None:
    """Raise [`InvariantError`][abyss_rules.testing.InvariantError] naming the first invariant
    `state` breaks; return `None` if it breaks none.

    Every state the engine produces must pass. The invariants, in the order
    they are checked (the name is `InvariantError.invariant`):

    * `shape`: one grid, one opening record and one total per player, the
      player count in the variant's range (rule 1.3), masks within the grids;
    * `swallowed_spaces`: a swallowed space holds 0 and is not face up,
      swallowed spaces form whole columns, and no column is face up and all
      equal without being swallowed (rule 4.1; after the game only with
      `swallow_on_final_reveal`, rule 4.3);
    * `card_conservation`: the cards on the grids (swallowed spaces
      excluded), the draw pile, the discard pile and the drawn card are
      exactly the deck, as a multiset (rules 1.1, 1.4);
    * `discard_pile`: the discard pile is never empty (rules 1.4, 5.1, 5.2);
    * `drawn_card`: a drawn card is held exactly in the drawn phase (rule 3.4);
    * `turn`: `turn` is a seat in the turn and drawn phases, else `-1` (rule 3.1);
    * `turns`: no turn is completed in the opening; while a round is played,
      fewer turns than the stalling cap (rule 6.7);
    * `opening_flips`: nobody makes more than `initial_flips` opening flips;
      in the opening someone still owes one and each player's face-up and
      swallowed spaces are exactly their flips; after it, all are made
      (rules 2.1, 2.2);
    * `closer`: no closer in the opening; the closer has no face-down card
      and is not to play; with no closer, everybody still has a face-down
      card (rules 6.1, 6.2); after the game, the closer is the last round's;
    * `history`: one round result per finished round, with cumulative totals
      that are the state's totals, and no round after the game was over
      (rules 6.6, 7.1, 7.2);
    * `game_over`: once the game is over, every remaining card is face up
      (rule 6.3) and an end condition holds (rules 7.2, 7.3);
    * `legal_actions`: there is a legal action exactly when the game is not
      over (rules 3.2, 7.5);
    * `winners`: after the game, the winners are exactly the seats with the
      lowest total; before it, nobody (rule 7.4);
    * `loadable`: what the loaders check too (rule 3.11, see
      [`abyss_rules.loadability`][abyss_rules.loadability]): the seat to act can act, the
      opening flips are cards of the deck and chose the opener, no finished grid shows a column
      the final reveal would have swallowed, `seq` fits the flips and turns taken, and the
      counters are below 2**48.

    Raises:
        MalformedActionError: code `invalid_state`, if `state` is not a
            [`State`][abyss_rules.State].

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=5)
        >>> check_invariants(state)
        >>> try:
        ...     check_invariants(state._replace(draw_pile=state.draw_pile[1:]))   # lose a card
        ... except InvariantError as error:
        ...     print(error.invariant, error.rule)
        card_conservation 1.1
    """
    s = _need_state(state, "check_invariants()")
    _check_shape(s)
    _check_cards(s)
    _check_phase(s)
    _check_results(s)
    problem = impossibility(s)  # the loaders' own check of reachability (rule 3.11)
    if problem is not None:
        _, path, message = problem
        raise _fail("loadable", f"{path}: {message}", "3.11")


def _fail(invariant: str, message: str, rule: str | None = None) -> InvariantError:
    return InvariantError(invariant, message, rule)


def _check_shape(s: State) -> None:
    v = s.variant
    if not isinstance(v, Variant):
        raise _fail("shape", f"variant is a {type(v).__name__}, not a Variant")
    if not isinstance(s.phase, Phase):
        raise _fail("shape", f"phase is {s.phase!r}, not a Phase")
    players = len(s.totals)
    if not v.min_players <= players <= v.max_players:
        raise _fail("shape", f"{players} totals: the variant takes {v.min_players} to "
                             f"{v.max_players} players", "1.3")
    if len(s.opening) != players:
        raise _fail("shape", f"{len(s.opening)} opening records for {players} players", "2.1")
    positions = players * v.cells
    if len(s.cards) != positions:
        raise _fail("shape", f"{len(s.cards)} grid cards for {players} grids of {v.cells} spaces", "1.2")
    if s.face_up >> positions or s.swallowed >> positions or s.face_up < 0 or s.swallowed < 0:
        raise _fail("shape", "face-up or swallowed bits outside the grids", "1.2")
    if s.round < 1 or s.seq < 0:
        raise _fail("shape", f"round {s.round}, seq {s.seq}: round starts at 1, seq at 0")


def _check_cards(s: State) -> None:
    v = s.variant
    g = v.geometry
    cells = g.cells
    gone = s.swallowed
    if s.face_up & gone:
        raise _fail("swallowed_spaces", "a swallowed space is face up", "4.1")
    for p in range(len(s.totals)):
        mine = gone >> (p * cells) & g.full_mask
        for col, mask in enumerate(g.column_masks):
            part = mine & mask
            if part and part != mask:
                raise _fail("swallowed_spaces", f"seat {p}: column {col} is only partly swallowed", "4.1")
    for i, card in enumerate(s.cards):
        if gone >> i & 1 and card != 0:
            raise _fail("swallowed_spaces", f"swallowed position {i} holds {card}, not 0", "4.1")
    if s.phase is not Phase.GAME_OVER or v.swallow_on_final_reveal:
        for p in range(len(s.totals)):
            for col in range(g.cols):
                value = complete_column(g, p, col, s.cards, s.face_up)
                if value is not None:
                    raise _fail("swallowed_spaces", f"seat {p}: column {col} is face up and all "
                                                    f"{value}, but not swallowed", "4.1")
    in_play: Counter[int] = Counter(card for i, card in enumerate(s.cards) if not gone >> i & 1)
    in_play.update(s.draw_pile)
    in_play.update(s.discard_pile)
    if s.drawn is not None:
        in_play[s.drawn] += 1
    deck = Counter(v.unshuffled_deck)
    if in_play != deck:
        missing = sorted((deck - in_play).elements())
        extra = sorted((in_play - deck).elements())
        raise _fail("card_conservation",
                    f"the cards in play are not the deck: missing {missing}, extra {extra}", "1.1")
    if not s.discard_pile:
        raise _fail("discard_pile", "the discard pile is empty", "1.4")


def _check_phase(s: State) -> None:
    v = s.variant
    phase = s.phase
    players = len(s.totals)
    playing = phase is Phase.TURN or phase is Phase.DRAWN
    if (s.drawn is not None) != (phase is Phase.DRAWN):
        raise _fail("drawn_card", f"phase {phase.value} with drawn card {s.drawn!r}", "3.4")
    if playing:
        if not 0 <= s.turn < players:
            raise _fail("turn", f"phase {phase.value} with turn {s.turn} in a {players}-player game", "3.1")
    elif s.turn != -1:
        raise _fail("turn", f"phase {phase.value} with turn {s.turn}, not -1", "3.1")
    cap = v.max_turns_per_round
    if phase is Phase.OPENING and s.turns != 0:
        raise _fail("turns", f"{s.turns} turns completed in the opening", "6.7")
    if playing and cap is not None and not 0 <= s.turns < cap:
        raise _fail("turns", f"{s.turns} turns completed in a round capped at {cap}", "6.7")
    need = v.initial_flips
    counts = [len(flips) for flips in s.opening]
    if any(n > need for n in counts):
        raise _fail("opening_flips", f"opening flips {counts}: more than {need}", "2.2")
    if phase is Phase.OPENING:
        if all(n == need for n in counts):
            raise _fail("opening_flips", f"phase opening but every flip is made ({counts})", "2.1")
        cells = v.cells
        for p, n in enumerate(counts):
            shown = ((s.face_up | s.swallowed) >> (p * cells) & v.geometry.full_mask).bit_count()
            if shown != n:
                raise _fail("opening_flips", f"seat {p} made {n} opening flips but shows {shown} spaces "
                                             "face up or swallowed", "2.1")
    elif any(n != need for n in counts):
        raise _fail("opening_flips", f"phase {phase.value} with opening flips owed ({counts})", "2.1")
    closer = s.closer
    if closer is not None and not 0 <= closer < players:
        raise _fail("closer", f"closer {closer} is not a seat", "6.1")
    if phase is Phase.OPENING and closer is not None:
        raise _fail("closer", f"closer {closer} during the opening", "6.1")
    if playing and closer is not None:
        if s.face_down_count(closer) != 0:
            raise _fail("closer", f"closer {closer} still has a face-down card", "6.1")
        if s.turn == closer:
            raise _fail("closer", f"closer {closer} is to play again", "6.2")
    if phase is not Phase.GAME_OVER and closer is None:
        for p in range(players):
            if s.face_down_count(p) == 0:
                raise _fail("closer", f"seat {p} has no face-down card but nobody closed the round", "6.1")


def _check_results(s: State) -> None:
    v = s.variant
    players = len(s.totals)
    over = s.phase is Phase.GAME_OVER
    history = s.history
    finished = s.round if over else s.round - 1
    if len(history) != finished:
        raise _fail("history", f"round {s.round} ({s.phase.value}) with {len(history)} round results", "6.6")
    running = (0,) * players
    for n, result in enumerate(history, start=1):
        if not isinstance(result, RoundResult) or result.round != n:
            raise _fail("history", f"round result {n} is {result!r}", "6.6")
        if len(result.scores) != players or len(result.raw_scores) != players or len(result.grids) != players:
            raise _fail("history", f"round {n} has results for the wrong number of players", "6.6")
        running = tuple(t + score for t, score in zip(running, result.scores, strict=True))
        if result.totals != running:
            raise _fail("history", f"round {n} totals {list(result.totals)} are not the sum of the round "
                                   f"scores {list(running)}", "7.1")
        if (n < len(history) or not over) and _game_ends(v, n, result.totals):
            raise _fail("history", f"the game went on after round {n} although it was over", "7.2")
    if s.totals != running:
        raise _fail("history", f"totals {list(s.totals)} are not the sum of the round scores "
                               f"{list(running)}", "7.1")
    if over:
        full = (1 << players * v.cells) - 1
        if (s.face_up | s.swallowed) != full:
            raise _fail("game_over", "a card is still face down after the game", "6.3")
        if not _game_ends(v, s.round, s.totals):
            raise _fail("game_over", f"the game is over after round {s.round} with totals {list(s.totals)}, "
                                     "but no end condition holds", "7.2")
        if s.closer != history[-1].closer:
            raise _fail("closer", f"closer {s.closer} is not the last round's ({history[-1].closer})", "6.6")
    legal = _legal_actions(s)
    if over and legal:
        raise _fail("legal_actions", f"{len(legal)} legal actions after the game is over", "7.5")
    if not over and not legal:
        raise _fail("legal_actions", f"no legal action in phase {s.phase.value}", "3.2")
    expected = tuple(p for p, t in enumerate(s.totals) if t == min(s.totals)) if over else ()
    if s.winners != expected:
        raise _fail("winners", f"winners {s.winners} with totals {list(s.totals)}, expected {expected}",
                    "7.4")


def _game_ends(v: Variant, round_number: int, totals: tuple[int, ...]) -> bool:
    """Rules 7.2 and 7.3, restated."""
    if v.max_rounds is not None and round_number >= v.max_rounds:
        return True
    return v.target_score is not None and max(totals) >= v.target_score


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------


def seeds() -> SearchStrategy[Seed]:
    """Game seeds: ints in `[0, 2**256)` and 32-byte strings (rule 9.1).

    Examples:
        >>> from hypothesis import find
        >>> find(seeds(), lambda seed: isinstance(seed, bytes)) == bytes(32)
        True
    """
    return st.one_of(st.integers(0, (1 << 256) - 1), st.binary(min_size=32, max_size=32))


def variants(
    *,
    presets: bool = True,
    generated: bool = True,
    max_players: int = 4,
    max_rows: int = 4,
    max_cols: int = 4,
) -> SearchStrategy[Variant]:
    """Valid variants: the three presets and generated ones (rules 10.1-10.3).

    A generated variant has a grid of 2 to `max_rows` rows and 1 to
    `max_cols` columns (at most 64 spaces, rule 10.4), 1 to `max_players` players, a deck of 1 to 6
    distinct values from -2 to 12, and any flags, opener, closer multiplier
    (1 to 3), target (1 to 300, or none), round limit (1 to 5, or none) and
    stalling cap (1 to 60, or none). Half of them are *tight*: every seat
    plays (`min_players = max_players`) and the deck is as small as
    validation allows, so the draw pile holds a single card after the deal
    and draws soon reshuffle (rules 5.1-5.4). Every value is a valid
    [`Variant`][abyss_rules.Variant]; shrinking goes towards small grids, few
    players and small decks.

    Args:
        presets: include the presets `standard`, `short` and `long`.
        generated: include generated variants.
        max_players: the largest `max_players` of a generated variant (1 to 16).
        max_rows: the most rows of a generated variant (2 to 16).
        max_cols: the most columns of a generated variant (1 to 16).

    Raises:
        ConfigError: code `invalid_variant`, for a bound out of range or
            when both kinds are turned off.

    Examples:
        >>> from hypothesis import given, settings
        >>> @settings(max_examples=20, deadline=None)
        ... @given(variants(presets=False, max_rows=3))
        ... def test_generated_variants_are_valid_and_in_bounds(v):
        ...     assert 2 <= v.rows <= 3 and 1 <= v.cols <= 4 and v.max_players <= 4
        ...     assert v.deck_size >= v.max_players * v.cells + 2      # rule 10.3
        >>> test_generated_variants_are_valid_and_in_bounds()
    """
    for name, value in (("max_players", max_players), ("max_rows", max_rows), ("max_cols", max_cols)):
        low = 2 if name == "max_rows" else 1
        if type(value) is not int or not low <= value <= 16:
            raise ConfigError(Code.INVALID_VARIANT, f"variants(): {name} must be an int from {low} to 16, "
                                                    f"got {value!r}")
    options: list[SearchStrategy[Variant]] = []
    if presets:
        options.append(st.sampled_from(_PRESETS))
    if generated:
        options.append(_generated_variants(max_players, max_rows, max_cols))
    if not options:
        raise ConfigError(Code.INVALID_VARIANT, "variants(): presets and generated cannot both be False")
    return st.one_of(options)


@st.composite
def _generated_variants(draw: st.DrawFn, max_players: int, max_rows: int, max_cols: int) -> Variant:
    rows = draw(st.integers(2, max_rows))
    cols = draw(st.integers(1, min(max_cols, MAX_CELLS // rows)))  # at most MAX_CELLS spaces (rule 10.4)
    cells = rows * cols
    most = draw(st.integers(1, max_players))
    # Half the time a "tight" variant: every seat plays and the deck is as small as validation allows,
    # so the draw pile holds one card after the deal and draws soon reshuffle (rules 5.1-5.4).
    tight = draw(st.booleans())
    fewest = most if tight else draw(st.integers(1, most))
    values = sorted(draw(st.lists(st.integers(-2, 12), min_size=1, max_size=6, unique=True)))
    counts = [1] * len(values) if tight else draw(st.lists(st.integers(1, 12), min_size=len(values),
                                                           max_size=len(values)))
    needed = most * cells + 2 + (0 if tight else draw(st.integers(0, 24)))
    i = 0
    while sum(counts) < needed:  # top up evenly so that no single value dominates
        counts[i % len(counts)] += 1
        i += 1
    if tight:
        while sum(counts) > needed and max(counts) > 1:  # more distinct values than cards needed
            counts[counts.index(max(counts))] -= 1
    target = draw(st.one_of(st.none(), st.integers(1, 300)))
    rounds = draw(st.one_of(st.none(), st.integers(1, 5)))
    if target is None and rounds is None:
        target = draw(st.integers(1, 300))
    return Variant(
        name="generated",
        deck=tuple(zip(values, counts, strict=True)),
        rows=rows,
        cols=cols,
        min_players=fewest,
        max_players=most,
        initial_flips=draw(st.integers(0, cells - 1)),
        opener=draw(st.sampled_from(Opener)),
        flip_turn=draw(st.booleans()),
        swallow_on_final_reveal=draw(st.booleans()),
        reshuffle_keeps_top=draw(st.booleans()),
        closer_multiplier=draw(st.integers(1, 3)),
        target_score=target,
        max_rounds=rounds,
        max_turns_per_round=draw(st.one_of(st.none(), st.integers(1, 60))),
    )


@attrs.frozen(slots=True)
class Game:
    """A game played from [`new_game`][abyss_rules.new_game]: its set-up, actions and every state.

    `states[0]` is the new game and `states[i + 1] == apply(states[i], actions[i])`;
    [`games`][abyss_rules.testing.games] draws them.

    Examples:
        >>> import abyss_rules as ar
        >>> start = ar.new_game(2, seed=1)
        >>> after = ar.apply(start, ar.Flip(0, 0, 0))
        >>> game = Game(start.variant, 2, 1, (ar.Flip(0, 0, 0),), (start, after))
        >>> len(game), game.final.seq, [type(a).__name__ for _, a, _ in game.steps()]
        (1, 1, ['Flip'])
    """

    variant: Variant
    players: int
    seed: Seed = attrs.field(repr=secret_repr)
    actions: tuple[Action, ...]
    states: tuple[State, ...]

    @property
    def initial(self) -> State:
        """The state before the first action."""
        return self.states[0]

    @property
    def final(self) -> State:
        """The state after the last action."""
        return self.states[-1]

    def steps(self) -> Iterator[tuple[State, Action, State]]:
        """Every `(before, action, after)` of the game, in order."""
        return zip(self.states, self.actions, self.states[1:], strict=False)

    def __len__(self) -> int:
        return len(self.actions)


def _reveals(state: State, action: Action) -> bool:
    """Whether `action` turns a face-down card over or leads to it (a draw): play that ends rounds."""
    kind = type(action)
    if kind is Draw or kind is Flip or kind is DiscardDrawn:
        return True
    cells = state.variant.cells
    i = action.player * cells + action.row * state.variant.cols + action.col  # type: ignore[union-attr]
    return not (state.face_up | state.swallowed) >> i & 1


def _as_strategy(value: Any, kind: type, what: str) -> SearchStrategy[Any]:
    if isinstance(value, SearchStrategy):
        return value
    if isinstance(value, kind) and not isinstance(value, bool):
        return st.just(value)
    raise ConfigError(Code.INVALID_VARIANT if kind is Variant else Code.INVALID_PLAYERS,
                      f"games(): {what} must be a {kind.__name__} or a strategy, got {value!r}")


def games(
    variant: Variant | SearchStrategy[Variant] | None = None,
    players: int | SearchStrategy[int] | None = None,
    *,
    max_actions: int = 100,
    finish_rounds: bool = False,
    play_out: bool = False,
    seed: Seed | SearchStrategy[Seed] | None = None,
) -> SearchStrategy[Game]:
    """Games played legally from [`new_game`][abyss_rules.new_game] with a drawn seed and drawn legal actions.

    Each action is drawn from [`legal_actions`][abyss_rules.legal_actions] of
    the state reached. The game stops when it is over, or after a drawn number
    of actions from 0 to `max_actions`. Shrinking goes towards shorter games
    and actions earlier in the canonical order.

    Args:
        variant: a [`Variant`][abyss_rules.Variant], a strategy of them, or
            `None` for [`variants()`][abyss_rules.testing.variants].
        players: an int, a strategy of ints, or `None` for any number the
            variant allows.
        max_actions: the most actions to play, 0 to 3000.
        finish_rounds: most choices go to actions that turn a face-down card
            over (or draw), so rounds close, end and score far more often than
            under uniform choices.
        play_out: play until the game is over or `max_actions` is reached,
            instead of stopping after a drawn number of actions.
        seed: a seed, a strategy of seeds, or `None` for
            [`seeds()`][abyss_rules.testing.seeds].

    Raises:
        ConfigError: for an argument that is neither a value of the right
            type nor a strategy, or `max_actions` out of range.

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import given, settings
        >>> capped = ar.Variant.short().replace(max_turns_per_round=50)   # at most 50 turns
        >>> @settings(max_examples=5, deadline=None)
        ... @given(games(capped, players=2, finish_rounds=True, play_out=True, max_actions=200))
        ... def test_a_short_game_ends_after_its_round(game):
        ...     assert game.final.is_over and game.final.round == 1 and len(game) <= 2 * 2 + 2 * 50
        ...     assert game.states[1] == ar.apply(game.initial, game.actions[0])
        >>> test_a_short_game_ends_after_its_round()
    """
    if type(max_actions) is not int or not 0 <= max_actions <= MAX_GAME_ACTIONS:
        raise ConfigError(Code.INVALID_VARIANT,
                          f"games(): max_actions must be an int from 0 to {MAX_GAME_ACTIONS}, "
                          f"got {max_actions!r}")
    variant_s = variants() if variant is None else _as_strategy(variant, Variant, "variant")
    players_s: Callable[[Variant], SearchStrategy[int]]
    if players is None:
        def players_s(v: Variant) -> SearchStrategy[int]:
            return st.integers(v.min_players, v.max_players)
    else:
        fixed = _as_strategy(players, int, "players")

        def players_s(v: Variant) -> SearchStrategy[int]:
            return fixed
    seed_s = seeds() if seed is None else (seed if isinstance(seed, SearchStrategy) else st.just(seed))
    return _games(variant_s, players_s, seed_s, max_actions, bool(finish_rounds), bool(play_out))


@st.composite
def _games(
    draw: st.DrawFn,
    variant_s: SearchStrategy[Variant],
    players_s: Callable[[Variant], SearchStrategy[int]],
    seed_s: SearchStrategy[Seed],
    max_actions: int,
    finish_rounds: bool,
    play_out: bool,
) -> Game:
    v = draw(variant_s)
    players = draw(players_s(v))
    seed = draw(seed_s)
    state = new_game(players, v, seed)
    length = max_actions if play_out else draw(st.integers(0, max_actions))
    chosen: list[Action] = []
    seen = [state]
    for _ in range(length):
        legal = _legal_actions(state)
        if not legal:
            break
        if finish_rounds and draw(st.integers(0, 7)):
            legal = tuple(a for a in legal if _reveals(state, a)) or legal
        action = legal[draw(st.integers(0, len(legal) - 1))]
        state = apply(state, action)
        chosen.append(action)
        seen.append(state)
    return Game(v, players, seed, tuple(chosen), tuple(seen))


def states(
    variant: Variant | SearchStrategy[Variant] | None = None,
    players: int | SearchStrategy[int] | None = None,
    *,
    max_actions: int = 100,
    finish_rounds: bool = False,
    play_out: bool = False,
    seed: Seed | SearchStrategy[Seed] | None = None,
) -> SearchStrategy[State]:
    """States reached by legal play: the last state of [`games`][abyss_rules.testing.games] (same arguments).

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import given, settings
        >>> @settings(max_examples=10, deadline=None)
        ... @given(states(ar.Variant.standard(), players=3))
        ... def test_a_drawn_card_is_held_only_in_the_drawn_phase(state):
        ...     assert (state.drawn is not None) == (state.phase is ar.Phase.DRAWN)
        >>> test_a_drawn_card_is_held_only_in_the_drawn_phase()
    """
    return games(
        variant, players, max_actions=max_actions, finish_rounds=finish_rounds, play_out=play_out, seed=seed
    ).map(lambda game: game.final)


def legal_actions(state: State) -> SearchStrategy[Action]:
    """One of the legal actions of `state` (rules 2.2, 3.2-3.10, 5.4).

    Raises:
        IllegalActionError: code `game_over`, for a finished game, which has
            no legal action (rule 7.5).
        MalformedActionError: code `invalid_state`, if `state` is not a
            [`State`][abyss_rules.State].

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import find
        >>> find(legal_actions(ar.new_game(2, seed=1)), lambda a: a.player == 1)
        Flip(player=1, row=0, col=0)
    """
    s = _need_state(state, "legal_actions()")
    found = _legal_actions(s)
    if not found:
        raise IllegalActionError(Code.GAME_OVER, "the game is over: it has no legal action to draw from")
    return st.sampled_from(found)


def _check_setup(variant: object, players: object, who: str) -> tuple[Variant, int]:
    if not isinstance(variant, Variant):
        raise ConfigError(Code.INVALID_VARIANT,
                          f"{who}: variant must be a Variant, got {type(variant).__name__}")
    if type(players) is not int or not 1 <= players <= variant.max_players:
        raise ConfigError(Code.INVALID_PLAYERS,
                          f"{who}: players must be an int from 1 to {variant.max_players}, got {players!r}")
    return variant, players


@st.composite
def _actions(draw: st.DrawFn, players: int, rows: int, cols: int) -> Action:
    kind = draw(st.sampled_from(ACTION_TYPES))
    player = _near(draw, -1, players)
    if kind is Draw:
        return Draw(player)
    return kind(player, _near(draw, -1, rows), _near(draw, -1, cols))  # type: ignore[call-arg]


def _near(draw: st.DrawFn, low: int, high: int) -> int:
    """An int in `[low, high]`, or now and then (one time in `high - low + 2`) any int at all."""
    value = draw(st.integers(low, high + 1))
    if value == high + 1:
        value = draw(st.integers(-(1 << 70), 1 << 70))
    return value


def actions(variant: Variant, players: int) -> SearchStrategy[Action]:
    """Any well-formed action around a `players`-player game of `variant`, legal or not.

    Every kind of action; seats from -1 to `players` (one out of range at
    each end); rows from -1 to `rows` and columns from -1 to `cols`; now and
    then a huge or negative int in any field. Use it to check that a program
    rejects what it must.

    Raises:
        ConfigError: code `invalid_variant` or `invalid_players` for a bad
            argument.

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import find
        >>> find(actions(ar.Variant.standard(), 2), lambda a: isinstance(a, ar.Draw) and a.player >= 2)
        Draw(player=2)
    """
    v, p = _check_setup(variant, players, "actions()")
    return _actions(p, v.rows, v.cols)


def action_space(variant: Variant, players: int) -> tuple[Action, ...]:
    """Every well-formed action with a seat in `[-1, players]`, a row in `[-1, rows]` and a column
    in `[-1, cols]`: every legal action of any state of such a game, and a margin of illegal ones.

    Listed by kind (in [`ACTION_TYPES`][abyss_rules.ACTION_TYPES] order), then seat, row and column.

    Raises:
        ConfigError: code `invalid_variant` or `invalid_players` for a bad
            argument.

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.Variant.standard().replace(rows=2, cols=1, min_players=1, max_players=2, initial_flips=1)
        >>> space = action_space(v, 2)
        >>> len(space)            # 4 kinds x 4 seats x 4 rows x 3 columns, plus 4 draws
        196
        >>> state = ar.new_game(2, v, seed=0)
        >>> set(ar.legal_actions(state)) <= set(space)
        True
    """
    v, p = _check_setup(variant, players, "action_space()")
    seats = range(-1, p + 1)
    spaces = [(r, c) for r in range(-1, v.rows + 1) for c in range(-1, v.cols + 1)]
    out: list[Action] = []
    for kind in ACTION_TYPES:
        if kind is Draw:
            out.extend(Draw(seat) for seat in seats)
        else:
            out.extend(kind(seat, r, c) for seat in seats for r, c in spaces)  # type: ignore[call-arg]
    return tuple(out)


def deck_orders(variant: Variant) -> Iterator[tuple[int, ...]]:
    """Every distinct order of `variant`'s deck (top first), for exhaustive checks with
    `new_game(..., decks=[order])` (rule 9.6). Only sensible for tiny decks: a deck with
    counts `c1, c2, ...` has `(c1 + c2 + ...)! / (c1! c2! ...)` orders.

    Raises:
        ConfigError: code `invalid_variant` if `variant` is not a Variant.

    Examples:
        >>> v = Variant(rows=2, cols=1, min_players=1, max_players=1, initial_flips=1, deck=[(0, 2), (1, 2)])
        >>> list(deck_orders(v))
        [(0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0), (1, 1, 0, 0)]
    """
    if not isinstance(variant, Variant):
        raise ConfigError(Code.INVALID_VARIANT, f"deck_orders(): variant must be a Variant, "
                                                f"got {type(variant).__name__}")
    counts = dict(variant.deck)
    size = variant.deck_size

    def extend(prefix: list[int]) -> Iterator[tuple[int, ...]]:
        if len(prefix) == size:
            yield tuple(prefix)
            return
        for value in counts:
            if counts[value]:
                counts[value] -= 1
                prefix.append(value)
                yield from extend(prefix)
                prefix.pop()
                counts[value] += 1

    return extend([])

