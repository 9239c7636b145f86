"""What a client knows of the table, kept up to date from `events` documents alone.

A client that receives a server's `events` documents (see `events_to_dict`) can follow
the game card by card -- to animate each move, or to keep its screen right between two
views -- without the rules and without the state. `PublicTable.from_view` starts from a
view; `apply_events` applies one `events` document (a parsed mapping, its JSON text, or
the event objects) and returns the next table. The table holds what the events say: every
grid's face-up cards, the discard pile, the size of the draw pile, the drawn card, the
closer, the totals, the round, the winners and the `seq`. Whose turn it is and the legal
actions come with the next view the server sends (they need the rules).

An event that does not fit the table (a card revealed twice, a discard pile that does not
match, a document for another `seq`) is refused with a `DecodeError` naming the event:
the client should ask the server for a fresh view.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.public_table import PublicTable, apply_events
    >>> state = ar.new_game(players=2, seed=3)
    >>> table = PublicTable.from_view(ar.view(state, 1))
    >>> after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    >>> table = apply_events(table, ar.dumps_events(events, action=ar.Flip(0, 1, 2), seq=after.seq))
    >>> table.seq, table.grids[0][6]
    (1, (5, True, False))
    >>> table.agrees_with(ar.view(after, 1))
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from ._event_types import EVENT_TYPES, Event
from .codec._action import read_action
from .codec._strict import parse, read_document, read_int, read_list, read_str, wrong_type
from .errors import ArgumentError, Code, DecodeError
from .views import View

__all__ = ["PublicTable", "Space", "apply_events"]

Space = tuple[int | None, bool, bool]
"""One space as the table knows it: (the card if face up, face up, swallowed)."""

_EVENTS_FIELDS: Final = frozenset({"action", "events", "seq"})
_HIDDEN: Final[Space] = (None, False, False)
_GONE: Final[Space] = (None, False, True)


@attrs.frozen(slots=True)
class PublicTable:
    """The public facts a client follows from events (see the module docs); immutable."""

    rows: int
    cols: int
    grids: tuple[tuple[Space, ...], ...]
    """Per seat, per space (row-major): (card if face up, face up, swallowed)."""
    discard_pile: tuple[int, ...]
    """The discard pile, top first."""
    draw_pile_size: int
    drawn: int | None
    closer: int | None
    totals: tuple[int, ...]
    round: int
    winners: tuple[int, ...]
    """The winners once the game is over, else `()`."""
    over: bool
    seq: int
    """The `seq` of the state the table shows."""

    @classmethod
    def from_view(cls, view: View) -> PublicTable:
        """The table a view shows (any seat's or a spectator's)."""
        if type(view) is not View:
            raise ArgumentError(f"expected a View, got {type(view).__name__}")
        grids = tuple(tuple((g.cards[s] if g.face_up[s] else None, g.face_up[s], g.swallowed[s])
                            for s in range(len(g.cards))) for g in view.grids)
        return cls(view.variant.rows, view.variant.cols, grids, view.discard_pile, view.draw_pile_size,
                   view.drawn, view.closer, view.totals, view.round, view.winners, view.is_over, view.seq)

    def agrees_with(self, view: View) -> bool:
        """Whether `view` shows the same public facts as this table (the same `seq` included)."""
        other = PublicTable.from_view(view)
        if self.over and other.over:  # the game's last grids are in the view's history
            return (self.totals, self.winners, self.seq) == (other.totals, other.winners, other.seq)
        return self == other


def apply_events(table: PublicTable,
                 events: Mapping[str, Any] | str | bytes | Sequence[Event]) -> PublicTable:
    """The table after one `events` document (or the event objects of one action).

    A document must be for the state after the table's (`seq` one more); event objects
    (from `apply_with_events`) advance `seq` by one.

    Raises:
        DecodeError: a malformed document (its header and fields are checked as every loader
            checks them; JSON text that is not an object is `wrong_type`), or an event that does
            not fit the table.
        ArgumentError: `table` is not a `PublicTable`, or `events` is neither a document (a
            mapping or its text) nor a list or tuple of event objects.
    """
    if type(table) is not PublicTable:
        raise ArgumentError(f"expected a PublicTable, got {type(table).__name__}")
    document: Any = events
    if isinstance(events, (str, bytes, bytearray)):
        document = parse(bytes(events) if isinstance(events, bytearray) else events)
        if type(document) is not dict:
            raise wrong_type(document, "an object (an events document)", "")
    if isinstance(document, Mapping):
        d = read_document(dict(document), "events", _EVENTS_FIELDS)
        read_action(d["action"], "/action")
        seq = read_int(d["seq"], "/seq", 0)
        if seq != table.seq + 1:
            raise DecodeError(Code.BAD_VALUE, f"the events lead to seq {seq}; the table is at seq "
                                              f"{table.seq}", "/seq")
        items = read_list(d["events"], "/events")
    elif isinstance(document, (list, tuple)) and all(type(event) in EVENT_TYPES for event in document):
        items, seq = [event.to_dict() for event in document], table.seq + 1
    else:
        raise ArgumentError(f"expected an events document or event objects, got {type(document).__name__}")
    model = _Model(table)
    for i, item in enumerate(items):
        try:
            model.apply(item)
        except (KeyError, IndexError, TypeError, ValueError, DecodeError) as error:
            detail = error.message if isinstance(error, DecodeError) else "it does not fit the table"
            raise DecodeError(Code.BAD_VALUE, f"event {i} cannot be applied: {detail}",
                              f"/events/{i}") from None
    return model.freeze(seq)


class _Model:
    """The table while one document's events are applied (lists: thrown away by `freeze`)."""

    def __init__(self, t: PublicTable) -> None:
        self.t = t
        self.grids = [list(grid) for grid in t.grids]
        self.discard = list(t.discard_pile)
        self.draw_size, self.drawn, self.closer = t.draw_pile_size, t.drawn, t.closer
        self.totals, self.round, self.winners, self.over = t.totals, t.round, t.winners, t.over
        self.replaced_was_face_up = False

    def freeze(self, seq: int) -> PublicTable:
        return PublicTable(self.t.rows, self.t.cols, tuple(tuple(grid) for grid in self.grids),
                           tuple(self.discard), self.draw_size, self.drawn, self.closer, self.totals,
                           self.round, self.winners, self.over, seq)

    def _index(self, seat: Any, row: Any, col: Any) -> tuple[int, int]:
        seat, row, col = read_int(seat, "/seat"), read_int(row, "/row"), read_int(col, "/col")
        if not (0 <= seat < len(self.grids) and 0 <= row < self.t.rows and 0 <= col < self.t.cols):
            raise DecodeError(Code.BAD_VALUE, f"no space ({row}, {col}) of seat {seat}")
        return seat, row * self.t.cols + col

    @staticmethod
    def _fits(ok: bool, what: str) -> None:
        if not ok:
            raise DecodeError(Code.BAD_VALUE, what)

    def _reveal(self, seat: Any, row: Any, col: Any, value: Any) -> None:
        s, i = self._index(seat, row, col)
        self._fits(self.grids[s][i] == _HIDDEN, "the space is not face down")
        self.grids[s][i] = (read_int(value, "/value"), True, False)

    def apply(self, e: dict[str, Any]) -> None:
        kind = read_str(e["type"], "/type")
        if kind == "reshuffled":
            self.draw_size = read_int(e["draw_pile_size"], "/draw_pile_size", 0)
            self.discard = [read_int(e["top_discard"], "/top_discard")]
        elif kind == "card_drawn":
            self._fits(self.draw_size > 0 and self.drawn is None, "no card can be drawn")
            self.draw_size -= 1
            self.drawn = read_int(e["value"], "/value")
        elif kind == "card_placed":
            s, i = self._index(e["seat"], e["row"], e["col"])
            value = read_int(e["value"], "/value")
            self._fits(not self.grids[s][i][2], "the space is swallowed")
            if e["source"] == "discard":
                self._fits(bool(self.discard) and self.discard[0] == value, "the discard pile's top differs")
                self.discard.pop(0)
            else:
                self._fits(self.drawn == value, "the drawn card differs")
                self.drawn = None
            self.replaced_was_face_up = self.grids[s][i][1]
            self.grids[s][i] = (value, True, False)
        elif kind == "card_discarded":
            value = read_int(e["value"], "/value")
            if e["source"] == "drawn":
                self._fits(self.drawn == value, "the drawn card differs")
                self.drawn = None
            self.discard.insert(0, value)
        elif kind == "card_revealed":
            self._reveal(e["seat"], e["row"], e["col"], e["value"])
        elif kind == "column_swallowed":
            seat, col = read_int(e["seat"], "/seat"), read_int(e["col"], "/col")
            value = read_int(e["value"], "/value")
            for row in range(self.t.rows):
                s, i = self._index(seat, row, col)
                self._fits(self.grids[s][i] == (value, True, False), "the column does not hold that card")
                self.grids[s][i] = _GONE
            self.discard[:0] = [value] * self.t.rows
        elif kind == "round_closed":
            self.closer = read_int(e["closer"], "/closer")
        elif kind == "final_reveal":
            for seat, row, col, value in e["cards"]:
                self._reveal(seat, row, col, value)
        elif kind == "round_scored":
            self.totals = tuple(read_int(total, "/totals") for total in e["totals"])
        elif kind == "new_round":
            self.round = read_int(e["round"], "/round", 1)
            self.grids = [[_HIDDEN] * len(grid) for grid in self.grids]
            self.discard = [read_int(e["top_discard"], "/top_discard")]
            self.draw_size = read_int(e["draw_pile_size"], "/draw_pile_size", 0)
            self.closer = self.drawn = None
        elif kind == "game_over":
            self.over = True
            self.winners = tuple(read_int(seat, "/winners") for seat in e["winners"])
            self.totals = tuple(read_int(total, "/totals") for total in e["totals"])
        elif kind != "opening_done":
            raise DecodeError(Code.BAD_VALUE, f"unknown event type {kind[:40]!r}")
