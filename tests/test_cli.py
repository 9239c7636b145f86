"""The ``abyss-rules`` command line, run as a real subprocess (``python -m abyss_rules ...``)."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from abyss_rules import cli
from abyss_rules.errors import Code
from abyss_rules.simulation import SimulationError


def run(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "abyss_rules", *args],
        input=stdin, capture_output=True, text=True, timeout=timeout, check=False,
    )


TURN_LINE = re.compile(
    r"^ +\d+\. seat \d (takes the -?\d+ from the discard pile and places it on \(\d,\d\), discarding "
    r"(a face-down )?-?\d+|draws an? -?\d+ and places it on \(\d,\d\), discarding (a face-down )?-?\d+"
    r"|draws an? -?\d+, discards it and flips \(\d,\d\): -?\d+|flips \(\d,\d\): -?\d+)"
    r"(; column \d \(\d x -?\d+\) is swallowed)?$"
)


# -- the default command: a whole game between bots ---------------------------


def test_no_arguments_plays_and_prints_a_whole_game() -> None:
    result = run()
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert result.stderr == ""
    assert out.startswith("Abyss: a game between built-in bots")
    assert re.search(r"seed: \d+", out)
    assert "=== Round 1 ===" in out
    assert re.search(r"^Deal: 12 cards face down to each seat; the discard pile opens with an? -?\d+; "
                     r"125 cards in the draw pile\.$", out, re.M)
    assert re.search(r"^  seat 0 flips \(\d,\d\): -?\d+$", out, re.M)
    assert re.search(r"^Seat \d opens the round \(", out, re.M)
    turns = [line for line in out.splitlines() if re.match(r"^ +\d+\. ", line)]
    assert turns and all(TURN_LINE.match(line) for line in turns), [
        line for line in turns if not TURN_LINE.match(line)
    ][:3]
    assert " ??" in out                                 # face-down cards before the reveal
    assert "Before the final reveal:" in out and "After the final reveal" in out
    assert re.search(r"^Round scores: seat 0: -?\d+", out, re.M)
    assert re.search(r"^Totals after round 1: seat 0: -?\d+, seat 1: -?\d+$", out, re.M)
    last = out.rstrip().splitlines()[-1]
    assert re.match(r"^Game over after \d+ rounds?\. (Winner: seat \d \(\w+\) with -?\d+ points\."
                    r"|Shared win: .* with -?\d+ points each\.)$", last), last


@pytest.mark.rule("6.5", "7.4")
def test_demo_is_reproducible_from_its_seed_and_shows_the_closer_penalty() -> None:
    args = ("--seed", "1", "--variant", "short", "--bots", "random", "random")
    first = run("demo", *args)
    second = run(*args)                               # options alone mean the default command
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    out = first.stdout
    assert "to watch this game again: python -m abyss_rules demo --seed 1 --variant short " in out
    assert "closes the round; every other seat plays one last turn" in out
    # Seed 1 with two random bots: the closer is doubled (rule 6.5).
    match = re.search(r"^Round scores: .*?(-?\d+) x 2 = (-?\d+) \(closer penalty: another seat scored "
                      r"(-?\d+) <= (-?\d+)\)", out, re.M)
    assert match, out[-800:]
    raw, doubled, other, raw_again = map(int, match.groups())
    assert doubled == 2 * raw and raw == raw_again and other <= raw and raw > 0


def _blank_cells(out: str) -> int:
    """How many blank (swallowed) cells the first grid of each grid row line shows."""
    blanks = 0
    for line in out.splitlines():
        if re.match(r"^    \d ", line):
            cells = line[5:17].ljust(12)
            blanks += sum(cells[i:i + 3] == "   " for i in range(0, 12, 3))
    return blanks


@pytest.mark.rule("4.1")
def test_demo_prints_swallowed_columns_as_blanks() -> None:
    out = run("demo", "--seed", "1").stdout
    assert re.search(r"; column \d \(3 x -?\d+\) is swallowed", out), "the seed-1 game has a swallow"
    assert _blank_cells(out) >= 3


def test_demo_quiet_and_other_bots_and_variant() -> None:
    result = run("demo", "--seed", "5", "--variant", "short", "--bots", "random", "greedy", "counting",
                 "--quiet")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"Game over after 1 round\. (Winner|Shared win): .*\n", result.stdout)


def test_demo_with_changed_variant_field() -> None:
    result = run("demo", "--seed", "2", "--set", "max_rounds=2", "--set", "closer_multiplier=1")
    assert result.returncode == 0, result.stderr
    assert "=== Round 2 ===" in result.stdout and "=== Round 3 ===" not in result.stdout
    assert "--set max_rounds=2 --set closer_multiplier=1" in result.stdout


# -- help and usage errors ----------------------------------------------------


@pytest.mark.parametrize("args", [("--help",), ("demo", "--help")])
def test_help(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 0
    assert result.stdout.startswith("usage: abyss-rules")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("demo", "--bots", "greedy", "nobody"), "unknown bot 'nobody'"),
        (("demo", "--bots", "greedy"), "takes 2 to 8 players, got 1"),
        (("demo", "--seed", "abc"), "not an integer"),
        (("demo", "--seed", "-1"), "a seed is an integer from 0"),
        (("demo", "--variant", "huge"), "invalid choice: 'huge'"),
        (("demo", "--set", "rows"), "expected FIELD=VALUE"),
        (("demo", "--set", "colour=red"), "unknown variant field 'colour'"),
        (("demo", "--set", "rows=1"), "invalid variant: [invalid_variant] rows must be"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2_with_a_message(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


# -- play: a human against bots, scripted ----------------------------------------

EVERY_SPACE = "".join(f"f {r} {c}\n" for r in range(3) for c in range(4))


@pytest.mark.rule("2.1", "3.7", "6.1")
def test_play_a_whole_short_game_by_flipping() -> None:
    # Flip every space in order: opening flips, then flip-only turns; repeats are rejected.
    result = run("play", "--seed", "4", "--variant", "short", stdin=EVERY_SPACE * 2)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    out = result.stdout
    assert out.startswith("Abyss: you are seat 0, against seat 1 (counting)")
    assert "opening: flip one of your face-down cards (2 left): f R C" in out
    assert re.search(r"^ +\d+\. seat 0 flips \(\d,\d\): -?\d+$", out, re.M)
    assert re.search(r"^ +\d+\. seat 1 ", out, re.M)               # the bot's turns are told too
    assert "Before the final reveal:" in out and "Round scores: seat 0:" in out
    assert re.search(r"^Game over after 1 round\. ", out, re.M)


@pytest.mark.rule("1.2", "3.2", "3.10")
def test_play_explains_rejected_moves_and_bad_input() -> None:
    script = "f 0 0\nf 0 0\nf 1 1\nzz\nt 1\nd 2\n?\nt 9 9\np 0 0\nd\nd\nx 0 0\nx 0 1\n"
    result = run("play", "--seed", "4", "--variant", "short", stdin=script)
    assert result.returncode == 4                                   # the input ended first
    out = result.stdout
    assert "rejected: space (0, 0) of seat 0 is already face up" in out
    assert "[space_face_up, rule 3.10]" in out
    assert "unknown move 'zz': type ? for help" in out
    assert "'t' needs a space: row and column" in out
    assert "'d' takes no space" in out
    assert "t R C   take the top discard and place it on (R, C)" in out   # the help
    assert "[no_such_space, rule 1.2]" in out
    assert "[wrong_phase, rule 3.2]" in out                           # p before drawing; d twice
    assert "you drew a 7: p R C place it | x R C discard it and flip (R, C)" in out
    assert "seat 0 draws a 7, discards it and flips (0,1):" in out
    assert out.rstrip().endswith("The input ended before the game was over.")


def test_play_other_seat_quit_and_usage_errors() -> None:
    result = run("play", "--seat", "1", "--bots", "random", "greedy", "--seed", "2", stdin="g\nq\n")
    assert result.returncode == 0
    assert result.stdout.startswith("Abyss: you are seat 1, against seat 0 (random), seat 2 (greedy)")
    assert "You left the game." in result.stdout
    bad = run("play", "--seat", "5")
    assert bad.returncode == 2 and "--seat must be from 0 to 1" in bad.stderr
    bad = run("play", "--bots", *["random"] * 8)
    assert bad.returncode == 2 and "you and 8 bot(s) make 9" in bad.stderr


# -- simulate --------------------------------------------------------------------


def test_simulate_prints_a_table() -> None:
    result = run("simulate", "--games", "6", "--seed", "3", "--variant", "short",
                 "--bots", "random", "greedy")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("6 games of short (3x4 grids, 1 round) between random and greedy; seed 3")
    assert lines[1].split()[:3] == ["bot", "games", "win"]
    assert lines[2].startswith("random") and lines[3].startswith("greedy")
    assert result.stderr == ""                                    # no progress bar off a terminal


def test_simulate_json_is_the_same_with_processes_and_shows_progress_on_request() -> None:
    args = ("simulate", "--games", "8", "--seed", "11", "--variant", "short", "--json")
    one = run(*args)
    two = run(*args, "--jobs", "2", "--progress")
    assert one.returncode == two.returncode == 0
    assert json.loads(one.stdout) == json.loads(two.stdout)
    data = json.loads(one.stdout)
    assert data["games"] == 8 and data["seed"] == 11 and data["players"] == 2
    assert [b["bot"] for b in data["bots"]] == ["greedy", "counting"]
    assert sum(b["wins"] for b in data["bots"]) == 8
    assert "8/8 games 100%" in two.stderr and one.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("simulate", "--games", "0"), "--games must be at least 1"),
        (("simulate", "--games", "x"), "invalid int value"),
        (("simulate", "--bots", "greedy", "hal"), "unknown bot 'hal'"),
        (("simulate", "--progress", "--no-progress"), "not allowed with argument"),
        (("simulate", "--jobs", "-1"), "--jobs must be 0 (one per CPU core) or more"),
        (("demo", "--width", "5"), "the width must be at least 20"),
    ],
)
def test_simulate_usage_errors(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_subcommand_help(command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0 and result.stdout.startswith(f"usage: abyss-rules {command}")


def test_the_installed_entry_point_runs_the_same_program() -> None:
    script = shutil.which("abyss-rules")
    if script is None:
        pytest.skip("the abyss-rules script is not installed on PATH")
    args = ["demo", "--seed", "3", "--variant", "short", "--quiet"]
    installed = subprocess.run([script, *args], capture_output=True, text=True, timeout=60, check=False)
    assert installed.returncode == 0
    assert installed.stdout == run(*args).stdout


def test_an_engine_error_during_a_command_exits_1_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    def stalled(*args: object, **kwargs: object) -> None:
        raise SimulationError(Code.GAME_TOO_LONG, "the game did not end within 10 actions")

    monkeypatch.setattr(cli, "play_game", stalled)
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["demo", "--seed", "1"], stdout=out, stderr=err)
    assert status == cli.EXIT_NO == 1
    assert err.getvalue() == "abyss-rules: error: [game_too_long] the game did not end within 10 actions\n"
