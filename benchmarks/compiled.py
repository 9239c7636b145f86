"""Run a benchmark on the compiled bots: the wheel's build (hatch_build.py compiles the planner's
modules with mypyc) unpacked into a temporary directory, first on the path of a child run.

    python benchmarks/bot_instructions.py --compiled ...   (the scripts that take --compiled)

An editable install runs the sources; a wheel (`pip install .`, or from an index) runs the
compiled modules when its build could compile them. `describe()` says which a run measures.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def describe() -> str:
    """Which bots this process runs: the compiled modules or the sources."""
    from abyss_rules import bots
    from abyss_rules.bots import _planner as planner

    where = os.path.dirname(planner.__file__ or "")
    compiled = getattr(bots, "COMPILED", False)  # (an older version of the package has no flag)
    return f"bots {'compiled (mypyc)' if compiled else 'from their sources'}, in {where}"


def rerun_compiled(argv: list[str]) -> int:
    """Build the compiled wheel, unpack it and run this script again (`argv` without
    `--compiled`) with it first on `PYTHONPATH`; the child's exit status."""
    import hatchling.build

    with tempfile.TemporaryDirectory() as tmp:
        here = os.getcwd()
        os.chdir(ROOT)  # (the backend builds the project in the current directory)
        pure = os.environ.pop("ABYSS_RULES_PURE", None)  # (it would ask for a pure wheel)
        try:
            wheel = Path(tmp) / hatchling.build.build_wheel(tmp)
        finally:
            os.chdir(here)
            if pure is not None:
                os.environ["ABYSS_RULES_PURE"] = pure
        if wheel.name.endswith("-py3-none-any.whl"):
            raise SystemExit("the build made a pure wheel (no mypyc or no C compiler): nothing compiled "
                             "to measure")
        unpacked = Path(tmp) / "wheel"
        with zipfile.ZipFile(wheel) as z:
            z.extractall(unpacked)
        path = os.pathsep.join([str(unpacked), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        return subprocess.run([sys.executable, *argv], env={**os.environ, "PYTHONPATH": path},
                              check=False).returncode
