"""`variant` documents and the variant object inside every other document (rules 10.1-10.4).

The variant object is the layout `VARIANT_OBJECT`, the `variant` document the same fields with
the header (`VARIANT_DOCUMENT`); inside state, view and record documents the object is
spelled `VARIANT`, its text kept per variant and the variants read kept by their text.
"""

from __future__ import annotations

from itertools import chain, count
from operator import itemgetter
from typing import Any, Final, cast

from .._text import is_text
from ..caches import BoundedCache, Memo
from ..config import FIELD_NAMES, MAX_DECK_SIZE, MAX_DECK_VALUES, Opener, Variant
from ..documents import VariantDict, VariantDocument
from ..errors import ArgumentError, Code, ConfigError, DecodeError
from ._layout import Field, Layout
from ._spelling import BOOL, INT, OPT_INT, STR, Computed, Named, OffTable, Spelling
from ._strict import (
    INT_ONLY,
    bad,
    canonical_json,
    decode,
    lone_surrogate,
    parse,
    read_bool,
    read_int,
    read_list,
    read_object,
    read_opt_int,
    read_str,
    wrong_type,
)

# -- the fields' readers ---------------------------------------------------------------------


def read_name(value: Any, path: str) -> str:
    """The variant's `name`: a string UTF-8 can hold (rule 10.5)."""
    name = read_str(value, path)
    if not is_text(name):
        raise lone_surrogate(path)
    return name


def read_deck(value: Any, path: str) -> tuple[tuple[int, int], ...]:
    """The `deck`: `[value, count]` pairs of integers, refused as soon as it is too large (rule 10.4)."""
    pairs = read_list(value, path)
    if len(pairs) > MAX_DECK_VALUES:  # refused before a pair is read (rule 10.4)
        raise DecodeError(Code.INVALID_VARIANT, f"deck: at most {MAX_DECK_VALUES} distinct values, got "
                                                f"{len(pairs)}", path, rule="10.4")
    deck: list[tuple[int, int]] = []
    total = 0
    for i, pair in enumerate(pairs):
        where = f"{path}/{i}"
        if type(pair) is not list:
            raise wrong_type(pair, "a [value, count] pair", where)
        if len(pair) != 2:
            raise bad(f"must be a [value, count] pair, got {len(pair)} items", where, Code.BAD_SHAPE)
        deck.append((read_int(pair[0], f"{where}/0"), read_int(pair[1], f"{where}/1")))
        total += deck[-1][1]
        if total > MAX_DECK_SIZE:  # refused as soon as the counts add up past the bound (rule 10.4)
            raise DecodeError(Code.INVALID_VARIANT, f"deck: at most {MAX_DECK_SIZE} cards in all, got more",
                              f"{where}/1", rule="10.4")
    return tuple(deck)


def make_variant(path: str, **fields: Any) -> Variant:
    """The variant of its fields read one by one, validated together (rule 10.3: `invalid_variant`)."""
    try:
        return Variant(**fields)
    except ConfigError as error:
        raise DecodeError(Code.INVALID_VARIANT, error.message, path, rule=error.rule) from None


# -- the layout ------------------------------------------------------------------------------

_FIELDS: Final = (  # in reading order: the name, the deck, the integers, the flags, the limits, the opener
    Field("name", STR, read_name),
    Field("deck", Spelling(None, data="[list(pair) for pair in {x}]"), read_deck),
    *(Field(name, INT, read_int) for name in ("rows", "cols", "min_players", "max_players", "initial_flips",
                                              "closer_multiplier")),
    *(Field(name, BOOL, read_bool) for name in ("flip_turn", "swallow_on_final_reveal",
                                                "reshuffle_keeps_top")),
    *(Field(name, OPT_INT, read_opt_int) for name in ("target_score", "max_rounds", "max_turns_per_round")),
    Field("opener", Named(Opener), read_str),
)
VARIANT_OBJECT: Final = Layout("variant object", _FIELDS, make_variant, written=FIELD_NAMES)
"""The variant object inside state, view and record documents: every field of rule 10.1 (written in
`FIELD_NAMES`' order)."""
VARIANT_DOCUMENT: Final = Layout("variant", _FIELDS, make_variant, document="variant", written=FIELD_NAMES)
"""The `variant` document: the header and the fields of `VARIANT_OBJECT`."""
VARIANT_FIELDS: Final = VARIANT_OBJECT.keys



def variant_data(variant: Variant) -> VariantDict:
    """Every field of `variant` (rule 10.1) as JSON-ready data: the variant object of a document."""
    return cast(VariantDict, VARIANT_OBJECT.function("data")(variant))


def _variant_text(variant: Variant) -> str:
    return VARIANT_OBJECT.function("text")(variant)  # type: ignore[no-any-return]


_TEXTS: Final = Memo[Variant, str]("codec.variant_texts", _variant_text, max_entries=64, max_size=1 << 18,
                                   size=len)
"""The canonical text of the last variant objects written (size: characters)."""


def variant_text(variant: Variant) -> str:
    """The canonical text of a variant object (kept per variant)."""
    return _TEXTS(variant)


VARIANT: Final = Computed(variant_text, variant_data)
"""The spelling of the variant object inside a document (its text kept per variant)."""


# -- reading ---------------------------------------------------------------------------------

_VARIANTS: Final = BoundedCache[int, tuple[dict[str, Any], tuple[type, ...], Variant]](
    "codec.variants", max_entries=8, max_size=8 * 256
)
"""The last variants read, by order read: (a copy of the object read, the types of its scalar
fields, the Variant); size: the deck's pairs."""
_READ_COUNT: Final = count()
_SCALAR_FIELDS: Final = tuple(name for name in FIELD_NAMES if name != "deck")
_get_scalars: Final = itemgetter(*_SCALAR_FIELDS)


def read_variant(value: Any, path: str) -> Variant:
    """The variant object at `path` of a parsed document."""
    d = read_object(value, path, VARIANT_FIELDS)
    # Fast path: a variant read recently, equal in values *and types* (1 == True == 1.0 in Python).
    for known, types, variant in _VARIANTS.snapshot():
        if (
            d == known
            and tuple(map(type, _get_scalars(d))) == types
            and INT_ONLY.issuperset(map(type, chain.from_iterable(d["deck"])))
        ):
            return variant
    read: Variant = VARIANT_OBJECT.function("read")(d, path)
    known = dict(d, deck=[list(pair) for pair in d["deck"]])  # a copy: the caller may change `d`
    _VARIANTS.put(next(_READ_COUNT), (known, tuple(map(type, _get_scalars(d))), read), len(read.deck))
    return read


def variant_of_text(text: str) -> Variant:
    """The variant of the text of a variant object in canonical text (the fast reader's parse of
    it, kept by text); `OffTable` for text that is not one, which the general reader explains."""
    variant = _VARIANT_OF_TEXT.get(text)
    if variant is None:
        try:
            variant = read_variant(decode(text), "")
        except DecodeError:  # not JSON, or refused: json parses the whole text, and says where
            raise OffTable from None
        _VARIANT_OF_TEXT.put(text, variant, len(text))
    return variant


_VARIANT_OF_TEXT: Final = BoundedCache[str, Variant](
    "codec.variants_by_text", max_entries=64, max_size=1 << 20
)
"""Variants read from canonical text, by the text of their object (size: characters)."""


# -- the public functions --------------------------------------------------------------------


def variant_to_dict(variant: Variant) -> VariantDocument:
    """A `variant` document: the header and every field of rule 10.1.

    Examples:
        >>> variant_to_dict(Variant.short())["max_rounds"]
        1
    """
    if not isinstance(variant, Variant):
        raise ArgumentError(f"expected a Variant, got {type(variant).__name__}")
    return cast(VariantDocument, VARIANT_DOCUMENT.function("data")(variant))


def dumps_variant(variant: Variant) -> str:
    """The canonical JSON text of a `variant` document.

    Examples:
        >>> dumps_variant(Variant.standard())[:58]
        '{"closer_multiplier":2,"cols":4,"deck":[[-2,5],[-1,10],[0,'
    """
    return canonical_json(variant_to_dict(variant))


def variant_from_dict(doc: Any) -> Variant:
    """A `Variant` from a parsed `variant` document; every field is required.

    Rule 10.3's validation failures raise `DecodeError` with code `invalid_variant`.

    Examples:
        >>> variant_from_dict(variant_to_dict(Variant.long())) == Variant.long()
        True
    """
    variant: Variant = VARIANT_DOCUMENT.function("read")(doc, "")
    return variant


def loads_variant(data: str | bytes) -> Variant:
    """A `Variant` from `variant` document text.

    See `variant_from_dict`.

    Examples:
        >>> loads_variant(dumps_variant(Variant.short())).max_rounds
        1
    """
    return variant_from_dict(parse(data))
