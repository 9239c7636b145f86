"""The server's messages: refusals (`HttpError`), the bodies of its requests, and its answers' bytes.

Everything here is pure: it reads JSON documents and says what they ask for, or raises a typed
error (`DecodeError` for a malformed document, `HttpError` for a refusal of the server's own).
Every bound on what a client sends is checked here, before anything is built from it. `encode`
writes every document the server sends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

import orjson

from . import _library as ar

__all__ = ["GameRequest", "HttpError", "encode", "parse_body", "read_action_body", "read_game_request"]

class HttpError(Exception):
    """A refused request: the HTTP status, and the `verdict` document sent back as the body."""

    def __init__(self, status: int, verdict: ar.Verdict, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"{status} {verdict.code}: {verdict.message}")
        self.status = status
        self.verdict = verdict
        self.headers = dict(headers or {})

    @classmethod
    def refuse(cls, status: int, code: str, message: str, *, path: str | None = None,
               seq: int | None = None, headers: Mapping[str, str] | None = None) -> HttpError:
        """A refusal with one of the server's own codes (they involve no game rule)."""
        return cls(status, ar.Verdict(False, code, None, message, seq, path), headers)

    @classmethod
    def of(cls, error: ar.AbyssError, seq: int | None = None, path: str | None = None,
           request_id: str | int | None = None) -> HttpError:
        """The refusal for a library error, its status from the library's one table (`HTTP_STATUS`)."""
        verdict = ar.Verdict.from_error(error, seq, request_id=request_id)
        if verdict.path is None and path is not None:
            verdict = ar.Verdict(False, verdict.code, verdict.rule, verdict.message, seq, path, request_id)
        return cls(verdict.http_status, verdict)


def encode(doc: Any) -> bytes:
    """`doc` as the library's canonical JSON (`canonical_json`), in UTF-8: what the server sends.

    orjson writes it (sorted keys, no whitespace, UTF-8 as itself: the same bytes, for far fewer
    instructions; the tests compare the two on every document of whole games); what orjson does not
    write -- an integer past 64 bits, a lone surrogate -- the library's own writer decides.

    Raises `HttpError` 400 `lone_surrogate` if a string of `doc` (from a request) holds a lone
    surrogate, which UTF-8 cannot carry (rule 10.5): such a document cannot be sent.
    """
    try:
        return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        pass
    try:
        return ar.canonical_json(doc).encode("utf-8")
    except ar.DecodeError as error:  # what UTF-8 cannot carry, refused by the library's writer
        raise HttpError.of(error) from None


def parse_body(body: bytes) -> Any:
    """A request body as JSON, parsed as strictly as the library parses its documents (400 otherwise).

    The body's size was already checked against the server's limit.
    """
    try:
        return ar.parse_json(body, max_bytes=max(len(body), 1))
    except ar.DecodeError as error:
        raise HttpError.of(error) from None


def _pointer(key: str) -> str:
    return "/" + key.replace("~", "~0").replace("/", "~1")


def _only(doc: Any, allowed: frozenset[str], what: str) -> dict[str, Any]:
    """`doc` as an object whose keys are among `allowed` (`DecodeError` `wrong_type` / `unknown_field`)."""
    if type(doc) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, f"the body must be a JSON object: {what}", "")
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise ar.DecodeError(ar.Code.UNKNOWN_FIELD, f"unknown field {unknown[0][:40]!r} (expected {what})",
                             _pointer(unknown[0]))
    return doc


def read_action_body(doc: Any) -> ar.Message:
    """The action of a request body, the seq its sender saw and its request id.

    The body is an `action` document, or `{"notation": "0f12", "seq": 5, "request_id": ...}`.
    Raises `DecodeError` (400) for anything else.
    """
    if type(doc) is dict and "notation" in doc:
        _only(doc, frozenset({"notation", "seq", "request_id"}), '{"notation": ..., "seq": ...}')
        text = doc["notation"]
        if type(text) is not str:
            raise ar.DecodeError(ar.Code.WRONG_TYPE, "notation must be a string such as '0f12'", "/notation")
        try:
            action = ar.parse_notation(text)
        except ar.DecodeError as error:
            raise ar.DecodeError(error.code, error.message, "/notation") from None
        seq = doc.get("seq")
        message = ar.read_message(action, seq=seq)
        request_id = doc.get("request_id")
        return ar.Message(message.action, message.seq,
                          None if request_id is None else ar.check_request_id(request_id))
    if type(doc) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, 'the body must be an action document or {"notation", '
                                                 '"seq"}, a JSON object', "")
    return ar.read_message(doc, notation=False)


# -- creating a game ----------------------------------------------------------------------

_CREATE_FIELDS: Final = frozenset({"players", "variant", "seed", "bots"})


class GameRequest(NamedTuple):
    """What a `POST /games` body asks for (the player count is checked against the variant's)."""

    players: int
    variant: ar.Variant
    seed: int | None
    bots: tuple[str | None, ...]
    """Per seat: the name of the built-in bot that plays it, or None for a person (a token)."""


def read_game_request(doc: Any) -> GameRequest:
    """The players, variant, seed and bots of a `POST /games` body (`DecodeError`/`ConfigError`).

    The player count is checked (by the rules, through `Record.start`) before anything is built
    for each seat: a body asking for a hundred million players allocates nothing.
    """
    _only(doc, _CREATE_FIELDS, '{"players", "variant", "seed", "bots"}')
    if "players" not in doc:
        raise ar.DecodeError(ar.Code.MISSING_FIELD, "missing field 'players'", "/players")
    players = doc["players"]
    if type(players) is not int:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "players must be an integer", "/players")
    seed = doc.get("seed")
    if seed is not None and type(seed) is not int:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "seed must be an integer from 0 to 2**256 - 1", "/seed")
    variant = _variant(doc.get("variant", "standard"))
    try:  # the rules' player-count check (rule 1.3), before one entry per seat is made
        ar.Record.start(players, variant, 0)
    except ar.AbyssError as error:
        raise ar.DecodeError(error.code, error.message, "/players", error.rule) from None
    return GameRequest(players, variant, seed, _bots(doc.get("bots"), players))


def _bots(value: Any, players: int) -> tuple[str | None, ...]:
    """The `bots` field: absent, or one entry per seat, a built-in bot's name or null."""
    if value is None:
        return (None,) * players
    if type(value) is not list:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "bots must be a list with one entry per seat: a bot's name "
                             f"({', '.join(ar.BOTS)}) or null for a person", "/bots")
    if len(value) != players:
        raise ar.DecodeError(ar.Code.BAD_VALUE, f"bots has {len(value)} entries for {players} players",
                             "/bots")
    for seat, name in enumerate(value):
        if name is not None and (type(name) is not str or name not in ar.BOTS):
            raise ar.DecodeError(ar.Code.BAD_VALUE, f"no built-in bot {str(name)[:40]!r}: choose "
                                 f"{', '.join(ar.BOTS)} or null", f"/bots/{seat}")
    if all(value):
        raise ar.DecodeError(ar.Code.BAD_VALUE, "every seat is a bot: leave at least one seat to a person",
                             "/bots")
    return tuple(value)


def _variant(value: Any) -> ar.Variant:
    """The `variant` field: a preset's name or a `variant` document (`DecodeError` otherwise)."""
    if isinstance(value, str):
        presets = ar.Variant.presets()
        if value not in presets:
            raise ar.DecodeError(ar.Code.BAD_VALUE, f"no preset {value[:40]!r}: choose "
                                                    f"{', '.join(presets)} or send a variant document",
                                 "/variant")
        return presets[value]
    if type(value) is not dict:
        raise ar.DecodeError(ar.Code.WRONG_TYPE, "variant must be a preset's name or a variant document",
                             "/variant")
    try:
        return ar.variant_from_dict(value)
    except ar.DecodeError as error:
        raise ar.DecodeError(error.code, error.message, "/variant" + error.path, error.rule) from None
