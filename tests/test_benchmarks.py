"""The benchmark scripts still run (tiny sizes): a benchmark that breaks is found by the suite,
not by the next person who measures."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_the_bot_benchmark_counts_opcodes_by_phase(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`bot_instructions.py --opcodes` replays recorded games (checking every decision) and
    prints opcodes per decision by phase and the functions that run most."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it imports arguments.py from beside it
    monkeypatch.setattr(sys, "argv", ["bot_instructions.py", "--opcodes", "--games", "1", "--top", "3"])
    runpy.run_path(str(BENCHMARKS / "bot_instructions.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    heads = [line for line in lines if "opcodes per decision" in line]
    assert [h.split()[0] for h in heads] == ["greedy", "counting"]
    assert all("opening" in h and "turn" in h and "drawn" in h for h in heads)
    listed = [line for line in lines if line.startswith("  ")]
    assert len(listed) == 6 and any("planner.py:" in line for line in listed)


@pytest.mark.parametrize(("option", "value"), [("--games", "0"), ("--top", "0"), ("--warm", "-1")])
def test_the_bot_benchmark_refuses_counts_below_their_least(option: str, value: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", ["bot_instructions.py", "--opcodes", option, value])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "bot_instructions.py"), run_name="__main__")
    assert ended.value.code == 2  # argparse's usage error, before any game is recorded
    assert f"argument {option}" in capsys.readouterr().err


def test_the_batch_benchmark_runs_and_profiles(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy")
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it imports playouts.py from beside it
    monkeypatch.setattr(sys, "argv", ["batch.py", "--seconds", "0.05", "--sizes", "16", "--per-lane", "1",
                                      "--repeat", "1", "--profile"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "batch.py"), run_name="__main__")
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert "batch N=16" in out and "every run's ratio" in out
    assert "where the CPU time goes" in out and "SHA-256 blocks" in out


def test_the_batch_benchmark_runs_another_engine_beside_them(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # A stand-in engine that "played" 3,000 turns in 20 games: its row, ratios and every run.
    pytest.importorskip("numpy")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    command = f"{sys.executable} -c 'print(\"warming up\"); print(3000, 20)'"
    monkeypatch.setattr(sys, "argv", ["batch.py", "--seconds", "0.05", "--sizes", "16", "--per-lane", "1",
                                      "--repeat", "2", "--peer", f"stand-in={command}"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "batch.py"), run_name="__main__")
    assert ended.value.code == 0
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.split()[:1] == ["stand-in"])
    assert len(row) == 5 and all(float(x.replace(",", "")) > 0 for x in row[1:])
    assert "stand-in: " in out.split("every run's ratio")[1]
    monkeypatch.setattr(sys, "argv", ["batch.py", "--peer", "no-command"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "batch.py"), run_name="__main__")
    assert ended.value.code == 2


@pytest.mark.parametrize("option", ["--repeat", "--per-lane", "--sizes"])
def test_the_batch_benchmark_refuses_counts_below_one(option: str, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", ["batch.py", option, "0"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "batch.py"), run_name="__main__")
    assert ended.value.code == 2  # argparse's usage error, before any run
    assert f"argument {option}" in capsys.readouterr().err


def test_the_hashing_benchmark_times_each_way_and_checks_their_blocks(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`hashing.py` times the pure path (and the compiled module's two ways where it is built),
    after checking that each gives the pure path's blocks."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", ["hashing.py", "--games", "3", "--blocks", "2", "--repeat", "1"])
    runpy.run_path(str(BENCHMARKS / "hashing.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "3 seeds x 2 blocks" in out and "pure Python (hashlib per block)" in out
    import importlib.util

    built = importlib.util.find_spec("abyss_rules._sha256_blocks") is not None
    assert ("compiled, portable C" in out) is built


def test_the_bot_table_sampling_and_search_latency_benchmarks_run(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`bot_table.py` prints a Markdown row per pairing with a Wilson interval; `sampling.py` and
    `search_latency.py` print their rates."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # search_latency.py imports compiled.py from beside it
    pairs = ["random:greedy", "search:counting", "greedy:counting"]
    table = ["--pairs", *pairs, "--games", "2", "--jobs", "1", "--rollouts", "4"]
    for script, args in (("bot_table.py", table),
                         ("sampling.py", ["--seconds", "0.01", "--repeats", "1"]),
                         ("search_latency.py", ["--games", "1", "--rollouts", "4"]),
                         ("search_latency.py", ["--games", "1", "--bot", "expert"]),
                         ("bot_weights.py", ["--games", "2", "--seed", "1", '{"closing_margin": 10.0}'])):
        monkeypatch.setattr(sys, "argv", [script, *args])
        with pytest.raises(SystemExit) as ended:
            runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
        assert ended.value.code == 0
    out = capsys.readouterr().out
    assert "| `random` vs `greedy` | 0.0% | 0.0% - " in out and "| `search` vs `counting` |" in out
    assert "samples/s" in out and "searched:" in out
    assert "expert against counting" in out and "every decision:" in out
    assert '{"closing_margin": 10.0}: 2 games, seed 1: share ' in out and "paired difference" in out
    assert "| `counting` | 1500 | (anchor) |" in out and "| `greedy` | " in out  # the ratings table


def test_the_representation_benchmark_prints_its_ratios(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`representation.py` times each representation against the plain way and prints the ratio
    (the batch engine's indexing only with NumPy)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it imports arguments.py from beside it
    monkeypatch.setattr(sys, "argv", ["representation.py", "--calls", "20", "--repeat", "1"])
    runpy.run_path(str(BENCHMARKS / "representation.py"), run_name="__main__")
    out = capsys.readouterr().out
    try:
        import numpy  # noqa: F401
    except ImportError:
        assert out.count("ratio: ") == 2 and "NumPy is not installed" in out
    else:
        assert out.count("ratio: ") == 4 and "a pair of index arrays" in out
    assert "a State of 17 fields" in out and "a View" in out


def test_the_server_load_benchmark_runs_old_and_new_and_checks_every_acknowledged_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`server_load.py` exports the old example server from git history, runs it and the shipped
    server on SQLite, and prints a row for each and their ratio (a missing move would end it)."""
    pytest.importorskip("uvicorn")
    import subprocess

    root = BENCHMARKS.parent
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import server_load
    finally:
        sys.path.remove(str(BENCHMARKS))
    if subprocess.run(["git", "cat-file", "-e", f"{server_load.OLD_COMMIT}^{{commit}}"], cwd=root,
                      capture_output=True, check=False).returncode != 0:
        pytest.skip(f"this checkout has no commit {server_load.OLD_COMMIT} (a shallow clone)")
    assert server_load.main(["--seconds", "1", "--rounds", "1", "--clients", "2", "--workers", "1",
                             "--backends", "sqlite"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.startswith("sqlite ")]
    assert sorted(row[2] for row in rows) == ["new", "old"] and all(int(row[3]) > 0 for row in rows)
    assert any(line.startswith("sqlite: new / old per round: moves/s") for line in lines)


@pytest.mark.parametrize("game", ["swaps", "largest"])
def test_the_check_views_benchmark_runs(game: str, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["check_views.py", "--game", game, "--actions", "300", "--views", "4",
                                      "--traced"])
    with pytest.raises(SystemExit) as ended:
        runpy.run_path(str(BENCHMARKS / "check_views.py"), run_name="__main__")
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert "300 actions" in out and "4 views of seat 0" in out and "peak allocated" in out
