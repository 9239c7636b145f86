"""The wheel's build: the build backend (hatchling's, `[build-system] build-backend`) and its hook,
which compiles the parts of `src/abyss_rules/_compiled.py` into the wheel.

**The hook.** `GreedyBot` and `CountingBot` spend their time in the planner's modules (`bots._odds`,
`bots._model`, `bots._tables`, `bots._planner`). mypyc (part of mypy) compiles those very files, with
their type annotations, into C extension modules; Python imports an extension before a `.py` of the
same name, and the wheel carries both (the sources stay its documentation and its type information).
The parts written in C (`src/abyss_rules/NAME.c`: the stream blocks of many games hashed in one call,
a seat's observation vector) are compiled beside them. The compiled modules give exactly the same
results: `tests/test_compiled.py` builds a wheel with this hook and compares them with the sources'.
Each part is compiled on its own, in a temporary folder (the output folder receives the
distributions only).

A part is left pure Python when mypyc or a C compiler is missing or compiling it fails: the build
then warns, naming every part lost and why -- on the terminal itself, since pip shows a successful
build's output only with `-v` -- and the wheel carries the rest. The whole wheel is pure Python when

- the environment sets `ABYSS_RULES_PURE=1`, or
- it is an editable install (`pip install -e .`: a checkout runs its sources, so an edit takes
  effect at once and no compiled module can be stale).

With `ABYSS_REQUIRE_COMPILED=1` (a release build) a part that cannot be compiled fails the build
instead, with a message that names the parts and why.

**The backend** is hatchling's, with one change: it prepares the wheel's metadata without building
the wheel under pip too. (Hatchling leaves that hook out under pip, which then builds the whole wheel
while "preparing metadata", so that a failed compile read as `metadata-generation-failed`; this hook
changes no metadata, so the metadata prepared alone is the wheel's.) A failed compile now fails pip's
"Building wheel" step, with the hook's own message.
"""

from __future__ import annotations

import os
import runpy
import shutil
import tempfile
from pathlib import Path
from typing import Any

# The backend: hatchling's hooks, its metadata hooks included (it defines them only where pip's
# build tracker is not in the environment).
_tracker = os.environ.pop("PIP_BUILD_TRACKER", None)
try:
    from hatchling.build import (
        build_editable,
        build_sdist,
        build_wheel,
        get_requires_for_build_editable,
        get_requires_for_build_sdist,
        get_requires_for_build_wheel,
        prepare_metadata_for_build_editable,
        prepare_metadata_for_build_wheel,
    )
finally:
    if _tracker is not None:
        os.environ["PIP_BUILD_TRACKER"] = _tracker

from hatchling.builders.hooks.plugin.interface import BuildHookInterface  # noqa: E402

_PARTS_FILE = Path("src") / "abyss_rules" / "_compiled.py"


def parts(root: Path) -> tuple[Any, ...]:
    """`abyss_rules._compiled.PARTS`, read from the source tree at `root` (not imported)."""
    found: tuple[Any, ...] = runpy.run_path(str(root / _PARTS_FILE))["PARTS"]
    return found


class CompiledParts(BuildHookInterface):  # type: ignore[type-arg]
    """hatchling's custom build hook (`[tool.hatch.build.targets.wheel.hooks.custom]`)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._work: Path | None = None
        if self.target_name != "wheel" or version == "editable" or os.environ.get("ABYSS_RULES_PURE") == "1":
            return
        self._work = Path(tempfile.mkdtemp(prefix="abyss-rules-build-"))
        built, lost = [], []
        for number, part in enumerate(parts(Path(self.root))):
            try:
                built += _compile(Path(self.root), self._work / str(number), part)
            except (Exception, SystemExit) as error:  # (no mypyc, no compiler, a failed build; mypyc
                # exits when its type check fails)
                lost.append((part, _why(error)))
        if lost:
            listed = "; ".join(f"{part.name} ({', '.join(part.modules)}): {why}" for part, why in lost)
            if os.environ.get("ABYSS_REQUIRE_COMPILED") == "1":
                raise RuntimeError(f"abyss-rules: ABYSS_REQUIRE_COMPILED=1 but {len(lost)} of the compiled "
                                   f"parts could not be compiled: {listed}")
            _warn(self.app, f"abyss-rules: WARNING: this wheel runs {len(lost)} part(s) as pure Python, "
                            f"more slowly: {listed}. Install a C compiler (and build with mypy, as the "
                            f"build requirements say) to compile them; `abyss-rules --version` tells "
                            f"which parts an install runs compiled.")
        if built:
            for path, target in built:
                build_data["force_include"][str(path)] = target
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_work", None) is not None:
            shutil.rmtree(self._work, ignore_errors=True)  # type: ignore[arg-type]


def _why(error: BaseException) -> str:
    if isinstance(error, ImportError):
        return f"mypyc or setuptools is not installed ({error})"
    if isinstance(error, SystemExit):
        return "mypyc's type check failed"
    if type(error).__name__ in ("CompileError", "LinkError"):  # (setuptools': the compiler or linker)
        return f"the C compiler failed ({error})".replace("\n", " ")
    return f"{type(error).__name__}: {error}".replace("\n", " ")


def _warn(app: Any, message: str) -> None:
    """`message` on the terminal (pip hides a successful build's output), or as hatchling's warning."""
    try:
        with open("/dev/tty" if os.name != "nt" else "CONOUT$", "w", encoding="utf-8") as terminal:
            terminal.write(f"\n{message}\n\n")
    except OSError:  # (no terminal: a CI log, say -- hatchling's warning goes to the build's output)
        pass
    app.display_warning(message)


def _compile(root: Path, work: Path, part: Any) -> list[tuple[Path, str]]:
    """Compile one part in `work`; the extension modules built, with their paths in the wheel."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    work.mkdir(parents=True)
    source = work / "src"
    shutil.copytree(root / "src" / "abyss_rules", source / "abyss_rules")
    here = os.getcwd()
    os.chdir(source)  # (mypyc names a module by its path: abyss_rules/bots/_planner.py is
    # abyss_rules.bots._planner)
    try:
        if part.mypyc:
            from mypyc.build import mypycify

            paths = [f"abyss_rules/{name.replace('.', '/')}.py" for name in part.modules]
            extensions = mypycify(paths, opt_level="3", group_name="abyss_rules_bots",
                                  target_dir=str(work / "c"))
        else:
            extensions = [Extension(f"abyss_rules.{name}", [f"abyss_rules/{name}.c"])
                          for name in part.modules]
        command = build_ext(Distribution({"name": "abyss-rules", "ext_modules": extensions}))
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "temp")
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(here)
    lib = work / "lib"
    found = sorted(lib.rglob("*.so")) + sorted(lib.rglob("*.pyd"))
    built = [(path, path.relative_to(lib).as_posix()) for path in found]
    names = {target.split(".")[0].removeprefix("abyss_rules/").replace("/", ".") for _, target in built}
    if not set(part.modules) <= names:
        raise RuntimeError(f"expected the modules {list(part.modules)}, got {[b[1] for b in built]}")
    return built


__all__ = [
    "CompiledParts",
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "parts",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]
