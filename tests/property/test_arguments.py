"""Every public callable refuses an argument it does not take with an `AbyssError`, and only that.

Each function, class, class method and method that the public modules export is called with
arguments drawn by Hypothesis: for every parameter, either a valid value (where the test knows
one for the parameter's name) or a value of a type the parameter's annotation does not name
(for an `int` parameter, also a negative one). Whatever happens, only an `AbyssError` may come
out -- never a `TypeError`, `AttributeError`, `UnicodeEncodeError`... -- its `to_dict()` can be
written as UTF-8 JSON, and no call takes longer than `SECONDS` (a guard against endless loops).

Left out: the exception classes themselves, enumerations (`Code("x")` raising `ValueError` is
Python's enum protocol), protocols (`Bot`), and the methods a `State` has as a tuple; and the
modules whose functions are the engine's own parts, public for readers of the spec, given only
what the engine has checked (`rules`, `randomness`, `cards`, `caches`), the batch engine and the
environments (NumPy arrays, their own contracts), the server and the command line (which answer
their users themselves).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import random
import re
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, Protocol

import pytest
from hypothesis import given
from hypothesis import strategies as st

import abyss_rules as ar
from abyss_rules.action_space import ActionSpace
from abyss_rules.protocol import Verdict
from abyss_rules.public_table import PublicTable

MODULES = (
    "abyss_rules", "abyss_rules.codec", "abyss_rules.protocol", "abyss_rules.public_table",
    "abyss_rules.notation", "abyss_rules.records", "abyss_rules.events", "abyss_rules.json_schemas",
    "abyss_rules.action_space", "abyss_rules.pictures", "abyss_rules.simulation", "abyss_rules.bots",
    "abyss_rules.sampling", "abyss_rules.testing", "abyss_rules.config", "abyss_rules.state",
    "abyss_rules.views", "abyss_rules.actions",
)
"""The public modules of docs/api.md (what to import from where), the package itself first."""
SECONDS = 20
"""The longest one call may take: every refusal takes milliseconds; this only catches a hang."""

STATE = ar.new_game(2, seed=4)
VIEW = ar.view(STATE, 0)
AFTER, EVENTS = ar.apply_with_events(STATE, ar.Flip(0, 1, 2))
RECORD = ar.Record.start(seed=4).with_actions(ar.Flip(0, 1, 2))
TABLE = PublicTable.from_view(VIEW)
VALID: dict[str, Any] = {
    "state": STATE, "view": VIEW, "obj": VIEW, "variant": ar.Variant.short(), "players": 2, "player": 0,
    "seed": 4, "seq": 0, "action": ar.Flip(0, 1, 2), "events": EVENTS, "table": TABLE, "record": RECORD,
    "bots": ("random", "random"), "games": 1, "n": 1, "rng": random.Random(1), "code": "game_over",
    "message": "m", "legal": False, "name": "random", "text": "0f12", "data": ar.dumps_action(ar.Draw(0)),
    "doc": {"a": 1}, "error": ar.DecodeError("bad_value", "m"),
}
"""A valid value for the parameters of these names (the others are always given a bad value)."""

_DOMAIN = {"State": STATE, "View": VIEW, "Variant": ar.Variant.standard(), "Action": ar.Draw(0),
           "Record": RECORD, "PublicTable": TABLE, "Random": random.Random(2)}
_KINDS: dict[str, st.SearchStrategy[Any]] = {
    "None": st.none(),
    "bool": st.booleans(),
    "int": st.integers(),
    "float": st.floats(),
    "str": st.text(max_size=80) | st.sampled_from(["\ud800", "x\udfff", "", "0f12", "random", "{}"]),
    "bytes": st.binary(max_size=40),
    "list": st.lists(st.none() | st.integers(-2, 2) | st.text(max_size=2), max_size=3),
    "tuple": st.lists(st.none() | st.integers(-2, 2), max_size=3).map(tuple),
    "dict": st.dictionaries(st.text(max_size=3), st.none() | st.integers(-2, 2), max_size=3),
    "object": st.builds(object),
}
_NAMES = {"list": ("list", "Sequence", "Iterable", "tuple"), "tuple": ("tuple", "Sequence", "Iterable"),
          "dict": ("dict", "Mapping"), "float": ("float",), "int": ("int",)}


def bad_values(annotation: str) -> st.SearchStrategy[Any]:
    """Values of the kinds `annotation` does not name (an `int` parameter: also negative ints)."""
    words = set(re.findall(r"\w+", annotation))
    options = [strategy for kind, strategy in _KINDS.items()
               if not words & set(_NAMES.get(kind, (kind,))) and not (kind == "int" and "float" in words)]
    if "int" in words:
        options.append(st.integers(max_value=-1))
    options.append(st.sampled_from([value for name, value in _DOMAIN.items() if name not in words]))
    return st.one_of(options)


def _public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    seen: set[int] = set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            target = getattr(module, name)
            if not (inspect.isclass(target) or inspect.isroutine(target)) or id(target) in seen \
                    or _left_out(target):
                continue
            seen.add(id(target))
            yield f"{module_name}.{name}", target
            if inspect.isclass(target):
                for attribute, member in vars(target).items():
                    if not attribute.startswith("_") and isinstance(member, (classmethod, staticmethod)):
                        yield f"{module_name}.{name}.{attribute}", getattr(target, attribute)


def _left_out(target: object) -> bool:
    return inspect.isclass(target) and (
        issubclass(target, (BaseException, enum.Enum))
        or (issubclass(target, Protocol) and getattr(target, "_is_protocol", False)))  # type: ignore[arg-type]


INSTANCES: dict[str, object] = {
    "State": STATE, "View": VIEW, "Record": RECORD, "Variant": ar.Variant.standard(), "PublicTable": TABLE,
    "Verdict": Verdict(True, None, None, "legal", 0), "ActionSpace": ActionSpace(ar.Variant.standard()),
    "Grid": STATE.grid(0),
}


def _public_methods() -> Iterator[tuple[str, Callable[..., Any]]]:
    for owner, instance in INSTANCES.items():
        for attribute in dir(instance):
            if attribute.startswith("_") or (isinstance(instance, tuple) and hasattr(tuple, attribute)):
                continue
            member = getattr(instance, attribute)
            if callable(member) and not inspect.isclass(member):
                yield f"{owner}.{attribute}", member


TARGETS = dict(_public_callables()) | dict(_public_methods())


class _TooSlow(Exception):
    pass


def _too_slow(signum: int, frame: FrameType | None) -> None:
    raise _TooSlow


def test_the_sweep_reaches_every_public_module_and_the_findings_it_was_written_for() -> None:
    assert len(TARGETS) > 150
    for name in ("abyss_rules.codec.canonical_json", "abyss_rules.protocol.http_status",
                 "abyss_rules.protocol.Verdict.from_error", "abyss_rules.public_table.apply_events",
                 "abyss_rules.Variant", "abyss_rules.dumps_view", "Record.check_views",
                 "abyss_rules.Grid.from_flat"):
        assert name in TARGETS, name


@pytest.mark.parametrize("name", sorted(TARGETS))
@given(data=st.data())
def test_a_bad_argument_is_refused_with_an_abyss_error(name: str, data: st.DataObject) -> None:
    target = TARGETS[name]
    parameters = [parameter for parameter in inspect.signature(target).parameters.values()
                  if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)]
    if not parameters:
        return _call(name, target, [], {})
    # One parameter is given a bad value; the others a valid one where known (mostly), else bad too.
    spoiled = data.draw(st.sampled_from(parameters), label="spoiled").name
    others_too = data.draw(st.integers(0, 4), label="others too") == 0
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in parameters:
        bad = bad_values(str(parameter.annotation))
        good = [VALID[parameter.name]] if parameter.name in VALID else []
        if parameter.default is not parameter.empty:
            good.append(parameter.default)
        if parameter.name == spoiled or not good:
            choices = bad
        elif others_too:
            choices = st.one_of(st.sampled_from(good), bad)
        else:
            choices = st.sampled_from(good)
        value = data.draw(choices, label=parameter.name)
        if parameter.kind is parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    _call(name, target, args, kwargs)


def _call(name: str, target: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> None:
    previous = signal.signal(signal.SIGALRM, _too_slow)
    signal.setitimer(signal.ITIMER_REAL, SECONDS)
    try:
        result = target(*args, **kwargs)
        if inspect.isgenerator(result):
            for _ in zip(range(3), result, strict=False):
                pass
    except ar.AbyssError as error:
        json.dumps(error.to_dict(), ensure_ascii=False).encode("utf-8")  # every refusal can be sent
    except _TooSlow:
        pytest.fail(f"{name} took more than {SECONDS} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
