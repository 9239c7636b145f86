"""The documents' types as Pydantic (and so FastAPI) sees them: how a body is checked, and the
JSON Schema its OpenAPI publishes.

Pydantic asks a type for `__get_pydantic_core_schema__`: how to validate a value, and the
function that gives its JSON Schema. `abyss_rules.documents` gives every document type the hook of
a `Hooks`, which imports Pydantic's core and the library's readers only when Pydantic calls it: the
library never imports Pydantic itself.

* **Validation is the library's own reader** of that kind of document (`action_from_dict`,
  `state_from_dict`, `view_from_dict`, `variant_from_dict`, `Record.from_dict`): FastAPI refuses
  exactly what the library refuses (an unknown field, a string for an integer, `true` for a seat, a
  format or rules version it does not read, a value out of bounds, an action whose fields do not
  fit its `type`), and a refusal's error type is the library's stable code. The library writes
  `events` and `verdict` documents and never reads them: those are checked by their `TypedDict`,
  strictly (no key too many, no conversion), and by the header every reader checks.
* **The JSON Schema is the document's schema file** (`spec/schemas/`, `abyss_rules.json_schemas`),
  with its `$defs` written in place (an OpenAPI document has one `components` section, where the
  file's own references would point nowhere), without `$schema` and `$id`.

The document's value is returned unchanged: the hooks check, they do not convert.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Hooks", "inline_definitions"]

_READ = frozenset({"action", "state", "view", "variant", "record"})
"""The kinds of document that the library reads (`_reader`)."""


def _reader(kind: str) -> Any:
    """The library's reader of a `kind` document (imported on use: the readers import this module's
    importer, `abyss_rules.documents`)."""
    from . import codec
    from .records import Record

    return {"action": codec.action_from_dict, "state": codec.state_from_dict, "view": codec.view_from_dict,
            "variant": codec.variant_from_dict, "record": Record.from_dict}[kind]


class Hooks:
    """The two Pydantic hooks of one document type.

    Args:
        kind: The document's `format` (the name of its schema in `spec/schemas/`).
        name: The type's name: the name of its schema in an OpenAPI document's `components`.
        action_type: For the two action documents of one shape: whether the action names a space
            (`True`: `SpaceActionDocument`) or is a `draw` (`False`); `None` for every other type.
    """

    def __init__(self, kind: str, name: str, action_type: bool | None = None) -> None:
        self.kind = kind
        self.name = name
        self.action_type = action_type

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        core_schema = _pydantic_core("core_schema")

        # (the JSON Schema goes with the validation, under the type's name: a schema of the OpenAPI
        # document's components that every endpoint using the type refers to)
        ref = f"{self.name}:abyss-rules"
        metadata: dict[str, Any] = {"pydantic_js_functions": [self._json_schema]}
        if self.kind in _READ:
            return core_schema.no_info_plain_validator_function(self._read, ref=ref, metadata=metadata)
        # events and verdict: the TypedDict's own schema (strict, no extra key: documents.py's
        # configuration of every TypedDict), then the header.
        return core_schema.no_info_after_validator_function(self._header, handler(source), ref=ref,
                                                            metadata=metadata)

    def _json_schema(self, schema: Any, handler: Any) -> dict[str, Any]:
        from .json_schemas import schema as schema_file

        published = inline_definitions(schema_file(self.kind))
        if self.action_type is not None:  # (the one branch of the action schema's oneOf)
            branch = next(b for b in published.pop("oneOf") if ("row" in b["required"]) is self.action_type)
            published = {**{k: v for k, v in published.items() if k not in ("properties", "type")},
                         "type": "object", **branch}
        return published

    def _read(self, value: Any) -> Any:
        from .errors import AbyssError

        try:
            read = _reader(self.kind)(value)
        except AbyssError as error:
            raise _refusal(error) from None
        if self.action_type is not None and hasattr(read, "row") is not self.action_type:
            raise _pydantic_core().PydanticCustomError("wrong_type", "{message}", {
                "message": f"a {value['type']!r} action is not a {self.name}", "path": "/type", "rule": None})
        return value

    def _header(self, value: Any) -> Any:
        from .codec._strict import check_header
        from .errors import DecodeError

        try:
            check_header(value, self.kind)
        except DecodeError as error:
            raise _refusal(error) from None
        return value


def _pydantic_core(module: str = "") -> Any:
    """Pydantic's core (or its `module`), imported when Pydantic calls a hook (by name: the library,
    and the type check of its compiled parts, know nothing of Pydantic)."""
    import importlib

    return importlib.import_module(f"pydantic_core.{module}" if module else "pydantic_core")


def _refusal(error: Any) -> Any:
    """Pydantic's error for the library's: its type is the error's stable code, its message the
    library's; its context has the JSON pointer of the bad field and the rule id (or `None`)."""
    context = {"message": str(error), "path": getattr(error, "path", ""), "rule": error.rule}
    return _pydantic_core().PydanticCustomError(str(error.code), "{message}", context)


def inline_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every reference to its own `$defs` replaced by the definition, and without
    `$defs`, `$schema` and `$id` (a new object; the definitions must not refer to themselves).

    A reference beside other keywords is merged with them when they share no keyword (each keyword
    is checked on its own: the same meaning), and kept apart in an `allOf` otherwise.

    Examples:
        >>> inline_definitions({"$id": "x", "properties": {"a": {"$ref": "#/$defs/n", "maximum": 3}},
        ...                     "$defs": {"n": {"type": "integer", "minimum": 0}}})
        {'properties': {'a': {'type': 'integer', 'minimum': 0, 'maximum': 3}}}
    """
    definitions = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: walk(value) for key, value in node.items()}
        reference = node.pop("$ref", None)
        if reference is None:
            return node
        target = walk(definitions[reference.removeprefix("#/$defs/")])
        if node.keys() & target.keys():
            return {**node, "allOf": [target]}
        return {**target, **node}

    return {key: walk(value) for key, value in schema.items() if key not in ("$defs", "$schema", "$id")}
