"""The JSON Schemas of the library's documents (`spec/schemas/`, one per document kind).

`schema` returns one parsed schema (a JSON Schema 2020-12 object), by the document kind it
describes -- the value of the document's `format` field; `SCHEMAS` names them all. The files
are part of the specification (`spec/schemas/`); a wheel carries a copy inside the package,
so both work from an installed library as from a source checkout.

Examples:
    >>> from abyss_rules.json_schemas import SCHEMAS, schema
    >>> SCHEMAS
    ('action', 'events', 'record', 'state', 'variant', 'verdict', 'view')
    >>> schema("action")["properties"]["format"]["const"]
    'action'
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

from .errors import Code, DecodeError

__all__ = ["SCHEMAS", "schema"]

_SUFFIX: Final = ".schema.json"


def _folder() -> Traversable | None:
    """Where the schema files are: packaged with the library (a wheel), or the source tree's
    `spec/schemas/` (an editable install or a checkout); `None` if neither is there."""
    packaged = resources.files(__package__ or "abyss_rules") / "schemas"
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parent.parent.parent / "spec" / "schemas"
    return source if source.is_dir() else None


def _names() -> tuple[str, ...]:
    folder = _folder()
    if folder is None:
        return ()
    return tuple(sorted(entry.name.removesuffix(_SUFFIX) for entry in folder.iterdir()
                        if entry.name.endswith(_SUFFIX)))


SCHEMAS: Final[tuple[str, ...]] = _names()
"""The document kinds that have a JSON Schema, in alphabetical order (each a `format` value)."""


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the `name` document (a `format` value such as `"state"`), parsed.

    Each call returns a new object: change it freely.

    Args:
        name: One of `SCHEMAS`.

    Returns:
        The schema, a JSON Schema (draft 2020-12) as a dict.

    Raises:
        DecodeError: `name` is no document kind with a schema (code `wrong_format`).
        FileNotFoundError: This copy of the library was installed without its schemas.

    Examples:
        >>> from abyss_rules.json_schemas import schema
        >>> schema("view")["$schema"]
        'https://json-schema.org/draft/2020-12/schema'
        >>> schema("game")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [wrong_format] no document kind 'game' has a JSON Schema; the kinds \
are action, events, record, state, variant, verdict, view
    """
    folder = _folder()
    if folder is None or not SCHEMAS:
        raise FileNotFoundError("the JSON Schemas are not installed with this copy of abyss-rules "
                                "(they are spec/schemas/ in the source repository)")
    if not isinstance(name, str) or name not in SCHEMAS:
        raise DecodeError(Code.WRONG_FORMAT, f"no document kind {name!r} has a JSON Schema; the kinds are "
                                             f"{', '.join(SCHEMAS)}")
    parsed: dict[str, Any] = json.loads((folder / f"{name}{_SUFFIX}").read_text(encoding="utf-8"))
    return parsed
