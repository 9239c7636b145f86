"""Variant configuration and presets (spec section 10).

A `Variant` is a frozen, validated value holding every rule flag, the deck
composition, the grid shape, the player range and the end-of-game
conditions. Presets are ordinary values (rule 10.2): change any field with
`Variant.replace`.

Examples:
    >>> Variant.standard().target_score
    100
    >>> Variant.long().target_score
    150
    >>> Variant.short().max_rounds
    1
    >>> Variant.standard().replace(flip_turn=False).flip_turn
    False
    >>> Variant(rows=1)
    Traceback (most recent call last):
    ...
    abyss_rules.errors.ConfigError: [invalid_variant] rows must be an int from 2 to 16, got 1 (rule 10.3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sized
from enum import StrEnum
from itertools import islice
from typing import TYPE_CHECKING, Any, Final, cast

import attrs

from ._grid import Geometry
from ._text import is_text
from ._versions import header
from .cards import MAX_CARD_VALUE, MIN_CARD_VALUE, STANDARD_DECK, Composition, unshuffled_deck
from .errors import ArgumentError, Code, ConfigError

if TYPE_CHECKING:
    from .documents import VariantDict, VariantDocument

__all__ = [
    "MAX_CELLS",
    "MAX_DECK_SIZE",
    "MAX_DECK_VALUES",
    "MAX_GRID_SIDE",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MAX_TARGET_SCORE",
    "MAX_TURNS_PER_ROUND",
    "Opener",
    "Variant",
    "variant_fields",
]

# The size bounds of a variant (spec rule 10.4). They keep the worst legal game small: at most
# 16 seats of 64 spaces and 2,048 cards, so that a state holds at most a few thousand ints and
# a deal shuffles at most 2,048 cards. Every one is checked before anything is built, in time
# that does not depend on the size of what was given.
MAX_GRID_SIDE: Final = 16
"""The largest number of rows or columns a variant may have (rule 10.3)."""
MAX_CELLS: Final = 64
"""The largest number of spaces of a grid, `rows * cols` (rule 10.4)."""
MAX_PLAYERS: Final = 16
"""The largest `max_players` a variant may have (rule 10.3)."""
MAX_DECK_SIZE: Final = 2_048
"""The most cards a deck may hold, the sum of its counts (rule 10.4): 13 standard decks."""
MAX_DECK_VALUES: Final = 256
"""The most distinct card values a deck may hold (rule 10.4)."""
MAX_TARGET_SCORE: Final = 1_000_000
"""The largest `target_score` (rule 10.4)."""
MAX_ROUNDS: Final = 1_000
"""The largest `max_rounds` (rule 10.4)."""
MAX_TURNS_PER_ROUND: Final = 1_000_000_000
"""The largest `max_turns_per_round` (rule 10.3)."""
_LIMITS: Final = {"target_score": (MAX_TARGET_SCORE, "10.4"), "max_rounds": (MAX_ROUNDS, "10.4"),
                  "max_turns_per_round": (MAX_TURNS_PER_ROUND, "10.3")}


class Opener(StrEnum):
    """Who opens a round (rules 2.3 and 2.4): the type of `Variant.opener`.

    A string enum: a plain string is accepted wherever an `Opener` is.

    Examples:
        >>> Opener("previous_closer") is Opener.PREVIOUS_CLOSER
        True
        >>> Variant(opener="previous_closer").opener
        <Opener.PREVIOUS_CLOSER: 'previous_closer'>
    """

    HIGHEST_FLIPS = "highest_flips"
    """Every round: highest sum of opening flips, then highest card, then lowest seat."""
    PREVIOUS_CLOSER = "previous_closer"
    """Round 1 as above; later rounds: the previous round's closer."""


def _to_composition(deck: Any) -> Any:
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Iterable):
        return deck  # rejected by validation with a clear message
    # Never read more than the bound allows (rule 10.4): a huge list or an endless iterator is
    # refused after MAX_DECK_VALUES + 1 items, whatever its size.
    if isinstance(deck, Sized) and len(deck) > MAX_DECK_VALUES:
        raise _too_many_values(len(deck))
    pairs = list(islice(deck, MAX_DECK_VALUES + 1))
    if len(pairs) > MAX_DECK_VALUES:
        raise _too_many_values(None)
    out = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            out.append((pair[0], pair[1]))
        else:
            return deck
    return tuple(out)


def _to_opener(value: Any) -> Any:
    try:
        return Opener(value)
    except ValueError:
        return value  # rejected by validation


def _short(value: object, limit: int = 60) -> str:
    """`repr(value)`, cut short: a refusal never spells out a huge input."""
    if isinstance(value, (str, bytes, tuple, list)) and len(value) >= 100:
        unit = "characters" if isinstance(value, str) else "items"
        return f"a {type(value).__name__} of {len(value)} {unit}"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _is_int(value: object) -> bool:
    return type(value) is int


def _fail(message: str, rule: str = "10.3") -> ConfigError:
    return ConfigError(Code.INVALID_VARIANT, message, rule=rule)


def _too_many_values(count: int | None) -> ConfigError:
    got = f"got {count}" if count is not None else "got more"
    return _fail(f"deck: at most {MAX_DECK_VALUES} distinct values, {got}", "10.4")


@attrs.frozen(slots=True, kw_only=True, cache_hash=True)
class Variant:
    """Every rule setting of a game (spec rule 10.1), validated at construction (rule 10.3).

    Construct a preset with `standard`, `short` or `long`, then change
    fields with `replace`. An invalid combination raises `ConfigError`
    with code `invalid_variant` naming the field. Variants compare and
    hash by value.

    Examples:
        >>> Variant(rows=2, cols=3, max_rounds=2) == Variant.standard().replace(rows=2, cols=3, max_rounds=2)
        True
        >>> Variant(target_score=None)
        Traceback (most recent call last):
        ...
        abyss_rules.errors.ConfigError: [invalid_variant] the game could never end: ...
    """

    name: str = "standard"
    """A label for people; it has no effect on the rules."""
    deck: Composition = attrs.field(default=STANDARD_DECK, converter=_to_composition)
    """Deck composition, `(value, count)` pairs, values ascending (rule 1.1)."""
    rows: int = 3
    """Rows of each grid (rule 1.2); a column is swallowed when all its rows match."""
    cols: int = 4
    """Columns of each grid (rule 1.2)."""
    min_players: int = 2
    """Fewest players (rule 1.3)."""
    max_players: int = 8
    """Most players (rule 1.3)."""
    initial_flips: int = 2
    """Cards each player flips at the start of every round (rule 2.1)."""
    opener: Opener = attrs.field(default=Opener.HIGHEST_FLIPS, converter=_to_opener)
    """How the opener of a round is chosen (rules 2.3, 2.4)."""
    flip_turn: bool = True
    """Whether "flip only" is a turn option (rules 3.2, 3.7)."""
    swallow_on_final_reveal: bool = True
    """Whether columns completed by the final reveal are swallowed (rule 4.3)."""
    reshuffle_keeps_top: bool = True
    """Whether a reshuffle leaves the top discard in place (rules 5.1, 5.2)."""
    closer_multiplier: int = 2
    """The closer-penalty factor; 1 disables the penalty (rule 6.5)."""
    target_score: int | None = 100
    """A total at or above this ends the game after the round (rule 7.2); `None`: no target."""
    max_rounds: int | None = None
    """The game ends after this many rounds (rule 7.3); `None`: no limit."""
    max_turns_per_round: int | None = None
    """House rule: a round ends after this many turns (rule 6.7); `None`: no cap."""

    geometry: Geometry = attrs.field(init=False, eq=False, hash=False, repr=False)
    """The precomputed tables of the grid shape (`Geometry.of(rows, cols)`), derived from the
    fields: a plain attribute, read on the engine's hot path."""
    _unshuffled: tuple[int, ...] = attrs.field(init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._validate()
        object.__setattr__(self, "geometry", Geometry.of(self.rows, self.cols))
        object.__setattr__(self, "_unshuffled", unshuffled_deck(self.deck))

    # -- presets (rule 10.2) -------------------------------------------------

    @classmethod
    def standard(cls) -> Variant:
        """The rules as written plus every default ruling (ruling 19).

        Examples:
            >>> Variant.standard() == Variant()
            True
        """
        return _PRESETS["standard"]

    @classmethod
    def short(cls) -> Variant:
        """A single round; the final score is that round's score, closer penalty included (ruling 20).

        Examples:
            >>> Variant.short().name, Variant.short().max_rounds
            ('short', 1)
        """
        return _PRESETS["short"]

    @classmethod
    def long(cls) -> Variant:
        """Play to 150 instead of 100 (ruling 21).

        Examples:
            >>> Variant.long().name, Variant.long().target_score
            ('long', 150)
        """
        return _PRESETS["long"]

    @classmethod
    def presets(cls) -> dict[str, Variant]:
        """Every preset by name (a new dict each call).

        Examples:
            >>> sorted(Variant.presets())
            ['long', 'short', 'standard']
        """
        return dict(_PRESETS)

    @classmethod
    def preset(cls, name: str) -> Variant:
        """The preset called `name` (rule 10.2): `"standard"`, `"short"` or `"long"`.

        Every function that takes a variant also takes a preset's name, through this.

        Raises:
            ConfigError: `name` is no preset's name (code `invalid_variant`).

        Examples:
            >>> Variant.preset("short") is Variant.short()
            True
            >>> Variant.preset("quick")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            abyss_rules.errors.ConfigError: [invalid_variant] no preset is called 'quick'; the presets are ...
        """
        found = _PRESETS.get(name) if isinstance(name, str) else None
        if found is None:
            raise ConfigError(Code.INVALID_VARIANT,
                              f"no preset is called {name!r}; the presets are {', '.join(sorted(_PRESETS))}")
        return found

    @classmethod
    def resolve(cls, variant: object) -> Variant:
        """The variant an argument names: a `Variant` itself, a preset by its name (see `preset`),
        or the standard variant for `None`; anything else is refused.

        Every function that takes a variant reads its argument through this.

        Raises:
            ConfigError: `variant` is none of these, or no preset's name (code `invalid_variant`).

        Examples:
            >>> Variant.resolve("short") is Variant.short(), Variant.resolve(None) is Variant.standard()
            (True, True)
            >>> try:
            ...     Variant.resolve(3)
            ... except ConfigError as error:
            ...     print(error)
            [invalid_variant] variant must be a Variant or a preset's name, got int (rule 10.3)
        """
        if isinstance(variant, Variant):
            return variant
        if variant is None:
            return cls.standard()
        if isinstance(variant, str):
            return cls.preset(variant)
        raise ConfigError(Code.INVALID_VARIANT,
                          f"variant must be a Variant or a preset's name, got {type(variant).__name__}")

    def replace(self, **changes: Any) -> Variant:
        """A copy with some fields changed, validated again (rules 10.2, 10.3).

        Args:
            **changes: New values by field name (the names of rule 10.1).

        Returns:
            The new variant; `self` is unchanged.

        Raises:
            ConfigError: With code `invalid_variant` for an unknown field name or a
                value that fails validation.

        Examples:
            >>> Variant.short().replace(closer_multiplier=1).closer_multiplier
            1
            >>> Variant.short().replace(colour="red")
            Traceback (most recent call last):
            ...
            abyss_rules.errors.ConfigError: [invalid_variant] unknown variant field(s): colour (rule 10.3)
        """
        unknown = sorted(set(changes) - set(FIELD_NAMES))
        if unknown:
            raise _fail(f"unknown variant field(s): {', '.join(unknown)}")
        return attrs.evolve(self, **changes)

    # -- derived -------------------------------------------------------------

    @property
    def cells(self) -> int:
        """Spaces per grid: `rows * cols`."""
        return self.rows * self.cols

    @property
    def deck_size(self) -> int:
        """Number of cards in the deck."""
        return len(self._unshuffled)

    @property
    def unshuffled_deck(self) -> tuple[int, ...]:
        """The deck in unshuffled order (rule 9.4)."""
        return self._unshuffled

    # -- validation (rule 10.3) ----------------------------------------------

    def _validate(self) -> None:
        if not isinstance(self.name, str) or not 1 <= len(self.name) <= 64:
            raise _fail(f"name must be a string of 1 to 64 characters, got {_short(self.name)}")
        if not is_text(self.name):  # no document could hold the name (rule 10.5)
            message = f"name must be valid Unicode text, got {_short(self.name)} (a lone surrogate)"
            raise _fail(message)
        for field in ("rows", "cols"):
            value = getattr(self, field)
            low = 2 if field == "rows" else 1
            if not _is_int(value) or not low <= value <= MAX_GRID_SIDE:
                raise _fail(f"{field} must be an int from {low} to {MAX_GRID_SIDE}, got {_short(value)}")
        for field in ("min_players", "max_players"):
            value = getattr(self, field)
            if not _is_int(value) or not 1 <= value <= MAX_PLAYERS:
                raise _fail(f"{field} must be an int from 1 to {MAX_PLAYERS}, got {_short(value)}")
        if self.min_players > self.max_players:
            raise _fail(f"min_players ({self.min_players}) is more than max_players ({self.max_players})")
        cells = self.rows * self.cols
        if cells > MAX_CELLS:
            raise _fail(f"a grid has at most {MAX_CELLS} spaces, got {self.rows} x {self.cols} = {cells}",
                        "10.4")
        if not _is_int(self.initial_flips) or not 0 <= self.initial_flips < cells:
            raise _fail(f"initial_flips must be an int from 0 to {cells - 1}, got {self.initial_flips!r}")
        if not isinstance(self.opener, Opener):
            choices = ", ".join(o.value for o in Opener)
            raise _fail(f"opener must be one of {choices}, got {_short(self.opener)}")
        for field in ("flip_turn", "swallow_on_final_reveal", "reshuffle_keeps_top"):
            value = getattr(self, field)
            if type(value) is not bool:
                raise _fail(f"{field} must be true or false, got {_short(value)}")
        if not _is_int(self.closer_multiplier) or not 1 <= self.closer_multiplier <= 1000:
            raise _fail(f"closer_multiplier must be an int from 1 to 1000, got {self.closer_multiplier!r}")
        for field, (limit, rule) in _LIMITS.items():
            value = getattr(self, field)
            if value is not None and not _is_int(value):
                raise _fail(f"{field} must be null or an int from 1 to {limit}, got {_short(value)}")
            if value is not None and not 1 <= value <= limit:
                raise _fail(f"{field} must be null or an int from 1 to {limit}, got {_short(value)}",
                            rule if value > limit else "10.3")
        if self.target_score is None and self.max_rounds is None:
            raise _fail("the game could never end: set target_score or max_rounds")
        self._validate_deck(cells)

    def _validate_deck(self, cells: int) -> None:
        deck = self.deck
        if not isinstance(deck, tuple) or not deck:
            raise _fail(f"deck must be a non-empty list of [value, count] pairs, got {_short(deck)}")
        if len(deck) > MAX_DECK_VALUES:  # a tuple given directly bypasses the converter's check
            raise _too_many_values(len(deck))
        previous: int | None = None
        total = 0
        for pair in deck:
            if type(pair) is not tuple or len(pair) != 2:
                raise _fail(f"deck must be a non-empty list of [value, count] pairs, got {_short(pair)} "
                            "in it")
            value, count = pair
            if not _is_int(value) or not MIN_CARD_VALUE <= value <= MAX_CARD_VALUE:
                raise _fail(f"deck: card value must be an int from {MIN_CARD_VALUE} to {MAX_CARD_VALUE}, "
                            f"got {_short(value)}")
            if not _is_int(count) or count < 1:
                raise _fail(f"deck: count of value {value} must be an int from 1 to {MAX_DECK_SIZE}, "
                            f"got {_short(count)}")
            if previous is not None and value <= previous:
                raise _fail("deck: values must be distinct and in ascending order")
            previous = value
            total += count
            if total > MAX_DECK_SIZE:
                raise _fail(f"deck: at most {MAX_DECK_SIZE} cards in all, got more", "10.4")
        needed = self.max_players * cells + 2
        if total < needed:
            raise _fail(
                f"deck holds {total} cards; {self.max_players} players need {needed} "
                f"({cells} each, one to open the discard pile, one to draw)"
            )

    def to_dict(self) -> VariantDocument:
        """The `variant` document of this variant: the header, then every field of rule 10.1
        (the same as `variant_to_dict`; every `to_dict` of the library gives a whole document).

        `variant_fields` gives the fields alone, as nested in state, view and record documents.

        Examples:
            >>> doc = Variant.short().to_dict()
            >>> doc["format"], doc["max_rounds"], doc["deck"][:2]
            ('variant', 1, [[-2, 5], [-1, 10]])
        """
        return cast("VariantDocument", {**header("variant"), **variant_fields(self)})


_PRESETS: Final[dict[str, Variant]] = {
    "standard": Variant(),
    "short": Variant(name="short", max_rounds=1),
    "long": Variant(name="long", target_score=150),
}

FIELD_NAMES: Final[tuple[str, ...]] = tuple(
    f.name for f in attrs.fields(Variant) if f.init
)
"""The public field names of `Variant`, in definition order (rule 10.1)."""


def variant_fields(variant: Variant) -> VariantDict:
    """Every field of `variant` (rule 10.1) as JSON-ready data, without a document header: the
    `variant` member of state, view and record documents. `Variant(**variant_fields(v)) == v`.

    Examples:
        >>> fields = variant_fields(Variant.short())
        >>> fields["max_rounds"], fields["opener"], "format" in fields
        (1, 'highest_flips', False)
        >>> Variant(**fields) == Variant.short()
        True
    """
    if not isinstance(variant, Variant):
        raise ArgumentError(f"expected a Variant, got {type(variant).__name__}")
    out: dict[str, Any] = {name: getattr(variant, name) for name in FIELD_NAMES}
    out["deck"] = [list(pair) for pair in variant.deck]
    out["opener"] = variant.opener.value
    return cast("VariantDict", out)
