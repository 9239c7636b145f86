"""Every code example of the documentation runs as part of the test suite.

The pages are ``docs/**/*.md`` and ``README.md``. For each page, one test item (its id is the
page's path) runs the page's examples in order, each block in a fresh namespace of its own (a
reader copies one block, not the page: every block has its own imports and set-up), with the
repository root as working directory:

* a ```` ```python ```` (or ```` ```py ````) block is executed as a script;
* a ```` ```pycon ```` block is run as a doctest (``>>>`` lines and their expected output);
* a ```` ```text title="Output" ```` block right after a python block is what that block must
  print (compared line by line, trailing spaces ignored).

A block preceded by the line ``<!-- not-run: <reason> -->`` (blank lines may stand between them)
is not run; the reason is required. Lines of the form ``--8<-- "path"`` (pymdownx.snippets) are
replaced by the file they include, as on the site, so an included file's examples run too.

A failing example fails its page's item with the page, the block number and the line of the page
where it failed. ``python tests/test_docs.py`` prints the inventory: pages, blocks run, blocks not
run and why.
"""

from __future__ import annotations

import contextlib
import dataclasses
import doctest
import importlib.util
import io
import os
import re
import sys
import textwrap
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# An opening fence: indentation, three or more backticks or tildes, then the info string.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
_NOT_RUN = re.compile(r"^\s*<!--\s*not-run\b(?P<rest>.*?)-->\s*$")
_OUTPUT_TITLE = re.compile(r'title="Output"')
_SNIPPET = re.compile(r'^(?P<indent>[ \t]*)--8<--[ \t]+"(?P<path>[^"]+)"[ \t]*$')

PYTHON = frozenset({"python", "py", "python3"})
PYCON = frozenset({"pycon"})


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    number: int
    """1-based number of the block among the page's runnable (python and pycon) blocks."""
    line: int
    """1-based line of the page where the block's code starts (after the fence)."""
    language: str
    code: str
    not_run: str | None = None
    """The reason given by ``<!-- not-run: ... -->``, or None if the block runs."""
    output: str | None = None
    """For a python block followed by a ```` ```text title="Output" ```` block: that block's text."""


@dataclass
class Page:
    """A documentation page and its runnable blocks."""

    path: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def run(self) -> list[Block]:
        return [b for b in self.blocks if b.not_run is None]

    @property
    def skipped(self) -> list[Block]:
        return [b for b in self.blocks if b.not_run is not None]


class DocsError(Exception):
    """A page that cannot be read as intended (e.g. a not-run marker without a reason)."""


def _language(info: str) -> str:
    """The language of a fence's info string: ``python``, ``python title="x"``, ``{.python}``."""
    info = info.strip()
    if info.startswith("{"):
        match = re.search(r"\.([\w+-]+)", info)
        return match.group(1).lower() if match else ""
    return info.split(None, 1)[0].lower() if info else ""


def expand_snippets(text: str, base: Path = ROOT) -> list[tuple[str, str, int]]:
    """The page's lines as ``(text, file, line)``, with ``--8<-- "path"`` lines replaced by that file.

    ``file`` is ``"<page>"`` for the page's own lines, else the included path.
    """
    return _expand(text, "<page>", base, 0, [])


def _expand(
    text: str, name: str, base: Path, depth: int, out: list[tuple[str, str, int]]
) -> list[tuple[str, str, int]]:
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SNIPPET.match(line)
        if match:
            included = base / match.group("path")
            if not included.is_file():
                raise DocsError(f"{name}:{number}: snippet {match.group('path')!r} not found")
            if depth >= 5:
                raise DocsError(f"{name}:{number}: snippets nested more than 5 deep")
            _expand(included.read_text(encoding="utf-8"), match.group("path"), base, depth + 1, out)
        else:
            out.append((line, name, number))
    return out


def parse_page(text: str, path: str) -> Page:
    """Find the python and pycon blocks of a page (snippets expanded)."""
    lines = [(t, path if f == "<page>" else f"{path} -> {f}", n) for t, f, n in expand_snippets(text)]
    page = Page(path)
    after_last_block: tuple[str, int] | None = None  # where a python block's Output block would be
    i = 0
    while i < len(lines):
        line, where, number = lines[i]
        match = _FENCE.match(line)
        if not match:
            i += 1
            continue
        indent, fence = match.group("indent"), match.group("fence")
        language = _language(match.group("info"))
        body: list[str] = []
        j = i + 1
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while j < len(lines) and not closing.match(lines[j][0]):
            body.append(lines[j][0])
            j += 1
        if j == len(lines):
            raise DocsError(f"{where}:{number}: code fence {fence} is never closed")
        if language == "text" and _OUTPUT_TITLE.search(match.group("info")):
            previous = page.blocks[-1] if page.blocks else None
            if previous is None or previous.language != "python" or (where, number) != after_last_block:
                raise DocsError(f"{where}:{number}: an Output block must follow a python block directly")
            text = textwrap.dedent("\n".join(_strip_indent(b, indent) for b in body))
            page.blocks[-1] = dataclasses.replace(previous, output=text)
        if language in PYTHON or language in PYCON:
            code = textwrap.dedent("\n".join(_strip_indent(b, indent) for b in body)) + "\n"
            reason = _not_run_reason(lines, i)
            page.blocks.append(
                Block(
                    page=where,
                    number=len(page.blocks) + 1,
                    line=number + 1,
                    language="pycon" if language in PYCON else "python",
                    code=code,
                    not_run=reason,
                )
            )
        after_last_block = _next_nonblank(lines, j + 1) if language in PYTHON else None
        i = j + 1
    return page


def _next_nonblank(lines: list[tuple[str, str, int]], k: int) -> tuple[str, int] | None:
    """Where the first non-blank line from index ``k`` on is: ``(file, line)``, or None."""
    while k < len(lines) and not lines[k][0].strip():
        k += 1
    return (lines[k][1], lines[k][2]) if k < len(lines) else None


def _strip_indent(line: str, indent: str) -> str:
    return line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")


def _not_run_reason(lines: list[tuple[str, str, int]], fence_index: int) -> str | None:
    """The reason of a ``<!-- not-run: ... -->`` line just above the fence (blank lines allowed)."""
    k = fence_index - 1
    while k >= 0 and not lines[k][0].strip():
        k -= 1
    if k < 0:
        return None
    match = _NOT_RUN.match(lines[k][0])
    if not match:
        return None
    rest = match.group("rest").strip()
    reason = rest[1:].strip() if rest.startswith(":") else ""
    if not rest.startswith(":") or not reason:
        where, number = lines[k][1], lines[k][2]
        raise DocsError(f"{where}:{number}: a not-run marker needs a reason: <!-- not-run: <reason> -->")
    return reason


# The RL tools some pages show (not in the `dev` extra: `.ci/run` installs them and sets
# ABYSS_RL_TOOLS=required, so that there a missing one fails instead of skipping).
RL_TOOLS = ("supersuit", "stable_baselines3", "sb3_contrib", "torch", "moviepy")


def missing_tools(block: Block) -> list[str]:
    """The RL tools `block` imports that are not installed here."""
    imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", block.code, flags=re.M))
    if "RecordVideo" in block.code or "VecVideoRecorder" in block.code:
        imported.add("moviepy")  # (the recorders import it when they are made)
    return [tool for tool in RL_TOOLS if tool in imported and importlib.util.find_spec(tool) is None]


def run_page(page: Page, skipped: list[str] | None = None) -> int:
    """Run a page's blocks in order, each in a fresh module namespace; return how many ran.

    A block that imports an RL tool missing here is left out and named in `skipped` (given a
    list; without one, it runs and fails).

    Raises AssertionError naming the page, block and line of the first failing block.
    """
    ran = 0
    for block in page.run:
        if skipped is not None and (tools := missing_tools(block)):
            skipped.append(f"{page.path} block {block.number} (line {block.line}) needs {', '.join(tools)}")
            continue
        module = types.ModuleType(f"_docs_page_{abs(hash(page.path))}_{block.number}")
        module.__file__ = str(ROOT / page.path)
        sys.modules[module.__name__] = module  # so that dataclasses and pickle find the block's classes
        try:
            if block.language == "python":
                _run_python(block, module.__dict__)
            else:
                _run_pycon(block, module.__dict__)
        finally:
            sys.modules.pop(module.__name__, None)
        ran += 1
    return ran


def _run_python(block: Block, namespace: dict[str, object]) -> None:
    # Leading newlines make line numbers in tracebacks those of the page.
    source = "\n" * (block.line - 1) + block.code
    filename = block.page.split(" -> ")[-1]
    printed = io.StringIO()
    try:
        code = compile(source, filename, "exec")
        if block.output is None:
            exec(code, namespace)
        else:
            with contextlib.redirect_stdout(printed):
                exec(code, namespace)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        line = _failing_line(error, filename) or block.line
        trace = "".join(traceback.format_exception(error)[-8:])
        raise AssertionError(
            f"{block.page}: python block {block.number} (starting at line {block.line}) "
            f"failed at line {line}:\n{trace}"
        ) from None
    if block.output is not None and _lines(printed.getvalue()) != _lines(block.output):
        raise AssertionError(
            f"{block.page}: python block {block.number} (starting at line {block.line}) printed\n"
            f"{printed.getvalue()}\nbut the Output block after it shows\n{block.output}"
        )


def _lines(text: str) -> list[str]:
    """Text as lines without trailing spaces or trailing blank lines."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _failing_line(error: BaseException, filename: str) -> int | None:
    if isinstance(error, SyntaxError) and error.filename == filename:
        return error.lineno
    line = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    return line


def _run_pycon(block: Block, namespace: dict[str, object]) -> None:
    filename = block.page.split(" -> ")[-1]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code, namespace, f"{block.page} block {block.number}",
                              filename, block.line - 1)
    test.globs = namespace  # DocTest copies its globals: share the page's namespace instead
    report: list[str] = []
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS)
    runner.run(test, out=report.append, clear_globs=False)
    if runner.failures:
        raise AssertionError(
            f"{block.page}: pycon block {block.number} (starting at line {block.line}) failed:\n"
            + "".join(report)
        )


def doc_pages() -> list[str]:
    """Every documentation page, as paths relative to the repository root."""
    pages = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
    return ["README.md", *pages]


def load(path: str) -> Page:
    return parse_page((ROOT / path).read_text(encoding="utf-8"), path)


def inventory() -> Iterator[tuple[str, int, list[Block]]]:
    for path in doc_pages():
        page = load(path)
        yield path, len(page.run), page.skipped


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", doc_pages())
def test_page_examples_run(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples of one page run, in order, each block on its own, from the repository root."""
    monkeypatch.chdir(ROOT)
    failure = None
    required = os.environ.get("ABYSS_RL_TOOLS") == "required"
    left_out: list[str] = []
    try:
        page = load(path)
        ran = run_page(page, None if required else left_out)
    except (DocsError, AssertionError) as error:
        failure = str(error)
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    assert ran + len(left_out) == len(page.run)
    if left_out:
        pytest.skip("SKIPPED LOUDLY: the other blocks ran; not installed here (.ci/run installs them): "
                    + "; ".join(left_out))


def _not_run_blocks() -> list[Block]:
    blocks = []
    for path in doc_pages():
        with contextlib.suppress(DocsError):  # reported by test_page_examples_run for that page
            blocks += load(path).skipped
    return blocks


@pytest.mark.parametrize(
    "block", _not_run_blocks(), ids=lambda block: f"{block.page}:{block.line}"
)
def test_not_run_block(block: Block) -> None:
    """One skipped item per block marked not-run, so that the run's summary counts them."""
    assert block.not_run
    pytest.skip(f"{block.page} block {block.number} (line {block.line}) not run: {block.not_run}")


def test_the_docs_have_examples() -> None:
    """The collector finds the examples (so the page tests cannot pass by finding nothing)."""
    pages = {path: load(path) for path in doc_pages()}
    assert pages["README.md"].run, "README.md has no python example"
    assert pages["docs/index.md"].run, "docs/index.md has no python example"
    assert pages["docs/getting-started.md"].run, "docs/getting-started.md has no python example"
    total = sum(len(p.run) for p in pages.values())
    skipped = sum(len(p.skipped) for p in pages.values())
    assert total >= 20, f"only {total} runnable blocks found"
    # Not-run blocks are the exception: at most one in five.
    assert skipped * 5 <= total + skipped, f"{skipped} of {total + skipped} blocks are marked not-run"


def _table(path: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``heading`` in a page, as lists of cell texts."""
    text = (ROOT / path).read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def test_the_variants_table_matches_the_code() -> None:
    """docs/variants.md lists every Variant field, in order, with its default; the presets are right."""
    import ast

    import abyss_rules as ar
    from abyss_rules.cards import STANDARD_DECK
    from abyss_rules.config import FIELD_NAMES, variant_fields

    rows = _table("docs/variants.md", "## Fields")
    assert [row[0].strip("`") for row in rows] == list(FIELD_NAMES)
    defaults = variant_fields(ar.Variant())
    for name, _type, default, rules, _meaning in rows:
        name = name.strip("`")
        assert rules, f"{name}: no rule cited"
        if name == "deck":
            assert "STANDARD_DECK" in default and ar.Variant().deck == STANDARD_DECK
            continue
        assert ast.literal_eval(default.strip("`")) == defaults[name], f"default of {name}"

    presets = _table("docs/variants.md", "## Presets")
    assert [row[0].split("]")[0].strip("[`") for row in presets] == sorted(
        ar.Variant.presets(), key=["standard", "short", "long"].index
    )
    for row in presets:
        preset = row[0].split("]")[0].strip("[`")
        changes = {}
        for item in re.findall(r"`(\w+)=([^`]+)`", row[1]):
            changes[item[0]] = ast.literal_eval(item[1])
        assert row[1] == "none" or changes, row
        assert ar.Variant.presets()[preset] == ar.Variant.standard().replace(**changes), preset


# -- the API reference ---------------------------------------------------------------------------

ENGINE_MODULES = (
    "actions", "action_space", "cards", "config", "errors", "randomness", "state", "views", "rules",
)


API_PAGES = ("api-game.md", "api-documents.md", "api-bots.md")
MODULE_PAGES = ("api-modules.md", "api-modules-documents.md", "api-modules-bots.md", "api-modules-batch.md")


USER_MODULES = (
    "abyss_rules", "abyss_rules.protocol", "abyss_rules.codec", "abyss_rules.documents",
    "abyss_rules.events", "abyss_rules.public_table", "abyss_rules.notation", "abyss_rules.json_schemas",
    "abyss_rules.bots", "abyss_rules.simulation", "abyss_rules.sampling", "abyss_rules.pictures",
    "abyss_rules.action_space", "abyss_rules.cards", "abyss_rules.actions", "abyss_rules.errors",
)
"""The package and the modules a program imports names from: docs/api.md's "import from" table."""


def _directives(page: str) -> list[tuple[str, list[str] | None]]:
    """The `::: abyss_rules...` lines of a page, each with its `members:` option: `None` when
    absent (every member), `[]` for `false`, else the names listed."""
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    found: list[tuple[str, list[str] | None]] = []
    for n, line in enumerate(lines):
        match = re.match(r"^::: (abyss_rules[\w.]*)\s*$", line)
        if not match:
            continue
        options = []
        for more in lines[n + 1:]:
            if not more.startswith(" "):
                break
            options.append(more.strip())
        text = " ".join(options)
        members = re.search(r"members: (false|\[[^\]]*\])", text)
        if members is None:
            found.append((match.group(1), None))
        elif members.group(1) == "false":
            found.append((match.group(1), []))
        else:
            found.append((match.group(1), [m.strip() for m in members.group(1)[1:-1].split(",")]))
    return found


def _rendered() -> tuple[Any, list[str]]:
    """Griffe's package and the canonical path of every object the API pages render."""
    griffe = pytest.importorskip("griffe")
    import importlib

    package = griffe.load("abyss_rules", search_paths=[str(ROOT / "src")], resolve_aliases=True)
    shown: list[str] = []
    for page in API_PAGES + MODULE_PAGES:
        for path, members in _directives(page):
            obj = package[path.removeprefix("abyss_rules.")] if path != "abyss_rules" else package
            if not obj.is_module:
                shown.append(obj.canonical_path)
                continue
            names = getattr(importlib.import_module(path), "__all__", []) if members is None else members
            shown.extend(obj[name].canonical_path for name in names)
    return package, shown


def test_every_exported_name_is_documented_once() -> None:
    """The rule of the API reference: each name of the package's `__all__` and of the `__all__`
    of each module a program imports from (`USER_MODULES`) is rendered exactly once on the
    docs/api-*.md pages -- under the name a program imports it by -- and no object is rendered
    twice. mkdocstrings shows only names with a docstring, so every one of them needs one (read
    statically, as the site does)."""
    import importlib

    package, shown = _rendered()
    missing, twice, undocumented = [], [], []
    for module in USER_MODULES:
        for name in importlib.import_module(module).__all__:
            obj = package[f"{module}.{name}".removeprefix("abyss_rules.")] if module != "abyss_rules" \
                else package[name]
            count = shown.count(obj.canonical_path)
            if count == 0:
                missing.append(f"{module}.{name}")
            elif count > 1:
                twice.append(f"{module}.{name}")
            elif not (obj.docstring and obj.docstring.value.strip()):
                undocumented.append(f"{module}.{name}")
    assert not missing, f"on no API page: {missing}"
    assert not twice, f"rendered more than once on the API pages: {twice}"
    assert not undocumented, f"exported without a docstring (missing from the API reference): {undocumented}"
    top = [path for page in API_PAGES for path, _ in _directives(page)
           if path.count(".") == 1 and not package[path.removeprefix("abyss_rules.")].is_module]
    assert sorted(path.removeprefix("abyss_rules.") for path in top) == sorted(importlib.import_module(
        "abyss_rules").__all__), "the API pages render the package's own names as abyss_rules.<name>"


def test_the_api_page_lists_the_modules_to_import_from() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    table = text[text.index("What to import from where"):]
    listed = set(re.findall(r"`(abyss_rules\.\w+)`", table.split("\n\n")[1]))
    assert set(USER_MODULES) - {"abyss_rules"} <= listed, set(USER_MODULES) - listed
    for module in listed:
        __import__(module)


def test_the_rendering_check_reads_directives_and_their_members() -> None:
    directives = dict(_directives("api-modules-bots.md"))
    assert directives["abyss_rules.pictures"] == [] and directives["abyss_rules.testing"] is None
    assert directives["abyss_rules.pictures._svg"] == ["Band", "BANDS", "band", "HIGHLIGHT"]
    _, shown = _rendered()  # (canonical paths: a name is counted where it is defined)
    assert shown.count("abyss_rules.pictures._svg.to_svg") == 1 and "abyss_rules.pictures.to_svg" not in shown


def test_every_module_has_a_section_in_the_api_reference() -> None:
    """Each public module has a `::: abyss_rules.<module>` section on one of the module pages (the
    engine's on docs/api-modules.md); private ones may have one, for readers of the engine."""
    import pkgutil

    import abyss_rules

    sections = [name for page in MODULE_PAGES for name in re.findall(
        r"^::: abyss_rules\.([\w.]+)\s*$", (ROOT / "docs" / page).read_text(encoding="utf-8"),
        flags=re.MULTILINE)]
    assert len(sections) == len(set(sections)), "a module has two sections"
    documented = set(sections)
    modules = sorted(
        info.name.removeprefix("abyss_rules.")
        for info in pkgutil.walk_packages(abyss_rules.__path__, "abyss_rules.")
        if not any(part.startswith("_") for part in info.name.split("."))
    )
    assert set(ENGINE_MODULES) <= set(modules)
    missing = [name for name in ENGINE_MODULES if name not in documented]
    assert not missing, f"engine modules without a section on docs/api-modules.md: {missing}"
    others = [name for name in modules if name not in documented]
    assert not others, f"public modules without a section on the module pages: {others}"


def test_every_module_summary_is_one_line() -> None:
    """The first sentence of every module's docstring is its first line, whole: the API pages and
    `help()` show that line as the module's summary."""
    import ast

    sources = sorted((ROOT / "src" / "abyss_rules").rglob("*.py"))
    assert len(sources) > 30
    cut = []
    for path in sources:
        if path.name.startswith("_") and path.name != "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        lines = (doc or "").splitlines()
        if not lines or not lines[0].rstrip().endswith(".") or (len(lines) > 1 and lines[1].strip()):
            cut.append(f"{path.relative_to(ROOT)}: {lines[0] if lines else '(no docstring)'}")
    assert not cut, cut


def test_the_package_docstring_reads_well_in_help() -> None:
    """`help(abyss_rules)` shows plain names: no cross-reference markup, no path a wheel lacks."""
    import abyss_rules

    doc = abyss_rules.__doc__ or ""
    assert "][" not in doc and "spec/" not in doc, doc
    assert doc.splitlines()[0].endswith(".")


# -- the harness itself ----------------------------------------------------------------------

_GOOD = """\
# A page

```python
x = 20
```

Some text.

```pycon
>>> x = 20
>>> x + 1
21

```

<!-- not-run: needs a cluster -->

```python
raise SystemExit("must not run")
```

- A list item:

    ```py
    x = 20
    x += 1
    assert x == 21
    ```
"""


def test_harness_runs_each_block_on_its_own() -> None:
    page = parse_page(_GOOD, "good.md")
    assert [(b.language, b.line, b.not_run) for b in page.blocks] == [
        ("python", 4, None), ("pycon", 10, None), ("python", 19, "needs a cluster"), ("python", 25, None),
    ]
    assert run_page(page) == 3


def test_harness_fails_with_page_block_and_line() -> None:
    text = "# P\n\n```python\nx = 1\n```\n\n```python\nx = 1\ny = 2\nassert x == y, 'x is not y'\n```\n"
    with pytest.raises(AssertionError) as info:
        run_page(parse_page(text, "docs/p.md"))
    message = str(info.value)
    assert "docs/p.md: python block 2 (starting at line 8) failed at line 10" in message
    assert "x is not y" in message


def test_harness_gives_a_block_none_of_the_names_of_the_blocks_before_it() -> None:
    text = "```python\nimport json\nx = 1\n```\n\n```python\nprint(x)\n```\n"
    with pytest.raises(AssertionError, match=r"(?s)python block 2 .*NameError: name 'x' is not defined"):
        run_page(parse_page(text, "p.md"))
    with pytest.raises(AssertionError, match=r"NameError: name 'json' is not defined"):
        run_page(parse_page(text.replace("print(x)", "json.dumps(1)"), "p.md"))


def test_harness_reports_syntax_errors_at_their_line() -> None:
    text = "```python\nok = 1\nthis is not python\n```\n"
    with pytest.raises(AssertionError, match=r"failed at line 3"):
        run_page(parse_page(text, "p.md"))


def test_harness_fails_a_wrong_pycon_output() -> None:
    text = "```pycon\n>>> 1 + 1\n3\n```\n"
    with pytest.raises(AssertionError, match=r"p.md: pycon block 1 \(starting at line 2\) failed"):
        run_page(parse_page(text, "p.md"))


def test_harness_compares_printed_output_with_an_output_block() -> None:
    good = '```python\nprint("a")\nprint(1 + 1)\n```\n\n```text title="Output"\na\n2\n```\n'
    page = parse_page(good, "p.md")
    assert page.blocks[0].output == "a\n2"
    assert run_page(page) == 1
    with pytest.raises(AssertionError, match=r"p.md: python block 1 \(starting at line 2\) printed"):
        run_page(parse_page(good.replace("1 + 1", "1 + 2"), "p.md"))
    with pytest.raises(DocsError, match="must follow a python block directly"):
        parse_page('```python\nprint(1)\n```\n\nText.\n\n```text title="Output"\n1\n```\n', "p.md")
    plain = parse_page('```python\nprint(1)\n```\n\n```text\nnot checked\n```\n', "p.md")
    assert plain.blocks[0].output is None


def test_harness_requires_a_reason_to_skip() -> None:
    for marker in ("<!-- not-run -->", "<!-- not-run: -->", "<!-- not-run:   -->"):
        with pytest.raises(DocsError, match="needs a reason"):
            parse_page(f"{marker}\n```python\npass\n```\n", "p.md")


def test_harness_ignores_other_languages_and_reports_unclosed_fences() -> None:
    page = parse_page("```bash\nexit 1\n```\n```json\n{}\n```\n```text\n>>> 1\n2\n```\n", "p.md")
    assert page.blocks == []
    with pytest.raises(DocsError, match="never closed"):
        parse_page("```python\nx = 1\n", "p.md")


def test_harness_expands_snippets(tmp_path: Path) -> None:
    (tmp_path / "inc.md").write_text("```python\nfrom_snippet = True\n```\n", encoding="utf-8")
    lines = expand_snippets('before\n--8<-- "inc.md"\nafter\n', base=tmp_path)
    assert [t for t, _, _ in lines] == ["before", "```python", "from_snippet = True", "```", "after"]
    with pytest.raises(DocsError, match="not found"):
        expand_snippets('--8<-- "missing.md"\n', base=tmp_path)


if __name__ == "__main__":  # pragma: no cover - a report for people
    run_total = skip_total = 0
    for path, ran, skipped in inventory():
        run_total += ran
        skip_total += len(skipped)
        print(f"{path}: {ran} run, {len(skipped)} not run")
        for block in skipped:
            print(f"    block {block.number} (line {block.line}): {block.not_run}")
    print(f"total: {run_total} blocks run, {skip_total} not run")


# -- no development history ----------------------------------------------------------------------

_HISTORY = {
    "an issue or pull request number": re.compile(r"\b(issues?|pull requests?|PR)\s*#?\d+", re.I),
    "the project's internal tools": re.compile(r"\bfarm-bench\b|`duplicates\b|\bduplicates\s+--"),
    "a development pass": re.compile(
        r"\b(first|second|third|fourth|fifth|sixth|this|that|last|previous|earlier|later|next|each"
        r"|the) pass\b|\b(two|three|four|several|earlier|later|previous|both) passes\b", re.I),
    "a development session": re.compile(
        r"\bhelper (sessions?|engineers?)\b|\blead engineer\b|\bworktrees?\b|\bsessions? \d+", re.I),
}
# A commit hash: 7 to 40 hex digits with a digit and a letter among them, in prose (code is left out).
_HASH = re.compile(r"(?<![\w/#.-])(?=[0-9a-f]{0,39}[0-9])(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}(?![\w/-])")
_CODE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$|`[^`\n]+`", re.S | re.M)


def history_in(text: str) -> list[str]:
    """What in a page speaks of the project's development: issue numbers, commit hashes (in prose),
    internal tools, development passes and sessions. Each finding as ``what: 'the words'``."""
    found = [f"{what}: {m.group(0)!r}" for what, rx in _HISTORY.items() for m in rx.finditer(text)]
    prose = _CODE.sub(" ", text)
    return found + [f"a commit hash: {m.group(0)!r}" for m in _HASH.finditer(prose)]


@pytest.mark.parametrize("path", [*doc_pages(), "CHANGELOG.md"])
def test_no_development_history_in_the_docs(path: str) -> None:
    """The docs, the README and the changelog speak of the project as it is: no issue numbers,
    commit hashes, internal tools, development passes or sessions (git log keeps the history)."""
    found = history_in((ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path}: {found}"


# -- docstrings are contract and example -----------------------------------------------------------

_TIMING = re.compile(
    r"\d[\d.,]*\s*(?:µs|us|ns|ms)\b|\breference machine\b"
    r"|\b\d+(?:\.\d+)?(?:\s*-\s*\d+(?:\.\d+)?)?\s*(?:x|times)\s+(?:faster|slower|as fast|as slow|as long)\b"
    r"|\b(?:twice|[a-z]+ times) (?:faster|slower)\b", re.I)
_PAST = re.compile(
    r"\bused to\b|\bformerly\b|\bpreviously\b|\bin (?:earlier|older|previous) versions?\b"
    r"|\bonce (?:spelled|was|were|had|did|took)\b|\bthe old (?:loaders?|code|engine|version|way)\b", re.I)


def _docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """The docstrings of a module (its own, its classes', functions' and attributes'), doctest
    lines and their output left out, each with its line."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, statement in enumerate(body):
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)):
                continue
            owner = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
            first = i == 0 and isinstance(node, owner)
            if first or (i > 0 and isinstance(body[i - 1], (ast.Assign, ast.AnnAssign))):
                prose, in_doctest = [], False
                for line in statement.value.value.splitlines():
                    starts = bool(re.match(r"\s*(>>>|\.\.\.)( |$)", line))
                    in_doctest = starts or (in_doctest and bool(line.strip()))
                    if not in_doctest:
                        prose.append(line)
                yield statement.lineno, "\n".join(prose)


def lab_notes_in(text: str) -> list[str]:
    """What in a docstring is not contract or example: the project's history (`history_in`),
    timings and speed-ups, and what the code once was."""
    return (history_in(text) + [f"a timing: {m.group(0)!r}" for m in _TIMING.finditer(text)]
            + [f"history: {m.group(0)!r}" for m in _PAST.finditer(text)])


def test_no_lab_notes_in_the_docstrings() -> None:
    """The docstrings of `src/` are contract and example: figures live in `benchmarks/` and
    docs/performance.md, the history in git log."""
    found = [f"{path.relative_to(ROOT)}:{line}: {note}"
             for path in sorted((ROOT / "src" / "abyss_rules").rglob("*.py"))
             for line, doc in _docstrings(path) for note in lab_notes_in(doc)]
    assert len(list((ROOT / "src" / "abyss_rules").rglob("*.py"))) > 60
    assert not found, found


@pytest.mark.parametrize("text", [
    "took 3.2 µs to build", "built without attrs' `__init__` (4x faster)", "about 1.6-1.9 times faster",
    "ten times slower in NumPy", "on the reference machine", "a table once spelled 2100 as -460",
    "as issue 41 asked", "the loaders used to accept",
])
def test_the_lab_notes_check_finds(text: str) -> None:
    assert lab_notes_in(text)


@pytest.mark.parametrize("text", [
    "one structured log line per request (method, path, status, milliseconds)", "seed 42",
    "the next calls are slower once", "values never change once published", "rule 3.11",
    "`time_limit`: seconds of CPU per decision", "the card that was drawn",
])
def test_the_lab_notes_check_leaves_alone(text: str) -> None:
    assert not lab_notes_in(text)


@pytest.mark.parametrize("text", [
    "as issue 13 asked", "see #12 and Issue #7", "the bots of d9a8905 were slower",
    "GreedyBot, fourth pass: masks", "the figures at the end of the pass", "`farm-bench` runs it",
    "`duplicates --most 40` lists", "made in helper session 3", "two passes over the code",
])
def test_the_history_check_finds(text: str) -> None:
    assert history_in(text)


@pytest.mark.parametrize("text", [
    "the turn passes to seat 1", "Pass `require_seq=True`", "a `play` session left after three moves",
    "game `5133d5f20f2e3e46`", "```json\n{\"game\": \"5133d5f20f2e3e46\"}\n```", "rule 3.11",
    "150 cards and 0x1f", "the state hash is sha256 hex",
    "one pass over the arrays", "issues of the tracker",
])
def test_the_history_check_leaves_alone(text: str) -> None:
    assert not history_in(text)
