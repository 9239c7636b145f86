"""Shared test configuration.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

* ``ci`` (default) -- few examples, for every run of the suite and CI;
* ``thorough`` -- many more examples, for a developer who wants to dig.

Each test that checks a spec rule says so with ``@pytest.mark.rule("3.4", ...)``;
``tests/test_traceability.py`` reads those markers.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
