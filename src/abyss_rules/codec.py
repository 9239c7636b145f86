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

import hashlib
import json
import re
from itertools import chain, count
from operator import itemgetter
from typing import Any, Final

from .actions import ACTION_TYPES, Action, Draw
from .caches import BoundedCache
from .cards import MAX_CARD_VALUE, MIN_CARD_VALUE
from .config import FIELD_NAMES, MAX_DECK_SIZE, MAX_DECK_VALUES, Variant
from .errors import Code, ConfigError, DecodeError, MalformedActionError
from .grid import Grid
from .loadability import impossibility
from .rules.columns import complete_column
from .rules.scoring import closer_penalty_applies, game_is_over
from .state import Dealer, Phase, RoundResult, State
from .versions import FORMAT_VERSION, RULES_VERSION
from .views import View

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

MAX_DOCUMENT_BYTES: Final = 1 << 20
"""Documents larger than this (1 MiB of UTF-8) are refused before parsing (`document_too_large`)."""
MAX_DEPTH: Final = 32
"""Documents nested deeper than this are refused (`too_deep`); valid documents nest at most 7 deep."""
MAX_INT: Final = (1 << 53) - 1
"""The largest counter (`seq`, `round`, positions...) a document may hold: exact in every JSON parser."""

_HEADER: Final = frozenset({"format", "format_version", "rules_version"})

_INT: Final = frozenset({int})
_VERSION_RE: Final = re.compile(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})")
_HEX64: Final = re.compile(r"[0-9a-f]{64}")


# -- writing -------------------------------------------------------------------------------

_ENCODER: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False
)


def canonical_json(doc: Any) -> str:
    """`doc` (JSON-ready data: dicts, lists, str, int, bool, None) in canonical form.

    Sorted keys, no whitespace between tokens, non-ASCII characters as
    themselves (UTF-8 once encoded). Floats are refused: a document holds
    integers only.

    Examples:
        >>> canonical_json({"b": [1, 2], "a": "é", "c": None})
        '{"a":"é","b":[1,2],"c":null}'
        >>> canonical_json({"x": 0.5})
        Traceback (most recent call last):
        ...
        TypeError: a canonical document holds no floats (found 0.5)
    """
    text = _ENCODER.encode(doc)
    # A float is written with "." or an exponent ("1e+20"); the only "." of most documents is
    # in their rules_version. When in doubt (a string may hold these too), look at the values.
    if "e+" in text or "e-" in text or "." in text.replace(RULES_VERSION, ""):
        _refuse_floats(doc)
    return text


def _refuse_floats(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            raise TypeError(f"a canonical document holds no floats (found {item!r})")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _header(kind: str) -> dict[str, Any]:
    return {"format": kind, "format_version": FORMAT_VERSION, "rules_version": RULES_VERSION}


# -- reading: parsing and generic checks ---------------------------------------------------

class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_from_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_object_from_pairs, parse_constant=_refuse_constant)


def _parse(data: object, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Parse JSON text (`str` or UTF-8 `bytes`), refusing input over `max_bytes` before parsing."""
    return _decode(_text(data, max_bytes))


def _text(data: object, max_bytes: int) -> str:
    """`data` (`str` or UTF-8 `bytes`) as text, refused if over `max_bytes` (in UTF-8) or not UTF-8."""
    if type(max_bytes) is not int or max_bytes < 1:
        raise TypeError(f"max_bytes must be a positive int, got {max_bytes!r}")
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if len(raw) > max_bytes:
            raise _too_large(len(raw), max_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DecodeError(Code.INVALID_JSON,
                              f"not UTF-8 text: {error.reason} at byte {error.start}") from None
    elif isinstance(data, str):
        text = data
        if len(text) > max_bytes:
            raise _too_large(len(text), max_bytes)
        if 3 * len(text) > max_bytes:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise _too_large(size, max_bytes)
    else:
        raise DecodeError(Code.WRONG_TYPE, f"expected JSON text (str or bytes), got {type(data).__name__}")
    return text


def _decode(text: str) -> Any:
    """Parse JSON text strictly: no duplicate keys, no NaN or Infinity, no nesting that overflows."""
    try:
        return _DECODER.decode(text)
    except _DuplicateKey as error:
        raise DecodeError(Code.DUPLICATE_FIELD,
                          f"an object holds the key {_short(error.key)} twice") from None
    except RecursionError:
        raise DecodeError(Code.TOO_DEEP, f"the document nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # json.JSONDecodeError, NaN/Infinity, integers too long to convert
        raise DecodeError(Code.INVALID_JSON, f"not valid JSON: {error}") from None


def parse_json(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Parse untrusted JSON text as strictly as every loader here does.

    Refuses, each with a [`DecodeError`][abyss_rules.DecodeError] and its code: input
    over `max_bytes` before parsing (`document_too_large`), text that is not UTF-8 or
    not JSON, `NaN` and `Infinity` (`invalid_json`), an object with a key twice
    (`duplicate_field`), nesting deeper than `MAX_DEPTH` (`too_deep`). Use it for the
    parts of a message that are not one of the library's documents (a server's own
    envelope, say).

    Examples:
        >>> import abyss_rules as ar
        >>> ar.parse_json('{"notation": "0f12", "seq": 3}')
        {'notation': '0f12', 'seq': 3}
        >>> ar.parse_json('{"seq": 1, "seq": 2}')
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [duplicate_field] an object holds the key 'seq' twice
    """
    value = _parse(data, max_bytes)
    _check_depth(value, "")
    return value


def _too_large(size: int, limit: int) -> DecodeError:
    return DecodeError(Code.DOCUMENT_TOO_LARGE, f"the document is {size} bytes; the limit is {limit}")


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _pointer(path: str, key: str) -> str:
    """`path` extended by an object key, escaped as in RFC 6901."""
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


_JSON_TYPE = {type(None): "null", bool: "a boolean", int: "an integer", float: "a number",
              str: "a string", list: "an array", dict: "an object"}


def _depth(value: Any, limit: int) -> int:
    """How deep `value` nests (a scalar: 0), counting no further than `limit + 1`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if type(item) is dict:
            children: Any = item.values()
        elif type(item) is list:
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((child, level + 1) for child in children if type(child) in (dict, list))
    return deepest


def _check_depth(value: Any, path: str) -> None:
    """Raise `too_deep` if `value`, found at `path`, makes the document nest too deep.

    Called where the schema expects no container (a wrong type, an unknown
    field): every container a valid document holds is at a known, shallow
    depth, so a document too deep always meets one of these checks.
    """
    outer = path.count("/")
    if type(value) in (dict, list) and outer + _depth(value, MAX_DEPTH - outer) > MAX_DEPTH:
        raise DecodeError(Code.TOO_DEEP, f"the document nests deeper than {MAX_DEPTH} levels", path)


def _wrong(value: Any, expected: str, path: str) -> DecodeError:
    _check_depth(value, path)
    got = _JSON_TYPE.get(type(value), type(value).__name__)
    return DecodeError(Code.WRONG_TYPE, f"must be {expected}, got {got}", path)


def _bad(message: str, path: str, code: str = Code.BAD_VALUE) -> DecodeError:
    return DecodeError(code, message, path)


def _obj(
    value: Any, path: str, fields: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """`value` as an object with exactly `fields` (plus any of `optional`)."""
    if type(value) is not dict:
        raise _wrong(value, "an object", path)
    keys = value.keys()
    if keys != fields:
        unknown = sorted(keys - fields - optional, key=repr)
        if unknown:
            name = unknown[0]
            if type(name) is not str:  # only from Python callers: JSON keys are strings
                raise DecodeError(Code.WRONG_TYPE, f"field names must be strings, got {_short(name)}", path)
            where = _pointer(path, name)
            _check_depth(value[name], where)
            raise DecodeError(Code.UNKNOWN_FIELD, f"unknown field {_short(name)}", where)
        missing = sorted(fields - keys)
        if missing:
            raise DecodeError(Code.MISSING_FIELD, f"missing field {missing[0]!r}", _pointer(path, missing[0]))
    return value


def _int(value: Any, path: str, low: int = -MAX_INT, high: int = MAX_INT) -> int:
    if type(value) is not int:
        raise _wrong(value, "an integer", path)
    if not low <= value <= high:
        raise _bad(f"must be an integer from {low} to {high}, got {value}", path)
    return value


def _opt_int(value: Any, path: str, low: int = -MAX_INT, high: int = MAX_INT) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise _wrong(value, "an integer or null", path)
    return _int(value, path, low, high)


def _bool(value: Any, path: str) -> bool:
    if type(value) is not bool:
        raise _wrong(value, "a boolean", path)
    return value


def _str(value: Any, path: str) -> str:
    if type(value) is not str:
        raise _wrong(value, "a string", path)
    return value


def _list(value: Any, path: str, length: int | None = None, what: str = "items") -> list[Any]:
    if type(value) is not list:
        raise _wrong(value, "an array", path)
    if length is not None and len(value) != length:
        raise _bad(f"must hold {length} {what}, got {len(value)}", path, Code.BAD_SHAPE)
    return value


def _ints(value: Any, path: str, length: int | None = None, what: str = "items",
          low: int = -MAX_INT, high: int = MAX_INT) -> tuple[int, ...]:
    """An array of integers as a tuple."""
    items = _list(value, path, length, what)
    if not items or (_INT.issuperset(map(type, items)) and low <= min(items) and max(items) <= high):
        return tuple(items)
    for i, item in enumerate(items):
        if type(item) is not int:
            raise _wrong(item, "an integer", f"{path}/{i}")
        if not low <= item <= high:
            raise _bad(f"must be an integer from {low} to {high}, got {item}", f"{path}/{i}")
    return tuple(items)


def _cards(value: Any, path: str) -> tuple[int, ...]:
    """A pile: an array of integers (which cards they are is checked against the deck later)."""
    if type(value) is list and _INT.issuperset(map(type, value)):
        return tuple(value)
    return _ints(value, path)


def _seat(value: Any, path: str, players: int, nullable: bool = True) -> int | None:
    if value is None and nullable:
        return None
    if type(value) is not int:
        raise _wrong(value, "a seat number or null" if nullable else "a seat number", path)
    if not 0 <= value < players:
        raise _bad(f"must be a seat from 0 to {players - 1}, got {value}", path)
    return value


def _document(
    data: Any, kind: str, fields: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Check the header of a `kind` document and its field names; return it as a dict."""
    _check_header(data, kind)
    return _obj(data, "", fields | _HEADER, optional)


def _check_header(data: Any, kind: str) -> None:
    """Check that `data` is an object whose header names a `kind` document this library reads."""
    if type(data) is not dict:
        raise _wrong(data, "an object", "")
    for name in ("format", "format_version", "rules_version"):
        if name not in data:
            raise DecodeError(Code.MISSING_FIELD, f"missing field {name!r} (every document names its format)",
                              f"/{name}")
    fmt = data["format"]
    if fmt != kind:
        if type(fmt) is not str:
            raise _wrong(fmt, "a string", "/format")
        raise DecodeError(Code.WRONG_FORMAT, f"expected a {kind!r} document, got {_short(fmt)}", "/format")
    version = data["format_version"]
    if type(version) is not int:
        raise _wrong(version, "an integer", "/format_version")
    if version != FORMAT_VERSION:
        raise DecodeError(Code.UNSUPPORTED_VERSION,
                          f"format_version {version} is not supported (this library reads {FORMAT_VERSION})",
                          "/format_version")
    rules = data["rules_version"]
    if type(rules) is not str:
        raise _wrong(rules, "a string", "/rules_version")
    if not _reads_rules_version(rules):
        ours = RULES_VERSION
        raise DecodeError(Code.UNSUPPORTED_VERSION,
                          f"rules_version {_short(rules)} is not supported (this engine implements {ours}; "
                          "documents of the same major version are read)", "/rules_version")


def _reads_rules_version(rules: str) -> bool:
    """Whether documents of `rules_version` `rules` are read: a version of the engine's major one."""
    match = _VERSION_RE.fullmatch(rules)
    return match is not None and match.group(1) == RULES_VERSION.split(".", 1)[0]


# -- variants ------------------------------------------------------------------------------

_VARIANT_FIELDS: Final = frozenset(FIELD_NAMES)
_INT_FIELDS: Final = ("rows", "cols", "min_players", "max_players", "initial_flips", "closer_multiplier")
_FLAG_FIELDS: Final = ("flip_turn", "swallow_on_final_reveal", "reshuffle_keeps_top")
_LIMIT_FIELDS: Final = ("target_score", "max_rounds", "max_turns_per_round")
_VARIANTS: Final = BoundedCache[int, tuple[dict[str, Any], tuple[type, ...], Variant]](
    "codec.variants", max_entries=8, max_size=8 * 256)
"""The last variants read, by order read: (a copy of the object read, the types of its scalar
fields, the Variant); size: the deck's pairs."""
_READ_COUNT: Final = count()


def _variant_text(variant: Variant) -> str:
    """The canonical JSON of a variant's fields, cached on the variant."""
    text: str | None = variant._memo.get("codec.json")
    if text is None:
        text = variant._memo["codec.json"] = canonical_json(variant.to_dict())
    return text


def _variant_doc(variant: Variant) -> dict[str, Any]:
    """`variant.to_dict()`, from a copy cached on the variant (each call returns fresh lists)."""
    cached: dict[str, Any] | None = variant._memo.get("codec.dict")
    if cached is None:
        cached = variant._memo["codec.dict"] = variant.to_dict()
    return {**cached, "deck": [list(pair) for pair in cached["deck"]]}


_SCALAR_FIELDS: Final = tuple(name for name in FIELD_NAMES if name != "deck")
_get_scalars: Final = itemgetter(*_SCALAR_FIELDS)


def _read_variant(value: Any, path: str) -> Variant:
    d = _obj(value, path, _VARIANT_FIELDS)
    # Fast path: a variant read recently, equal in values *and types* (1 == True == 1.0 in Python).
    for known, types, variant in _VARIANTS.values():
        if d == known and tuple(map(type, _get_scalars(d))) == types \
                and _INT.issuperset(map(type, chain.from_iterable(d["deck"]))):
            return variant
    return _read_new_variant(d, path)


def _read_new_variant(d: dict[str, Any], path: str) -> Variant:
    name = _str(d["name"], f"{path}/name")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad("must be valid Unicode text (it holds a lone surrogate)", f"{path}/name") from None
    deck_path = f"{path}/deck"
    deck: list[tuple[int, int]] = []
    pairs = _list(d["deck"], deck_path)
    if len(pairs) > MAX_DECK_VALUES:  # refused before a pair is read (rule 10.4)
        raise DecodeError(Code.INVALID_VARIANT, f"deck: at most {MAX_DECK_VALUES} distinct values, "
                          f"got {len(pairs)}", deck_path, rule="10.4")
    total = 0
    for i, pair in enumerate(pairs):
        where = f"{deck_path}/{i}"
        if type(pair) is not list:
            raise _wrong(pair, "a [value, count] pair", where)
        if len(pair) != 2:
            raise _bad(f"must be a [value, count] pair, got {len(pair)} items", where, Code.BAD_SHAPE)
        deck.append((_int(pair[0], f"{where}/0"), _int(pair[1], f"{where}/1")))
        total += deck[-1][1]
        if total > MAX_DECK_SIZE:  # refused as soon as the counts add up past the bound (rule 10.4)
            raise DecodeError(Code.INVALID_VARIANT, f"deck: at most {MAX_DECK_SIZE} cards in all, got more",
                              f"{where}/1", rule="10.4")
    for field in _INT_FIELDS:
        _int(d[field], f"{path}/{field}")
    for field in _FLAG_FIELDS:
        _bool(d[field], f"{path}/{field}")
    for field in _LIMIT_FIELDS:
        _opt_int(d[field], f"{path}/{field}")
    _str(d["opener"], f"{path}/opener")
    fields: dict[str, Any] = {field: tuple(deck) if field == "deck" else d[field] for field in FIELD_NAMES}
    try:
        variant = Variant(**fields)
    except ConfigError as error:
        raise DecodeError(Code.INVALID_VARIANT, error.message, path, rule=error.rule) from None
    known = dict(d, deck=[list(pair) for pair in d["deck"]])  # a copy: the caller may change `d`
    _VARIANTS.put(next(_READ_COUNT), (known, tuple(map(type, _get_scalars(d))), variant), len(deck))
    return variant


def variant_to_dict(variant: Variant) -> dict[str, Any]:
    """A `variant` document: the header and every field of rule 10.1.

    Examples:
        >>> variant_to_dict(Variant.short())["max_rounds"]
        1
    """
    if not isinstance(variant, Variant):
        raise TypeError(f"expected a Variant, got {type(variant).__name__}")
    return {**_header("variant"), **_variant_doc(variant)}


def dumps_variant(variant: Variant) -> str:
    """The canonical JSON text of a `variant` document.

    Examples:
        >>> dumps_variant(Variant.standard())[:58]
        '{"closer_multiplier":2,"cols":4,"deck":[[-2,5],[-1,10],[0,'
    """
    return canonical_json(variant_to_dict(variant))


def variant_from_dict(doc: Any) -> Variant:
    """A [`Variant`][abyss_rules.Variant] from a parsed `variant` document; every field is required.

    Rule 10.3's validation failures raise [`DecodeError`][abyss_rules.DecodeError] with code
    `invalid_variant`.

    Examples:
        >>> variant_from_dict(variant_to_dict(Variant.long())) == Variant.long()
        True
    """
    d = _document(doc, "variant", _VARIANT_FIELDS)
    return _read_variant({name: d[name] for name in FIELD_NAMES}, "")


def loads_variant(data: str | bytes) -> Variant:
    """A [`Variant`][abyss_rules.Variant] from `variant` document text.

    See [`variant_from_dict`][abyss_rules.variant_from_dict].

    Examples:
        >>> loads_variant(dumps_variant(Variant.short())).max_rounds
        1
    """
    return variant_from_dict(_parse(data))


# -- actions -------------------------------------------------------------------------------

_ACTION_OF_KIND: Final[dict[str, type[Action]]] = {cls.KIND: cls for cls in ACTION_TYPES}
_SPACE_ACTION_FIELDS: Final = frozenset({"type", "player", "row", "col"})
_DRAW_FIELDS: Final = frozenset({"type", "player"})
_SEQ: Final = frozenset({"seq"})


def _action_body(action: Action) -> dict[str, Any]:
    if type(action) is Draw:
        return {"type": "draw", "player": action.player}
    return {"type": action.KIND, "player": action.player, "row": action.row,  # type: ignore[union-attr]
            "col": action.col}  # type: ignore[union-attr]


def _read_action(value: Any, path: str, extra: frozenset[str] = frozenset()) -> Action:
    """An action object (`type`, `player`, `row`, `col`) at `path`; `extra` fields are allowed."""
    if type(value) is not dict:
        raise _wrong(value, "an object", path)
    if "type" not in value:
        raise DecodeError(Code.MISSING_FIELD, "missing field 'type'", f"{path}/type")
    kind = _str(value["type"], f"{path}/type")
    cls = _ACTION_OF_KIND.get(kind)
    if cls is None:
        choices = ", ".join(_ACTION_OF_KIND)
        raise _bad(f"must be one of {choices}, got {_short(kind)}", f"{path}/type")
    if cls is Draw:
        d = _obj(value, path, _DRAW_FIELDS, extra)
        return Draw(_int(d["player"], f"{path}/player"))
    d = _obj(value, path, _SPACE_ACTION_FIELDS, extra)
    return cls(_int(d["player"], f"{path}/player"), _int(d["row"], f"{path}/row"),  # type: ignore[call-arg]
               _int(d["col"], f"{path}/col"))


def _check_action(action: Any) -> Action:
    if type(action) not in ACTION_TYPES:
        raise MalformedActionError(f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), "
                                   f"got {type(action).__name__}")
    return action  # type: ignore[no-any-return]


def action_to_dict(action: Action, *, seq: int | None = None) -> dict[str, Any]:
    """An `action` document; `seq` (optional) is the state's `seq` the sender saw.

    Examples:
        >>> import abyss_rules as ar
        >>> action_to_dict(ar.Flip(0, 1, 2), seq=4)["type"]
        'flip'
    """
    body = {**_header("action"), **_action_body(_check_action(action))}
    if seq is not None:
        if type(seq) is not int or not 0 <= seq <= MAX_INT:
            raise TypeError(f"seq must be an int from 0 to {MAX_INT}, got {seq!r}")
        body["seq"] = seq
    return body


def dumps_action(action: Action, *, seq: int | None = None) -> str:
    """The canonical JSON text of an `action` document.

    Examples:
        >>> import abyss_rules as ar
        >>> dumps_action(ar.Draw(1))
        '{"format":"action","format_version":1,"player":1,"rules_version":"1.1.0","type":"draw"}'
    """
    return canonical_json(action_to_dict(action, seq=seq))


def _action_document(doc: Any) -> tuple[Action, int | None]:
    """The action of a parsed `action` document and the `seq` it carries (`None` if none)."""
    _check_header(doc, "action")
    body = {key: value for key, value in doc.items() if key not in _HEADER}
    action = _read_action(body, "", _SEQ)
    return action, (_int(body["seq"], "/seq", 0) if "seq" in body else None)


def action_from_dict(doc: Any) -> Action:
    """The action of a parsed `action` document (its optional `seq` is checked, then dropped).

    Examples:
        >>> import abyss_rules as ar
        >>> action_from_dict(action_to_dict(ar.PlaceDrawn(1, 2, 3)))
        PlaceDrawn(player=1, row=2, col=3)
    """
    return _action_document(doc)[0]


def loads_action(data: str | bytes) -> Action:
    """The action of `action` document text (see [`action_from_dict`][abyss_rules.action_from_dict]).

    Examples:
        >>> loads_action('{"format":"action","format_version":1,"rules_version":"1.0.0",'
        ...              '"type":"flip","player":0,"row":1,"col":2}')
        Flip(player=0, row=1, col=2)
    """
    return _action_document(_parse(data))[0]


# -- grids and round results ---------------------------------------------------------------

_SPACE_FIELDS: Final = frozenset({"card", "face_up", "swallowed"})
_get_space: Final = itemgetter("card", "face_up", "swallowed")
_ROUND_FIELDS: Final = frozenset({"round", "grids", "closer", "raw_scores", "scores", "penalized", "capped",
                                  "turns", "totals"})


def _grid_body(grid: Grid) -> list[dict[str, Any]]:
    return [{"card": card, "face_up": up, "swallowed": gone}
            for card, up, gone in zip(grid.cards, grid.face_up, grid.swallowed, strict=True)]


def _round_body(result: RoundResult) -> dict[str, Any]:
    return {
        "round": result.round, "grids": [_grid_body(g) for g in result.grids], "closer": result.closer,
        "raw_scores": list(result.raw_scores), "scores": list(result.scores), "penalized": result.penalized,
        "capped": result.capped, "turns": result.turns, "totals": list(result.totals),
    }


def _bools(mask: int, cells: int) -> tuple[bool, ...]:
    """The bits of `mask` as a tuple of `cells` booleans (cached: grids repeat their masks)."""
    key = (mask, cells)
    found = _BOOLS.get(key)
    if found is None:
        found = _BOOLS.put(key, tuple(mask >> s & 1 == 1 for s in range(cells)), cells)
    return found


_BOOLS: Final = BoundedCache[tuple[int, int], tuple[bool, ...]]("codec.bools", max_entries=4096,
                                                                max_size=4096 * 64)


def _deck_values(variant: Variant) -> frozenset[int]:
    """The distinct card values of `variant`'s deck (cached on the variant)."""
    found: frozenset[int] | None = variant._memo.get("codec.values")
    if found is None:
        found = variant._memo["codec.values"] = frozenset(value for value, _ in variant.deck)
    return found


class _Invalid(Exception):
    """Internal: the fast path met something to explain (see `_explain_grid`)."""


def _read_grid(
    value: Any, path: str, variant: Variant, view: bool = False
) -> tuple[list[int | None], int, int]:
    """A grid of `variant`: `cells` space objects `{"card", "face_up", "swallowed"}`.

    Returns the cards (`None` where swallowed, and in a view where face down)
    and the bit masks of the face-up and swallowed spaces. Checks the types,
    that cards are cards of the deck (rule 1.1), that a swallowed space is not
    face up and holds no card, that a space that is not swallowed holds a card
    (in a view: exactly when it is face up, rule 8.2) and that columns are
    swallowed whole (rule 4.1).
    """
    spaces = _list(value, path, variant.cells, "spaces")
    values = _deck_values(variant)
    cards: list[int | None] = []
    up = gone = 0
    bit = 1
    try:
        for space in spaces:  # one tight loop: the hot path of loading a state
            if type(space) is not dict or len(space) != 3:
                raise _Invalid
            card, face_up, swallowed = _get_space(space)
            if swallowed is False:
                if face_up is True:
                    up |= bit
                elif face_up is not False:
                    raise _Invalid
                elif view:
                    if card is not None:
                        raise _Invalid
                    cards.append(None)
                    bit <<= 1
                    continue
                if type(card) is not int or card not in values:
                    raise _Invalid
            elif swallowed is not True or face_up is not False or card is not None:
                raise _Invalid
            else:
                gone |= bit
            cards.append(card)
            bit <<= 1
    except (_Invalid, KeyError):
        raise _explain_grid(spaces, path, values, view) from None
    if gone:
        _check_whole_columns(variant, gone, path)
    return cards, up, gone


def _check_whole_columns(variant: Variant, gone: int, path: str) -> None:
    """A grid's swallowed spaces (`gone`) make whole columns (rule 4.1)."""
    for col, mask in enumerate(variant.geometry.column_masks):
        part = gone & mask
        if part and part != mask:
            first = next(s for s in variant.geometry.column_spaces[col] if gone >> s & 1)
            raise _bad(f"column {col} is only partly swallowed: a column is swallowed whole (rule 4.1)",
                       f"{path}/{first}/swallowed", Code.IMPOSSIBLE_STATE)


def _explain_grid(spaces: list[Any], path: str, values: frozenset[int], view: bool) -> DecodeError:
    """The error for the first bad space of a grid that `_read_grid` refused."""
    for s, space in enumerate(spaces):
        where = f"{path}/{s}"
        _obj(space, where, _SPACE_FIELDS)
        card, face_up, swallowed = _get_space(space)
        if type(face_up) is not bool:
            return _wrong(face_up, "a boolean", f"{where}/face_up")
        if type(swallowed) is not bool:
            return _wrong(swallowed, "a boolean", f"{where}/swallowed")
        if card is not None:
            if type(card) is not int:
                return _wrong(card, "an integer or null", f"{where}/card")
            if card not in values:
                return _bad(f"{card} is not a card of this variant's deck (rule 1.1)", f"{where}/card",
                            Code.CARDS_MISMATCH)
        if face_up and swallowed:
            return _bad("a swallowed space cannot be face up", where, Code.IMPOSSIBLE_STATE)
        if swallowed and card is not None:
            return _bad("a swallowed space holds no card: card must be null", f"{where}/card",
                        Code.IMPOSSIBLE_STATE)
        if view and not swallowed and (card is None) == face_up:
            return _bad("a view shows the value of exactly the face-up spaces (rule 8.2)", f"{where}/card",
                        Code.IMPOSSIBLE_STATE)
        if not view and not swallowed and card is None:
            return _bad("a space that is not swallowed holds a card: card must be an integer",
                        f"{where}/card", Code.IMPOSSIBLE_STATE)
    return _bad("not a valid grid", path)  # pragma: no cover - every refusal is explained above


def _grid(variant: Variant, cards: list[int | None], up: int, gone: int) -> Grid:
    cells = variant.cells
    return Grid(rows=variant.rows, cols=variant.cols, cards=tuple(cards), face_up=_bools(up, cells),
                swallowed=_bools(gone, cells))


def _read_round(value: Any, path: str, variant: Variant, players: int, number: int,
                previous: tuple[int, ...]) -> RoundResult:
    d = _obj(value, path, _ROUND_FIELDS)
    _check_round_number(d["round"], path, number)
    grids: list[Grid] = []
    raw_sums: list[int] = []
    for p, spaces in enumerate(_list(d["grids"], f"{path}/grids", players, "grids (one per seat)")):
        where = f"{path}/grids/{p}"
        _add_final_grid(variant, *_read_grid(spaces, where, variant), where, grids, raw_sums)
    return _round_result(path, variant, players, number, previous, grids, raw_sums, d["closer"],
                         d["raw_scores"], d["scores"], d["penalized"], d["capped"], d["turns"], d["totals"])


def _check_round_number(value: Any, path: str, number: int) -> None:
    """The `round` field of the history's round `number` (at `path`) says `number`."""
    if _int(value, f"{path}/round", 1) != number:
        raise _bad(f"round {number} of the history says it is round {value}", f"{path}/round",
                   Code.IMPOSSIBLE_STATE)


def _add_final_grid(variant: Variant, cards: list[int | None], up: int, gone: int, path: str,
                    grids: list[Grid], raw_sums: list[int]) -> None:
    """Append a finished round's grid (read at `path`) and its raw score to `grids` and `raw_sums`."""
    if up | gone != (1 << variant.cells) - 1:
        s = next(s for s in range(variant.cells) if not (up | gone) >> s & 1)
        raise _bad("a finished round has no face-down card (rule 6.3)", f"{path}/{s}/face_up",
                   Code.IMPOSSIBLE_STATE)
    grids.append(_grid(variant, cards, up, gone))
    raw_sums.append(sum(card for card in cards if card is not None))


def _round_result(
    path: str, variant: Variant, players: int, number: int, previous: tuple[int, ...], grids: list[Grid],
    raw_sums: list[int], closer_value: Any, raw_value: Any, scores_value: Any, penalized_value: Any,
    capped_value: Any, turns_value: Any, totals_value: Any,
) -> RoundResult:
    """Round `number` of the history (at `path`) from its grids, read already, and its other fields.

    Checks the fields' types and that the scores, penalty, cap and totals follow from the
    grids and the `previous` totals (rules 6.4-6.7, 7.1).
    """
    closer = _seat(closer_value, f"{path}/closer", players)
    raw = _ints(raw_value, f"{path}/raw_scores", players, "scores (one per seat)")
    scores = _ints(scores_value, f"{path}/scores", players, "scores (one per seat)")
    penalized = _bool(penalized_value, f"{path}/penalized")
    capped = _bool(capped_value, f"{path}/capped")
    turns = _int(turns_value, f"{path}/turns", 0)
    totals = _ints(totals_value, f"{path}/totals", players, "totals (one per seat)")
    if list(raw) != raw_sums:
        p = next(p for p in range(players) if raw[p] != raw_sums[p])
        raise _bad(f"seat {p}'s round score is the sum of its cards (rule 6.4)", f"{path}/raw_scores/{p}",
                   Code.IMPOSSIBLE_STATE)
    cap = variant.max_turns_per_round
    if capped != (cap is not None and turns >= cap) or (cap is not None and turns > cap):
        raise _bad(f"capped must say whether the round reached max_turns_per_round ({cap}) (rule 6.7)",
                   f"{path}/capped", Code.IMPOSSIBLE_STATE)
    if (closer is None) != capped:
        raise _bad("a round ends with a closer, or by the stalling cap with none (rules 6.2, 6.7)",
                   f"{path}/closer", Code.IMPOSSIBLE_STATE)
    applies = closer is not None and variant.closer_multiplier != 1 and closer_penalty_applies(raw, closer)
    expected = raw
    if applies and closer is not None:
        expected = raw[:closer] + (raw[closer] * variant.closer_multiplier,) + raw[closer + 1:]
    if penalized != applies:
        raise _bad("penalized does not match the closer penalty (rule 6.5)", f"{path}/penalized",
                   Code.IMPOSSIBLE_STATE)
    if scores != expected:
        raise _bad("the scores do not follow from the raw scores (rule 6.5)", f"{path}/scores",
                   Code.IMPOSSIBLE_STATE)
    if totals != tuple(a + b for a, b in zip(previous, scores, strict=True)):
        raise _bad("the totals are not the previous totals plus the scores (rule 7.1)", f"{path}/totals",
                   Code.IMPOSSIBLE_STATE)
    return RoundResult(round=number, grids=tuple(grids), closer=closer, raw_scores=raw, scores=scores,
                       penalized=penalized, capped=capped, turns=turns, totals=totals)


def _read_history(value: Any, path: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    history = []
    totals = (0,) * players
    for n, item in enumerate(_list(value, path)):
        result = _read_round(item, f"{path}/{n}", variant, players, n + 1, totals)
        totals = result.totals
        history.append(result)
    return tuple(history)


# -- states --------------------------------------------------------------------------------

_STATE_FIELDS: Final = frozenset({
    "variant", "players", "phase", "round", "turn", "grids", "draw_pile", "discard_pile", "drawn", "closer",
    "opening", "turns", "totals", "history", "dealer", "seq",
})
_DEALER_FIELDS: Final = frozenset({"seed", "position", "decks"})
_PHASES: Final = {phase.value: phase for phase in Phase}
_SWALLOWED_SPACE: Final = {"card": None, "face_up": False, "swallowed": True}
_SWALLOWED_TEXT: Final = '{"card":null,"face_up":false,"swallowed":true}'
_PHASE_SPELLING: Final = {phase: phase.value for phase in Phase}


def _state_body(state: State) -> dict[str, Any]:
    """Every field of a state but the variant, as JSON-ready data."""
    v = state.variant
    cells = v.cells
    players = len(state.totals)
    cards, up, gone = state.cards, state.face_up, state.swallowed
    grids = []
    bit = 1
    for p in range(players):
        spaces: list[dict[str, Any]] = []
        for card in cards[p * cells:(p + 1) * cells]:
            if gone & bit:
                spaces.append(_SWALLOWED_SPACE)
            else:
                spaces.append({"card": card, "face_up": up & bit != 0, "swallowed": False})
            bit <<= 1
        grids.append(spaces)
    dealer = state.dealer
    return {
        "format": "state", "format_version": FORMAT_VERSION, "rules_version": RULES_VERSION,
        "players": players, "phase": state.phase.value, "round": state.round,
        "turn": state.turn if state.turn >= 0 else None, "grids": grids,
        "draw_pile": list(state.draw_pile), "discard_pile": list(state.discard_pile),
        "drawn": state.drawn, "closer": state.closer, "opening": [list(flips) for flips in state.opening],
        "turns": state.turns, "totals": list(state.totals),
        "history": [_round_body(result) for result in state.history],
        "dealer": {"seed": dealer.seed.hex(), "position": dealer.position,
                   "decks": [list(order) for order in dealer.decks]},
        "seq": state.seq,
    }


def _check_state(state: Any) -> State:
    if type(state) is not State:
        raise TypeError(f"expected a State, got {type(state).__name__}")
    return state


def state_to_dict(state: State) -> dict[str, Any]:
    """The `state` document of `state`: every field, secrets included (never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> doc = state_to_dict(ar.new_game(players=2, seed=1))
        >>> doc["phase"], len(doc["grids"]), doc["grids"][0][0]["face_up"], len(doc["draw_pile"])
        ('opening', 2, False, 125)
    """
    body = _state_body(_check_state(state))
    body["variant"] = _variant_doc(state.variant)
    return body


def dumps_state(state: State) -> str:
    """The canonical JSON text of the `state` document of `state` (secret: never send it to a client).

    Examples:
        >>> import abyss_rules as ar
        >>> dumps_state(ar.new_game(players=2, seed=1))[:46]
        '{"closer":null,"dealer":{"decks":[],"position"'
    """
    _check_state(state)
    try:
        text = _state_text(state)
    except Exception:  # a field holds something unusual (a bool for an int...): let json write it
        text = _ENCODER.encode(_state_body(state))[:-1]
    # "variant" sorts after every other key of a state document: append its cached canonical text.
    return f'{text},"variant":{_variant_text(state.variant)}}}'


# Writing canonical text directly: `json` walks a dict built for it and sorts its keys; the
# writer below spells the fields of a state in sorted-key order from tables of spellings. It
# handles plain values only -- ints, None where a field may be null, bools for flags -- and
# refuses anything else (`_Unusual`, or the TypeError or IndexError of a table), so that its
# text is always exactly what `json` writes.

class _Unusual(ValueError):
    """Internal: a value the direct writer does not spell; `json` writes it instead."""


class _IntSpellings(dict[int, str]):
    """`str(i)` by the int `i`: the common ones (`-512 <= i < 2048`) kept, any other spelled on demand.

    Looked up by value, never by position: every int is spelled as `str` spells it (a table
    indexed by position once spelled 2100 as -460).
    """

    def __missing__(self, value: int) -> str:
        return str(value)


_INT_SPELLINGS: Final = _IntSpellings((i, str(i)) for i in range(-512, 2048))
_NULLABLE_INT: Final = frozenset({int, type(None)})
_BOOL_SPELLING: Final = {True: "true", False: "false"}


def _array(values: tuple[int, ...]) -> str:
    """The inside of the canonical array of the plain ints `values` (`"3,-1,12"`).

    A bool would be spelled as an int: the caller checks the types first.
    """
    return ",".join(map(_INT_SPELLINGS.__getitem__, values))


def _null_or(value: int | None) -> str:
    """`"null"` or the plain int `value` spelled."""
    return "null" if value is None else str(value)


class _Spellings(dict[int | None, str]):
    """The canonical text of the space objects with one `face_up` and `swallowed`, by card.

    Filled as cards are met (at most 4096 kept); cards must be plain ints or None.
    """

    def __init__(self, face_up: bool, swallowed: bool) -> None:
        super().__init__()
        self.rest = f',"face_up":{_BOOL_SPELLING[face_up]},"swallowed":{_BOOL_SPELLING[swallowed]}}}'

    def __missing__(self, card: int | None) -> str:
        text = f'{{"card":{"null" if card is None else card}{self.rest}'
        if len(self) < 4096:
            self[card] = text
        return text


_SPELLINGS: Final = tuple(_Spellings(up, gone) for gone in (False, True) for up in (False, True))
"""The spellings of space objects by `face_up + 2 * swallowed`, then by card."""
_FACE_DOWN: Final = _SPELLINGS[0]
_FACE_UP: Final = _SPELLINGS[1]


_BOOL_TYPE: Final = frozenset({bool})


def _grid_text(grid: Grid) -> str:
    """The canonical text of a grid's array of space objects (see `_grid_body`)."""
    cards, face_up, swallowed = grid.cards, grid.face_up, grid.swallowed
    if not (_NULLABLE_INT.issuperset(map(type, cards)) and _BOOL_TYPE.issuperset(map(type, face_up))
            and _BOOL_TYPE.issuperset(map(type, swallowed)) and len(cards) == len(face_up) == len(swallowed)):
        raise _Unusual
    spaces = [_SPELLINGS[up + 2 * gone][card]
              for card, up, gone in zip(cards, face_up, swallowed, strict=True)]
    return f"[{','.join(spaces)}]"


def _round_text(result: RoundResult) -> str:
    """The canonical text of a round object of the history (see `_round_body`).

    The states of a game share their finished rounds, so the texts of the last rounds written
    are kept by the identity of their (immutable) `RoundResult`, which the cache holds alive.
    """
    known = _ROUND_TEXTS.get(id(result))
    if known is not None and known[0] is result:
        return known[1]
    text = _spell_round(result)
    _ROUND_TEXTS.put(id(result), (result, text), len(text))
    return text


_ROUND_TEXTS: Final = BoundedCache[int, tuple[RoundResult, str]]("codec.round_texts", max_entries=64,
                                                                 max_size=1 << 20)
"""The text of the last rounds written, by the identity of the result it holds (size: characters)."""


def _spell_round(result: RoundResult) -> str:
    """The canonical text of a round object of the history, spelled."""
    raw, scores, totals = result.raw_scores, result.scores, result.totals
    if not (_INT.issuperset(map(type, chain(raw, scores, totals))) and type(result.round) is int
            and type(result.turns) is int and type(result.closer) in _NULLABLE_INT
            and type(result.penalized) is bool and type(result.capped) is bool):
        raise _Unusual
    return (f'{{"capped":{_BOOL_SPELLING[result.capped]},"closer":{_null_or(result.closer)},'
            f'"grids":[{",".join(map(_grid_text, result.grids))}],'
            f'"penalized":{_BOOL_SPELLING[result.penalized]},"raw_scores":[{_array(raw)}],'
            f'"round":{_INT_SPELLINGS[result.round]},"scores":[{_array(scores)}],"totals":[{_array(totals)}],'
            f'"turns":{_INT_SPELLINGS[result.turns]}}}')


def _state_text(state: State) -> str:
    """The canonical text of `state`'s document up to its variant, without the closing brace.

    The same text as `_ENCODER.encode(_state_body(state))[:-1]`, written directly.
    """
    cards, draw_pile, discard_pile, totals, opening = (state.cards, state.draw_pile, state.discard_pile,
                                                       state.totals, state.opening)
    dealer = state.dealer
    if not (_INT.issuperset(map(type, chain(cards, draw_pile, discard_pile, totals, *opening, *dealer.decks)))
            and type(state.phase) is Phase and type(state.round) is int and type(state.turn) is int
            and type(state.turns) is int
            and type(state.seq) is int and type(dealer.position) is int
            and type(state.drawn) in _NULLABLE_INT and type(state.closer) in _NULLABLE_INT):
        raise _Unusual
    players = len(totals)
    cells = state.variant.cells
    if len(cards) != players * cells:
        raise _Unusual
    up, gone = state.face_up, state.swallowed
    seats = []
    for p in range(players):
        base = p * cells
        seat_up = _bools(up >> base & ((1 << cells) - 1), cells)
        seat_cards = cards[base:base + cells]
        if gone >> base & ((1 << cells) - 1):
            seat_gone = _bools(gone >> base & ((1 << cells) - 1), cells)
            spaces = [_SWALLOWED_TEXT if g else (_FACE_UP if u else _FACE_DOWN)[c]
                      for c, u, g in zip(seat_cards, seat_up, seat_gone, strict=True)]
        else:
            spaces = [(_FACE_UP if u else _FACE_DOWN)[c] for c, u in zip(seat_cards, seat_up, strict=True)]
        seats.append(f"[{','.join(spaces)}]")
    turn = state.turn
    decks = ",".join(f"[{_array(order)}]" for order in dealer.decks)
    flips = ",".join(f"[{_array(seat)}]" for seat in opening)
    return (
        f'{{"closer":{_null_or(state.closer)},"dealer":{{"decks":[{decks}],"position":{dealer.position},'
        f'"seed":"{dealer.seed.hex()}"}},"discard_pile":[{_array(discard_pile)}],'
        f'"draw_pile":[{_array(draw_pile)}],"drawn":{_null_or(state.drawn)},'
        f'"format":"state","format_version":{FORMAT_VERSION},"grids":[{",".join(seats)}],'
        f'"history":[{",".join(map(_round_text, state.history))}],"opening":[{flips}],'
        f'"phase":"{_PHASE_SPELLING[state.phase]}","players":{players},"round":{state.round},'
        f'"rules_version":"{RULES_VERSION}","seq":{state.seq},"totals":[{_array(totals)}],'
        f'"turn":{turn if turn >= 0 else "null"},'
        f'"turns":{state.turns}'
    )


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
    d = _document(doc, "state", _STATE_FIELDS)
    variant = _read_variant(d["variant"], "/variant")
    cells = variant.cells
    players = _read_players(d["players"], variant)
    phase = _read_phase(d["phase"])
    round_number = _int(d["round"], "/round", 1)

    # Grids: flat cards (0 on swallowed spaces, as the engine keeps them) and the two bit masks.
    cards: list[int] = []
    in_play: list[int] = []  # every card not swallowed: grids, piles, drawn card
    up = gone = 0
    for p, spaces in enumerate(_list(d["grids"], "/grids", players, "grids (one per seat)")):
        values, seat_up, seat_gone = _read_grid(spaces, f"/grids/{p}", variant)
        up |= seat_up << (p * cells)
        gone |= seat_gone << (p * cells)
        _add_cards(values, seat_gone, cards, in_play)
    draw_pile = _cards(d["draw_pile"], "/draw_pile")
    discard_pile = _cards(d["discard_pile"], "/discard_pile")
    drawn = _opt_int(d["drawn"], "/drawn")
    turn = _seat(d["turn"], "/turn", players)
    closer = _seat(d["closer"], "/closer", players)
    opening = _read_opening(d["opening"], players)
    turns = _int(d["turns"], "/turns", 0)
    totals = _ints(d["totals"], "/totals", players, "totals (one per seat)")
    history = _read_history(d["history"], "/history", variant, players)
    dealer = _read_dealer(d["dealer"], "/dealer", variant)
    seq = _int(d["seq"], "/seq", 0)
    return _assemble_state(variant, players, phase, round_number, cards, in_play, up, gone, draw_pile,
                           discard_pile, drawn, turn, closer, opening, turns, totals, history, dealer, seq)


def _read_players(value: Any, variant: Variant) -> int:
    """The `players` field: a number of players `variant` allows."""
    players = _int(value, "/players")
    low, high = variant.min_players, variant.max_players
    if not low <= players <= high:
        raise _bad(f"this variant takes {low} to {high} players, got {players}", "/players")
    return players


def _read_phase(value: Any) -> Phase:
    """The `phase` field: the name of a [`Phase`][abyss_rules.Phase]."""
    phase = _PHASES.get(_str(value, "/phase"))
    if phase is None:
        raise _bad(f"must be one of {', '.join(_PHASES)}, got {_short(value)}", "/phase")
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
    return tuple(_ints(flips, f"/opening/{p}", low=MIN_CARD_VALUE, high=MAX_CARD_VALUE)
                 for p, flips in enumerate(_list(value, "/opening", players, "lists (one per seat)")))


def _assemble_state(
    variant: Variant, players: int, phase: Phase, round_number: int, cards: list[int], in_play: list[int],
    up: int, gone: int, draw_pile: tuple[int, ...], discard_pile: tuple[int, ...], drawn: int | None,
    turn: int | None, closer: int | None, opening: tuple[tuple[int, ...], ...], turns: int,
    totals: tuple[int, ...], history: tuple[RoundResult, ...], dealer: Dealer, seq: int,
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
        raise _bad(f"round {round_number} {'is being played' if live else 'was the last'}: the history must "
                   f"hold {round_number - 1 if live else round_number} rounds, it holds {len(history)}",
                   "/history", Code.IMPOSSIBLE_STATE)
    if totals != (history[-1].totals if history else (0,) * players):
        raise _bad("the totals must be those after the last finished round (rule 7.1)", "/totals",
                   Code.IMPOSSIBLE_STATE)
    for n, result in enumerate(history[:-1] if not live else history):
        if game_is_over(variant, n + 1, result.totals):
            raise _bad(f"the game was over after round {n + 1} (rules 7.2, 7.3)", f"/history/{n}/totals",
                       Code.IMPOSSIBLE_STATE)
    if (phase is Phase.DRAWN) != (drawn is not None):
        raise _bad("a drawn card is held exactly in the drawn phase (rule 3.4)", "/drawn",
                   Code.IMPOSSIBLE_STATE)
    if (phase in (Phase.TURN, Phase.DRAWN)) != (turn is not None):
        raise _bad("turn names the player to act in the turn and drawn phases, else it is null", "/turn",
                   Code.IMPOSSIBLE_STATE)
    for p, flips in enumerate(opening):
        if len(flips) > need or (phase is not Phase.OPENING and len(flips) != need):
            raise _bad(f"seat {p} made {len(flips)} opening flips; every seat makes exactly {need} "
                       "(rule 2.1)", f"{opening_path}/{p}", Code.IMPOSSIBLE_STATE)
    full = (1 << cells) - 1
    if phase is Phase.OPENING:
        if all(len(flips) == need for flips in opening):
            raise _bad("every opening flip is made: the opening is over (rule 2.2)", "/phase",
                       Code.IMPOSSIBLE_STATE)
        for p, flips in enumerate(opening):
            shown = ((up | gone) >> (p * cells) & full).bit_count()
            if shown != len(flips):
                raise _bad(f"seat {p} has {shown} face-up or swallowed spaces but made {len(flips)} opening "
                           "flips (rule 2.1)", f"{opening_path}/{p}", Code.IMPOSSIBLE_STATE)
        if closer is not None or turns:
            raise _bad("nobody closes and no turn is taken in the opening", "/closer" if closer is not None
                       else "/turns", Code.IMPOSSIBLE_STATE)
    if live:
        cap = variant.max_turns_per_round
        if cap is not None and turns >= cap:
            raise _bad(f"the round would have ended after {cap} turns (rule 6.7)", "/turns",
                       Code.IMPOSSIBLE_STATE)
        if variant.max_rounds is not None and round_number > variant.max_rounds:
            raise _bad(f"this variant plays at most {variant.max_rounds} rounds (rule 7.3)", "/round",
                       Code.IMPOSSIBLE_STATE)
        for p in range(players):
            hidden = full & ~((up | gone) >> (p * cells))
            if closer is None and not hidden and phase is not Phase.OPENING:
                raise _bad(f"seat {p} has no face-down card left, so the round has a closer (rule 6.1)",
                           "/closer", Code.IMPOSSIBLE_STATE)
            if p == closer and hidden:
                raise _bad(f"the closer (seat {p}) has no face-down card left (rule 6.1)", "/closer",
                           Code.IMPOSSIBLE_STATE)
        if closer is not None and turn == closer:
            raise _bad("the round ends before the turn comes back to the closer (rule 6.2)", "/turn",
                       Code.IMPOSSIBLE_STATE)
        _check_no_complete_column(variant, players, cards, up)
    else:
        last = history[-1]
        if not game_is_over(variant, round_number, totals):
            raise _bad("the game is not over after this round (rules 7.2, 7.3)", "/phase",
                       Code.IMPOSSIBLE_STATE)
        for p in range(players):
            if Grid.from_flat(rows, cols, tuple(cards), up, gone, p) != last.grids[p]:
                raise _bad("at the end of the game the grids are those of the last round's result (rule 6.6)",
                           f"/grids/{p}", Code.IMPOSSIBLE_STATE)
        if closer != last.closer or turns != last.turns:
            where = "/closer" if closer != last.closer else "/turns"
            raise _bad("closer and turns are those of the last round's result", where, Code.IMPOSSIBLE_STATE)
    if not discard_pile:
        raise _bad("the discard pile always holds a card (rules 1.4, 5.1, 5.2)", "/discard_pile",
                   Code.IMPOSSIBLE_STATE)

    # Every card of the deck is in exactly one place (rule 1.1).
    in_play += draw_pile
    in_play += discard_pile
    if drawn is not None:
        in_play.append(drawn)
    in_play.sort()
    if tuple(in_play) != variant.unshuffled_deck:
        raise _bad(_mismatch(in_play, variant.unshuffled_deck, "the grids, piles and drawn card"), "",
                   Code.CARDS_MISMATCH)
    state = State(
        variant=variant, phase=phase, round=round_number, turn=-1 if turn is None else turn,
        cards=tuple(cards), face_up=up, swallowed=gone, draw_pile=draw_pile, discard_pile=discard_pile,
        drawn=drawn, closer=closer, opening=opening, turns=turns, totals=totals, history=history,
        dealer=dealer, seq=seq,
    )
    problem = impossibility(state)  # reachable in its phase, and play can go on (rule 8.4)
    if problem is not None:
        code, path, message = problem
        raise _bad(message, path, code)
    return state


def _check_no_complete_column(variant: Variant, players: int, cards: list[int], up: int) -> None:
    """During play a column all face up with equal cards has been swallowed already (rule 4.1)."""
    g = variant.geometry
    for p in range(players):
        for col in range(g.cols):
            if complete_column(g, p, col, cards, up) is not None:
                raise _bad(f"column {col} is face up with equal cards: it would have been swallowed "
                           "(rule 4.1)", f"/grids/{p}/{col}", Code.IMPOSSIBLE_STATE)


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
    d = _obj(value, path, _DEALER_FIELDS)
    return _dealer(d["seed"], d["position"], d["decks"], path, variant)


def _dealer(seed_value: Any, position_value: Any, decks_value: Any, path: str, variant: Variant) -> Dealer:
    """The dealer (at `path`) of its three fields: the seed, the position and the deck orders."""
    seed = _str(seed_value, f"{path}/seed")
    if _HEX64.fullmatch(seed) is None:
        raise _bad("must be 64 lowercase hex digits (a 32-byte seed, rule 9.1)", f"{path}/seed")
    position = _int(position_value, f"{path}/position", 0)
    decks = tuple(_read_deck_order(order, f"{path}/decks/{n}", variant)
                  for n, order in enumerate(_list(decks_value, f"{path}/decks")))
    return Dealer(bytes.fromhex(seed), position, decks)


def _read_deck_order(value: Any, path: str, variant: Variant) -> tuple[int, ...]:
    order = _ints(value, path)
    if tuple(sorted(order)) != variant.unshuffled_deck:
        message = _mismatch(list(order), variant.unshuffled_deck, "the cards of this deck order")
        raise _bad(f"{message} (rule 9.6)", path, Code.CARDS_MISMATCH)
    return order


def loads_state(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> State:
    """A [`State`][abyss_rules.State] from `state` document text, fully checked.

    See [`state_from_dict`][abyss_rules.state_from_dict] for what is checked.
    Text longer than `max_bytes` (UTF-8) is refused before parsing. The
    default, 1 MiB, holds hundreds of rounds of history of 8 players on
    3 x 4 grids; raise it for variants with huge grids and endless games.

    Examples:
        >>> import abyss_rules as ar
        >>> loads_state("[]")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [wrong_type] must be an object, got an array
    """
    text = _text(data, max_bytes)
    try:
        return _read_canonical_state(text)
    except Exception:  # not canonical, or a check failed: the general path says which, exactly
        pass
    return state_from_dict(_decode(text))


# -- the fast path for canonical state text --------------------------------------------------
#
# Most state documents a server loads are ones this library wrote: canonical text. `json` would
# build a dict per grid space only for `state_from_dict` to take it apart again. Instead,
# `_read_canonical_state` cuts canonical text at its fixed keys and looks every space and number
# up in tables of their canonical spellings. It reads a text only if the text is exactly the
# canonical encoding of the values it found -- so `json` would have parsed it to the same
# document -- and it checks those values with the same functions `state_from_dict` uses. Any
# other text (another spelling, whitespace, a key out of order, a value it has no spelling for)
# and any failed check raise, and `loads_state` loads the text the general way, which names the
# exact problem. So the fast path changes the speed of loading, never its outcome.

class _NotCanonical(ValueError):
    """Internal: the text is not in the canonical form the fast path reads."""


_STATE_LAYOUT: Final = (
    '{"closer":', ',"dealer":{"decks":[', '],"position":', ',"seed":"', '"},"discard_pile":[',
    '],"draw_pile":[', '],"drawn":', ',"format":"state","format_version":1,"grids":[', '],"history":[',
    '],"opening":[', '],"phase":"', '","players":', ',"round":', ',"rules_version":"', '","seq":',
    ',"totals":[', '],"turn":', ',"turns":', ',"variant":',
)
"""The text of a canonical state document around its values, in order (its keys are sorted)."""
_ROUND_START: Final = '{"capped":'
_ROUND_LAYOUT: Final = (
    "", ',"closer":', ',"grids":[', '],"penalized":', ',"raw_scores":[', '],"round":', ',"scores":[',
    '],"totals":[', '],"turns":',
)
"""The text of a canonical round object of the history around its values, after `{"capped":`."""
_SIZED: Final[dict[tuple[str, ...], tuple[tuple[str, int], ...]]] = {
    layout: tuple((part, len(part)) for part in layout[1:])
    for layout in (_STATE_LAYOUT, _ROUND_LAYOUT)
}
"""Each layout's parts after the first, with their lengths."""
_INT_OF_TEXT: Final = {text: value for value, text in _INT_SPELLINGS.items()}
"""The integers a state mostly holds, by their canonical spelling (the writer's table, inverted)."""
_CANONICAL_INT: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,14})")
"""A canonical JSON integer of at most 15 digits (so always within +-MAX_INT)."""
_BOOL_OF_TEXT: Final = {text: value for value, text in _BOOL_SPELLING.items()}
_VARIANT_OF_TEXT: Final = BoundedCache[str, Variant]("codec.variants_by_text", max_entries=64,
                                                     max_size=1 << 20)
"""Variants read by the fast path, by the text of their object (size: characters)."""


def _cut(text: str, layout: tuple[str, ...]) -> list[str]:
    """The pieces of `text` between the parts of `layout`, then the rest after the last part.

    Each part is found at its first occurrence after the previous one; pieces are not
    checked here.
    """
    if not text.startswith(layout[0]):
        raise _NotCanonical
    pieces = []
    start = len(layout[0])
    for part, size in _SIZED[layout]:
        end = text.find(part, start)
        if end < 0:
            raise _NotCanonical
        pieces.append(text[start:end])
        start = end + size
    pieces.append(text[start:])
    return pieces


def _int_text(text: str) -> int:
    """The integer of its canonical spelling (`"-12"`); `_NotCanonical` for anything else."""
    value = _INT_OF_TEXT.get(text)
    if value is None:
        if _CANONICAL_INT.fullmatch(text) is None:
            raise _NotCanonical
        value = int(text)
    return value


def _opt_int_text(text: str) -> int | None:
    """`None` for `"null"`, else [`_int_text`][]."""
    return None if text == "null" else _int_text(text)


def _ints_text(text: str) -> list[int]:
    """The integers of the inside of a canonical array (`"3,-1,12"`; `""` for none)."""
    if not text:
        return []
    parts = text.split(",")
    try:  # one lookup per number at C speed; a number not in the table is spelled out below
        return list(map(_INT_OF_TEXT.__getitem__, parts))
    except KeyError:
        return [_int_text(part) for part in parts]


def _int_lists_text(text: str) -> list[list[int]]:
    """The integer arrays of the inside of a canonical array of them (`"[1,2],[]"`; `""` for none)."""
    if not text:
        return []
    if text[0] != "[" or text[-1] != "]":
        raise _NotCanonical
    return [_ints_text(part) for part in text[1:-1].split("],[")]


def _space_tables(variant: Variant) -> tuple[dict[str, int | None], dict[str, str]]:
    """Every canonical spelling of a state's space object of `variant`, without its braces.

    Two tables, cached on the variant: the spelling's card (`None` when swallowed) and a
    digit saying how the space lies: `"0"` face down, `"1"` face up, `"2"` swallowed. They
    hold exactly the spaces `_read_grid` accepts: a card of the deck face up or down, or
    a swallowed space with no card.
    """
    found: tuple[dict[str, int | None], dict[str, str]] | None = variant._memo.get("codec.spaces")
    if found is None:
        cards: dict[str, int | None] = {}
        digits: dict[str, str] = {}
        # The writer's spellings (`_FACE_DOWN`, `_FACE_UP`, `_SWALLOWED_TEXT`), without braces.
        for value in sorted(_deck_values(variant)):
            for spellings, digit in ((_FACE_DOWN, "0"), (_FACE_UP, "1")):
                spelling = spellings[value][1:-1]
                cards[spelling], digits[spelling] = value, digit
        gone = _SWALLOWED_TEXT[1:-1]
        cards[gone], digits[gone] = None, "2"
        found = variant._memo["codec.spaces"] = (cards, digits)
    return found


def _grids_text(
    text: str, variant: Variant, players: int, path: str
) -> list[tuple[list[int | None], int, int]]:
    """The grids of the inside of a canonical `grids` array (`[{space},...],[...]`) at `path`.

    Per seat, as `_read_grid` gives them: the cards (`None` where swallowed) and the
    masks of the face-up and the swallowed spaces; columns must be swallowed whole.
    """
    if not (text.startswith("[{") and text.endswith("}]")):
        raise _NotCanonical
    card_of, digit_of = _space_tables(variant)
    seats = text[2:-2].split("}],[{")
    if len(seats) != players:
        raise _NotCanonical
    out = []
    for p, seat in enumerate(seats):
        spaces = seat.split("},{")
        if len(spaces) != variant.cells:
            raise _NotCanonical
        cards = list(map(card_of.__getitem__, spaces))
        spaces.reverse()  # the last space is the highest bit
        digits = "".join(map(digit_of.__getitem__, spaces))
        if "2" in digits:
            gone = int(digits.replace("1", "0").replace("2", "1"), 2)
            _check_whole_columns(variant, gone, f"{path}/{p}")
            out.append((cards, int(digits.replace("2", "0"), 2), gone))
        else:
            out.append((cards, int(digits, 2), 0))
    return out


def _variant_text_read(text: str) -> Variant:
    """The variant of the text of the `variant` object of a state document (cached by text)."""
    variant = _VARIANT_OF_TEXT.get(text)
    if variant is None:
        variant = _read_variant(_decode(text), "/variant")
        _VARIANT_OF_TEXT.put(text, variant, len(text))
    return variant


def _history_text(text: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The round history of the inside of a canonical `history` array (see `_read_history`).

    Every state of a round holds the same history, so the last histories read are kept by
    their text (with the variant and number of players they were checked for).
    """
    if not text:
        return ()
    known = _HISTORIES.get(text)
    if known is not None and known[0] is variant and known[1] == players:
        return known[2]
    history = _read_history_text(text, variant, players)
    _HISTORIES.put(text, (variant, players, history), len(text))
    return history


_HISTORIES: Final = BoundedCache[str, tuple[Variant, int, tuple[RoundResult, ...]]](
    "codec.histories", max_entries=16, max_size=1 << 21)
"""Histories read by the fast path, by their text (size: characters)."""
"""The last histories read by the fast path: text -> (variant, players, history)."""


def _read_history_text(text: str, variant: Variant, players: int) -> tuple[RoundResult, ...]:
    """The round history of the inside of a canonical `history` array, read and checked."""
    if not (text.startswith(_ROUND_START) and text.endswith("}")):
        raise _NotCanonical
    history: list[RoundResult] = []
    totals = (0,) * players
    for n, body in enumerate(text[len(_ROUND_START):-1].split("}," + _ROUND_START)):
        path = f"/history/{n}"
        (capped, closer, grids_text, penalized, raw, number, scores, round_totals,
         turns) = _cut(body, _ROUND_LAYOUT)
        _check_round_number(_int_text(number), path, n + 1)
        grids: list[Grid] = []
        raw_sums: list[int] = []
        for p, seat in enumerate(_grids_text(grids_text, variant, players, f"{path}/grids")):
            _add_final_grid(variant, *seat, f"{path}/grids/{p}", grids, raw_sums)
        result = _round_result(
            path, variant, players, n + 1, totals, grids, raw_sums, _opt_int_text(closer), _ints_text(raw),
            _ints_text(scores), _BOOL_OF_TEXT[penalized], _BOOL_OF_TEXT[capped], _int_text(turns),
            _ints_text(round_totals),
        )
        totals = result.totals
        history.append(result)
    return tuple(history)


def _read_canonical_state(text: str) -> State:
    """The state of canonical `state` document text, checked as `state_from_dict` checks it.

    Raises (any exception) when the text is not canonical or a check fails: the caller
    then loads the text the general way.
    """
    (closer, decks, position, seed, discard_pile, draw_pile, drawn, grids_text, history_text, opening,
     phase_name, players_text, round_text, rules, seq, totals, turn, turns, rest) = _cut(text, _STATE_LAYOUT)
    if not rest.endswith("}") or not _reads_rules_version(rules):
        raise _NotCanonical
    variant = _variant_text_read(rest[:-1])
    players = _read_players(_int_text(players_text), variant)
    phase = _read_phase(phase_name)
    round_number = _int(_int_text(round_text), "/round", 1)
    cells = variant.cells
    cards: list[int] = []
    in_play: list[int] = []
    up = gone = 0
    for p, (values, seat_up, seat_gone) in enumerate(_grids_text(grids_text, variant, players, "/grids")):
        up |= seat_up << (p * cells)
        gone |= seat_gone << (p * cells)
        _add_cards(values, seat_gone, cards, in_play)
    return _assemble_state(
        variant, players, phase, round_number, cards, in_play, up, gone, tuple(_ints_text(draw_pile)),
        tuple(_ints_text(discard_pile)), _opt_int(_opt_int_text(drawn), "/drawn"),
        _seat(_opt_int_text(turn), "/turn", players), _seat(_opt_int_text(closer), "/closer", players),
        _read_opening(_int_lists_text(opening), players), _int(_int_text(turns), "/turns", 0),
        _ints(_ints_text(totals), "/totals", players, "totals (one per seat)"),
        _history_text(history_text, variant, players),
        _dealer(seed, _int_text(position), _int_lists_text(decks), "/dealer", variant),
        _int(_int_text(seq), "/seq", 0),
    )


# -- views ---------------------------------------------------------------------------------

_VIEW_FIELDS: Final = frozenset({
    "viewer", "variant", "players", "round", "phase", "turn", "opener", "grids", "opening", "owing_flips",
    "discard_pile", "draw_pile_size", "drawn", "closer", "turns", "totals", "history", "winners", "seq",
    "legal_actions",
})


def view_to_dict(view: View) -> dict[str, Any]:
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
    return {
        **_header("view"),
        "viewer": view.viewer, "variant": _variant_doc(view.variant), "players": view.players,
        "round": view.round, "phase": view.phase.value, "turn": view.turn, "opener": view.opener,
        "grids": [_grid_body(grid) for grid in view.grids],
        "opening": [list(flips) for flips in view.opening], "owing_flips": list(view.owing_flips),
        "discard_pile": list(view.discard_pile), "draw_pile_size": view.draw_pile_size, "drawn": view.drawn,
        "closer": view.closer, "turns": view.turns, "totals": list(view.totals),
        "history": [_round_body(result) for result in view.history], "winners": list(view.winners),
        "seq": view.seq, "legal_actions": [_action_body(action) for action in view.legal_actions],
    }


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
            return _view_text(view)
        except Exception:  # a field holds something unusual (a bool for an int...): let json write it
            pass
    return canonical_json(view_to_dict(view))


def _action_text(action: Action) -> str:
    """The canonical text of an action object (cached: a game has few distinct actions)."""
    found = _ACTION_SPELLINGS.get(action)
    if found is None:
        found = _ACTION_SPELLINGS.put(action, canonical_json(_action_body(action)))
    return found


_ACTION_SPELLINGS: Final = BoundedCache[Action, str]("codec.action_texts", max_entries=4096, max_size=4096)


def _view_text(view: View) -> str:
    """The canonical text of `view`'s document written directly (see `_state_text`).

    The same text as `canonical_json(view_to_dict(view))`.
    """
    opening, owing, discard_pile, totals, winners = (view.opening, view.owing_flips, view.discard_pile,
                                                     view.totals, view.winners)
    if not (_INT.issuperset(map(type, chain(discard_pile, totals, owing, winners, *opening)))
            and type(view.phase) is Phase and type(view.players) is int and type(view.round) is int
            and type(view.draw_pile_size) is int and type(view.turns) is int and type(view.seq) is int
            and _NULLABLE_INT.issuperset(map(type, (view.viewer, view.turn, view.opener, view.drawn,
                                                    view.closer)))
            and all(type(action) in ACTION_TYPES for action in view.legal_actions)):
        raise _Unusual
    flips = ",".join(f"[{_array(seat)}]" for seat in opening)
    return (
        f'{{"closer":{_null_or(view.closer)},"discard_pile":[{_array(discard_pile)}],'
        f'"draw_pile_size":{view.draw_pile_size},"drawn":{_null_or(view.drawn)},"format":"view",'
        f'"format_version":{FORMAT_VERSION},"grids":[{",".join(map(_grid_text, view.grids))}],'
        f'"history":[{",".join(map(_round_text, view.history))}],'
        f'"legal_actions":[{",".join(map(_action_text, view.legal_actions))}],'
        f'"opener":{_null_or(view.opener)},"opening":[{flips}],"owing_flips":[{_array(owing)}],'
        f'"phase":"{_PHASE_SPELLING[view.phase]}","players":{view.players},"round":{view.round},'
        f'"rules_version":"{RULES_VERSION}","seq":{view.seq},"totals":[{_array(totals)}],'
        f'"turn":{_null_or(view.turn)},"turns":{view.turns},"variant":{_variant_text(view.variant)},'
        f'"viewer":{_null_or(view.viewer)},"winners":[{_array(winners)}]}}'
    )


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
    d = _document(doc, "view", _VIEW_FIELDS)
    variant = _read_variant(d["variant"], "/variant")
    players = _int(d["players"], "/players")
    if not variant.min_players <= players <= variant.max_players:
        raise _bad(f"this variant takes {variant.min_players} to {variant.max_players} players, "
                   f"got {players}", "/players")
    viewer = _seat(d["viewer"], "/viewer", players)
    phase_name = _str(d["phase"], "/phase")
    phase = _PHASES.get(phase_name)
    if phase is None:
        raise _bad(f"must be one of {', '.join(_PHASES)}, got {_short(phase_name)}", "/phase")
    grids = []
    for p, spaces in enumerate(_list(d["grids"], "/grids", players, "grids (one per seat)")):
        cards, up, gone = _read_grid(spaces, f"/grids/{p}", variant, view=True)
        grids.append(_grid(variant, cards, up, gone))
    legal = tuple(_read_action(item, f"/legal_actions/{i}")
                  for i, item in enumerate(_list(d["legal_actions"], "/legal_actions")))
    seen: set[Action] = set()
    for i, action in enumerate(legal):
        if action.player != viewer:
            raise _bad("a view lists only the viewer's own legal actions", f"/legal_actions/{i}/player",
                       Code.IMPOSSIBLE_STATE)
        if action in seen:
            raise _bad("a view lists each legal action once", f"/legal_actions/{i}", Code.IMPOSSIBLE_STATE)
        seen.add(action)
    discard_pile = _ints(d["discard_pile"], "/discard_pile")
    draw_pile_size = _int(d["draw_pile_size"], "/draw_pile_size", 0)
    if len(discard_pile) + draw_pile_size > variant.deck_size:
        raise _bad(f"the piles hold more cards than the deck ({variant.deck_size})", "/discard_pile",
                   Code.IMPOSSIBLE_STATE)
    values = _deck_values(variant)
    for i, card in enumerate(discard_pile):
        if card not in values:
            raise _bad(f"{card} is not a card of the deck", f"/discard_pile/{i}", Code.CARDS_MISMATCH)
    return View(
        viewer=viewer, variant=variant, players=players, round=_int(d["round"], "/round", 1), phase=phase,
        turn=_seat(d["turn"], "/turn", players), opener=_seat(d["opener"], "/opener", players),
        grids=tuple(grids),
        opening=tuple(_ints(flips, f"/opening/{p}") for p, flips in enumerate(
            _list(d["opening"], "/opening", players, "lists (one per seat)"))),
        owing_flips=_seats(d["owing_flips"], "/owing_flips", players),
        discard_pile=discard_pile, draw_pile_size=draw_pile_size,
        drawn=_opt_int(d["drawn"], "/drawn"), closer=_seat(d["closer"], "/closer", players),
        turns=_int(d["turns"], "/turns", 0),
        totals=_ints(d["totals"], "/totals", players, "totals (one per seat)"),
        history=_read_history(d["history"], "/history", variant, players),
        winners=_seats(d["winners"], "/winners", players), seq=_int(d["seq"], "/seq", 0), legal_actions=legal,
    )


def _seats(value: Any, path: str, players: int) -> tuple[int, ...]:
    return _ints(value, path, low=0, high=players - 1)


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
    return view_from_dict(_parse(data, max_bytes))

