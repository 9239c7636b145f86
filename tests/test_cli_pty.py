"""`abyss-rules play` in a real terminal: a pseudo-terminal (the standard library's `pty`) of 80
columns, the program as a real process reading its keys.

A game is played through: mistakes, arrow keys (line editing), the discard pile listed, a
whole round to the end. Everything the terminal shows before the game is over is searched for
every spelling of the game's seed (rule 8.2: secret from every player while the game runs).
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import abyss_rules as ar
from abyss_rules.randomness import normalize_seed

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SEED = 0x5EED_C0DE_1234_ABCD  # long enough that no spelling of it turns up by chance
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
END = "The game's seed was"


def spellings(seed: int) -> list[str]:
    """Every way the seed could be written: decimal, hex (with and without 0x, either case),
    and the 32-byte seed of the record (rule 9.1) in hex."""
    full = normalize_seed(seed).hex()
    return [str(seed), hex(seed), f"{seed:x}", f"{seed:X}", full, full.upper(), full.lstrip("0")]


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A program running in a pseudo-terminal of `cols` columns; what it shows, escapes removed."""

    def __init__(self, args: list[str], cols: int = 80, command: list[str] | None = None,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        """`abyss-rules ARGS` (or `command` + `args`) in a terminal, with `env` added to the environment."""
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
        environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        environment.update({"TERM": "xterm", "INPUTRC": "/dev/null", **(env or {})})
        # A session of its own whose controlling terminal is the pseudo-terminal: Ctrl-C typed
        # there interrupts the program, as in a real terminal.
        program = command if command is not None else [sys.executable, "-m", "abyss_rules"]
        self.process = subprocess.Popen([*program, *args], stdin=slave, stdout=slave, stderr=slave,
                                        env=environment, start_new_session=True, preexec_fn=_take_terminal,
                                        cwd=cwd)
        os.close(slave)
        self.shown = ""

    def read_until(self, pattern: str, timeout: float = 30) -> str:
        """Read until the text shown so far matches `pattern` (a regex) at its end."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.shown):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; the screen ends with:\n"
                                     + self.shown[-1500:])
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the program has ended and closed the terminal
                    chunk = b""
                if not chunk:
                    if re.search(pattern, self.shown):
                        break
                    raise AssertionError(f"the program ended before {pattern!r}:\n" + self.shown[-1500:])
                self.shown += _ESCAPES.sub("", chunk.decode("utf-8", "replace"))
        return self.shown

    def prompt(self) -> str:
        return self.read_until(r"\n> $")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def resize(self, cols: int) -> None:
        """Make the window `cols` columns wide, as a user's resize does (the program gets SIGWINCH)."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            os.close(self.master)


def _play(tmp_path: Path) -> tuple[str, Path, int]:
    record = tmp_path / "game.json"
    term = Terminal(["play", "--variant", "short", "--seed", str(SEED), "--record", str(record)])
    try:
        term.prompt()
        term.type("f 0 0\r")
        term.prompt()
        term.type("f 0 0\r")                 # a mistake: that card is face up already
        term.prompt()
        term.type("zz\r")                    # a mistake: not a move
        term.prompt()
        # Arrow keys are line editing (readline), not part of the move: "f 0 " left, right, "3".
        term.type("f 1 \x1b[D\x1b[C1\r")
        screen = term.prompt()
        assert "unknown move" not in screen.split("zz")[-1], screen[-800:]
        term.type("l\r")                     # the discard pile and the unseen cards
        term.prompt()
        term.type("d\r")
        term.prompt()
        term.type("g\r")                     # the table, in the drawn phase too
        term.prompt()
        term.type("p 9 9\r")                 # a mistake: no such space
        term.prompt()
        term.type("x 0 1\r")
        # Then flip every space, in order, until the game is over (flips of face-up cards are
        # refused and the next one is tried).
        spaces = [f"f {r} {c}\r" for r in range(3) for c in range(4)] * 2
        for keys in spaces:
            screen = term.read_until(r"(\n> $|Game over after .*\n(.|\n)*" + END + ".*\n)")
            if END in screen:
                break
            term.type(keys)
        screen = term.read_until(END + r".*\n(.|\n)*abyss-rules replay")
        status = term.close()
    finally:
        if term.process.poll() is None:
            term.process.kill()
    return term.shown, record, status


@pytest.mark.rule("8.2", "2.2", "5.3")
def test_a_game_in_a_terminal_never_shows_the_seed_before_it_is_over(tmp_path: Path) -> None:
    screen, record_path, status = _play(tmp_path)
    assert status == 0, screen[-2000:]
    before, _, after = screen.partition(END)
    assert "Game over after 1 round." in before
    for spelling in spellings(SEED):
        assert spelling not in before, f"the seed shows as {spelling!r} before the game is over"
    assert after.startswith(f" {SEED} ")                             # and is told at the end
    record = ar.Record.from_json(record_path.read_text())
    assert record.seed == normalize_seed(SEED) and record.names == ("you", "counting")
    # The mistakes were told, the discard pile listed, the table shown after the draw.
    assert "rejected: space (0, 0) of your grid is already face up" in before
    assert "unknown move 'zz'" in before
    assert "[no_such_space, rule 1.2]" in before
    assert re.search(r"^Discard pile, newest first \(\d+ cards? since the last reshuffle\): -?\d+", before,
                     re.M)
    assert re.search(r"^  unseen +\d", before, re.M)
    drawn = before[before.index("> d\n"):before.index("> p 9 9")]
    assert "face-up sums: seat 0 (you)" in drawn and "      0  1  2  3" in drawn
    # Your opening flips come before the bot's (rule 2.2): none of its flips is shown earlier.
    assert before.index("seat 0 flips (1,1)") < before.index("seat 1 flips")
    # At 80 columns, no line is longer than the terminal.
    assert max(len(line) for line in screen.splitlines()) <= 80, \
        max(screen.splitlines(), key=len)


def test_ctrl_c_starts_its_message_on_a_new_line(tmp_path: Path) -> None:
    term = Terminal(["play", "--variant", "short", "--record", str(tmp_path / "game.json")])
    try:
        term.prompt()
        term.type("f 0")
        time.sleep(0.3)
        term.type("\x03")                    # Ctrl-C at the prompt
        screen = term.read_until(r"abyss-rules: interrupted\s*$")
        status = term.close()
    finally:
        if term.process.poll() is None:
            term.process.kill()
    assert status == 130
    assert re.search(r"\n" + END + r" \d+ ", screen), screen[-600:]   # on a line of its own
    assert "\nThe record of the game (0 actions) is in" in screen


@pytest.mark.rule("8.2")
def test_leaving_a_game_tells_the_seed_after_you_have_left(tmp_path: Path) -> None:
    term = Terminal(["play", "--seed", str(SEED), "--bots", "greedy", "random", "--seat", "2"])
    try:
        term.prompt()
        term.type("f 1 1\r")
        term.prompt()
        term.type("q\r")                     # asks first: anything but y plays on
        term.read_until(r"Type y to leave, anything else to play on\.\n> $")
        term.type("\r")
        term.prompt()
        term.type("q\r")
        term.read_until(r"play on\.\n> $")
        term.type("y\r")
        screen = term.read_until(END + r".*\n")
        status = term.close()
    finally:
        if term.process.poll() is None:
            term.process.kill()
    assert status == 0
    before, _, after = screen.partition(END)
    assert before.rstrip().endswith("You left the game.")
    assert before.count("You left the game.") == 1 and before.count("Leave the game?") == 2
    for spelling in spellings(SEED):
        assert spelling not in before
    assert after.startswith(f" {SEED} ")


def test_a_resized_terminal_is_followed(tmp_path: Path) -> None:
    """The width is read again for every line: after the window shrinks from 100 to 44 columns,
    the table and the words fit the new width (no line broken by the terminal mid-word)."""
    term = Terminal(["play", "--variant", "short", "--seed", str(SEED), "--bots", "counting", "greedy"],
                    cols=100)
    try:
        screen = term.prompt()
        assert max(len(line) for line in screen.splitlines()) > 44  # (three grids side by side)
        term.resize(44)
        term.type("g\r")
        # (readline draws its prompt again after a resize: "> > ")
        term.read_until(r"> g\n(.|\n)*\n(> )+$")
        term.type("?\r")
        shown = term.read_until(r"\?\n(.|\n)*Goal(.|\n)*\n(> )+$")[len(screen):]
    finally:
        term.process.kill()
        term.close()
    assert "Round 1: discard pile" in shown and "Goal: the lowest total wins." in shown
    assert max(len(line) for line in shown.splitlines()) <= 44, max(shown.splitlines(), key=len)


@pytest.mark.parametrize(("args", "names"), [(["--level", "easy"], ["greedy"]),
                                             (["--level", "hard", "--opponents", "2"], ["expert", "expert"])])
def test_a_level_picks_the_opponents(args: list[str], names: list[str]) -> None:
    term = Terminal(["play", "--variant", "short", "--seed", str(SEED), *args])
    try:
        screen = term.prompt()
        term.type("f 0 0\r")
        term.prompt()
        term.type("f 0 1\r")
        term.prompt()                   # the bots' opening flips are made, after yours
        term.type("q\r")
        term.prompt()                   # "Leave the game?": it asks first
        term.type("y\r")
        screen = term.read_until(END + r".*\n")
        status = term.close()
    finally:
        if term.process.poll() is None:
            term.process.kill()
    assert status == 0
    intro = screen.splitlines()[0]
    assert intro == "Abyss: you are seat 0, against " + ", ".join(
        f"seat {p} ({n})" for p, n in enumerate(names, start=1)), intro
    for p in range(1, len(names) + 1):
        assert f"seat {p} flips" in screen


def test_a_level_and_bots_together_are_a_usage_error() -> None:
    for args in (["--level", "hard", "--bots", "greedy"], ["--bots", "greedy", "--opponents", "2"],
                 ["--level", "medium", "--opponents", "0"], ["--level", "expert"]):
        done = subprocess.run([sys.executable, "-m", "abyss_rules", "play", *args], capture_output=True,
                              text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
