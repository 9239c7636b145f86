"""`events` documents: the events an action caused, with the action and the `seq` they lead to."""

from __future__ import annotations

from typing import cast

from .._event_types import EVENT_TYPES, Event
from .._versions import header
from ..actions import Action
from ..documents import EventsDocument
from ..errors import ArgumentError
from ._action import action_body, check_action
from ._strict import MAX_INT, canonical_json, short


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
    items = []
    for event in events:
        if type(event) not in EVENT_TYPES:
            raise ArgumentError(f"expected events, got {type(event).__name__}")
        items.append(event.to_dict())
    body = {**header("events"), "action": action_body(check_action(action)), "events": items, "seq": seq}
    return cast(EventsDocument, body)


def dumps_events(events: tuple[Event, ...], *, action: Action, seq: int) -> str:
    """The canonical JSON text of the `events` document (see `events_to_dict`).

    Examples:
        >>> import abyss_rules as ar
        >>> after, events = ar.apply_with_events(ar.new_game(players=2, seed=3), ar.Flip(0, 1, 2))
        >>> dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq)[:64]
        '{"action":{"col":2,"player":0,"row":1,"type":"flip"},"events":[{'
    """
    return canonical_json(events_to_dict(events, action=action, seq=seq))
