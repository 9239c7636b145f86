"""Checking and applying actions sent by clients: the validation API for game servers.

A server keeps the authoritative `State`, sends each client a view
(`view`, `dumps_view`) and receives actions as JSON `action` documents (or
compact notation). For each message it either

* asks `validate` for a `Verdict` -- never raises, ready to send back as a
  `verdict` document -- or
* calls `submit`, which returns the new state, the events
  (`apply_with_events`) the action caused and the action, or raises the
  typed error a verdict would report.

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
    >>> state = ar.new_game(players=2, seed=4)
    >>> message = '{"format":"action","format_version":1,"rules_version":"1.0.0",' \\
    ...           '"type":"flip","player":0,"row":1,"col":2,"seq":0}'
    >>> ar.validate(state, message).legal
    True
    >>> state, events, action = ar.submit(state, message, player=0)
    >>> action, state.seq
    (Flip(player=0, row=1, col=2), 1)
    >>> verdict = ar.validate(state, message, player=0)      # the same message again: seq 0 is stale
    >>> verdict.code, verdict.legal
    ('stale_action', False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, cast

import attrs

from .actions import ACTION_TYPES, Action
from .codec.action import action_document
from .codec.strict import MAX_DOCUMENT_BYTES, MAX_INT, canonical_json, header, parse, parse_json
from .documents import VerdictDocument
from .errors import AbyssError, Code, DecodeError, IllegalActionError
from .events import Event, apply_with_events
from .notation import parse_notation
from .rules.engine import check
from .state import State

__all__ = ["Accepted", "Verdict", "read_action", "submit", "validate"]

ActionInput = Action | Mapping[str, Any] | str | bytes | bytearray
"""What `validate` and `submit` accept as an action."""


@attrs.frozen(slots=True)
class Verdict:
    """The answer to "may this action be applied to this state?" (see `validate`).

    Examples:
        >>> import abyss_rules as ar
        >>> verdict = ar.validate(ar.new_game(players=2, seed=4), "0d")
        >>> verdict.legal, verdict.code, verdict.rule
        (False, 'wrong_phase', '3.2')
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

    @classmethod
    def from_error(cls, error: AbyssError | None, seq: int | None) -> Verdict:
        """The verdict for `error` (`None`: legal) against the state numbered `seq`.

        For a server that calls `submit` and answers its errors.

        Examples:
            >>> import abyss_rules as ar
            >>> state = ar.new_game(players=2, seed=4)
            >>> try:
            ...     ar.submit(state, "0d")
            ... except ar.AbyssError as error:
            ...     print(Verdict.from_error(error, state.seq).code)
            wrong_phase
        """
        if error is None:
            return cls(True, None, None, "legal", seq)
        path = error.path if isinstance(error, DecodeError) else None
        return cls(False, error.code, error.rule, error.message, seq, path)

    def to_dict(self) -> VerdictDocument:
        """The `verdict` document (public: safe to send to the client that sent the action).

        Examples:
            >>> Verdict(True, None, None, "legal", 3).to_dict()["legal"]
            True
        """
        code = None if self.code is None else str(self.code)  # a plain str, as in a parsed document
        return cast(VerdictDocument, {**header("verdict"), "legal": self.legal, "code": code,
                                      "rule": self.rule, "message": self.message, "seq": self.seq,
                                      "path": self.path})

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
        >>> state, events, action = ar.submit(ar.new_game(players=2, seed=4), "0f00")
        >>> action, state.seq
        (Flip(player=0, row=0, col=0), 1)
    """

    state: State
    """The state after the action."""
    events: tuple[Event, ...]
    """What the action caused (see `apply_with_events`)."""
    action: Action
    """The action applied (decoded from the message): append it to the game's record."""


def read_action(data: ActionInput, *, seq: int | None = None) -> tuple[Action, int | None]:
    """Decode an action message: the action and the `seq` its sender saw (`None` if not given).

    `data` is an action object; a parsed `action` document (a mapping); JSON
    text of one (a `str`/`bytes` whose first non-blank character is `{`); or
    compact notation such as `"0f12"`. `seq` gives the sender's `seq` for
    messages that cannot carry one (objects, notation); a document's own
    `seq` must agree with it.

    Raises:
        DecodeError: the message is not a well-formed action.

    Examples:
        >>> read_action("1x23", seq=8)
        (DiscardDrawn(player=1, row=2, col=3), 8)
    """
    if seq is not None and (type(seq) is not int or not 0 <= seq <= MAX_INT):
        raise DecodeError(Code.WRONG_TYPE, f"seq must be an integer from 0 to {MAX_INT}, got {seq!r}", "/seq")
    carried: int | None = None
    if type(data) in ACTION_TYPES:
        action: Action = data  # type: ignore[assignment]
    elif isinstance(data, (str, bytes, bytearray)):
        if len(data) > MAX_DOCUMENT_BYTES:
            raise DecodeError(Code.DOCUMENT_TOO_LARGE, f"the message is {len(data)} long; the limit is "
                                                       f"{MAX_DOCUMENT_BYTES} bytes")
        head = data[:64].lstrip()[:1]
        if head in ("{", b"{") or (not head and data.lstrip()[:1] in ("{", b"{")):
            action, carried = action_document(parse(data))
        else:
            try:
                action = parse_notation(data if isinstance(data, str) else bytes(data).decode("ascii"))
            except UnicodeDecodeError:
                raise DecodeError(Code.BAD_NOTATION, "notation is ASCII text") from None
            except DecodeError:
                _refuse_other_json(data)  # JSON that is not an object: wrong_type, not bad_notation
                raise
    elif isinstance(data, Mapping):
        action, carried = action_document(dict(data))
    else:
        raise DecodeError(Code.WRONG_TYPE, "an action must be an action object, an action document "
                                           f"or notation, got {type(data).__name__}")
    if carried is not None and seq is not None and carried != seq:
        raise DecodeError(Code.BAD_VALUE, f"the document says seq {carried} but seq={seq} was given", "/seq")
    return action, carried if carried is not None else seq


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
    action_document(value)  # raises: an action document is an object


def _gate(state: State, action: Action, seq: int | None, player: int | None,
          require_seq: bool) -> AbyssError | None:
    """The server-side checks made before the rules: the acting seat and the seq."""
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


def validate(
    state: State, action: ActionInput, *, seq: int | None = None, player: int | None = None,
    require_seq: bool = False,
) -> Verdict:
    """Whether `action` may be applied to `state` now, as a `Verdict`; never raises.

    Args:
        state: The authoritative state.
        action: The client's message (see `read_action`).
        seq: The `seq` the client saw, for messages that cannot carry one.
        player: The seat the server authenticated for this client; an action
            for another seat is rejected with `seat_mismatch`.
        require_seq: Reject actions that say nothing about their `seq`
            (`missing_field`) instead of skipping the stale check.

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=4)
        >>> ar.validate(state, ar.Flip(1, 0, 0), player=0).code
        'seat_mismatch'
        >>> ar.validate(state, "0f12", seq=3).code
        'stale_action'
        >>> ar.validate(state, '{"format": "action"}').to_dict()["path"]
        '/format_version'
    """
    state_seq = state.seq if type(state) is State else None
    try:
        act, claimed = read_action(action, seq=seq)
    except AbyssError as malformed:
        return Verdict.from_error(malformed, state_seq)
    return Verdict.from_error(_gate(state, act, claimed, player, require_seq) or check(state, act), state_seq)


def submit(
    state: State, action: ActionInput, *, seq: int | None = None, player: int | None = None,
    require_seq: bool = False,
) -> Accepted:
    """Check `action` like `validate` and apply it.

    Returns:
        The new state, the events the action caused, and the decoded action.

    Raises:
        DecodeError: a malformed message.
        IllegalActionError: `seat_mismatch`, `stale_action`, or a rule's code.
        MalformedActionError: `state` is not a State (`invalid_state`).

    Examples:
        >>> import abyss_rules as ar
        >>> state = ar.new_game(players=2, seed=4)
        >>> accepted = ar.submit(state, "1f00", seq=0, player=1)
        >>> accepted.state.seq, [event.TYPE for event in accepted.events]
        (1, ['card_revealed'])
    """
    act, claimed = read_action(action, seq=seq)
    error = _gate(state, act, claimed, player, require_seq)
    if error is not None:
        raise error
    after, events = apply_with_events(state, act)
    return Accepted(after, events, act)
