"""Pictures and words of a game: SVG drawings, the replay page, and the game told in English.

One concept (showing a game to a person), from public information only (rule 8.3):

- `to_svg`: the SVG picture of a view, a state or a finished round;
- `replay_html`: the self-contained replay page of a record, and `replay_frames`, its steps
  for a page of one's own;
- `event_words`, `caption_words`, `action_words`: how every event and action is said, the one
  wording the pictures, the replay page and the command line's narration share.

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
