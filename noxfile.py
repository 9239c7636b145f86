"""Every Python the package claims (3.11, 3.12, 3.13): the core tests and the compiled wheel on each.

    nox                      # every session below, on every Python found
    nox -s tests-3.13        # one Python
    nox -s tests -- -k view  # extra arguments go to pytest

nox rather than tox: a session is plain Python, so it can find pyenv's interpreters (which are not
on the PATH unless chosen), run pytest with the project's own configuration, and needs no plugin.
nox is in the `dev` extra.

Each `tests-X.Y` session makes a fresh virtual environment with that Python, installs the project
editable with the `test` and `batch` extras and Pydantic, and runs

- the core test suite (`CORE`: the rules, the engine, states, views, records, the codec, the
  conformance cases, the bots and their pinned decisions, the randomness, the batch engine, the
  property tests and the package's doctests; the documents' TypedDicts under Pydantic, which
  reads them from `typing_extensions` on 3.11 and from `typing` on 3.12 and later; the core's
  third-party imports), and
- `tests/test_compiled.py`: the sdist, then the wheel built from it by `python -m build` with that
  Python (pip's isolated build: the bots compiled by mypyc), installed alone in a fresh virtual
  environment, where `bots.COMPILED` must be true and the bots' pinned decisions must hold.

The other optional parts (RL environments, the game server, Dask, the docs site,
the browser) are left to the main run (`.ci/run`, Python 3.11 with the `dev` extra): they depend on
third-party packages' support for each Python rather than on this package's code.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import nox

PYTHONS = ["3.11", "3.12", "3.13"]
"""The Pythons of the classifiers in pyproject.toml (tests/test_packaging.py checks they agree)."""

CORE = [
    "tests/test_rules_columns.py", "tests/test_rules_dealing.py", "tests/test_rules_draw_pile.py",
    "tests/test_rules_illegal.py", "tests/test_rules_legal.py", "tests/test_rules_opening.py",
    "tests/test_rules_round_end.py", "tests/test_rules_scoring.py", "tests/test_rules_turn.py",
    "tests/test_engine.py", "tests/test_state.py", "tests/test_views.py", "tests/test_actions.py",
    "tests/test_cards.py", "tests/test_grid.py", "tests/test_errors.py", "tests/test_events.py",
    "tests/test_records.py", "tests/test_notation.py", "tests/test_codec.py", "tests/test_golden.py",
    "tests/test_conformance.py", "tests/test_randomness.py", "tests/test_config.py",
    "tests/test_bots.py", "tests/test_bots_decisions.py", "tests/test_planner.py",
    "tests/test_bot_tables.py", "tests/test_simulation.py", "tests/test_batch.py", "tests/property",
    "tests/test_documents.py", "tests/test_documents_pydantic.py", "tests/test_extras.py",
    "src/abyss_rules", "--ignore=src/abyss_rules/envs", "--ignore=src/abyss_rules/serve",
]
"""The core test suite: the package's own code and the batch engine (the `batch` extra: NumPy)."""

ROOT = Path(__file__).resolve().parent

nox.options.sessions = ["tests"]
nox.options.download_python = "never"  # (an interpreter comes from this machine: pyenv or the PATH)

# pyenv's interpreters, found even when `pyenv global` does not put them on the PATH.
_PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
for _version in PYTHONS:
    for _bin in sorted(glob.glob(str(_PYENV / f"{_version}.*" / "bin")), reverse=True)[:1]:
        os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The core test suite and the compiled wheel from the sdist (see the module docstring)."""
    session.install("-e", ".[test,batch]", "pydantic>=2.7")  # (pydantic: test_documents_pydantic.py)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *CORE, "tests/test_compiled.py",
                *session.posargs)
