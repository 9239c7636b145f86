"""The bots' speed as a user installs them: the compiled wheel against the pure one, both from the sdist.

    python benchmarks/installed.py [--games 20] [--rounds 3] [--keep DIR]

Builds the sdist, then from it (pip's isolated build, `python -m build`) the wheel a user's
`pip install abyss-rules` builds -- compiled where a C compiler is found -- and the pure wheel
(`ABYSS_RULES_PURE=1`, what an install without a compiler gets), installs each alone in a fresh
virtual environment, and plays the same games in both: `--games` games between two GreedyBots and
between two CountingBots (fixed seeds), timed by CPU time in a child process of each environment.
The two environments alternate, `--rounds` times; the table gives each lineup's CPU seconds per
game in each and the ratio (pure / compiled) of every round, with the median.

Not a test: the machines are shared and noisy; read the ratios of one run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, time
from abyss_rules import bots
from abyss_rules.bots import CountingBot, GreedyBot
from abyss_rules.simulation import play_game
games = int(sys.argv[1])
out = [str(bots.COMPILED)]
for bot in (GreedyBot, CountingBot):
    play_game([bot(), bot()], seed=999)  # (warm: imports, caches)
    start = time.process_time()
    for seed in range(games):
        play_game([bot(), bot()], seed=seed)
    out.append(repr((time.process_time() - start) / games))
print(" ".join(out))
"""


def build(out: Path) -> tuple[Path, Path, Path]:
    """(sdist, compiled wheel, pure wheel): both wheels built from the sdist, isolated."""
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", out, ROOT], check=True,
                   capture_output=True)
    (sdist,) = out.glob("*.tar.gz")
    environment = {k: v for k, v in os.environ.items() if k != "ABYSS_RULES_PURE"}
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", out / "compiled", sdist],
                   check=True, capture_output=True, env=environment)
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", out / "pure", sdist],
                   check=True, capture_output=True, env={**environment, "ABYSS_RULES_PURE": "1"})
    (compiled,), (pure,) = (out / "compiled").glob("*.whl"), (out / "pure").glob("*.whl")
    return sdist, compiled, pure


def install(wheel: Path, home: Path) -> Path:
    """A fresh virtual environment holding `wheel` alone (and its dependency, attrs); its Python."""
    venv.create(home, with_pip=True)
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel],
                   check=True)
    return python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per lineup per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build and install here (kept) instead of a temporary dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        work = args.keep or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        sdist, compiled, pure = build(work / "dist")
        print(f"Python {platform.python_version()} on {platform.machine()}; from {sdist.name}:")
        print(f"  compiled: {compiled.name}\n  pure:     {pure.name}")
        pythons = {"compiled": install(compiled, work / "venv-compiled"),
                   "pure": install(pure, work / "venv-pure")}
        seconds: dict[str, list[list[float]]] = {"compiled": [], "pure": []}
        for _ in range(args.rounds):
            for kind, python in pythons.items():
                line = subprocess.run([python, "-c", CHILD, str(args.games)], check=True, capture_output=True,
                                      text=True, cwd=work).stdout.split()
                assert line[0] == str(kind == "compiled"), (kind, line)  # bots.COMPILED as built
                seconds[kind].append([float(x) for x in line[1:]])
    print(f"\nCPU ms per game ({args.games} games per lineup per round, {args.rounds} rounds alternating):")
    print(f"{'lineup':<22}{'compiled':>10}{'pure':>10}   pure / compiled (each round; median)")
    for i, lineup in enumerate(("GreedyBot x2", "CountingBot x2")):
        c = [r[i] for r in seconds["compiled"]]
        p = [r[i] for r in seconds["pure"]]
        ratios = [b / a for a, b in zip(c, p, strict=True)]
        print(f"{lineup:<22}{1e3 * statistics.median(c):>10.1f}{1e3 * statistics.median(p):>10.1f}   "
              f"{' '.join(f'{r:.2f}' for r in ratios)}; {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
