"""The language-neutral conformance suite (``spec/conformance/``) run against this engine.

* every case file validates against ``spec/conformance/case.schema.json``;
* every case runs in-process through the engine's protocol adapter and is
  compared by the harness's own comparison (one test per case, named by the
  case id and marked with the rule ids the case cites);
* the standalone harness runs the adapter as a real subprocess over the
  protocol, and catches an implementation that answers wrongly.
"""

from __future__ import annotations

import copy
import doctest
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "spec" / "conformance"
HARNESS_PATH = CONFORMANCE / "harness.py"
ADAPTER_PATH = CONFORMANCE / "abyss_rules_adapter.py"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


harness = _load("abyss_conformance_harness", HARNESS_PATH)
adapter = _load("abyss_conformance_adapter", ADAPTER_PATH)

CASE_FILES = sorted((CONFORMANCE / "cases").glob("*.json"))
CASES: list[dict[str, Any]] = harness.load_cases(CASE_FILES)
SCHEMA = json.loads((CONFORMANCE / "case.schema.json").read_text(encoding="utf-8"))
RULE_IDS = set(re.findall(r"^### (\d+\.\d+) .* \{#rule-\1\}$",
                          (ROOT / "spec" / "rules.md").read_text(encoding="utf-8"), re.M))


def test_there_are_case_files() -> None:
    assert len(CASE_FILES) >= 10
    assert len(CASES) >= 100


def test_meta_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_case_file_validates_against_the_meta_schema(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    # The file of section S holds the cases whose id starts with a rule of section S.
    section = data["section"]
    assert path.name.startswith(f"{section:02d}-")
    for case in data["cases"]:
        main_rule = case["id"].split("-", 1)[0]
        assert main_rule.split(".")[0] == str(section), case["id"]
        assert main_rule in case["rules"], f"{case['id']} does not cite its own rule {main_rule}"
        assert set(case["rules"]) <= RULE_IDS, f"{case['id']} cites unknown rules"


@pytest.mark.parametrize("bad", [
    {"id": "x"},
    {"id": "3.1-x", "description": "d", "rules": ["3.1"], "variant": {"preset": "standard"}, "players": 2,
     "setup": {"seed": 1}},  # neither steps nor setup_error
    {"id": "3.1-x", "description": "d", "rules": ["3.1"], "variant": {"preset": "huge"}, "players": 2,
     "setup": {"seed": 1}, "steps": [{"expect": {}}]},
    {"id": "3.1-x", "description": "d", "rules": ["3.1"], "variant": {"preset": "standard"}, "players": 2,
     "setup": {"seed": 1}, "steps": [{"expect": {"phase": "dealing"}}]},
    {"id": "3.1-x", "description": "d", "rules": ["3.1"], "variant": {"preset": "standard"}, "players": 2,
     "setup": {"seed": 1}, "steps": [{"action": {"kind": "draw", "player": 0}, "error": "x", "expect": {}}]},
    {"id": "3.1-x", "description": "d", "rules": ["three"], "variant": {"preset": "standard"}, "players": 2,
     "setup": {"seed": 1}, "steps": [{"expect": {"legal_actions": ["Draw(0, 1)"]}}]},
])
def test_meta_schema_rejects_bad_cases(bad: dict[str, Any]) -> None:
    data = {"section": 3, "title": "t", "cases": [bad]}
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(data)


@pytest.mark.parametrize(
    "case", [pytest.param(case, id=case["id"], marks=pytest.mark.rule(*case["rules"])) for case in CASES]
)
def test_conformance_case(case: dict[str, Any]) -> None:
    # The request as the adapter reads it over the protocol: numbers as the case file wrote them.
    response = adapter.run_case(json.loads(harness.encode(harness.request_for(case))))
    problems = harness.compare(case, response)
    assert not problems, "\n".join(problems)


def test_requests_carry_no_expected_values() -> None:
    for case in CASES:
        request = harness.request_for(case)
        assert set(request) == {"id", "variant", "players", "setup", "steps"}
        for sent, step in zip(request["steps"], case.get("steps", []), strict=True):
            assert set(sent) <= {"action", "observe"}
            assert sent["observe"] == list(step.get("expect", {}))


# -- the comparison --------------------------------------------------------------


def test_compare_tells_booleans_from_integers_and_checks_every_step() -> None:
    case = {"id": "c", "steps": [{"expect": {"game_over": False, "round": 1}},
                                 {"action": {}, "error": "game_over"}]}
    good = {"id": "c", "setup_error": None,
            "steps": [{"error": None, "facts": {"game_over": False, "round": 1}},
                      {"error": "game_over", "facts": {}}]}
    assert harness.compare(case, good) == []
    bad = copy.deepcopy(good)
    bad["steps"][0]["facts"] = {"game_over": 0, "round": True}
    bad["steps"][1]["error"] = None
    problems = harness.compare(case, bad)
    assert len(problems) == 3
    assert "expected rejected with game_over, got accepted" in problems[2]


def test_compare_grid_wildcards_match_only_face_down_cards() -> None:
    case = {"id": "c", "steps": [{"expect": {"grids": {"1": [["??", 3, None]]}}}]}

    def answer(row: list[Any]) -> dict[str, Any]:
        return {"id": "c", "setup_error": None,
                "steps": [{"error": None, "facts": {"grids": {"0": [[1, 1, 1]], "1": [row]}}}]}

    assert harness.compare(case, answer(["?7", 3, None])) == []
    assert harness.compare(case, answer([7, 3, None]))  # face up is not "??"
    assert harness.compare(case, answer(["?7", "?3", None]))  # face down is not 3
    assert harness.compare(case, answer(["?7", 3, 0]))  # swallowed is null


def test_compare_reports_missing_facts_setup_errors_and_fatal_answers() -> None:
    case = {"id": "c", "steps": [{"expect": {"phase": "turn"}}]}
    silent = {"id": "c", "setup_error": None, "steps": [{"error": None, "facts": {}}]}
    assert harness.compare(case, silent) == ["step 1 (no action): fact phase was not reported"]
    assert harness.compare(case, {"id": "c", "setup_error": "invalid_seed", "steps": []}) == [
        "setup: expected accepted, got invalid_seed"]
    assert harness.compare(case, {"id": "c", "fatal": "boom"})
    assert harness.compare({"id": "c", "setup_error": "invalid_seed"},
                           {"id": "c", "setup_error": "invalid_variant", "steps": []})


def test_adapter_doctests() -> None:
    assert doctest.testmod(adapter).failed == 0


# -- the standalone harness over the protocol ---------------------------------


def _run_harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HARNESS_PATH), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, check=False)


def test_harness_passes_the_engine_over_the_protocol() -> None:
    result = _run_harness("--", sys.executable, str(ADAPTER_PATH))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("implementation: abyss-rules ")
    assert lines[-1] == f"{len(CASES)} passed, 0 failed"


LIAR = """
import json, sys
sys.path.insert(0, {folder!r})
import abyss_rules_adapter as real
for line in sys.stdin:
    answer = real.handle(json.loads(line))
    for step in answer.get("steps", []):
        if "discard_pile" in step["facts"]:
            step["facts"]["discard_pile"].reverse()
    print(json.dumps(answer), flush=True)
"""


def test_harness_catches_a_wrong_implementation(tmp_path: Path) -> None:
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR.format(folder=str(CONFORMANCE)), encoding="utf-8")
    result = _run_harness("--", sys.executable, str(liar))
    assert result.returncode == 1
    assert "FAIL 4.2-order-after-take-discard" in result.stdout
    assert "discard_pile: expected [7, 7, 4], got [4, 7, 7]" in result.stdout
    summary = re.fullmatch(r"(\d+) passed, (\d+) failed", result.stdout.splitlines()[-1])
    assert summary is not None
    passed, failed = map(int, summary.groups())
    assert passed > 0 and failed > 0 and passed + failed == len(CASES)


def test_harness_exitfirst_stops_after_the_first_failing_case(tmp_path: Path) -> None:
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR.format(folder=str(CONFORMANCE)), encoding="utf-8")
    result = _run_harness("--exitfirst", "--", sys.executable, str(liar))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len([line for line in lines if line.startswith("FAIL ")]) == 1
    summary = re.fullmatch(r"(\d+) passed, 1 failed", lines[-1])
    assert summary is not None
    not_run = len(CASES) - int(summary.group(1)) - 1
    assert not_run > 0
    assert lines[-2] == f"STOP after the first failure (--exitfirst): {not_run} case(s) not run"


def test_harness_selects_cases_and_stops_on_a_dead_implementation() -> None:
    listed = _run_harness("--rule", "4.3", "--list")
    assert listed.returncode == 0
    assert {line.split()[0] for line in listed.stdout.splitlines()} == {
        case["id"] for case in CASES if "4.3" in case["rules"]}
    dead = _run_harness("-k", "3.1-", "--", sys.executable, "-c", "pass")
    assert dead.returncode == 1
    assert dead.stdout.splitlines()[-1] == "0 passed, 1 failed"
    assert "STOP" in dead.stdout
    usage = _run_harness()
    assert usage.returncode == 2


CRASHER = """
import json, os, sys, time
sys.path.insert(0, {folder!r})
import abyss_rules_adapter as real
for line in sys.stdin:
    message = json.loads(line)
    case_id = message.get("case", {{}}).get("id")
    if case_id == {crash!r}:
        os._exit(3)  # dies in the middle of the run, without answering
    if case_id == {hang!r}:
        time.sleep(600)  # never answers
    print(json.dumps(real.handle(message)), flush=True)
"""


def test_harness_restarts_a_crashed_implementation_and_fails_only_that_case(tmp_path: Path) -> None:
    chosen = [case["id"] for case in CASES if "6.5" in case["rules"]]
    assert len(chosen) >= 5
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER.format(folder=str(CONFORMANCE), crash=chosen[1], hang=chosen[3]),
                       encoding="utf-8")
    result = _run_harness("--rule", "6.5", "--timeout", "5", "--", sys.executable, str(crasher))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    failed = [line.split()[1] for line in lines if line.startswith("FAIL ")]
    assert failed == [chosen[1], chosen[3]]
    assert "the implementation exited (status 3)" in result.stdout
    assert "no answer within 5 s" in result.stdout
    assert "STOP" not in result.stdout
    assert lines[-1] == f"{len(chosen) - 2} passed, 2 failed"


def test_harness_sends_numbers_as_the_case_files_write_them() -> None:
    parsed = harness.parse('{"a": [3.0, 1e2, -0, 0, 9007199254740993, true, -1, 1.5E-3]}')
    assert harness.encode(parsed) == '{"a":[3.0,1e2,-0,0,9007199254740993,true,-1,1.5E-3]}'
    assert parsed["a"][3] == 0 and type(parsed["a"][3]) is int
    cases = {case["id"]: case for case in CASES}
    sent = harness.encode(harness.request_for(cases["10.3-invalid-target-exponent"]))
    assert '"target_score":1e2' in sent
    sent = harness.encode(harness.request_for(cases["3.9-numbers-in-actions"]))
    assert '"row":1.0' in sent and '"player":-0' in sent and "9007199254740993" in sent



# -- the generated cases (tools/conformance_cases.py) ---------------------------

generator = _load("abyss_conformance_cases", ROOT / "tools" / "conformance_cases.py")


@pytest.mark.parametrize("path_and_case", list(generator.cases()), ids=lambda pc: pc[1]["id"])
def test_generated_cases_are_in_their_files_as_generated(path_and_case: tuple[Path, dict[str, Any]]) -> None:
    path, case = path_and_case
    text = path.read_text(encoding="utf-8")
    assert generator.updated(text, case) == text, (
        f"{case['id']} in {path.name} differs from its generator: "
        "`python tools/conformance_cases.py --write`")
    assert {c["id"]: c for c in json.loads(text)["cases"]}[case["id"]] == case


def test_generator_renders_json_in_the_files_style_and_appends_a_new_case() -> None:
    value = {"id": "x", "deck": [[v, 2] for v in range(60)], "order": list(range(100)),
             "steps": [{"action": {"kind": "draw", "player": 0}, "expect": {}}] * 2, "none": None}
    text = generator.render(value, 4)
    assert json.loads(text) == value
    assert max(map(len, text.splitlines())) <= generator.WIDTH
    assert '{"action": {"kind": "draw", "player": 0}, "expect": {}}' in text  # a step that fits: one line
    assert generator.render([1, 2], 4) == "[1, 2]"
    file = '{\n  "section": 9,\n  "cases": [\n    {"id": "a"}\n  ]\n}\n'
    added = generator.updated(file, {"id": "b", "rules": []})
    assert [c["id"] for c in json.loads(added)["cases"]] == ["a", "b"]
    assert generator.updated(added, {"id": "b", "rules": ["9.1"]}).count('"id": "b"') == 1
    assert json.loads(generator.updated(added, {"id": "b", "rules": ["9.1"]}))["cases"][1]["rules"] == ["9.1"]
