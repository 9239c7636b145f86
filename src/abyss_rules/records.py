"""Game records: everything needed to replay a game exactly, and their redacted form.

A `Record` holds the variant, the number of players, the seed and any
explicit deck orders (rules 9.1, 9.6) and every action in order. Replaying
it deals the same cards and reaches the same states, bit for bit (rule
9.5), so `state_hash` of every state can be compared.

A record is written as a `record` document (see `docs/json.md`) with each
action in the compact notation of `to_notation`.

A **full record is secret** while the game runs: with the seed, anyone can
compute every face-down card and the draw pile (rule 8.2). `Record.redact`
drops the seed and the deck orders. A redacted record cannot be replayed
(the cards are unknown); it shows who did what, in order, and it can be
checked against the full record later (`full.redact() == redacted`), or
made replayable again with `Record.with_secrets` once the seed is published
after the game.

Examples:
    >>> import abyss_rules as ar
    >>> record = ar.Record.start(players=2, seed=11)
    >>> state = record.initial_state()
    >>> for _ in range(6):
    ...     action = ar.legal_actions(state)[0]
    ...     state = ar.apply(state, action)
    ...     record = record.with_actions(action)
    >>> record.notation()
    ('0f00', '0f01', '1f00', '1f01', '0t00', '1t00')
    >>> record.replay() == state
    True
    >>> ar.Record.from_json(record.to_json()) == record
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter
from typing import Any, Final, cast

import attrs

from ._versions import header
from .actions import ACTION_TYPES, Action
from .codec._state import read_deck_order, state_hash
from .codec._strict import (
    HEX64,
    MAX_DOCUMENT_BYTES,
    canonical_json,
    parse,
    read_document,
    read_int,
    read_list,
    read_str,
    wrong_type,
)
from .codec._variant import read_variant, variant_doc
from .config import Variant
from .documents import RecordDocument
from .errors import (
    AbyssError,
    ArgumentError,
    Code,
    ConfigError,
    DecodeError,
    MalformedActionError,
    ReplayError,
)
from .notation import parse_notation, to_notation
from .randomness import normalize_seed, secret_decks_repr, secret_repr
from .rules._dealing import deck_order_problem, new_game, player_count_problem
from .rules._engine import apply
from .state import State
from .views import View, view

__all__ = ["MAX_RECORD_ACTIONS", "Record", "ReplayError"]

MAX_RECORD_ACTIONS: Final = 100_000
"""The most actions a record document may hold."""
MAX_NAME_LENGTH: Final = 64
"""The longest player name a record may hold (in characters)."""

_RECORD_FIELDS: Final = frozenset({"variant", "players", "seed", "decks", "actions", "final_hash"})
_OPTIONAL_FIELDS: Final = frozenset({"names"})


def _name_problem(name: object) -> str | None:
    """Why `name` cannot be a player's name in a record, or `None`: a non-empty string of at most
    `MAX_NAME_LENGTH` printable characters (no control characters, no line breaks)."""
    if type(name) is not str:
        return f"a player's name is a string, got {type(name).__name__}"
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        return f"a player's name has 1 to {MAX_NAME_LENGTH} characters, got {len(name)}"
    if not name.isprintable():
        return "a player's name has printable characters only (no control character or line break)"
    return None


def _to_names(value: object) -> object:
    if value is None or isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    return tuple(value)




def _check_variant(_: Record, __: attrs.Attribute[Variant], value: object) -> None:
    if not isinstance(value, Variant):
        raise ConfigError(Code.INVALID_VARIANT, f"variant must be a Variant, got {type(value).__name__}")


def _to_decks(value: object) -> object:
    if value is None or isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    out = []
    for order in value:
        if isinstance(order, (str, bytes)) or not isinstance(order, Iterable):
            return value  # refused by validation
        out.append(tuple(order))
    return tuple(out)


def _to_actions(value: object) -> object:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    return tuple(value)


@attrs.frozen(slots=True)
class Record:
    """A whole game as data: set-up and actions (rules 9.1-9.6).

    Build one with `Record.start` and add each action applied with
    `with_actions`. The constructor checks types and the set-up; whether
    the actions are legal is checked by replaying (`replay`).

    Examples:
        >>> import abyss_rules as ar
        >>> record = ar.Record.start(players=3, seed=5)
        >>> record.players, record.is_redacted, record.actions
        (3, False, ())
    """

    variant: Variant = attrs.field(validator=_check_variant)
    """The rules in play."""
    players: int
    """The number of players (rule 1.3)."""
    seed: bytes | None = attrs.field(repr=secret_repr)
    """The 32-byte seed (rule 9.1); `None` in a redacted record."""
    decks: tuple[tuple[int, ...], ...] | None = attrs.field(default=(), converter=_to_decks,
                                                            repr=secret_decks_repr)
    """Explicit deck orders for the first rounds (rule 9.6); `None` in a redacted record."""
    actions: tuple[Action, ...] = attrs.field(default=(), converter=_to_actions)
    """Every action, in the order applied."""
    final_hash: str | None = None
    """Optional: the `state_hash` of the state after the last action."""
    names: tuple[str, ...] | None = attrs.field(default=None, converter=_to_names)
    """Optional: a name per seat (e.g. `("you", "counting")`), public like the actions; `None`:
    the record names nobody (its document has no `names` field)."""

    def __attrs_post_init__(self) -> None:
        v = self.variant
        if (problem := player_count_problem(v, self.players)) is not None:
            raise ConfigError(Code.INVALID_PLAYERS, problem)
        if self.seed is not None and (type(self.seed) is not bytes or len(self.seed) != 32):
            raise ConfigError(Code.INVALID_SEED, "seed must be 32 bytes (rule 9.1) or None")
        if (self.seed is None) != (self.decks is None):
            raise ConfigError(Code.INVALID_DECK_ORDER, "a redacted record has neither seed nor decks; "
                                                       "a full record has both (decks may be empty)")
        if self.decks is not None:
            if type(self.decks) is not tuple:
                raise ConfigError(Code.INVALID_DECK_ORDER, "decks must be a sequence of deck orders")
            for n, order in enumerate(self.decks):
                if not all(type(card) is int for card in order):
                    raise ConfigError(Code.INVALID_DECK_ORDER, f"deck order {n} must hold only ints")
                if (problem := deck_order_problem(v, order)) is not None:
                    raise ConfigError(Code.INVALID_DECK_ORDER, f"deck order {n} {problem}")
        if type(self.actions) is not tuple:
            raise MalformedActionError(
                f"actions must be a sequence of actions, got {type(self.actions).__name__}")
        for action in self.actions:
            if type(action) not in ACTION_TYPES:
                raise MalformedActionError(f"expected actions, got {type(action).__name__}")
        if self.final_hash is not None:
            if type(self.final_hash) is not str or HEX64.fullmatch(self.final_hash) is None:
                raise DecodeError(Code.BAD_VALUE, "final_hash must be 64 lowercase hex digits or None",
                                  "/final_hash")
            if self.seed is None:
                raise ConfigError(Code.INVALID_SEED, "a redacted record carries no final_hash")
        if self.names is not None:
            if type(self.names) is not tuple or len(self.names) != self.players:
                raise DecodeError(Code.BAD_VALUE, f"names must be one name per seat ({self.players}), got "
                                                  f"{self.names!r}"[:200], "/names")
            for n, name in enumerate(self.names):
                problem = _name_problem(name)
                if problem is not None:
                    raise DecodeError(Code.BAD_VALUE, problem, f"/names/{n}")

    # -- building ------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        players: int = 2,
        variant: Variant | str | None = None,
        seed: int | bytes | None = None,
        *,
        decks: Sequence[Sequence[int]] | None = None,
    ) -> Record:
        """The record of a new game, with no action yet; arguments as for `new_game`.

        With `seed=None` a fresh secret seed is drawn (rule 9.1) and kept in the record.

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(players=2, variant=ar.Variant.short())
            >>> len(record.seed), record.initial_state().variant.max_rounds
            (32, 1)
        """
        seed_bytes = normalize_seed(seed)
        state = new_game(players, variant, seed_bytes, decks=decks)  # validates the set-up
        orders = tuple(tuple(order) for order in decks) if decks is not None else ()
        return cls(state.variant, players, seed_bytes, orders)

    def with_actions(self, *actions: Action) -> Record:
        """A copy with `actions` appended (and no `final_hash`: see `sealed`).

        Examples:
            >>> import abyss_rules as ar
            >>> ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0), ar.Flip(1, 2, 2)).notation()
            ('0f00', '1f22')
        """
        return attrs.evolve(self, actions=self.actions + actions, final_hash=None)

    def with_names(self, names: Sequence[str] | None) -> Record:
        """A copy naming the players, one name per seat (`None`: naming nobody).

        Names are public (like the actions): a redacted record keeps them. Replays and the
        replay page show them, e.g. "seat 1 (counting)".

        Raises:
            DecodeError: not one name per seat, or a name that is empty, longer than
                `MAX_NAME_LENGTH` characters or not printable (code `bad_value`).

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(seed=1).with_names(["ann", "greedy"])
            >>> record.names, record.to_dict()["names"]
            (('ann', 'greedy'), ['ann', 'greedy'])
            >>> "names" in ar.Record.start(seed=1).to_dict()      # absent when nobody is named
            False
        """
        return attrs.evolve(self, names=names)

    def sealed(self) -> Record:
        """A copy carrying the hash of the final state (replays the record to compute it).

        Raises:
            ReplayError: the record cannot be replayed.

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.codec import state_hash
            >>> record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0)).sealed()
            >>> record.final_hash == state_hash(record.replay())
            True
        """
        final = self._replay_unchecked()
        return attrs.evolve(self, final_hash=state_hash(final))

    @property
    def is_redacted(self) -> bool:
        """Whether the seed and deck orders were removed (`redact`).

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(seed=1)
            >>> record.is_redacted, record.redact().is_redacted
            (False, True)
        """
        return self.seed is None

    def redact(self) -> Record:
        """The record without its secrets: no seed, no deck orders, no final hash (rule 8.2).

        Safe to publish while the game runs. It cannot be replayed; see the module docs.

        Examples:
            >>> import abyss_rules as ar
            >>> public = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0)).redact()
            >>> public.seed, public.decks, public.notation()
            (None, None, ('0f00',))
        """
        return attrs.evolve(self, seed=None, decks=None, final_hash=None)

    def with_secrets(self, seed: int | bytes, decks: Sequence[Sequence[int]] = ()) -> Record:
        """A redacted record made replayable again with its (published) seed and deck orders.

        Examples:
            >>> import abyss_rules as ar
            >>> full = ar.Record.start(seed=9).with_actions(ar.Flip(0, 0, 0))
            >>> full.redact().with_secrets(9) == full
            True
        """
        return attrs.evolve(self, seed=normalize_seed(seed), decks=decks)

    # -- replaying -----------------------------------------------------------------------

    def initial_state(self) -> State:
        """The state before the first action (round 1, dealt).

        Raises:
            ReplayError: `record_redacted` for a redacted record.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.Record.start(seed=1).initial_state() == ar.new_game(2, seed=1)
            True
        """
        if self.seed is None:
            raise ReplayError(Code.RECORD_REDACTED, "a redacted record has no seed: its cards are unknown, "
                                                    "so it cannot be replayed", "/seed")
        return new_game(self.players, self.variant, self.seed, decks=self.decks)

    def states(self) -> Iterator[State]:
        """Every state of the game in order: the initial one, then one per action.

        Raises:
            ReplayError: `record_redacted`, or `replay_failed` at the first illegal action.

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0), ar.Flip(0, 0, 1))
            >>> [state.seq for state in record.states()]
            [0, 1, 2]
        """
        state = self.initial_state()
        yield state
        for index, action in enumerate(self.actions):
            try:
                state = apply(state, action)
            except AbyssError as error:
                raise ReplayError(
                    Code.REPLAY_FAILED, f"action {index} ({to_notation(action)}) cannot be replayed: {error}",
                    f"/actions/{index}", index=index, cause=error,
                ) from None
            yield state

    def _replay_unchecked(self) -> State:
        state: State | None = None
        for state in self.states():  # noqa: B007  # the last state is the result
            pass
        assert state is not None  # states() yields at least the initial state
        return state

    def replay(self) -> State:
        """The state after the last action; checks `final_hash` when the record has one.

        Raises:
            ReplayError: `record_redacted`, `replay_failed`, or `replay_mismatch` (the hash differs).

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0))
            >>> record.replay().seq
            1
        """
        final = self._replay_unchecked()
        if self.final_hash is not None and state_hash(final) != self.final_hash:
            raise ReplayError(Code.REPLAY_MISMATCH,
                              "the replayed final state does not have the recorded hash", "/final_hash")
        return final

    def check_views(self, views: Iterable[View]) -> None:
        """Check views a client saved against this (full) record: each must be exactly
        `view` of the replayed state with its `seq`, for its viewer.

        This is how a player audits a finished game once the seed is published:
        the deals the server claims (the record) are the ones the player was shown.

        The record is replayed once, to its end, while the views are read, keeping one state
        at a time: views in the order of their `seq` (as a client saves them) are checked as
        they come, in memory that does not grow with the record. A view whose `seq` is behind
        the replay is kept until a second replay checks every such view in the order of its
        `seq`; so the memory is one state and those views, the time at most two replays.

        Raises:
            ReplayError: `replay_mismatch` naming the first view (in the order given) that
                differs or whose `seq` is not a state of the record; `record_redacted` or
                `replay_failed` if the record cannot be replayed to its end.
            ArgumentError: `views` is not an iterable of `View`s.

        Examples:
            >>> import abyss_rules as ar
            >>> record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0))
            >>> seen = [ar.view(state, 1) for state in record.states()]
            >>> record.check_views(seen)     # no error: the record is what seat 1 saw
        """
        if isinstance(views, (str, bytes)) or not isinstance(views, Iterable):
            raise ArgumentError(f"expected an iterable of views, got {type(views).__name__}")
        last = len(self.actions)
        replay = self.states()
        state = next(replay)
        behind: list[tuple[int, int, View]] = []  # (seq, n, view) of the views behind the replay
        failed: tuple[int, str] | None = None  # the first view that differs, and why
        for n, seen in enumerate(views):
            if not isinstance(seen, View):
                raise ArgumentError(f"expected views, got {type(seen).__name__}")
            if type(seen.seq) is not int or not 0 <= seen.seq <= last:
                failed = n, f"view {n} has seq {seen.seq!r}; the record has states 0 to {last}"
                break
            if seen.seq < state.seq:
                behind.append((seen.seq, n, seen))
                continue
            while state.seq < seen.seq:
                state = next(replay)
            if view(state, seen.viewer) != seen:
                failed = n, _differs(n, seen)
                break
        for state in replay:  # noqa: B007  # replayed to its end, as a record must be
            pass
        if behind:  # a second replay for them, in the order of their seq
            behind.sort(key=itemgetter(0, 1))
            replay = self.states()
            state = next(replay)
            for seq, n, seen in behind:
                if failed is not None and n > failed[0]:
                    continue  # a view given before it has failed already
                while state.seq < seq:
                    state = next(replay)
                if view(state, seen.viewer) != seen:
                    failed = n, _differs(n, seen)
        if failed is not None:
            raise ReplayError(Code.REPLAY_MISMATCH, failed[1])

    def notation(self) -> tuple[str, ...]:
        """The actions in compact notation (`to_notation`).

        Examples:
            >>> import abyss_rules as ar
            >>> ar.Record.start(seed=1).with_actions(ar.Flip(1, 2, 3)).notation()
            ('1f23',)
        """
        return tuple(to_notation(action) for action in self.actions)

    # -- JSON ----------------------------------------------------------------------------

    def to_dict(self) -> RecordDocument:
        """The `record` document (see `docs/json.md`); secret unless the record is redacted.

        Examples:
            >>> import abyss_rules as ar
            >>> doc = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0)).to_dict()
            >>> doc["format"], doc["actions"], doc["seed"][-4:]
            ('record', ['0f00'], '0001')
        """
        doc: dict[str, Any] = {
            **header("record"),
            "variant": variant_doc(self.variant),
            "players": self.players,
            "seed": None if self.seed is None else self.seed.hex(),
            "decks": None if self.decks is None else [list(order) for order in self.decks],
            "actions": list(self.notation()),
            "final_hash": self.final_hash,
        }
        if self.names is not None:
            doc["names"] = list(self.names)
        return cast(RecordDocument, doc)

    def to_json(self) -> str:
        """The canonical JSON text of the `record` document.

        Examples:
            >>> import abyss_rules as ar
            >>> ar.Record.start(seed=1).to_json()[:40]
            '{"actions":[],"decks":[],"final_hash":nu'
        """
        return canonical_json(self.to_dict())

    @classmethod
    def from_dict(cls, doc: Any, *, verify: bool = True) -> Record:
        """A record from a parsed `record` document, checked field by field.

        With `verify` (the default) a full record is also replayed, so its
        actions are known to be legal and its `final_hash` (if any) right.

        Raises:
            DecodeError: a malformed document (the code and path name the field).
            ReplayError: `verify` found an illegal action or a wrong hash.

        Examples:
            >>> import abyss_rules as ar
            >>> doc = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0)).to_dict()
            >>> doc["actions"] = ["0f00", "0f00"]       # the same card twice: not legal
            >>> ar.Record.from_dict(doc)
            Traceback (most recent call last):
            ...
            abyss_rules.errors.ReplayError: [replay_failed] /actions/1: action 1 (0f00) ...
        """
        d = read_document(doc, "record", _RECORD_FIELDS, _OPTIONAL_FIELDS)
        variant = read_variant(d["variant"], "/variant")
        players = read_int(d["players"], "/players")
        if (problem := player_count_problem(variant, players)) is not None:
            raise DecodeError(Code.BAD_VALUE, problem, "/players")
        seed: bytes | None = None
        if d["seed"] is not None:
            text = read_str(d["seed"], "/seed")
            if HEX64.fullmatch(text) is None:
                raise DecodeError(Code.BAD_VALUE,
                                  "must be 64 lowercase hex digits (a 32-byte seed, rule 9.1)", "/seed")
            seed = bytes.fromhex(text)
        decks: tuple[tuple[int, ...], ...] | None = None
        if d["decks"] is not None:
            decks = tuple(read_deck_order(order, f"/decks/{n}", variant)
                          for n, order in enumerate(read_list(d["decks"], "/decks")))
        if (seed is None) != (decks is None):
            raise DecodeError(Code.IMPOSSIBLE_STATE, "seed and decks are both null (a redacted record) or "
                                                     "both given", "/decks" if seed is not None else "/seed")
        items = read_list(d["actions"], "/actions")
        if len(items) > MAX_RECORD_ACTIONS:
            raise DecodeError(Code.BAD_SHAPE, f"a record holds at most {MAX_RECORD_ACTIONS} actions",
                              "/actions")
        actions = []
        for n, item in enumerate(items):
            if type(item) is not str:
                raise wrong_type(item, "an action in notation (a string)", f"/actions/{n}")
            try:
                actions.append(parse_notation(item))
            except DecodeError as error:
                raise DecodeError(error.code, error.message, f"/actions/{n}") from None
        final_hash = d["final_hash"]
        if final_hash is not None:
            if HEX64.fullmatch(read_str(final_hash, "/final_hash")) is None:
                raise DecodeError(Code.BAD_VALUE, "must be 64 lowercase hex digits (a SHA-256)",
                                  "/final_hash")
            if seed is None:
                raise DecodeError(Code.IMPOSSIBLE_STATE, "a redacted record carries no final_hash",
                                  "/final_hash")
        names: tuple[str, ...] | None = None
        if "names" in d:
            items = read_list(d["names"], "/names")
            if len(items) != players:
                raise DecodeError(Code.BAD_SHAPE, f"names must hold one name per seat ({players}), got "
                                                  f"{len(items)}", "/names")
            for n, name in enumerate(items):
                problem = _name_problem(name)
                if problem is not None:
                    raise DecodeError(Code.WRONG_TYPE if type(name) is not str else Code.BAD_VALUE, problem,
                                      f"/names/{n}")
            names = tuple(items)
        record = cls(variant, players, seed, decks, tuple(actions), final_hash, names)
        if verify and seed is not None:
            record.replay()
        return record

    @classmethod
    def from_json(
        cls, data: str | bytes, *, verify: bool = True, max_bytes: int = MAX_DOCUMENT_BYTES
    ) -> Record:
        """A record from `record` document text (see `from_dict`).

        Text longer than `max_bytes` (UTF-8, default 1 MiB) is refused before parsing.

        Examples:
            >>> import abyss_rules as ar
            >>> text = ar.Record.start(seed=2).with_actions(ar.Flip(1, 0, 0)).to_json()
            >>> ar.Record.from_json(text).notation()
            ('1f00',)
        """
        return cls.from_dict(parse(data, max_bytes), verify=verify)


def _differs(n: int, seen: View) -> str:
    return f"view {n} (seq {seen.seq}, viewer {seen.viewer}) is not the view of the replayed state"
