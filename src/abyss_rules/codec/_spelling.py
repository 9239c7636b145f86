"""How each kind of value is spelled in canonical JSON, both ways: the cells of a layout table.

A `Spelling` says, for one kind of value (an int, an int or null, an array of ints, a
boolean...), how the three derived functions of a layout (`abyss_rules.codec._layout`)
handle it:

* `data` -- the JSON-ready data `json` writes (the general writer, `*_to_dict`);
* `plain` and `text` -- the test that a value is one the generated writer spells, and the
  source of its canonical text (the fast writer, `dumps_*`);
* `parse` -- the JSON value of its canonical text (the fast reader of `loads_state`).

`data`, `plain` and `text` return Python *source* (the generated functions inline it);
`parse` runs. Integers are spelled by value, never by position in a table: `INT_TEXT` keeps
the common spellings and spells any other int on demand, and the fast reader takes back only
the spellings `json` writes. A spelling without `text` (`STR`: any string, which `json`
escapes) is written by `json` only, and so is every layout that holds one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from ._strict import INT_ONLY, canonical_json


class OffTable(Exception):
    """Not on the fast table: a value the generated writer does not spell, or text that is not the
    canonical spelling the generated reader reads.

    The one signal by which a fast path of the codec hands over to the general one (`json`),
    which writes the same text or names the exact problem. Internal to the codec, and no
    `ValueError`: only `except OffTable` catches it, so that no other error of a fast path
    (a bug) is mistaken for it.
    """


class IntSpellings(dict[int, str]):
    """`str(i)` by the int `i`: the common ones (`-512 <= i < 2048`) kept, any other spelled on demand."""

    def __missing__(self, value: int) -> str:
        return str(value)


INT_TEXT: Final = IntSpellings((i, str(i)) for i in range(-512, 2048))
"""The canonical spelling of an int, by value."""
INT_OF_TEXT: Final = {text: value for value, text in INT_TEXT.items()}
"""The ints a document mostly holds, by their canonical spelling (`INT_TEXT`, inverted)."""
_CANONICAL_INT: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,14})")
"""A canonical JSON integer of at most 15 digits (so always within +-MAX_INT)."""
BOOL_TEXT: Final = {True: "true", False: "false"}
BOOL_OF_TEXT: Final = {text: value for value, text in BOOL_TEXT.items()}
NULLABLE_INT: Final = frozenset({int, type(None)})


def null_or(value: int | None) -> str:
    """`"null"` or the plain int `value` spelled."""
    return "null" if value is None else INT_TEXT[value]


def ints_text(values: Any) -> str:
    """The inside of the canonical array of the plain ints `values` (`"3,-1,12"`)."""
    return ",".join(map(INT_TEXT.__getitem__, values))


def int_lists_text(lists: Any) -> str:
    """The inside of the canonical array of arrays of plain ints (`"[1,2],[]"`)."""
    return ",".join([f"[{','.join(map(INT_TEXT.__getitem__, values))}]" for values in lists])


def plain_int_lists(lists: Any) -> bool:
    """Whether every item of every array of `lists` is a plain int."""
    return all(INT_ONLY.issuperset(map(type, values)) for values in lists)


def int_of(text: str) -> int:
    """The integer of its canonical spelling (`"-12"`); `OffTable` for anything else."""
    value = INT_OF_TEXT.get(text)
    if value is None:
        if _CANONICAL_INT.fullmatch(text) is None:
            raise OffTable
        value = int(text)
    return value


def opt_int_of(text: str) -> int | None:
    """`None` for `"null"`, else `int_of`."""
    return None if text == "null" else int_of(text)


def ints_of(text: str) -> list[int]:
    """The integers of the inside of a canonical array (`"3,-1,12"`; `""` for none)."""
    if not text:
        return []
    parts = text.split(",")
    try:  # one lookup per number at C speed; a number not in the table is spelled out below
        return list(map(INT_OF_TEXT.__getitem__, parts))
    except KeyError:
        return [int_of(part) for part in parts]


def int_lists_of(text: str) -> list[list[int]]:
    """The integer arrays of the inside of a canonical array of them (`"[1,2],[]"`; `""` for none)."""
    if not text:
        return []
    if text[0] != "[" or text[-1] != "]":
        raise OffTable
    return [ints_of(part) for part in text[1:-1].split("],[")]


def bool_of(text: str) -> bool:
    """The boolean of `"true"` or `"false"`."""
    try:
        return BOOL_OF_TEXT[text]
    except KeyError:
        raise OffTable from None


def word_of(text: str) -> str:
    """The inside of a string of printable ASCII spelled without escapes (the reader checks what it
    may hold); `OffTable` for anything else, which `json` reads."""
    if not text.isascii() or "\\" in text or '"' in text or not text.isprintable():
        raise OffTable
    return text


# -- the spellings -----------------------------------------------------------------------------


class Spelling:
    """How one kind of value is written and read.

    `text`, `plain` and `data` are templates of Python source in which `{x}` stands for the
    source of the value and `{me}` for the name of this spelling in the generated code;
    `parser` reads the inside of the value's canonical text back (`None`: the field reads it
    with its own `read_text`). `open` and `close` are the literal text around the value's inside
    (`[` and `]` for an array); `literal`, if set, is the whole text of a constant (it holds no
    value to read).
    """

    literal: str | None = None

    def __init__(
        self,
        text: str | None,
        parser: Callable[[str], Any] | None = None,
        *,
        plain: str | None = None,
        data: str = "{x}",
        open: str = "",
        close: str = "",
    ) -> None:
        self.text_template, self.parser, self.plain_template, self.data_template = text, parser, plain, data
        self.open, self.close = open, close

    def data(self, x: str, me: str) -> str:
        """The source of the JSON-ready data of the value `x`."""
        return self.data_template.format(x=x, me=me)

    def plain(self, x: str, me: str) -> str | None:
        """The source of the test that `x` is a value `text` spells (`None`: every value is)."""
        return None if self.plain_template is None else self.plain_template.format(x=x, me=me)

    @property
    def direct(self) -> bool:
        """Whether the generated writer spells the value itself (else `json` writes the layout)."""
        return self.text_template is not None

    def text(self, x: str, me: str) -> str:
        """The source of the text of the inside of the value `x`."""
        assert self.text_template is not None, "a spelling without text is written by json"
        return self.text_template.format(x=x, me=me)

    def parse(self, inside: str) -> Any:
        """The JSON value of the inside of its canonical text (`OffTable` for any other text)."""
        if self.parser is None:
            raise OffTable
        return self.parser(inside)


INT: Final = Spelling("INT_TEXT[{x}]", int_of, plain="type({x}) is int")
OPT_INT: Final = Spelling("null_or({x})", opt_int_of, plain="type({x}) in NULLABLE_INT")
BOOL: Final = Spelling("BOOL_TEXT[{x}]", bool_of, plain="type({x}) is bool")
INTS: Final = Spelling("ints_text({x})", ints_of, plain="INT_ONLY.issuperset(map(type, {x}))",
                       data="list({x})", open="[", close="]")
INT_LISTS: Final = Spelling("int_lists_text({x})", int_lists_of, plain="plain_int_lists({x})",
                            data="[list(values) for values in {x}]", open="[", close="]")
WORD: Final = Spelling("{x}", word_of, plain="type({x}) is str and {x}.isascii() and {x}.isprintable() "
                       "and '\"' not in {x} and '\\\\' not in {x}", open='"', close='"')
"""A string `json` writes as itself (printable ASCII, no quote or backslash): hex digits, a version."""
STR: Final = Spelling(None)
"""Any string, or any JSON-ready value, as it is: written by `json`, which escapes what it must."""


class Const(Spelling):
    """A constant field (`"format": "state"`): its text is part of the layout's literal text."""

    def __init__(self, value: Any) -> None:
        super().__init__("", data="{me}.value")
        self.value = value
        self.literal = canonical_json(value)


class Named(Spelling):
    """A member of an enum whose values are words (`Phase`), spelled by its value."""

    def __init__(self, cls: type) -> None:
        super().__init__("{x}.value", word_of, plain="type({x}) is {me}.cls", data="{x}.value",
                         open='"', close='"')
        self.cls = cls


class Mapped(Spelling):
    """An array of values, each written as `function` gives it (by `json`): a record's actions in notation."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        super().__init__(None, data="list(map({me}.function, {x}))")
        self.function = function


class Computed(Spelling):
    """A value spelled by functions of its own: `text_of` (raising `OffTable` if it cannot) and `data_of`.

    Its reading is the field's `read_text`.
    """

    def __init__(self, text_of: Callable[[Any], str], data_of: Callable[[Any], Any],
                 open: str = "", close: str = "") -> None:
        super().__init__("{me}.text_of({x})", data="{me}.data_of({x})", open=open, close=close)
        self.text_of, self.data_of = text_of, data_of


class Items(Computed):
    """An array of items each spelled by `text_of` and `data_of` (grids, rounds, actions)."""

    def __init__(self, text_of: Callable[[Any], str], data_of: Callable[[Any], Any],
                 item_plain: Callable[[Any], bool] | None = None) -> None:
        super().__init__(text_of, data_of, "[", "]")
        self.text_template = '",".join(map({me}.text_of, {x}))'
        self.data_template = "list(map({me}.data_of, {x}))"
        self.plain_template = None if item_plain is None else "all(map({me}.item_plain, {x}))"
        self.item_plain = item_plain


NAMESPACE: Final[dict[str, Any]] = {
    "INT_TEXT": INT_TEXT,
    "BOOL_TEXT": BOOL_TEXT,
    "NULLABLE_INT": NULLABLE_INT,
    "INT_ONLY": INT_ONLY,
    "null_or": null_or,
    "ints_text": ints_text,
    "int_lists_text": int_lists_text,
    "plain_int_lists": plain_int_lists,
    "OffTable": OffTable,
}
"""The names the generated functions use besides their layout's own spellings and readers."""
