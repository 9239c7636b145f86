"""Pictures (abyss_rules.pictures._svg): well-formed SVG, public facts only, golden pictures."""

from __future__ import annotations

import os
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from tests import colours
from tests.builders import open_round, play, stacked, tiny, with_other_secrets

import abyss_rules as ar
from abyss_rules.pictures import _svg as drawing
from abyss_rules.pictures import action_words, to_svg
from abyss_rules.pictures._words import a_card

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).resolve().parent / "golden" / "svg"


def _games() -> list[ar.State]:
    """The states of a few whole games: 2, 3 and 5 players, three variants."""
    states: list[ar.State] = []
    for n, (v, players) in enumerate([(ar.Variant.short(), 2), (tiny(max_rounds=2), 3),
                                      (ar.Variant.standard().replace(max_rounds=1), 5)]):
        rng = random.Random(n)
        state = ar.new_game(players, v, seed=200 + n)
        states.append(state)
        while not state.is_over:
            state = ar.apply(state, rng.choice(ar.legal_actions(state)))
            states.append(state)
    return states


STATES = _games()


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def test_every_picture_is_well_formed_svg_with_a_title() -> None:
    for state in STATES[::7]:
        pictures = [to_svg(state), to_svg(state, reveal=True)]
        pictures += [to_svg(ar.view(state, p)) for p in range(state.players)]
        pictures += [to_svg(result) for result in state.history]
        for svg in pictures:
            root = _parse(svg)
            assert root[0].tag == SVG + "title" and root[0].text and root[0].text.startswith("Abyss")
            assert root.get("role") == "img" and root.get("viewBox", "").startswith("0 0 ")
            # every card (or gap) is a group whose first child is its <title>
            groups = [g for g in root.iter(SVG + "g") if g[0].tag == SVG + "title"]
            spaces = sum(grid.rows * grid.cols for grid in ar.view(state).grids)
            assert len(groups) >= spaces


def test_pictures_are_self_contained() -> None:
    """No external font, image, style sheet, link or script, and no id (pictures share pages)."""
    for state in STATES[::11]:
        for svg in (to_svg(state), to_svg(state, reveal=True, highlight=(0, 0, 0))):
            assert not re.search(r"href|url\(|@import|<image|<script|<style|<foreignObject|\bid=", svg)
            assert re.findall(r"https?://[^\"]*", svg) == ["http://www.w3.org/2000/svg"]


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_states_that_differ_only_in_secrets_give_the_same_bytes() -> None:
    rng = random.Random(7)
    differed = 0
    for state in STATES[::3]:
        other = with_other_secrets(state, rng)
        assert other.dealer != state.dealer
        differed += other.cards != state.cards
        assert to_svg(other) == to_svg(state)
        assert other._repr_svg_() == state._repr_svg_()
        for viewer in (None, *range(state.players)):
            assert to_svg(ar.view(other, viewer)) == to_svg(ar.view(state, viewer))
            assert ar.view(other, viewer)._repr_svg_() == ar.view(state, viewer)._repr_svg_()
    assert differed > 10  # the twins did hide other face-down values


@pytest.mark.rule("8.1", "8.2")
def test_a_picture_shows_every_public_fact_and_no_secret() -> None:
    for state in STATES[::5]:
        svg = to_svg(state)
        titles = re.findall(r"<title>seat (\d+), row (\d+), column (\d+): ([^<]*)</title>", svg)
        assert len(titles) == state.players * state.variant.cells
        for seat, row, col, text in titles:
            grid = state.grid(int(seat))
            s = int(row) * grid.cols + int(col)
            if grid.swallowed[s]:
                assert text == "swallowed"
            elif grid.face_up[s]:
                assert text == str(grid.cards[s])
            else:
                assert text == "face down"
        assert f"draw pile: {state.draw_pile_size} card" in svg
        assert f"discard pile: {len(state.discard_pile)} card" in svg
        if state.drawn is not None:
            assert f"drawn card: held by seat {state.turn}, {state.drawn}" in svg
        for p, total in enumerate(state.totals):
            assert re.search(rf"Seat {p}[^<]*</text><text [^>]*>total {total}\b", svg)
        assert "REVEALED" not in svg and "secretly" not in svg


def test_reveal_draws_the_face_down_values_under_a_banner() -> None:
    state = STATES[5]
    assert state.phase is not ar.Phase.GAME_OVER
    svg = to_svg(state, reveal=True)
    assert "REVEALED: face-down values shown" in svg
    for p in range(state.players):
        grid = state.grid(p)
        for s in grid.face_down:
            row, col = divmod(s, grid.cols)
            title = f"<title>seat {p}, row {row}, column {col}: face down, secretly {grid.cards[s]}</title>"
            assert title in svg


@pytest.mark.rule("2.1", "3.4", "6.1")
def test_whose_turn_the_drawn_card_and_the_closer() -> None:
    state = stacked(tiny(), 2, grids=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=9)
    assert "Round 1: opening, seats 0 and 1 to flip" in to_svg(state)
    state = open_round(state, [[(0, 0), (0, 1)], [(0, 0), (0, 1)]])
    svg = to_svg(ar.view(state, 0))
    assert "Round 1: seat 1 to play" in svg and "Seat 1 (\u25b6 to play)" in svg and "Seat 0 (you)" in svg
    state = play(state, [ar.Draw(1)])
    svg = to_svg(state, last_action=ar.Draw(1))
    assert f"seat 1 holds a drawn {state.drawn}" in svg and "Last action: seat 1 draws a card" in svg
    state = play(state, [ar.DiscardDrawn(1, 1, 0), ar.Flip(0, 1, 0), ar.Flip(1, 1, 1)])
    assert state.closer == 1
    svg = to_svg(state)
    assert "Seat 1 (closer)" in svg and "Seat 1 closed the round" in svg


@pytest.mark.rule("4.1")
def test_a_swallowed_column_is_drawn_as_gaps() -> None:
    state = next(s for s in STATES if s.swallowed_mask and s.phase is not ar.Phase.GAME_OVER)
    svg = to_svg(state)
    assert svg.count(": swallowed</title>") == state.swallowed_mask.bit_count()
    assert svg.count('stroke-dasharray="4 3"') == state.swallowed_mask.bit_count()


@pytest.mark.rule("6.3", "6.5", "6.6")
def test_a_finished_round_shows_the_final_reveal_and_the_scores() -> None:
    result = next(r for s in STATES for r in s.history if r.penalized)
    svg = to_svg(result)
    assert f"End of round {result.round}: the final reveal" in svg
    assert "face down" not in svg and "its round score is multiplied" in svg
    closer = result.closer
    assert closer is not None
    assert (f"round score {result.raw_scores[closer]} \u00d7 "
            f"{result.scores[closer] // result.raw_scores[closer]} = {result.scores[closer]}") in svg


def test_highlights_and_the_last_action() -> None:
    state = ar.new_game(2, seed=3)
    plain = to_svg(state)
    ringed = to_svg(state, highlight=[(0, 1, 2), (1, 2, 3)])
    assert plain.count(drawing.HIGHLIGHT) == 0 and ringed.count(drawing.HIGHLIGHT) == 2
    assert to_svg(state, highlight=(0, 1, 2)) == to_svg(state, last_action=ar.Flip(0, 1, 2),
                                                               caption="")
    assert "Last action: seat 0 flips (1,2)" in to_svg(state, last_action=ar.Flip(0, 1, 2))
    assert "hello &amp; &lt;goodbye&gt;" in to_svg(state, caption="hello & <goodbye>")


def test_width_scales_the_picture() -> None:
    state = ar.new_game(2, seed=3)
    root = _parse(to_svg(state, width=300))
    _, _, w, h = map(int, root.get("viewBox", "").split())
    assert root.get("width") == "300" and root.get("height") == str(round(h * 300 / w))


def test_action_words() -> None:
    assert action_words(ar.Flip(0, 1, 2)) == "seat 0 flips (1,2)"
    assert action_words(ar.Draw(3)) == "seat 3 draws a card"
    assert action_words(ar.PlaceDrawn(1, 0, 0)) == "seat 1 places the drawn card on (0,0)"
    assert action_words(ar.DiscardDrawn(1, 2, 0)) == "seat 1 discards the drawn card and flips (2,0)"


@pytest.mark.parametrize(("obj", "options", "message"), [
    ("text", {}, "to_svg draws a View, a State or a RoundResult, not str"),
    (None, {}, "not NoneType"),
    ("view", {"reveal": True}, "a View holds no face-down values"),
    ("game", {"reveal": 1}, "reveal must be True or False"),
    ("game", {"width": 0}, "width must be an int"),
    ("game", {"width": 2.5}, "width must be an int"),
    ("game", {"caption": 3}, "caption must be a str"),
    ("game", {"highlight": (0, 3, 0)}, "cannot highlight (3,0)"),
    ("game", {"highlight": (2, 0, 0)}, "cannot highlight a space of seat 2"),
    ("game", {"highlight": "0 1 2"}, "highlight must be a (seat, row, col) tuple"),
    ("game", {"highlight": [(0, 1)]}, "a highlighted space is a (seat, row, col) tuple"),
    ("game", {"highlight": [(0, 1, True)]}, "a highlighted space is a (seat, row, col) tuple"),
    ("game", {"last_action": "0f12"}, "last_action must be an action"),
    ("game", {"last_action": ar.Flip(5, 0, 0)}, "last_action is by seat 5"),
    ("game", {"last_action": ar.Flip(0, 0, 9)}, "cannot highlight (0,9)"),
])
def test_bad_arguments_raise_picture_error(obj: Any, options: dict[str, Any], message: str) -> None:
    state = ar.new_game(2, seed=3)
    target = {"game": state, "view": ar.view(state)}.get(obj, obj) if isinstance(obj, str) else obj
    with pytest.raises(ar.PictureError) as caught:
        to_svg(target, **options)
    assert caught.value.code == "invalid_picture" and message in caught.value.message
    assert isinstance(caught.value, ValueError)


def test_repr_svg_is_the_public_picture() -> None:
    state = STATES[9]
    assert state._repr_svg_() == to_svg(state) == to_svg(ar.view(state))
    assert ar.view(state, 1)._repr_svg_() == to_svg(ar.view(state, 1))
    result = STATES[-1].history[0]
    assert result._repr_svg_() == to_svg(result)


def test_a_view_read_back_from_its_json_draws_the_same_picture() -> None:
    """A client that receives a view document can draw exactly what the server would."""
    for state in STATES[::9]:
        for viewer in (None, *range(state.players)):
            v = ar.view(state, viewer)
            assert to_svg(ar.loads_view(ar.dumps_view(v))) == to_svg(v)


# -- golden pictures ------------------------------------------------------------------------------
# Regenerate after an intended change of the drawing: UPDATE_GOLDEN=1 python -m pytest tests/test_svg.py

def _golden_positions() -> dict[str, str]:
    out: dict[str, str] = {}
    state = ar.new_game(2, seed=42)
    out["opening"] = to_svg(state)
    state = play(state, [ar.Flip(0, 0, 3), ar.Flip(0, 1, 0), ar.Flip(1, 1, 1), ar.Flip(1, 1, 2), ar.Draw(1)])
    out["drawn-seat-0"] = to_svg(ar.view(state, 0), last_action=ar.Draw(1))
    out["drawn-revealed"] = to_svg(state, reveal=True, highlight=(1, 0, 0), width=480)
    swallowed = next(s for s in STATES if s.swallowed_mask and s.phase is ar.Phase.TURN)
    out["swallowed"] = to_svg(swallowed)
    tiny_game = [s for s in STATES if s.variant == tiny(max_rounds=2)]
    out["round-result-3-players"] = to_svg(tiny_game[-1].history[0])
    out["game-over-5-players"] = to_svg(STATES[-1])
    return out


@pytest.mark.parametrize("name", sorted(_golden_positions()))
def test_golden_pictures(name: str) -> None:
    picture = _golden_positions()[name]
    path = GOLDEN / f"{name}.svg"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(picture + "\n", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == picture + "\n", (
        f"{path.name} differs from the picture drawn now; if the change is intended, regenerate it with "
        "UPDATE_GOLDEN=1 python -m pytest tests/test_svg.py")


# -- reading the value bands: colour blindness, greyscale, more than colour ------------------------

BAND_PAIRS = [(a, b) for i, a in enumerate(drawing.BANDS) for b in drawing.BANDS[i + 1:]]


@pytest.mark.parametrize("kind", ["deuteranopia", "protanopia", "tritanopia"])
def test_value_bands_read_apart_for_colour_blind_readers(kind: str) -> None:
    for a, b in BAND_PAIRS:
        difference = colours.delta_e(colours.simulate(a.fill, kind), colours.simulate(b.fill, kind))
        assert difference > 12, f"{kind}: {a.name} and {b.name} differ by only {difference:.1f}"


def test_value_bands_read_apart_in_greyscale() -> None:
    lightness = [colours.lightness(b.fill) for b in drawing.BANDS]
    for (a, b), gap in zip(BAND_PAIRS, [abs(colours.lightness(a.fill) - colours.lightness(b.fill))
                                       for a, b in BAND_PAIRS], strict=True):
        assert gap > 8, f"greyscale: {a.name} and {b.name} differ by {gap:.1f} L*"
    # From 0 up, the darker the face, the higher the value band.
    assert lightness[1:] == sorted(lightness[1:], reverse=True)


def test_value_bands_differ_by_more_than_colour() -> None:
    marks = {(b.pips, b.width) for b in drawing.BANDS}
    assert len(marks) == len(drawing.BANDS), "two bands share their pips and border weight"
    for b in drawing.BANDS:
        assert colours.contrast(b.fill, drawing.INK) >= 4.5, f"the value on {b.name} is hard to read"
    state = STATES[-1]   # a finished game: many face-up cards
    result = state.history[0]
    svg = to_svg(result)
    shown = {card for grid in result.grids for card, up in zip(grid.cards, grid.face_up, strict=True)
             if up and card is not None}
    for b in {drawing.band(card) for card in shown}:     # every band shown is drawn its own way
        assert f'fill="{b.fill}" stroke="{b.stroke}" stroke-width="{b.width:g}"' in svg
    assert drawing.band(-1).pips == -1 and drawing.band(0).pips == 0 and drawing.band(12).pips == 3


def test_the_ring_has_its_own_colour_and_room() -> None:
    ring = drawing.HIGHLIGHT
    for b in drawing.BANDS:
        assert ring not in (b.fill, b.stroke)
        for kind in ("deuteranopia", "protanopia"):   # and it stays apart from the faces' fills
            assert colours.delta_e(colours.simulate(ring, kind), colours.simulate(b.fill, kind)) > 20
    assert ring not in (drawing.BACK, drawing.INK)
    reach = drawing.RING_OFFSET + 1.5                  # the ring's offset and half its stroke
    assert 2 * reach < drawing.GAP                     # two ringed neighbours do not touch
    state = ar.new_game(2, seed=3)
    root = _parse(to_svg(state, highlight=(0, 0, 0)))
    rect = next(r for r in root.iter(SVG + "rect") if r.get("stroke") == ring)
    top = float(rect.get("y", "0"))
    # Seat 0's column 0 number (font size 10, centred) stands above the ring, with room to spare.
    label = next(t for t in root.iter(SVG + "text")
                 if t.text == "0" and t.get("text-anchor") == "middle" and t.get("font-size") == "10")
    assert float(label.get("y", "0")) < top - 1.5 - 2


def test_a_legend_on_request() -> None:
    state = ar.new_game(2, seed=3)
    plain, with_legend = to_svg(state), to_svg(state, legend=True)
    assert "legend:" not in plain
    for label in ("face down", *(b.name for b in drawing.BANDS), "swallowed", "last action"):
        assert f"<title>legend: {label}</title>" in with_legend
    assert int(_parse(with_legend).get("height", "0")) > int(_parse(plain).get("height", "0"))


def test_names_and_captions_from_events() -> None:
    state = ar.new_game(2, seed=3)
    svg = to_svg(state, names=["ann", "greedy <bot>"])
    assert "Seat 0 \u00b7 ann (\u25b6 to flip)" in svg and "Seat 1 \u00b7 greedy &lt;bot&gt;" in svg
    after, events = ar.apply_with_events(state, ar.Flip(0, 1, 2))
    svg = to_svg(after, last_action=ar.Flip(0, 1, 2), events=events)
    assert f"seat 0 flipped (1,2) in the opening: {a_card(after.grids()[0].cards[6])}" in svg
    with pytest.raises(ar.PictureError, match="names must be one str per seat"):
        to_svg(state, names=["ann"])
    with pytest.raises(ar.PictureError, match="events must be a sequence of events"):
        to_svg(state, events=["0f12"])  # type: ignore[list-item]
    with pytest.raises(ar.PictureError, match="moved no card"):
        to_svg(state, events=[ar.events.OpeningDone(0)])
    with pytest.raises(ar.PictureError, match="legend must be True or False"):
        to_svg(state, legend=1)  # type: ignore[arg-type]
