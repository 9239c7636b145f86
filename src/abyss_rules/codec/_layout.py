"""Document layouts: one table per document kind, from which its reading and writing are generated.

A `Layout` lists the fields of one kind of JSON object (a `state` document, a round of the
history, the dealer inside a state...): for each, its key, its `Spelling`, how to get it
from the Python object written, and the function that reads and checks it. From that one
table four functions are generated -- Python source built from the table and compiled once
per layout, as `attrs` builds `__init__` from a field list -- and kept in the
`codec.generated` cache:

* `data(obj)` -- the JSON-ready dict (`state_to_dict`...), fields in the table's order;
* `text(obj)` -- the canonical text (`dumps_state`...) written directly: the fields in
  sorted-key order, every value spelled by its spelling; a value it does not spell raises
  `OffTable` and the caller lets `json` write the data;
* `read(d, path, *params)` -- the checked value of a parsed object whose field names are
  checked (`state_from_dict`...): each field read in the table's order with its reader;
* `read_text(inside, path, *params)` -- the same of canonical text (inside its first and
  last literal): cut at the literal text between values, each piece parsed by its spelling
  (or by the field's `read_text`) and then read by the *same* reader; anything else raises
  and the caller takes the general path.

So the general and the fast paths cannot drift apart: both come from the table, and the
property tests compare them over whole games (tests/property/test_documents_fast_paths.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import attrs

from .._versions import FORMAT_VERSION, RULES_VERSION
from ..caches import BoundedCache
from ._spelling import NAMESPACE, WORD, Const, OffTable, Spelling
from ._strict import read_object, reads_rules_version

__all__ = ["Field", "Layout", "cut"]


@attrs.frozen
class Field:
    """One field of a layout.

    `spelling` is a `Spelling`, or a `Layout` for a nested object. `get` is the source of the
    value given the object written as `{o}` (default `{o}.<key>`). The field is read by
    `read(value, path, *context, *extra)` -- `context` names fields read before it, or the
    layout's `params` -- or, in canonical text, by `read_text(inside, path, *context)` when
    given (else by `read` of the spelling's `parse`).
    """

    key: str
    spelling: Spelling | Layout
    read: Callable[..., Any] | None = None
    context: tuple[str, ...] = ()
    extra: tuple[Any, ...] = ()
    read_text: Callable[..., Any] | None = None
    get: str = ""

    def getter(self, o: str) -> str:
        return (self.get or f"{{o}}.{self.key}").format(o=o)


@attrs.frozen(eq=False)
class Layout:
    """The table of one kind of JSON object: its fields in reading order, and how a value is built.

    `build(path=..., **values)` makes the value of the fields read (by key) and the layout's
    `params`, checking how they fit together. A `document` layout has the header fields
    (`format`, `format_version`, `rules_version`) too.
    """

    name: str
    fields: tuple[Field, ...]
    build: Callable[..., Any]
    params: tuple[str, ...] = ()
    document: bool = False

    @property
    def keys(self) -> frozenset[str]:
        """The keys of the fields (the header's aside)."""
        return frozenset(field.key for field in self.fields)

    def all_fields(self) -> tuple[Field, ...]:
        if not self.document:
            return self.fields
        return (
            Field("format", Const(self.name)),
            Field("format_version", Const(FORMAT_VERSION)),
            Field("rules_version", _RULES_VERSION),
            *self.fields,
        )

    def function(self, which: str) -> Callable[..., Any]:
        """The generated `data`, `text`, `read` or `read_text` function (compiled on first use)."""
        found = _GENERATED.get((self.name, which))
        if found is None:
            found = _GENERATED.put((self.name, which), _compile(self, which))
        return found

    def first_and_last(self) -> tuple[str, str]:
        """The literal text before the first value and after the last, in canonical text."""
        return _text_layout(self, reading=True)[0]


class _RulesVersion(Const):
    """`rules_version`: written as the engine's, read as any version of the same major one."""

    def __init__(self) -> None:
        super().__init__(RULES_VERSION)
        self.open = self.close = '"'

    def parse(self, inside: str) -> Any:
        return WORD.parse(inside)


_RULES_VERSION: Final = _RulesVersion()

_GENERATED: Final = BoundedCache[tuple[str, str], Callable[..., Any]](
    "codec.generated", max_entries=64, max_size=64
)
"""The functions generated from the layouts, by (layout name, function)."""


def cut(text: str, parts: tuple[tuple[str, int], ...]) -> list[str]:
    """The pieces of `text` between `parts` (each with its length), and the rest after the last.

    Each part is found at its first occurrence after the previous one; pieces are not checked here.
    """
    pieces = []
    start = 0
    for part, size in parts:
        end = text.find(part, start)
        if end < 0:
            raise OffTable
        pieces.append(text[start:end])
        start = end + size
    pieces.append(text[start:])
    return pieces


# -- the generator ----------------------------------------------------------------------------


class _Source:
    """Python source being generated, with the objects it names."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = dict(NAMESPACE, read_object=read_object,
                                              reads_rules_version=reads_rules_version, cut=cut)
        self.names: dict[int, str] = {}
        self.lines: list[str] = []
        self.count = 0

    def name(self, value: Any, prefix: str = "k") -> str:
        """The name under which the generated code sees `value`."""
        found = self.names.get(id(value))
        if found is None:
            found = self.names[id(value)] = f"{prefix}{len(self.names)}"
            self.namespace[found] = value
        return found

    def local(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"


def _key(key: str) -> str:
    return json.dumps(key)


def _text_layout(layout: Layout, reading: bool) -> tuple[tuple[str, str], list[str], list[tuple[Field, str]]]:
    """The literal text of `layout`'s canonical text and its value slots (sorted-key order).

    Returns (first, last), the literal parts between slots, and per slot its field and the
    path of nested layouts' keys leading to it ("dealer/seed"). A constant is literal text,
    except `rules_version` when `reading` (any version of the same major is read).
    """
    literals = [""]
    slots: list[tuple[Field, str]] = []

    def walk(lay: Layout, prefix: str) -> None:
        literals[-1] += "{"
        for i, field in enumerate(sorted(lay.all_fields(), key=lambda f: f.key)):
            literals[-1] += ("," if i else "") + _key(field.key) + ":"
            spelling = field.spelling
            if isinstance(spelling, Layout):
                walk(spelling, f"{prefix}{field.key}/")
                continue
            if spelling.literal is not None and not (reading and spelling is _RULES_VERSION):
                literals[-1] += spelling.literal
                continue
            literals[-1] += spelling.open
            slots.append((field, prefix + field.key))
            literals.append(spelling.close)
        literals[-1] += "}"

    walk(layout, "")
    return (literals[0], literals[-1]), literals[1:-1], slots


def _compile(layout: Layout, which: str) -> Callable[..., Any]:
    src = _Source()
    generate = {"data": _gen_data, "text": _gen_text, "read": _gen_read, "read_text": _gen_read_text}[which]
    generate(layout, src)
    code = "\n".join(src.lines)
    exec(compile(code, f"<layout {layout.name}: {which}>", "exec"), src.namespace)
    function: Callable[..., Any] = src.namespace["generated"]
    function.__doc__ = f"Generated from the layout {layout.name!r}.\n\n{code}"
    return function


def _gen_data(layout: Layout, src: _Source) -> None:
    src.lines.append("def generated(o):")

    def body(lay: Layout, o: str) -> str:
        items = []
        for field in lay.all_fields():
            spelling = field.spelling
            if isinstance(spelling, Layout):
                inner = src.local("o")
                src.lines.append(f"    {inner} = {field.getter(o)}")
                items.append(f"{_key(field.key)}: {body(spelling, inner)}")
            else:
                items.append(f"{_key(field.key)}: {spelling.data(field.getter(o), src.name(spelling))}")
        return "{" + ", ".join(items) + "}"

    result = body(layout, "o")
    src.lines.append(f"    return {result}")


def _gen_text(layout: Layout, src: _Source) -> None:
    src.lines.append("def generated(o):")
    plain: list[str] = []
    pieces: list[str] = []

    def walk(lay: Layout, o: str) -> None:
        literal = "{"
        for i, field in enumerate(sorted(lay.all_fields(), key=lambda f: f.key)):
            literal += ("," if i else "") + _key(field.key) + ":"
            spelling = field.spelling
            if isinstance(spelling, Layout):
                inner = src.local("o")
                src.lines.append(f"    {inner} = {field.getter(o)}")
                pieces.append(literal)
                walk(spelling, inner)
                literal = ""
                continue
            if spelling.literal is not None:
                literal += spelling.literal
                continue
            me = src.name(spelling)
            value = src.local("v")
            src.lines.append(f"    {value} = {field.getter(o)}")
            test = spelling.plain(value, me)
            if test is not None:
                plain.append(test)
            pieces.append(literal + spelling.open)
            pieces.append("\0" + spelling.text(value, me))
            literal = spelling.close
        pieces.append(literal + "}")

    walk(layout, "o")
    if plain:
        src.lines.append(f"    if not ({' and '.join(plain)}):")
        src.lines.append("        raise OffTable")
    fmt = ""
    for piece in pieces:
        if piece.startswith("\0"):
            text = src.local("t")
            src.lines.append(f"    {text} = {piece[1:]}")
            fmt += "{" + text + "}"
        else:
            fmt += piece.replace("{", "{{").replace("}", "}}")
    src.lines.append(f"    return f{fmt!r}")


def _reader_call(field: Field, value: str, path: str, scope: dict[str, str], src: _Source) -> str:
    args = [value, path]
    for name in field.context:
        if name not in scope:
            raise ValueError(f"field {field.key!r} reads {name!r} before it is read")
        args.append(scope[name])
    args += [src.name(item, "c") for item in field.extra]
    return f"{src.name(field.read, 'r')}({', '.join(args)})"


def _params(layout: Layout) -> str:
    return "".join(f", {p}=p_{p}" for p in layout.params)


def _build_call(lay: Layout, values: dict[str, str], suffix: str, tail: str, src: _Source) -> str:
    """The source of the call of `lay.build` with the fields read (`values`) and `tail`."""
    arguments = "".join(f", {key}={value}" for key, value in values.items())
    path = "path" if not suffix else f"path + {suffix!r}"
    return f"{src.name(lay.build, 'b')}(path={path}{arguments}{tail})"


def _gen_read(layout: Layout, src: _Source) -> None:
    """`generated(d, path, *params)`: `d` is an object whose field names are checked already."""
    _gen_reading(layout, src, None)


def _gen_read_text(layout: Layout, src: _Source) -> None:
    """`generated(inside, path, *params)`: `inside` is the text without its first and last literal."""
    _, parts, slots = _text_layout(layout, reading=True)
    pieces = [f"p{n}" for n in range(len(slots))]
    _gen_reading(layout, src, {where: piece for (_, where), piece in zip(slots, pieces, strict=True)})
    sized = src.name(tuple((part, len(part)) for part in parts), "parts")
    head = [f"    {', '.join(pieces)}, = cut(d, {sized})"]
    for (field, _), piece in zip(slots, pieces, strict=True):
        if field.spelling is _RULES_VERSION:
            head += [f"    if not reads_rules_version({piece}):", "        raise OffTable"]
    src.lines[1:1] = head


def _gen_reading(layout: Layout, src: _Source, piece_of: dict[str, str] | None) -> None:
    """The reader of parsed objects (`piece_of` None), or of canonical text cut into the pieces `piece_of`."""
    src.lines.append(f"def generated(d, path{''.join(', p_' + p for p in layout.params)}):")

    def walk(lay: Layout, d: str, suffix: str, scope: dict[str, str], tail: str = "") -> str:
        values = {}
        for field in lay.fields:
            where = f"path + {suffix + '/' + field.key!r}"
            local = f"v{src.local('')}_{field.key}"
            spelling = field.spelling
            if isinstance(spelling, Layout):
                inner = d
                if piece_of is None:
                    inner = src.local("d")
                    keys = src.name(spelling.keys, "f")
                    src.lines.append(f"    {inner} = read_object({d}[{field.key!r}], {where}, {keys})")
                call = walk(spelling, inner, f"{suffix}/{field.key}", dict(scope))
            elif piece_of is None:
                call = _reader_call(field, f"{d}[{field.key!r}]", where, scope, src)
            else:
                piece = piece_of[(suffix + "/" + field.key)[1:]]
                if field.read_text is not None:
                    call = _reader_call(attrs.evolve(field, read=field.read_text, extra=()), piece, where,
                                        scope, src)
                else:
                    parse = spelling.parse if spelling.parser is None else spelling.parser
                    call = _reader_call(field, f"{src.name(parse, 'parse')}({piece})", where, scope, src)
            src.lines.append(f"    {local} = {call}")
            scope[field.key] = values[field.key] = local
        return _build_call(lay, values, suffix, tail, src)

    scope = {p: f"p_{p}" for p in layout.params}
    src.lines.append(f"    return {walk(layout, 'd', '', scope, _params(layout))}")
