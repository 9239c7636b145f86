"""Shared test configuration.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

* ``ci`` (default) -- few examples, for every run of the suite and CI;
* ``thorough`` -- many more examples, for a developer who wants to dig.

Each test that checks a spec rule says so with ``@pytest.mark.rule("3.4", ...)``;
``tests/test_traceability.py`` reads those markers.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The files whose set-up is a long job of its own, longest first: the compiled wheel (built by
# `python -m build`, installed in a fresh venv, its tests run there), the docs site (`mkdocs build`),
# a Dask cluster, the README's commands, the command line's subprocesses. Under `--dist loadfile` a
# file runs whole on one worker, so these start first and the short files fill the other worker
# meanwhile (xdist's default order, most tests first, would start them last and leave one worker
# idle at the end).
FIRST = ("tests/test_compiled.py", "tests/test_docs_site.py", "tests/test_cli.py",
         "tests/test_simulation_dask.py", "tests/test_readme.py")


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # (pytest-xdist: keep the order below)
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(FIRST)))
