"""Document layouts: one table per kind of JSON object, from which its reading and writing are generated.

Every document the library reads or writes, and every object nested in one, is a table here:
a `Layout` lists the fields of one kind of object (a `state` document, a round of the
history, the dealer inside a state, a `verdict`...) -- for each, its key, its `Spelling`, how
to get it from the Python object written, and the function that reads and checks it -- and a
`Choice` is an object that is one of several layouts told apart by a tag (an action by its
`type`, an event by its `type`). From a layout's one table these functions are generated --
Python source built from the table and compiled once per layout, as `attrs` builds
`__init__` from a field list, registered in `linecache` so that a traceback shows its lines --
and kept in the `codec.generated` cache:

* `data(obj)` -- the JSON-ready dict (`state_to_dict`...), fields in the table's order (or
  `written`'s), an `optional` field left out when it is `None`;
* `text(obj)` -- the canonical text (`dumps_state`...). Written directly when every field
  has a spelling that spells its value (the fields in sorted-key order, every value spelled):
  a value it does not spell raises `OffTable`, and the caller lets `json` write the data.
  Otherwise it is `json`'s text of `data`;
* `read(d, path, *params)` -- the checked value of a parsed object (`state_from_dict`...):
  its header (a document) and field names checked, then each field read in the table's order
  with its reader, then `build` called with the values;
* `read_text(inside, path, *params)` -- the same of canonical text (inside its first and last
  literal), in two steps. First every piece between the literal text is *parsed* -- by its
  spelling, or by the field's `parse_text` -- and anything that is not the canonical spelling
  raises `OffTable` (the caller then parses the text with `json` and calls `read`). Then the
  pieces are *read* by the same readers as `read`, in the same order. So a refusal of the
  fast reader is the refusal `read` makes of the same text: the text is known to be the
  canonical JSON of an object with exactly the table's keys before any field is checked, and
  bad input is parsed once. (`parse_text` and `read_parsed` are the two steps alone, for a
  layout nested in another's text, such as the rounds of a history.)

So the general and the fast paths cannot drift apart: both come from the table, and the
property tests compare them over whole games and mutated text
(tests/property/test_documents_fast_paths.py).
"""

from __future__ import annotations

import json
import linecache
from collections.abc import Callable
from typing import Any, Final

import attrs

from .._versions import FORMAT_VERSION, RULES_VERSION
from ..caches import BoundedCache
from ..errors import Code, DecodeError
from ._spelling import NAMESPACE, WORD, Computed, Const, Items, OffTable, Spelling
from ._strict import (
    HEADER_FIELDS,
    bad,
    canonical_json,
    check_header,
    read_object,
    read_str,
    reads_rules_version,
    short,
    wrong_type,
)

__all__ = ["Choice", "Field", "Layout", "cut"]


@attrs.frozen
class Field:
    """One field of a layout.

    `spelling` is a `Spelling`, or a `Layout` for a nested object. `get` is the source of the
    value given the object written as `{o}` (default `{o}.<key>`). The field is read by
    `read(value, path, *context, *extra)` -- `context` names fields read before it, or the
    layout's `params`. An `optional` field may be absent (then its value is `None` and its
    reader is not called) and is not written when `None`.

    In canonical text, the field's piece is parsed by its spelling's `parse`, or by
    `parse_text(piece, *parse_context)` -- which raises `OffTable` for any text it does not
    take, and may name only params and fields parsed before it that need no reading -- and
    then read by `read_parsed(parsed, path, *context, *extra)`, or by `read` when the
    spelling parsed it. A field with `parse_text` and no `read_parsed` is read whole by its
    parse (the variant: any refusal of it is `OffTable`, and `json` names it).
    """

    key: str
    spelling: Spelling | Layout
    read: Callable[..., Any] | None = None
    context: tuple[str, ...] = ()
    extra: tuple[Any, ...] = ()
    get: str = ""
    optional: bool = False
    parse_text: Callable[..., Any] | None = None
    parse_context: tuple[str, ...] = ()
    read_parsed: Callable[..., Any] | None = None

    def getter(self, o: str) -> str:
        return (self.get or f"{{o}}.{self.key}").format(o=o)


@attrs.frozen(eq=False)
class Layout:
    """The table of one kind of JSON object: its fields in reading order, and how a value is built.

    `name` names the layout (in tracebacks: `<layout state: read>`). `build(path=..., **values)`
    makes the value of the fields read (by key) and the layout's `params`, checking how they
    fit together. A `document` layout is a whole document whose header names it (`format`,
    `format_version`, `rules_version`): `document` is its format. `check(obj)`, if given, is
    called before an object is written (it raises if the object cannot be). `written` lists
    the keys in the order `data` writes them, if not the reading order.
    """

    name: str
    fields: tuple[Field, ...]
    build: Callable[..., Any] | None = None
    params: tuple[str, ...] = ()
    document: str = ""
    check: Callable[[Any], Any] | None = None
    written: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        """The keys of the required fields (the header's aside)."""
        return frozenset(field.key for field in self.fields if not field.optional)

    @property
    def optional_keys(self) -> frozenset[str]:
        """The keys of the optional fields."""
        return frozenset(field.key for field in self.fields if field.optional)

    @property
    def direct(self) -> bool:
        """Whether `text` is written directly (every field spelled, none optional), else by `json`."""
        return all(not field.optional and field.spelling.direct for field in self.fields)

    def all_fields(self) -> tuple[Field, ...]:
        """The fields with the header's, in the order `data` writes them."""
        fields = self.fields
        if self.written:
            by_key = {field.key: field for field in fields}
            fields = tuple(by_key[key] for key in self.written)
        if not self.document:
            return fields
        return (
            Field("format", Const(self.document)),
            Field("format_version", Const(FORMAT_VERSION)),
            Field("rules_version", _RULES_VERSION),
            *fields,
        )

    def function(self, which: str) -> Callable[..., Any]:
        """The generated `data`, `text`, `read`, `read_text`, `parse_text` or `read_parsed` function."""
        found = _GENERATED.get((self, which))
        if found is None:
            found = _GENERATED.put((self, which), _compile(self, which))
        return found

    def first_and_last(self) -> tuple[str, str]:
        """The literal text before the first value and after the last, in canonical text."""
        return _text_layout(self, reading=True)[0]


@attrs.frozen(eq=False)
class Choice:
    """An object that is one of several layouts, told apart by the constant field `tag` of each.

    `cases` maps the Python class of a value to the layout that writes and reads it (its
    field `tag` is a `Const`); `select(obj)` gives the class of an object written (default
    `type`). A `document` choice is a whole document (the action document): its header is
    checked before its tag.
    """

    name: str
    tag: str
    cases: tuple[tuple[type, Layout], ...]
    select: Callable[[Any], type] = type
    document: str = ""
    _by_class: dict[type, Layout] = attrs.field(init=False, repr=False)
    _by_tag: dict[str, Layout] = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        by_tag = {}
        for _, layout in self.cases:
            (tag,) = [field.spelling for field in layout.fields if field.key == self.tag]
            assert isinstance(tag, Const), f"the tag of {layout.name!r} is a Const"
            by_tag[tag.value] = layout
        object.__setattr__(self, "_by_class", dict(self.cases))
        object.__setattr__(self, "_by_tag", by_tag)

    def case(self, obj: Any) -> Layout:
        """The layout of the object `obj` (a `KeyError` for a class that is none of the cases)."""
        return self._by_class[self.select(obj)]

    def data(self, obj: Any) -> Any:
        """The JSON-ready data of `obj`, by the layout of its class."""
        return self._by_class[self.select(obj)].function("data")(obj)

    def text(self, obj: Any) -> str:
        """The canonical text of `obj`, by the layout of its class."""
        text: str = self._by_class[self.select(obj)].function("text")(obj)
        return text

    def read(self, value: Any, path: str) -> Any:
        """The value of a parsed object: its tag names the layout that reads it."""
        if self.document:
            check_header(value, self.document)
        elif type(value) is not dict:
            raise wrong_type(value, "an object", path)
        if self.tag not in value:
            raise DecodeError(Code.MISSING_FIELD, f"missing field {self.tag!r}", f"{path}/{self.tag}")
        kind = read_str(value[self.tag], f"{path}/{self.tag}")
        layout = self._by_tag.get(kind)
        if layout is None:
            raise bad(f"must be one of {', '.join(self._by_tag)}, got {short(kind)}", f"{path}/{self.tag}")
        return layout.function("read")(value, path)

    def spelled(self) -> Computed:
        """The spelling of a field holding one of these objects."""
        return Computed(self.text, self.data)

    def items(self) -> Items:
        """The spelling of an array of these objects."""
        return Items(self.text, self.data)


class _RulesVersion(Const):
    """`rules_version`: written as the engine's, read as any version of the same major one."""

    def __init__(self) -> None:
        super().__init__(RULES_VERSION)
        self.open = self.close = '"'

    def parse(self, inside: str) -> Any:
        return WORD.parse(inside)


_RULES_VERSION: Final = _RulesVersion()

_GENERATED: Final = BoundedCache[tuple[Layout, str], Callable[..., Any]](
    "codec.generated", max_entries=512, max_size=512
)
"""The functions generated from the layouts, by (layout, function)."""


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
        self.namespace: dict[str, Any] = dict(NAMESPACE, read_object=read_object, check_header=check_header,
                                              reads_rules_version=reads_rules_version, cut=cut,
                                              canonical_json=canonical_json)
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
    generate = {"data": _gen_data, "text": _gen_text, "read": _gen_read, "read_text": _gen_read_text,
                "parse_text": _gen_parse_text, "read_parsed": _gen_read_parsed}[which]
    generate(layout, src)
    code = "\n".join(src.lines) + "\n"
    filename = f"<layout {layout.name}: {which}>"
    exec(compile(code, filename, "exec"), src.namespace)
    # As attrs does: the source is kept where tracebacks and debuggers look for it.
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    function: Callable[..., Any] = src.namespace["generated"]
    function.__doc__ = f"Generated from the layout {layout.name!r}: see `abyss_rules.codec._layout`."
    return function


def _gen_data(layout: Layout, src: _Source) -> None:
    src.lines.append("def generated(o):")
    if layout.check is not None:
        src.lines.append(f"    {src.name(layout.check, 'check')}(o)")

    def spelled(field: Field, value: str) -> str:
        spelling = field.spelling
        assert not isinstance(spelling, Layout)
        return spelling.data(value, src.name(spelling))

    def body(lay: Layout, o: str) -> str:
        items = []
        for field in lay.all_fields():
            spelling = field.spelling
            assert not field.optional or lay is layout, "only the outer layout has optional fields"
            if field.optional:
                continue
            if isinstance(spelling, Layout):
                inner = src.local("o")
                src.lines.append(f"    {inner} = {field.getter(o)}")
                items.append(f"{_key(field.key)}: {body(spelling, inner)}")
            else:
                items.append(f"{_key(field.key)}: {spelled(field, field.getter(o))}")
        return "{" + ", ".join(items) + "}"

    result = body(layout, "o")
    optional = [field for field in layout.all_fields() if field.optional]
    if not optional:
        src.lines.append(f"    return {result}")
        return
    # The optional fields come last in every layout that has them: written after the rest, when set.
    fields = layout.all_fields()
    assert fields[len(fields) - len(optional):] == tuple(optional), "optional fields come last"
    src.lines.append(f"    d = {result}")
    for field in optional:
        value = src.local("v")
        src.lines.append(f"    {value} = {field.getter('o')}")
        src.lines.append(f"    if {value} is not None:")
        src.lines.append(f"        d[{_key(field.key)}] = {spelled(field, value)}")
    src.lines.append("    return d")


def _gen_text(layout: Layout, src: _Source) -> None:
    src.lines.append("def generated(o):")
    if not layout.direct:  # a value json must escape, or an optional field: json writes the data
        src.lines.append(f"    return canonical_json({src.name(layout.function('data'), 'data')}(o))")
        return
    if layout.check is not None:
        src.lines.append(f"    {src.name(layout.check, 'check')}(o)")
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


def _call(function: Callable[..., Any], args: list[str], field: Field, scope: dict[str, str], src: _Source,
          context: tuple[str, ...] | None = None, extra: bool = True) -> str:
    """The source of the call of `function` with `args`, the `context` read (or parsed) so far and `extra`."""
    for name in field.context if context is None else context:
        if name not in scope:
            raise ValueError(f"field {field.key!r} reads {name!r} before it is read")
        args.append(scope[name])
    if extra:
        args += [src.name(item, "c") for item in field.extra]
    return f"{src.name(function, 'r')}({', '.join(args)})"


def _build_call(lay: Layout, values: dict[str, str], suffix: str, tail: str, src: _Source) -> str:
    """The source of the call of `lay.build` with the fields read (`values`) and `tail`."""
    assert lay.build is not None, f"the layout {lay.name!r} is written only"
    arguments = "".join(f", {key}={value}" for key, value in values.items())
    path = "path" if not suffix else f"path + {suffix!r}"
    return f"{src.name(lay.build, 'b')}(path={path}{arguments}{tail})"


def _params(layout: Layout) -> str:
    return "".join(f", {p}=p_{p}" for p in layout.params)


def _gen_read(layout: Layout, src: _Source) -> None:
    """`generated(d, path, *params)`: `d` is a parsed object, its header and field names checked here."""
    src.lines.append(f"def generated(d, path{''.join(', p_' + p for p in layout.params)}):")
    if layout.document:
        src.lines.append(f"    check_header(d, {layout.document!r})")
    optional = f", {src.name(layout.optional_keys, 'f')}" if layout.optional_keys else ""
    keys = src.name(layout.keys | HEADER_FIELDS if layout.document else layout.keys, "f")
    src.lines.append(f"    read_object(d, path, {keys}{optional})")

    def walk(lay: Layout, d: str, suffix: str, scope: dict[str, str], tail: str = "") -> str:
        values = {}
        for field in lay.fields:
            if isinstance(field.spelling, Const):
                continue  # a choice's tag: the choice has checked it
            where = f"path + {suffix + '/' + field.key!r}"
            local = f"v{src.local('')}_{field.key}"
            spelling = field.spelling
            if isinstance(spelling, Layout):
                inner = src.local("d")
                keys = src.name(spelling.keys, "f")
                src.lines.append(f"    {inner} = read_object({d}[{field.key!r}], {where}, {keys})")
                call = walk(spelling, inner, f"{suffix}/{field.key}", dict(scope))
            else:
                assert field.read is not None, f"the field {field.key!r} of {lay.name!r} is written only"
                call = _call(field.read, [f"{d}[{field.key!r}]", where], field, scope, src)
                if field.optional:
                    call = f"{call} if {field.key!r} in {d} else None"
            src.lines.append(f"    {local} = {call}")
            scope[field.key] = values[field.key] = local
        return _build_call(lay, values, suffix, tail, src)

    scope = {p: f"p_{p}" for p in layout.params}
    src.lines.append(f"    return {walk(layout, 'd', '', scope, _params(layout))}")


# -- reading canonical text: parse every piece, then read every field ---------------------------


def _parse_params(layout: Layout) -> tuple[str, ...]:
    """The params the pieces' parsing needs (the rest are needed by the reading only)."""
    needed = {name for field in _flat_fields(layout) for name in field.parse_context}
    return tuple(p for p in layout.params if p in needed)


def _flat_fields(layout: Layout) -> list[Field]:
    """The fields of `layout` and of its nested layouts, in reading order."""
    out = []
    for field in layout.fields:
        if isinstance(field.spelling, Layout):
            out += _flat_fields(field.spelling)
        else:
            out.append(field)
    return out


def _gen_parsing(layout: Layout, src: _Source) -> tuple[list[str], dict[str, str]]:
    """Lines that cut `d` and parse each piece (raising `OffTable` for any text not canonical).

    Returns the names of the parsed pieces in reading order, and the parsed values that need no
    reading (by field key), for the fields read after them.
    """
    assert layout.direct, f"the layout {layout.name!r} has no canonical text to read"
    _, parts, slots = _text_layout(layout, reading=True)
    pieces = [f"p{n}" for n in range(len(slots))]
    piece_of = {where: piece for (_, where), piece in zip(slots, pieces, strict=True)}
    sized = src.name(tuple((part, len(part)) for part in parts), "parts")
    src.lines.append(f"    {', '.join(pieces)}, = cut(d, {sized})")
    for (field, _), piece in zip(slots, pieces, strict=True):
        if field.spelling is _RULES_VERSION:
            src.lines += [f"    if not reads_rules_version({piece}):", "        raise OffTable"]
    parsed: list[str] = []
    settled = {p: f"p_{p}" for p in layout.params}

    def walk(lay: Layout, prefix: str) -> None:
        for field in lay.fields:
            spelling = field.spelling
            if isinstance(spelling, Layout):
                walk(spelling, f"{prefix}{field.key}/")
                continue
            if isinstance(spelling, Const):
                continue
            piece = piece_of[prefix + field.key]
            local = f"q{len(parsed)}"
            if field.parse_text is not None:
                call = _call(field.parse_text, [piece], field, settled, src, field.parse_context, extra=False)
                if field.read_parsed is None:
                    settled[field.key] = local
            else:
                parse = spelling.parse if spelling.parser is None else spelling.parser
                call = f"{src.name(parse, 'parse')}({piece})"
            src.lines.append(f"    {local} = {call}")
            parsed.append(local)

    walk(layout, "")
    return parsed, settled


def _gen_reading_parsed(layout: Layout, src: _Source, parsed: list[str], settled: dict[str, str]) -> str:
    """Lines that read the parsed pieces `parsed` field by field; returns the source of the value."""
    names = iter(parsed)

    def walk(lay: Layout, suffix: str, scope: dict[str, str], tail: str = "") -> str:
        values = {}
        for field in lay.fields:
            spelling = field.spelling
            if isinstance(spelling, Const):
                continue
            if isinstance(spelling, Layout):
                call = walk(spelling, f"{suffix}/{field.key}", dict(scope))
                local = f"v{src.local('')}_{field.key}"
                src.lines.append(f"    {local} = {call}")
                scope[field.key] = values[field.key] = local
                continue
            piece = next(names)
            where = f"path + {suffix + '/' + field.key!r}"
            if field.parse_text is not None and field.read_parsed is None:
                local = piece  # read whole by its parse
            else:
                reader = field.read_parsed if field.parse_text is not None else field.read
                assert reader is not None, f"the field {field.key!r} of {lay.name!r} is written only"
                local = f"v{src.local('')}_{field.key}"
                src.lines.append(f"    {local} = {_call(reader, [piece, where], field, scope, src)}")
            scope[field.key] = values[field.key] = local
        return _build_call(lay, values, suffix, tail, src)

    scope = {p: f"p_{p}" for p in layout.params}
    return walk(layout, "", scope, _params(layout))


def _gen_read_text(layout: Layout, src: _Source) -> None:
    """`generated(inside, path, *params)`: `inside` is the text without its first and last literal."""
    src.lines.append(f"def generated(d, path{''.join(', p_' + p for p in layout.params)}):")
    parsed, settled = _gen_parsing(layout, src)
    src.lines.append(f"    return {_gen_reading_parsed(layout, src, parsed, settled)}")


def _gen_parse_text(layout: Layout, src: _Source) -> None:
    """`generated(inside, *parse_params)`: the parsed pieces of `inside`, for `read_parsed`."""
    src.lines.append(f"def generated(d{''.join(', p_' + p for p in _parse_params(layout))}):")
    parsed, _ = _gen_parsing(layout, src)
    src.lines.append(f"    return ({', '.join(parsed)},)")


def _gen_read_parsed(layout: Layout, src: _Source) -> None:
    """`generated(parsed, path, *params)`: the value of the pieces `parse_text` parsed."""
    src.lines.append(f"def generated(q, path{''.join(', p_' + p for p in layout.params)}):")
    # The values of the fields read whole by their parse are among the pieces: named as parsed.
    pieces = [field for field in _flat_fields(layout) if not isinstance(field.spelling, Const)]
    names = [f"q{n}" for n in range(len(pieces))]
    src.lines.append(f"    {', '.join(names)}, = q")
    src.lines.append(f"    return {_gen_reading_parsed(layout, src, names, {})}")
