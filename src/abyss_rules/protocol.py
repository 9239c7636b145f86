"""The messages of a game server: checking, applying and answering the actions clients send.

A server keeps the authoritative `State`, sends each client a view
(`view`, `dumps_view`) and receives actions as JSON `action` documents (or
compact notation). For each message it either

* asks `judge` for the `Verdict` to send back and, when the action is legal, the new
  state and its events -- never raises;
* asks `validate` for a verdict only, applying nothing; or
* calls `submit`, which returns the new state, the events
  (`apply_with_events`) the action caused and the action, or raises the
  typed error a verdict would report.

A verdict echoes the message's `request_id` (and, with `echo_action=True`, the action), so
that replies on one connection can be matched to requests, and says which HTTP status it
maps to (`HTTP_STATUS`, one table). A client builds its messages with `action_documents`:
its view's legal actions as send-ready `action` documents.

Checks, in order (the first failing one is reported):

1. the message is a well-formed action (`DecodeError` codes such as
   `invalid_json`, `unknown_field`, `wrong_type`, `bad_notation`);
2. `player=` (the seat the server authenticated) is the action's player,
   else `seat_mismatch`;
3. the `seq` the client saw is the state's `seq`, else `stale_action` --
   so an action made against an older view is never applied to a newer state;
4. the rules, in the order of spec section 3 ("Rejecting an action").

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.protocol import submit, validate
    >>> state = ar.new_game(players=2, seed=4)
    >>> message = '{"format":"action","format_version":1,"rules_version":"1.0.0",' \\
    ...           '"type":"flip","player":0,"row":1,"col":2,"seq":0}'
    >>> validate(state, message).legal
    True
    >>> state, events, action = submit(state, message, player=0)
    >>> action, state.seq
    (Flip(player=0, row=1, col=2), 1)
    >>> verdict = validate(state, message, player=0)      # the same message again: seq 0 is stale
    >>> verdict.code, verdict.legal, verdict.http_status
    ('stale_action', False, 409)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple, cast

import attrs

from ._text import is_text
from ._versions import header
from .actions import ACTION_TYPES, Action
from .codec._action import (
    MAX_REQUEST_ID,
    RequestId,
    action_body,
    action_message,
    action_to_dict,
    check_request_id,
)
from .codec._strict import (
    MAX_DOCUMENT_BYTES,
    MAX_INT,
    canonical_json,
    lone_surrogate,
    parse,
    parse_json,
    short,
)
from .documents import ActionDocument, VerdictDocument
from .errors import AbyssError, ArgumentError, Code, DecodeError, IllegalActionError
from .events import Event, apply_with_events
from .notation import parse_notation
from .rules._engine import check
from .state import State
from .views import View

__all__ = ["HTTP_STATUS", "Accepted", "Judgement", "Message", "Verdict", "action_documents", "http_status",
           "judge", "read_action", "read_message", "submit", "validate"]

ActionInput = Action | Mapping[str, Any] | str | bytes | bytearray
"""What `validate` and `submit` accept as an action."""

_MALFORMED: Final = 400
_REFUSED_NOW: Final = 409
HTTP_STATUS: Final[Mapping[str, int]] = {
    # The message is malformed whatever the game's state: fix the client.
    **{code: _MALFORMED for code in (
        Code.INVALID_JSON, Code.LONE_SURROGATE, Code.TOO_DEEP, Code.DUPLICATE_FIELD, Code.WRONG_FORMAT,
        Code.UNSUPPORTED_VERSION, Code.UNKNOWN_FIELD, Code.MISSING_FIELD, Code.WRONG_TYPE, Code.BAD_VALUE,
        Code.BAD_SHAPE, Code.CARDS_MISMATCH, Code.IMPOSSIBLE_STATE, Code.BAD_NOTATION, Code.MALFORMED_ACTION,
        Code.NO_SUCH_ACTION_INDEX, Code.INVALID_VARIANT, Code.INVALID_PLAYERS, Code.INVALID_DECK_ORDER,
        Code.INVALID_SEED, Code.RECORD_REDACTED, Code.REPLAY_FAILED, Code.REPLAY_MISMATCH, Code.UNKNOWN_BOT,
        Code.INVALID_SIMULATION, Code.INVALID_ENV_OPTION, Code.UNREADABLE_INPUT, Code.INVALID_PICTURE,
        Code.INVALID_SAMPLING)},
    Code.DOCUMENT_TOO_LARGE: 413,
    # The connection's seat may not send this action (or it is cheating).
    Code.SEAT_MISMATCH: 403,
    # Well formed, but the game's current state refuses it: look at the new view, act again.
    **{code: _REFUSED_NOW for code in (
        Code.STALE_ACTION, Code.GAME_OVER, Code.NO_SUCH_PLAYER, Code.NOT_YOUR_TURN, Code.WRONG_PHASE,
        Code.NO_SUCH_SPACE, Code.SPACE_SWALLOWED, Code.SPACE_FACE_UP, Code.NO_CARD_TO_DRAW,
        Code.FLIP_TURN_DISABLED, Code.NO_FLIPS_OWED, Code.DISCARD_EMPTY, Code.ILLEGAL_ACTION,
        Code.GAME_TOO_LONG, Code.COUNTER_LIMIT)},
    # The server's own fault (it passed something that is not a State, or an argument of a type a
    # call does not take; a bot failed): not the client's.
    Code.INVALID_STATE: 500,
    Code.INVALID_ARGUMENT: 500,
    Code.BOT_CANNOT_ACT: 500,
}
"""The HTTP status of a refusal, by error code: the one table a server answers from.

400: malformed whatever the state; 413: too large; 403: `seat_mismatch`; 409: well formed but
refused by the game's current state (`stale_action` and every rule's code); 500: the server's
own fault. A legal verdict is 200; a code not in the table (a server's own) is 400.

Examples:
    >>> HTTP_STATUS["stale_action"], HTTP_STATUS["not_your_turn"], HTTP_STATUS["wrong_type"]
    (409, 409, 400)
"""


def http_status(code: str | None) -> int:
    """The HTTP status for a verdict's `code` (`None`: legal, 200): `HTTP_STATUS`.

    Raises `ArgumentError` if `code` is neither a string nor `None`.

    Examples:
        >>> http_status(None), http_status("seat_mismatch"), http_status("document_too_large")
        (200, 403, 413)
    """
    if code is None:
        return 200
    if not isinstance(code, str):
        raise ArgumentError(f"a verdict's code is a string or None, got {type(code).__name__}")
    return HTTP_STATUS.get(code, _MALFORMED)


@attrs.frozen(slots=True)
class Verdict:
    """The answer to "may this action be applied to this state?" (see `validate`).

    Checked when made, so that every verdict can be sent: a legal verdict has no `code` and a
    refusal has one; each field of the wrong type is refused (`ArgumentError`), and so is
    text that no UTF-8 document can hold (`DecodeError`, code `lone_surrogate`, rule 10.5) or a
    `request_id` that an action document could not carry.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import validate
        >>> verdict = validate(ar.new_game(players=2, seed=4), "0d")
        >>> verdict.legal, verdict.code, verdict.rule, verdict.http_status
        (False, 'wrong_phase', '3.2', 409)
        >>> verdict.to_dict()["format"]
        'verdict'
    """

    legal: bool
    """Whether the action may be applied now."""
    code: str | None
    """The stable error code (see `Code`); `None` when legal."""
    rule: str | None
    """The spec rule the action breaks, if a game rule is involved."""
    message: str
    """A sentence for people (`"legal"` when legal)."""
    seq: int | None
    """The `seq` of the state the action was checked against (`None` if that was not a state)."""
    path: str | None = None
    """For a malformed document, the JSON pointer of the bad field."""
    request_id: RequestId | None = None
    """The `request_id` the message carried (echoed so that the client can match the reply), or `None`."""
    action: Action | None = None
    """The action the verdict is about, when the server echoes it (`echo_action=True`), or `None`."""

    def __attrs_post_init__(self) -> None:
        code, rule, message, path, seq, request_id = (self.code, self.rule, self.message, self.path, self.seq,
                                                      self.request_id)
        if (self.legal is (code is None) and type(message) is str and message.isascii()
                and (rule is None or (type(rule) is str and rule.isascii()))
                and (path is None or (type(path) is str and path.isascii()))
                and (code is None or (isinstance(code, str) and code.isascii()))
                and (seq is None or (type(seq) is int and 0 <= seq <= MAX_INT))
                and (request_id is None or (type(request_id) is int and 0 <= request_id <= MAX_INT)
                     or (type(request_id) is str and 1 <= len(request_id) <= MAX_REQUEST_ID
                         and request_id.isascii()))
                and (self.action is None or type(self.action) in ACTION_TYPES)):
            return  # every verdict the library makes (its text is ASCII unless a client's was not)
        self._check()

    def _check(self) -> None:
        if type(self.legal) is not bool:
            raise ArgumentError(f"legal must be a bool, got {type(self.legal).__name__}")
        if self.legal != (self.code is None):
            raise ArgumentError("a legal verdict has no code, and a refusal has one")
        for name in ("code", "rule", "message", "path"):
            value = getattr(self, name)
            if value is None and name != "message":
                continue
            if not isinstance(value, str):
                what = "a string" if name == "message" else "a string or None"
                raise ArgumentError(f"a verdict's {name} is {what}, got {type(value).__name__}")
            if not is_text(value):
                raise lone_surrogate(f"/{name}")
        if self.seq is not None and (type(self.seq) is not int or not 0 <= self.seq <= MAX_INT):
            raise ArgumentError(f"a verdict's seq is an int from 0 to {MAX_INT} or None, "
                                f"got {short(self.seq)}")
        if self.request_id is not None:
            if type(self.request_id) not in (str, int):
                raise ArgumentError(f"a request id is a string or an int, "
                                    f"got {type(self.request_id).__name__}")
            check_request_id(self.request_id)
        if self.action is not None and type(self.action) not in ACTION_TYPES:
            raise ArgumentError(f"a verdict's action is an action or None, got {type(self.action).__name__}")

    @classmethod
    def from_error(cls, error: AbyssError | None, seq: int | None, *, request_id: RequestId | None = None,
                   action: Action | None = None) -> Verdict:
        """The verdict for `error` (`None`: legal) against the state numbered `seq`.

        For a server that calls `submit` and answers its errors.

        Examples:
            >>> import abyss_rules as ar
            >>> from abyss_rules.protocol import submit
            >>> state = ar.new_game(players=2, seed=4)
            >>> try:
            ...     submit(state, "0d")
            ... except ar.AbyssError as error:
            ...     print(Verdict.from_error(error, state.seq).code)
            wrong_phase
        """
        if error is None:
            return cls(True, None, None, "legal", seq, None, request_id, action)
        if not isinstance(error, AbyssError):
            raise ArgumentError(f"expected an AbyssError or None, got {type(error).__name__}")
        path = error.path if isinstance(error, DecodeError) else None
        return cls(False, error.code, error.rule, error.message, seq, path, request_id, action)

    @property
    def http_status(self) -> int:
        """The HTTP status to answer with: 200 when legal, else `HTTP_STATUS`."""
        return http_status(self.code)

    def to_dict(self) -> VerdictDocument:
        """The `verdict` document (public: safe to send to the client that sent the action).

        `request_id` and `action` appear only when the verdict has them.

        Examples:
            >>> Verdict(True, None, None, "legal", 3).to_dict()["legal"]
            True
            >>> Verdict(True, None, None, "legal", 3, request_id="m1").to_dict()["request_id"]
            'm1'
        """
        code = None if self.code is None else str(self.code)  # a plain str, as in a parsed document
        doc: dict[str, Any] = {**header("verdict"), "legal": self.legal, "code": code, "rule": self.rule,
                               "message": self.message, "seq": self.seq, "path": self.path}
        if self.request_id is not None:
            doc["request_id"] = self.request_id
        if self.action is not None:
            doc["action"] = action_body(self.action)
        return cast(VerdictDocument, doc)

    def to_json(self) -> str:
        """The canonical JSON text of the `verdict` document.

        Examples:
            >>> Verdict(False, "stale_action", None, "too late", 3).to_json()[:42]
            '{"code":"stale_action","format":"verdict",'
        """
        return canonical_json(self.to_dict())


class Accepted(NamedTuple):
    """What `submit` returns for a legal action: a named tuple.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import submit
        >>> state, events, action = submit(ar.new_game(players=2, seed=4), "0f00")
        >>> action, state.seq
        (Flip(player=0, row=0, col=0), 1)
    """

    state: State
    """The state after the action."""
    events: tuple[Event, ...]
    """What the action caused (see `apply_with_events`)."""
    action: Action
    """The action applied (decoded from the message): append it to the game's record."""


class Message(NamedTuple):
    """A decoded action message (see `read_message`)."""

    action: Action
    """The action."""
    seq: int | None
    """The `seq` its sender saw (`None`: it said none)."""
    request_id: RequestId | None
    """The sender's own name for the message (`None`: none), for the verdict to echo."""


class Judgement(NamedTuple):
    """What `judge` returns: the verdict to send, and the result if legal."""

    verdict: Verdict
    """The verdict to send back (to the sender only); `verdict.http_status` is the HTTP status."""
    accepted: Accepted | None
    """The new state, the events and the action when the action was legal; else `None`."""


def read_message(data: ActionInput, *, seq: int | None = None, notation: bool = True) -> Message:
    """Decode an action message: the action, the `seq` its sender saw and its `request_id`.

    `data` is an action object; a parsed `action` document (a mapping); JSON
    text of one (a `str`/`bytes` whose first non-blank character is `{`); or,
    unless `notation=False`, compact notation such as `"0f12"`. `seq` gives the
    sender's `seq` for messages that cannot carry one (objects, notation); a
    document's own `seq` must agree with it. A `null` `seq` or `request_id` reads
    as absent. With `notation=False` (an endpoint that takes JSON only), text that
    is not JSON is `invalid_json`.

    Raises:
        DecodeError: the message is not a well-formed action.

    Examples:
        >>> read_message('{"format":"action","format_version":1,"rules_version":"1.0.0",'
        ...              '"type":"draw","player":1,"seq":null,"request_id":"r7"}')
        Message(action=Draw(player=1), seq=None, request_id='r7')
        >>> try:
        ...     read_message("draw", notation=False)
        ... except DecodeError as error:
        ...     print(error.code)
        invalid_json
    """
    if seq is not None and (type(seq) is not int or not 0 <= seq <= MAX_INT):
        raise DecodeError(Code.WRONG_TYPE, f"seq must be an integer from 0 to {MAX_INT}, got {seq!r}", "/seq")
    carried: int | None = None
    request_id: RequestId | None = None
    if type(data) in ACTION_TYPES:
        action: Action = data  # type: ignore[assignment]
    elif isinstance(data, (str, bytes, bytearray)):
        if len(data) > MAX_DOCUMENT_BYTES:
            raise DecodeError(Code.DOCUMENT_TOO_LARGE, f"the message is {len(data)} long; the limit is "
                                                       f"{MAX_DOCUMENT_BYTES} bytes")
        head = data[:64].lstrip()[:1]
        if not notation or head in ("{", b"{") or (not head and data.lstrip()[:1] in ("{", b"{")):
            action, carried, request_id = action_message(
                parse(bytes(data) if isinstance(data, bytearray) else data))
        else:
            try:
                action = parse_notation(data if isinstance(data, str) else bytes(data).decode("ascii"))
            except UnicodeDecodeError:
                raise DecodeError(Code.BAD_NOTATION, "notation is ASCII text") from None
            except DecodeError:
                _refuse_other_json(data)  # JSON that is not an object: wrong_type, not bad_notation
                raise
    elif isinstance(data, Mapping):
        action, carried, request_id = action_message(dict(data))
    else:
        raise DecodeError(Code.WRONG_TYPE, "an action must be an action object, an action document "
                                           f"or notation, got {type(data).__name__}")
    if carried is not None and seq is not None and carried != seq:
        raise DecodeError(Code.BAD_VALUE, f"the document says seq {carried} but seq={seq} was given", "/seq")
    return Message(action, carried if carried is not None else seq, request_id)


def read_action(data: ActionInput, *, seq: int | None = None) -> tuple[Action, int | None]:
    """Decode an action message: the action and the `seq` its sender saw (`None` if not given).

    The same as `read_message` without the `request_id`.

    Raises:
        DecodeError: the message is not a well-formed action.

    Examples:
        >>> read_action("1x23", seq=8)
        (DiscardDrawn(player=1, row=2, col=3), 8)
    """
    action, carried, _ = read_message(data, seq=seq)
    return action, carried


def _refuse_other_json(data: str | bytes | bytearray) -> None:
    """Raise `wrong_type` if `data` (not notation) is JSON text of something other than an object.

    Examples:
        >>> _refuse_other_json("[1, 2]")
        Traceback (most recent call last):
        ...
        abyss_rules.errors.DecodeError: [wrong_type] must be an object, got an array
        >>> _refuse_other_json("0z") is None        # not JSON either: the notation's error stands
        True
    """
    try:
        value = parse_json(bytes(data) if isinstance(data, bytearray) else data)
    except DecodeError:
        return
    action_message(value)  # raises: an action document is an object


def _request_id_of(data: ActionInput) -> RequestId | None:
    """The `request_id` of a message that failed to decode, if one can be read from it; else `None`.

    So that even the verdict on a malformed document names the request it answers.
    """
    try:
        if isinstance(data, Mapping):
            doc: Any = data
        elif isinstance(data, (str, bytes, bytearray)) and len(data) <= MAX_DOCUMENT_BYTES:
            doc = parse(bytes(data) if isinstance(data, bytearray) else data)
        else:
            return None
        value = doc.get("request_id") if isinstance(doc, Mapping) else None
        return None if value is None else check_request_id(value)
    except DecodeError:
        return None


def _gate(state: State, action: Action, seq: int | None, player: int | None,
          require_seq: bool) -> AbyssError | None:
    """The server-side checks made before the rules: the acting seat and the seq."""
    if player is not None and type(player) is not int:
        return ArgumentError(f"player is the seat a server authenticated (an int) or None, got "
                             f"{type(player).__name__}")
    if player is not None and action.player != player:
        return IllegalActionError(Code.SEAT_MISMATCH, f"this connection plays seat {player}; the action is "
                                                      f"for seat {action.player}")
    if seq is None:
        if require_seq:
            return DecodeError(Code.MISSING_FIELD, "the action must say which seq it was made for", "/seq")
        return None
    if type(state) is State and seq != state.seq:
        return IllegalActionError(Code.STALE_ACTION, f"the action was made at seq {seq}, the game is at seq "
                                                     f"{state.seq}: look at the new view and act again")
    return None


def judge(
    state: State, action: ActionInput, *, seq: int | None = None, player: int | None = None,
    require_seq: bool = False, notation: bool = True, echo_action: bool = False,
) -> Judgement:
    """Check `action` like `validate` and, if legal, apply it; never raises.

    Returns the verdict to send back (with the message's `request_id`, and the action if
    `echo_action`) and, for a legal action, what `submit` returns.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import judge
        >>> state = ar.new_game(players=2, seed=4)
        >>> text = ar.dumps_action(ar.Flip(1, 0, 0), seq=0, request_id="a1")
        >>> verdict, accepted = judge(state, text, player=1, require_seq=True)
        >>> verdict.to_dict()["request_id"], verdict.http_status, accepted.state.seq
        ('a1', 200, 1)
        >>> verdict, accepted = judge(accepted.state, text, player=1, require_seq=True)
        >>> verdict.code, verdict.request_id, verdict.http_status, accepted
        ('stale_action', 'a1', 409, None)
    """
    state_seq = state.seq if type(state) is State else None
    try:
        act, claimed, request_id = read_message(action, seq=seq, notation=notation)
    except AbyssError as malformed:
        return Judgement(Verdict.from_error(malformed, state_seq, request_id=_request_id_of(action)), None)
    echoed = act if echo_action else None
    error = _gate(state, act, claimed, player, require_seq) or check(state, act)
    if error is not None:
        return Judgement(Verdict.from_error(error, state_seq, request_id=request_id, action=echoed), None)
    after, events = apply_with_events(state, act)
    return Judgement(Verdict.from_error(None, state_seq, request_id=request_id, action=echoed),
                     Accepted(after, events, act))


def validate(
    state: State, action: ActionInput, *, seq: int | None = None, player: int | None = None,
    require_seq: bool = False, notation: bool = True, echo_action: bool = False,
) -> Verdict:
    """Whether `action` may be applied to `state` now, as a `Verdict`; never raises.

    Args:
        state: The authoritative state.
        action: The client's message (see `read_message`).
        seq: The `seq` the client saw, for messages that cannot carry one.
        player: The seat the server authenticated for this client; an action
            for another seat is rejected with `seat_mismatch`.
        require_seq: Reject actions that say nothing about their `seq`
            (`missing_field`) instead of skipping the stale check.
        notation: Accept compact notation; `False` for an endpoint that takes JSON only
            (then text that is not JSON is `invalid_json`).
        echo_action: Put the decoded action in the verdict (`verdict.action`).

    The verdict carries the message's `request_id`, if it has one.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import validate
        >>> state = ar.new_game(players=2, seed=4)
        >>> validate(state, ar.Flip(1, 0, 0), player=0).code
        'seat_mismatch'
        >>> validate(state, "0f12", seq=3).code
        'stale_action'
        >>> validate(state, '{"format": "action"}').to_dict()["path"]
        '/format_version'
    """
    state_seq = state.seq if type(state) is State else None
    try:
        act, claimed, request_id = read_message(action, seq=seq, notation=notation)
    except AbyssError as malformed:
        return Verdict.from_error(malformed, state_seq, request_id=_request_id_of(action))
    return Verdict.from_error(_gate(state, act, claimed, player, require_seq) or check(state, act), state_seq,
                              request_id=request_id, action=act if echo_action else None)


def submit(
    state: State, action: ActionInput, *, seq: int | None = None, player: int | None = None,
    require_seq: bool = False, notation: bool = True,
) -> Accepted:
    """Check `action` like `validate` and apply it.

    Returns:
        The new state, the events the action caused, and the decoded action.

    Raises:
        DecodeError: a malformed message.
        IllegalActionError: `seat_mismatch`, `stale_action`, or a rule's code.
        InvalidStateError: `state` is not a State (`invalid_state`).

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import submit
        >>> state = ar.new_game(players=2, seed=4)
        >>> accepted = submit(state, "1f00", seq=0, player=1)
        >>> accepted.state.seq, [event.TYPE for event in accepted.events]
        (1, ['card_revealed'])
    """
    act, claimed, _ = read_message(action, seq=seq, notation=notation)
    error = _gate(state, act, claimed, player, require_seq)
    if error is not None:
        raise error
    after, events = apply_with_events(state, act)
    return Accepted(after, events, act)


def action_documents(view: View) -> tuple[ActionDocument, ...]:
    """The viewer's legal actions as send-ready `action` documents, each with the view's `seq`.

    A client picks one, adds its own `request_id` if it wants one, and sends it: no rules needed.

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.protocol import validate
        >>> docs = action_documents(ar.view(ar.new_game(players=2, seed=4), 0))
        >>> len(docs), docs[0]["format"], docs[0]["seq"], docs[0]["type"]
        (12, 'action', 0, 'flip')
        >>> validate(ar.new_game(players=2, seed=4), docs[0], player=0, require_seq=True).legal
        True
    """
    if type(view) is not View:
        raise ArgumentError(f"expected a View, got {type(view).__name__}")
    return tuple(action_to_dict(action, seq=view.seq) for action in view.legal_actions)
