"""Traceability, enforced: every rule is tested, every cited id exists (``tools/traceability.py``).

Fails when (a) a rule of ``spec/rules.md`` has neither a test nor a
conformance case, (b) a test or a conformance case cites an id that is not a
rule, (c) an error code of the engine cites an id that is not a rule. Also
checks that the spec's "Error codes" table is exactly ``errors.Code`` and
``RULE_OF_CODE``, and tests the tool itself on small made-up inputs.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from abyss_rules.errors import RULE_OF_CODE, Code

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "traceability.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("abyss_traceability", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["abyss_traceability"] = module
    spec.loader.exec_module(module)
    return module


tr = _load()
COVERAGE = tr.collect(ROOT)
SPEC = (ROOT / "spec" / "rules.md").read_text(encoding="utf-8")


# -- the repository ------------------------------------------------------------


def test_no_traceability_problems() -> None:
    assert tr.problems(COVERAGE) == []


def test_the_spec_has_its_rules() -> None:
    ids = [rule.id for rule in COVERAGE.rules]
    assert len(ids) >= 50
    assert ids[0] == "1.1" and "3.10" in ids and "10.3" in ids
    for rule in COVERAGE.rules:
        assert f"### {rule.id} " in SPEC and f"{{#rule-{rule.id}}}" in SPEC


def test_every_checkable_rule_has_a_conformance_case() -> None:
    missing = [r.id for r in COVERAGE.rules if r.checkable and not r.retired and not COVERAGE.cases_of(r.id)]
    assert missing == []


def test_only_the_conformance_runner_marks_rules_dynamically() -> None:
    # Its marks come from the case files, whose ids the checks above read directly.
    assert COVERAGE.dynamic_marks
    assert all(mark.startswith("tests/test_conformance.py:") for mark in COVERAGE.dynamic_marks)


def _spec_error_table() -> dict[str, str | None]:
    section = SPEC[SPEC.index("## Error codes {#error-codes}"):]
    section = section[:section.index("\n## ", 1)]
    rows = re.findall(r"^\| `([a-z_]+)` \| .* \| (none|\d+\.\d+) \|$", section, re.M)
    assert rows, "no rows found in the Error codes table"
    table = {code: (None if rule == "none" else rule) for code, rule in rows}
    assert len(table) == len(rows), "a code is listed twice"
    return table


def test_spec_error_codes_are_the_engines() -> None:
    # Every code of the spec's table is an engine code citing the same rule. (The library has
    # further codes for its other services -- documents, servers, bots -- that are not game rules.)
    table = _spec_error_table()
    assert len(table) >= 18
    for code, rule in table.items():
        assert code in {str(c) for c in Code}, f"{code} is in the spec but not in errors.Code"
        assert RULE_OF_CODE[code] == rule, f"{code}: the spec cites {rule}, the engine {RULE_OF_CODE[code]}"


def test_spec_error_codes_cover_every_code_the_rules_report() -> None:
    table = _spec_error_table()
    reported = set()
    for path in (ROOT / "spec" / "conformance" / "cases").glob("*.json"):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            reported.add(case.get("setup_error"))
            reported.update(step.get("error") for step in case.get("steps", []))
    reported.discard(None)
    assert reported <= set(table)
    rules_codes = {"game_over", "no_such_player", "not_your_turn", "wrong_phase", "no_such_space",
                   "space_swallowed", "space_face_up", "no_card_to_draw", "flip_turn_disabled",
                   "no_flips_owed", "discard_empty", "illegal_action", "counter_limit", "malformed_action",
                   "invalid_state", "impossible_state",
                   "invalid_variant", "invalid_players", "invalid_deck_order", "invalid_seed",
                   "no_such_action_index"}
    assert set(table) == rules_codes


def test_error_codes_cite_rules() -> None:
    assert COVERAGE.rule_of_code == {str(code): rule for code, rule in RULE_OF_CODE.items()}


def test_markdown_table_links_every_rule_to_its_anchor() -> None:
    table = tr.markdown_table(COVERAGE)
    for rule in COVERAGE.rules:
        assert f"| [{rule.id}](rules.md#rule-{rule.id}) | " in table
    assert table.count("\n| [") == len(COVERAGE.rules)
    assert "0 by neither" in table


def test_command_line() -> None:
    result = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True,
                            check=False, cwd=ROOT)
    assert result.returncode == 0, result.stdout
    assert "problem:" not in result.stdout
    markdown = subprocess.run([sys.executable, str(TOOL), "--markdown"], capture_output=True, text=True,
                              check=True, cwd=ROOT)
    assert "| [3.4](rules.md#rule-3.4) | Drawing |" in markdown.stdout


# -- the tool on made-up inputs ------------------------------------------------

SMALL_SPEC = """\
# Spec

## 1 One {#section-1}

### 1.1 First {#rule-1.1}

Text.

### 1.2 Second {#rule-1.2}

*Not machine-checkable.*

### 1.3 Old (retired) {#rule-1.3}

Retired in 2.0.0.

## 2 Two {#section-2}

### 2.1 Third {#rule-2.1}
"""

SMALL_TESTS = '''\
import pytest
from pytest import mark

pytestmark = [pytest.mark.rule("2.1"), pytest.mark.slow]

@pytest.mark.rule("1.1", "2.1")
def test_a():
    pass

@mark.rule("9.9")
def test_typo():
    pass

def test_unmarked():
    pass

@pytest.mark.rule("1.1")
class TestGroup:
    pytestmark = pytest.mark.rule("2.1")

    @pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.rule("1.3"))])
    def test_b(self, x):
        pass

RULES = ("1.1",)

@pytest.mark.rule(*RULES)
def test_dynamic():
    pass
'''


def test_parse_rules() -> None:
    rules = tr.parse_rules(SMALL_SPEC)
    assert [(r.id, r.title, r.retired, r.checkable) for r in rules] == [
        ("1.1", "First", False, True),
        ("1.2", "Second", False, False),
        ("1.3", "Old", True, True),
        ("2.1", "Third", False, True),
    ]
    assert rules[0].anchor == "rule-1.1"


@pytest.mark.parametrize("bad", [
    "### 1.1 First {#rule-1.2}\n",
    "### 1.1 First\n",
    "### 1.1 First {#rule-1.1}\n### 1.1 Again {#rule-1.1}\n",
])
def test_parse_rules_refuses_malformed_headings(bad: str) -> None:
    with pytest.raises(ValueError):
        tr.parse_rules(bad)


def test_scan_test_file_reads_every_kind_of_marker() -> None:
    dynamic: list[str] = []
    found = tr.scan_test_file(SMALL_TESTS, "tests/test_small.py", dynamic)
    assert [(c.name, c.rules) for c in found] == [
        ("tests/test_small.py", ("2.1",)),
        ("tests/test_small.py::test_a", ("1.1", "2.1")),
        ("tests/test_small.py::test_typo", ("9.9",)),
        ("tests/test_small.py::TestGroup", ("1.1", "2.1")),
        ("tests/test_small.py::TestGroup::test_b", ("1.3",)),
    ]
    assert dynamic == ["tests/test_small.py:27"]


def _small_repo(tmp_path: Path, cases: list[dict[str, object]]) -> Path:
    (tmp_path / "spec" / "conformance" / "cases").mkdir(parents=True)
    (tmp_path / "spec" / "rules.md").write_text(SMALL_SPEC, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_small.py").write_text(SMALL_TESTS, encoding="utf-8")
    (tmp_path / "spec" / "conformance" / "cases" / "01-x.json").write_text(
        json.dumps({"section": 1, "title": "x", "cases": cases}), encoding="utf-8")
    return tmp_path


def test_problems_finds_each_kind(tmp_path: Path) -> None:
    root = _small_repo(tmp_path, [{"id": "1.1-a", "rules": ["1.1", "4.4"]}, {"id": "1.1-b", "rules": []}])
    cov = tr.collect(root, rule_of_code={"fine": "1.1", "unruled": None, "broken": "7.7"})
    assert tr.problems(cov) == [
        "test tests/test_small.py::test_typo cites rule '9.9', which is not in spec/rules.md",
        "test tests/test_small.py::TestGroup::test_b cites the retired rule 1.3",
        "conformance case 1.1-a cites rule '4.4', which is not in spec/rules.md",
        "conformance case 1.1-b cites no rule",
        "error code broken cites rule '7.7', which is not in spec/rules.md",
    ]


def test_a_rule_without_tests_or_cases_is_a_problem(tmp_path: Path) -> None:
    root = _small_repo(tmp_path, [{"id": "1.1-a", "rules": ["1.1"]}])
    (root / "tests" / "test_small.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    cov = tr.collect(root, rule_of_code={})
    # 1.2 is not machine-checkable and 1.3 retired: only 2.1 is missing.
    assert tr.problems(cov) == ["rule 2.1 (Third) has neither a test nor a conformance case"]
    table = tr.markdown_table(cov)
    assert table.startswith("3 rules: 0 cited by tests, 1 by conformance cases, 1 by neither (2.1).")
    assert "| [1.2](rules.md#rule-1.2) | Second (not machine-checkable) | &mdash; | &mdash; |" in table
    result = subprocess.run([sys.executable, str(TOOL), "--check", "--root", str(root)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 1
    assert "problem: rule 2.1 (Third) has neither a test nor a conformance case" in result.stdout
