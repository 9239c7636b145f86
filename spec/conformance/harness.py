#!/usr/bin/env python3
"""Run the Abyss conformance suite against any implementation (protocol: README.md here).

Usage::

    python spec/conformance/harness.py [options] -- COMMAND [ARG...]

COMMAND is started once; the harness writes one JSON request per line to its
standard input and reads one JSON response per line from its standard output.
Each case's expectations stay in the harness: the implementation is told only
the setup, the actions and the names of the facts to report. The last line
printed is the summary ``N passed, N failed``; the exit status is 0 when every
selected case passed, 1 when some failed, 2 for a usage error.

Numbers are sent exactly as the case files write them (``3.0``, ``1e2``, ``-0``,
integers beyond 2**53): :func:`load_cases` keeps the spelling of every number that is
not a plain integer, and :func:`encode` writes it back. If the implementation crashes
(exits, times out, or answers something that is not one JSON line), the case it was
running fails and the harness starts it again for the next case.

Standard library only, Python 3.11 or newer. The functions :func:`load_cases`,
:func:`request_for`, :func:`encode` and :func:`compare` are also used in-process by the
reference engine's test suite.
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

PROTOCOL = 1
"""The protocol version this harness speaks."""
RULES_VERSION = "1.2.0"
"""The version of ``spec/rules.md`` the cases check."""
CASES_DIR = Path(__file__).resolve().parent / "cases"
"""The case files shipped with the spec."""
PER_SEAT = ("grids", "face_up", "swallowed", "legal_indices")
"""Facts given per seat: an expectation may list only some seats."""


# -- cases ---------------------------------------------------------------------


class Number:
    """A JSON number of a case file kept as written (``3.0``, ``1e2``, ``-0``), to be sent as is.

    Python's ``json`` would read ``1e2`` as ``100.0`` and ``-0`` as ``0`` and write them back
    differently; the cases test how an implementation reads exactly these spellings.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Number({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Number) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def _int_or_number(text: str) -> int | Number:
    return Number(text) if text.startswith("-0") else int(text)


def parse(text: str) -> Any:
    """JSON text parsed with every non-integer number, and ``-0``, kept as a :class:`Number`."""
    return json.loads(text, parse_float=Number, parse_int=_int_or_number)


def encode(value: Any, item: str = ",", key: str = ":") -> str:
    """``value`` as one line of JSON, each :class:`Number` written as its case file wrote it.

    ``item`` and ``key`` separate the items of arrays and objects and a key from its value.
    """
    if isinstance(value, Number):
        return value.text
    if isinstance(value, dict):
        inner = item.join(f"{json.dumps(str(k))}{key}{encode(v, item, key)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, (list, tuple)):
        return "[" + item.join(encode(v, item, key) for v in value) + "]"
    return json.dumps(value)


def load_cases(paths: Iterable[Path] | None = None) -> list[dict[str, Any]]:
    """Every case of the given case files (default: all of ``cases/``), in file order.

    Each case gets a ``"file"`` key naming its file. Raises ``ValueError`` for a
    repeated case id or a file that is not a case file.
    """
    files = sorted(CASES_DIR.glob("*.json")) if paths is None else list(paths)
    cases: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for path in files:
        data = parse(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
            raise ValueError(f"{path}: not a case file (no 'cases' list)")
        for case in data["cases"]:
            case_id = case.get("id")
            if not isinstance(case_id, str):
                raise ValueError(f"{path}: a case without an id")
            if case_id in seen:
                raise ValueError(f"{path}: case id {case_id!r} repeats one of {seen[case_id]}")
            seen[case_id] = Path(path).name
            cases.append({**case, "file": Path(path).name})
    return cases


def request_for(case: dict[str, Any]) -> dict[str, Any]:
    """The ``case`` request sent for ``case``: setup, actions and fact names; no expected values."""
    steps = []
    for step in case.get("steps", []):
        sent: dict[str, Any] = {}
        if "action" in step:
            sent["action"] = step["action"]
        sent["observe"] = list(step.get("expect", {}))
        steps.append(sent)
    return {
        "id": case["id"],
        "variant": case["variant"],
        "players": case["players"],
        "setup": case["setup"],
        "steps": steps,
    }


# -- comparing -----------------------------------------------------------------


def same(expected: Any, got: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` and ``1`` from ``1.0``."""
    if type(expected) is not type(got):
        return False
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(same(expected[k], got[k]) for k in expected)
    if isinstance(expected, list):
        return len(expected) == len(got) and all(same(a, b) for a, b in zip(expected, got, strict=True))
    return bool(expected == got)


def _cell_matches(expected: Any, got: Any) -> bool:
    if expected == "??":  # any face-down card
        return isinstance(got, str) and got.startswith("?")
    return same(expected, got)


def _grid_matches(expected: Any, got: Any) -> bool:
    if not isinstance(got, list) or len(got) != len(expected):
        return False
    for exp_row, got_row in zip(expected, got, strict=True):
        if not isinstance(got_row, list) or len(got_row) != len(exp_row):
            return False
        if not all(_cell_matches(e, g) for e, g in zip(exp_row, got_row, strict=True)):
            return False
    return True


def _per_seat(name: str, expected: dict[str, Any], got: Any) -> list[str]:
    if not isinstance(got, dict):
        return [f"{name}: expected an object by seat, got {_show(got)}"]
    problems = []
    for seat, exp in expected.items():
        value = got.get(seat)
        ok = _grid_matches(exp, value) if name.endswith("grids") else same(exp, value)
        if not ok:
            problems.append(f"{name}[{seat}]: expected {_show(exp)}, got {_show(value)}")
    return problems


def compare_fact(name: str, expected: Any, got: Any) -> list[str]:
    """What differs between an expected fact and the reported one (empty: they match)."""
    if name in PER_SEAT:
        return _per_seat(name, expected, got)
    if name == "last_round" and expected is not None:
        if not isinstance(got, dict):
            return [f"last_round: expected a round result, got {_show(got)}"]
        problems = []
        for key, exp in expected.items():
            if key == "grids":
                problems += _per_seat("last_round.grids", exp, got.get("grids"))
            elif key not in got or not same(exp, got[key]):
                problems.append(f"last_round.{key}: expected {_show(exp)}, got {_show(got.get(key))}")
        return problems
    if not same(expected, got):
        return [f"{name}: expected {_show(expected)}, got {_show(got)}"]
    return []


def _show(value: Any) -> str:
    text = encode(value, ", ", ": ")
    return text if len(text) <= 300 else text[:297] + "..."


def _describe(step: dict[str, Any]) -> str:
    action = step.get("action")
    return "no action" if action is None else f"action {_show(action)}"


def compare(case: dict[str, Any], response: Any) -> list[str]:
    """Every way ``response`` differs from what ``case`` expects (empty: the case passed)."""
    if not isinstance(response, dict):
        return [f"the response is not a JSON object: {_show(response)}"]
    if "fatal" in response:
        return [f"the implementation could not run the case: {response['fatal']}"]
    if response.get("id") != case["id"]:
        return [f"the response is for case {_show(response.get('id'))}"]
    expected_setup = case.get("setup_error")
    got_setup = response.get("setup_error")
    if expected_setup is not None or got_setup is not None:
        if expected_setup != got_setup:
            want = "accepted" if expected_setup is None else expected_setup
            return [f"setup: expected {want}, got {'accepted' if got_setup is None else got_setup}"]
        return []
    steps = case["steps"]
    results = response.get("steps")
    if not isinstance(results, list) or len(results) != len(steps):
        return [f"expected {len(steps)} step results, got {_show(results)}"]
    problems: list[str] = []
    for n, (step, result) in enumerate(zip(steps, results, strict=True), start=1):
        where = f"step {n} ({_describe(step)})"
        if not isinstance(result, dict):
            problems.append(f"{where}: the result is not a JSON object")
            continue
        expected_error = step.get("error")
        got_error = result.get("error")
        if expected_error != got_error:
            want = "accepted" if expected_error is None else f"rejected with {expected_error}"
            got = "accepted" if got_error is None else f"rejected with {got_error}"
            problems.append(f"{where}: expected {want}, got {got}")
            continue
        facts = result.get("facts")
        if not isinstance(facts, dict):
            facts = {}
        for name, expected in step.get("expect", {}).items():
            if name not in facts:
                problems.append(f"{where}: fact {name} was not reported")
                continue
            problems += [f"{where}: {problem}" for problem in compare_fact(name, expected, facts[name])]
    return problems


# -- talking to an implementation ----------------------------------------------


class ProtocolError(Exception):
    """The implementation broke the protocol (exited, timed out, or wrote something not JSON)."""


class Implementation:
    """A running implementation that speaks the protocol on its standard input and output."""

    def __init__(self, command: Sequence[str], timeout: float) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, message: dict[str, Any]) -> Any:
        """Send one request and return the decoded response line."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(encode(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ProtocolError(f"cannot write to the implementation: {error}") from None
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise ProtocolError(f"no answer within {self.timeout:g} s") from None
        if line is None:  # its output ended: it exited or is about to
            try:
                status = self.process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                raise ProtocolError("the implementation closed its output") from None
            raise ProtocolError(f"the implementation exited (status {status})")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise ProtocolError(f"the answer is not one JSON line: {line[:200]!r}") from None

    def kill(self) -> None:
        """Stop the implementation at once (after it broke the protocol)."""
        self.process.kill()
        self.process.wait()  # its reading thread then sees the end of its output and stops
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:  # a broken pipe: nothing left to flush
            pass

    def close(self) -> None:
        """Close standard input and wait for the implementation to exit."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _start(command: Sequence[str], timeout: float, out: Any | None) -> tuple[Implementation, str | None]:
    """Start the implementation and greet it: (it, None), or (it, why it cannot run cases)."""
    implementation = Implementation(command, timeout)
    try:
        hello = implementation.ask({"hello": {"protocol": PROTOCOL, "rules_version": RULES_VERSION}})
    except ProtocolError as error:
        return implementation, str(error)
    info = hello.get("hello") if isinstance(hello, dict) else None
    if not isinstance(info, dict) or info.get("protocol") != PROTOCOL:
        return implementation, f"expected a hello for protocol {PROTOCOL}, got {_show(hello)}"
    if out is not None:
        name = info.get("implementation", "an unnamed implementation")
        print(f"implementation: {name}, rules {info.get('rules_version', '?')}", file=out)
    return implementation, None


def run(command: Sequence[str], cases: list[dict[str, Any]], *, timeout: float = 60.0,
        verbose: bool = False, out: Any = None, exitfirst: bool = False) -> tuple[int, int]:
    """Run ``cases`` against ``command``; print failures (and passes if ``verbose``); return the counts.

    A case during which the implementation crashes fails; the implementation is then started
    again for the next case. If it cannot even be started and greeted, no case can run: the
    remaining cases are counted as failed. With ``exitfirst`` the run stops after the first
    failing case, and the cases not run are counted in neither number.
    """
    out = out if out is not None else sys.stdout
    passed = failed = 0
    implementation, broken = _start(command, timeout, out)
    try:
        for n, case in enumerate(cases):
            if broken is not None:
                failed += len(cases) - n
                print(f"STOP {broken}: {len(cases) - n} case(s) not run, counted as failed", file=out)
                break
            try:
                problems = compare(case, implementation.ask({"case": request_for(case)}))
            except ProtocolError as error:
                problems = [f"the implementation crashed on this case: {error}; restarting it"]
                implementation.kill()
                implementation, broken = _start(command, timeout, None)
            if problems:
                failed += 1
                print(f"FAIL {case['id']}  [{case.get('file', '?')}; rules {', '.join(case['rules'])}]",
                      file=out)
                for problem in problems:
                    print(f"    {problem}", file=out)
            else:
                passed += 1
                if verbose:
                    print(f"ok   {case['id']}", file=out)
            if problems and exitfirst:
                if n + 1 < len(cases):
                    print(f"STOP after the first failure (--exitfirst): {len(cases) - n - 1} case(s) not run",
                          file=out)
                break
    finally:
        implementation.close()
    return passed, failed


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docs)."""
    parser = argparse.ArgumentParser(
        description="Run the Abyss conformance suite against an implementation.",
        usage="%(prog)s [options] -- COMMAND [ARG...]",
    )
    parser.add_argument("--cases", type=Path, nargs="+", metavar="FILE",
                        help="case files to run (default: every file in cases/ beside this script)")
    parser.add_argument("-k", "--select", metavar="TEXT", help="only cases whose id contains TEXT")
    parser.add_argument("--rule", metavar="ID", help="only cases that cite rule ID (e.g. 4.2)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="seconds to wait for each answer (default 60)")
    parser.add_argument("--list", action="store_true", help="list the selected cases and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="print passing cases too")
    parser.add_argument("-x", "--exitfirst", action="store_true",
                        help="stop after the first failing case (the others are not run)")
    parser.add_argument("command", nargs="*", help="the implementation's command (after --)")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(args.cases)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if args.select:
        cases = [c for c in cases if args.select in c["id"]]
    if args.rule:
        cases = [c for c in cases if args.rule in c["rules"]]
    if args.list:
        for case in cases:
            print(f"{case['id']}  [{', '.join(case['rules'])}]  {case['description']}")
        return 0
    if not args.command:
        parser.error("give the implementation's command after --")
    try:
        passed, failed = run(args.command, cases, timeout=args.timeout, verbose=args.verbose,
                             exitfirst=args.exitfirst)
    except OSError as error:
        print(f"cannot start {args.command[0]!r}: {error}", file=sys.stderr)
        return 2
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
