"""A consumer's script under `mypy --strict` (issue 18): the package's types serve its users.

`examples/typed_script.py` uses the public API as a user would (games, errors and their `Code`,
the documents' TypedDicts); mypy must accept it, and must reject the same script with a
misspelt document key or a wrong type, so that the check can fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy (the `dev` extra) is needed")

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "typed_script.py"


def _mypy(path: Path) -> tuple[str, int]:
    # No config file, so that the repository's mypy settings do not apply: a user's own settings
    # are `--strict` and nothing else. One cache beside the scripts: the package is read once.
    cache = path.parent.parent / "mypy-cache"  # in this session's base temporary directory
    out, err, status = api.run(["--strict", "--config-file", "", "--cache-dir", str(cache), str(path)])
    return out + err, status


def test_the_script_passes_mypy_strict_and_runs(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    report, status = _mypy(script)
    assert status == 0, report
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                         check=True)
    assert "wrong_phase" in run.stdout


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        ('view["draw_pile_size"]', 'view["draw_pile_sise"]',
         'TypedDict "ViewDocument" has no key "draw_pile_sise"'),
        ("code: ar.Code = error.code", "code: int = error.code", 'Incompatible types in assignment'),
        ('verdict["legal"]', 'verdict["code"]', "Incompatible return value type"),
        ("picture: str = to_svg(", "picture: str = ar.to_svg(", 'Module has no attribute "to_svg"'),
        ('"cause": "opening_flip"}', '"cause": "opening"}', "Incompatible types"),
    ],
)
def test_mypy_catches_a_mistake_in_it(tmp_path: Path, old: str, new: str, complaint: str) -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    assert old in text
    script = tmp_path / "script.py"
    script.write_text(text.replace(old, new), encoding="utf-8")
    report, status = _mypy(script)
    assert status == 1 and complaint in report, report
