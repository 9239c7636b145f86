"""Typed errors with stable machine-readable codes: every error class of the library.

Every error the library raises on bad input is an `AbyssError`. Each carries

* `code` -- a stable string a program can switch on (see `Code`);
* `rule` -- the id of the spec rule it enforces (`None` where no game rule
  is involved, e.g. a wrong Python type);
* `message` -- a sentence a person understands.

Every class takes the same keywords, `Class(code=..., message=..., rule=...)` (and the
context some add: `path` for `DecodeError`, `index` and `cause` for `ReplayError`,
`game` and `index` for `BatchStepError`), and positionally `Class(code, message)`. The
classes whose code has a default -- `MalformedActionError`, `InvalidStateError`,
`SeedError` and `PictureError` -- may also be given just a message. The other modules
re-export the classes they raise (`abyss_rules.codec.DecodeError`,
`abyss_rules.records.ReplayError`, `abyss_rules.bots.BotError`,
`abyss_rules.simulation.SimulationError`, `abyss_rules.pictures.PictureError`,
`abyss_rules.testing.InvariantError`).

Examples:
    >>> err = IllegalActionError(Code.NOT_YOUR_TURN, "it is seat 1's turn, not seat 0's")
    >>> err.code, err.rule
    ('not_your_turn', '3.9')
    >>> isinstance(err, ValueError)
    True
    >>> str(err)
    "[not_your_turn] it is seat 1's turn, not seat 0's (rule 3.9)"
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from ._text import shown

__all__ = [
    "RULE_OF_CODE",
    "AbyssError",
    "ActionIndexError",
    "ArgumentError",
    "BatchStepError",
    "BotError",
    "Code",
    "ConfigError",
    "DecodeError",
    "IllegalActionError",
    "InvalidStateError",
    "InvariantError",
    "MalformedActionError",
    "PictureError",
    "ReplayError",
    "SamplingError",
    "SeatError",
    "SeedError",
    "SimulationError",
]


class Code(StrEnum):
    """The stable error codes. Values never change once published.

    A string enum: a code compares equal to its plain string value. The spec's "Error
    codes" table lists the codes of the rules engine and when each is reported;
    `RULE_OF_CODE` gives the rule each one enforces.

    Every error's `code` is a `Code`, and its repr is that of its string value, so that
    a code prints as what it is on the wire.

    Examples:
        >>> Code.NOT_YOUR_TURN == "not_your_turn"
        True
        >>> Code("space_face_up") is Code.SPACE_FACE_UP
        True
        >>> Code.GAME_OVER, str(Code.GAME_OVER)
        ('game_over', 'game_over')
    """

    def __repr__(self) -> str:
        return repr(self.value)

    # Illegal actions (IllegalActionError)
    GAME_OVER = "game_over"
    NO_SUCH_PLAYER = "no_such_player"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    NO_SUCH_SPACE = "no_such_space"
    SPACE_SWALLOWED = "space_swallowed"
    SPACE_FACE_UP = "space_face_up"
    NO_CARD_TO_DRAW = "no_card_to_draw"
    FLIP_TURN_DISABLED = "flip_turn_disabled"
    NO_FLIPS_OWED = "no_flips_owed"
    DISCARD_EMPTY = "discard_empty"
    ILLEGAL_ACTION = "illegal_action"
    COUNTER_LIMIT = "counter_limit"
    # Action indices (ActionIndexError; abyss_rules.action_space, abyss_rules.batch)
    NO_SUCH_ACTION_INDEX = "no_such_action_index"
    # Malformed actions (MalformedActionError; InvalidStateError for invalid_state)
    MALFORMED_ACTION = "malformed_action"
    INVALID_STATE = "invalid_state"
    # Arguments of a type (or value) a library call does not take (ArgumentError)
    INVALID_ARGUMENT = "invalid_argument"
    # Configuration and set-up (ConfigError, SeedError)
    INVALID_VARIANT = "invalid_variant"
    INVALID_PLAYERS = "invalid_players"
    INVALID_DECK_ORDER = "invalid_deck_order"
    INVALID_SEED = "invalid_seed"
    # JSON documents and action notation (DecodeError)
    INVALID_JSON = "invalid_json"
    LONE_SURROGATE = "lone_surrogate"
    DOCUMENT_TOO_LARGE = "document_too_large"
    TOO_DEEP = "too_deep"
    DUPLICATE_FIELD = "duplicate_field"
    WRONG_FORMAT = "wrong_format"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNKNOWN_FIELD = "unknown_field"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    BAD_VALUE = "bad_value"
    BAD_SHAPE = "bad_shape"
    CARDS_MISMATCH = "cards_mismatch"
    IMPOSSIBLE_STATE = "impossible_state"
    BAD_NOTATION = "bad_notation"
    # Game servers (abyss_rules.protocol: validate, submit)
    STALE_ACTION = "stale_action"
    SEAT_MISMATCH = "seat_mismatch"
    # Game records (ReplayError)
    RECORD_REDACTED = "record_redacted"
    REPLAY_FAILED = "replay_failed"
    REPLAY_MISMATCH = "replay_mismatch"
    # Bots, game drivers and simulations (BotError, SimulationError)
    UNKNOWN_BOT = "unknown_bot"
    BOT_CANNOT_ACT = "bot_cannot_act"
    GAME_TOO_LONG = "game_too_long"
    INVALID_SIMULATION = "invalid_simulation"
    # Sampling states from a view (SamplingError; abyss_rules.sampling)
    INVALID_SAMPLING = "invalid_sampling"
    # Reinforcement-learning environments (abyss_rules.envs)
    INVALID_ENV_OPTION = "invalid_env_option"
    # The command line (abyss-rules validate, replay, schema)
    UNREADABLE_INPUT = "unreadable_input"
    # Pictures (PictureError)
    INVALID_PICTURE = "invalid_picture"


RULE_OF_CODE: Final[dict[str, str | None]] = {
    Code.GAME_OVER: "7.5",
    Code.NO_SUCH_PLAYER: "1.3",
    Code.NOT_YOUR_TURN: "3.9",
    Code.WRONG_PHASE: "3.2",
    Code.NO_SUCH_SPACE: "1.2",
    Code.SPACE_SWALLOWED: "3.10",
    Code.SPACE_FACE_UP: "3.10",
    Code.NO_CARD_TO_DRAW: "5.4",
    Code.FLIP_TURN_DISABLED: "3.7",
    Code.NO_FLIPS_OWED: "2.2",
    Code.DISCARD_EMPTY: "3.3",
    Code.ILLEGAL_ACTION: "3.2",
    Code.COUNTER_LIMIT: "3.12",
    Code.NO_SUCH_ACTION_INDEX: "11.2",
    Code.MALFORMED_ACTION: None,
    Code.INVALID_STATE: None,
    Code.INVALID_ARGUMENT: None,
    Code.INVALID_VARIANT: "10.3",
    Code.INVALID_PLAYERS: "1.3",
    Code.INVALID_DECK_ORDER: "9.6",
    Code.INVALID_SEED: "9.1",
    Code.INVALID_JSON: None,
    Code.LONE_SURROGATE: "10.5",
    Code.DOCUMENT_TOO_LARGE: None,
    Code.TOO_DEEP: None,
    Code.DUPLICATE_FIELD: None,
    Code.WRONG_FORMAT: None,
    Code.UNSUPPORTED_VERSION: None,
    Code.UNKNOWN_FIELD: None,
    Code.MISSING_FIELD: None,
    Code.WRONG_TYPE: None,
    Code.BAD_VALUE: None,
    Code.BAD_SHAPE: None,
    Code.CARDS_MISMATCH: "1.1",
    Code.IMPOSSIBLE_STATE: "3.11",
    Code.BAD_NOTATION: None,
    Code.STALE_ACTION: None,
    Code.SEAT_MISMATCH: None,
    Code.RECORD_REDACTED: None,
    Code.REPLAY_FAILED: None,
    Code.REPLAY_MISMATCH: None,
    Code.UNKNOWN_BOT: None,
    Code.BOT_CANNOT_ACT: None,
    Code.GAME_TOO_LONG: None,
    Code.INVALID_SIMULATION: None,
    Code.INVALID_SAMPLING: None,
    Code.INVALID_ENV_OPTION: None,
    Code.UNREADABLE_INPUT: None,
    Code.INVALID_PICTURE: None,
}
"""The spec rule each code enforces (`None`: not a game rule).

Examples:
    >>> RULE_OF_CODE["not_your_turn"], RULE_OF_CODE["malformed_action"]
    ('3.9', None)
"""


class AbyssError(Exception):
    """Base class of every error abyss-rules raises on bad input.

    Args:
        code: The stable code (a `Code` or its string value).
        message: A sentence for people.
        rule: The spec rule id; by default the one `RULE_OF_CODE` gives for `code`.

    An error is always writable: a lone surrogate in its message (or in a `DecodeError`'s
    `path`), which no UTF-8 text can hold, is kept as its escape (`\\ud800`), so that
    `to_dict()` can always be sent as JSON (rule 10.5).

    Examples:
        >>> error = AbyssError(Code.SPACE_SWALLOWED, "space (1, 0) of seat 2 was swallowed")
        >>> error.code, error.rule, error.message
        ('space_swallowed', '3.10', 'space (1, 0) of seat 2 was swallowed')
        >>> AbyssError(code="game_over", message="the game is over").rule
        '7.5'
    """

    code: Code
    """The stable code; a string enum, so it compares equal to its plain string value."""
    rule: str | None
    """The id of the spec rule the error enforces, or `None`."""
    message: str
    """A sentence for people."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        if rule is None:
            rule = RULE_OF_CODE.get(code)
        self.code = Code(code)
        self.rule = rule
        self.message = shown(message) if type(message) is str else message
        super().__init__(self.code, self.message, rule)

    def _fields(self) -> dict[str, Any]:
        """The constructor's keywords that rebuild this error (its repr and pickling use them)."""
        return {"code": self.code.value, "message": self.message, "rule": self.rule}

    def __str__(self) -> str:
        where = f" (rule {self.rule})" if self.rule else ""
        return f"[{self.code}] {self.message}{where}"

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self._fields().items())
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._fields()))

    def to_dict(self) -> dict[str, str | None]:
        """The error as a JSON-ready mapping: `code`, `rule` and `message`.

        Examples:
            >>> IllegalActionError(Code.GAME_OVER, "the game is over").to_dict()
            {'code': 'game_over', 'rule': '7.5', 'message': 'the game is over'}
        """
        return {"code": self.code.value, "rule": self.rule, "message": self.message}


def _rebuild(cls: type[AbyssError], fields: dict[str, Any]) -> AbyssError:
    """Unpickle an error: every class takes its fields as keywords."""
    return cls(**fields)


_CODES: Final = frozenset(Code)


class _DefaultCode(AbyssError):
    """An error class whose code has a default, so that it may be given just a message.

    `Class(message)`, `Class(message, code=...)` and `Class(code, message)` all work, and so
    does the older order `Class(message, code)`, told apart by which argument is a code.
    """

    DEFAULT_CODE: str = Code.MALFORMED_ACTION

    def __init__(self, *args: str | None, code: str | None = None, message: str | None = None,
                 rule: str | None = None) -> None:
        positional = list(args)
        if len(positional) > 3:
            raise TypeError(f"{type(self).__name__} takes at most 3 positional arguments")
        if len(positional) == 3:
            rule = positional.pop()
        if len(positional) == 2:
            first, second = positional
            if second in _CODES and first not in _CODES:  # the older order: (message, code)
                first, second = second, first
            code, message = first, second
        elif len(positional) == 1:
            if message is None:
                message = positional[0]
            else:
                code = positional[0]
        if message is None:
            raise TypeError(f"{type(self).__name__} needs a message")
        super().__init__(self.DEFAULT_CODE if code is None else code, message, rule)


class IllegalActionError(AbyssError, ValueError):
    """A well-formed action that the rules do not allow in this state (also a `ValueError`).

    Raised by `apply`; `check` returns it instead.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=1)
        >>> try:
        ...     ar.apply(state, ar.Draw(0))
        ... except ar.IllegalActionError as error:
        ...     print(error)
        [wrong_phase] the round is in its opening: only opening flips are legal, seat 0 cannot draw (rule 3.2)
    """


class SeatError(AbyssError, IndexError):
    """A seat number that names no seat of the game, asked of a state or for a view -- no action
    involved (code `no_such_player`, rule 1.3; also an `IndexError`, as for a list).

    Raised by `State.grid`, `State.face_down_count` and `view`. An action for a seat that is
    not there is refused by `apply` with an `IllegalActionError` of the same code.

    Examples:
        >>> import abyss_rules as ar
        >>> try:
        ...     ar.new_game(players=2, seed=1).grid(9)
        ... except IndexError as error:
        ...     print(type(error).__name__, error.code, error.rule)
        SeatError no_such_player 1.3
    """


class ActionIndexError(AbyssError, ValueError):
    """An action index that names no action, or an action that has no index (spec section 11;
    also a `ValueError`).

    Raised by `ActionSpace`: code `no_such_action_index` for an index outside `[0, size)`
    (rule 11.2), `no_such_space` for an action whose space is not on the grid,
    `no_such_player` for a seat the variant or the game does not have.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.action_space import ActionSpace
        >>> try:
        ...     ActionSpace(ar.Variant.standard()).action(-1, player=0)
        ... except ar.ActionIndexError as error:
        ...     print(error.code, error.rule)
        no_such_action_index 11.2
    """


class BatchStepError(IllegalActionError):
    """An action index that `abyss_rules.batch.Batch.step` refuses for one
    game of the batch (an `IllegalActionError`).

    `game` is the row of the batch and `index` the refused action index. `code` and `rule` are
    those the reference engine gives the action of that index (e.g. `space_face_up`, rule 3.10),
    or `no_such_action_index` (rule 11.2) for an index outside the action space.

    Examples:
        >>> error = BatchStepError(Code.SPACE_FACE_UP, "game 3: index 5 ...", game=3, index=5)
        >>> error.code, error.rule, error.game, error.index
        ('space_face_up', '3.10', 3, 5)
    """

    game: int
    index: int

    def __init__(self, code: str, message: str, rule: str | None = None, game: int = -1,
                 index: int = -1) -> None:
        super().__init__(code, message, rule)
        self.game = game
        self.index = index

    def _fields(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "rule": self.rule, "game": self.game,
                "index": self.index}


class MalformedActionError(_DefaultCode, TypeError):
    """Something that is not a well-formed action (wrong type, non-int field); also a `TypeError`.

    Its code is `malformed_action`. A library call given something that is not a game state
    raises `InvalidStateError` (code `invalid_state`) instead: a sibling, not a subclass.

    Examples:
        >>> import abyss_rules as ar
        >>> ar.check(ar.new_game(seed=1), "draw").code
        'malformed_action'
        >>> MalformedActionError("Flip.row must be an int").code
        'malformed_action'
    """

    DEFAULT_CODE = Code.MALFORMED_ACTION


class InvalidStateError(_DefaultCode, TypeError):
    """A library call was given something that is not a game state (code `invalid_state`; also a
    `TypeError`).

    A state problem, not an action problem: it is not a `MalformedActionError`. Catch
    `AbyssError` (or `TypeError`) to catch both.

    Examples:
        >>> import abyss_rules as ar
        >>> try:
        ...     ar.legal_actions("a state")
        ... except InvalidStateError as error:
        ...     print(error.code, isinstance(error, ar.MalformedActionError), isinstance(error, TypeError))
        invalid_state False True
    """

    DEFAULT_CODE = Code.INVALID_STATE


class ArgumentError(_DefaultCode, TypeError, ValueError):
    """A library call was given an argument it does not take: of a type it does not take (a
    view where a `View` is needed, a list where an error code is), or a value out of its range
    where no game rule is involved (`max_bytes=0`). Code `invalid_argument`; also a `TypeError`
    and a `ValueError`, what Python raises for an argument of the wrong type or value.

    A programming error of the caller, not a move or a document: a server that meets one answers
    500 (`HTTP_STATUS`). Arguments that a game rule judges have their own classes (an action:
    `MalformedActionError`; a state: `InvalidStateError`; a variant, a player count, a deck
    order: `ConfigError`; a seed: `SeedError`; a document: `DecodeError`).

    Examples:
        >>> import abyss_rules as ar
        >>> try:
        ...     ar.dumps_view("a view")
        ... except ar.ArgumentError as error:
        ...     print(error.code, "|", error.message, "|", isinstance(error, TypeError))
        invalid_argument | expected a View, got str | True
    """

    DEFAULT_CODE = Code.INVALID_ARGUMENT


class ConfigError(AbyssError, ValueError):
    """An invalid variant, player count or deck order (also a `ValueError`).

    Examples:
        >>> import abyss_rules as ar
        >>> try:
        ...     ar.new_game(players=9)
        ... except ar.ConfigError as error:
        ...     print(error.code, error.rule)
        invalid_players 1.3
    """


class SeedError(_DefaultCode, ValueError):
    """A seed that is not an int in `[0, 2**256)` or exactly 32 bytes (rule 9.1; also a `ValueError`).

    Examples:
        >>> import abyss_rules as ar
        >>> ar.new_game(seed=b"too short")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.SeedError: [invalid_seed] a bytes seed must be exactly 32 bytes long, got 9 ...
    """

    DEFAULT_CODE = Code.INVALID_SEED


class DecodeError(AbyssError, ValueError):
    """A document or a notation string that cannot be loaded, or data that no document can hold.

    `code` says what is wrong (see `Code`: `invalid_json`, `lone_surrogate`,
    `document_too_large`, `too_deep`, `duplicate_field`, `wrong_format`,
    `unsupported_version`, `unknown_field`, `missing_field`, `wrong_type`,
    `bad_value`, `bad_shape`, `cards_mismatch`, `impossible_state`,
    `invalid_variant`, `bad_notation`); `path` is the JSON pointer of the
    bad field (`""` for the whole document). The writers raise it too for what they could
    not write back: text holding a lone surrogate (`lone_surrogate`, rule 10.5), a field
    beyond what a document holds.

    Examples:
        >>> error = DecodeError("wrong_type", "must be an integer, got a string", "/grids/1/4/card")
        >>> str(error)
        '[wrong_type] /grids/1/4/card: must be an integer, got a string'
        >>> error.to_dict()["path"]
        '/grids/1/4/card'
    """

    path: str

    def __init__(self, code: str, message: str, path: str = "", rule: str | None = None) -> None:
        super().__init__(code, message, rule)
        self.path = shown(path) if type(path) is str else path

    def _fields(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "path": self.path, "rule": self.rule}

    def __str__(self) -> str:
        where = f" (rule {self.rule})" if self.rule else ""
        at = f"{self.path}: " if self.path else ""
        return f"[{self.code}] {at}{self.message}{where}"

    def to_dict(self) -> dict[str, str | None]:
        """The error as a JSON-ready mapping: `code`, `rule`, `message` and `path`."""
        out = super().to_dict()
        out["path"] = self.path
        return out


class ReplayError(DecodeError):
    """A record that cannot be replayed.

    Codes: `record_redacted` (no seed: the cards are unknown), `replay_failed`
    (an action is not legal where the record puts it; `index` is its
    position, `cause` the engine's error, `path` is `/actions/<index>`) and
    `replay_mismatch` (the final state's hash is not the recorded one, or a
    view does not match the replay).

    Examples:
        >>> error = ReplayError("replay_failed", "action 3 (1d) is not legal", "/actions/3", index=3)
        >>> error.index, error.path
        (3, '/actions/3')
    """

    index: int | None
    cause: AbyssError | None

    def __init__(self, code: str, message: str, path: str = "", rule: str | None = None, *,
                 index: int | None = None, cause: AbyssError | None = None) -> None:
        super().__init__(code, message, path, rule)
        self.index = index
        self.cause = cause

    def _fields(self) -> dict[str, Any]:
        return {**super()._fields(), "index": self.index, "cause": self.cause}


class BotError(AbyssError, ValueError):
    """A bot was asked to act where it cannot (`bot_cannot_act`), or a bot name is unknown
    (`unknown_bot`).

    Examples:
        >>> from abyss_rules.bots import make_bot
        >>> try:
        ...     make_bot("nobody")
        ... except BotError as error:
        ...     print(error.code, "|", error.message)
        unknown_bot | no built-in bot 'nobody'; choose one of: random, greedy, counting, search, expert
    """


class SimulationError(AbyssError, ValueError):
    """Bad arguments to `play_game` or `simulate`, or a game
    that never ends.

    Codes: `invalid_simulation`, `invalid_players`, `invalid_variant`, `game_too_long`.

    Examples:
        >>> from abyss_rules.simulation import play_game
        >>> try:
        ...     play_game(["greedy"], seed=1)
        ... except SimulationError as error:
        ...     print(error.code, error.rule)
        invalid_players 1.3
    """


class SamplingError(_DefaultCode, ValueError):
    """Bad arguments to `sample_states` (code `invalid_sampling`), or a view that no state has
    (codes `cards_mismatch`: its cards are not the deck's; `impossible_state`: the rules could
    not have reached it). Also a `ValueError`.

    Examples:
        >>> import random
        >>> import abyss_rules as ar
        >>> from abyss_rules.sampling import sample_states
        >>> try:
        ...     sample_states(ar.view(ar.new_game(seed=1), 0), 0, random.Random(1))
        ... except ar.SamplingError as error:
        ...     print(error.code, "|", error.message)
        invalid_sampling | n must be an int from 1 to 100000, got 0
    """

    DEFAULT_CODE = Code.INVALID_SAMPLING


class PictureError(_DefaultCode, ValueError):
    """Bad arguments to `to_svg` (code `invalid_picture`; also a `ValueError`).

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.pictures import to_svg
        >>> try:
        ...     to_svg(ar.view(ar.new_game(seed=1)), reveal=True)
        ... except ar.PictureError as error:
        ...     print(error.code, "|", error.message)
        invalid_picture | a View holds no face-down values to reveal: pass the State with reveal=True
    """

    DEFAULT_CODE = Code.INVALID_PICTURE


class InvariantError(AssertionError):
    """A state breaks an invariant of the engine: a bug in the engine or a forged state, not bad input.

    Raised by `abyss_rules.testing.check_invariants`.

    `invariant` names the broken invariant (a stable string such as
    `"card_conservation"`); `rule` is the id of the spec rule it follows
    from, or `None`. It is an `AssertionError`, so test runners report it as
    a failed test.

    Examples:
        >>> error = InvariantError("drawn_card", "phase turn holds drawn card 5", "3.4")
        >>> str(error), error.invariant, isinstance(error, AssertionError)
        ('[drawn_card] phase turn holds drawn card 5 (rule 3.4)', 'drawn_card', True)
    """

    invariant: str
    rule: str | None

    def __init__(self, invariant: str, message: str, rule: str | None = None) -> None:
        self.invariant = invariant
        self.rule = rule
        self.message = message
        where = f" (rule {rule})" if rule else ""
        super().__init__(f"[{invariant}] {message}{where}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.invariant, self.message, self.rule))
