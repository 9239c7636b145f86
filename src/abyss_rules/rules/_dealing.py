"""Starting a game and dealing a round (spec rules 1.3, 1.4, 9.5, 9.6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..cards import deck_difference
from ..config import Variant
from ..errors import Code, ConfigError
from ..randomness import Seed, normalize_seed, shuffled
from ..state import Dealer, Phase, RoundResult, State
from ._opening import choose_opener
from ._positional import new_state

__all__ = ["deal_round", "deck_order_problem", "new_game", "player_count_problem"]


def new_game(
    players: int = 2,
    variant: Variant | str | None = None,
    seed: Seed | None = None,
    *,
    decks: Sequence[Sequence[int]] | None = None,
) -> State:
    """Start a game: the state at the opening of round 1.

    Round 1 is dealt at once (rule 1.4): every grid face down, one card opening the
    discard pile, the rest the draw pile.

    Args:
        players: The number of players, in the variant's range (rule 1.3).
        variant: The rules in play, or a preset's name (`"standard"`, `"short"`, `"long"`, rule 10.2);
            `None` means `Variant.standard`.
        seed: An int in `[0, 2**256)` or 32 bytes (rule 9.1); `None` draws a fresh secret
            seed from the operating system.
        decks: Optional explicit deck orders (top first) for the first rounds, each a
            permutation of the variant's deck (rule 9.6); later rounds are shuffled
            from the seed.

    Returns:
        The state in the opening of round 1 (or in the opener's turn when
        `initial_flips` is 0).

    Raises:
        ConfigError: `invalid_players` for a player count out of range,
            `invalid_variant` when `variant` is neither a `Variant` nor
            a preset's name, `invalid_deck_order` for a deck order that
            is not a permutation of the deck.
        SeedError: `invalid_seed` for a seed that is not 32 bytes or an int in range.

    Examples:
        >>> state = new_game(players=3, seed=7)
        >>> state.phase, state.round, len(state.draw_pile), state.top_discard is not None
        (<Phase.OPENING: 'opening'>, 1, 113, True)
        >>> new_game(players=2, variant="short", seed=7).variant is Variant.short()
        True
        >>> tiny = Variant(deck=((0, 4), (1, 4)), rows=2, cols=1, max_players=2, initial_flips=0)
        >>> state = new_game(players=2, variant=tiny, decks=[[1, 0, 0, 1, 0, 1, 0, 1]])
        >>> state.cards, state.discard_pile, state.draw_pile, state.phase
        ((1, 0, 0, 1), (0,), (1, 0, 1), <Phase.TURN: 'turn'>)
    """
    variant = Variant.resolve(variant)
    problem = player_count_problem(variant, players)
    if problem is not None:
        raise ConfigError(Code.INVALID_PLAYERS, problem)
    orders: tuple[tuple[int, ...], ...] = ()
    if decks is not None:
        if isinstance(decks, (str, bytes)) or not isinstance(decks, Iterable):
            raise ConfigError(Code.INVALID_DECK_ORDER, f"decks must be a sequence of deck orders, got "
                                                       f"{type(decks).__name__}")
        orders = tuple(_checked_deck_order(variant, order, n) for n, order in enumerate(decks))
    dealer = Dealer(normalize_seed(seed), 0, orders)
    return deal_round(variant, 1, (0,) * players, (), dealer, seq=0)


def player_count_problem(variant: Variant, players: object) -> str | None:
    """`None` if `players` (an int) is a number of players `variant` takes (rule 1.3), else why not.

    The one check of the player count: every part of the library that is given one (new
    games, documents, records, simulations, environments, the command line) asks it and
    reports its message in its own kind of error.

    Examples:
        >>> player_count_problem(Variant.standard(), 9)
        'this variant takes 2 to 8 players, got 9'
        >>> player_count_problem(Variant.standard(), 2) is None
        True
    """
    if type(players) is not int or not variant.min_players <= players <= variant.max_players:
        return f"this variant takes {variant.min_players} to {variant.max_players} players, got {players!r}"
    return None


def deck_order_problem(variant: Variant, cards: Sequence[int]) -> str | None:
    """`None` if `cards` (ints) are an order of exactly `variant`'s deck (rule 9.6), else why not.

    The one check of an explicit deck order: `new_game`, the state documents' dealer and
    records ask it.

    Examples:
        >>> tiny = Variant(deck=((0, 2), (1, 2)), rows=2, cols=1, min_players=1, max_players=1,
        ...                initial_flips=0)
        >>> deck_order_problem(tiny, [1, 0, 0, 1]) is None
        True
        >>> deck_order_problem(tiny, [1, 1, 1, 0])
        "is not a permutation of the variant's deck (4 cards): too many 1 (x1); missing 0 (x1)"
    """
    differ = deck_difference(sorted(cards), variant.unshuffled_deck)
    if differ is None:
        return None
    return f"is not a permutation of the variant's deck ({variant.deck_size} cards): {differ}"


def _checked_deck_order(variant: Variant, order: Sequence[int], n: int) -> tuple[int, ...]:
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise ConfigError(Code.INVALID_DECK_ORDER, f"deck order {n} must be a sequence of ints")
    cards = tuple(order)
    if not all(type(card) is int for card in cards):
        raise ConfigError(Code.INVALID_DECK_ORDER, f"deck order {n} must hold only ints")
    problem = deck_order_problem(variant, cards)
    if problem is not None:
        raise ConfigError(Code.INVALID_DECK_ORDER, f"deck order {n} {problem}")
    return cards


def deal_round(
    variant: Variant,
    round_number: int,
    totals: tuple[int, ...],
    history: tuple[RoundResult, ...],
    dealer: Dealer,
    seq: int,
) -> State:
    """Deal round `round_number` from the full deck, freshly shuffled (rule 1.4).

    The next explicit deck order is used if one is left (rule 9.6), else the
    unshuffled deck is shuffled from the dealer's stream (rules 9.4, 9.5).
    Seat `p` gets the cards at `p * cells` to `p * cells + cells - 1` of
    the order, on spaces 0 to `cells - 1`, face down; the next card opens
    the discard pile; the rest, in order, is the draw pile. The round starts in
    the opening (rule 2.1); with `initial_flips = 0` it starts at once with
    the opener's turn (rules 2.3, 2.4).

    Examples:
        >>> from abyss_rules.randomness import normalize_seed
        >>> from abyss_rules.state import Dealer
        >>> state = deal_round(Variant.standard(), 1, (0, 0), (), Dealer(normalize_seed(42)), seq=0)
        >>> state == new_game(players=2, seed=42)
        True
    """
    if dealer.decks:
        order = dealer.decks[0]
        dealer = Dealer(dealer.seed, dealer.position, dealer.decks[1:])
    else:
        order, position = shuffled(dealer.seed, dealer.position, variant.unshuffled_deck)
        dealer = Dealer(dealer.seed, position, dealer.decks)
    players = len(totals)
    dealt = players * variant.cells
    opening: tuple[tuple[int, ...], ...] = ((),) * players
    phase, turn = Phase.OPENING, None
    if variant.initial_flips == 0:
        phase, turn = Phase.TURN, choose_opener(variant, opening, history)
    return new_state((
        variant, phase, round_number, turn,
        order[:dealt], 0, 0, order[dealt + 1:], order[dealt:dealt + 1],
        None, None, opening, 0, totals, history, dealer, seq,
    ))
