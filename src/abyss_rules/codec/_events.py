"""`events` documents: the events an action caused, with the action and the `seq` they lead to.

Each event class has a layout of its own, made from its fields (its `type`, then each field
spelled by its annotation), and `EVENT` is the choice of them by `type`; the document is the
layout `EVENTS`.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple, cast

import attrs

from .._event_types import EVENT_TYPES, Event
from ..actions import Action
from ..documents import EventsDocument
from ..errors import ArgumentError
from ._action import ACTION, check_action, read_action
from ._layout import Choice, Field, Layout
from ._spelling import BOOL, INT, INT_LISTS, INTS, OPT_INT, STR, Const, Spelling
from ._strict import MAX_INT, canonical_json, read_int, read_list, short

_SPELLING_OF: Final[dict[str, Spelling]] = {
    "int": INT,
    "int | None": OPT_INT,
    "bool": BOOL,
    "str": STR,
    "tuple[int, ...]": INTS,
    "tuple[tuple[int, int, int, int], ...]": INT_LISTS,
}
"""The spelling of an event's field, by its annotation (a new kind of field needs one here)."""


def _event_layout(cls: type[Event]) -> Layout:
    """The layout of an event class: `{"type": TYPE, <fields in order>}`."""
    fields = [Field("type", Const(cls.TYPE))]
    for field in attrs.fields(cls):
        fields.append(Field(field.name, _SPELLING_OF[str(field.type)]))
    return Layout(f"{cls.TYPE} event", tuple(fields))


EVENT: Final = Choice("event", "type", tuple((cls, _event_layout(cls)) for cls in EVENT_TYPES))
"""An event object (`{"type": "card_drawn", "seat": 1, "value": 11}`), by the event's class."""


class Events(NamedTuple):
    """What an `events` document holds."""

    action: Action
    events: tuple[Event, ...]
    seq: int


EVENTS: Final = Layout("events", (
    Field("action", ACTION.spelled(), read_action),
    Field("seq", INT, read_int, (), (0,)),
    Field("events", EVENT.items(), read_list),
), lambda path, **fields: fields, document="events", written=("action", "events", "seq"))
"""The `events` document of `Events`: the action, what it caused, the `seq` it leads to.

Read (`events_fields`) as far as a document's fields go: the action is checked, the events are
left as the parsed objects, for the reader that applies them (`public_table.apply_events`)."""


def events_fields(doc: Any) -> dict[str, Any]:
    """The fields of a parsed `events` document: its header and field names checked, the `action`
    read, the `seq` an integer from 0, the `events` a list of objects as parsed."""
    return EVENTS.function("read")(doc, "")  # type: ignore[no-any-return]


def event_data(event: Event) -> dict[str, Any]:
    """An event as JSON-ready data: `{"type": TYPE, <fields>}` (tuples become lists)."""
    return EVENT.data(event)  # type: ignore[no-any-return]


def events_to_dict(events: tuple[Event, ...], *, action: Action, seq: int) -> EventsDocument:
    """The `events` document: what `action` caused, leading to the state numbered `seq`.

    Public information only (see `abyss_rules.events`): safe to send to every client.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=3)
        >>> after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
        >>> doc = events_to_dict(events, action=ar.Flip(0, 1, 2), seq=after.seq)
        >>> doc["format"], doc["seq"], doc["action"], doc["events"][0]["value"]
        ('events', 1, {'type': 'flip', 'player': 0, 'row': 1, 'col': 2}, 5)
    """
    if type(seq) is not int or not 0 <= seq <= MAX_INT:
        raise ArgumentError(f"seq must be an int from 0 to {MAX_INT}, got {short(seq)}")
    if not isinstance(events, (tuple, list)):
        raise ArgumentError(f"expected the events of one action (a tuple), got {type(events).__name__}")
    for event in events:
        if type(event) not in EVENT_TYPES:
            raise ArgumentError(f"expected events, got {type(event).__name__}")
    return cast(EventsDocument, EVENTS.function("data")(Events(check_action(action), tuple(events), seq)))


def dumps_events(events: tuple[Event, ...], *, action: Action, seq: int) -> str:
    """The canonical JSON text of the `events` document (see `events_to_dict`).

    Examples:
        >>> import abyss_rules as ar
        >>> after, events = ar.apply_with_events(ar.new_game(players=2, seed=3), ar.Flip(0, 1, 2))
        >>> dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq)[:64]
        '{"action":{"col":2,"player":0,"row":1,"type":"flip"},"events":[{'
    """
    return canonical_json(events_to_dict(events, action=action, seq=seq))
