"""Docstrings read well in `help()` and link on the docs site.

They name other objects in plain backticks, never in cross-reference markup, so `help()` shows
plain names; the site makes those names links (tools/griffe_crossrefs.py, a Griffe extension of
the mkdocstrings Python handler). Here: no docstring holds markup, and which names that extension
links, and to what. tests/test_docs_site.py follows such a link in the built site.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import pydoc
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "griffe_crossrefs.py"

griffe = pytest.importorskip("griffe", reason="the docs tools are in the dev extra")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("abyss_griffe_crossrefs", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["abyss_griffe_crossrefs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return _tool()


@pytest.fixture(scope="module")
def package() -> object:
    return griffe.load("abyss_rules", search_paths=[str(ROOT / "src")])


def _link(target: str, name: str) -> str:
    return f'<autoref optional identifier="{target}">`{name}`</autoref>'


def test_names_of_the_package_become_links_where_the_docstring_is(tool: ModuleType, package: object) -> None:
    function = package["views.view"]  # type: ignore[index]
    text = ("`State`, `State.phase`, `apply()`, `legal_actions(state)`, `abyss_rules.pictures.to_svg` and"
            " `abyss_rules.events`.")
    state = _link("abyss_rules.state.State", "State")
    phase = _link("abyss_rules.state.State.phase", "State.phase")
    apply = _link("abyss_rules.apply", "apply()")
    legal = _link("abyss_rules.rules._legal.legal_actions", "legal_actions(state)")
    svg = _link("abyss_rules.pictures.to_svg", "abyss_rules.pictures.to_svg")
    events = _link("abyss_rules.events", "abyss_rules.events")
    assert tool.link_names(function, text) == f"{state}, {phase}, {apply}, {legal}, {svg} and {events}."


def test_a_class_docstring_sees_its_own_members(tool: ModuleType, package: object) -> None:
    state = package["state.State"]  # type: ignore[index]
    assert tool.link_names(state, "`phase`") == _link("abyss_rules.state.State.phase", "phase")


@pytest.mark.parametrize("text", [
    "`state` and `seat`",          # the function's own parameters
    "`int`, `None`, `True`",       # not the package's
    "`cards` and `events`",        # fields, not the package's submodules of those names
    "`view.legal_actions`",        # an attribute of a variable: no such path
    "`view`",                      # the docstring's own object
    "`__all__`, `_lazy`",          # special and private names
    "`0f10.3`, ``State``, `a b`",  # not a name, double backticks, words
    "[`State`][abyss_rules.State]",  # a link already
    ">>> `State`",                 # a doctest line
    "```python\n`State`\n```\n",   # a fenced block
])
def test_what_stays_plain(tool: ModuleType, package: object, text: str) -> None:
    assert tool.link_names(package["views.view"], text) == text  # type: ignore[index]


def test_the_extension_links_the_loaded_package(tool: ModuleType) -> None:
    """Loaded as mkdocs.yml loads it, the extension rewrites the docstrings of the package."""
    extensions = griffe.load_extensions(str(TOOL))
    package = griffe.load("abyss_rules", search_paths=[str(ROOT / "src")], extensions=extensions)
    linked = [obj.path for obj in tool._objects(package)
              if obj.docstring is not None and "<autoref optional" in obj.docstring.value]
    assert "abyss_rules.action_space" in linked
    assert len(linked) > 50, linked
    assert "extensions:\n              - tools/griffe_crossrefs.py" in (ROOT / "mkdocs.yml").read_text()


# -- what help() shows ------------------------------------------------------------------------

MARKUP = re.compile(r"\]\[(abyss_rules(\.\w+)*)?\]")
"""Cross-reference markup: `[State][abyss_rules.State]`, `[abyss_rules.State][]`."""


def _docstrings(path: Path) -> list[tuple[int, str]]:
    """Every docstring of a source file, with its line: modules, classes, functions, and the
    string statements that document attributes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.value.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)]


def test_no_docstring_holds_cross_reference_markup() -> None:
    """Docstrings name objects in plain backticks; the site makes them links."""
    sources = sorted((ROOT / "src" / "abyss_rules").rglob("*.py"))
    assert len(sources) > 30
    found = [f"{path.relative_to(ROOT)}:{line}: {match[0]}"
             for path in sources for line, doc in _docstrings(path) for match in MARKUP.finditer(doc)]
    assert not found, found


def test_the_markup_check_finds_markup() -> None:
    assert MARKUP.search("returns a [`State`][abyss_rules.State].")
    assert MARKUP.search("see [abyss_rules.pictures.to_svg][]")
    assert not MARKUP.search('doc["grids"][0][0] and `State` and [a link](rules.md)')


def test_help_shows_plain_names() -> None:
    """`help()` of the package and of each of its modules shows no cross-reference markup."""
    import abyss_rules

    text = pydoc.render_doc(abyss_rules, renderer=pydoc.plaintext)
    assert "`State`" in text  # names are there, plainly
    pages = {"abyss_rules": text}
    for module in pkgutil.walk_packages(abyss_rules.__path__, "abyss_rules."):
        try:
            imported = importlib.import_module(module.name)
        except ImportError as error:  # an optional extra that is not installed
            assert error.name and not error.name.startswith("abyss_rules"), error
            continue
        pages[module.name] = pydoc.render_doc(imported, renderer=pydoc.plaintext)
    assert len(pages) > 30, sorted(pages)
    marked = {name: MARKUP.findall(page) for name, page in pages.items() if MARKUP.search(page)}
    assert not marked, marked
