"""The import rules of docs/architecture.md: no cycles, no facade imports, the layers' edges.

Imports are read from the source (every `import` and `from ... import`, those inside
functions included), so an import moved into a function to dodge a cycle is still seen --
except the few listed in `ON_USE`, each checked to be made inside a function only.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "abyss_rules"

LONG_MODULE: Final = 800
"""One concept per module is the rule, not a line count: a module past this many lines says why
in its docstring, in a paragraph that starts with `LONG_REASON`."""
LONG_REASON: Final = "Why one long module:"

# The imports made on use, inside the methods that present a value (`_repr_svg_`,
# `View.to_dict`, `View.to_json`), as `chess.Board._repr_svg_` imports `chess.svg`: the
# pictures and the codec import `state` and `views`, so these import them back only when a
# picture or a document is asked for, never while loading. Only these edges are left out of
# the cycle and layer checks, and only while they stay inside functions.
ON_USE: frozenset[tuple[str, str]] = frozenset({
    ("abyss_rules.state", "abyss_rules.pictures.svg"),
    ("abyss_rules.views", "abyss_rules.pictures.svg"),
    ("abyss_rules.views", "abyss_rules.codec.view"),
    # The documents' Pydantic hooks call the library's readers, only when Pydantic asks for them.
    ("abyss_rules._document_hooks", "abyss_rules.codec"),
    ("abyss_rules._document_hooks", "abyss_rules.codec.strict"),
    ("abyss_rules._document_hooks", "abyss_rules.records"),
})


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(*, on_use: bool = False, top_level_only: bool = False) -> dict[str, set[str]]:
    """Every module's imports of the package's own modules, without the `ON_USE` edges (with
    `on_use`: with them); with `top_level_only`, only the imports made outside any function."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = list(ast.walk(tree))
        if top_level_only:
            functions = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            inside = {id(node) for function in functions for node in ast.walk(function)}
            nodes = [node for node in nodes if id(node) not in inside]
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    deps.add(full if full in modules else target)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = {dep for dep in deps if dep in modules and dep != name
                       and (on_use or (name, dep) not in ON_USE)}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle() -> None:
    assert _cycles(_imports()) == []


def test_the_imports_on_use_are_made_inside_functions_only() -> None:
    everything, loading = _imports(on_use=True), _imports(on_use=True, top_level_only=True)
    for module, target in sorted(ON_USE):
        assert target in everything[module], f"{module} no longer imports {target}: drop it from ON_USE"
        assert target not in loading[module], f"{module} imports {target} while loading"
    assert _cycles(loading) == []  # so loading any module never needs itself


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_submodule_imports_the_package_facade() -> None:
    graph = _imports()
    assert sorted(name for name, deps in graph.items() if "abyss_rules" in deps) == []


def test_the_layers_edges() -> None:
    graph = _imports()
    for low in ("abyss_rules.state", "abyss_rules.views"):
        bad = {dep for dep in graph[low] if dep.startswith(("abyss_rules.codec", "abyss_rules.pictures"))}
        assert not bad, f"{low} imports {bad}"
    assert not {dep for dep in graph["abyss_rules.state"] if dep.startswith("abyss_rules.rules")}
    for name in ("abyss_rules.event_types", "abyss_rules.versions", "abyss_rules.errors"):
        assert graph[name] <= {"abyss_rules.errors"}, f"{name} must stay a leaf: {graph[name]}"
    for name, deps in graph.items():
        if name.startswith("abyss_rules.rules"):
            above = {d for d in deps
                     if d.startswith(("abyss_rules.codec", "abyss_rules.views", "abyss_rules.cli"))}
            assert not above, f"{name} imports {above}"


def test_a_module_past_800_lines_says_why() -> None:
    """No hard cap: a module is one concept, and one past ~800 lines gives its reason."""
    import ast

    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    assert len(sizes) > 60 and max(sizes.values()) > 300
    silent = []
    for name, path in _modules().items():
        if sizes[name] > LONG_MODULE:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            if not any(paragraph.startswith(LONG_REASON) for paragraph in doc.split("\n\n")):
                silent.append(f"{name} ({sizes[name]} lines)")
    assert not silent, f"modules past {LONG_MODULE} lines without a paragraph '{LONG_REASON} ...': {silent}"


def test_no_codec_module_imports_views() -> None:
    # The view document's layout (codec/view.py) reads and writes the fields of a view object
    # given to it; only the codec's facade pairs them with the `View` class.
    graph = _imports()
    bad = {name: sorted(dep for dep in deps if dep == "abyss_rules.views")
           for name, deps in graph.items() if name.startswith("abyss_rules.codec.")}
    assert {name: deps for name, deps in bad.items() if deps} == {}


def _private_names(tree: ast.AST, siblings: frozenset[str] = frozenset()) -> set[str]:
    """The underscore names a module's source imports from the package's own modules.

    `siblings` are the private submodules of the module's own package (`bots/_planner.py` for
    the modules of `bots/`): `from . import _planner` there imports a module of the same
    package, not another module's private name.
    """
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("abyss_rules")):
            own = siblings if node.level == 1 and node.module is None else frozenset()
            found.update(alias.name for alias in node.names
                         if alias.name.startswith("_") and not alias.name.startswith("__")
                         and alias.name not in own)
    return found


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def test_no_module_imports_another_modules_private_names() -> None:
    # A piece two modules share has a public name in the one module that owns it.
    modules = _modules()
    private = {}
    for name, path in modules.items():
        package = _package_of(name, path)
        siblings = frozenset(m.rpartition(".")[2] for m in modules if m.rpartition(".")[0] == package)
        private[name] = sorted(_private_names(ast.parse(path.read_text(encoding="utf-8")), siblings))
    assert {name: names for name, names in private.items() if names} == {}


def test_private_submodules_are_imported_only_inside_their_package() -> None:
    # `bots/_planner.py` and its kin serve `abyss_rules.bots` alone: nothing outside `bots/`
    # imports them (the tests of their internals do, from outside the package).
    graph = _imports()

    def private_elsewhere(name: str, dep: str) -> bool:
        package, _, last = dep.rpartition(".")
        inside = name == package or name.startswith(package + ".")
        return last.startswith("_") and not last.startswith("__") and not inside

    bad = {name: sorted(dep for dep in deps if private_elsewhere(name, dep)) for name, deps in graph.items()}
    assert {name: deps for name, deps in bad.items() if deps} == {}
    assert {"abyss_rules.bots._planner", "abyss_rules.bots._tables"} <= graph["abyss_rules.bots"]


def test_the_private_import_finder_finds_one() -> None:
    source = ("from .state import _PRESENTERS, State\nfrom ..grid import __version__\nimport os\n"
              "from json import _default_decoder\nfrom abyss_rules.cli.options import _UsageError\n")
    assert _private_names(ast.parse(source)) == {"_PRESENTERS", "_UsageError"}
    package = "from . import _planner, _odds\nfrom .. import _sha256_blocks\n"
    assert _private_names(ast.parse(package), frozenset({"_planner"})) == {"_odds", "_sha256_blocks"}


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _top_level_names_in_the_architecture_page() -> list[str]:
    """The names of the list under `<!-- top-level names -->` (up to the next blank line)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text[text.index("<!-- top-level names -->"):].split("\n\n", 1)[0]
    return re.findall(r"`(\w+)`", block)


def test_the_facade_exports_only_the_listed_names() -> None:
    """The package itself exports the game, the errors and the JSON of the documents: exactly the
    names docs/architecture.md lists (at most ~50). Everything else is imported from its module,
    and the package has no other public name (`ar.to_svg` is an `AttributeError`)."""
    import types

    import abyss_rules

    listed = _top_level_names_in_the_architecture_page()
    assert sorted(abyss_rules.__all__) == sorted(listed), set(abyss_rules.__all__) ^ set(listed)
    assert len(abyss_rules.__all__) == len(set(abyss_rules.__all__)) <= 50
    public = {name for name, value in vars(abyss_rules).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public == set(abyss_rules.__all__) - {"__version__"}
    errors = importlib.import_module("abyss_rules.errors")
    error_classes = {name for name in errors.__all__ if isinstance(getattr(errors, name), type)
                     and issubclass(getattr(errors, name), abyss_rules.AbyssError)}
    assert error_classes <= set(abyss_rules.__all__), "every AbyssError class is at the top level"


def test_the_layout_tree_of_the_architecture_page_is_the_package() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    tree = text[text.index("```text\nabyss_rules/"):]
    tree = tree[:tree.index("\n```", 8)]
    listed = re.findall(r"^[├└]── (\w+(?:\.py|/))", tree, flags=re.MULTILINE)
    actual = [path.name + ("/" if path.is_dir() else "") for path in PACKAGE.iterdir()
              if (path.suffix == ".py" or (path / "__init__.py").exists())
              and (path.name == "__init__.py" or not path.name.startswith("_"))]
    assert len(listed) == len(set(listed)) and sorted(listed) == sorted(actual), set(listed) ^ set(actual)


def test_only_rules_builds_or_unpacks_a_state_by_position() -> None:
    from abyss_rules.rules._positional import ORDER, SHORT_NAMES

    builders, unpackings, bad = set(), 0, []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr == "__new__"
                    and isinstance(node.value, ast.Name) and node.value.id == "tuple"):
                builders.add(name)
            for target in node.targets if isinstance(node, ast.Assign) else []:
                if not (isinstance(target, ast.Tuple) and len(target.elts) == len(ORDER)):
                    continue
                unpackings += 1
                names = [element.id if isinstance(element, ast.Name) else "?" for element in target.elts]
                wrong = [f"{local} for {field}" for field, local in zip(ORDER, names, strict=True)
                         if local != "_" and local not in SHORT_NAMES[field]]
                if not name.startswith("abyss_rules.rules.") or wrong:
                    bad.append(f"{name}:{node.lineno}: {wrong or 'outside rules/'}")
    assert builders == {"abyss_rules.rules._positional"}
    assert bad == [] and unpackings >= 6, (bad, unpackings)
