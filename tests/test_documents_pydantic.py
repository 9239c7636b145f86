"""The documents' TypedDicts with Pydantic: what a FastAPI server declares its bodies with.

Pydantic accepts a `TypedDict` before Python 3.12 only from `typing_extensions`
(`abyss_rules.documents` takes it from there on 3.11). Each document the engine writes -- as
JSON text, parsed back as a client or server would -- must validate, strictly, against its
`TypedDict` in a `pydantic.TypeAdapter`, and come back unchanged; a document with a key
missing, a key too many or a value of the wrong type must not (`tests/test_documents_fastapi.py`
checks the same types in a FastAPI app).

Pydantic is in the `dev` extra. Without it these tests are skipped with a message that says
so, and under `CI=true` (where the `dev` extra is installed) that is a failure.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from tests.builders import DOCUMENT_VARIANTS, every_document

from abyss_rules import documents

try:
    import pydantic
except ImportError:  # pragma: no cover - the dev extra installs it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("SKIPPED LOUDLY: pydantic is not installed (pip install -e '.[dev]'): "
                "the documents' TypedDicts are not checked with Pydantic", allow_module_level=True)


VARIANTS = DOCUMENT_VARIANTS


DOCUMENTS = every_document()

TYPES = {
    "state": documents.StateDocument, "view": documents.ViewDocument, "action": documents.ActionDocument,
    "variant": documents.VariantDocument, "events": documents.EventsDocument,
    "record": documents.RecordDocument, "verdict": documents.VerdictDocument,
}


def _validate(tp: Any, doc: Any) -> Any:
    """`doc` validated strictly (no coercion, as `strict=True` in FastAPI) by a `TypeAdapter`."""
    return pydantic.TypeAdapter(tp).validate_python(doc, strict=True)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_a_type_adapter_validates_the_engines_documents(name: str) -> None:
    adapter = pydantic.TypeAdapter(TYPES[name])
    docs = DOCUMENTS[name]
    assert len(docs) >= len(VARIANTS)
    for doc in docs:  # (equal: no key was dropped as unknown to the TypedDict, no value converted)
        assert adapter.validate_python(doc, strict=True) == doc
    assert adapter.validate_json(json.dumps(docs[-1]), strict=True) == docs[-1]


def test_the_games_made_every_event() -> None:
    kinds = {event["type"] for doc in DOCUMENTS["events"] for event in doc["events"]}
    assert len(kinds) == 12, kinds


@pytest.mark.parametrize("name", sorted(TYPES))
def test_a_type_adapter_rejects_a_wrong_document(name: str) -> None:
    doc = DOCUMENTS[name][0]
    with pytest.raises(pydantic.ValidationError, match="format_version"):
        _validate(TYPES[name], {key: value for key, value in doc.items() if key != "format_version"})
    with pytest.raises(pydantic.ValidationError, match="format_version"):
        _validate(TYPES[name], {**doc, "format_version": "1"})
    with pytest.raises(pydantic.ValidationError, match="format"):
        _validate(TYPES[name], {**doc, "format": "game"})
    # A key the type does not declare is refused (Pydantic's default for a TypedDict is to drop it).
    with pytest.raises(pydantic.ValidationError, match="unknown"):
        _validate(TYPES[name], {**doc, "unknown": 1})
    # And no value is converted, even outside Pydantic's strict mode.
    with pytest.raises(pydantic.ValidationError, match="format_version"):
        pydantic.TypeAdapter(TYPES[name]).validate_python({**doc, "format_version": "1"})


def test_a_nested_wrong_value_is_rejected() -> None:
    doc = DOCUMENTS["view"][0]
    grid = [{**doc["grids"][0][0], "face_up": "yes"}, *doc["grids"][0][1:]]
    with pytest.raises(pydantic.ValidationError, match="face_up"):
        _validate(documents.ViewDocument, {**doc, "grids": [grid, *doc["grids"][1:]]})
