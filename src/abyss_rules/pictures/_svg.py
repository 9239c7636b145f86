"""Pictures of the table: SVG drawings of a view, a state or a finished round.

`to_svg` draws what a seat or a spectator sees: every grid (face-down cards as
card backs, swallowed columns as gaps), the draw pile's size, the discard pile's
top card and size, a drawn card, whose turn it is, the closer, the totals and the
last round's scores. A `State` is drawn through its spectator's `view`, so a
picture holds public information only (rule 8.3) -- unless `reveal=True` asks for
the face-down values too (a server's own debugging), which the picture then says
in a banner.

The pictures are self-contained SVG 1.1: no external font, image, style sheet or
script, and no `id`, so that many of them can sit in one HTML page. Card values
are always written as numbers; the face colours only repeat their band, and so do
marks that need no colour (the corner pips and the border's weight), with fills
whose lightness steps from band to band, so that the bands read apart in
greyscale and for colour-blind readers. Every card has a `<title>` that screen
readers and tooltips use. `legend=True` draws a legend under the grids.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.pictures import to_svg
    >>> state = ar.apply(ar.new_game(players=2, seed=3), ar.Flip(0, 1, 2))
    >>> picture = to_svg(state)
    >>> picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    >>> '<title>Abyss, round 1: opening, seats 0 and 1 to flip</title>' in picture
    True
    >>> to_svg(ar.view(state, 1)) == to_svg(state)   # the seat's view marks "you"
    False
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from typing import Any, Final

import attrs

from .. import _event_types as ev
from .._grid import Grid
from ..actions import ACTION_TYPES, Action, Draw
from ..errors import PictureError
from ..state import Phase, RoundResult, State
from ..views import View, view
from ._words import action_words, caption_words, seats_text, space_words

__all__ = ["BANDS", "HIGHLIGHT", "Band", "PictureError", "action_words", "band", "to_svg"]


# -- the layout (pixels of the picture's own coordinates) ------------------------------------------

CARD_W: Final = 44
CARD_H: Final = 60
GAP: Final = 12
LABEL: Final = 20
"""Room for the row and column numbers around a grid (and for a ring around a card)."""
PAD: Final = 10
HEADER: Final = 54
"""A seat panel's three lines of text above its grid."""
MARGIN: Final = 12
TITLE_H: Final = 30
BANNER_H: Final = 28
PILES_H: Final = CARD_H + 34
MAX_ROW_WIDTH: Final = 1000
"""Seat panels go side by side up to this width (and at most four in a row)."""

FONT: Final = "DejaVu Sans, Verdana, Arial, sans-serif"
INK: Final = "#1a1a1a"
MUTED: Final = "#555555"
BACK: Final = "#2f3d73"
BACK_LINE: Final = "#9aa8d8"
HIGHLIGHT: Final = "#7b2a8c"
"""The ring of a highlighted space or the last action: a purple no card face or border uses."""
RING_OFFSET: Final = 4
"""How far the ring stands off the card (the labels and the gap between cards leave room)."""
REVEAL: Final = "#b00020"


@attrs.frozen
class Band:
    """How the cards of one value band are drawn: the value is always written on the card;
    the band is told three more ways, only one of them by hue."""

    top: int | None
    """The band's highest value (`None`: no limit)."""
    name: str
    """The band in words, e.g. "1 to 4"."""
    fill: str
    """The face colour: a tint of the Okabe-Ito palette whose lightness (CIE L*) steps by about
    10 from band to band (100 for 0, 90 below 0, 81, 72, 62 going up), so that greyscale keeps
    the bands apart."""
    stroke: str
    """The border's colour (also the pips')."""
    width: float
    """The border's weight: heavier for higher bands."""
    pips: int
    """Dots in the top-left corner: 1, 2, 3 for the bands above 0; a hollow ring (`-1`) below 0."""


BANDS: Final = (
    Band(-1, "below 0", "#c8e7f8", "#0072b2", 2.0, -1),   # sky blue
    Band(0, "0", "#ffffff", "#777777", 1.5, 0),           # white
    Band(4, "1 to 4", "#94d6c5", "#007a5a", 2.0, 1),      # bluish green
    Band(8, "5 to 8", "#e7a50f", "#8a5a00", 2.5, 2),      # orange
    Band(None, "9 and up", "#dd7d32", "#8f3500", 3.5, 3),  # vermilion
)
"""The value bands of card faces, lowest first (checked for colour-blind and greyscale readers by
the tests, see the Pictures page)."""


def band(value: int) -> Band:
    """The band of a face-up card's value.

    Examples:
        >>> band(-2).name, band(0).name, band(7).name, band(12).pips
        ('below 0', '0', '5 to 8', 3)
    """
    for b in BANDS:
        if b.top is None or value <= b.top:
            return b
    raise AssertionError("the last band has no limit")


# -- the scene: what a picture shows, built from public facts only ---------------------------------

@attrs.frozen
class _Cell:
    kind: str
    """"up" (face up), "down" (face down), "secret" (face down, revealed), "gone" (swallowed)."""
    value: int | None = None


@attrs.frozen
class _Seat:
    seat: int
    cells: tuple[_Cell, ...]
    rows: int
    cols: int
    name: str
    lines: tuple[str, str]
    acting: bool


@attrs.frozen
class _Scene:
    heading: str
    """The line at the top, e.g. "Round 2: seat 1 to play"."""
    notes: tuple[str, ...]
    """Sentences under it."""
    seats: tuple[_Seat, ...]
    piles: tuple[tuple[str, str, int | None], ...]
    """(label, sub-label, top value or None for a card back) per pile shown."""
    revealed: bool


def _cells(grid: Grid, secrets: Grid | None) -> tuple[_Cell, ...]:
    out = []
    for s, (card, up, gone) in enumerate(zip(grid.cards, grid.face_up, grid.swallowed, strict=True)):
        if gone:
            out.append(_Cell("gone"))
        elif up:
            out.append(_Cell("up", card))
        elif secrets is not None:
            out.append(_Cell("secret", secrets.cards[s]))
        else:
            out.append(_Cell("down"))
    return tuple(out)


def _view_scene(v: View, secrets: tuple[Grid, ...] | None) -> _Scene:
    """The scene of view `v`; `secrets` (the state's own grids) only with `reveal=True`."""
    notes: list[str] = []
    if v.phase is Phase.OPENING:
        heading = f"Round {v.round}: opening, {seats_text(v.owing_flips)} to flip"
    elif v.phase is Phase.GAME_OVER:
        rounds = len(v.history)
        heading = f"Game over after {rounds} round{'s' if rounds != 1 else ''}"
        best = v.totals[v.winners[0]] if v.winners else 0
        notes.append(f"{'Winner' if len(v.winners) == 1 else 'Shared win'}: {seats_text(v.winners)} "
                     f"with a total of {best}.")
    elif v.phase is Phase.DRAWN:
        heading = f"Round {v.round}: seat {v.turn} holds a drawn {v.drawn}"
    else:
        heading = f"Round {v.round}: seat {v.turn} to play"
    if v.closer is not None and v.phase is not Phase.GAME_OVER:
        notes.append(f"Seat {v.closer} closed the round: the other seats play one last turn each.")
    last = v.history[-1] if v.history else None
    seats = []
    for p, grid in enumerate(v.grids):
        tags = []
        if p == v.viewer:
            tags.append("you")
        if p in v.winners:
            tags.append("\u2605 winner")
        if p == v.closer:
            tags.append("closer")
        acting = p in v.to_act
        if acting:
            tags.append("\u25b6 to flip" if v.phase is Phase.OPENING else "\u25b6 to play")
        score = f"total {v.totals[p]}"
        if last is not None:
            score += f" \u00b7 round {last.round}: {_round_score(last, p)}"
        name = f"Seat {p}" + (f" ({', '.join(tags)})" if tags else "")
        seats.append(_Seat(p, _cells(grid, None if secrets is None else secrets[p]), grid.rows, grid.cols,
                           name, (score, _face_up_line(grid)), acting))
    piles: list[tuple[str, str, int | None]] = [
        ("draw pile", _cards(v.draw_pile_size), None),
        ("discard pile", _cards(len(v.discard_pile)), v.top_discard),
    ]
    if v.drawn is not None:
        piles.append(("drawn card", f"held by seat {v.turn}", v.drawn))
    return _Scene(heading, tuple(notes), tuple(seats), tuple(piles), secrets is not None)


def _cards(count: int) -> str:
    return f"{count} card{'s' if count != 1 else ''}"


def _round_score(result: RoundResult, p: int) -> str:
    raw, score = result.raw_scores[p], result.scores[p]
    return f"{raw} \u00d7 {score // raw} = {score}" if score != raw and raw else f"{score}"


def _face_up_line(grid: Grid) -> str:
    shown = sum(c for c, up in zip(grid.cards, grid.face_up, strict=True) if up and c is not None)
    return f"face-up sum {shown} \u00b7 {len(grid.face_down)} face down"


def _result_scene(result: RoundResult) -> _Scene:
    """The scene of a finished round: every grid after the final reveal, with the scores (rule 6.6)."""
    if result.capped:
        note = "The stalling cap ended the round: nobody closed it."
    elif result.penalized:
        note = (f"Seat {result.closer} closed the round and was not strictly lowest: "
                "its round score is multiplied.")
    else:
        note = f"Seat {result.closer} closed the round; no penalty."
    seats = []
    for p, grid in enumerate(result.grids):
        name = f"Seat {p}" + (" (closer)" if p == result.closer else "")
        lines = (f"round score {_round_score(result, p)}", f"total {result.totals[p]}")
        seats.append(_Seat(p, _cells(grid, None), grid.rows, grid.cols, name, lines, False))
    return _Scene(f"End of round {result.round}: the final reveal", (note,), tuple(seats), (), False)


# -- what to highlight --------------------------------------------------------------------------------
# (`action_words`, the words of an action, lives in `abyss_rules.pictures._words` and is re-exported here.)

def _spaces(scene: _Scene, highlight: Any, last_action: Any) -> tuple[set[tuple[int, int]], bool]:
    """The `(seat, space)` pairs to ring, and whether to ring the drawn card / draw pile."""
    if highlight is None:
        wanted: list[Any] = []
    elif isinstance(highlight, tuple) and len(highlight) == 3 and all(type(x) is int for x in highlight):
        wanted = [highlight]
    elif isinstance(highlight, (str, bytes)) or not isinstance(highlight, Iterable):
        raise PictureError(f"highlight must be a (seat, row, col) tuple or a list of them, got {highlight!r}")
    else:
        wanted = list(highlight)
    pile = False
    if last_action is not None:
        if not isinstance(last_action, ACTION_TYPES):
            raise PictureError(f"last_action must be an action (Flip, Draw, ...), got {last_action!r}")
        if not 0 <= last_action.player < len(scene.seats):
            raise PictureError(f"last_action is by seat {last_action.player}, not a seat of this game")
        if isinstance(last_action, Draw):
            pile = True
        else:
            wanted.append((last_action.player, last_action.row, last_action.col))
    out = set()
    for item in wanted:
        if not (isinstance(item, tuple) and len(item) == 3 and all(type(x) is int for x in item)):
            raise PictureError(f"a highlighted space is a (seat, row, col) tuple of ints, got {item!r}")
        seat, row, col = item
        if not 0 <= seat < len(scene.seats):
            raise PictureError(f"cannot highlight a space of seat {seat}: the game has "
                               f"{len(scene.seats)} seats")
        grid = scene.seats[seat]
        if not (0 <= row < grid.rows and 0 <= col < grid.cols):
            raise PictureError(f"cannot highlight ({row},{col}): the grids have {grid.rows} rows and "
                               f"{grid.cols} columns")
        out.add((seat, row * grid.cols + col))
    return out, pile


# -- drawing ------------------------------------------------------------------------------------------

def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _text(x: int, y: int, text: str, size: int = 13, *, weight: str = "", anchor: str = "start",
          fill: str = INK, style: str = "") -> str:
    extra = f' font-weight="{weight}"' if weight else ""
    extra += f' font-style="{style}"' if style else ""
    extra += f' text-anchor="{anchor}"' if anchor != "start" else ""
    extra += f' fill="{fill}"' if fill != INK else ""
    return f'<text x="{x}" y="{y}" font-size="{size}"{extra}>{_esc(text)}</text>'


def _value_size(value: int) -> int:
    return min(22, 64 // max(1, len(str(value))))


def _shown(value: int) -> str:
    """A card value as printed on a face: a true minus sign, wider and easier to read than "-"."""
    return str(value).replace("-", "\u2212")


def _card(x: int, y: int, cell: _Cell, label: str, ring: bool) -> str:
    """One space: a face, a card back, a revealed secret or the gap of a swallowed card."""
    cx, cy = x + CARD_W // 2, y + CARD_H // 2
    parts = [f"<g><title>{_esc(label)}</title>"]
    if cell.kind == "gone":
        parts.append(f'<rect x="{x + 2}" y="{y + 2}" width="{CARD_W - 4}" height="{CARD_H - 4}" rx="5" '
                     f'fill="none" stroke="#9a9a9a" stroke-width="1.5" stroke-dasharray="4 3"/>')
    elif cell.kind == "up":
        assert cell.value is not None
        b = band(cell.value)
        inset = b.width / 2
        parts.append(f'<rect x="{x + inset:g}" y="{y + inset:g}" width="{CARD_W - b.width:g}" '
                     f'height="{CARD_H - b.width:g}" rx="5" fill="{b.fill}" stroke="{b.stroke}" '
                     f'stroke-width="{b.width:g}"/>')
        parts.append(_pips(x, y, b))
        parts.append(_text(cx, cy + 10, _shown(cell.value), _value_size(cell.value), weight="bold",
                           anchor="middle"))
    else:
        parts.append(f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" fill="{BACK}" '
                     f'stroke="#1b2447" stroke-width="1.5"/>')
        parts.append(f'<rect x="{x + 5}" y="{y + 5}" width="{CARD_W - 10}" height="{CARD_H - 10}" rx="3" '
                     f'fill="none" stroke="{BACK_LINE}" stroke-width="1"/>')
        if cell.kind == "secret":
            assert cell.value is not None
            parts.append(_text(cx, cy + 8, _shown(cell.value), _value_size(cell.value), weight="bold",
                               anchor="middle", fill="#ffd7dc", style="italic"))
        else:
            parts.append(f'<path d="M{cx} {cy - 12}L{cx + 9} {cy}L{cx} {cy + 12}L{cx - 9} {cy}Z" '
                         f'fill="none" stroke="{BACK_LINE}" stroke-width="1.5"/>')
    if ring:
        o = RING_OFFSET
        parts.append(f'<rect x="{x - o}" y="{y - o}" width="{CARD_W + 2 * o}" height="{CARD_H + 2 * o}" '
                     f'rx="9" fill="none" stroke="{HIGHLIGHT}" stroke-width="3"/>')
    parts.append("</g>")
    return "".join(parts)


def _pips(x: int, y: int, b: Band) -> str:
    """The band's mark in the card's top-left corner: dots, or a hollow ring below 0."""
    if b.pips < 0:
        return f'<circle cx="{x + 9}" cy="{y + 9}" r="3" fill="none" stroke="{b.stroke}" stroke-width="1.5"/>'
    return "".join(f'<circle cx="{x + 8 + 7 * i}" cy="{y + 9}" r="2.5" fill="{b.stroke}"/>'
                   for i in range(b.pips))


def _cell_label(seat: int, row: int, col: int, cell: _Cell) -> str:
    return space_words(seat, row, col, cell.kind, cell.value)


def _panel_size(seat: _Seat) -> tuple[int, int]:
    width = 2 * PAD + LABEL + seat.cols * CARD_W + (seat.cols - 1) * GAP
    height = 2 * PAD + HEADER + LABEL + seat.rows * CARD_H + (seat.rows - 1) * GAP
    return max(width, 200), height


def _panel(x: int, y: int, seat: _Seat, rings: set[tuple[int, int]]) -> str:
    width, height = _panel_size(seat)
    border = (f'stroke="{INK}" stroke-width="3"' if seat.acting else 'stroke="#b8b8b8" stroke-width="1"')
    parts = [f'<g><rect x="{x}" y="{y}" width="{width}" height="{height}" rx="8" fill="#f7f7f4" {border}/>',
             _text(x + PAD, y + PAD + 13, seat.name, 14, weight="bold"),
             _text(x + PAD, y + PAD + 31, seat.lines[0], 11, fill=MUTED),
             _text(x + PAD, y + PAD + 46, seat.lines[1], 11, fill=MUTED)]
    gx, gy = x + PAD + LABEL, y + PAD + HEADER + LABEL
    # The numbers stand clear of a ring (RING_OFFSET and its stroke) around any card.
    for c in range(seat.cols):
        parts.append(_text(gx + c * (CARD_W + GAP) + CARD_W // 2, gy - 9, str(c), 10, anchor="middle",
                           fill=MUTED))
    for r in range(seat.rows):
        parts.append(_text(gx - 9, gy + r * (CARD_H + GAP) + CARD_H // 2 + 4, str(r), 10, anchor="end",
                           fill=MUTED))
        for c in range(seat.cols):
            s = r * seat.cols + c
            cell = seat.cells[s]
            parts.append(_card(gx + c * (CARD_W + GAP), gy + r * (CARD_H + GAP), cell,
                               _cell_label(seat.seat, r, c, cell), (seat.seat, s) in rings))
    parts.append("</g>")
    return "".join(parts)


_LEGEND_SCALE: Final = 0.6
LEGEND_ROW: Final = 50
"""The height of one row of the legend."""


def _legend_items() -> list[tuple[_Cell, str, bool]]:
    """What the legend shows: a card back, a face of every value band, a swallowed space and a ring."""
    samples = {"below 0": -2, "0": 0, "1 to 4": 3, "5 to 8": 7, "9 and up": 10}
    items = [(_Cell("down"), "face down", False)]
    items += [(_Cell("up", samples[b.name]), b.name, False) for b in BANDS]
    items += [(_Cell("gone"), "swallowed", False), (_Cell("down"), "last action", True)]
    return items


def _legend(x0: int, y0: int, inner: int) -> tuple[list[str], int]:
    """The legend's drawing, from `(x0, y0)` within `inner` pixels, and its height."""
    body = [_text(x0, y0 + 14, "Legend", 12, weight="bold")]
    x, y = x0 + 58, y0
    card_w = round(CARD_W * _LEGEND_SCALE)
    for cell, label, ring in _legend_items():
        w = card_w + 8 + 6 * len(label) + 12
        if x + w > x0 + inner and x > x0 + 58:
            x, y = x0 + 58, y + LEGEND_ROW
        title = f"legend: {label}"
        body.append(f'<g transform="translate({x + 3} {y + 4}) scale({_LEGEND_SCALE})">'
                    f"{_card(0, 0, cell, title, ring)}</g>")
        body.append(_text(x + card_w + 10, y + 24, label, 11, fill=MUTED))
        x += w
    return body, y + LEGEND_ROW - y0


def _render(scene: _Scene, rings: set[tuple[int, int]], pile_ring: bool, caption: str | None,
            width: int | None, legend: bool) -> str:
    panels = [_panel_size(s) for s in scene.seats]
    pw = max(w for w, _ in panels)
    ph = max(h for _, h in panels)
    per_row = max(1, min(len(scene.seats), 4, MAX_ROW_WIDTH // (pw + MARGIN)))
    rows = -(-len(scene.seats) // per_row)
    inner = max(per_row * pw + (per_row - 1) * MARGIN, 480)
    total_w = inner + 2 * MARGIN
    y = MARGIN
    body: list[str] = []
    if scene.revealed:
        body.append(f'<rect x="{MARGIN}" y="{y}" width="{inner}" height="{BANNER_H - 4}" rx="4" '
                    f'fill="{REVEAL}"/>')
        body.append(_text(MARGIN + inner // 2, y + 17, "REVEALED: face-down values shown (italic), "
                          "not for players", 13, weight="bold", anchor="middle", fill="#ffffff"))
        y += BANNER_H
    body.append(_text(MARGIN, y + 18, scene.heading, 15, weight="bold"))
    y += TITLE_H
    notes = ([caption] if caption else []) + list(scene.notes)
    for line in (wrapped for note in notes for wrapped in textwrap.wrap(note, inner * 10 // 70)):
        body.append(_text(MARGIN, y + 2, line, 12, fill=MUTED))
        y += 17
    if notes:
        y += 6
    if scene.piles:
        x = MARGIN
        for label, sub, value in scene.piles:
            # A draw rings the drawn card, or the draw pile where no card is held.
            ring = pile_ring and label == ("drawn card" if len(scene.piles) > 2 else "draw pile")
            if label == "discard pile" and value is None:
                cell = _Cell("gone")
                title = "discard pile: empty"
            else:
                cell = _Cell("down") if value is None else _Cell("up", value)
                title = f"{label}: {sub}" + ("" if value is None else f", top card {value}"
                                              if label == "discard pile" else f", {value}")
            body.append(_card(x, y, cell, title, ring))
            body.append(_text(x + CARD_W + 12, y + 24, label, 12, weight="bold"))
            body.append(_text(x + CARD_W + 12, y + 41, sub, 12, fill=MUTED))
            x += CARD_W + 130
        y += PILES_H
    for i, seat in enumerate(scene.seats):
        px = MARGIN + (i % per_row) * (pw + MARGIN)
        py = y + (i // per_row) * (ph + MARGIN)
        body.append(_panel(px, py, seat, rings))
    total_h = y + rows * (ph + MARGIN)
    if legend:
        drawn, height = _legend(MARGIN, total_h, inner)
        body += drawn
        total_h += height + MARGIN
    size = ""
    if width is not None:
        size = f' width="{width}" height="{(total_h * width + total_w // 2) // total_w}"'
    else:
        size = f' width="{total_w}" height="{total_h}"'
    desc = " ".join([scene.heading + ".", *notes]) + " " + "; ".join(
        f"{s.name}: {s.lines[0]}, {s.lines[1]}" for s in scene.seats) + "."
    heading = scene.heading
    title = "Abyss, " + heading[0].lower() + heading[1:] if heading.startswith("Round") else \
        "Abyss: " + heading[0].lower() + heading[1:]
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {total_w} {total_h}"{size} '
            f'role="img" font-family="{FONT}" fill="{INK}">'
            f"<title>{_esc(title)}</title><desc>{_esc(desc)}</desc>"
            f'<rect width="{total_w}" height="{total_h}" fill="#ffffff"/>')
    return head + "".join(body) + "</svg>"


def to_svg(
    obj: View | State | RoundResult,
    *,
    reveal: bool = False,
    highlight: tuple[int, int, int] | Iterable[tuple[int, int, int]] | None = None,
    last_action: Action | None = None,
    events: Sequence[ev.Event] | None = None,
    caption: str | None = None,
    names: Sequence[str] | None = None,
    legend: bool = False,
    width: int | None = None,
) -> str:
    """An SVG picture of a view, a state (public information only) or a finished round.

    Args:
        obj: A `View` (drawn as that seat sees it: its seat is marked "you"), a `State`
            (drawn as a spectator's view of it), or a `RoundResult` from `history` (every
            grid after the final reveal, with the round's scores).
        reveal: With a `State` only: also draw the face-down values (in italics on the card
            backs) under a banner saying so. For a server's own debugging, never for players.
        highlight: A space `(seat, row, col)`, or several, to ring.
        last_action: An action to show: its space is ringed (a draw rings the drawn card)
            and it is written in words under the title.
        events: What the last action caused (from `apply_with_events`): the caption then says what
            happened, e.g. "seat 2 took the 5 from the discard pile and placed it on (2,1),
            replacing a face-down 9; column 1 swallowed: three 5s" (`caption_words`; events are
            public facts).
        caption: A line of text under the title (instead of the words of the events or the
            last action).
        names: A name per seat, shown on its panel ("Seat 1 · counting").
        legend: Draw a legend under the grids: a card back, a face of every value band, a
            swallowed space and the ring of the last action.
        width: The picture's width in pixels (its height follows); by default its natural size.

    Returns:
        The SVG document as text: the same bytes for the same public facts and arguments.

    Raises:
        PictureError: `obj` is none of those, `reveal` with something but a `State`, a
            highlighted space or the last action's seat outside the game, `events` that are not
            what an action caused, not one name per seat, or a bad `width`
            (code `invalid_picture`).

    Examples:
        >>> import abyss_rules as ar
        >>> from abyss_rules.pictures import to_svg
        >>> state = ar.new_game(players=2, seed=3)
        >>> svg = to_svg(state, highlight=(0, 1, 2), width=400)
        >>> svg.count("<title>seat 0, row 1, column 2: face down</title>")
        1
        >>> "REVEALED" in to_svg(state, reveal=True), "REVEALED" in svg
        (True, False)
    """
    if type(reveal) is not bool:
        raise PictureError(f"reveal must be True or False, got {reveal!r}")
    if width is not None and (type(width) is not int or not 16 <= width <= 100_000):
        raise PictureError(f"width must be an int from 16 to 100000 pixels, or None, got {width!r}")
    if caption is not None and not isinstance(caption, str):
        raise PictureError(f"caption must be a str or None, got {caption!r}")
    if type(legend) is not bool:
        raise PictureError(f"legend must be True or False, got {legend!r}")
    if type(obj) is State:
        secrets = obj.grids() if reveal else None
        scene = _view_scene(view(obj), secrets)  # the public view: nothing secret unless revealed
    elif reveal:
        raise PictureError(f"a {type(obj).__name__} holds no face-down values to reveal: pass the State "
                           "with reveal=True")
    elif type(obj) is View:
        scene = _view_scene(obj, None)
    elif type(obj) is RoundResult:
        scene = _result_scene(obj)
    else:
        raise PictureError(f"to_svg draws a View, a State or a RoundResult, not {type(obj).__name__}")
    if names is not None:
        scene = _named(scene, names)
    rings, pile = _spaces(scene, highlight, last_action)
    if caption is None and events is not None:
        caption = _caption_of(events)
    if caption is None and last_action is not None:
        caption = "Last action: " + action_words(last_action)
    return _render(scene, rings, pile, caption, width, legend)


def _caption_of(events: object) -> str:
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence) or not all(
            isinstance(event, ev.EVENT_TYPES) for event in events):
        got = repr(events)[:200]
        raise PictureError(f"events must be a sequence of events (from apply_with_events), got {got}")
    try:
        return caption_words(events)
    except ValueError:
        raise PictureError("these events moved no card: they are not what an action caused") from None


def _named(scene: _Scene, names: object) -> _Scene:
    """`scene` with a name on every seat's panel."""
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence) or len(names) != len(scene.seats) \
            or not all(isinstance(name, str) for name in names):
        raise PictureError(f"names must be one str per seat ({len(scene.seats)}), got {repr(names)[:200]}")
    seats = []
    for seat, name in zip(scene.seats, names, strict=True):
        prefix = f"Seat {seat.seat}"
        seats.append(attrs.evolve(seat, name=f"{prefix} \u00b7 {name}{seat.name[len(prefix):]}"))
    return attrs.evolve(scene, seats=tuple(seats))
