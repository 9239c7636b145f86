"""Griffe extension of the docs site: backticked names in docstrings become links.

The docstrings of `abyss_rules` name other objects in plain backticks (`State`,
`abyss_rules.pictures.to_svg`), so that `help()` and an editor show plain names. They hold no
cross-reference markup (`[State][abyss_rules.State]`); tests/test_docstrings.py checks that.

On the site, this extension (`extensions:` of the mkdocstrings Python handler in mkdocs.yml)
turns each such name into a link when the package is loaded, before mkdocstrings renders any
docstring:

* a name starting with `abyss_rules.` is its own target;
* a short name (`State`, `State.phase`, `apply()`, `view(state, 0)`) is resolved where the
  docstring is, as Python would: the object's members (inherited ones included), then its class
  and module, imports included; failing that, a name the package exports (`abyss_rules.NAME`).
  A short name never stands for a module: `cards` is a field, the module is `abyss_rules.cards`;
* these stay plain code: private and special names (`_cache`, `__all__`), a function's own
  parameters, names from outside the package (`int`, `None`), names that resolve to no object
  (`view.legal_actions`: an attribute of a variable), and a docstring's mention of its own object.

A link is an optional autorefs reference,
`<autoref optional identifier="abyss_rules.state.State">` + the code span + `</autoref>`, which
mkdocs-autorefs turns into a link to wherever the site renders that object, or leaves as plain
code, without a warning under `mkdocs build --strict`, where the site renders it nowhere. Code in
fenced blocks and doctest lines (`>>>`, `...`) is left alone.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

PACKAGE = "abyss_rules"
"""The package whose docstrings are rewritten."""

CODE_NAME = re.compile(
    r"(?<![`\[\w])`(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\([^`()]*\))?`(?![`\]\w])"
)
"""A single-backticked Python name, maybe called (``name()``, ``view(state, seat)``), not already
a link title."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)( |$)")


def _lookup(obj: griffe.Object, head: str) -> str | None:
    """The path of the name ``head`` seen from the docstring of ``obj``, or None.

    Python's scopes, with the class's members visible to its methods: the object's own members,
    then those of each enclosing class (inherited ones included), then its module's (imports
    included); then the names the package exports. A package's submodules are not in scope:
    ```cards``` in a docstring is a field, not the module ``abyss_rules.cards``.
    """
    scope: griffe.Object | None = obj
    while scope is not None:
        if scope.is_class and head not in scope.members and head in scope.all_members:
            return f"{scope.path}.{head}"  # inherited: `phase` of a State is State.phase
        if (scope.is_class or scope.is_module) and head in scope.members:
            member = scope.members[head]
            path = str(member.target_path if member.is_alias else member.path)
            if not path.startswith(PACKAGE + "."):
                return None  # from the standard library or a dependency
            try:
                return None if member.is_module else path
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                return None
        if scope.is_module:
            break
        scope = scope.parent
    package = obj.package
    if head in (str(name) for name in package.exports or ()):
        return f"{package.path}.{head}"
    return None


def _target(obj: griffe.Object, name: str) -> str | None:
    """The path ``name`` stands for in the docstring of ``obj``, or None to leave it plain."""
    if any(part.startswith("_") for part in name.split(".")):
        return None  # private or special (`__all__`): not on the site
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        return name  # written out in full: a link, or plain code if the site does not render it
    head, dot, rest = name.partition(".")
    if isinstance(obj, griffe.Function) and any(p.name == head for p in obj.parameters):
        return None
    resolved = _lookup(obj, head)
    if resolved is None:
        return None
    target = resolved + dot + rest
    if target != PACKAGE and not target.startswith(PACKAGE + "."):
        return None
    try:
        obj.modules_collection[target]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None  # `view.legal_actions`: an attribute of a variable, not a path of the package
    return target


def link_names(obj: griffe.Object, text: str) -> str:
    """``text``, a docstring of ``obj``, with each backticked name of the package made a link."""

    def link(match: re.Match[str]) -> str:
        target = _target(obj, match["name"])
        if target is None or target == obj.path:
            return match[0]
        # The code span stays Markdown, so that `__init__` is not read as bold.
        return f'<autoref optional identifier="{html.escape(target)}">{match[0]}</autoref>'

    lines = []
    fenced = False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and not _DOCTEST.match(line):
            line = CODE_NAME.sub(link, line)
        lines.append(line)
    return "".join(lines)


def _objects(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object defined in it (imported names excluded), depth first."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            found.extend(_objects(member))
    return found


class CrossRefs(griffe.Extension):
    """Make the backticked names of the package's docstrings links (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.path != PACKAGE:
            return
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = link_names(obj, obj.docstring.value)
