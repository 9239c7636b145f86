"""The compiled bots: the wheel's `bot_odds`, `bot_model`, `bot_tables` and `planner` built by mypyc
from the very sources (hatch_build.py) make exactly the decisions of the sources.

A wheel is built in-process with the project's own build backend and its hook, unpacked, and
the bots' tests -- `test_bots_decisions.py` (the decisions pinned before the bots were made
faster), `test_planner.py`, `test_bots.py` and `property/test_planner_shortcuts.py` (every
shortcut decides as the full planner, over random bot settings) -- run again in a child
process with the unpacked wheel first on `sys.path`, after checking that the four modules it
imports are the compiled ones. Without mypyc or a C compiler the hook builds a pure wheel and
this test skips, loudly; `ABYSS_REQUIRE_COMPILED=1` (set by `.ci/run`) makes that a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("bot_odds", "bot_model", "bot_tables", "planner")
TESTS = ("test_bots_decisions.py", "test_planner.py", "test_bots.py", "property/test_planner_shortcuts.py")

hatchling_build = pytest.importorskip("hatchling.build", reason="hatchling (the `test` extra) is needed")


def _missing(reason: str) -> None:
    if os.environ.get("ABYSS_REQUIRE_COMPILED") == "1":
        pytest.fail(f"ABYSS_REQUIRE_COMPILED=1 but {reason}")
    pytest.skip(f"!!! THE COMPILED BOTS ARE NOT TESTED: {reason} !!!")


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    for name in ("mypyc", "setuptools"):
        try:
            __import__(name)
        except ImportError:
            _missing(f"{name} is not installed (the `test` extra has it)")
    out = tmp_path_factory.mktemp("compiled")
    here = Path.cwd()
    os.chdir(ROOT)  # the backend builds the project in the current directory
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("ABYSS_RULES_PURE", raising=False)
            wheel = out / "dist" / hatchling_build.build_wheel(str(out / "dist"))
    finally:
        os.chdir(here)
    with zipfile.ZipFile(wheel) as z:
        z.extractall(out / "wheel")
    if wheel.name.endswith("-py3-none-any.whl"):
        _missing("the build hook made a pure wheel (no C compiler? its warning says why)")
    yield out / "wheel"


def test_the_wheel_holds_the_compiled_modules_beside_their_sources(unpacked: Path) -> None:
    package = unpacked / "abyss_rules"
    extensions = [p.name for p in package.iterdir() if p.suffix in (".so", ".pyd")]
    for name in MODULES:
        assert (package / f"{name}.py").is_file()  # (the source: documentation and types)
    # One extension module for each of them, and everything else stays pure Python.
    assert sorted(n.split(".")[0] for n in extensions) == sorted(MODULES)


def test_the_compiled_bots_make_the_pinned_decisions(unpacked: Path) -> None:
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "import importlib.machinery as m, abyss_rules.bots as b; "
        f"names = {MODULES!r}; "
        "mods = [sys.modules['abyss_rules.' + n] for n in names]; "
        "bad = [x.__file__ for x in mods if not x.__file__.startswith(sys.argv[1]) "
        "or not x.__file__.endswith(tuple(m.EXTENSION_SUFFIXES))]; "
        "assert not bad, bad; assert b.COMPILED; "
        "import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *sys.argv[2:]]))"
    )
    tests = [str(ROOT / "tests" / t) for t in TESTS]
    run = subprocess.run([sys.executable, "-c", script, str(unpacked), *tests], capture_output=True,
                         text=True, check=False, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


def test_no_float_sum_over_a_generator_in_the_compiled_modules() -> None:
    # mypyc compiles `sum(<generator expression>)` to a loop of additions, while the built-in
    # `sum` the sources call compensates float rounding from Python 3.12 on: the two would add
    # differently. Lists and maps go to the built-in in both (docs/architecture.md).
    import ast

    found = []
    for name in MODULES:
        path = ROOT / "src" / "abyss_rules" / f"{name}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum"
                    and node.args and isinstance(node.args[0], ast.GeneratorExp)):
                found.append(f"{name}.py:{node.lineno}")
    assert not found, found


def test_the_build_hook_compiles_these_modules() -> None:
    # (hatch_build.py is the build's own file, beside pyproject.toml: read its list, do not import it)
    import ast

    tree = ast.parse((ROOT / "hatch_build.py").read_text(encoding="utf-8"))
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets))
    assert tuple(listed) == MODULES
    # ... and the modules `bots.COMPILED` looks at are the same ones.
    from abyss_rules import bots

    assert tuple(m.__name__.removeprefix("abyss_rules.") for m in bots._COMPILED_MODULES) == MODULES
