"""The built distributions: what a user gets from `pip install abyss-rules`.

The sdist and the wheel are built in-process with the project's own build backend (hatchling,
from the `test` extra), then opened: the package metadata (project URLs, a long description
whose links work outside the repository), the JSON Schemas inside the wheel (so that
`abyss_rules.json_schemas.schema` works from an installed wheel), the sdist (what the build
needs, without the docs' vendored assets) and `twine check` on both.
"""

from __future__ import annotations

import email
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

hatchling_build = pytest.importorskip("hatchling.build", reason="hatchling (the `test` extra) is needed")


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    out = tmp_path_factory.mktemp("dist")
    here = Path.cwd()
    os.chdir(ROOT)  # the backend builds the project in the current directory
    try:
        sdist = out / hatchling_build.build_sdist(str(out))
        # (a pure wheel, as ABYSS_RULES_PURE=1 asks; tests/test_compiled.py builds the compiled one)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ABYSS_RULES_PURE", "1")
            wheel = out / hatchling_build.build_wheel(str(out))
    finally:
        os.chdir(here)
    yield sdist, wheel


def test_abyss_rules_pure_gives_a_pure_wheel_that_keeps_the_build_hook_in_the_sdist(
        dists: tuple[Path, Path]) -> None:
    sdist, wheel = dists
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as z:
        assert not [n for n in z.namelist() if n.endswith((".so", ".pyd"))]
    with tarfile.open(sdist) as t:  # (an sdist builds its wheel with the same hook)
        assert any(n.endswith("/hatch_build.py") for n in t.getnames())


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(z.read(name))


def test_the_run_time_dependencies_are_attrs_and_on_3_11_typing_extensions(dists: tuple[Path, Path]) -> None:
    """attrs everywhere; typing_extensions only where the documents' TypedDicts need it for
    Pydantic (Python 3.11: see `abyss_rules.documents`); every other library is in an extra."""
    required = [r for r in _metadata(dists[1]).get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert sorted(r.replace(" ", "") for r in required) == [
        "attrs>=23.1", "typing-extensions>=4.7;python_version<'3.12'"], required


def test_the_metadata_points_at_no_made_up_address(dists: tuple[Path, Path]) -> None:
    """The project has no public home yet: no Project-URL, and no link in the long description
    to any host but the external reference the README cites and the docs site served on loopback
    (pyproject.toml says why)."""
    meta = _metadata(dists[1])
    assert meta.get_all("Project-URL") is None
    hosts = set(re.findall(r"https?://([^/)\s]+)", meta.get_payload()))
    assert hosts == {"www.attrs.org", "127.0.0.1:8001"}, hosts  # 127.0.0.1: the docs site, served locally


def test_the_long_description_starts_with_the_users_install(dists: tuple[Path, Path]) -> None:
    """Written for the package index: its first command is the user's `pip install abyss-rules`; the
    clone's editable install comes later, under Development."""
    description = _metadata(dists[1]).get_payload()
    blocks = [b.strip() for b in re.findall(r"```bash\n(.*?)```", description, re.S)]
    assert blocks[0] == "pip install abyss-rules"
    assert description.index("pip install -e") > description.index("## Development")


def test_the_long_description_has_no_relative_link(dists: tuple[Path, Path]) -> None:
    meta = _metadata(dists[1])
    assert meta["Description-Content-Type"] == "text/markdown"
    description = meta.get_payload()
    assert isinstance(description, str) and description.startswith("# abyss-rules")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(re.findall(r"\]\((?![a-z]+:|#)[^)]+\)", readme)) > 10  # the repository keeps them
    targets = re.findall(r"\]\(([^)]+)\)", description)
    assert [t for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")] == []
    # Each became its text and the file's name, a file the sdist carries.
    assert "Getting started (`docs/getting-started.md`)" in description
    assert "](docs/getting-started.md)" in readme
    assert "[`spec/rules.md`]" not in description and "`spec/rules.md`" in description
    with tarfile.open(dists[0]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    linked = {t.split("#")[0] for t in re.findall(r"\]\((?![a-z]+:|#)([^)]+)\)", readme)}
    assert linked and linked <= names, linked - names  # (the README's links, not its other words)


def test_the_wheel_carries_the_schemas_and_ar_schema_reads_them(dists: tuple[Path, Path],
                                                               tmp_path: Path) -> None:
    wheel = dists[1]
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        z.extractall(tmp_path)
    packaged = sorted(n.removeprefix("abyss_rules/schemas/") for n in names
                      if n.startswith("abyss_rules/schemas/"))
    assert packaged == sorted(p.name for p in (ROOT / "spec" / "schemas").glob("*.schema.json"))
    # The unpacked wheel, first on sys.path, is what an installed wheel is: no source tree beside it.
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import abyss_rules as ar; "
              "from abyss_rules.json_schemas import SCHEMAS, schema; "
              "assert ar.__file__.startswith(sys.argv[1]), ar.__file__; "
              "print(len(SCHEMAS), schema('state')['properties']['format']['const'])")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                         check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [str(len(packaged)), "state"]


def test_the_sdist_leaves_out_the_vendored_docs_assets(dists: tuple[Path, Path]) -> None:
    with tarfile.open(dists[0]) as tar:
        sizes = {member.name: member.size for member in tar.getmembers() if member.isfile()}
    names = list(sizes)
    assert any(n.endswith("/spec/schemas/state.schema.json") for n in names)  # the wheel needs them
    assert any(n.endswith("/README.md") for n in names)
    assert not [n for n in names if "/docs/assets/javascripts/" in n and "mermaid" in n]
    assert not [n for n in names if "/.venv" in n or "/site/" in n]
    assert sum(size for name, size in sizes.items() if "/docs/" in name) < 1_000_000  # Mermaid: 3.5 MB


def test_the_sdist_holds_what_the_build_needs_and_the_files_its_description_names(
        dists: tuple[Path, Path]) -> None:
    with tarfile.open(dists[0]) as tar:
        top = {name.split("/")[1] for name in tar.getnames() if name.count("/") >= 1}
    # The build's inputs, the files the long description names (docs/, CHANGELOG.md), PKG-INFO and
    # the .gitignore hatchling always adds; no tests, benchmarks, examples, tools or CI script.
    assert top == {"pyproject.toml", "hatch_build.py", "README.md", "LICENSE", "src", "spec", "docs",
                   "CHANGELOG.md", "PKG-INFO", ".gitignore"}, top


def test_twine_accepts_the_sdist_and_the_pure_wheel(dists: tuple[Path, Path]) -> None:
    pytest.importorskip("twine", reason="twine (the `test` extra) is needed")
    run = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dists)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("PASSED") == 2, run.stdout


def test_every_claimed_python_is_tested_and_built() -> None:
    """The classifiers' Pythons are noxfile.py's sessions and cibuildwheel's builds, no more, no less."""
    import ast
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    claimed = sorted(c.rsplit(" :: ", 1)[1] for c in project["project"]["classifiers"]
                     if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    sessions = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "PYTHONS" for t in node.targets))
    built = sorted(f"3.{b.split('-')[0][3:]}" for b in project["tool"]["cibuildwheel"]["build"].split())
    assert claimed == sorted(sessions) == built == ["3.11", "3.12", "3.13"]
    assert project["project"]["requires-python"] == ">=3.11"


def _pip_wheel(out: Path) -> list[str]:
    """pip building the wheel from the checkout as a user's `pip install .` does (its build environment
    is this one: no download), where no C compiler works (CC=/bin/false: setuptools compiles with it)."""
    return [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
            "--disable-pip-version-check", "--wheel-dir", str(out), str(ROOT)]


_NO_COMPILER = {"CC": "/bin/false", "ABYSS_RULES_PURE": "0", "ABYSS_REQUIRE_COMPILED": "0"}


def _without_mypyc(folder: Path) -> dict[str, str]:
    """The environment of a build where mypyc cannot be imported (a stand-in package that says so,
    first on the path), nor a C compiler run: every part fails at once, without mypyc's type check."""
    (folder / "mypyc").mkdir()
    (folder / "mypyc" / "__init__.py").write_text('raise ImportError("no mypyc here: a stand-in")\n')
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return {**_NO_COMPILER, "PYTHONPATH": path}


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_plain_pip_warns_on_the_terminal_naming_every_part_left_pure(tmp_path: Path) -> None:
    """Plain pip (no -v) shows a successful build's output to nobody: the warning is written on the
    terminal itself, and it names every part that is not compiled, and why."""
    from tests.test_cli_pty import Terminal

    from abyss_rules._compiled import PARTS

    (tmp_path / "out").mkdir()
    term = Terminal([], cols=200, command=_pip_wheel(tmp_path / "out"), env=_without_mypyc(tmp_path),
                    cwd=tmp_path)
    try:
        screen = term.read_until(r"Successfully built abyss-rules\s*$", timeout=600)
    except BaseException:
        term.process.kill()
        term.close()
        raise
    status = term.close()
    assert status == 0, screen[-3000:]
    [wheel] = (tmp_path / "out").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    warning = " ".join(screen[screen.index("abyss-rules: WARNING"):].split("\n\n")[0].split())
    assert f"runs {len(PARTS)} part(s) as pure Python" in warning, screen[-3000:]
    for part in PARTS:  # (each named, and why: no mypyc for the bots, the compiler for the C parts)
        # (setuptools words the compiler's failure in its own way: "command '/bin/false' failed ..."
        # in older releases, "Command '['/bin/false', ...]' returned ..." in newer ones)
        why = "mypyc or setuptools is not installed" if part.mypyc else "the C compiler failed ("
        named = f"{part.name} ({', '.join(part.modules)}): {why}"
        assert named in warning, warning
        assert part.mypyc or "/bin/false" in warning[warning.index(named):].split(");")[0], warning


def test_abyss_require_compiled_fails_the_wheel_step_with_its_own_message(tmp_path: Path) -> None:
    """A release build (ABYSS_REQUIRE_COMPILED=1) without a compiler fails where pip builds the wheel,
    with the hook's message, not as a failure to generate the metadata."""
    (tmp_path / "out").mkdir()
    environment = {**os.environ, **_without_mypyc(tmp_path), "ABYSS_REQUIRE_COMPILED": "1"}
    run = subprocess.run(_pip_wheel(tmp_path / "out"), capture_output=True, text=True, check=False,
                         cwd=tmp_path, env=environment, timeout=600)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert not list((tmp_path / "out").glob("*.whl"))
    assert "metadata-generation-failed" not in output, output[-3000:]
    assert "Building wheel for abyss-rules" in output, output[-3000:]
    assert "abyss-rules: ABYSS_REQUIRE_COMPILED=1 but 3 of the compiled parts could not be compiled" in output


def test_one_pin_per_dependency() -> None:
    """A dependency that several extras list is pinned alike in each (the `dev` extra gathers them)."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins: dict[str, set[str]] = {}
    for requirement in [*project["dependencies"], *(r for rs in project["optional-dependencies"].values()
                                                    for r in rs)]:
        parsed = Requirement(requirement)
        if parsed.name != "abyss-rules":
            pins.setdefault(parsed.name.lower(), set()).add(str(parsed.specifier))
    assert {name: found for name, found in pins.items() if len(found) > 1} == {}
    assert "websockets" in pins and "fastapi" in pins and "pytest-xdist" in pins


def test_no_link_is_tracked() -> None:
    run = subprocess.run(["git", "ls-files", "-s"], capture_output=True, text=True, check=False, cwd=ROOT)
    if run.returncode != 0:
        pytest.skip("not a git checkout")
    assert [line for line in run.stdout.splitlines() if line.startswith("120000")] == []
