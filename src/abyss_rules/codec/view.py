"""`view` documents: what a seat or a spectator may see (rules 8.1-8.3)."""

from __future__ import annotations

from typing import Any, Final, cast

from ..actions import Action
from ..documents import ViewDocument
from ..errors import Code
from ..views import View
from .action import action_body, read_action
from .rounds import deck_values, grid_body, make_grid, read_grid, read_history, round_body
from .state import PHASES
from .strict import (
    MAX_DOCUMENT_BYTES,
    bad,
    canonical_json,
    header,
    parse,
    read_document,
    read_int,
    read_ints,
    read_list,
    read_opt_int,
    read_seat,
    read_str,
    short,
)
from .text import view_text
from .variant import read_variant, variant_doc

# -- views ---------------------------------------------------------------------------------

_VIEW_FIELDS: Final = frozenset(
    {
        "viewer",
        "variant",
        "players",
        "round",
        "phase",
        "turn",
        "opener",
        "grids",
        "opening",
        "owing_flips",
        "discard_pile",
        "draw_pile_size",
        "drawn",
        "closer",
        "turns",
        "totals",
        "history",
        "winners",
        "seq",
        "legal_actions",
    }
)


def view_to_dict(view: View) -> ViewDocument:
    """The `view` document of a [`View`][abyss_rules.View]: public facts only (rules 8.1-8.3).

    Face-down spaces have `"card": null`; the draw pile appears only as
    its size; nothing of the dealer appears. Safe to send to a client.

    Examples:
        >>> import abyss_rules as ar
        >>> doc = view_to_dict(ar.view(ar.new_game(players=2, seed=1), 0))
        >>> doc["grids"][0][0], doc["draw_pile_size"], "draw_pile" in doc
        ({'card': None, 'face_up': False, 'swallowed': False}, 125, False)
    """
    if not isinstance(view, View):
        raise TypeError(f"expected a View, got {type(view).__name__}")
    return cast(ViewDocument, {
        **header("view"),
        "viewer": view.viewer,
        "variant": variant_doc(view.variant),
        "players": view.players,
        "round": view.round,
        "phase": view.phase.value,
        "turn": view.turn,
        "opener": view.opener,
        "grids": [grid_body(grid) for grid in view.grids],
        "opening": [list(flips) for flips in view.opening],
        "owing_flips": list(view.owing_flips),
        "discard_pile": list(view.discard_pile),
        "draw_pile_size": view.draw_pile_size,
        "drawn": view.drawn,
        "closer": view.closer,
        "turns": view.turns,
        "totals": list(view.totals),
        "history": [round_body(result) for result in view.history],
        "winners": list(view.winners),
        "seq": view.seq,
        "legal_actions": [action_body(action) for action in view.legal_actions],
    })


def dumps_view(view: View) -> str:
    """The canonical JSON text of a view: what a server sends to a client.

    See [`view_to_dict`][abyss_rules.view_to_dict].

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> dumps_view(ar.view(state, None)) == dumps_view(ar.view(state))    # a spectator's view
        True
    """
    if isinstance(view, View):
        try:
            return view_text(view)
        except Exception:  # a field holds something unusual (a bool for an int...): let json write it
            pass
    return canonical_json(view_to_dict(view))


def view_from_dict(doc: Any) -> View:
    """A [`View`][abyss_rules.View] from a parsed `view` document (for clients written in Python).

    Checks the header, field names, types and shapes, and that no face-down
    space carries a value; it cannot check the game facts against a state.

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.view(ar.new_game(players=2, seed=1), 1)
        >>> view_from_dict(view_to_dict(v)) == v
        True
    """
    d = read_document(doc, "view", _VIEW_FIELDS)
    variant = read_variant(d["variant"], "/variant")
    players = read_int(d["players"], "/players")
    if not variant.min_players <= players <= variant.max_players:
        raise bad(
            f"this variant takes {variant.min_players} to {variant.max_players} players, got {players}",
            "/players",
        )
    viewer = read_seat(d["viewer"], "/viewer", players)
    phase_name = read_str(d["phase"], "/phase")
    phase = PHASES.get(phase_name)
    if phase is None:
        raise bad(f"must be one of {', '.join(PHASES)}, got {short(phase_name)}", "/phase")
    grids = []
    for p, spaces in enumerate(read_list(d["grids"], "/grids", players, "grids (one per seat)")):
        cards, up, gone = read_grid(spaces, f"/grids/{p}", variant, view=True)
        grids.append(make_grid(variant, cards, up, gone))
    legal = tuple(
        read_action(item, f"/legal_actions/{i}")
        for i, item in enumerate(read_list(d["legal_actions"], "/legal_actions"))
    )
    seen: set[Action] = set()
    for i, action in enumerate(legal):
        if action.player != viewer:
            raise bad(
                "a view lists only the viewer's own legal actions",
                f"/legal_actions/{i}/player",
                Code.IMPOSSIBLE_STATE,
            )
        if action in seen:
            raise bad("a view lists each legal action once", f"/legal_actions/{i}", Code.IMPOSSIBLE_STATE)
        seen.add(action)
    discard_pile = read_ints(d["discard_pile"], "/discard_pile")
    draw_pile_size = read_int(d["draw_pile_size"], "/draw_pile_size", 0)
    if len(discard_pile) + draw_pile_size > variant.deck_size:
        raise bad(
            f"the piles hold more cards than the deck ({variant.deck_size})",
            "/discard_pile",
            Code.IMPOSSIBLE_STATE,
        )
    values = deck_values(variant)
    for i, card in enumerate(discard_pile):
        if card not in values:
            raise bad(f"{card} is not a card of the deck", f"/discard_pile/{i}", Code.CARDS_MISMATCH)
    return View(
        viewer=viewer,
        variant=variant,
        players=players,
        round=read_int(d["round"], "/round", 1),
        phase=phase,
        turn=read_seat(d["turn"], "/turn", players),
        opener=read_seat(d["opener"], "/opener", players),
        grids=tuple(grids),
        opening=tuple(
            read_ints(flips, f"/opening/{p}")
            for p, flips in enumerate(read_list(d["opening"], "/opening", players, "lists (one per seat)"))
        ),
        owing_flips=_seats(d["owing_flips"], "/owing_flips", players),
        discard_pile=discard_pile,
        draw_pile_size=draw_pile_size,
        drawn=read_opt_int(d["drawn"], "/drawn"),
        closer=read_seat(d["closer"], "/closer", players),
        turns=read_int(d["turns"], "/turns", 0),
        totals=read_ints(d["totals"], "/totals", players, "totals (one per seat)"),
        history=read_history(d["history"], "/history", variant, players),
        winners=_seats(d["winners"], "/winners", players),
        seq=read_int(d["seq"], "/seq", 0),
        legal_actions=legal,
    )


def _seats(value: Any, path: str, players: int) -> tuple[int, ...]:
    return read_ints(value, path, low=0, high=players - 1)


def loads_view(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> View:
    """A [`View`][abyss_rules.View] from `view` document text.

    See [`view_from_dict`][abyss_rules.view_from_dict]; `max_bytes` as for
    [`loads_state`][abyss_rules.loads_state].

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.view(ar.new_game(players=2, seed=1), 0)
        >>> loads_view(dumps_view(v)) == v
        True
    """
    return view_from_dict(parse(data, max_bytes))
