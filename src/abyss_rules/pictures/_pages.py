"""HTML pages made of pictures: the replay page of a whole game.

`replay_html` turns a `Record` into one self-contained HTML file (no network resource:
the pictures, the style and the script are all inside) that steps through the game: one
`to_svg` picture per step, with the action and its events in words (`event_words`, the
wording the command line's narration shares); buttons, a slider and the arrow keys move
between steps. `abyss-rules replay game.json --html replay.html` writes it.

`replay_frames` gives the steps themselves (picture, heading and sentences)
for a page of one's own; every picture is a spectator's (public information
only, rule 8.3).

Examples:
    >>> import abyss_rules as ar
    >>> record = ar.Record.start(seed=1).with_actions(ar.Flip(0, 0, 0), ar.Flip(1, 2, 3))
    >>> frames = replay_frames(record)
    >>> [frame.heading for frame in frames]
    ['The deal of round 1', 'Step 1: seat 0 flips (0,0)', 'Step 2: seat 1 flips (2,3)']
    >>> frames[1].words
    ('Seat 0 turns over (0,0): -2.',)
    >>> page = replay_html(record)
    >>> page.startswith("<!DOCTYPE html>") and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    True
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from typing import Final

import attrs

from ..events import NewRound, apply_with_events
from ..records import Record
from ..state import State
from ..views import view
from ._svg import PictureError, to_svg
from ._words import a_card, action_words, event_words

__all__ = ["Frame", "event_words", "replay_frames", "replay_html"]


@attrs.frozen
class Frame:
    """One step of a replay: a picture and what happened, in words."""

    heading: str
    """E.g. "Step 12: seat 1 draws a card"."""
    words: tuple[str, ...]
    """The events of the step, one sentence each."""
    svg: str
    """The picture after the step (`to_svg`, public information only)."""


def _deal_words(state: State) -> str:
    cells = state.variant.cells
    return (f"Round {state.round} is dealt: {cells} cards face down to each of {state.players} seats; the "
            f"discard pile opens with {a_card(state.discard_pile[0])}, {state.draw_pile_size} cards in the "
            f"draw pile.")


def replay_frames(record: Record) -> tuple[Frame, ...]:
    """Every step of the game of `record`, each with its picture and its events in words.

    The first frame is the deal; then one per action. An action that ends a round (but not the
    game) shows the round's final reveal and scores, and the next round's deal follows as a
    frame of its own. Each picture's caption says what the action did (from its events), and
    the players' names, if the record has them, are on their panels.

    Raises:
        ReplayError: the record is redacted (`record_redacted`) or an action cannot be
            replayed (`replay_failed`).
        PictureError: `record` is not a `Record` (code `invalid_picture`).
    """
    if not isinstance(record, Record):
        raise PictureError(f"a replay is made from a Record, not {type(record).__name__} (Record.from_json)")
    states = list(record.states())  # checks every action (ReplayError at the first illegal one)
    first = states[0]
    names = record.names
    frames = [Frame(f"The deal of round {first.round}", (_deal_words(first),), to_svg(first, names=names))]
    for index, action in enumerate(record.actions):
        before, after = states[index], states[index + 1]
        _, events = apply_with_events(before, action)
        heading = f"Step {index + 1}: {action_words(action)}"
        dealt = [e for e in events if isinstance(e, NewRound)]
        words = tuple(event_words(e) for e in events if not isinstance(e, NewRound))
        if dealt:
            # The round ended and the next one is dealt: first the final reveal, then the deal.
            frames.append(Frame(heading, words, to_svg(after.history[-1], last_action=action, events=events,
                                                       names=names)))
            frames.append(Frame(f"The deal of round {after.round}", (event_words(dealt[0]),),
                                to_svg(view(after), names=names)))
        else:
            frames.append(Frame(heading, words, to_svg(view(after), last_action=action, events=events,
                                                       names=names)))
    return tuple(frames)


_STYLE: Final = """
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 1.5rem; color: #1a1a1a;
       background: #ffffff; max-width: 72rem; }
h1 { font-size: 1.4rem; margin: 0 0 0.5rem 0; }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.75rem 0; }
.controls button { font: inherit; font-size: 1rem; padding: 0.35rem 0.8rem; border-radius: 6px;
                   border: 1px solid #555555; background: #f2f2f2; cursor: pointer; }
.controls button:disabled { opacity: 0.45; cursor: default; }
.controls input[type=range] { flex: 1 1 12rem; }
#counter { min-width: 9rem; font-variant-numeric: tabular-nums; }
#heading { font-size: 1.1rem; margin: 0.5rem 0 0.25rem 0; }
#words { margin: 0 0 0.75rem 0; padding-left: 1.25rem; min-height: 1.5rem; }
#picture svg { max-width: 100%; height: auto; display: block; }
.help { color: #555555; font-size: 0.9rem; }
"""

_SCRIPT: Final = """
(function () {
  "use strict";
  var frames = [];
  var index = 0;
  var el = function (id) { return document.getElementById(id); };
  function show(i) {
    index = Math.max(0, Math.min(frames.length - 1, i));
    var frame = frames[index];
    el("picture").innerHTML = frame.svg;
    el("heading").textContent = frame.heading;
    var list = el("words");
    list.textContent = "";
    frame.words.forEach(function (sentence) {
      var item = document.createElement("li");
      item.textContent = sentence;
      list.appendChild(item);
    });
    el("counter").textContent = "Step " + index + " of " + (frames.length - 1);
    el("slider").value = String(index);
    el("first").disabled = el("back").disabled = index === 0;
    el("next").disabled = el("last").disabled = index === frames.length - 1;
    document.body.setAttribute("data-step", String(index));
  }
  function start(loaded) {
    frames = loaded;
    el("slider").max = String(frames.length - 1);
    el("first").addEventListener("click", function () { show(0); });
    el("back").addEventListener("click", function () { show(index - 1); });
    el("next").addEventListener("click", function () { show(index + 1); });
    el("last").addEventListener("click", function () { show(frames.length - 1); });
    el("slider").addEventListener("input", function () { show(parseInt(el("slider").value, 10)); });
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) { return; }
      var moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: frames.length - 1 };
      if (Object.prototype.hasOwnProperty.call(moves, event.key)) {
        event.preventDefault();
        show(moves[event.key]);
      }
    });
    show(0);
  }
  function fail(message) {
    el("heading").textContent = message;
    document.body.setAttribute("data-error", message);
  }
  // The steps are gzip-compressed JSON in base64 (a whole game is about 30 times smaller so).
  if (typeof DecompressionStream === "undefined") {
    fail("This browser cannot open the replay: it lacks DecompressionStream " +
         "(every major browser of 2023 or later has it).");
    return;
  }
  var text = atob(el("frames").textContent.trim());
  var bytes = new Uint8Array(text.length);
  for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (json) { start(JSON.parse(json)); },
                                   function (error) { fail("The replay's data is damaged: " + error); });
})();
"""


def _packed(value: object) -> str:
    """`value` as JSON, gzip-compressed (the same bytes every time: no time stamp), in base64."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(text, compresslevel=9, mtime=0)).decode("ascii")


def replay_html(record: Record, *, title: str | None = None) -> str:
    """One self-contained HTML page that steps through the whole game of `record`.

    Every step shows a spectator's picture (`to_svg`) with the action and its events in
    words (see `replay_frames`). The buttons, the slider and the keys (left and right
    arrows, Home, End) move between steps. Nothing is loaded from the network: the
    pictures, style and script are in the page.

    Args:
        record: A record with its seed (not redacted).
        title: The page's title; by default one naming the players (their names, if the record
            has them) and the variant.

    Raises:
        ReplayError: the record is redacted or an action cannot be replayed.
        PictureError: `record` is not a `Record`, or `title` not a str (code `invalid_picture`).
    """
    if title is not None and not isinstance(title, str):
        raise PictureError(f"title must be a str or None, got {title!r}")
    frames = replay_frames(record)  # checks `record`
    if title is None:
        players = (", ".join(f"seat {p} ({name})" for p, name in enumerate(record.names))
                   if record.names is not None else f"{record.players} players")
        title = f"Abyss replay: {players}, {record.variant.name} variant, {len(record.actions)} actions"
    data = [{"heading": f.heading, "words": list(f.words), "svg": f.svg} for f in frames]
    name = html.escape(title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{name}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{name}</h1>\n"
        '<div class="controls" role="group" aria-label="Replay controls">\n'
        '<button type="button" id="first" aria-label="First step">&#x00AB; First</button>\n'
        '<button type="button" id="back" aria-label="Previous step">&#x25C0; Back</button>\n'
        '<button type="button" id="next" aria-label="Next step">Next &#x25B6;</button>\n'
        '<button type="button" id="last" aria-label="Last step">Last &#x00BB;</button>\n'
        '<span id="counter" aria-live="polite"></span>\n'
        '<input type="range" id="slider" min="0" max="0" value="0" aria-label="Step">\n</div>\n'
        '<p class="help">Keys: &#x2190; and &#x2192; step back and forward, Home and End jump to the '
        "start and the end.</p>\n"
        '<div aria-live="polite"><h2 id="heading"></h2>\n<ul id="words"></ul></div>\n'
        '<div id="picture"></div>\n'
        f'<script type="application/octet-stream" id="frames">{_packed(data)}</script>\n'
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )
