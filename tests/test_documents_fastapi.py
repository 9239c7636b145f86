"""The documents' types in a real FastAPI app: what it refuses, and the OpenAPI it publishes.

A FastAPI app whose endpoints take and return each document type (`abyss_rules.documents`) runs
as a real program (uvicorn) on a loopback port, and the tests talk to it over HTTP as a client
would:

* every kind of document the engine writes is accepted and comes back unchanged;
* what the library refuses, FastAPI refuses with a 422 whose error type is the library's code: a
  field too many, `"row": "1"` (no conversion), `"player": true`, `format_version: 2`,
  `rules_version: "x"`, a value out of bounds, an action whose fields do not fit its type;
* the schema of each document in the app's `/openapi.json` is the document's JSON Schema
  (`spec/schemas/`), and it accepts every document the engine writes.

FastAPI is in the `dev` extra. Without it these tests are skipped with a message that says so, and
under `CI=true` (where the `dev` extra is installed) that is a failure.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from tests.builders import every_document

import abyss_rules as ar
from abyss_rules._document_hooks import inline_definitions
from abyss_rules.json_schemas import schema

try:
    import fastapi  # noqa: F401
    import jsonschema
    import uvicorn  # noqa: F401
except ImportError:  # pragma: no cover - the dev extra installs them
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("SKIPPED LOUDLY: FastAPI or uvicorn is not installed (pip install -e '.[dev]'): the "
                "documents' types are not checked in a FastAPI app", allow_module_level=True)

TYPES = {"action": "ActionDocument", "state": "StateDocument", "view": "ViewDocument",
         "variant": "VariantDocument", "events": "EventsDocument", "record": "RecordDocument",
         "verdict": "VerdictDocument"}

APP = textwrap.dedent('''
    import sys

    import uvicorn
    from fastapi import FastAPI

    import abyss_rules as ar
    from abyss_rules import documents
    from abyss_rules.protocol import validate

    app = FastAPI(title="documents")
    STATE = ar.new_game(players=2, seed=2026)


    @app.post("/check")
    def check(action: documents.ActionDocument) -> documents.VerdictDocument:
        return validate(STATE, action).to_dict()


    @app.post("/space")
    def space(action: documents.SpaceActionDocument) -> documents.SpaceActionDocument:
        return action


    def echo(name):
        tp = getattr(documents, name)

        def endpoint(doc: tp) -> tp:
            return doc
        return endpoint


    for name in sys.argv[1:]:
        app.post(f"/echo/{name}")(echo(name))

    uvicorn.run(app, host="127.0.0.1", port=0, log_level="info")
''')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The app, running: its host and port."""
    script = tmp_path_factory.mktemp("app") / "app.py"
    script.write_text(APP, encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(script), *TYPES.values()], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:  # (uvicorn says where it listens once it does)
            lines.append(line)
            if found := re.search(r"running on http://([\d.]+):(\d+)", line):
                break
        else:
            raise AssertionError("the app did not start:\n" + "".join(lines))
        yield found[1], int(found[2])
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        if process.poll() is None:
            process.kill()
            process.wait()


def _request(server: tuple[str, int], method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection(*server, timeout=30)
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body),
                            headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def openapi(server: tuple[str, int]) -> dict[str, Any]:
    status, published = _request(server, "GET", "/openapi.json")
    assert status == 200
    return published  # type: ignore[no-any-return]


def _published(openapi: dict[str, Any], path: str, which: str) -> dict[str, Any]:
    """The schema of an endpoint's body (`which="request"`) or 200 response, `$ref` followed."""
    operation = openapi["paths"][path]["post"]
    holder = operation["requestBody"] if which == "request" else operation["responses"]["200"]
    found: dict[str, Any] = holder["content"]["application/json"]["schema"]
    if "$ref" in found:
        found = openapi["components"]["schemas"][found["$ref"].removeprefix("#/components/schemas/")]
    return found


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_the_openapi_schema_is_the_documents_json_schema(openapi: dict[str, Any], kind: str) -> None:
    expected = inline_definitions(schema(kind))
    for which in ("request", "response"):
        published = _published(openapi, f"/echo/{TYPES[kind]}", which)
        assert published == expected  # (FastAPI writes a bound 0 as 0.0: equal in JSON Schema)
        assert "$ref" not in json.dumps(published)
    assert _published(openapi, "/check", "request") == inline_definitions(schema("action"))
    assert _published(openapi, "/check", "response") == inline_definitions(schema("verdict"))


def test_the_space_actions_schema_is_its_branch_of_the_action_schema(openapi: dict[str, Any]) -> None:
    published = _published(openapi, "/space", "request")
    assert published["required"] == ["format", "format_version", "rules_version", "type", "player", "row",
                                     "col"]
    assert published["additionalProperties"] is False
    assert published["properties"]["type"] == {"enum": ["flip", "take_discard", "place_drawn",
                                                        "discard_drawn"]}


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_the_published_schema_accepts_every_document_and_refuses_a_wrong_one(
        openapi: dict[str, Any], kind: str) -> None:
    validator = jsonschema.Draft202012Validator(_published(openapi, f"/echo/{TYPES[kind]}", "request"))
    docs = every_document()[kind]
    for doc in docs[::max(1, len(docs) // 100)]:  # (a hundred of each kind, from start to end; every
        validator.validate(doc)                     # document against the schema files: test_codec)
    assert not validator.is_valid({**docs[0], "extra": 1})
    assert not validator.is_valid({**docs[0], "format_version": 2})


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_the_app_accepts_the_engines_documents_unchanged(server: tuple[str, int], kind: str) -> None:
    docs = every_document()[kind]
    for doc in (docs[0], docs[len(docs) // 2], docs[-1]):
        assert _request(server, "POST", f"/echo/{TYPES[kind]}", doc) == (200, doc)


FLIP = {"format": "action", "format_version": 1, "rules_version": ar.RULES_VERSION, "type": "flip",
        "player": 0, "row": 1, "col": 2}


@pytest.mark.parametrize(("change", "code", "path"), [
    ({"extra": 1}, "unknown_field", "/extra"),
    ({"row": "1"}, "wrong_type", "/row"),
    ({"player": True}, "wrong_type", "/player"),
    ({"format_version": 2}, "unsupported_version", "/format_version"),
    ({"rules_version": "x"}, "unsupported_version", "/rules_version"),
    ({"row": 2 ** 53}, "bad_value", "/row"),
    ({"type": "draw"}, "unknown_field", "/col"),  # (a draw names no space: the type decides the shape)
    ({"format": "actions"}, "wrong_format", "/format"),
])
def test_the_app_refuses_what_the_library_refuses(server: tuple[str, int], change: dict[str, Any], code: str,
                                                  path: str) -> None:
    with pytest.raises(ar.DecodeError) as refused:
        ar.codec.action_from_dict({**FLIP, **change})
    assert (refused.value.code, refused.value.path) == (code, path)
    status, answer = _request(server, "POST", "/check", {**FLIP, **change})
    assert status == 422, answer
    [error] = answer["detail"]
    assert (error["type"], error["ctx"]["path"]) == (code, path)
    assert error["msg"] == str(refused.value)


def test_the_app_answers_a_legal_action_with_the_librarys_verdict(server: tuple[str, int]) -> None:
    status, verdict = _request(server, "POST", "/check", FLIP)
    assert status == 200
    assert verdict["format"] == "verdict"
    assert verdict["legal"] is True


def test_a_draw_is_no_space_action(server: tuple[str, int]) -> None:
    draw = {key: value for key, value in FLIP.items() if key not in ("row", "col")} | {"type": "draw"}
    assert _request(server, "POST", "/check", draw)[0] == 200
    status, answer = _request(server, "POST", "/space", draw)
    assert status == 422
    assert answer["detail"][0]["type"] == "wrong_type"


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_every_document_type_refuses_a_field_too_many_and_another_version(
        server: tuple[str, int], kind: str) -> None:
    doc = every_document()[kind][0]
    for change, code in (({"extra": 1}, "unknown_field"), ({"format_version": 2}, "unsupported_version")):
        status, answer = _request(server, "POST", f"/echo/{TYPES[kind]}", {**doc, **change})
        assert status == 422, (kind, change)
        if kind in ("events", "verdict") and code == "unknown_field":
            code = "extra_forbidden"  # (the TypedDict's own check: the library never reads these)
        assert answer["detail"][0]["type"] == code, answer
