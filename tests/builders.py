"""Helpers for exact rule tests: stacked decks, hand-built states, playing action lists.

A *stacked* game is dealt from an explicit deck order (spec rule 9.6) built so that
every grid, the opening discard and the top of the draw pile hold chosen cards
(the deal order is rule 1.4)::

    >>> v = tiny()
    >>> order = deck_order(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0, -1])
    >>> order[:11]
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, -1]
    >>> state = stacked(v, 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9, draw=[0, -1])
    >>> state.grid(1).cards, state.discard_pile, state.draw_pile[:2]
    ((5, 6, 7, 8), (9,), (0, -1))
"""

from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

import abyss_rules as ar
from abyss_rules.state import Dealer

__all__ = [
    "TINY_DECK",
    "ZERO_SEED",
    "cards_in_play",
    "deck_order",
    "every_document",
    "finish_round",
    "flat",
    "hand_built",
    "long_record",
    "mixed_games",
    "open_round",
    "play",
    "rule_error",
    "stacked",
    "tiny",
    "trace",
    "with_other_secrets",
]

TINY_DECK: tuple[tuple[int, int], ...] = ((-2, 2), (-1, 2)) + tuple((v, 4) for v in range(10))
"""44 cards: two -2s, two -1s, four each of 0 to 9."""

ZERO_SEED = bytes(32)
"""The all-zero seed of the spec's test vectors (rule 9.7)."""


def tiny(**changes: Any) -> ar.Variant:
    """A 2 x 2 variant with a 44-card deck for 1 to 4 players (any field can be changed).

    >>> tiny().cells, tiny().deck_size, tiny(initial_flips=1).initial_flips
    (4, 44, 1)
    """
    base = ar.Variant(name="tiny", deck=TINY_DECK, rows=2, cols=2, min_players=1, max_players=4)
    return base.replace(**changes) if changes else base


def flat(grid: Sequence[Any]) -> list[int]:
    """A grid given as rows (``[[1, 2], [3, 4]]``) or flat (``[1, 2, 3, 4]``) as a flat list."""
    if grid and isinstance(grid[0], (list, tuple)):
        return [card for row in grid for card in row]
    return list(grid)


def _spread(cards: Counter[int]) -> list[int]:
    """The cards of a multiset in an order where neighbours differ as much as possible:
    one of each value (ascending), then the second copies, and so on."""
    left = Counter(cards)
    out: list[int] = []
    while left:
        for value in sorted(left):
            out.append(value)
            left[value] -= 1
            if not left[value]:
                del left[value]
    return out


def deck_order(
    variant: ar.Variant,
    players: int,
    grids: Sequence[Sequence[Any] | None] | None = None,
    discard: int | None = None,
    draw: Sequence[int] = (),
) -> list[int]:
    """An explicit deck order (top first) that deals exactly these cards (rule 1.4).

    ``grids[p]`` is seat ``p``'s cards in space order (flat or as rows); a grid left
    ``None`` (or not given) is filled from the cards left over, as is the discard.
    ``draw`` is the top of the draw pile; the rest of the deck follows it. Raises
    ``ValueError`` when the deck does not hold the cards asked for.
    """
    cells = variant.cells
    left = Counter(variant.unshuffled_deck)

    def take(cards: Iterable[int], what: str) -> list[int]:
        taken = list(cards)
        for card in taken:
            if left[card] <= 0:
                raise ValueError(f"the deck has no more {card}s for {what}")
            left[card] -= 1
        return taken

    given = list(grids or [])
    given += [None] * (players - len(given))
    if len(given) != players:
        raise ValueError(f"{len(given)} grids for {players} players")
    chosen: list[list[int] | None] = []
    for p, grid in enumerate(given):
        if grid is None:
            chosen.append(None)
            continue
        cards = flat(grid)
        if len(cards) != cells:
            raise ValueError(f"grid {p} has {len(cards)} cards, not {cells}")
        chosen.append(take(cards, f"grid {p}"))
    top = take([discard], "the discard") if discard is not None else None
    head = take(draw, "the draw pile")
    filler = _spread(+left)
    order: list[int] = []
    for cards in chosen:
        if cards is None:
            cards, filler = filler[:cells], filler[cells:]
        order += cards
    if top is None:
        top, filler = filler[:1], filler[1:]
    order += top + head + filler
    assert Counter(order) == Counter(variant.unshuffled_deck)
    return order


def stacked(
    variant: ar.Variant,
    players: int,
    grids: Sequence[Sequence[Any] | None] | None = None,
    discard: int | None = None,
    draw: Sequence[int] = (),
    *,
    later: Sequence[Sequence[int]] = (),
    seed: int | bytes = 0,
) -> ar.State:
    """A new game whose round 1 is dealt from :func:`deck_order` (rule 9.6); ``later``
    gives explicit orders for rounds 2, 3, ...; the seed serves later shuffles."""
    order = deck_order(variant, players, grids, discard, draw)
    return ar.new_game(players, variant, seed, decks=[order, *later])


def open_round(state: ar.State, flips: Mapping[int, Sequence[tuple[int, int]]] | Sequence[Any]) -> ar.State:
    """Make the opening flips: ``flips[p]`` lists seat ``p``'s spaces; seats in order."""
    items = flips.items() if isinstance(flips, Mapping) else enumerate(flips)
    for seat, spaces in items:
        for row, col in spaces:
            state = ar.apply(state, ar.Flip(seat, row, col))
    return state


def play(state: ar.State, actions: Iterable[ar.Action]) -> ar.State:
    """Apply the actions in order; return the last state."""
    for action in actions:
        state = ar.apply(state, action)
    return state


def mixed_games(variant: ar.Variant, games: int, seed: int) -> Iterator[tuple[ar.State, ar.View]]:
    """Every position of some 2-player games between a random and a greedy player (a seeded
    random move 30% of the time, else `GreedyBot`'s): the state and the mover's view."""
    from abyss_rules.bots import GreedyBot

    rng = random.Random(seed)
    for g in range(games):
        state = ar.new_game(2, variant, seed * 100 + g)
        greedy = GreedyBot()
        while not state.is_over:
            v = ar.view(state, state.to_act[0])
            yield state, v
            action = rng.choice(v.legal_actions) if rng.random() < 0.3 else greedy.choose(v)
            state = ar.apply(state, action)


def finish_round(state: ar.State) -> ar.State:
    """Play the last legal action (a flip, or a draw then discard-and-flip) until the round
    changes or the game ends; return the first state of the next round (or the final state).
    Such a policy never reshuffles while face-down cards last."""
    start = state.round
    while state.round == start and not state.is_over:
        state = ar.apply(state, ar.legal_actions(state)[-1])
    return state


def trace(state: ar.State, actions: Iterable[ar.Action]) -> list[ar.State]:
    """Apply the actions in order; return every state, the first included."""
    states = [state]
    for action in actions:
        states.append(ar.apply(states[-1], action))
    return states


def hand_built(state: ar.State, *, seed: bytes | None = None, position: int = 0, **fields: Any) -> ar.State:
    """``state`` with some fields replaced (a hand-built state), still a :class:`State`.

    ``seed`` (with ``position``) replaces the dealer, e.g. to use the spec's all-zero seed.
    """
    if seed is not None:
        fields["dealer"] = Dealer(seed, position, ())
    new = state._replace(**fields)
    assert type(new) is ar.State
    return new


def cards_in_play(state: ar.State) -> Counter[int]:
    """Every card of the game as a multiset: remaining grid spaces, both piles, the drawn card."""
    cells = state.variant.cells
    out: Counter[int] = Counter()
    for i, card in enumerate(state.cards):
        if not state.swallowed_mask >> i & 1:
            out[card] += 1
        assert i < cells * state.players
    out.update(state.draw_pile)
    out.update(state.discard_pile)
    if state.drawn is not None:
        out[state.drawn] += 1
    return out


def rule_error(state: ar.State, action: object) -> ar.AbyssError:
    """The error ``apply`` raises for ``action`` (fails the test if it raises none), after
    checking that ``check`` reports the very same error and that ``state`` is unchanged."""
    before = hash(state)
    try:
        ar.apply(state, action)
    except ar.AbyssError as error:
        raised = error
    else:
        raise AssertionError(f"{action!r} was accepted")
    assert hash(state) == before
    reported = ar.check(state, action)
    assert reported is not None
    assert (type(reported), reported.code, reported.rule, reported.message) == (
        type(raised), raised.code, raised.rule, raised.message
    )
    return raised


def with_other_secrets(state: ar.State, rng: random.Random) -> ar.State:
    """``state`` with other secrets only (rule 8.2): the face-down cards and the draw pile dealt again
    from the same cards, and another dealer (seed and position)."""
    hidden = [i for i in range(state.players * state.variant.cells)
              if not (state.face_up_mask | state.swallowed_mask) >> i & 1]
    pool = [state.cards[i] for i in hidden] + list(state.draw_pile)
    rng.shuffle(pool)
    cards = list(state.cards)
    for i in hidden:
        cards[i] = pool.pop()
    seed = bytes(rng.randrange(256) for _ in range(32))
    return hand_built(state, seed=seed, position=rng.randrange(10_000), cards=tuple(cards),
                      draw_pile=tuple(pool))


DOCUMENT_VARIANTS: Final = (
    ar.Variant.short(),
    ar.Variant(name="two rounds", max_rounds=2),
    ar.Variant(name="small", rows=2, cols=3, initial_flips=1, max_rounds=3, closer_multiplier=3,
               opener=ar.Opener.PREVIOUS_CLOSER, flip_turn=False, swallow_on_final_reveal=False,
               reshuffle_keeps_top=False, target_score=None, max_turns_per_round=40),
    ar.Variant(name="tiny deck", rows=2, cols=2, deck=((0, 4), (1, 4), (2, 4)), max_players=2, max_rounds=2),
)
"""Four variants whose whole games give every kind of document (`document_games`)."""


def document_games() -> list[tuple[list[ar.State], list[ar.Action], list[tuple[Any, ...]], ar.Record]]:
    """One random game of each of `DOCUMENT_VARIANTS` (draws favoured: they empty the pile):
    its states, actions, events as `(events, action, seq)` and its sealed record."""
    games = []
    for n, variant in enumerate(DOCUMENT_VARIANTS):
        players = min(2 + n, variant.max_players)
        rng = random.Random(n)
        state = ar.new_game(players=players, variant=variant, seed=n + 1)
        states, actions, events = [state], [], []
        while state.phase is not ar.Phase.GAME_OVER:
            legal = ar.legal_actions(state)
            draws = [action for action in legal if type(action) is ar.Draw]  # drawing often empties the pile
            action = draws[0] if draws and rng.random() < 0.6 else rng.choice(legal)
            state, caused = ar.apply_with_events(state, action)
            states.append(state)
            actions.append(action)
            events.append((caused, action, state.seq))
        record = ar.Record.start(players=players, variant=variant, seed=n + 1).with_actions(*actions).sealed()
        games.append((states, actions, events, record))
    return games


@functools.cache
def _every_document_text() -> dict[str, tuple[str, ...]]:
    from abyss_rules.protocol import validate

    found: dict[str, list[str]] = {name: [] for name in
                                   ("state", "view", "action", "variant", "events", "record", "verdict")}
    for states, actions, events, record in document_games():
        state = states[0]
        players = state.players
        found["variant"].append(ar.dumps_variant(state.variant))
        for state, action, (caused, _, seq) in zip(states, actions, events, strict=False):
            found["state"].append(ar.dumps_state(state))
            found["view"].extend(ar.dumps_view(ar.view(state, seat)) for seat in (*range(players), None))
            found["action"].extend((ar.dumps_action(action), ar.dumps_action(action, seq=state.seq)))
            found["verdict"].append(json.dumps(validate(state, action).to_dict()))
            found["events"].append(ar.dumps_events(caused, action=action, seq=seq))
        state = states[-1]
        found["state"].append(ar.dumps_state(state))
        found["view"].append(ar.dumps_view(ar.view(state)))
        found["verdict"].append(json.dumps(validate(state, actions[-1]).to_dict()))
        found["record"].extend(json.dumps(r.to_dict()) for r in (record, record.redact()))
    return {name: tuple(texts) for name, texts in found.items()}


def every_document() -> dict[str, list[Any]]:
    """Every kind of document, from the whole games of `document_games`, as parsed JSON (a new
    copy each call): its `format` -> the documents, as a client or server would parse them."""
    return {name: [json.loads(text) for text in texts] for name, texts in _every_document_text().items()}


LARGEST: Final = ar.Variant.standard().replace(
    name="largest", deck=tuple((value, 13 * count) for value, count in ar.Variant.standard().deck),
    max_players=16, target_score=None, max_rounds=1000)
"""16 seats and the largest deck a variant holds (1,950 cards, rule 10.4): the heaviest states."""


def long_record(actions: int, game: str = "swaps") -> ar.Record:
    """A record of up to `actions` legal actions that never end a round once opened.

    `swaps`: 2 seats of the standard variant; after the opening, every turn takes the discard
    onto a face-up space. `largest`: 16 seats of `LARGEST`; every turn draws and places the card
    on a face-up space, so the draw pile runs out and is reshuffled again and again, and every
    state holds piles of about a thousand cards.
    """
    record = ar.Record.start(seed=5) if game == "swaps" else ar.Record.start(16, LARGEST, seed=5)
    state = record.initial_state()
    done: list[ar.Action] = []
    while len(done) < actions and not state.is_over:
        action = ar.legal_actions(state)[0]
        if state.phase is not ar.Phase.OPENING:
            seat = state.turn
            grid = state.grid(seat)
            up = [i for i in range(grid.rows * grid.cols) if grid.face_up[i]]
            if game == "largest" and state.phase is ar.Phase.TURN:
                action = ar.Draw(seat)
            elif up:
                kind = ar.TakeDiscard if state.phase is ar.Phase.TURN else ar.PlaceDrawn
                action = kind(seat, up[0] // grid.cols, up[0] % grid.cols)
        done.append(action)
        state = ar.apply(state, action)
    return record.with_actions(*done)
