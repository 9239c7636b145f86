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
    ("abyss_rules.state", "abyss_rules.pictures._svg"),
    ("abyss_rules.views", "abyss_rules.pictures._svg"),
    ("abyss_rules.views", "abyss_rules.codec._view"),
    # The documents' Pydantic hooks call the library's readers, only when Pydantic asks for them.
    ("abyss_rules._document_hooks", "abyss_rules.codec"),
    ("abyss_rules._document_hooks", "abyss_rules.codec._strict"),
    ("abyss_rules._document_hooks", "abyss_rules.records"),
    ("abyss_rules._document_hooks", "abyss_rules.json_schemas"),
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


def _with_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """`graph` with the imports Python makes implicitly: importing `abyss_rules.rules._engine`
    from outside `rules/` runs the package's `rules/__init__.py` first (the facade
    `abyss_rules`, which every import runs first, is left out: no module imports it)."""
    full = {}
    for name, deps in graph.items():
        implied = set()
        for dep in deps:
            parts = dep.split(".")
            for k in range(2, len(parts)):
                package = ".".join(parts[:k])
                if package in graph and name != package and not name.startswith(package + "."):
                    implied.add(package)
        full[name] = deps | implied
    return full


def test_no_import_cycle() -> None:
    assert _cycles(_with_packages(_imports())) == []


def test_the_implied_imports_of_packages_are_seen() -> None:
    graph = _with_packages({"abyss_rules.rules": {"abyss_rules.rules._engine"},
                            "abyss_rules.rules._engine": {"abyss_rules.views"},
                            "abyss_rules.views": {"abyss_rules.rules._legal"},
                            "abyss_rules.rules._legal": set()})
    assert _cycles(graph) == [["abyss_rules.rules", "abyss_rules.rules._engine", "abyss_rules.views"]]


def test_the_imports_on_use_are_made_inside_functions_only() -> None:
    everything, loading = _imports(on_use=True), _imports(on_use=True, top_level_only=True)
    for module, target in sorted(ON_USE):
        assert target in everything[module], f"{module} no longer imports {target}: drop it from ON_USE"
        assert target not in loading[module], f"{module} imports {target} while loading"
    assert _cycles(_with_packages(loading)) == []  # so loading any module never needs itself


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
    # `errors` shows text through `_text` (what UTF-8 can hold), itself a leaf.
    assert graph["abyss_rules._text"] == set()
    for name in ("abyss_rules._event_types", "abyss_rules._versions", "abyss_rules.errors"):
        leaf = {"abyss_rules.errors", "abyss_rules._text"}
        assert graph[name] <= leaf, f"{name} must stay a leaf: {graph[name]}"
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
    # The view document's layout (codec/_view.py) reads and writes the fields of a view object
    # given to it; only the codec's facade pairs them with the `View` class.
    graph = _imports()
    bad = {name: sorted(dep for dep in deps if dep == "abyss_rules.views")
           for name, deps in graph.items() if name.startswith("abyss_rules.codec.")}
    assert {name: deps for name, deps in bad.items() if deps} == {}


def _target(node: ast.ImportFrom, package: list[str]) -> str:
    """The dotted module a `from ... import` names, relative imports resolved in `package`."""
    if node.level:
        base = package[:len(package) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module or ""


def _private_names(tree: ast.AST, package: str = "", modules: frozenset[str] = frozenset()) -> set[str]:
    """The underscore names a module's source imports from the package's own modules.

    A private *module* is not a private name: `from . import _planner` in `bots/` or
    `from .. import _event_types as ev` imports a module of the library (`modules` names them,
    `package` is where the source's relative imports start), which `test_private_modules_*`
    govern.
    """
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("abyss_rules")):
            target = _target(node, package.split(".") if package else [])
            found.update(alias.name for alias in node.names
                         if alias.name.startswith("_") and not alias.name.startswith("__")
                         and f"{target}.{alias.name}" not in modules)
    return found


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def test_no_module_imports_another_modules_private_names() -> None:
    # A piece two modules share has a public name in the one module that owns it.
    modules = _modules()
    private = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        private[name] = sorted(_private_names(tree, _package_of(name, path), frozenset(modules)))
    assert {name: names for name, names in private.items() if names} == {}


def test_the_private_import_finder_finds_one() -> None:
    source = ("from .state import _PRESENTERS, State\nfrom ..grid import __version__\nimport os\n"
              "from json import _default_decoder\nfrom abyss_rules.cli._options import _UsageError\n")
    assert _private_names(ast.parse(source)) == {"_PRESENTERS", "_UsageError"}
    package = "from . import _planner, _odds\nfrom .. import _sha256_blocks, _grid\n"
    modules = frozenset({"abyss_rules.bots._planner", "abyss_rules._grid"})
    assert _private_names(ast.parse(package), "abyss_rules.bots", modules) == {"_odds", "_sha256_blocks"}


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


API = ROOT / "docs" / "api.md"
MAX_PUBLIC_MODULES: Final = 30
"""A small public surface: at most this many modules a program may import."""


def _public_modules_in_the_api_page() -> list[str]:
    """The modules of the list under `<!-- public modules -->` in docs/api.md (to the next blank line)."""
    text = API.read_text(encoding="utf-8")
    block = text[text.index("<!-- public modules -->"):].split("\n\n", 1)[0]
    return re.findall(r"`(abyss_rules(?:\.\w+)*)`", block)


def test_the_public_modules_are_few_and_those_the_api_page_lists() -> None:
    """Every module without an underscore in its path is public: a program may import it, and
    docs/api.md lists it. Everything else is the library's own (`rules/_turn.py`)."""
    public = sorted(name for name in _modules() if _public(name))
    listed = _public_modules_in_the_api_page()
    assert len(listed) == len(set(listed)) and sorted(listed) == public, set(listed) ^ set(public)
    assert len(public) <= MAX_PUBLIC_MODULES, f"{len(public)} public modules: {public}"


def _user_code() -> dict[str, str]:
    """The code a user reads and copies: the docs' and the README's code blocks, and examples/."""
    fence = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*?)^[ \t]*\1[ \t]*$", re.S | re.M)
    found = {}
    for page in [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]:
        blocks = [m.group(2) for m in fence.finditer(page.read_text(encoding="utf-8"))]
        found[page.relative_to(ROOT).as_posix()] = "\n".join(blocks)
    for script in sorted((ROOT / "examples").rglob("*.py")):
        found[script.relative_to(ROOT).as_posix()] = script.read_text(encoding="utf-8")
    return found


def test_users_code_imports_only_public_modules() -> None:
    """A private module (`abyss_rules.rules._turn`) is the library's business: the docs' examples,
    the README and examples/ import only the public modules, whatever the library does inside."""
    imports = re.compile(r"^\s*(?:from|import)\s+(abyss_rules(?:\.\w+)*)(?:\s+import\s+([\w, ()]+))?", re.M)
    bad = []
    for where, code in _user_code().items():
        for match in imports.finditer(code):
            module, names = match.group(1), match.group(2) or ""
            if not _public(module) or any(n.strip().startswith("_") and not n.strip().startswith("__")
                                          for n in names.strip("()").split(",")):
                bad.append(f"{where}: {match.group(0).strip()}")
    assert bad == []
    assert sum("abyss_rules" in code for code in _user_code().values()) > 10  # the check reads something


def test_the_compiled_planner_is_imported_only_inside_bots() -> None:
    # `bots/_planner.py` and its kin are compiled together (hatch_build.COMPILED) and serve
    # `abyss_rules.bots` alone: nothing outside `bots/` imports them.
    graph = _imports()
    planner = {"abyss_rules.bots._planner", "abyss_rules.bots._tables", "abyss_rules.bots._model",
               "abyss_rules.bots._odds"}
    outside = {name: sorted(deps & planner) for name, deps in graph.items()
               if not name.startswith("abyss_rules.bots") and deps & planner}
    assert outside == {}
    assert {"abyss_rules.bots._planner", "abyss_rules.bots._tables"} <= graph["abyss_rules.bots"]


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _top_level_names_in_the_architecture_page() -> list[str]:
    """The names of the list under `<!-- top-level names -->` (up to the next blank line)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text[text.index("<!-- top-level names -->"):].split("\n\n", 1)[0]
    return re.findall(r"`(\w+)`", block)


def test_the_facade_exports_only_the_listed_names() -> None:
    """The package itself exports the game, the errors and the JSON of the documents: exactly the
    names docs/architecture.md lists (at most ~50: 51 with every error class). Everything else is
    imported from its module, and the package has no other public name (`ar.to_svg` is an
    `AttributeError`)."""
    import types

    import abyss_rules

    listed = _top_level_names_in_the_architecture_page()
    assert sorted(abyss_rules.__all__) == sorted(listed), set(abyss_rules.__all__) ^ set(listed)
    assert len(abyss_rules.__all__) == len(set(abyss_rules.__all__)) <= 51
    public = {name for name, value in vars(abyss_rules).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public == set(abyss_rules.__all__) - {"__version__"}
    errors = importlib.import_module("abyss_rules.errors")
    error_classes = {name for name in errors.__all__ if isinstance(getattr(errors, name), type)
                     and issubclass(getattr(errors, name), abyss_rules.AbyssError)}
    assert error_classes <= set(abyss_rules.__all__), "every AbyssError class is at the top level"


def _tree_of_the_architecture_page() -> list[str]:
    """The paths of the layout tree (`rules/`, `rules/_turn.py`, ...), in the page's order."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    tree = text[text.index("```text\nabyss_rules/"):]
    tree = tree[:tree.index("\n```", 8)]
    paths, package = [], ""
    for line in tree.splitlines()[2:]:  # (after ```text and abyss_rules/)
        match = re.match(r"^([│ ]   )?[├└]── (\w+(?:\.py|/))", line)
        assert match, f"not a line of the tree: {line!r}"
        if match.group(1):
            paths.append(package + match.group(2))
        else:
            package = match.group(2) if match.group(2).endswith("/") else ""
            paths.append(match.group(2))
    return paths


def test_the_layout_tree_of_the_architecture_page_is_the_package() -> None:
    """Every module and package of `src/abyss_rules`, private ones included, is in the tree."""
    listed = _tree_of_the_architecture_page()
    actual = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
              if path.name != "__init__.py" or path.parent == PACKAGE]
    actual += [path.parent.relative_to(PACKAGE).as_posix() + "/" for path in PACKAGE.rglob("*/__init__.py")]
    assert len(listed) == len(set(listed)) and sorted(listed) == sorted(actual), set(listed) ^ set(actual)


def _layers_of_the_architecture_page() -> dict[str, int]:
    """The layer of each entry of the package's top level, from the table under `<!-- layers -->`."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text[text.index("<!-- layers -->"):].split("\n\n", 1)[0]
    layers = {}
    for row in re.findall(r"^\| (\d)\. [^|]+\| ([^|]+) \|", table, flags=re.MULTILINE):
        for name in re.findall(r"`(\w+)/?`", row[1]):
            assert name not in layers, f"{name} in two layers"
            layers[name] = int(row[0])
    return layers


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    layers = _layers_of_the_architecture_page()
    top = {path.name.removesuffix(".py") for path in PACKAGE.iterdir()
           if path.suffix == ".py" or (path / "__init__.py").exists()} - {"__init__"}
    assert set(layers) == top, set(layers) ^ top
    assert sorted(set(layers.values())) == [1, 2, 3, 4, 5]

    def layer(module: str) -> int:
        parts = module.split(".")
        return layers[parts[1]] if len(parts) > 1 else 6  # the facade sits on top of everything

    upward = sorted(f"{name} -> {dep}" for name, deps in _imports().items() for dep in deps
                    if layer(dep) > layer(name))
    assert upward == []


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
