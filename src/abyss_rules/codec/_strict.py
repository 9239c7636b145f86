"""The strict JSON kit every loader uses: canonical text, strict parsing, and checked field readers.

* `canonical_json` writes the one canonical form (sorted keys, no whitespace, UTF-8, integers
  only);
* `parse` and `parse_json` read untrusted text: a size limit before parsing, no duplicate
  keys, no NaN or Infinity, bounded nesting, and no lone surrogate (`refuse_lone_surrogates`,
  the door every JSON text passes);
* the `read_*` functions check one field each (type, range, shape) and raise
  `DecodeError` with the field's JSON pointer; `read_document` checks a
  document's header and field names.

The document modules (`variant`, `action`, `rounds`, `state`, `view`) and the other modules
that read documents (`records`, `events`, `server`) use these names: public within the
package, not exported by `abyss_rules`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from .._text import is_text
from .._versions import FORMAT_VERSION, RULES_VERSION
from ..errors import ArgumentError, Code, DecodeError

MAX_DOCUMENT_BYTES: Final = 1 << 20
"""Documents larger than this (1 MiB of UTF-8) are refused before parsing (`document_too_large`)."""
MAX_DEPTH: Final = 32
"""Documents nested deeper than this are refused (`too_deep`); valid documents nest at most 7 deep."""
MAX_INT: Final = (1 << 53) - 1
"""The largest counter (`seq`, `round`, positions...) a document may hold: exact in every JSON parser."""

HEADER_FIELDS: Final = frozenset({"format", "format_version", "rules_version"})

INT_ONLY: Final = frozenset({int})
_VERSION_RE: Final = re.compile(r"(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})")
HEX64: Final = re.compile(r"[0-9a-f]{64}")


# -- writing -------------------------------------------------------------------------------

ENCODER: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False
)


def canonical_json(doc: Any) -> str:
    """`doc` (JSON-ready data: dicts, lists, str, int, bool, None) in canonical form.

    Sorted keys, no whitespace between tokens, non-ASCII characters as
    themselves (UTF-8 once encoded). What no document can hold is refused
    before anything is written: a float (a document holds integers only) or
    any other value that is not JSON-ready (`ArgumentError`, a `TypeError`),
    and a string or key holding a lone surrogate, which UTF-8 cannot hold
    (`DecodeError`, code `lone_surrogate`, with the path where it is; rule 10.5).

    Examples:
        >>> canonical_json({"b": [1, 2], "a": "é", "c": None})
        '{"a":"é","b":[1,2],"c":null}'
        >>> canonical_json({"x": 0.5})
        Traceback (most recent call last):
        ...
        abyss_rules.errors.ArgumentError: [invalid_argument] a canonical document holds no floats (found 0.5)
        >>> canonical_json({"id": ["\\ud800"]})
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [lone_surrogate] /id/0: the string holds a lone surrogate ...
    """
    try:
        text = ENCODER.encode(doc)
    except (TypeError, ValueError, RecursionError) as error:
        _refuse_floats(doc)  # NaN and the infinities are floats too
        what = "nests too deep" if isinstance(error, RecursionError) else str(error)
        raise ArgumentError(f"not JSON-ready data (dicts, lists, str, int, bool, None): {what}") from None
    # A float is written with "." or an exponent ("1e+20"); the only "." of most documents is
    # in their rules_version. When in doubt (a string may hold these too), look at the values.
    if "e+" in text or "e-" in text or "." in text.replace(RULES_VERSION, ""):
        _refuse_floats(doc)
    if not text.isascii() and not is_text(text):  # (ASCII at once, without a call)
        raise _lone_surrogate(doc)
    return text


def _refuse_floats(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            raise ArgumentError(f"a canonical document holds no floats (found {item!r})")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


# -- the door: text UTF-8 cannot hold (rule 10.5) ------------------------------------------

_MAY_HOLD_SURROGATE: Final = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
"""A surrogate, or the JSON escape of one: JSON text whose strings may hold a lone surrogate."""


def refuse_lone_surrogates(text: str, value: Any) -> None:
    """Refuse `value`, parsed from the JSON `text`, if a string or a field name in it holds a lone
    surrogate (`DecodeError`, code `lone_surrogate`, with its path; rule 10.5).

    The door every JSON text the library reads passes, right after it is parsed: whatever is
    accepted can be written back. Only text that holds a surrogate or the escape of one is
    searched; ASCII text without an escape `\\u` costs nothing.
    """
    if (text.isascii() and "\\u" not in text) or _MAY_HOLD_SURROGATE.search(text) is None:
        return
    if lone_surrogate_at(value) is not None:
        raise _lone_surrogate(value)


def lone_surrogate_at(value: Any) -> tuple[str, str] | None:
    """Where parsed JSON (or JSON-ready data) holds a lone surrogate: its JSON pointer and
    whether it is in "the string" there or in "a field name" of the object there; else `None`."""
    if type(value) is str:
        return None if is_text(value) else ("", "the string")
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if type(item) is dict:
            named = []
            for key, child in item.items():
                if type(key) is str and not is_text(key):
                    return path, "a field name"
                named.append((str(key), child))
        elif type(item) in (list, tuple):
            named = [(str(i), child) for i, child in enumerate(item)]
        else:
            continue
        for key, child in reversed(named):
            kind = type(child)
            if kind is str:
                if not is_text(child):
                    return pointer(path, key), "the string"
            elif kind is dict or kind is list or kind is tuple:
                stack.append((child, pointer(path, key)))
    return None


def _lone_surrogate(value: Any) -> DecodeError:
    return lone_surrogate(*(lone_surrogate_at(value) or ("", "the text")))


def lone_surrogate(path: str, what: str = "the string") -> DecodeError:
    """The refusal of `what` at `path`, which holds a lone surrogate (rule 10.5)."""
    why = "a code point from U+D800 to U+DFFF alone: not text, and no UTF-8 document can hold it"
    return DecodeError(Code.LONE_SURROGATE, f"{what} holds a lone surrogate ({why})", path)


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


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, refused if it overflows a double (`1e400`)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{short(text)} is too large for a number")
    return value


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_object_from_pairs, parse_constant=_refuse_constant,
                                   parse_float=_finite_float)


def parse(data: object, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Parse JSON text (`str` or UTF-8 `bytes`), refusing input over `max_bytes` before parsing."""
    return decode(text_of(data, max_bytes))


def text_of(data: object, max_bytes: int) -> str:
    """`data` (`str` or UTF-8 `bytes`) as text, refused if over `max_bytes` (in UTF-8) or not UTF-8."""
    if type(max_bytes) is not int or max_bytes < 1:
        raise ArgumentError(f"max_bytes must be a positive int, got {short(max_bytes)}")
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if len(raw) > max_bytes:
            raise _too_large(len(raw), max_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DecodeError(
                Code.INVALID_JSON, f"not UTF-8 text: {error.reason} at byte {error.start}"
            ) from None
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


def decode(text: str) -> Any:
    """Parse JSON text strictly: no duplicate keys, no NaN or Infinity, no nesting that overflows,
    no lone surrogate (`refuse_lone_surrogates`)."""
    try:
        value = _DECODER.decode(text)
    except _DuplicateKey as error:
        raise DecodeError(Code.DUPLICATE_FIELD, f"an object holds the key {short(error.key)} twice") from None
    except RecursionError:
        raise DecodeError(Code.TOO_DEEP, f"the document nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # json.JSONDecodeError, NaN/Infinity, integers too long to convert
        raise DecodeError(Code.INVALID_JSON, f"not valid JSON: {error}") from None
    refuse_lone_surrogates(text, value)
    return value


def parse_json(data: str | bytes, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Parse untrusted JSON text as strictly as every loader here does.

    Refuses, each with a `DecodeError` and its code: input over `max_bytes` before
    parsing (`document_too_large`), text that is not UTF-8 or not JSON, `NaN`,
    `Infinity` and numbers too large for a double such as `1e400` (`invalid_json`),
    a string or a key holding a lone surrogate such as the escape `\\ud800` alone, which
    UTF-8 cannot hold (`lone_surrogate`, rule 10.5), an object with a key twice
    (`duplicate_field`), nesting deeper than `MAX_DEPTH` (`too_deep`). Use it for the
    parts of a message that are not one of the library's documents (a server's own
    envelope, say).

    Examples:
        >>> from abyss_rules.codec import parse_json
        >>> parse_json('{"notation": "0f12", "seq": 3}')
        {'notation': '0f12', 'seq': 3}
        >>> parse_json('{"seq": 1, "seq": 2}')
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [duplicate_field] an object holds the key 'seq' twice
    """
    value = parse(data, max_bytes)
    check_depth(value, "")
    return value


def _too_large(size: int, limit: int) -> DecodeError:
    return DecodeError(Code.DOCUMENT_TOO_LARGE, f"the document is {size} bytes; the limit is {limit}")


def short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def pointer(path: str, key: str) -> str:
    """`path` extended by an object key, escaped as in RFC 6901."""
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


_JSON_TYPE = {
    type(None): "null",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


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


def check_depth(value: Any, path: str) -> None:
    """Raise `too_deep` if `value`, found at `path`, makes the document nest too deep.

    Called where the schema expects no container (a wrong type, an unknown
    field): every container a valid document holds is at a known, shallow
    depth, so a document too deep always meets one of these checks.
    """
    outer = path.count("/")
    if type(value) in (dict, list) and outer + _depth(value, MAX_DEPTH - outer) > MAX_DEPTH:
        raise DecodeError(Code.TOO_DEEP, f"the document nests deeper than {MAX_DEPTH} levels", path)


def wrong_type(value: Any, expected: str, path: str) -> DecodeError:
    check_depth(value, path)
    got = _JSON_TYPE.get(type(value), type(value).__name__)
    return DecodeError(Code.WRONG_TYPE, f"must be {expected}, got {got}", path)


def bad(message: str, path: str, code: str = Code.BAD_VALUE) -> DecodeError:
    return DecodeError(code, message, path)


def read_object(
    value: Any, path: str, fields: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """`value` as an object with exactly `fields` (plus any of `optional`)."""
    if type(value) is not dict:
        raise wrong_type(value, "an object", path)
    keys = value.keys()
    if keys != fields:
        unknown = sorted(keys - fields - optional, key=repr)
        if unknown:
            name = unknown[0]
            if type(name) is not str:  # only from Python callers: JSON keys are strings
                raise DecodeError(Code.WRONG_TYPE, f"field names must be strings, got {short(name)}", path)
            if not is_text(name):  # only from Python callers: parsed text was refused at the door
                raise _lone_surrogate(value)
            where = pointer(path, name)
            check_depth(value[name], where)
            raise DecodeError(Code.UNKNOWN_FIELD, f"unknown field {short(name)}", where)
        missing = sorted(fields - keys)
        if missing:
            raise DecodeError(Code.MISSING_FIELD, f"missing field {missing[0]!r}", pointer(path, missing[0]))
    return value


def read_int(value: Any, path: str, low: int = -MAX_INT, high: int = MAX_INT) -> int:
    if type(value) is not int:
        raise wrong_type(value, "an integer", path)
    if not low <= value <= high:
        raise bad(f"must be an integer from {low} to {high}, got {value}", path)
    return value


def read_opt_int(value: Any, path: str, low: int = -MAX_INT, high: int = MAX_INT) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise wrong_type(value, "an integer or null", path)
    return read_int(value, path, low, high)


def read_bool(value: Any, path: str) -> bool:
    if type(value) is not bool:
        raise wrong_type(value, "a boolean", path)
    return value


def read_str(value: Any, path: str) -> str:
    if type(value) is not str:
        raise wrong_type(value, "a string", path)
    return value


def read_list(value: Any, path: str, length: int | None = None, what: str = "items") -> list[Any]:
    if type(value) is not list:
        raise wrong_type(value, "an array", path)
    if length is not None and len(value) != length:
        raise bad(f"must hold {length} {what}, got {len(value)}", path, Code.BAD_SHAPE)
    return value


def read_ints(
    value: Any,
    path: str,
    length: int | None = None,
    what: str = "items",
    low: int = -MAX_INT,
    high: int = MAX_INT,
) -> tuple[int, ...]:
    """An array of integers as a tuple."""
    items = read_list(value, path, length, what)
    if not items or (INT_ONLY.issuperset(map(type, items)) and low <= min(items) and max(items) <= high):
        return tuple(items)
    for i, item in enumerate(items):
        if type(item) is not int:
            raise wrong_type(item, "an integer", f"{path}/{i}")
        if not low <= item <= high:
            raise bad(f"must be an integer from {low} to {high}, got {item}", f"{path}/{i}")
    return tuple(items)


def read_cards(value: Any, path: str) -> tuple[int, ...]:
    """A pile: an array of integers (which cards they are is checked against the deck later)."""
    if type(value) is list and INT_ONLY.issuperset(map(type, value)):
        return tuple(value)
    return read_ints(value, path)


def read_seat(value: Any, path: str, players: int, nullable: bool = True) -> int | None:
    if value is None and nullable:
        return None
    if type(value) is not int:
        raise wrong_type(value, "a seat number or null" if nullable else "a seat number", path)
    if not 0 <= value < players:
        raise bad(f"must be a seat from 0 to {players - 1}, got {value}", path)
    return value


def read_document(
    data: Any, kind: str, fields: frozenset[str], optional: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Check the header of a `kind` document and its field names; return it as a dict."""
    check_header(data, kind)
    return read_object(data, "", fields | HEADER_FIELDS, optional)


def check_header(data: Any, kind: str) -> None:
    """Check that `data` is an object whose header names a `kind` document this library reads."""
    if type(data) is not dict:
        raise wrong_type(data, "an object", "")
    for name in ("format", "format_version", "rules_version"):
        if name not in data:
            raise DecodeError(
                Code.MISSING_FIELD, f"missing field {name!r} (every document names its format)", f"/{name}"
            )
    fmt = data["format"]
    if fmt != kind:
        if type(fmt) is not str:
            raise wrong_type(fmt, "a string", "/format")
        raise DecodeError(Code.WRONG_FORMAT, f"expected a {kind!r} document, got {short(fmt)}", "/format")
    version = data["format_version"]
    if type(version) is not int:
        raise wrong_type(version, "an integer", "/format_version")
    if version != FORMAT_VERSION:
        raise DecodeError(
            Code.UNSUPPORTED_VERSION,
            f"format_version {version} is not supported (this library reads {FORMAT_VERSION})",
            "/format_version",
        )
    rules = data["rules_version"]
    if type(rules) is not str:
        raise wrong_type(rules, "a string", "/rules_version")
    if not reads_rules_version(rules):
        ours = RULES_VERSION
        raise DecodeError(
            Code.UNSUPPORTED_VERSION,
            f"rules_version {short(rules)} is not supported (this engine implements {ours}; "
            "documents of the same major version are read)",
            "/rules_version",
        )


def reads_rules_version(rules: str) -> bool:
    """Whether documents of `rules_version` `rules` are read: a version of the engine's major one."""
    match = _VERSION_RE.fullmatch(rules)
    return match is not None and match.group(1) == RULES_VERSION.split(".", 1)[0]
