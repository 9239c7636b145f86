"""The observation encoding of the environments, which lives in `abyss_rules.batch._observation`.

It needs NumPy only (the `batch` extra), so that the batch engine's users encode
observations without Gymnasium or PettingZoo. Its names are those of this module too."""

from __future__ import annotations

from ..batch._observation import OBSERVATION_VERSION, TOTAL_CLIP, Field, Observation, Vector

__all__ = ["OBSERVATION_VERSION", "TOTAL_CLIP", "Field", "Observation", "Vector"]
