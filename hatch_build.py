"""The wheel's build hook: the bots' modules compiled to C extensions by mypyc, from their source,
and the bulk SHA-256 of the word streams (`_sha256_blocks.c`) and the environments' observation
writer (`_seat_encode.c`) compiled beside them.

`GreedyBot` and `CountingBot` spend their time in the planner's modules (`bots._odds`,
`bots._model`, `bots._tables`, `bots._planner`). mypyc (part of mypy) compiles those very files, with
their type annotations, into C extension modules; Python imports an extension before a `.py` of the same
name, and the wheel carries both (the sources stay its documentation and its type information).
The compiled modules make exactly the same decisions: `tests/test_compiled.py` builds a wheel
with this hook and compares its bots' decisions with the sources'.

A wheel is pure Python instead when

- the environment sets `ABYSS_RULES_PURE=1`,
- it is an editable install (`pip install -e .`: a checkout runs its sources, so an edit takes
  effect at once and no compiled module can be stale), or
- mypyc or a C compiler is missing, or compiling fails (a warning says so; nothing else changes),
  unless the environment sets `ABYSS_REQUIRE_COMPILED=1` (a release build): then the build fails.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = ("bots._odds", "bots._model", "bots._tables", "bots._planner")
"""The modules of `src/abyss_rules` that mypyc compiles (the bots' planner, tables, model and odds),
by their dotted names under `abyss_rules`."""

EXTENSIONS = ("_sha256_blocks", "_seat_encode")
"""The C extension modules written in C, `src/abyss_rules/NAME.c`: the stream blocks of many games
hashed in one call, behind `randomness.many_stream_blocks`, and a seat's observation vector,
the compiled tier of `envs._seat_observation`."""


class CompiledBots(BuildHookInterface):  # type: ignore[type-arg]
    """hatchling's custom build hook (`[tool.hatch.build.targets.wheel.hooks.custom]`)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable" or os.environ.get("ABYSS_RULES_PURE") == "1":
            return
        try:
            built = _compile(Path(self.root), Path(self.directory) / ".mypyc")
        except (Exception, SystemExit) as error:  # (no mypyc, no compiler, a failed build: a pure
            # wheel; mypyc exits when its type check fails)
            if os.environ.get("ABYSS_REQUIRE_COMPILED") == "1":
                raise RuntimeError(f"abyss-rules: ABYSS_REQUIRE_COMPILED=1 but the bots could not be "
                                   f"compiled ({type(error).__name__}: {error})") from error
            self.app.display_warning(f"abyss-rules: the bots are not compiled ({type(error).__name__}: "
                                     f"{error}); the wheel is pure Python")
            return
        for path, target in built:
            build_data["force_include"][str(path)] = target
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def _compile(root: Path, work: Path) -> list[tuple[Path, str]]:
    """Compile `COMPILED` in `work`; the extension modules built, with their paths in the wheel."""
    from mypyc.build import mypycify
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    source = work / "src"
    shutil.copytree(root / "src" / "abyss_rules", source / "abyss_rules")
    here = os.getcwd()
    os.chdir(source)  # (mypyc names a module by its path: abyss_rules/bots/_planner.py is
    # abyss_rules.bots._planner)
    try:
        paths = [f"abyss_rules/{name.replace('.', '/')}.py" for name in COMPILED]
        extensions = mypycify(paths, opt_level="3",
                              group_name="abyss_rules_bots", target_dir=str(work / "c"))
        extensions += [Extension(f"abyss_rules.{name}", [f"abyss_rules/{name}.c"]) for name in EXTENSIONS]
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
    expected = len(COMPILED) + len(EXTENSIONS)
    if len([b for b in built if b[1].startswith("abyss_rules/")]) != expected:
        raise RuntimeError(f"expected {expected} compiled modules, got {[b[1] for b in built]}")
    return built


__all__ = ["COMPILED", "EXTENSIONS", "CompiledBots"]
