"""`variant` documents and the variant object inside every other document (rules 10.1-10.4)."""

from __future__ import annotations

from itertools import chain, count
from operator import itemgetter
from typing import Any, Final, cast

from .._text import is_text
from .._versions import header
from ..caches import BoundedCache, Memo
from ..config import FIELD_NAMES, MAX_DECK_SIZE, MAX_DECK_VALUES, Variant, variant_fields
from ..documents import VariantDocument
from ..errors import ArgumentError, Code, ConfigError, DecodeError
from ._spelling import Computed
from ._strict import (
    INT_ONLY,
    bad,
    canonical_json,
    decode,
    lone_surrogate,
    parse,
    read_bool,
    read_document,
    read_int,
    read_list,
    read_object,
    read_opt_int,
    read_str,
    wrong_type,
)

# -- variants ------------------------------------------------------------------------------

VARIANT_FIELDS: Final = frozenset(FIELD_NAMES)
_INT_FIELDS: Final = ("rows", "cols", "min_players", "max_players", "initial_flips", "closer_multiplier")
_FLAG_FIELDS: Final = ("flip_turn", "swallow_on_final_reveal", "reshuffle_keeps_top")
_LIMIT_FIELDS: Final = ("target_score", "max_rounds", "max_turns_per_round")
_VARIANTS: Final = BoundedCache[int, tuple[dict[str, Any], tuple[type, ...], Variant]](
    "codec.variants", max_entries=8, max_size=8 * 256
)
"""The last variants read, by order read: (a copy of the object read, the types of its scalar
fields, the Variant); size: the deck's pairs."""
_READ_COUNT: Final = count()


def _fields_text(variant: Variant) -> str:
    return canonical_json(variant_fields(variant))


_TEXTS: Final = Memo[Variant, str]("codec.variant_texts", _fields_text, max_entries=64, max_size=1 << 18,
                                   size=len)
"""The canonical JSON of the fields of the last variants written (size: characters)."""


def _fields(variant: Variant) -> dict[str, Any]:
    return dict(variant_fields(variant))


_FIELDS: Final = Memo[Variant, dict[str, Any]]("codec.variant_fields", _fields, max_entries=64,
                                               max_size=64 * 256, size=lambda fields: len(fields["deck"]))
"""`variant_fields` of the last variants written (size: the deck's pairs); never handed out."""


def variant_text(variant: Variant) -> str:
    """The canonical JSON of a variant's fields (cached)."""
    return _TEXTS(variant)


def variant_doc(variant: Variant) -> dict[str, Any]:
    """`variant_fields(variant)`, from a cached copy (each call returns fresh lists)."""
    cached = _FIELDS(variant)
    return {**cached, "deck": [list(pair) for pair in cached["deck"]]}


VARIANT: Final = Computed(variant_text, variant_doc)
"""The spelling of the variant object inside a document (its text cached on the variant)."""


def variant_of_text(text: str, path: str) -> Variant:
    """The variant of the canonical text of a variant object at `path` (cached by text)."""
    variant = _VARIANT_OF_TEXT.get(text)
    if variant is None:
        variant = read_variant(decode(text), path)
        _VARIANT_OF_TEXT.put(text, variant, len(text))
    return variant


_VARIANT_OF_TEXT: Final = BoundedCache[str, Variant](
    "codec.variants_by_text", max_entries=64, max_size=1 << 20
)
"""Variants read from canonical text, by the text of their object (size: characters)."""

_SCALAR_FIELDS: Final = tuple(name for name in FIELD_NAMES if name != "deck")
_get_scalars: Final = itemgetter(*_SCALAR_FIELDS)


def read_variant(value: Any, path: str) -> Variant:
    d = read_object(value, path, VARIANT_FIELDS)
    # Fast path: a variant read recently, equal in values *and types* (1 == True == 1.0 in Python).
    for known, types, variant in _VARIANTS.snapshot():
        if (
            d == known
            and tuple(map(type, _get_scalars(d))) == types
            and INT_ONLY.issuperset(map(type, chain.from_iterable(d["deck"])))
        ):
            return variant
    return _read_new_variant(d, path)


def _read_new_variant(d: dict[str, Any], path: str) -> Variant:
    name = read_str(d["name"], f"{path}/name")
    if not is_text(name):
        raise lone_surrogate(f"{path}/name")
    deck_path = f"{path}/deck"
    deck: list[tuple[int, int]] = []
    pairs = read_list(d["deck"], deck_path)
    if len(pairs) > MAX_DECK_VALUES:  # refused before a pair is read (rule 10.4)
        raise DecodeError(
            Code.INVALID_VARIANT,
            f"deck: at most {MAX_DECK_VALUES} distinct values, got {len(pairs)}",
            deck_path,
            rule="10.4",
        )
    total = 0
    for i, pair in enumerate(pairs):
        where = f"{deck_path}/{i}"
        if type(pair) is not list:
            raise wrong_type(pair, "a [value, count] pair", where)
        if len(pair) != 2:
            raise bad(f"must be a [value, count] pair, got {len(pair)} items", where, Code.BAD_SHAPE)
        deck.append((read_int(pair[0], f"{where}/0"), read_int(pair[1], f"{where}/1")))
        total += deck[-1][1]
        if total > MAX_DECK_SIZE:  # refused as soon as the counts add up past the bound (rule 10.4)
            raise DecodeError(
                Code.INVALID_VARIANT,
                f"deck: at most {MAX_DECK_SIZE} cards in all, got more",
                f"{where}/1",
                rule="10.4",
            )
    for field in _INT_FIELDS:
        read_int(d[field], f"{path}/{field}")
    for field in _FLAG_FIELDS:
        read_bool(d[field], f"{path}/{field}")
    for field in _LIMIT_FIELDS:
        read_opt_int(d[field], f"{path}/{field}")
    read_str(d["opener"], f"{path}/opener")
    fields: dict[str, Any] = {field: tuple(deck) if field == "deck" else d[field] for field in FIELD_NAMES}
    try:
        variant = Variant(**fields)
    except ConfigError as error:
        raise DecodeError(Code.INVALID_VARIANT, error.message, path, rule=error.rule) from None
    known = dict(d, deck=[list(pair) for pair in d["deck"]])  # a copy: the caller may change `d`
    _VARIANTS.put(next(_READ_COUNT), (known, tuple(map(type, _get_scalars(d))), variant), len(deck))
    return variant


def variant_to_dict(variant: Variant) -> VariantDocument:
    """A `variant` document: the header and every field of rule 10.1.

    Examples:
        >>> variant_to_dict(Variant.short())["max_rounds"]
        1
    """
    if not isinstance(variant, Variant):
        raise ArgumentError(f"expected a Variant, got {type(variant).__name__}")
    return cast(VariantDocument, {**header("variant"), **variant_doc(variant)})


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
    d = read_document(doc, "variant", VARIANT_FIELDS)
    return read_variant({name: d[name] for name in FIELD_NAMES}, "")


def loads_variant(data: str | bytes) -> Variant:
    """A `Variant` from `variant` document text.

    See `variant_from_dict`.

    Examples:
        >>> loads_variant(dumps_variant(Variant.short())).max_rounds
        1
    """
    return variant_from_dict(parse(data))
