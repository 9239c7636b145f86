"""The names of abyss-rules the server uses, each imported from the module that defines it.

The server's modules read them as `ar.NAME`, as a user's program would; a module of the package
may not import the package's facade (`abyss_rules/__init__.py`), so this one gathers them.
"""

from __future__ import annotations

from ..actions import Action
from ..bots import BOTS, make_bot
from ..codec import (
    DecodeError,
    action_to_dict,
    canonical_json,
    dumps_state,
    events_to_dict,
    loads_state,
    parse_json,
    variant_from_dict,
    variant_to_dict,
    view_from_dict,
    view_to_dict,
)
from ..codec._action import check_request_id
from ..config import Variant
from ..errors import AbyssError, Code, SeedError
from ..events import Event, apply_with_events
from ..notation import parse_notation, to_notation
from ..pictures._svg import to_svg
from ..protocol import Accepted, Message, Verdict, http_status, read_message, submit
from ..records import Record
from ..rules._engine import apply
from ..state import State
from ..views import View, view

__all__ = [
    "BOTS", "AbyssError", "Accepted", "Action", "Code", "DecodeError", "Event", "Message", "Record",
    "SeedError", "State", "Variant", "Verdict", "View", "action_to_dict", "apply", "apply_with_events",
    "canonical_json", "check_request_id", "dumps_state", "events_to_dict", "http_status", "loads_state",
    "make_bot", "parse_json", "parse_notation", "read_message", "submit", "to_notation", "to_svg",
    "variant_from_dict", "variant_to_dict", "view", "view_from_dict", "view_to_dict",
]
