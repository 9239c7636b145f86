"""The `abyss_rules.envs` package: its extra, its exports and its Gymnasium registration."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

NO_RL = "the 'rl' extra is not installed: pip install -e '.[rl]'"


@pytest.mark.parametrize("missing", ["gymnasium", "pettingzoo", "numpy"])
def test_importing_without_the_extra_names_the_extra(missing: str) -> None:
    # Runs whether or not the extra is installed: the module is hidden from the import system.
    code = (f"import sys; sys.modules[{missing!r}] = None\n"
            "import abyss_rules\n"
            "try:\n"
            "    import abyss_rules.envs\n"
            "except ImportError as error:\n"
            "    print(error.name, '|', error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith(f"{missing} |"), out
    assert "pip install 'abyss-rules[rl]'" in out and "'rl' extra" in out


def test_the_core_does_not_import_the_environments() -> None:
    code = ("import sys, abyss_rules\n"
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_package_exports_and_registers_solo() -> None:
    envs = pytest.importorskip("abyss_rules.envs", reason=NO_RL)
    gymnasium = pytest.importorskip("gymnasium")
    for name in envs.__all__:
        assert getattr(envs, name) is not None
    assert gymnasium.spec(envs.SOLO_ID).entry_point == "abyss_rules.envs._solo:SoloEnv"
    assert envs.raw_env.metadata["name"] == f"abyss_rules_v{envs.OBSERVATION_VERSION}"
    assert envs.SOLO_ID.endswith(f"-v{envs.OBSERVATION_VERSION}")



def test_importing_again_registers_nothing_twice() -> None:
    envs = pytest.importorskip("abyss_rules.envs", reason=NO_RL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns when an id is registered again
        importlib.reload(envs)
