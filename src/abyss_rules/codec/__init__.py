"""JSON documents: states, actions, variants and views in one canonical form.

Every document is a JSON object that names its kind and versions:
`{"format": "state", "format_version": 1, "rules_version": "1.2.0", ...}`.

* **Canonical form.** `canonical_json` writes sorted keys, no insignificant
  whitespace, UTF-8 text (`ensure_ascii=False`) and integers only --
  `json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
  Every `dumps_*` function writes it, so two implementations can compare
  documents byte for byte, and loading a document then saving it gives back
  the same bytes. `state_hash` is the SHA-256 of a state's canonical bytes.
* **Nothing is trusted on loading.** Every `loads_*` / `*_from_dict`
  function checks sizes, types, shapes and the rules' invariants, and raises
  `DecodeError` -- a `ValueError` with a stable `code` and the JSON pointer
  `path` of the bad field -- never a bare `KeyError` or `TypeError`. A
  loaded state is safe to give to `apply`.

The formats are described field by field in `docs/json.md`, with their JSON
Schemas (`spec/schemas/`).

Warning:
    A **state** document is the authoritative server state: it holds every
    face-down card, the draw pile in order and the dealer's seed (rule 8.2).
    Never send it to a client; send a view (`dumps_view`).

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.codec import state_hash
    >>> state = ar.new_game(players=2, seed=7)
    >>> text = ar.dumps_state(state)
    >>> ar.loads_state(text) == state, ar.dumps_state(ar.loads_state(text)) == text
    (True, True)
    >>> state_hash(state) == state_hash(ar.loads_state(text))
    True
    >>> try:
    ...     ar.loads_state(text.replace('"round":1', '"round":true'))
    ... except ar.DecodeError as error:
    ...     print(error.code, error.path)
    wrong_type /round
"""

from __future__ import annotations

from typing import Any, cast

from .._versions import FORMAT_VERSION
from ..documents import ViewDocument
from ..errors import ArgumentError, DecodeError
from ..views import View
from ._action import action_from_dict, action_to_dict, dumps_action, loads_action
from ._events import dumps_events, events_to_dict
from ._state import dumps_state, loads_state, state_from_dict, state_hash, state_to_dict
from ._strict import MAX_DEPTH, MAX_DOCUMENT_BYTES, canonical_json, parse, parse_json
from ._variant import dumps_variant, loads_variant, variant_from_dict, variant_to_dict
from ._view import view_data, view_fields, view_text

__all__ = [
    "FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "DecodeError",
    "action_from_dict",
    "action_to_dict",
    "canonical_json",
    "dumps_action",
    "dumps_events",
    "dumps_state",
    "dumps_variant",
    "dumps_view",
    "events_to_dict",
    "loads_action",
    "loads_state",
    "loads_variant",
    "loads_view",
    "parse_json",
    "state_from_dict",
    "state_hash",
    "state_to_dict",
    "variant_from_dict",
    "variant_to_dict",
    "view_from_dict",
    "view_to_dict",
]


# -- views: the codec's view layout (`codec._view`) reads and writes the fields of a `View` -----


def view_to_dict(view: View) -> ViewDocument:
    """The `view` document of a `View`: public facts only (rules 8.1-8.3).

    Face-down spaces have `"card": null`; the draw pile appears only as
    its size; nothing of the dealer appears. Safe to send to a client.

    Examples:
        >>> import abyss_rules as ar
        >>> doc = view_to_dict(ar.view(ar.new_game(players=2, seed=1), 0))
        >>> doc["grids"][0][0], doc["draw_pile_size"], "draw_pile" in doc
        ({'card': None, 'face_up': False, 'swallowed': False}, 125, False)
    """
    if not isinstance(view, View):
        raise ArgumentError(f"expected a View, got {type(view).__name__}")
    return cast(ViewDocument, view_data(view))


def dumps_view(view: View) -> str:
    """The canonical JSON text of a view: what a server sends to a client.

    See `view_to_dict`.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> dumps_view(ar.view(state, None)) == dumps_view(ar.view(state))    # a spectator's view
        True
    """
    if not isinstance(view, View):
        raise ArgumentError(f"expected a View, got {type(view).__name__}")
    return view_text(view)


def view_from_dict(doc: Any) -> View:
    """A `View` from a parsed `view` document (for clients written in Python).

    Checks the header, field names, types and shapes, and that no face-down
    space carries a value; it cannot check the game facts against a state.

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.view(ar.new_game(players=2, seed=1), 1)
        >>> view_from_dict(view_to_dict(v)) == v
        True
    """
    return View(**view_fields(doc))


def loads_view(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> View:
    """A `View` from `view` document text.

    See `view_from_dict`; `max_bytes` as for `loads_state`.

    Examples:
        >>> import abyss_rules as ar
        >>> v = ar.view(ar.new_game(players=2, seed=1), 0)
        >>> loads_view(dumps_view(v)) == v
        True
    """
    return view_from_dict(parse(data, max_bytes))
