"""The JSON Schemas under Ajv's strict mode (`Ajv2020({strict: true})` with ajv-formats).

`tools/ajv/check.mjs` compiles every schema of `spec/schemas/` and
`spec/conformance/case.schema.json` in strict mode, validates the conformance case files, and
then the documents it is given: here every kind of document the engine writes, from whole games
of four variants. Strict mode refuses what more lenient validators let pass, such as a keyword
without the type it applies to (`minItems` beside a `$ref`) or a `required` property that its
schema does not declare.

The Node packages come from `tools/ajv/package-lock.json` (`npm ci --prefix tools/ajv`, which
`.ci/run` runs). Without Node or those packages the tests are skipped with a message that says
so, and under `CI=true` that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.builders import every_document

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "tools" / "ajv" / "check.mjs"
NODE = shutil.which("node")

if NODE is None or not (ROOT / "tools" / "ajv" / "node_modules" / "ajv").is_dir():
    if os.environ.get("CI") == "true":
        raise RuntimeError("Node or tools/ajv/node_modules is missing: run `npm ci --prefix tools/ajv`")
    pytest.skip("SKIPPED LOUDLY: Node or Ajv is not installed (npm ci --prefix tools/ajv): the JSON "
                "Schemas are not checked under Ajv strict", allow_module_level=True)


def _check(tmp_path: Path, documents: list[Any]) -> subprocess.CompletedProcess[str]:
    lines = tmp_path / "documents.jsonl"
    lines.write_text("".join(json.dumps(doc) + "\n" for doc in documents), encoding="utf-8")
    assert NODE is not None
    return subprocess.run([NODE, str(CHECK), str(lines)], capture_output=True, text=True, timeout=120,
                          check=False)


def test_every_schema_compiles_and_every_document_validates(tmp_path: Path) -> None:
    documents = every_document()
    result = _check(tmp_path, [doc for docs in documents.values() for doc in docs])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 schemas compiled under Ajv strict" in result.stdout
    counts = dict(part.split(": ") for part in
                  result.stdout.splitlines()[-1].split("(", 1)[1].rstrip(")").split(", "))
    cases = len(list((ROOT / "spec" / "conformance" / "cases").glob("*.json")))
    assert counts == {"conformance case file": str(cases),
                      **{name: str(len(docs)) for name, docs in documents.items()}}


@pytest.mark.parametrize(("name", "change", "error"), [
    ("action", {"row": "1"}, "must be integer"),
    ("action", {"extra": 1}, "must NOT have additional properties"),
    ("action", {"format_version": 2}, "must be equal to constant"),
    ("action", {"rules_version": "x"}, 'must match pattern'),
    ("state", {"discard_pile": []}, "must NOT have fewer than 1 items"),
    ("view", {"players": True}, "must be integer"),
])
def test_a_wrong_document_is_refused(tmp_path: Path, name: str, change: dict[str, Any], error: str) -> None:
    doc = {**every_document()[name][0], **change}
    result = _check(tmp_path, [doc])
    assert result.returncode == 1
    assert "FAILED: 1 documents do not validate" in result.stderr
    assert error in result.stderr, result.stderr
