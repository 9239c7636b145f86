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


_TYPED_AS_THEY_BEHAVE = '''
import abyss_rules as ar

state = ar.new_game(players=2, variant="short", seed=1)
record = ar.Record.start(2, "short", seed=1)
size: int = ar.view(state, 0).to_dict()["draw_pile_size"]
rounds: int | None = ar.Variant.short().to_dict()["max_rounds"]
seat: int | None = state.turn
'''


@pytest.mark.parametrize(("old", "new", "complaint"), [
    ("", "", None),
    ('["draw_pile_size"]', '["draw_pile_sise"]', 'TypedDict "ViewDocument" has no key "draw_pile_sise"'),
    ('["max_rounds"]', '["max_round"]', 'TypedDict "VariantDocument" has no key "max_round"'),
    ("seat: int | None = state.turn", "seat: int = state.turn", "Incompatible types in assignment"),
])
def test_to_dict_turn_and_a_preset_name_are_typed_as_they_behave(tmp_path: Path, old: str, new: str,
                                                                 complaint: str | None) -> None:
    script = tmp_path / "script.py"
    text = _TYPED_AS_THEY_BEHAVE.replace(old, new) if old else _TYPED_AS_THEY_BEHAVE
    script.write_text(text, encoding="utf-8")
    report, status = _mypy(script)
    if complaint is None:
        assert status == 0, report
    else:
        assert status == 1 and complaint in report, report
