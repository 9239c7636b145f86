"""Positions whose legal-action cache keys collide under a mutant of the key (spec/conformance/README.md).

`legal_actions` (src/abyss_rules/rules/_legal.py) caches each seat's legal actions of the
`turn` and `drawn` phases under a key made of the seat's face-down and swallowed masks. A
mutant of that key expression that gives two positions with different legal actions the same
key answers the second position with the first one's actions, but only when a case observes
`legal_actions` (or `legal_indices`) at both. This tool finds such positions, so that a
conformance case can observe them:

    python tools/legal_cache_collisions.py [--shapes 2x2,2x3,3x2,2x5,3x3] [--only TEXT] [--pairs N] [--all]
    python tools/legal_cache_collisions.py --path '2x2:??/??,?x/?x' [--path ...]

It reads the two key expressions from legal.py and makes the mutants cosmic-ray makes of them,
in the text (every binary operator replaced by each other one, every number plus and minus one,
a `not` before each condition; the changed text is parsed again, so `down << cells | gone` with
`*` for `|` is `down << (cells * gone)`). A position is drawn row by row, `/` between rows:
`?` face down, `u` face up, `x` swallowed.

Searching (the default), it evaluates each mutant's key at every position of one seat a game
can reach on each shape (any union of columns but all swallowed, any non-empty set of face-down
spaces among the rest: a seat to play always has a face-down card, rules 6.1 and 6.2), with a
card to draw and a discard pile (rules, section 3, "Rejecting an action": always so in a valid
game), for `flip_turn` on and off, and prints one of:

* `collides`: two positions with different legal actions and the same key, the earlier first
  (within one round a space only goes from face down to face up to swallowed, so a pair
  `A then B` with B's face-down spaces among A's and A's swallowed among B's can be met in
  that order, "same round"; other pairs need two rounds);
* `raises` or `huge`: the key cannot be computed (an exception) or has over 2^24 bits at some
  position (the engine then raises MemoryError or OverflowError, or is very slow);
* `equivalent`: every reachable position keeps a key of its own legal actions, so no case on
  these shapes can tell the mutant from the engine by observing one variant. (The turn key of
  one seat and shape is shared by every variant of that shape and table size in one process:
  a mutant that loses the `flip_turn` bit for some positions is shown only by two cases, one
  with `flip_turn` on and one off, run one after the other.)

With `--path SHAPE[:noflip][:drawn]:POS,POS,...` (repeatable, one seat's observations in order
each), it tells instead which mutants observing `legal_actions` at those positions shows: the
cache answering a later position with an earlier one's actions, or the key raising.

Standard library only; not part of CI (the cases it helps write are).
"""

from __future__ import annotations

import argparse
import ast
import itertools
import operator
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LEGAL = ROOT / "src" / "abyss_rules" / "rules" / "legal.py"
HUGE_BITS = 1 << 24

_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.RShift: operator.rshift, ast.LShift: operator.lshift, ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.RShift: ">>", ast.LShift: "<<", ast.BitOr: "|", ast.BitAnd: "&",
           ast.BitXor: "^"}


class Huge(Exception):
    """The key would have more than HUGE_BITS bits."""


def _bits(x: Any) -> int:
    return abs(int(x)).bit_length() if isinstance(x, int) else 64


def _apply(op: type[ast.operator], a: Any, b: Any) -> Any:
    if op is ast.LShift and isinstance(b, int) and b > 0 and _bits(a) + b > HUGE_BITS:
        raise Huge
    if op is ast.Pow and isinstance(b, int) and b > 0 and _bits(a) * b > HUGE_BITS:
        raise Huge
    return _OPS[op](a, b)


def _evaluate(node: ast.expr, env: dict[str, Any]) -> Any:
    """The value of a key expression (names, numbers, binary operators, conditionals, calls)."""
    if isinstance(node, ast.BinOp):
        return _apply(type(node.op), _evaluate(node.left, env), _evaluate(node.right, env))
    if isinstance(node, ast.IfExp):
        return _evaluate(node.body if _evaluate(node.test, env) else node.orelse, env)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _evaluate(node.operand, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return getattr(env[node.value.id], node.attr)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return env[node.func.id](*(_evaluate(a, env) for a in node.args))
    raise ValueError(f"unexpected syntax in the key: {ast.dump(node)}")


def key_expressions(source: str) -> dict[str, tuple[int, str]]:
    """The turn and drawn key expressions of `legal_actions`, by phase, with their line numbers."""
    tree = ast.parse(source)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "legal_actions")
    keys = [n for n in ast.walk(function) if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "key" for t in n.targets)]
    keys.sort(key=lambda n: n.lineno)
    if len(keys) != 2:
        raise SystemExit(f"expected two `key = ...` in legal_actions, found {len(keys)}")
    return {phase: (n.lineno, ast.get_source_segment(source, n.value) or "")
            for phase, n in zip(("turn", "drawn"), keys, strict=True)}


@dataclass(frozen=True)
class Mutant:
    phase: str
    line: int
    text: str  # the mutated expression
    expr: ast.expr


def _offset(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + col


def mutants(phase: str, line: int, source: str) -> Iterator[Mutant]:
    """Every mutant of the expression `source`, made as cosmic-ray makes it, in the text.

    Each operator by each other one, each number +-1, `not` before each condition: the text is
    changed and parsed again, so a new operator binds as it is written (`down << cells | gone`
    with `*` for `|` is `down << (cells * gone)`).
    """
    text = "(" + source + ")"
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in `text`
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.BinOp):
            left_end = _offset(text, node.left.end_lineno or 0, node.left.end_col_offset or 0)
            right = _offset(text, node.right.lineno, node.right.col_offset)
            symbol = _SYMBOL[type(node.op)]
            at = text.index(symbol, left_end, right)
            edits += [(at, at + len(symbol), other) for other in _SYMBOL.values() if other != symbol]
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            at = _offset(text, node.lineno, node.col_offset)
            stop = _offset(text, node.end_lineno or 0, node.end_col_offset or 0)
            edits += [(at, stop, str(node.value + d)) for d in (1, -1)]
        elif isinstance(node, ast.IfExp):
            at = _offset(text, node.test.lineno, node.test.col_offset)
            edits.append((at, at, "not "))
    for at, stop, replacement in sorted(edits):
        mutated = text[:at] + replacement + text[stop:]
        expr = ast.parse(mutated, mode="eval").body
        yield Mutant(phase, line, " ".join(mutated[1:-1].split()), expr)


@dataclass(frozen=True)
class Position:
    """One seat's grid in the turn or drawn phase: face-down and swallowed masks."""

    rows: int
    cols: int
    down: int
    gone: int

    def picture(self) -> str:
        cells = []
        for r in range(self.rows):
            row = ""
            for c in range(self.cols):
                bit = 1 << (r * self.cols + c)
                row += "x" if self.gone & bit else "?" if self.down & bit else "u"
            cells.append(row)
        return "/".join(cells)

    def precedes(self, other: Position) -> bool:
        """Whether `other` can follow `self` in the same round."""
        return (other.down & ~self.down) == 0 and (self.gone & ~other.gone) == 0


def positions(rows: int, cols: int) -> Iterator[Position]:
    cells = rows * cols
    columns = [sum(1 << (r * cols + c) for r in range(rows)) for c in range(cols)]
    full = (1 << cells) - 1
    for n in range(cols):
        for chosen in itertools.combinations(columns, n):
            gone = sum(chosen)
            rest = [s for s in range(cells) if not gone >> s & 1]
            for k in range(1, len(rest) + 1):
                for down in itertools.combinations(rest, k):
                    yield Position(rows, cols, sum(1 << s for s in down), gone & full)


class _Variant:
    def __init__(self, flip_turn: bool) -> None:
        self.flip_turn = flip_turn


def legal(phase: str, pos: Position, flip_turn: bool) -> tuple[int, int]:
    """What the legal actions are made of: (spaces to take or place on, spaces to flip or discard on)."""
    full = (1 << pos.rows * pos.cols) - 1
    if phase == "turn":
        return full & ~pos.gone, pos.down if flip_turn else 0
    return full & ~pos.gone, pos.down


def verdict(m: Mutant, shapes: list[tuple[int, int]], show: int = 1) -> tuple[str, str]:
    """(kind, detail) for one mutant over the shapes: the first collision found, else the first
    position where the key raises or is huge, else equivalent."""
    flips = (True, False) if m.phase == "turn" else (True,)
    trouble: tuple[str, str] | None = None
    for rows, cols in shapes:
        for flip_turn in flips:
            where = f"{rows}x{cols} flip_turn={flip_turn}"
            env = {"cells": rows * cols, "pile": (1,), "discard": (1, 2), "v": _Variant(flip_turn),
                   "can_draw": lambda pile, discard: bool(pile) or len(discard) >= 2}
            seen: dict[Any, Position] = {}
            pairs: list[tuple[Position, Position]] = []
            for pos in positions(rows, cols):
                env.update(down=pos.down, gone=pos.gone)
                try:
                    key = _evaluate(m.expr, env)
                except Huge:
                    trouble = trouble or ("huge", f"{where} at {pos.picture()}")
                    continue
                except (ArithmeticError, TypeError, ValueError) as e:
                    trouble = trouble or ("raises", f"{where} at {pos.picture()}: {e!r}")
                    continue
                other = seen.setdefault(key, pos)
                if other is not pos and legal(m.phase, other, flip_turn) != legal(m.phase, pos, flip_turn):
                    pairs.append((other, pos) if other.precedes(pos) or not pos.precedes(other)
                                 else (pos, other))
            if pairs:
                same_round = [p for p in pairs if p[0].precedes(p[1])]
                best = sorted(same_round or pairs,
                              key=lambda p: (bin(p[0].gone | p[1].gone).count("1"),
                                             -bin(p[0].down).count("1") - bin(p[1].down).count("1")))
                order = "same round" if same_round else "two rounds"
                shown = ", ".join(f"{a.picture()} then {b.picture()}" for a, b in best[:show])
                return "collides", f"{where}: {shown} ({order}; {len(pairs)} pairs)"
    return trouble or ("equivalent", "every reachable position keeps a key of its own legal actions")


def parse_position(rows: int, cols: int, picture: str) -> Position:
    """The position drawn as in the output (`?` face down, `u` face up, `x` swallowed, rows split by `/`)."""
    cells = picture.replace("/", "")
    if len(cells) != rows * cols or set(cells) - set("?ux"):
        raise SystemExit(f"not a {rows}x{cols} position: {picture}")
    down = sum(1 << s for s, c in enumerate(cells) if c == "?")
    gone = sum(1 << s for s, c in enumerate(cells) if c == "x")
    return Position(rows, cols, down, gone)


def path_kills(m: Mutant, path: str) -> str | None:
    """How observing the legal actions of one seat at the positions of `path`, in order, shows `m`
    (the mutated cache answering a later position with an earlier one's actions, or the key raising),
    or None. `path` is `ROWSxCOLS[:noflip]:POS,POS,...` (phase turn, or drawn with `:drawn`)."""
    shape, *flags, listed = path.split(":")
    rows, cols = (int(x) for x in shape.split("x"))
    flip_turn = "noflip" not in flags
    if ("drawn" in flags) != (m.phase == "drawn"):
        return None
    env = {"cells": rows * cols, "pile": (1,), "discard": (1, 2), "v": _Variant(flip_turn),
           "can_draw": lambda pile, discard: bool(pile) or len(discard) >= 2}
    cache: dict[Any, tuple[Position, tuple[int, int]]] = {}
    for picture in listed.split(","):
        pos = parse_position(rows, cols, picture)
        env.update(down=pos.down, gone=pos.gone)
        try:
            key = _evaluate(m.expr, env)
        except Huge:
            return f"huge key at {picture}"
        except (ArithmeticError, TypeError, ValueError) as e:
            return f"raises {type(e).__name__} at {picture}"
        first, actions = cache.setdefault(key, (pos, legal(m.phase, pos, flip_turn)))
        if actions != legal(m.phase, pos, flip_turn):
            return f"{picture} answered with the actions of {first.picture()}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="2x2,2x3,3x2,2x5,3x3",
                        help="grid shapes to search, ROWSxCOLS, comma-separated")
    parser.add_argument("--all", action="store_true", help="print the equivalent mutants too")
    parser.add_argument("--only", default="", help="the mutants whose text contains this")
    parser.add_argument("--pairs", type=int, default=1, help="colliding pairs to show per mutant")
    parser.add_argument("--path", action="append", default=[], metavar="PATH",
                        help="instead of searching, tell which mutants observing one seat's legal actions "
                             "at these positions shows: ROWSxCOLS[:noflip][:drawn]:POS,POS,... "
                             "(e.g. 2x2:??/??,?x/?x); repeat for several seats or cases")
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    counts: dict[str, int] = {}
    for phase, (line, source) in key_expressions(LEGAL.read_text(encoding="utf-8")).items():
        for m in mutants(phase, line, source):
            if args.only not in m.text:
                continue
            if args.path:
                shown = [found for path in args.path if (found := path_kills(m, path))]
                kind = "shown" if shown else "not shown"
                counts[kind] = counts.get(kind, 0) + 1
                if shown or args.all:
                    print(f"legal.py:{line} {phase}: {m.text}\n    {kind}: {'; '.join(shown)}")
                continue
            kind, detail = verdict(m, shapes, args.pairs)  # type: ignore[arg-type]
            counts[kind] = counts.get(kind, 0) + 1
            if kind != "equivalent" or args.all:
                print(f"legal.py:{line} {phase}: {m.text}\n    {kind}: {detail}")
    print(", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
