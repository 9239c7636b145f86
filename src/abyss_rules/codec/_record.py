"""`record` documents: a whole game as data, its set-up and its actions in notation (rules 9.1-9.6).

The document's layout is the table `RECORD`. As for views, the codec reads and writes the
*fields* of a record: `record_data` reads the attributes of the record given to it, and
`record_fields` checks a parsed document and returns the fields a `Record` is made of
(`abyss_rules.records` pairs them with its class and replays the game).
"""

from __future__ import annotations

from typing import Any, Final

from ..actions import Action
from ..errors import Code, DecodeError
from ..notation import parse_notation, to_notation
from ._layout import Field, Layout
from ._spelling import INT, STR, Mapped, Spelling
from ._state import read_deck_orders, read_players, read_seed
from ._strict import HEX64, bad, read_list, read_str, wrong_type
from ._variant import VARIANT, read_variant

MAX_RECORD_ACTIONS: Final = 100_000
"""The most actions a record document may hold."""
MAX_NAME_LENGTH: Final = 64
"""The longest player name a record may hold (in characters)."""


def name_problem(name: object) -> str | None:
    """Why `name` cannot be a player's name in a record, or `None`: a non-empty string of at most
    `MAX_NAME_LENGTH` printable characters (no control characters, no line breaks)."""
    if type(name) is not str:
        return f"a player's name is a string, got {type(name).__name__}"
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        return f"a player's name has 1 to {MAX_NAME_LENGTH} characters, got {len(name)}"
    if not name.isprintable():
        return "a player's name has printable characters only (no control character or line break)"
    return None


# -- the fields' readers ---------------------------------------------------------------------


def _beside(path: str, key: str) -> str:
    """The path of the field `key` beside the one at `path`."""
    return f"{path[:path.rindex('/')]}/{key}"


def read_record_seed(value: Any, path: str) -> bytes | None:
    """The `seed`: 64 lowercase hex digits (rule 9.1), or null in a redacted record."""
    return None if value is None else read_seed(value, path)


def read_record_decks(
    value: Any, path: str, variant: Any, seed: bytes | None
) -> tuple[tuple[int, ...], ...] | None:
    """The `decks` (rule 9.6), null exactly when the seed is (a redacted record)."""
    decks = None if value is None else read_deck_orders(value, path, variant)
    if (seed is None) != (decks is None):
        raise DecodeError(Code.IMPOSSIBLE_STATE,
                          "seed and decks are both null (a redacted record) or both given",
                          path if seed is not None else _beside(path, "seed"))
    return decks


def read_notations(value: Any, path: str) -> tuple[Action, ...]:
    """The `actions`: at most `MAX_RECORD_ACTIONS`, each in notation."""
    items = read_list(value, path)
    if len(items) > MAX_RECORD_ACTIONS:
        raise DecodeError(Code.BAD_SHAPE, f"a record holds at most {MAX_RECORD_ACTIONS} actions", path)
    actions = []
    for n, item in enumerate(items):
        if type(item) is not str:
            raise wrong_type(item, "an action in notation (a string)", f"{path}/{n}")
        try:
            actions.append(parse_notation(item))
        except DecodeError as error:
            raise DecodeError(error.code, error.message, f"{path}/{n}") from None
    return tuple(actions)


def read_final_hash(value: Any, path: str, seed: bytes | None) -> str | None:
    """The optional `final_hash`: a SHA-256 in hex, only in a full record."""
    if value is None:
        return None
    if HEX64.fullmatch(read_str(value, path)) is None:
        raise bad("must be 64 lowercase hex digits (a SHA-256)", path)
    if seed is None:
        raise DecodeError(Code.IMPOSSIBLE_STATE, "a redacted record carries no final_hash", path)
    return value  # type: ignore[no-any-return]


def read_names(value: Any, path: str, players: int) -> tuple[str, ...]:
    """The optional `names`: one per seat (see `name_problem`)."""
    items = read_list(value, path)
    if len(items) != players:
        raise DecodeError(Code.BAD_SHAPE, f"names must hold one name per seat ({players}), got {len(items)}",
                          path)
    for n, name in enumerate(items):
        problem = name_problem(name)
        if problem is not None:
            code = Code.WRONG_TYPE if type(name) is not str else Code.BAD_VALUE
            raise DecodeError(code, problem, f"{path}/{n}")
    return tuple(items)


# -- the layout ------------------------------------------------------------------------------

RECORD: Final = Layout("record", (
    Field("variant", VARIANT, read_variant),
    Field("players", INT, read_players, ("variant",)),
    Field("seed", Spelling(None, data="None if {x} is None else {x}.hex()"), read_record_seed),
    Field("decks", Spelling(None, data="None if {x} is None else [list(order) for order in {x}]"),
          read_record_decks, ("variant", "seed")),
    Field("actions", Mapped(to_notation), read_notations),
    Field("final_hash", STR, read_final_hash, ("seed",)),
    Field("names", Spelling(None, data="list({x})"), read_names, ("players",), optional=True),
), lambda path, **fields: fields, document="record")
"""The layout of a `record` document, in reading order; the fields are those of a `Record`."""


def record_data(record: Any) -> dict[str, Any]:
    """The `record` document of the record object `record` as JSON-ready data."""
    return RECORD.function("data")(record)  # type: ignore[no-any-return]


def record_fields(doc: Any) -> dict[str, Any]:
    """The fields of a `Record` from a parsed `record` document, checked one by one."""
    return RECORD.function("read")(doc, "")  # type: ignore[no-any-return]
