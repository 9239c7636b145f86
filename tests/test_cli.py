"""The ``abyss-rules`` command line, run as a real subprocess (``python -m abyss_rules ...``)."""

from __future__ import annotations

import functools
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import abyss_rules as ar
from abyss_rules import cli
from abyss_rules.errors import Code
from abyss_rules.pictures import replay_html
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
    assert out.startswith("Abyss: a game between built-in bots; the lowest total wins\n")
    # The closer penalty is explained once, where a seat first closes.
    assert out.count("(closer penalty, rule 6.5: the closer's round score is multiplied by 2 unless it is "
                     "strictly the lowest or not above 0)") == 1
    # Seed 1 with two random bots: the closer is doubled (rule 6.5).
    match = re.search(r"^Round scores: .*?(-?\d+) x 2 = (-?\d+) \(closer penalty: another seat scored "
                      r"(-?\d+) <= (-?\d+)\)", out, re.M)
    assert match, out[-800:]
    raw, doubled, other, raw_again = map(int, match.groups())
    assert doubled == 2 * raw and raw == raw_again and other <= raw and raw > 0


def _reveal_blocks(out: str) -> list[tuple[str, str]]:
    """Each round's (before, after) final-reveal grids, as printed ("" where a block is absent)."""
    blocks = []
    for part in out.split("Round scores:")[:-1]:
        tail = part[part.rindex(" ends"):]
        if "The final reveal changes nothing" in tail:
            blocks.append((tail.split("changes nothing (no face-down card is left):\n")[1], ""))
        else:
            before, after = tail.split("Before the final reveal:\n")[1].split("After the final reveal")
            blocks.append((before, after.split("\n", 1)[1]))
    return blocks


def test_demo_prints_the_grids_after_the_final_reveal_only_when_they_differ() -> None:
    # Seed 3 (short): nothing is face down at the end; seed 2 (standard): three rounds, some revealing.
    quiet = run("demo", "--seed", "3", "--variant", "short").stdout
    assert "The final reveal changes nothing (no face-down card is left):" in quiet
    assert "Before the final reveal:" not in quiet
    rounds = _reveal_blocks(run("demo", "--seed", "2").stdout) + _reveal_blocks(quiet)
    assert any(after for _, after in rounds), "some round of these games reveals cards"
    for before, after in rounds:
        assert before and before != after
    no_penalty = run("demo", "--seed", "2", "--set", "closer_multiplier=1").stdout
    assert "closes the round" in no_penalty and "closer penalty" not in no_penalty


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
    assert "rejected: space (0, 0) of your grid is already face up" in out   # "you", not "seat 0"
    rejections = [line for line in out.splitlines() if "rejected:" in line]
    assert rejections and not any("seat 0" in line for line in rejections), rejections
    assert "[space_face_up, rule 3.10]" in out
    assert "unknown move 'zz': type ? for help" in out
    assert "'t' needs a space: row and column" in out
    assert "'d' takes no space" in out
    assert "t R C   take the top discard and place it on (R, C)" in out   # the help
    assert "[no_such_space, rule 1.2]" in out
    assert "[wrong_phase, rule 3.2]" in out                           # p before drawing; d twice
    assert "you drew a 7: p R C place it | x R C discard it and flip (R, C)" in out
    assert "seat 0 draws a 7, discards it and flips (0,1):" in out
    assert out.rstrip().endswith("The input ended before the game was over.\n"
                                 "The game's seed was 4 (kept secret while you played, rule 8.2).")


@pytest.mark.rule("5.3", "8.1", "8.2")
def test_play_lists_the_discard_pile_and_tells_the_seed_only_at_the_end() -> None:
    seed = 0x5EED_0F_7AB1E
    result = run("play", "--seed", str(seed), "--variant", "short", "--seat", "1",
                 stdin="l\nf 0 0\nf 0 1\nl\nd\ng\nq\ny\n")
    assert result.returncode == 0, result.stderr
    before, end, after = result.stdout.partition("The game's seed was")
    assert end and after.startswith(f" {seed} ")
    assert str(seed) not in before and f"{seed:x}" not in before
    listing = re.findall(r"^Discard pile, newest first \((\d+) cards? since the last reshuffle\): (.*)$",
                         before, re.M)
    assert listing and all(len(pile.split(", ")) == int(n) for n, pile in listing)
    unseen = re.findall(r"^  unseen ((?: +\d+)+)$", before, re.M)
    assert len(unseen) == 2 and sum(map(int, unseen[0].split())) == 150 - 1   # only the discard is seen
    assert sum(map(int, unseen[1].split())) == 150 - 1 - 4                   # and the four opening flips
    drawn = before[before.index("> d\n"):]
    assert "face-up sums: seat 0 (counting)" in drawn and "  seat 0 (counting)" in drawn   # g after a draw


def test_play_other_seat_quit_and_usage_errors() -> None:
    result = run("play", "--seat", "1", "--bots", "random", "greedy", "--seed", "2", stdin="g\nq\nn\nq\ny\n")
    assert result.returncode == 0
    assert result.stdout.startswith("Abyss: you are seat 1, against seat 0 (random), seat 2 (greedy)")
    # q asks first: an answer other than y plays on; y leaves.
    asked = "Leave the game? Type y to leave, anything else to play on."
    assert result.stdout.count(asked) == 2
    first_no = result.stdout.index("> n\n")
    assert "You left the game." not in result.stdout[:first_no]
    assert result.stdout.index("> y\nYou left the game.") > first_no
    bad = run("play", "--seat", "5")
    assert bad.returncode == 2 and "--seat must be from 0 to 1" in bad.stderr
    bad = run("play", "--bots", *["random"] * 8)
    assert bad.returncode == 2 and "you and 8 bot(s) make 9" in bad.stderr


@pytest.mark.rule("6.1")
def test_play_tells_you_it_is_your_last_turn_once_a_bot_has_closed() -> None:
    # You only ever draw and place on a face-up card (never closing); the bot closes the round.
    script = "f 0 0\nf 0 1\n" + "d\np 0 0\n" * 150
    out = run("play", "--seed", "5", "--variant", "short", stdin=script).stdout
    closed = out.index("closes the round")
    cue = "YOUR LAST TURN (seat 1 (counting) closed the round; then every grid is revealed and scored): "
    assert cue not in out[:closed]
    assert re.search("^" + re.escape(cue) + r"t R C take the -?\d+ \| d draw \| f R C flip only\n> d\n"
                     + re.escape(cue) + "you drew", out[closed:], re.M), \
        out[closed:closed + 2000]


def test_play_help_is_wrapped_and_says_each_thing_once() -> None:
    result = run("play", "--help")
    assert result.returncode == 0
    out = result.stdout
    assert max(len(line) for line in out.splitlines()) <= 100, out
    assert out.count("counted from 0") == 1
    assert "the lowest total wins" in out
    assert "t R C   take the top discard and place it on (R, C)" in out


@pytest.mark.rule("4.1", "6.5", "7.4")
def test_play_question_mark_tells_the_goal_swallowing_and_the_closer_penalty() -> None:
    out = run("play", "--seed", "4", "--variant", "short", "--set", "closer_multiplier=3",
              stdin="?\nq\ny\n").stdout
    help_text = out[out.index("> ?"):out.index("You left the game.")]
    assert "t R C   take the top discard" in help_text
    assert "Goal: the lowest total wins." in help_text
    assert "Swallowing: 3 equal face-up cards in a column are swallowed" in help_text
    assert "Closer penalty: the closer's round score is multiplied by 3 unless it is strictly the lowest" \
        in help_text
    plain = run("play", "--seed", "4", "--variant", "short", "--set", "closer_multiplier=1",
                stdin="?\nq\ny\n").stdout
    assert "Goal: the lowest total wins." in plain and "Closer penalty" not in plain


def test_play_rejections_at_another_seat_say_you() -> None:
    # At seat 1 you flip first all the same (rule 2.2); then seat 0 opens or seat 1 does: try both.
    out = run("play", "--seat", "1", "--seed", "4", "--variant", "short",
              stdin="f 0 0\nf 0 0\nd\n").stdout
    assert "rejected: space (0, 0) of your grid is already face up" in out
    assert not any("seat 1" in line for line in out.splitlines() if "rejected:" in line)


@pytest.mark.parametrize(
    ("message", "me", "said"),
    [
        ("it is seat 1's turn, not seat 0's", 0, "it is seat 1's turn, not yours"),
        ("seat 2 holds a drawn card to place or discard: seat 2 cannot draw", 2,
         "you hold a drawn card to place or discard: you cannot draw"),
        ("seat 0 has already made its 2 opening flips", 0, "you have already made your 2 opening flips"),
        ("seat 1 has already made its 2 opening flips", 0, "seat 1 has already made its 2 opening flips"),
        ("space (0, 1) of seat 3 was swallowed", 3, "space (0, 1) of your grid was swallowed"),
        ("space (0, 1) of seat 13 was swallowed", 1, "space (0, 1) of seat 13 was swallowed"),
    ],
)
def test_engine_messages_about_the_human_say_you(message: str, me: int, said: str) -> None:
    from abyss_rules.cli._play import _to_you
    assert _to_you(message, me) == said


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

    monkeypatch.setattr(cli._commands, "play_game", stalled)  # demo runs in cli/_commands.py
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["demo", "--seed", "1"], stdout=out, stderr=err)
    assert status == cli.EXIT_NO == 1
    assert err.getvalue() == "abyss-rules: error: [game_too_long] the game did not end within 10 actions\n"


# -- records and replay ------------------------------------------------------------


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    result = run("demo", "--seed", "3", "--variant", "short", "--quiet", "--record", str(path))
    assert result.returncode == 0, result.stderr
    return path


@pytest.mark.rule("9.5")
def test_demo_record_replays_to_the_same_game(record_file: Path) -> None:
    record = ar.Record.from_json(record_file.read_text())
    assert record.final_hash is not None and record.replay().is_over
    watched = run("demo", "--seed", "3", "--variant", "short").stdout
    replayed = run("replay", str(record_file))
    assert replayed.returncode == 0, replayed.stderr
    out = replayed.stdout
    assert out.startswith("Replay of a record: 2 players, variant short (3x4 grids, 1 round), ")
    assert record.names == ("greedy", "counting")                    # the record names the bots
    assert out.splitlines()[1] == "  seat 0 (greedy)   seat 1 (counting)"
    # The same turns and the same last line as the demo told them.
    assert out.splitlines()[-2] == watched.splitlines()[-1]
    turns = [line for line in watched.splitlines() if re.match(r"^ +\d+\. ", line)]
    assert turns == [line for line in out.splitlines() if re.match(r"^ +\d+\. ", line)]
    assert f"Final state hash: {record.final_hash} (matches the record)" in out
    quiet = run("replay", "--quiet", "-", stdin=record_file.read_text())
    assert quiet.returncode == 0
    assert quiet.stdout.splitlines() == [
        "Game over after 1 round. Winner: seat 1 (counting) with 7 points.",
        f"Final state hash: {record.final_hash} (matches the record)",
    ]


def test_replay_step_by_step(record_file: Path) -> None:
    result = run("replay", "--step", str(record_file), stdin="\n\nq\n")
    assert result.returncode == 0
    assert result.stdout.count("[Enter: next, q: stop]") == 3
    assert result.stdout.rstrip().endswith("Replay stopped.")
    assert run("replay", "--step", "-", stdin="").returncode == 2


def test_replay_writes_an_html_page(record_file: Path, tmp_path: Path) -> None:
    page = tmp_path / "replay.html"
    result = run("replay", str(record_file), "--html", str(page))
    assert result.returncode == 0, result.stderr
    record = ar.Record.from_json(record_file.read_text())
    assert page.read_text(encoding="utf-8") == replay_html(record)
    lines = result.stdout.splitlines()
    assert re.fullmatch(rf"Wrote the replay page {re.escape(str(page))} \(\d+ KB\): open it in a browser "
                        r"and step with the buttons or the arrow keys\.", lines[0])
    assert lines[1:] == ["Game over after 1 round. Winner: seat 1 (counting) with 7 points.",
                         f"Final state hash: {record.final_hash} (matches the record)"]
    unwritable = run("replay", str(record_file), "--html", str(tmp_path / "no" / "such" / "dir.html"))
    assert unwritable.returncode == 3 and "cannot write the replay page to" in unwritable.stderr
    assert unwritable.stdout == ""
    both = run("replay", str(record_file), "--html", str(page), "--step")
    assert both.returncode == 2 and "--step and --html do not go together" in both.stderr


@pytest.mark.rule("3.2")
def test_replay_reports_a_bad_record(record_file: Path, tmp_path: Path) -> None:
    doc = json.loads(record_file.read_text())
    assert doc["actions"][4] == "1t10"                             # seat 1 opens and takes
    illegal = dict(doc, actions=doc["actions"][:5] + ["1d"], final_hash=None)
    (tmp_path / "illegal.json").write_text(json.dumps(illegal))
    result = run("replay", str(tmp_path / "illegal.json"))
    assert result.returncode == 1
    assert "[replay_failed] /actions/5: action 5 (1d) cannot be replayed: [not_your_turn]" in result.stderr
    assert re.search(r"^ +1\. seat 1 takes the 0", result.stdout, re.M)   # told up to the bad action
    wrong_hash = dict(doc, final_hash="0" * 64)
    (tmp_path / "hash.json").write_text(json.dumps(wrong_hash))
    result = run("replay", str(tmp_path / "hash.json"))
    assert result.returncode == 1 and "[replay_mismatch]" in result.stderr
    redacted = ar.Record.from_json(record_file.read_text()).redact().to_json()
    result = run("replay", "-", stdin=redacted)
    assert result.returncode == 1 and "[record_redacted]" in result.stderr
    for text, message in [("{not json", "is not a record document: [invalid_json]"),
                          ('{"format": "state"}', "is not a record document: [")]:
        result = run("replay", "-", stdin=text)
        assert result.returncode == 3 and message in result.stderr and "Traceback" not in result.stderr
    result = run("replay", str(tmp_path / "missing.json"))
    assert result.returncode == 3 and "cannot read" in result.stderr


def test_play_record_is_written_when_the_input_ends(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    result = run("play", "--seed", "4", "--variant", "short", "--record", str(path),
                 stdin="f 0 0\nf 1 1\nd\n")
    assert result.returncode == 4
    record = ar.Record.from_json(path.read_text())
    assert record.notation()[:4] == ("0f00", "0f11", "1f00", "1f10")   # you flip first (rule 2.2)
    assert record.names == ("you", "counting")
    assert f"The record of the game ({len(record.actions)} actions) is in {path}: " \
           f"abyss-rules replay {path}" in result.stdout
    replayed = run("replay", str(path))
    assert replayed.returncode == 0
    assert "The record ends here: round 1, phase drawn, seat 0 to play." in replayed.stdout


# -- validate ---------------------------------------------------------------------


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    path.write_text(ar.dumps_state(ar.new_game(2, seed=4)))
    return path


@functools.cache
def verdict_schema() -> dict[str, object]:
    schema: dict[str, object] = json.loads(run("schema", "verdict").stdout)
    return schema


def verdict(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    """The verdict document a command printed, checked against its JSON Schema."""
    doc: dict[str, object] = json.loads(result.stdout)
    jsonschema.validate(doc, verdict_schema())
    return doc


@pytest.mark.rule("2.1", "3.2")
def test_validate_prints_a_verdict_and_sets_the_exit_status(state_file: Path, tmp_path: Path) -> None:
    action = tmp_path / "action.json"
    action.write_text(ar.dumps_action(ar.Flip(0, 1, 2)))
    legal = run("validate", str(state_file), str(action))
    assert legal.returncode == 0 and verdict(legal)["legal"] is True
    illegal = run("validate", str(state_file), "--notation", "1d")
    doc = verdict(illegal)
    assert illegal.returncode == 1
    assert (doc["legal"], doc["code"], doc["rule"], doc["seq"]) == (False, "wrong_phase", "3.2", 0)
    piped = run("validate", str(state_file), "-", stdin=action.read_text())
    assert piped.returncode == 0
    pair = json.dumps({"state": json.loads(state_file.read_text()), "action": "0f99"})
    result = run("validate", stdin=pair)
    assert result.returncode == 1 and verdict(result)["code"] == "no_such_space"


def test_validate_server_checks(state_file: Path) -> None:
    other = run("validate", str(state_file), "--notation", "1f00", "--player", "0")
    assert other.returncode == 1 and verdict(other)["code"] == "seat_mismatch"
    stale = run("validate", str(state_file), "--notation", "0f00", "--seq", "3")
    assert stale.returncode == 1 and verdict(stale)["code"] == "stale_action"
    unsure = run("validate", str(state_file), "--notation", "0f00", "--require-seq")
    assert unsure.returncode == 1 and verdict(unsure)["code"] == "missing_field"


def test_validate_bad_input(state_file: Path, tmp_path: Path) -> None:
    bad_action = run("validate", str(state_file), "-", stdin='{"format": "action", ')
    assert bad_action.returncode == 1 and verdict(bad_action)["code"] == "invalid_json"
    (tmp_path / "bad.json").write_text('{"format": "state"}')
    bad_state = run("validate", str(tmp_path / "bad.json"), "--notation", "0d")
    assert bad_state.returncode == 3 and verdict(bad_state)["code"] == "missing_field"
    assert "the state is not a valid state document" in bad_state.stderr
    missing = run("validate", str(tmp_path / "nope.json"), "--notation", "0d")
    assert missing.returncode == 3 and verdict(missing)["code"] == "unreadable_input"
    for text in ["{", "[]", '{"state": {}, "action": "0d", "extra": 1}']:
        result = run("validate", stdin=text)
        assert result.returncode == 3, text
        assert verdict(result)["code"] in ("invalid_json", "wrong_format")
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("text", "code"), [
    ('{"state": {}, "state": {}}', "duplicate_field"),
    ('{"state": NaN, "action": "0d"}', "invalid_json"),
    ('{"state": Infinity, "action": "0d"}', "invalid_json"),
    ("[" * 200 + "]" * 200, "too_deep"),
])
def test_validate_parses_json_as_strictly_as_the_loaders(text: str, code: str) -> None:
    result = run("validate", stdin=text)
    assert result.returncode == 3 and verdict(result)["code"] == code
    assert result.stderr.startswith("abyss-rules: error: standard input: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("validate", "-", "-"), "only one of STATE and ACTION"),
        (("validate", "--notation", "0d"), "--notation needs a STATE file"),
        (("validate", "state.json"), "give the action"),
        (("validate", "s.json", "a.json", "--notation", "0d"), "not both"),
        (("schema", "nope"), "no schema 'nope'"),
        (("validate", "--player", "x"), "invalid int value"),
    ],
)
def test_document_commands_usage_errors(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2 and message in result.stderr


# -- schema ---------------------------------------------------------------------


def test_schema_prints_the_json_schemas() -> None:
    names = run("schema", "--list").stdout.split()
    assert names == ["action", "events", "record", "state", "variant", "verdict", "view"]
    everything = json.loads(run("schema").stdout)
    assert sorted(everything) == names
    for name in names:
        one = json.loads(run("schema", name).stdout)
        assert one == everything[name]
        assert one["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(one)
    state = json.loads(ar.dumps_state(ar.new_game(2, seed=1)))
    jsonschema.validate(state, everything["state"])


@pytest.mark.parametrize("command", ["replay", "validate", "schema"])
def test_document_command_help(command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0 and result.stdout.startswith(f"usage: abyss-rules {command}")
