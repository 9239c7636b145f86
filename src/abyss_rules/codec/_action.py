"""`action` documents: one action, with the `seq` its sender saw (rules 3.2-3.8).

An action object is one of five layouts told apart by its `type` (the choice `ACTION`): the
action inside `events` and `verdict` documents and a view's `legal_actions`. The `action`
document is the same object with the header and two optional fields, `seq` and
`request_id` (the choice `ACTION_DOCUMENT`, of a `Message`).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple, cast

from .._text import is_text
from ..actions import ACTION_TYPES, Action, Draw
from ..caches import BoundedCache
from ..documents import ActionDocument
from ..errors import ArgumentError, MalformedActionError
from ._layout import Choice, Field, Layout
from ._spelling import INT, STR, Const, Items, OffTable
from ._strict import MAX_INT, bad, canonical_json, lone_surrogate, parse, read_int, short, wrong_type

MAX_REQUEST_ID: Final = 64
"""The longest `request_id` string an action document may carry, in characters."""

RequestId = str | int
"""A client's request id: a string of 1 to 64 characters, or an integer from 0 to 2**53 - 1."""


class Message(NamedTuple):
    """What an `action` document holds: the action, the `seq` its sender saw and its `request_id`."""

    action: Action
    seq: int | None
    request_id: RequestId | None


def writable(action: Action) -> None:
    """Refuse (`malformed_action`) an action whose field is beyond what a document may hold
    (`-MAX_INT` to `MAX_INT`, the integers every JSON reader keeps exactly), so that what is
    written can always be read back."""
    for name in ("player",) if type(action) is Draw else ("player", "row", "col"):
        value = getattr(action, name)
        if not -MAX_INT <= value <= MAX_INT:
            raise MalformedActionError(f"{type(action).__name__}.{name} is beyond what a document holds "
                                       f"(integers from {-MAX_INT} to {MAX_INT})")


def read_seq(value: Any, path: str) -> int | None:
    """The `seq` a sender saw: `null` reads as absent (generated clients write optional fields as null)."""
    return None if value is None else read_int(value, path, 0)


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


def read_request_id(value: Any, path: str) -> RequestId | None:
    """The `request_id` of a message: `null` reads as absent."""
    return None if value is None else check_request_id(value, path)


# -- the layouts -----------------------------------------------------------------------------


def _cases(on: str, extra: tuple[Field, ...], document: str,
           check: Any, build: Any) -> tuple[tuple[type, Layout], ...]:
    """A layout per action class: its `type`, then its fields (of the action `on` gives), then `extra`."""
    cases = []
    for cls in ACTION_TYPES:
        names = ("player",) if cls is Draw else ("player", "row", "col")
        fields = (Field("type", Const(cls.KIND)), *(Field(name, INT, read_int, get=f"{on}.{name}")
                                                   for name in names), *extra)
        cases.append((cls, Layout(f"{cls.KIND} action{' document' if document else ''}", fields, build(cls),
                                  document=document, check=check)))
    return tuple(cases)


ACTION: Final = Choice("action", "type", _cases(
    "{o}", (), "", writable, lambda cls: lambda path, **fields: cls(**fields)))
"""An action object (`{"type": "flip", "player": 0, "row": 1, "col": 2}`), by the action's class."""

ACTION_DOCUMENT: Final = Choice("action document", "type", _cases(
    "{o}.action",
    (Field("seq", INT, read_seq, optional=True), Field("request_id", STR, read_request_id, optional=True)),
    "action",
    lambda message: writable(message.action),
    lambda cls: lambda path, seq, request_id, **fields: Message(cls(**fields), seq, request_id),
), select=lambda message: type(message.action), document="action")
"""The `action` document of a `Message`: the header, the action object, the optional `seq` and
`request_id`."""


def action_body(action: Action) -> dict[str, Any]:
    """An action object as JSON-ready data (refused, `malformed_action`, if it cannot be written)."""
    return ACTION.data(action)  # type: ignore[no-any-return]


def action_text(action: Action) -> str:
    """The canonical text of an action object (cached: a game has few distinct actions)."""
    found = _ACTION_TEXTS.get(action)
    if found is None:
        try:
            text = ACTION.text(action)
        except OffTable:  # (no action holds anything but ints: its class checks them)
            text = canonical_json(ACTION.data(action))
        found = _ACTION_TEXTS.put(action, text)
    return found


_ACTION_TEXTS: Final = BoundedCache[Action, str]("codec.action_texts", max_entries=4096, max_size=4096)
ACTIONS: Final = Items(action_text, action_body, lambda action: type(action) in ACTION_TYPES)
"""The spelling of an array of action objects (a view's legal actions)."""


def read_action(value: Any, path: str) -> Action:
    """An action object (`type`, `player`, `row`, `col`) at `path`."""
    return ACTION.read(value, path)  # type: ignore[no-any-return]


# -- the public functions --------------------------------------------------------------------


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
    check_action(action)
    if seq is not None and (type(seq) is not int or not 0 <= seq <= MAX_INT):
        raise ArgumentError(f"seq must be an int from 0 to {MAX_INT}, got {short(seq)}")
    if request_id is not None:
        check_request_id(request_id)
    return cast(ActionDocument, ACTION_DOCUMENT.data(Message(action, seq, request_id)))


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


def action_message(doc: Any) -> Message:
    """The action of a parsed `action` document, its `seq` and its `request_id` (`None` if absent).

    A `null` `seq` or `request_id` reads as absent (generated clients write optional fields as null).
    """
    return ACTION_DOCUMENT.read(doc, "")  # type: ignore[no-any-return]


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
