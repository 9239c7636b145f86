"""The parts of the library that a wheel carries compiled, and which of them this copy runs compiled.

A wheel built where a C compiler is (`hatch_build.py`, which reads `PARTS` from this file) carries
each part below as compiled code beside its Python source, and Python imports the compiled module
first. A pure-Python copy -- built without a compiler, with `ABYSS_RULES_PURE=1`, or installed
editable -- runs the sources instead: the same results, more slowly. `abyss-rules --version` prints
`report()`, so a user can tell which they have.

This module imports nothing of the library (the build hook reads it as a file).

Examples:
    >>> print("; ".join(part.name for part in PARTS))
    the bots' planner; the deal's streams and shuffles (SHA-256); the seat observation encoder
    >>> report().splitlines()[0] in ("compiled:", "pure Python:")
    True
"""

from __future__ import annotations

import importlib.util
from typing import NamedTuple

__all__ = ["PARTS", "Part", "is_compiled", "report"]


class Part(NamedTuple):
    """One compiled part of the library."""

    name: str
    """What it is, in words."""
    modules: tuple[str, ...]
    """Its modules, by their dotted names under `abyss_rules`."""
    mypyc: bool
    """Compiled by mypyc from the modules' Python sources (`True`), or from a C source
    `src/abyss_rules/NAME.c` beside a `.pyi` stub (`False`: one module, which has no Python source;
    the library then runs a Python fallback of its own)."""
    serves: str
    """What runs it: where a user sees the difference."""


PARTS: tuple[Part, ...] = (
    Part("the bots' planner", ("bots._odds", "bots._model", "bots._tables", "bots._planner"), True,
         "the greedy, counting and search bots"),
    Part("the deal's streams and shuffles (SHA-256)", ("_sha256_blocks",), False,
         "the deals of new_game and of the batch engine"),
    Part("the seat observation encoder", ("_seat_encode",), False,
         "the RL environments' observations, envs.COMPILED"),
)
"""Every part a wheel may carry compiled."""


def is_compiled(part: Part) -> bool:
    """Whether every module of `part` is compiled code in this copy of the library."""
    for module in part.modules:
        spec = importlib.util.find_spec(f"abyss_rules.{module}")
        if spec is None or spec.origin is None or spec.origin.endswith(".py"):
            return False
    return True


def report() -> str:
    """Which parts this copy runs compiled and which pure Python, a line each under a heading."""
    compiled = [part for part in PARTS if is_compiled(part)]
    pure = [part for part in PARTS if part not in compiled]
    lines = []
    for heading, parts in (("compiled:", compiled), ("pure Python:", pure)):
        if parts:
            lines.append(heading)
            lines.extend(f"  {part.name} ({part.serves})" for part in parts)
    if pure:
        lines.append("(a pure-Python part gives the same results, more slowly; a wheel built where a C "
                     "compiler is compiles it: see docs/installation.md)")
    return "\n".join(lines)
