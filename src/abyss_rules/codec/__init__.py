"""JSON documents: states, actions, variants and views in one canonical form.

Every document is a JSON object that names its kind and versions:
`{"format": "state", "format_version": 1, "rules_version": "1.1.0", ...}`.

* **Canonical form.** [`canonical_json`][abyss_rules.canonical_json] writes sorted keys, no
  insignificant whitespace, UTF-8 text (`ensure_ascii=False`) and integers
  only -- `json.dumps(doc, sort_keys=True, separators=(",", ":"),
  ensure_ascii=False)`. Every `dumps_*` function writes it, so two
  implementations can compare documents byte for byte, and loading a document
  then saving it gives back the same bytes. [`state_hash`][abyss_rules.state_hash] is the SHA-256
  of a state's canonical bytes.
* **Nothing is trusted on loading.** Every `loads_*` / `*_from_dict`
  function checks sizes, types, shapes and the rules' invariants, and raises
  [`DecodeError`][abyss_rules.DecodeError] -- a `ValueError` with a stable `code` and the JSON
  pointer `path` of the bad field -- never a bare `KeyError` or
  `TypeError`. A loaded state is safe to give to [`apply`][abyss_rules.apply].

The formats are described field by field in `docs/json.md`, with their JSON
Schemas (`spec/schemas/`).

Warning:
    A **state** document is the authoritative server state: it holds every
    face-down card, the draw pile in order and the dealer's seed (rule 8.2).
    Never send it to a client; send a view ([`dumps_view`][abyss_rules.dumps_view]).

Examples:
    >>> import abyss_rules as ar
    >>> state = ar.new_game(players=2, seed=7)
    >>> text = ar.dumps_state(state)
    >>> ar.loads_state(text) == state, ar.dumps_state(ar.loads_state(text)) == text
    (True, True)
    >>> ar.state_hash(state) == ar.state_hash(ar.loads_state(text))
    True
    >>> try:
    ...     ar.loads_state(text.replace('"round":1', '"round":true'))
    ... except ar.DecodeError as error:
    ...     print(error.code, error.path)
    wrong_type /round
"""

from __future__ import annotations

from ..errors import DecodeError
from ..versions import FORMAT_VERSION
from .action import action_from_dict, action_to_dict, dumps_action, loads_action
from .canonical import loads_state
from .state import dumps_state, state_from_dict, state_hash, state_to_dict
from .strict import MAX_DEPTH, MAX_DOCUMENT_BYTES, canonical_json, parse_json
from .variant import dumps_variant, loads_variant, variant_from_dict, variant_to_dict
from .view import dumps_view, loads_view, view_from_dict, view_to_dict

__all__ = [
    "FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "DecodeError",
    "action_from_dict",
    "action_to_dict",
    "canonical_json",
    "dumps_action",
    "dumps_state",
    "dumps_variant",
    "dumps_view",
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
