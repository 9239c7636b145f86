"""`state` documents: the authoritative server state, secrets included (rules 1.1-9.6)."""

from __future__ import annotations

import hashlib
from typing import Any, Final, cast

from ..cards import MAX_CARD_VALUE, MIN_CARD_VALUE
from ..config import Variant
from ..documents import StateDocument
from ..errors import Code
from ..grid import Grid
from ..loadability import impossibility
from ..rules.columns import complete_column
from ..rules.scoring import game_is_over
from ..state import Dealer, Phase, RoundResult, State
from ..versions import FORMAT_VERSION, RULES_VERSION
from .rounds import read_grid, read_history, round_body
from .strict import (
    ENCODER,
    HEX64,
    bad,
    read_cards,
    read_document,
    read_int,
    read_ints,
    read_list,
    read_object,
    read_opt_int,
    read_seat,
    read_str,
    short,
)
from .text import state_text
from .variant import read_variant, variant_doc, variant_text

# -- states --------------------------------------------------------------------------------

STATE_FIELDS: Final = frozenset(
    {
        "variant",
        "players",
        "phase",
        "round",
        "turn",
        "grids",
        "draw_pile",
        "discard_pile",
        "drawn",
        "closer",
        "opening",
        "turns",
        "totals",
        "history",
        "dealer",
        "seq",
    }
)
_DEALER_FIELDS: Final = frozenset({"seed", "position", "decks"})
PHASES: Final = {phase.value: phase for phase in Phase}
SWALLOWED_SPACE: Final = {"card": None, "face_up": False, "swallowed": True}


def state_body(state: State) -> dict[str, Any]:
    """Every field of a state but the variant, as JSON-ready data."""
    v = state.variant
    cells = v.cells
    players = len(state.totals)
    cards, up, gone = state.cards, state.face_up, state.swallowed
    grids = []
    bit = 1
    for p in range(players):
        spaces: list[dict[str, Any]] = []
        for card in cards[p * cells : (p + 1) * cells]:
            if gone & bit:
                spaces.append(SWALLOWED_SPACE)
            else:
                spaces.append({"card": card, "face_up": up & bit != 0, "swallowed": False})
            bit <<= 1
        grids.append(spaces)
    dealer = state.dealer
    return {
        "format": "state",
        "format_version": FORMAT_VERSION,
        "rules_version": RULES_VERSION,
        "players": players,
        "phase": state.phase.value,
        "round": state.round,
        "turn": state.turn if state.turn >= 0 else None,
        "grids": grids,
        "draw_pile": list(state.draw_pile),
        "discard_pile": list(state.discard_pile),
        "drawn": state.drawn,
        "closer": state.closer,
        "opening": [list(flips) for flips in state.opening],
        "turns": state.turns,
        "totals": list(state.totals),
        "history": [round_body(result) for result in state.history],
        "dealer": {
            "seed": dealer.seed.hex(),
            "position": dealer.position,
            "decks": [list(order) for order in dealer.decks],
        },
        "seq": state.seq,
    }


def check_state(state: Any) -> State:
    if type(state) is not State:
        raise TypeError(f"expected a State, got {type(state).__name__}")
    return state


def state_to_dict(state: State) -> StateDocument:
    """The `state` document of `state`: every field, secrets included (never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> doc = state_to_dict(ar.new_game(players=2, seed=1))
        >>> doc["phase"], len(doc["grids"]), doc["grids"][0][0]["face_up"], len(doc["draw_pile"])
        ('opening', 2, False, 125)
    """
    body = state_body(check_state(state))
    body["variant"] = variant_doc(state.variant)
    return cast(StateDocument, body)


def dumps_state(state: State) -> str:
    """The canonical JSON text of the `state` document of `state` (secret: never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> dumps_state(ar.new_game(players=2, seed=1))[:46]
        '{"closer":null,"dealer":{"decks":[],"position"'
    """
    check_state(state)
    try:
        text = state_text(state)
    except Exception:  # a field holds something unusual (a bool for an int...): let json write it
        text = ENCODER.encode(state_body(state))[:-1]
    # "variant" sorts after every other key of a state document: append its cached canonical text.
    return f'{text},"variant":{variant_text(state.variant)}}}'


def state_hash(state: State) -> str:
    """The SHA-256 (hex) of the canonical bytes of `state`'s document.

    Two states are equal exactly when their hashes are (within one rules
    version), across implementations of the same format.

    Examples:
        >>> import abyss_rules as ar
        >>> len(state_hash(ar.new_game(players=2, seed=1)))
        64
    """
    return hashlib.sha256(dumps_state(state).encode("utf-8")).hexdigest()


def state_from_dict(doc: Any) -> State:
    """A [`State`][abyss_rules.State] from a parsed `state` document, fully checked.

    Checked: the header, field names and JSON types; the shapes (a grid per
    seat, `rows * cols` spaces each, one total per seat...); that the cards
    on the grids, the piles and the drawn card are exactly the variant's deck
    (rule 1.1); and that the phase, turn, opening flips, closer, swallowed
    columns, round history and dealer fit together as the rules allow.
    Raises [`DecodeError`][abyss_rules.DecodeError] naming the first problem found.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=3, seed=2)
        >>> state_from_dict(state_to_dict(state)) == state
        True
    """
    d = read_document(doc, "state", STATE_FIELDS)
    variant = read_variant(d["variant"], "/variant")
    cells = variant.cells
    players = _read_players(d["players"], variant)
    phase = read_phase(d["phase"])
    round_number = read_int(d["round"], "/round", 1)

    # Grids: flat cards (0 on swallowed spaces, as the engine keeps them) and the two bit masks.
    cards: list[int] = []
    in_play: list[int] = []  # every card not swallowed: grids, piles, drawn card
    up = gone = 0
    for p, spaces in enumerate(read_list(d["grids"], "/grids", players, "grids (one per seat)")):
        values, seat_up, seat_gone = read_grid(spaces, f"/grids/{p}", variant)
        up |= seat_up << (p * cells)
        gone |= seat_gone << (p * cells)
        _add_cards(values, seat_gone, cards, in_play)
    draw_pile = read_cards(d["draw_pile"], "/draw_pile")
    discard_pile = read_cards(d["discard_pile"], "/discard_pile")
    drawn = read_opt_int(d["drawn"], "/drawn")
    turn = read_seat(d["turn"], "/turn", players)
    closer = read_seat(d["closer"], "/closer", players)
    opening = _read_opening(d["opening"], players)
    turns = read_int(d["turns"], "/turns", 0)
    totals = read_ints(d["totals"], "/totals", players, "totals (one per seat)")
    history = read_history(d["history"], "/history", variant, players)
    dealer = _read_dealer(d["dealer"], "/dealer", variant)
    seq = read_int(d["seq"], "/seq", 0)
    return _assemble_state(
        variant,
        players,
        phase,
        round_number,
        cards,
        in_play,
        up,
        gone,
        draw_pile,
        discard_pile,
        drawn,
        turn,
        closer,
        opening,
        turns,
        totals,
        history,
        dealer,
        seq,
    )


def _read_players(value: Any, variant: Variant) -> int:
    """The `players` field: a number of players `variant` allows."""
    players = read_int(value, "/players")
    low, high = variant.min_players, variant.max_players
    if not low <= players <= high:
        raise bad(f"this variant takes {low} to {high} players, got {players}", "/players")
    return players


def read_phase(value: Any) -> Phase:
    """The `phase` field: the name of a [`Phase`][abyss_rules.Phase]."""
    phase = PHASES.get(read_str(value, "/phase"))
    if phase is None:
        raise bad(f"must be one of {', '.join(PHASES)}, got {short(value)}", "/phase")
    return phase


def _add_cards(values: list[int | None], gone: int, cards: list[int], in_play: list[int]) -> None:
    """Append one grid's cards to the flat `cards` (0 where swallowed) and to `in_play` (not swallowed).

    `values` holds `None` exactly on the spaces of the swallowed mask `gone`.
    """
    if gone:
        in_play += [card for card in values if card is not None]
        cards += [0 if card is None else card for card in values]
    else:
        in_play += values  # type: ignore[arg-type]  # a grid without swallows holds no null card
        cards += values  # type: ignore[arg-type]


def _read_opening(value: Any, players: int) -> tuple[tuple[int, ...], ...]:
    """The `opening` field: per seat, the card values of its opening flips (rule 2.1)."""
    return tuple(
        read_ints(flips, f"/opening/{p}", low=MIN_CARD_VALUE, high=MAX_CARD_VALUE)
        for p, flips in enumerate(read_list(value, "/opening", players, "lists (one per seat)"))
    )


def _assemble_state(
    variant: Variant,
    players: int,
    phase: Phase,
    round_number: int,
    cards: list[int],
    in_play: list[int],
    up: int,
    gone: int,
    draw_pile: tuple[int, ...],
    discard_pile: tuple[int, ...],
    drawn: int | None,
    turn: int | None,
    closer: int | None,
    opening: tuple[tuple[int, ...], ...],
    turns: int,
    totals: tuple[int, ...],
    history: tuple[RoundResult, ...],
    dealer: Dealer,
    seq: int,
) -> State:
    """The state of fields read and checked one by one, once they are checked together.

    `cards` are the flat grid cards (0 on swallowed spaces), `in_play` the cards of the
    grids that are not swallowed; `in_play` is extended in place. Checks the phase machine
    (spec section 3), the opening, closer and history against the grids, and that every
    card of the deck is in exactly one place (rule 1.1).
    """
    rows, cols, cells, need = variant.rows, variant.cols, variant.cells, variant.initial_flips
    opening_path = "/opening"
    live = phase is not Phase.GAME_OVER

    # The phase machine (spec section 3) and what each phase implies.
    if len(history) != (round_number - 1 if live else round_number):
        raise bad(
            f"round {round_number} {'is being played' if live else 'was the last'}: the history must "
            f"hold {round_number - 1 if live else round_number} rounds, it holds {len(history)}",
            "/history",
            Code.IMPOSSIBLE_STATE,
        )
    if totals != (history[-1].totals if history else (0,) * players):
        raise bad(
            "the totals must be those after the last finished round (rule 7.1)",
            "/totals",
            Code.IMPOSSIBLE_STATE,
        )
    for n, result in enumerate(history[:-1] if not live else history):
        if game_is_over(variant, n + 1, result.totals):
            raise bad(
                f"the game was over after round {n + 1} (rules 7.2, 7.3)",
                f"/history/{n}/totals",
                Code.IMPOSSIBLE_STATE,
            )
    if (phase is Phase.DRAWN) != (drawn is not None):
        raise bad(
            "a drawn card is held exactly in the drawn phase (rule 3.4)", "/drawn", Code.IMPOSSIBLE_STATE
        )
    if (phase in (Phase.TURN, Phase.DRAWN)) != (turn is not None):
        raise bad(
            "turn names the player to act in the turn and drawn phases, else it is null",
            "/turn",
            Code.IMPOSSIBLE_STATE,
        )
    for p, flips in enumerate(opening):
        if len(flips) > need or (phase is not Phase.OPENING and len(flips) != need):
            raise bad(
                f"seat {p} made {len(flips)} opening flips; every seat makes exactly {need} (rule 2.1)",
                f"{opening_path}/{p}",
                Code.IMPOSSIBLE_STATE,
            )
    full = (1 << cells) - 1
    if phase is Phase.OPENING:
        if all(len(flips) == need for flips in opening):
            raise bad(
                "every opening flip is made: the opening is over (rule 2.2)", "/phase", Code.IMPOSSIBLE_STATE
            )
        for p, flips in enumerate(opening):
            shown = ((up | gone) >> (p * cells) & full).bit_count()
            if shown != len(flips):
                raise bad(
                    f"seat {p} has {shown} face-up or swallowed spaces but made {len(flips)} opening "
                    "flips (rule 2.1)",
                    f"{opening_path}/{p}",
                    Code.IMPOSSIBLE_STATE,
                )
        if closer is not None or turns:
            raise bad(
                "nobody closes and no turn is taken in the opening",
                "/closer" if closer is not None else "/turns",
                Code.IMPOSSIBLE_STATE,
            )
    if live:
        cap = variant.max_turns_per_round
        if cap is not None and turns >= cap:
            raise bad(
                f"the round would have ended after {cap} turns (rule 6.7)", "/turns", Code.IMPOSSIBLE_STATE
            )
        if variant.max_rounds is not None and round_number > variant.max_rounds:
            raise bad(
                f"this variant plays at most {variant.max_rounds} rounds (rule 7.3)",
                "/round",
                Code.IMPOSSIBLE_STATE,
            )
        for p in range(players):
            hidden = full & ~((up | gone) >> (p * cells))
            if closer is None and not hidden and phase is not Phase.OPENING:
                raise bad(
                    f"seat {p} has no face-down card left, so the round has a closer (rule 6.1)",
                    "/closer",
                    Code.IMPOSSIBLE_STATE,
                )
            if p == closer and hidden:
                raise bad(
                    f"the closer (seat {p}) has no face-down card left (rule 6.1)",
                    "/closer",
                    Code.IMPOSSIBLE_STATE,
                )
        if closer is not None and turn == closer:
            raise bad(
                "the round ends before the turn comes back to the closer (rule 6.2)",
                "/turn",
                Code.IMPOSSIBLE_STATE,
            )
        _check_no_complete_column(variant, players, cards, up)
    else:
        last = history[-1]
        if not game_is_over(variant, round_number, totals):
            raise bad(
                "the game is not over after this round (rules 7.2, 7.3)", "/phase", Code.IMPOSSIBLE_STATE
            )
        for p in range(players):
            if Grid.from_flat(rows, cols, tuple(cards), up, gone, p) != last.grids[p]:
                raise bad(
                    "at the end of the game the grids are those of the last round's result (rule 6.6)",
                    f"/grids/{p}",
                    Code.IMPOSSIBLE_STATE,
                )
        if closer != last.closer or turns != last.turns:
            where = "/closer" if closer != last.closer else "/turns"
            raise bad("closer and turns are those of the last round's result", where, Code.IMPOSSIBLE_STATE)
    if not discard_pile:
        raise bad(
            "the discard pile always holds a card (rules 1.4, 5.1, 5.2)",
            "/discard_pile",
            Code.IMPOSSIBLE_STATE,
        )

    # Every card of the deck is in exactly one place (rule 1.1).
    in_play += draw_pile
    in_play += discard_pile
    if drawn is not None:
        in_play.append(drawn)
    in_play.sort()
    if tuple(in_play) != variant.unshuffled_deck:
        raise bad(
            _mismatch(in_play, variant.unshuffled_deck, "the grids, piles and drawn card"),
            "",
            Code.CARDS_MISMATCH,
        )
    state = State(
        variant=variant,
        phase=phase,
        round=round_number,
        turn=-1 if turn is None else turn,
        cards=tuple(cards),
        face_up=up,
        swallowed=gone,
        draw_pile=draw_pile,
        discard_pile=discard_pile,
        drawn=drawn,
        closer=closer,
        opening=opening,
        turns=turns,
        totals=totals,
        history=history,
        dealer=dealer,
        seq=seq,
    )
    problem = impossibility(state)  # reachable in its phase, and play can go on (rule 3.11)
    if problem is not None:
        code, path, message = problem
        raise bad(message, path, code)
    return state


def _check_no_complete_column(variant: Variant, players: int, cards: list[int], up: int) -> None:
    """During play a column all face up with equal cards has been swallowed already (rule 4.1)."""
    g = variant.geometry
    for p in range(players):
        for col in range(g.cols):
            if complete_column(g, p, col, cards, up) is not None:
                raise bad(
                    f"column {col} is face up with equal cards: it would have been swallowed (rule 4.1)",
                    f"/grids/{p}/{col}",
                    Code.IMPOSSIBLE_STATE,
                )


def _mismatch(found: list[int], deck: tuple[int, ...], where: str) -> str:
    from collections import Counter

    have, want = Counter(found), Counter(deck)
    extra = sorted((have - want).items())
    lacking = sorted((want - have).items())
    parts = []
    if extra:
        parts.append("too many " + ", ".join(f"{value} (x{n})" for value, n in extra[:5]))
    if lacking:
        parts.append("missing " + ", ".join(f"{value} (x{n})" for value, n in lacking[:5]))
    return f"{where} are not the variant's deck (rule 1.1): {'; '.join(parts)}"


def _read_dealer(value: Any, path: str, variant: Variant) -> Dealer:
    d = read_object(value, path, _DEALER_FIELDS)
    return make_dealer(d["seed"], d["position"], d["decks"], path, variant)


def make_dealer(
    seed_value: Any, position_value: Any, decks_value: Any, path: str, variant: Variant
) -> Dealer:
    """The dealer (at `path`) of its three fields: the seed, the position and the deck orders."""
    seed = read_str(seed_value, f"{path}/seed")
    if HEX64.fullmatch(seed) is None:
        raise bad("must be 64 lowercase hex digits (a 32-byte seed, rule 9.1)", f"{path}/seed")
    position = read_int(position_value, f"{path}/position", 0)
    decks = tuple(
        read_deck_order(order, f"{path}/decks/{n}", variant)
        for n, order in enumerate(read_list(decks_value, f"{path}/decks"))
    )
    return Dealer(bytes.fromhex(seed), position, decks)


def read_deck_order(value: Any, path: str, variant: Variant) -> tuple[int, ...]:
    order = read_ints(value, path)
    if tuple(sorted(order)) != variant.unshuffled_deck:
        message = _mismatch(list(order), variant.unshuffled_deck, "the cards of this deck order")
        raise bad(f"{message} (rule 9.6)", path, Code.CARDS_MISMATCH)
    return order
