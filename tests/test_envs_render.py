"""`render_mode="rgb_array"` (abyss_rules.envs._render): an image of what a seat may see, of one size
for a whole game, with no hidden card in it (checked on the rasterized pixels)."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")
pytest.importorskip("resvg_py", reason="the 'rl' extra is not installed: pip install -e '.[rl]'")

import gymnasium
import numpy as np
from tests.builders import with_other_secrets

import abyss_rules as ar
from abyss_rules import envs
from abyss_rules.envs._render import Pictures, _rasterized, _size
from abyss_rules.pictures import to_svg


def _game(players: int, variant: str, seed: int) -> list[ar.State]:
    state = ar.new_game(players, variant, seed=seed)
    rng = random.Random(seed)
    states = [state]
    while not state.is_over:
        state = ar.apply(state, rng.choice(ar.legal_actions(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("make", [
    lambda: envs.raw_env(players=3, render_mode="rgb_array"),
    lambda: envs.env(players=2, render_mode="rgb_array"),
    lambda: gymnasium.make(envs.SOLO_ID, opponents=["random"], render_mode="rgb_array"),
    lambda: gymnasium.make(envs.SELF_PLAY_ID, players=4, render_mode="rgb_array"),
], ids=["raw_env", "env", "Solo-v0", "SelfPlay-v0"])
def test_every_environment_renders_an_rgb_image(make: Any) -> None:
    env = make()
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=5)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
    assert image.shape[2] == 3 and image.shape[0] % 2 == 0 and image.shape[1] % 2 == 0
    assert image.shape[0] > 300 and image.shape[1] > 500
    # Not blank: the white page, card backs, text.
    assert (image == 255).all(axis=2).mean() > 0.3 and len(np.unique(image.reshape(-1, 3), axis=0)) > 20
    assert np.array_equal(pickle.loads(pickle.dumps(env)).render(), image)   # a copy draws the same


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_every_picture_of_a_game_fits_the_canvas(players: int) -> None:
    """The canvas has room for every picture of a game (no picture is cut), so every image of an
    environment has the same shape, as a video needs."""
    variant = ar.Variant.standard()
    pictures = Pictures(variant, players)
    height, width, _ = pictures.shape
    for state in _game(players, "standard", players):
        for seat in (None, players - 1):
            w, h = _size(to_svg(ar.view(state, seat)))
            assert w <= width and h <= height
    frames = [pictures.draw(state, 0) for state in _game(players, "short", 0)[-2:]]
    assert {frame.shape for frame in frames} == {pictures.shape}


@pytest.mark.rule("8.1", "8.2", "8.3")
def test_no_hidden_card_can_be_read_from_an_image() -> None:
    """Two states that differ only in secrets (face-down cards, the draw pile's order) give the same
    pixels, for every seat and for a spectator. The check can fail: the debugging picture that
    shows the face-down values (`reveal=True`) does differ between the two."""
    pictures = Pictures(ar.Variant.standard(), 3)
    rng = random.Random(7)
    states = _game(3, "standard", 11)
    compared = 0
    for state in [states[7], states[len(states) // 2], states[-1]]:
        twin = with_other_secrets(state, rng)
        if not state.is_over:  # (at the end every card is face up: only the draw pile differs)
            assert twin != state
            revealed = _rasterized(to_svg(state, reveal=True)), _rasterized(to_svg(twin, reveal=True))
            assert not np.array_equal(*revealed)
        for seat in (None, 0, 1, 2):
            assert np.array_equal(pictures.draw(state, seat), pictures.draw(twin, seat))
            compared += 1
    assert compared == 12
    # ... while a public change (one card turned face up) changes the image.
    assert not np.array_equal(pictures.draw(states[0], 0), pictures.draw(states[1], 0))


def test_solo_draws_the_learners_seat_and_a_video_frame_of_one_size() -> None:
    env = gymnasium.make(envs.SOLO_ID, opponents=["greedy"], variant="short", seat=1, render_mode="rgb_array")
    _, info = env.reset(seed=2)
    solo = env.unwrapped
    first = env.render()
    assert np.array_equal(first, solo._pictures.draw(solo.game_state, 1))   # the learner's view ("you")
    assert not np.array_equal(first, solo._pictures.draw(solo.game_state, 0))
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.render().shape == first.shape


def test_pettingzoos_render_test_passes_in_every_mode() -> None:
    """PettingZoo's own `render_test` steps the AEC environment in each of its render modes,
    `"rgb_array"` included, and checks what `render()` returns."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: envs.env(players=2, variant="short", render_mode=render_mode))


def test_without_the_rasterizer_the_error_names_the_extra() -> None:
    code = ("import sys; sys.modules['resvg_py'] = None\n"
            "from abyss_rules import envs\n"
            "envs.raw_env(players=2)                       # no image asked for: fine\n"
            "try:\n"
            "    envs.raw_env(players=2, render_mode='rgb_array')\n"
            "except ImportError as error:\n"
            "    print(error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "resvg-py" in out and "pip install 'abyss-rules[rl]'" in out
