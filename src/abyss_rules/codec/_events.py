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
from ._action import ACTION, check_action
from ._layout import Choice, Field, Layout
from ._spelling import BOOL, INT, INT_LISTS, INTS, OPT_INT, STR, Const, Spelling
from ._strict import canonical_json

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
    Field("action", ACTION.spelled()),
    Field("events", EVENT.items()),
    Field("seq", INT),
), document="events")
"""The `events` document of `Events`: the action, what it caused, the `seq` it leads to (written only)."""


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
    if type(seq) is not int or seq < 0:
        raise TypeError(f"seq must be an int >= 0, got {seq!r}")
    for event in events:
        if type(event) not in EVENT_TYPES:
            raise TypeError(f"expected events, got {type(event).__name__}")
    return cast(EventsDocument, EVENTS.function("data")(Events(check_action(action), events, seq)))


def dumps_events(events: tuple[Event, ...], *, action: Action, seq: int) -> str:
    """The canonical JSON text of the `events` document (see `events_to_dict`).

    Examples:
        >>> import abyss_rules as ar
        >>> after, events = ar.apply_with_events(ar.new_game(players=2, seed=3), ar.Flip(0, 1, 2))
        >>> dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq)[:64]
        '{"action":{"col":2,"player":0,"row":1,"type":"flip"},"events":[{'
    """
    return canonical_json(events_to_dict(events, action=action, seq=seq))
