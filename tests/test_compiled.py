"""The compiled bots as a user installs them: the wheel that `pip install abyss-rules` builds.

The check takes the user's path: `python -m build` (pip's isolated build: a fresh build
environment holding only `[build-system] requires`, downloaded from the package index) builds
the sdist and then the wheel *from the sdist*; the wheel is installed alone in a fresh virtual
environment (with pytest and Hypothesis to run the tests); there the bots' modules must be the
compiled ones (`bots.COMPILED`, each module's file an extension module of that environment), and
the bots' tests -- `test_bots_decisions.py` (the decisions pinned before the bots were made
faster), `test_planner.py`, `test_bots.py` and `property/test_planner_caches.py` (what the
planner keeps changes no decision, over random bot settings) -- run against it; so do the stream's tests
(`test_randomness.py`: the compiled bulk SHA-256 of `_sha256_blocks.c` against hashlib and the
spec's vectors, and its shuffle against the pure one on every deck size a variant allows), the
deal's (`test_rules_dealing.py`, the golden games of `test_golden.py`) and the batch engine's
(`test_batch_shuffle.py`: both tiers of its shuffle against the reference on every deck size and
seat count; `test_batch.py` and its differential test against the reference engine), which hash
and shuffle through it; and the observation's (`test_envs_seat_observation.py`
and its property test: `_seat_encode.c`'s vectors against the view's encoding, with the `rl`
extra installed). The wheel's tag must be a
platform tag of this interpreter, never `py3-none-any`, and `twine check` must accept it.

`bots._odds`, `bots._model`, `bots._tables` and `bots._planner` are built by mypyc from the very sources
(hatch_build.py). Without `build`, a package index or a C compiler the hook builds a pure wheel
(or none) and this test skips, loudly; `ABYSS_REQUIRE_COMPILED=1` (set by `.ci/run` once it has a
C compiler) makes that a failure, and so does `CI=true` wherever a C compiler is on the PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("bots._odds", "bots._model", "bots._tables", "bots._planner")
EXTENSIONS = ("_sha256_blocks", "_seat_encode")  # (written in C: the word streams' bulk SHA-256 and
# shuffles, and the environments' observation vector)
TESTS = ("test_bots_decisions.py", "test_planner.py", "test_bots.py", "property/test_planner_caches.py",
         "test_randomness.py", "test_rules_dealing.py", "test_golden.py", "test_batch_shuffle.py",
         "test_batch.py", "property/test_batch_differential.py",
         "test_envs_seat_observation.py", "property/test_envs_observation_secrets.py")


def _missing(reason: str) -> None:
    if os.environ.get("ABYSS_REQUIRE_COMPILED") == "1":
        pytest.fail(f"ABYSS_REQUIRE_COMPILED=1 but {reason}")
    if os.environ.get("CI") == "true" and shutil.which("cc"):
        pytest.fail(f"CI=true and a C compiler is on the PATH, but {reason}")
    pytest.skip(f"!!! THE COMPILED BOTS ARE NOT TESTED: {reason} !!!")


def _run(*command: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "ABYSS_RULES_PURE"}
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, check=False,
                          cwd=cwd, env=environment)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel): `python -m build` builds the sdist, then the wheel from the sdist, isolated."""
    try:
        import build  # noqa: F401  (the `test` extra)
    except ImportError:
        _missing("`build` is not installed (the `test` extra has it)")
    out = tmp_path_factory.mktemp("dist")
    run = _run(sys.executable, "-m", "build", "--outdir", out, ROOT)
    if run.returncode != 0:
        _missing(f"`python -m build` failed (no package index?):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    (sdist,), (wheel,) = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    # The output folder holds the distributions only (the compile's work is a temporary folder's).
    assert sorted(p.name for p in out.iterdir()) == sorted((sdist.name, wheel.name))
    if wheel.name.endswith("-py3-none-any.whl"):
        warning = [line for line in (run.stdout + run.stderr).splitlines() if "abyss-rules:" in line]
        _missing(f"the isolated build made a pure wheel: {warning}")
    return sdist, wheel


@pytest.fixture(scope="module")
def installed(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python of a fresh virtual environment holding the wheel with its `batch` and `rl` extras
    (NumPy, Gymnasium and PettingZoo), and pytest and Hypothesis."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # (--no-compile: the modules the tests import are compiled to bytecode as they are imported; the
    # rest of NumPy, Gymnasium and the test tools need not be)
    run = _run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
               f"{built[1]}[batch,rl]", "pytest>=8.1", "hypothesis>=6.100")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return python


def test_the_wheel_is_tagged_for_this_platform_and_holds_the_compiled_modules(built: tuple[Path, Path],
                                                                              tmp_path: Path) -> None:
    from packaging.tags import sys_tags
    from packaging.utils import parse_wheel_filename

    tags = parse_wheel_filename(built[1].name)[3]
    assert {str(t) for t in tags} <= {str(t) for t in sys_tags()}, tags
    assert all(t.platform != "any" and t.abi != "none" for t in tags), tags
    with zipfile.ZipFile(built[1]) as z:
        z.extractall(tmp_path)
    package = tmp_path / "abyss_rules"
    extensions = [p.relative_to(package) for p in package.rglob("*") if p.suffix in (".so", ".pyd")]
    for name in MODULES:
        assert (package / f"{name.replace('.', '/')}.py").is_file()  # (the source: documentation and types)
    # One extension module for each of them and the C one, and everything else stays pure Python.
    assert sorted(".".join((*p.parent.parts, p.name.split(".")[0])) for p in extensions) == sorted(
        MODULES + EXTENSIONS)
    assert not list(package.rglob("*.c"))  # (the C source is the sdist's)


def test_twine_accepts_the_sdist_and_the_compiled_wheel(built: tuple[Path, Path]) -> None:
    pytest.importorskip("twine", reason="twine (the `test` extra) is needed")
    run = _run(sys.executable, "-m", "twine", "check", "--strict", *built)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("PASSED") == 2, run.stdout


def test_the_installed_wheel_is_compiled_and_makes_the_pinned_decisions(installed: Path) -> None:
    script = (
        "import sys, sysconfig, importlib.machinery as m, abyss_rules.bots as b; "
        "site = sysconfig.get_paths()['platlib']; "
        f"names = {MODULES!r}; "
        "mods = [sys.modules['abyss_rules.' + n] for n in names]; "
        "bad = [x.__file__ for x in mods if not x.__file__.startswith(site) "
        "or not x.__file__.endswith(tuple(m.EXTENSION_SUFFIXES))]; "
        "assert not bad, bad; assert b.COMPILED is True; "
        "import abyss_rules.randomness as r, abyss_rules._sha256_blocks as h; assert r.COMPILED is True; "
        "assert r.compiled_row_shuffle() is h.shuffle_rows; "
        "assert h.__file__.startswith(site), h.__file__; "
        "import abyss_rules.envs._seat_observation as o; assert o.COMPILED is True; "
        "import pytest; sys.exit(pytest.main(['-q', '-rs', '-p', 'no:cacheprovider', *sys.argv[1:]]))"
    )
    run = _run(installed, "-c", script, *(ROOT / "tests" / t for t in TESTS))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
    assert "no compiled bulk hash here" not in run.stdout  # (its tests ran on the wheel's, none skipped)
    assert "no compiled shuffle here" not in run.stdout  # (both tiers of the batch's shuffle ran)
    assert "no compiled observation here" not in run.stdout  # (both tiers of the observation ran)


def test_abyss_rules_pure_at_run_time_takes_the_sources_of_the_installed_wheel(installed: Path) -> None:
    """`ABYSS_RULES_PURE=1` when the package is imported: the bots' modules are the wheel's `.py`
    sources (not its compiled modules beside them), the hashing and the observations the pure tiers,
    and the bots make the same pinned decisions."""
    script = (
        "import sys, abyss_rules.bots as b, abyss_rules.randomness as r, "
        "abyss_rules.envs as o; "
        f"names = {MODULES!r}; "
        "files = [sys.modules['abyss_rules.' + n].__file__ for n in names]; "
        "assert all(f.endswith('.py') for f in files), files; "
        "assert (b.COMPILED, r.COMPILED, o.COMPILED) == (False, False, False); "
        "import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *sys.argv[1:]]))"
    )
    run = subprocess.run([str(installed), "-c", script, str(ROOT / "tests" / "test_bots_decisions.py")],
                         capture_output=True, text=True, check=False, cwd=ROOT,
                         env={**os.environ, "ABYSS_RULES_PURE": "1"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


def test_the_installed_command_reports_every_part_compiled(installed: Path) -> None:
    from abyss_rules._compiled import PARTS

    command = installed.parent / ("abyss-rules.exe" if os.name == "nt" else "abyss-rules")
    run = _run(command, "--version", cwd=installed.parent)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("abyss-rules ") and lines[1] == "compiled:", run.stdout
    assert lines[2:] == [f"  {part.name} ({part.serves})" for part in PARTS], run.stdout


def test_no_float_sum_over_a_generator_in_the_compiled_modules() -> None:
    # mypyc compiles `sum(<generator expression>)` to a loop of additions, while the built-in
    # `sum` the sources call compensates float rounding from Python 3.12 on: the two would add
    # differently. Lists and maps go to the built-in in both (docs/architecture.md).
    import ast

    found = []
    for name in MODULES:
        path = ROOT / "src" / "abyss_rules" / f"{name.replace('.', '/')}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum"
                    and node.args and isinstance(node.args[0], ast.GeneratorExp)):
                found.append(f"{name}.py:{node.lineno}")
    assert not found, found


def test_the_build_hook_compiles_these_modules() -> None:
    import runpy

    from abyss_rules._compiled import PARTS

    assert tuple(m for part in PARTS if part.mypyc for m in part.modules) == MODULES
    assert tuple(m for part in PARTS if not part.mypyc for m in part.modules) == EXTENSIONS
    # (the hook reads that very list, from the source tree: hatch_build.py is the build's own file)
    hook = runpy.run_path(str(ROOT / "hatch_build.py"))
    assert [tuple(part) for part in hook["parts"](ROOT)] == [tuple(part) for part in PARTS]
    assert all((ROOT / "src" / "abyss_rules" / f"{name}.c").is_file() for name in EXTENSIONS)
    # ... and the modules `bots.COMPILED` looks at are the same ones.
    from abyss_rules import bots

    assert tuple(m.__name__.removeprefix("abyss_rules.") for m in bots._COMPILED_MODULES) == MODULES
