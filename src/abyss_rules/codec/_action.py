"""`action` documents: one action, with the `seq` its sender saw (rules 3.2-3.8)."""

from __future__ import annotations

from typing import Any, Final, cast

from .._text import is_text
from .._versions import header
from ..actions import ACTION_TYPES, Action, Draw
from ..caches import BoundedCache
from ..documents import ActionDocument
from ..errors import ArgumentError, Code, DecodeError, MalformedActionError
from ._spelling import Items
from ._strict import (
    HEADER_FIELDS,
    MAX_INT,
    bad,
    canonical_json,
    check_header,
    lone_surrogate,
    parse,
    read_int,
    read_object,
    read_str,
    short,
    wrong_type,
)

# -- actions -------------------------------------------------------------------------------

_ACTION_OF_KIND: Final[dict[str, type[Action]]] = {cls.KIND: cls for cls in ACTION_TYPES}
_SPACE_ACTION_FIELDS: Final = frozenset({"type", "player", "row", "col"})
_DRAW_FIELDS: Final = frozenset({"type", "player"})
_OPTIONAL: Final = frozenset({"seq", "request_id"})
MAX_REQUEST_ID: Final = 64
"""The longest `request_id` string an action document may carry, in characters."""

RequestId = str | int
"""A client's request id: a string of 1 to 64 characters, or an integer from 0 to 2**53 - 1."""


def action_body(action: Action) -> dict[str, Any]:
    """An action's fields as JSON-ready data; refused (`malformed_action`) if a field is beyond
    what a document may hold (`-MAX_INT` to `MAX_INT`, the integers every JSON reader keeps
    exactly), so that what is written can always be read back."""
    for name in ("player",) if type(action) is Draw else ("player", "row", "col"):
        value = getattr(action, name)
        if not -MAX_INT <= value <= MAX_INT:
            raise MalformedActionError(f"{type(action).__name__}.{name} is beyond what a document holds "
                                       f"(integers from {-MAX_INT} to {MAX_INT})")
    if type(action) is Draw:
        return {"type": "draw", "player": action.player}
    return {
        "type": action.KIND,
        "player": action.player,
        "row": action.row,  # type: ignore[union-attr]
        "col": action.col,  # type: ignore[union-attr]
    }


def action_text(action: Action) -> str:
    """The canonical text of an action object (cached: a game has few distinct actions)."""
    found = _ACTION_TEXTS.get(action)
    if found is None:
        found = _ACTION_TEXTS.put(action, canonical_json(action_body(action)))
    return found


_ACTION_TEXTS: Final = BoundedCache[Action, str]("codec.action_texts", max_entries=4096, max_size=4096)
ACTIONS: Final = Items(action_text, action_body, lambda action: type(action) in ACTION_TYPES)
"""The spelling of an array of action objects (a view's legal actions)."""


def read_action(value: Any, path: str, extra: frozenset[str] = frozenset()) -> Action:
    """An action object (`type`, `player`, `row`, `col`) at `path`; `extra` fields are allowed."""
    if type(value) is not dict:
        raise wrong_type(value, "an object", path)
    if "type" not in value:
        raise DecodeError(Code.MISSING_FIELD, "missing field 'type'", f"{path}/type")
    kind = read_str(value["type"], f"{path}/type")
    cls = _ACTION_OF_KIND.get(kind)
    if cls is None:
        choices = ", ".join(_ACTION_OF_KIND)
        raise bad(f"must be one of {choices}, got {short(kind)}", f"{path}/type")
    if cls is Draw:
        d = read_object(value, path, _DRAW_FIELDS, extra)
        return Draw(read_int(d["player"], f"{path}/player"))
    d = read_object(value, path, _SPACE_ACTION_FIELDS, extra)
    return cls(
        read_int(d["player"], f"{path}/player"),
        read_int(d["row"], f"{path}/row"),  # type: ignore[call-arg]
        read_int(d["col"], f"{path}/col"),
    )


def check_action(action: Any) -> Action:
    if type(action) not in ACTION_TYPES:
        raise MalformedActionError(
            f"expected an action (Flip, TakeDiscard, Draw, PlaceDrawn, DiscardDrawn), "
            f"got {type(action).__name__}"
        )
    return action  # type: ignore[no-any-return]


def action_to_dict(action: Action, *, seq: int | None = None,
                   request_id: str | int | None = None) -> ActionDocument:
    """An `action` document; `seq` (optional) is the state's `seq` the sender saw.

    `request_id` (optional) is the sender's own name for this message: a server's verdict
    echoes it, so that a client can match replies to requests (over a WebSocket, say).

    Examples:
        >>> import abyss_rules as ar
        >>> action_to_dict(ar.Flip(0, 1, 2), seq=4)["type"]
        'flip'
    """
    body = {**header("action"), **action_body(check_action(action))}
    if seq is not None:
        if type(seq) is not int or not 0 <= seq <= MAX_INT:
            raise ArgumentError(f"seq must be an int from 0 to {MAX_INT}, got {short(seq)}")
        body["seq"] = seq
    if request_id is not None:
        body["request_id"] = check_request_id(request_id)
    return cast(ActionDocument, body)


def check_request_id(value: Any, path: str = "/request_id") -> RequestId:
    """`value` as a request id (`DecodeError` otherwise): a string of 1 to 64 characters, or an
    integer from 0 to 2**53 - 1. A string holding a lone surrogate is refused (`lone_surrogate`,
    rule 10.5): a verdict echoes the request id, and no UTF-8 text could hold it.

    Examples:
        >>> check_request_id("move-7"), check_request_id(7)
        ('move-7', 7)
    """
    if type(value) is int:
        return read_int(value, path, 0)
    if type(value) is not str:
        raise wrong_type(value, "a string or an integer", path)
    if not 1 <= len(value) <= MAX_REQUEST_ID:
        raise bad(f"must be a string of 1 to {MAX_REQUEST_ID} characters, got {len(value)}", path)
    if not value.isascii() and not is_text(value):  # (ASCII at once, without a call)
        raise lone_surrogate(path)
    return value


def dumps_action(action: Action, *, seq: int | None = None, request_id: str | int | None = None) -> str:
    """The canonical JSON text of an `action` document.

    Examples:
        >>> import abyss_rules as ar
        >>> dumps_action(ar.Draw(1))
        '{"format":"action","format_version":1,"player":1,"rules_version":"1.2.0","type":"draw"}'
    """
    return canonical_json(action_to_dict(action, seq=seq, request_id=request_id))


def action_document(doc: Any) -> tuple[Action, int | None]:
    """The action of a parsed `action` document and the `seq` it carries (`None` if none)."""
    action, seq, _ = action_message(doc)
    return action, seq


def action_message(doc: Any) -> tuple[Action, int | None, RequestId | None]:
    """The action of a parsed `action` document, its `seq` and its `request_id` (`None` if absent).

    A `null` `seq` or `request_id` reads as absent (generated clients write optional fields as null).
    """
    check_header(doc, "action")
    body = {key: value for key, value in doc.items() if key not in HEADER_FIELDS}
    action = read_action(body, "", _OPTIONAL)
    seq = body.get("seq")
    request_id = body.get("request_id")
    return (action, None if seq is None else read_int(seq, "/seq", 0),
            None if request_id is None else check_request_id(request_id))


def action_from_dict(doc: Any) -> Action:
    """The action of a parsed `action` document (its optional `seq` is checked, then dropped).

    Examples:
        >>> import abyss_rules as ar
        >>> action_from_dict(action_to_dict(ar.PlaceDrawn(1, 2, 3)))
        PlaceDrawn(player=1, row=2, col=3)
    """
    return action_document(doc)[0]


def loads_action(data: str | bytes) -> Action:
    """The action of `action` document text (see `action_from_dict`).

    Examples:
        >>> loads_action('{"format":"action","format_version":1,"rules_version":"1.0.0",'
        ...              '"type":"flip","player":0,"row":1,"col":2}')
        Flip(player=0, row=1, col=2)
    """
    return action_document(parse(data))[0]
