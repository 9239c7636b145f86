"""A seat's observation straight from the `State`: the single-game environments' fast path.

`SeatObservation(observation).encode(state, seat)` is `observation.encode(view(state, seat))`,
byte for byte, without building the `View`: the environments encode one seat's observation
per step, and the view cost as much as its encoding. Both hand the same public facts to the one
definition of the vector, `batch._observation.Writer`: `Observation.encode` reads them from the
view, this path from the fields of the state that `view` copies (rule 8.1): the phase, the turn,
the cards and the face-up and swallowed masks, the discard pile, the size of the draw pile, the
drawn card, the closer, the opening flips, the turns and the totals. Never the draw pile's cards,
the dealer or the history (rule 8.2; the secrecy tests run on this path too). Its conditions, not
checked: `state` is a `State` of the encoder's variant and player count and `seat` one of its
seats (the environments' own states and seats).

The compiled tier (`_seat_encode.c`, built with the wheel; the default where it is, see
`COMPILED`) writes the whole vector in C from the same fields, reading a space's card only when
the space is face up; a differential test proves it equal to the `Writer`.

Examples:
    >>> import abyss_rules as ar
    >>> from abyss_rules.envs import Observation
    >>> from abyss_rules.envs._seat_observation import SeatObservation
    >>> obs = Observation(ar.Variant.standard(), players=2)
    >>> fast = SeatObservation(obs)
    >>> state = ar.apply(ar.new_game(players=2, seed=1), ar.Flip(1, 0, 0))
    >>> fast.encode(state, 0).tobytes() == obs.encode(ar.view(state, 0)).tobytes()
    True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

import numpy as np

from ..batch._observation import PHASES, Writer, totals_scale
from ..errors import Code, ConfigError
from ..state import State
from ._observation import TOTAL_CLIP, Observation, Vector

__all__ = ["COMPILED", "SeatObservation"]

_encode_into: Callable[[Vector, int, tuple[Any, ...], tuple[Any, ...], bytes, bytes], None] | None = None
"""The compiled tier (`_seat_encode.c`, built with the wheel), or None: the pure tier only."""
if os.environ.get("ABYSS_RULES_PURE") != "1":
    with contextlib.suppress(ImportError):  # (an editable install or a pure wheel: the pure tier)
        from .._seat_encode import encode_into as _encode_into

COMPILED: Final[bool] = _encode_into is not None
"""Whether `SeatObservation` writes its vectors in compiled code by default: a wheel's build
compiles `_seat_encode.c` beside the bots, and the same bytes come out either way (the tests
compare both tiers with the view's encoding). `False` in an editable install, a pure wheel, or
when the environment sets `ABYSS_RULES_PURE=1` at import."""

_FLOAT: Final = np.dtype(np.float32)
_EMPTY: Final = np.empty
_READ: Final = attrgetter("phase", "turn", "cards", "face_up_mask", "swallowed_mask", "draw_pile",
                          "discard_pile", "drawn", "closer", "opening", "turns", "totals")
"""The public fields `encode` reads, in one call, in the order of `batch._observation.Facts`."""


class SeatObservation:
    """The fast path of one `Observation`: `encode(state, seat)` (see
    `abyss_rules.envs._seat_observation`).

    Args:
        observation: The encoding to reproduce.
        compiled: Write the vectors in compiled code (`True`), in Python (`False`), or in
            compiled code where the wheel has it (`None`, the default: see `COMPILED`).

    Raises:
        ConfigError: `observation` is not an `Observation`, or `compiled=True` where there is no
            compiled tier (`invalid_env_option`).
    """

    __slots__ = ("observation", "compiled", "_option", "_c", "_size", "_mask_bytes", "_write")

    def __init__(self, observation: Observation, compiled: bool | None = None) -> None:
        if not isinstance(observation, Observation):
            raise ConfigError(Code.INVALID_ENV_OPTION, "a SeatObservation needs an Observation")
        if compiled not in (None, True, False):
            raise ConfigError(Code.INVALID_ENV_OPTION,
                              f"compiled must be None, True or False, got {compiled!r}")
        if compiled and not COMPILED:
            raise ConfigError(Code.INVALID_ENV_OPTION, "compiled=True, but this installation has no compiled "
                                                       "observation (an editable install, a pure wheel or "
                                                       "ABYSS_RULES_PURE=1)")
        self.observation = observation
        """The encoding reproduced."""
        self.compiled: bool = COMPILED if compiled is None else compiled
        """Whether the vectors are written in compiled code."""
        self._option = compiled
        v = observation.variant
        p, k, cells = observation.players, len(v.deck), v.cells
        self._size, self._mask_bytes = observation.size, (p * cells + 7) // 8
        # The pure tier: a `Writer` of its own (it keeps each seat's last vector).
        self._write = Writer(v, p, {f.name: f.start for f in observation.fields}, observation.size).write
        self._c: tuple[Any, ...] | None = None
        if self.compiled:  # the compiled tier's constants (see _seat_encode.c), from the same tables
            rank = {value: r for r, (value, _) in enumerate(v.deck)}
            low, high = min(rank), max(rank)
            ranks = [rank.get(value, -1) for value in range(low, high + 1)]
            cap = -1 if v.max_turns_per_round is None else v.max_turns_per_round
            table = [p, cells, k, v.initial_flips, cap, v.deck_size, low, high - low + 1, *ranks,
                     *[count for _, count in v.deck]]
            self._c = (PHASES, np.array(table, np.int32).tobytes(), totals_scale(v), float(TOTAL_CLIP))

    def __getstate__(self) -> dict[str, Any]:
        return {"observation": self.observation, "compiled": self._option}  # the memos are rebuilt empty

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["observation"], state.get("compiled"))  # type: ignore[misc]

    def encode(self, state: State, seat: int) -> Vector:
        """`observation.encode(view(state, seat))`: a new `float32` vector, from public facts only.

        Under the conditions of `abyss_rules.envs._seat_observation` (not checked).
        """
        fields = _READ(state)
        c = self._c
        if c is not None:  # the compiled tier: the whole vector, from the same public fields
            assert _encode_into is not None
            vector: Vector = _EMPTY(self._size, _FLOAT)
            n = self._mask_bytes
            _encode_into(vector, seat, fields, c, fields[3].to_bytes(n, "little"),
                         fields[4].to_bytes(n, "little"))
            return vector
        return self._write(seat, None, fields, len(fields[5]))
