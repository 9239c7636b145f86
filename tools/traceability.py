#!/usr/bin/env python3
"""Traceability between the spec's rules, the tests and the conformance cases.

Reads, without importing or running any test:

* the rules of ``spec/rules.md`` (every heading ``### S.N Title {#rule-S.N}``);
* the ``@pytest.mark.rule("S.N", ...)`` markers of ``tests/**/*.py`` (on test
  functions, on classes, in ``pytest.param(..., marks=...)`` and in
  ``pytestmark``), found by parsing the files with :mod:`ast`;
* the ``"rules"`` list of every case in ``spec/conformance/cases/*.json``;
* the rule each error code cites (``abyss_rules.errors.RULE_OF_CODE``).

Usage::

    python tools/traceability.py            # a summary, and the problems if any
    python tools/traceability.py --check    # exit status 1 if there is a problem
    python tools/traceability.py --markdown # the coverage table (as on the docs site)

A *problem* is (a) a rule, neither retired nor marked ``*Not machine-checkable.*``,
that no test and no conformance case cites; (b) a test or case that cites an id
that is not a rule (or a retired one); (c) an error code whose rule is not a rule.
``tests/test_traceability.py`` fails on any problem; the docs site renders the
table through ``tools/mkdocs_hooks.py``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""

_HEADING = re.compile(r"^### (?P<id>\d+\.\d+) (?P<title>.+?) \{#rule-(?P<anchor>[^}]+)\}\s*$")
_RULE_ID = re.compile(r"^\d+\.\d+$")
NOT_CHECKABLE = "*Not machine-checkable.*"
"""The line that exempts a rule from needing a test or a case."""


@dataclass(frozen=True)
class Rule:
    """One rule of the spec."""

    id: str
    title: str
    retired: bool = False
    checkable: bool = True

    @property
    def anchor(self) -> str:
        """The rule's anchor on the rules page, e.g. ``rule-3.4``."""
        return f"rule-{self.id}"


@dataclass(frozen=True)
class Citation:
    """A place that cites rule ids: a test (``tests/x.py::test_y``) or a case id."""

    name: str
    rules: tuple[str, ...]


@dataclass
class Coverage:
    """Everything the checks and the table need."""

    rules: list[Rule]
    tests: list[Citation]
    cases: list[Citation]
    rule_of_code: dict[str, str | None]
    dynamic_marks: list[str] = field(default_factory=list)
    """Rule markers whose ids are not string literals (``file:line``): not checked statically."""

    def tests_of(self, rule_id: str) -> list[str]:
        """The tests that cite ``rule_id``."""
        return [t.name for t in self.tests if rule_id in t.rules]

    def cases_of(self, rule_id: str) -> list[str]:
        """The conformance cases that cite ``rule_id``."""
        return [c.name for c in self.cases if rule_id in c.rules]


# -- reading -------------------------------------------------------------------


def parse_rules(text: str) -> list[Rule]:
    """The rules of a spec text, in order; a heading that looks like a rule but is malformed raises."""
    rules: list[Rule] = []
    current: list[str] | None = None
    bodies: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            current = None
        if line.startswith("### "):
            match = _HEADING.match(line)
            if not match or match["anchor"] != match["id"]:
                raise ValueError(f"malformed rule heading: {line!r} (expected '### S.N Title {{#rule-S.N}}')")
            title = match["title"]
            retired = title.endswith("(retired)")
            rules.append(Rule(match["id"], title.removesuffix("(retired)").strip(), retired))
            current = []
            bodies.append(current)
        elif current is not None:
            current.append(line)
    seen: set[str] = set()
    out = []
    for rule, body in zip(rules, bodies, strict=True):
        if rule.id in seen:
            raise ValueError(f"rule {rule.id} appears twice")
        seen.add(rule.id)
        checkable = not any(line.strip() == NOT_CHECKABLE for line in body)
        out.append(Rule(rule.id, rule.title, rule.retired, checkable))
    return out


def _is_rule_mark(node: ast.AST) -> bool:
    """``pytest.mark.rule(...)`` or ``mark.rule(...)``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr != "rule":
        return False
    owner = node.func.value
    return (isinstance(owner, ast.Attribute) and owner.attr == "mark") or (
        isinstance(owner, ast.Name) and owner.id == "mark"
    )


def _marks_in(nodes: Iterable[ast.AST], where: str, dynamic: list[str]) -> tuple[str, ...]:
    """Every rule id in the rule marks found anywhere inside ``nodes``."""
    ids: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if not _is_rule_mark(sub):
                continue
            assert isinstance(sub, ast.Call)
            if sub.keywords or not all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                       for a in sub.args):
                dynamic.append(f"{where}:{sub.lineno}")
                continue
            ids.extend(a.value for a in sub.args if isinstance(a, ast.Constant))
    return tuple(dict.fromkeys(ids))


def _pytestmark(body: list[ast.stmt]) -> list[ast.AST]:
    values: list[ast.AST] = []
    for stmt in body:
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            values.append(value)
    return values


def _scan_body(body: list[ast.stmt], prefix: str, path: str, dynamic: list[str]) -> Iterator[Citation]:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ids = _marks_in(stmt.decorator_list, path, dynamic)
            if ids:
                yield Citation(f"{prefix}::{stmt.name}", ids)
        elif isinstance(stmt, ast.ClassDef):
            name = f"{prefix}::{stmt.name}"
            ids = _marks_in([*stmt.decorator_list, *_pytestmark(stmt.body)], path, dynamic)
            if ids:
                yield Citation(name, ids)
            yield from _scan_body(stmt.body, name, path, dynamic)


def scan_test_file(source: str, name: str, dynamic: list[str] | None = None) -> list[Citation]:
    """The citations of one test file; ``name`` is its path as shown (e.g. ``tests/test_x.py``)."""
    dynamic = [] if dynamic is None else dynamic
    tree = ast.parse(source, filename=name)
    found: list[Citation] = []
    module_ids = _marks_in(_pytestmark(tree.body), name, dynamic)
    if module_ids:
        found.append(Citation(name, module_ids))
    found.extend(_scan_body(tree.body, name, name, dynamic))
    return found


def scan_tests(folder: Path, root: Path = ROOT, dynamic: list[str] | None = None) -> list[Citation]:
    """The citations of every ``*.py`` file under ``folder``."""
    found: list[Citation] = []
    for path in sorted(folder.rglob("*.py")):
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
        found.extend(scan_test_file(path.read_text(encoding="utf-8"), name, dynamic))
    return found


def load_cases(folder: Path) -> list[Citation]:
    """The citations of every conformance case in ``folder/*.json``."""
    found: list[Citation] = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data.get("cases", []):
            found.append(Citation(str(case.get("id")), tuple(case.get("rules", []))))
    return found


def engine_rule_of_code() -> dict[str, str | None]:
    """``abyss_rules.errors.RULE_OF_CODE`` with plain string keys ({} if abyss_rules is not importable)."""
    try:
        from abyss_rules.errors import RULE_OF_CODE
    except ImportError:  # pragma: no cover - the tool also reads a checkout without the package
        return {}
    return {str(code): rule for code, rule in RULE_OF_CODE.items()}


def collect(root: Path = ROOT, rule_of_code: Mapping[str, str | None] | None = None) -> Coverage:
    """Read the spec, the tests and the cases of the repository at ``root``."""
    dynamic: list[str] = []
    rules = parse_rules((root / "spec" / "rules.md").read_text(encoding="utf-8"))
    tests = scan_tests(root / "tests", root, dynamic)
    cases = load_cases(root / "spec" / "conformance" / "cases")
    codes = dict(engine_rule_of_code() if rule_of_code is None else rule_of_code)
    return Coverage(rules, tests, cases, codes, dynamic)


# -- checking ------------------------------------------------------------------


def problems(cov: Coverage) -> list[str]:
    """Every traceability problem, one sentence each (empty: all is well)."""
    known = {r.id: r for r in cov.rules}
    out: list[str] = []
    for rule in cov.rules:
        if rule.retired or not rule.checkable:
            continue
        if not cov.tests_of(rule.id) and not cov.cases_of(rule.id):
            out.append(f"rule {rule.id} ({rule.title}) has neither a test nor a conformance case")
    for kind, citations in (("test", cov.tests), ("conformance case", cov.cases)):
        for citation in citations:
            if not citation.rules:
                out.append(f"{kind} {citation.name} cites no rule")
            for rule_id in citation.rules:
                if rule_id not in known:
                    out.append(f"{kind} {citation.name} cites rule {rule_id!r}, "
                               "which is not in spec/rules.md")
                elif known[rule_id].retired:
                    out.append(f"{kind} {citation.name} cites the retired rule {rule_id}")
    for code, rule_id in sorted(cov.rule_of_code.items()):
        if rule_id is not None and rule_id not in known:
            out.append(f"error code {code} cites rule {rule_id!r}, which is not in spec/rules.md")
    return out


# -- the table -----------------------------------------------------------------


def _short(name: str) -> str:
    return name.removeprefix("tests/")


def _cell(names: list[str], limit: int) -> str:
    if not names:
        return "&mdash;"
    shown = ", ".join(f"`{_short(n)}`" for n in names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"**{len(names)}**: {shown}{more}"


def markdown_table(cov: Coverage, rules_page: str = "rules.md", limit: int = 6) -> str:
    """The coverage table in Markdown: rule (linked to its anchor), title, tests, conformance cases."""
    active = [r for r in cov.rules if not r.retired]
    by_tests = sum(1 for r in active if cov.tests_of(r.id))
    by_cases = sum(1 for r in active if cov.cases_of(r.id))
    uncovered = [r.id for r in active if r.checkable and not cov.tests_of(r.id) and not cov.cases_of(r.id)]
    lines = [
        f"{len(active)} rules: {by_tests} cited by tests, {by_cases} by conformance cases, "
        f"{len(uncovered)} by neither{' (' + ', '.join(uncovered) + ')' if uncovered else ''}. "
        f"{len(cov.tests)} tests and {len(cov.cases)} conformance cases cite rules.",
        "",
        "| Rule | Title | Tests | Conformance cases |",
        "|---|---|---|---|",
    ]
    for rule in cov.rules:
        title = rule.title.replace("|", "\\|") + (" (retired)" if rule.retired else "")
        if not rule.checkable:
            title += " (not machine-checkable)"
        lines.append(f"| [{rule.id}]({rules_page}#{rule.anchor}) | {title} | "
                     f"{_cell(cov.tests_of(rule.id), limit)} | {_cell(cov.cases_of(rule.id), limit)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docs)."""
    parser = argparse.ArgumentParser(description="Rule traceability: spec rules, tests, conformance cases.")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if there is a problem")
    parser.add_argument("--markdown", action="store_true", help="print the coverage table in Markdown")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository root (default: this checkout)")
    args = parser.parse_args(argv)
    cov = collect(args.root)
    if args.markdown:
        print(markdown_table(cov), end="")
        return 0
    found = problems(cov)
    active = [r for r in cov.rules if not r.retired]
    print(f"{len(active)} rules, {len(cov.tests)} citing tests, {len(cov.cases)} conformance cases; "
          f"{sum(1 for r in active if cov.tests_of(r.id))} rules cited by tests, "
          f"{sum(1 for r in active if cov.cases_of(r.id))} by cases")
    for problem in found:
        print(f"problem: {problem}")
    if cov.dynamic_marks:
        print(f"rule marks not read statically: {', '.join(cov.dynamic_marks)}")
    return 1 if found and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
