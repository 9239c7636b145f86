"""The Hypothesis strategies: seeds, variants, games played legally, their states, actions.

`games` draws a `Game`; the other strategies are listed in
`abyss_rules.testing`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final, TypedDict, Unpack

import attrs
from hypothesis import strategies as st

from ..actions import ACTION_TYPES, Action, DiscardDrawn, Draw, Flip
from ..config import MAX_CELLS, Opener, Variant
from ..errors import Code, ConfigError, IllegalActionError
from ..randomness import Seed, secret_repr
from ..records import Record
from ..rules._dealing import new_game
from ..rules._engine import apply
from ..rules._legal import legal_actions as _legal_actions
from ..state import State
from ._exhaustive import check_setup
from ._invariants import need_state

__all__ = ["MAX_GAME_ACTIONS", "Game", "actions", "games", "legal_actions", "seeds", "states", "variants"]

SearchStrategy = st.SearchStrategy

MAX_GAME_ACTIONS: Final = 3000
"""The most actions `games` plays (Hypothesis caps an example's choices)."""

_PRESETS: Final[tuple[Variant, ...]] = (Variant.standard(), Variant.short(), Variant.long())


@attrs.frozen(slots=True)
class Game:
    """A game played from `new_game`: its set-up, actions and every state.

    `states[0]` is the new game and `states[i + 1] == apply(states[i], actions[i])`;
    `games` draws them.

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

    def to_record(self) -> Record:
        """The game as a `Record`: its set-up and actions, the document of a played game
        (`to_json()` writes it; `states()` replays it, rule 9.5).

        Examples:
            >>> import abyss_rules as ar
            >>> game = Game(ar.Variant.short(), 2, 1, (ar.Flip(0, 0, 0),), ())
            >>> game.to_record().notation()
            ('0f00',)
        """
        return Record.start(self.players, self.variant, self.seed).with_actions(*self.actions)


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

    A generated variant has a grid of 2 to `max_rows` rows and 1 to `max_cols` columns (at most 64
    spaces, rule 10.4), 1 to `max_players` players, a deck of 1 to 6 distinct values from -2 to 12,
    and any flags, opener, closer multiplier (1 to 3), target (1 to 300, or none), round limit (1
    to 5, or none) and stalling cap (1 to 60, or none). Half of them are *tight*: every seat plays
    (`min_players = max_players`) and the deck is as small as validation allows, so the draw pile
    holds a single card after the deal and draws soon reshuffle (rules 5.1-5.4). Every value is a
    valid `Variant`; shrinking goes towards small grids, few players and small decks.

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


def _reveals(state: State, action: Action) -> bool:
    """Whether `action` turns a face-down card over or leads to it (a draw): play that ends rounds."""
    kind = type(action)
    if kind is Draw or kind is Flip or kind is DiscardDrawn:
        return True
    cells = state.variant.cells
    i = action.player * cells + action.row * state.variant.cols + action.col  # type: ignore[union-attr]
    return not (state.face_up_mask | state.swallowed_mask) >> i & 1


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
    """Games played legally from `new_game` with a drawn seed and drawn legal actions.

    Each action is drawn from `abyss_rules.legal_actions` of the state
    reached. The game stops when it is over, or after a drawn number of
    actions from 0 to `max_actions`. Shrinking goes towards shorter games and
    actions earlier in the canonical order.

    Args:
        variant: a `Variant`, a strategy of them, or `None` for
            `variants()`.
        players: an int, a strategy of ints, or `None` for any number the
            variant allows.
        max_actions: the most actions to play, 0 to 3000.
        finish_rounds: most choices go to actions that turn a face-down card
            over (or draw), so rounds close, end and score far more often than
            under uniform choices.
        play_out: play until the game is over or `max_actions` is reached,
            instead of stopping after a drawn number of actions.
        seed: a seed, a strategy of seeds, or `None` for
            `seeds()`.

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


class _GameOptions(TypedDict, total=False):
    """The keyword arguments of `games`, which `states` passes on."""

    max_actions: int
    finish_rounds: bool
    play_out: bool
    seed: Seed | SearchStrategy[Seed] | None


def states(
    variant: Variant | SearchStrategy[Variant] | None = None,
    players: int | SearchStrategy[int] | None = None,
    **options: Unpack[_GameOptions],
) -> SearchStrategy[State]:
    """States reached by legal play: the last state of `games`.

    It takes the same arguments: `max_actions`, `finish_rounds`, `play_out` and `seed` are
    passed on to `games`.

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import given, settings
        >>> @settings(max_examples=10, deadline=None)
        ... @given(states(ar.Variant.standard(), players=3))
        ... def test_a_drawn_card_is_held_only_in_the_drawn_phase(state):
        ...     assert (state.drawn is not None) == (state.phase is ar.Phase.DRAWN)
        >>> test_a_drawn_card_is_held_only_in_the_drawn_phase()
    """
    return games(variant, players, **options).map(lambda game: game.final)


def legal_actions(state: State) -> SearchStrategy[Action]:
    """One of the legal actions of `state` (rules 2.2, 3.2-3.10, 5.4).

    Raises:
        IllegalActionError: code `game_over`, for a finished game, which has
            no legal action (rule 7.5).
        InvalidStateError: code `invalid_state`, if `state` is not a
            `State`.

    Examples:
        >>> import abyss_rules as ar
        >>> from hypothesis import find
        >>> find(legal_actions(ar.new_game(2, seed=1)), lambda a: a.player == 1)
        Flip(player=1, row=0, col=0)
    """
    s = need_state(state, "legal_actions()")
    found = _legal_actions(s)
    if not found:
        raise IllegalActionError(Code.GAME_OVER, "the game is over: it has no legal action to draw from")
    return st.sampled_from(found)


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
    v, p = check_setup(variant, players, "actions()")
    return _actions(p, v.rows, v.cols)
