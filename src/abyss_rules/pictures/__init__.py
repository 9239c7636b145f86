"""Pictures and words of a game: SVG drawings, the replay page, and the game told in English.

Three modules, one concept (showing a game to a person), each from public information only
(rule 8.3):

- `abyss_rules.pictures._svg`: `to_svg`, the SVG picture of a view, a state or a finished round;
- `abyss_rules.pictures._pages`: `replay_html`, the self-contained replay page of a record, and
  `replay_frames`, its steps for a page of one's own;
- `abyss_rules.pictures._words`: how a card, a seat, a space and every event are said
  (`event_words`, `caption_words`, `action_words`), the one wording the pictures, the replay
  page and the command line's narration share.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.pictures import to_svg
    >>> to_svg(ar.new_game(players=2, seed=3)).startswith("<svg")
    True
"""

from __future__ import annotations

from ._pages import Frame, replay_frames, replay_html
from ._svg import PictureError, to_svg
from ._words import action_words, caption_words, event_words

__all__ = [
    "Frame",
    "PictureError",
    "action_words",
    "caption_words",
    "event_words",
    "replay_frames",
    "replay_html",
    "to_svg",
]
