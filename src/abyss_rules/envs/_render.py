"""The environments' `render()`: the table as text or as an image, from public facts only.

| `render_mode` | `render()` returns |
|---|---|
| `"ansi"` | the public table (a spectator's view) as text |
| `"human"` | nothing: it prints that text (after every step, too) |
| `"rgb_array"` | an `(H, W, 3)` `uint8` image of what one seat may see: the library's SVG picture of that seat's `View` (`abyss_rules.pictures.to_svg`), rasterized by resvg |

The image is drawn from a view, so it holds public facts only (rule 8.3): two states that differ
only in secrets give the same image, and the tests check it on the rasterized pixels. Every image
of one environment has the same size (a video needs that): the picture, at one pixel per unit of
its SVG, is placed at the top left of a white canvas that has room for the picture's note line (the
closer, the winners), with even sides (video encoders need them).
"""  # noqa: E501  (the table's rows)

from __future__ import annotations

import io
import re
from typing import Final

import gymnasium
import numpy as np
import numpy.typing as npt

from .._extras import require
from ..config import Variant
from ..rules._dealing import new_game
from ..state import State
from ..views import View, view
from ._options import bad_option

__all__ = ["RENDER_MODES", "Frame", "Pictures", "check_render_mode", "render", "render_text"]

RENDER_MODES: Final[tuple[str, ...]] = ("ansi", "human", "rgb_array")
"""The render modes of the single-game environments (see the table above)."""

Frame = npt.NDArray[np.uint8]
"""An image: `(H, W, 3)` `uint8`, RGB."""

_SIZE: Final = re.compile(r'viewBox="0 0 (\d+) (\d+)"')


def check_render_mode(mode: str | None) -> str | None:
    """`mode` if it is `None` or one of `RENDER_MODES`.

    Raises:
        ConfigError: Anything else (`invalid_env_option`).
    """
    if mode is not None and mode not in RENDER_MODES:
        raise bad_option(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {mode!r}")
    return mode


class Pictures:
    """The images of one environment's games: one canvas size for its variant and player count.

    Args:
        variant: The games' variant.
        players: Their number of players.

    Raises:
        ImportError: The rasterizer (resvg-py) or Pillow is missing: it names the `rl` extra.

    Examples:
        >>> import abyss_rules as ar
        >>> pictures = Pictures(ar.Variant.standard(), 2)
        >>> image = pictures.draw(ar.new_game(players=2, seed=3), seat=1)
        >>> image.shape, image.dtype, pictures.shape
        ((470, 540, 3), dtype('uint8'), (470, 540, 3))
    """

    __slots__ = ("shape",)

    def __init__(self, variant: Variant, players: int) -> None:
        from ..pictures import to_svg  # (on use: an environment without images never loads pictures)

        for library, name in (("resvg_py", "resvg-py"), ("PIL", "Pillow")):
            require(library, name=name, extra="rl", module="render_mode='rgb_array'")
        # The tallest picture of these games: a first deal's, with one line of notes.
        width, height = _size(to_svg(view(new_game(players, variant, seed=0)), caption="-"))
        self.shape: tuple[int, int, int] = (height + height % 2, width + width % 2, 3)
        """`(H, W, 3)`: the shape of every image."""

    def draw(self, state: State, seat: int | None) -> Frame:
        """The image of what `seat` may see in `state` (a spectator's view for `None`)."""
        from ..pictures import to_svg

        picture = _rasterized(to_svg(view(state, seat)))
        canvas = np.full(self.shape, 255, dtype=np.uint8)
        height, width = min(picture.shape[0], self.shape[0]), min(picture.shape[1], self.shape[1])
        canvas[:height, :width] = picture[:height, :width]
        return canvas


def _size(svg: str) -> tuple[int, int]:
    found = _SIZE.search(svg)
    assert found is not None, "to_svg writes a viewBox"
    return int(found[1]), int(found[2])


def _rasterized(svg: str) -> Frame:
    """`svg` as pixels at its natural size (one pixel per unit): resvg draws it, Pillow reads the
    PNG resvg writes."""
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=svg)
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)


def render(mode: str | None, state: State, seat: int | None = None,
           pictures: Pictures | None = None) -> str | Frame | None:
    """An environment's `render()`: for `"ansi"` the text of the public table, printed for `"human"`;
    for `"rgb_array"` the image of what `seat` may see (`pictures` draws it); `None` (and a warning)
    without a render mode."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' "
                              "or 'rgb_array'")
        return None
    if mode == "rgb_array":
        assert pictures is not None
        return pictures.draw(state, seat)
    text = render_text(view(state))
    if mode == "human":
        print(text)
        return None
    return text


def render_text(v: View) -> str:
    """The table as text: each seat's total and grid, the piles and the drawn card.

    Examples:
        >>> import abyss_rules as ar
        >>> print(render_text(ar.view(ar.new_game(players=2, seed=3))))
        round 1, opening; discard pile: 0 (1 card), draw pile: 125 cards
        seat 0: total 0
        ?? ?? ?? ??
        ?? ?? ?? ??
        ?? ?? ?? ??
        seat 1: total 0
        ?? ?? ?? ??
        ?? ?? ?? ??
        ?? ?? ?? ??
    """
    top = "empty" if v.top_discard is None else f"{v.top_discard} ({len(v.discard_pile)} cards)"
    if len(v.discard_pile) == 1:
        top = f"{v.top_discard} (1 card)"
    head = f"round {v.round}, {v.phase.value.replace('_', ' ')}"
    if v.turn is not None:
        head += f", seat {v.turn} to play"
    if v.drawn is not None:
        head += f" (holding {v.drawn})"
    lines = [f"{head}; discard pile: {top}, draw pile: {v.draw_pile_size} cards"]
    for seat, grid in enumerate(v.grids):
        closer = " (closed the round)" if v.closer == seat else ""
        lines.append(f"seat {seat}: total {v.totals[seat]}{closer}")
        lines.append(str(grid))
    return "\n".join(lines)
