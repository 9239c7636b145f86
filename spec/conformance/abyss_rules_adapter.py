#!/usr/bin/env python3
"""The abyss-rules engine behind the conformance protocol (spec/conformance/README.md).

Reads one JSON request per line on standard input and writes one JSON response
per line on standard output, until standard input ends::

    python spec/conformance/harness.py -- python spec/conformance/abyss_rules_adapter.py

Needs only the standard library and ``abyss_rules``. Other implementations
write their own adapter; this one is also the reference for how each fact is
computed from a game state. In-process use::

    >>> response = run_case({"id": "x", "variant": {"preset": "standard"}, "players": 2,
    ...                      "setup": {"seed": 42}, "steps": [{"observe": ["phase", "discard_pile"]}]})
    >>> response["setup_error"], response["steps"][0]["facts"]
    (None, {'phase': 'opening', 'discard_pile': [-1]})
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

import abyss_rules as ar
from abyss_rules.action_space import ACTION_LAYOUT_VERSION, ActionSpace
from abyss_rules.codec import state_from_dict
from abyss_rules.config import FIELD_NAMES

PROTOCOL = 1
"""The protocol version this adapter speaks."""

_ACTIONS: dict[str, type] = {
    "flip": ar.Flip,
    "take_discard": ar.TakeDiscard,
    "draw": ar.Draw,
    "place_drawn": ar.PlaceDrawn,
    "discard_drawn": ar.DiscardDrawn,
}
_TEXT_NAMES: dict[type, str] = {
    ar.Flip: "Flip",
    ar.TakeDiscard: "TakeDiscard",
    ar.Draw: "Draw",
    ar.PlaceDrawn: "PlaceDrawn",
    ar.DiscardDrawn: "DiscardDrawn",
}


_HEX = re.compile(r"(?:[0-9a-f]{2})*")
"""Hex digits, two per byte, lower case only (as in state documents); the engine checks the length."""


class SetupError(Exception):
    """A setup the engine refuses; ``code`` is the error code to report."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# -- requests -> engine values -------------------------------------------------


def make_variant(spec: Any) -> ar.Variant:
    """The variant of a request: ``{"preset": name, "overrides": {...}}`` or ``{"config": {...}}``.

    Nothing else: another key, both forms at once, or ``overrides`` that is not an object
    (``null`` included) is ``invalid_variant``.
    """
    if not isinstance(spec, dict):
        raise SetupError(ar.Code.INVALID_VARIANT)
    if set(spec) == {"config"}:
        fields = spec["config"]
        base = ar.Variant.standard()
    elif set(spec) in ({"preset"}, {"preset", "overrides"}):
        presets = ar.Variant.presets()
        if not isinstance(spec["preset"], str) or spec["preset"] not in presets:
            raise SetupError(ar.Code.INVALID_VARIANT)
        base = presets[spec["preset"]]
        fields = spec.get("overrides", {})
    else:
        raise SetupError(ar.Code.INVALID_VARIANT)
    if not isinstance(fields, dict) or not set(fields) <= set(FIELD_NAMES):
        raise SetupError(ar.Code.INVALID_VARIANT)
    try:
        return base.replace(**fields)
    except ar.AbyssError as error:
        raise SetupError(error.code) from None


def make_seed(seed: Any) -> int | bytes | None:
    """An int seed as it is; a string seed as lower-case hex digits, two per byte (64 for a valid seed)."""
    if isinstance(seed, str):
        if not _HEX.fullmatch(seed):
            raise SetupError(ar.Code.INVALID_SEED)
        return bytes.fromhex(seed)
    if seed is None or type(seed) is int:
        return seed
    raise SetupError(ar.Code.INVALID_SEED)


def new_game(request: dict[str, Any]) -> ar.State:
    """The game a request sets up; raises :class:`SetupError` for a refused setup."""
    setup = request.get("setup", {})
    if "state" in setup:  # a saved game to start from (rule 3.11): refused if play could not reach it
        try:
            return state_from_dict(setup["state"])
        except ar.DecodeError:
            raise SetupError("impossible_state") from None
    variant = make_variant(request.get("variant"))
    seed = make_seed(setup.get("seed"))
    try:
        return ar.new_game(request.get("players"), variant, seed, decks=setup.get("decks"))  # type: ignore[arg-type]
    except ar.AbyssError as error:
        raise SetupError(error.code) from None


def make_action(data: Any, variant: ar.Variant) -> ar.Action:
    """An engine action from its JSON form; raises :class:`~abyss_rules.MalformedActionError`,
    or :class:`~abyss_rules.ActionIndexError` for an action given by an index that names none."""
    if isinstance(data, dict) and data.get("kind") == "index":
        missing = [name for name in ("player", "index") if name not in data]
        if missing:
            raise ar.MalformedActionError(f"index without {', '.join(missing)}")
        return ActionSpace(variant).action(data["index"], data["player"])
    if not isinstance(data, dict) or data.get("kind") not in _ACTIONS:
        raise ar.MalformedActionError(f"not an action: {data!r}")
    cls = _ACTIONS[data["kind"]]
    names = ("player",) if cls is ar.Draw else ("player", "row", "col")
    missing = [name for name in names if name not in data]
    if missing:
        raise ar.MalformedActionError(f"{data['kind']} without {', '.join(missing)}")
    action: ar.Action = cls(*(data[name] for name in names))
    return action


# -- engine values -> facts ----------------------------------------------------


def action_text(action: ar.Action) -> str:
    """An action in the spec's notation, e.g. ``Flip(0, 1, 2)`` or ``Draw(1)``."""
    if isinstance(action, ar.Draw):
        return f"Draw({action.player})"
    return f"{_TEXT_NAMES[type(action)]}({action.player}, {action.row}, {action.col})"


def grid_rows(grid: ar.Grid, hidden: Callable[[int | None], Any]) -> list[list[Any]]:
    """A grid as rows of cells: an int face up, ``hidden(value)`` face down, None swallowed."""
    rows: list[list[Any]] = []
    for r in range(grid.rows):
        row: list[Any] = []
        for c in range(grid.cols):
            s = r * grid.cols + c
            if grid.swallowed[s]:
                row.append(None)
            elif grid.face_up[s]:
                row.append(grid.cards[s])
            else:
                row.append(hidden(grid.cards[s]))
        rows.append(row)
    return rows


def _secret(value: int | None) -> str:
    return f"?{value}"


def _unknown(value: int | None) -> str:
    return "??"


def _spaces(grid: ar.Grid, flags: tuple[bool, ...]) -> list[list[int]]:
    return [[s // grid.cols, s % grid.cols] for s, flag in enumerate(flags) if flag]


def round_result(result: ar.RoundResult | None) -> dict[str, Any] | None:
    """A finished round as the ``last_round`` fact."""
    if result is None:
        return None
    return {
        "round": result.round,
        "closer": result.closer,
        "raw_scores": list(result.raw_scores),
        "scores": list(result.scores),
        "penalized": result.penalized,
        "capped": result.capped,
        "turns": result.turns,
        "totals": list(result.totals),
        "grids": {str(p): grid_rows(g, _secret) for p, g in enumerate(result.grids)},
    }


def public_view(state: ar.State) -> dict[str, Any]:
    """The ``view`` fact: the spectator's view, from :func:`abyss_rules.view` only."""
    v = ar.view(state)
    return {
        "phase": v.phase.value,
        "round": v.round,
        "current_player": v.turn,
        "opener": v.opener,
        "owing_flips": list(v.owing_flips),
        "opening": [list(flips) for flips in v.opening],
        "grids": {str(p): grid_rows(g, _unknown) for p, g in enumerate(v.grids)},
        "discard_pile": list(v.discard_pile),
        "draw_pile_size": v.draw_pile_size,
        "drawn": v.drawn,
        "closer": v.closer,
        "turns": v.turns,
        "totals": list(v.totals),
        "winners": list(v.winners),
        "history_length": len(v.history),
    }


FACTS: dict[str, Callable[[ar.State], Any]] = {
    "phase": lambda s: s.phase.value,
    "round": lambda s: s.round,
    "current_player": lambda s: s.turn,
    "opener": lambda s: ar.view(s).opener,
    "owing_flips": lambda s: list(s.owing_flips),
    "opening": lambda s: [list(flips) for flips in s.opening],
    "turns": lambda s: s.turns,
    "totals": lambda s: list(s.totals),
    "discard_pile": lambda s: list(s.discard_pile),
    "discard_top": lambda s: s.top_discard,
    "draw_pile": lambda s: list(s.draw_pile),
    "draw_pile_size": lambda s: s.draw_pile_size,
    "drawn": lambda s: s.drawn,
    "closer": lambda s: s.closer,
    "grids": lambda s: {str(p): grid_rows(g, _secret) for p, g in enumerate(s.grids())},
    "face_up": lambda s: {str(p): _spaces(g, g.face_up) for p, g in enumerate(s.grids())},
    "swallowed": lambda s: {str(p): _spaces(g, g.swallowed) for p, g in enumerate(s.grids())},
    "legal_actions": lambda s: [action_text(a) for a in ar.legal_actions(s)],
    "last_round": lambda s: round_result(s.last_round),
    "history_length": lambda s: len(s.history),
    "winners": lambda s: list(s.winners),
    "game_over": lambda s: s.is_over,
    "view": public_view,
    "action_space_size": lambda s: ActionSpace(s.variant).size,
    "action_layout_version": lambda s: ACTION_LAYOUT_VERSION,
    "legal_indices": lambda s: {str(p): list(ActionSpace(s.variant).legal_indices(s, p))
                                for p in range(s.players)},
}
"""How each fact of the protocol is read from a state."""


def observe(state: ar.State, names: list[str]) -> dict[str, Any]:
    """The facts ``names`` of ``state`` (an unknown name is left out: the harness reports it)."""
    return {name: FACTS[name](state) for name in names if name in FACTS}


# -- the protocol --------------------------------------------------------------


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Run one case request and return its response (see the protocol)."""
    try:
        state = new_game(case)
    except SetupError as error:
        return {"id": case.get("id"), "setup_error": str(error.code), "steps": []}
    results = []
    for step in case.get("steps", []):
        error_code: str | None = None
        if "action" in step:
            try:
                state = ar.apply(state, make_action(step["action"], state.variant))
            except ar.AbyssError as error:
                error_code = error.code
        results.append({"error": error_code, "facts": observe(state, step.get("observe", []))})
    return {"id": case.get("id"), "setup_error": None, "steps": results}


def handle(message: dict[str, Any]) -> dict[str, Any]:
    """Answer one request line of the protocol."""
    if "hello" in message:
        return {"hello": {"protocol": PROTOCOL, "implementation": f"abyss-rules {ar.__version__}",
                          "rules_version": ar.RULES_VERSION}}
    case = message.get("case")
    if not isinstance(case, dict):
        return {"fatal": "expected a 'hello' or a 'case' request"}
    try:
        return run_case(case)
    except Exception as error:  # an adapter bug must not end the whole run
        return {"id": case.get("id"), "fatal": f"{type(error).__name__}: {error}"}


def main() -> int:
    """Serve the protocol on standard input and output."""
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError as error:
            answer: dict[str, Any] = {"fatal": f"not JSON: {error}"}
        else:
            answer = handle(message) if isinstance(message, dict) else {"fatal": "not a JSON object"}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
