"""The README's command-line block runs as written, line by line and in order.

Every line of the block that starts with `abyss-rules demo --seed 3` is run in a fresh
directory (so `game.json`, written by one line, is read by the next ones), except the
interactive `play`, with `python -m abyss_rules` standing for the installed command. Each must
exit with status 0.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _command_block() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    block = next(b for b in blocks if "abyss-rules demo --seed 3" in b)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_block_is_found_and_names_every_command() -> None:
    words = {shlex.split(line)[1] for line in _command_block()}
    assert words == {"demo", "play", "simulate", "replay", "validate"}


def test_the_readme_command_lines_run_in_order(tmp_path: Path) -> None:
    ran = []
    for line in _command_block():
        argv = shlex.split(line)
        assert argv[0] == "abyss-rules"
        if argv[1] == "play":  # interactive: it waits for a person
            continue
        result = subprocess.run([sys.executable, "-m", "abyss_rules", *argv[1:]], cwd=tmp_path,
                                capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, f"{line}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        ran.append((argv[1], result.stdout))
    assert [name for name, _ in ran] == ["demo", "simulate", "demo", "replay", "validate"]
    verdict = ran[-1][1]
    assert '"legal":true' in verdict and '"format":"verdict"' in verdict


@pytest.mark.parametrize("at", ["-1", "100000"])
def test_validate_at_outside_the_record_is_a_usage_error(tmp_path: Path, at: str) -> None:
    run = [sys.executable, "-m", "abyss_rules"]
    subprocess.run([*run, "demo", "--seed", "3", "--quiet", "--record", "game.json"], cwd=tmp_path,
                   check=True, capture_output=True)
    result = subprocess.run([*run, "validate", "game.json", "--at", at, "--notation", "0f12"], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "--at must be from 0 to" in result.stderr


def test_the_set_up_commands_are_given_exactly() -> None:
    """The quick start gives the two commands a newcomer runs first, each as its own bash block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.strip() for b in re.findall(r"```bash\n(.*?)```", readme, re.S)]
    install = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' "
               "&& python -m abyss_rules")
    assert install in blocks
    assert ". .venv/bin/activate && python -m pytest -n auto --dist loadfile" in blocks
    # ... after the user's install, which the package index shows first.
    assert blocks.index("pip install abyss-rules") < blocks.index(install)


def test_the_recorded_game_is_the_game_watched_before() -> None:
    """`demo --record` saves the game the reader just watched: the same seed and the same variant."""
    lines = [shlex.split(line) for line in _command_block() if shlex.split(line)[1] == "demo"]
    watched, recorded = lines[0], next(argv for argv in lines if "--record" in argv)

    def game(argv: list[str]) -> tuple[str | None, str | None]:
        return tuple(argv[argv.index(name) + 1] if name in argv else None  # type: ignore[return-value]
                     for name in ("--seed", "--variant"))

    assert game(watched) == game(recorded)
