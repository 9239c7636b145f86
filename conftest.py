"""Collection with only some extras installed: a module whose extra is missing is skipped, saying which.

`python -m pytest` collects the tests and the doctests of `src/abyss_rules`. A test module, or a
module of the package (for its doctests), that cannot be imported because an optional library
is missing -- NumPy for `abyss_rules.batch`, Starlette for the server, ... -- is reported as
skipped, with the extra that installs the library, rather than as a collection error: a
checkout with only the `test` extra (`pip install -e '.[test]'`) runs what it can.

In CI every extra is installed, and a missing one must fail loudly: with `ABYSS_REQUIRE_EXTRAS=1`
(set by `.ci/run`) nothing is skipped here and the import error stays a collection error.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

EXTRA_OF_LIBRARY = {
    "numpy": "batch",  # (and rl)
    "gymnasium": "rl",
    "pettingzoo": "rl",
    "starlette": "server",
    "uvicorn": "server",
    "psycopg": "server",
    "anyio": "server",
    "dask": "dask",
    "distributed": "dask",
    "pydantic": "dev",
    "nox": "dev",
    "mkdocs": "docs",
    "material": "docs",
    "mkdocstrings": "docs",
    "griffe": "docs",
}
"""The optional libraries (import names) a module of the tests or the package may need, and the
extra of pyproject.toml that installs each."""


def missing_library(error: BaseException) -> str | None:
    """The optional library whose absence caused `error` (anywhere in its chain of causes), or None."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ImportError) and current.name:
            root = current.name.split(".")[0]
            if root in EXTRA_OF_LIBRARY:
                return root
        current = current.__cause__ or current.__context__
    return None


PACKAGE = Path(__file__).resolve().parent / "src" / "abyss_rules"


def _module_name(path: Path) -> str:
    parts = list(path.resolve().relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _skipping(cls: type[Any]) -> type[Any]:
    """`cls` (a collector of a module: tests or doctests) whose import error for a missing extra
    is a skip naming the extra."""

    class SkipsMissingExtras(cls):  # type: ignore[misc, valid-type]
        def collect(self) -> Iterable[Any]:
            try:
                if self.path.is_relative_to(PACKAGE):  # a module of the package, for its doctests:
                    importlib.import_module(_module_name(self.path))  # imported as a program would
                return list(super().collect())
            except Exception as error:
                library = missing_library(error)
                if library is None or os.environ.get("ABYSS_REQUIRE_EXTRAS") == "1":
                    raise
                extra = EXTRA_OF_LIBRARY[library]
                pytest.skip(f"needs the '{extra}' extra ({library} is missing): pip install -e '.[{extra}]'",
                            allow_module_level=True)

    SkipsMissingExtras.__name__ = SkipsMissingExtras.__qualname__ = cls.__name__
    return SkipsMissingExtras


_CLASSES: dict[type[Any], type[Any]] = {}


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Any:
    collectors = yield
    if not collectors or file_path.suffix != ".py":
        return collectors
    replaced = []
    for node in collectors:
        if isinstance(node, pytest.Module) or type(node).__name__ == "DoctestModule":
            cls = _CLASSES.setdefault(type(node), _skipping(type(node)))
            node = cls.from_parent(parent, path=node.path)
        replaced.append(node)
    return replaced
