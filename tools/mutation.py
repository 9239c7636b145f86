"""Mutation score of the conformance suite over the rule functions (spec/conformance/README.md).

Runs cosmic-ray (`pip install cosmic-ray`, not a dependency of the project) over
`src/abyss_rules/rules/` with one test: the conformance harness over the reference adapter.
A mutant is *killed* when the harness reports a failed case. cosmic-ray rewrites the files it
mutates, so everything happens in a scratch copy of the repository, never in this checkout.

    nice -n 15 python tools/mutation.py [--sample 500] [--seed 20] [--lines FILE:FROM-TO] [--keep DIR]

`--sample N` runs a random sample of N mutants (the same ones for the same seed and code);
`--sample 0` runs them all (2,475 for the code of 2026-12-01 afternoon, 44 minutes on a
loaded 2-core machine). `--lines legal.py:176-183` (repeatable) keeps only the mutants on
those lines of that file of `rules/`, before any sampling. The harness stops at the first
failing case (`--exitfirst`): a mutant is killed by one failure, and the rest would only cost
time. It prints the killed and surviving counts and every survivor's diff. Not part of CI: a
measurement to run by hand.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TEST = ("env PYTHONPATH={src} {python} spec/conformance/harness.py --exitfirst --timeout 20 -- "
        "{python} spec/conformance/abyss_rules_adapter.py")
CONFIG = """[cosmic-ray]
module-path = "src/abyss_rules/rules"
timeout = 60.0
excluded-modules = []
test-command = "{test}"

[cosmic-ray.distributor]
name = "local"
"""


def _sample(db: Path, size: int, seed: int) -> int:
    """Keep `size` of the session's mutants, chosen with `random.Random(seed)`; return how many there were."""
    with sqlite3.connect(db) as con:
        # Job ids are random: order the mutants by what they change, so a seed names one sample.
        ids = [row[0] for row in con.execute(
            "SELECT job_id FROM mutation_specs ORDER BY module_path, start_pos_row, start_pos_col, "
            "operator_name, occurrence")]
        if 0 < size < len(ids):
            keep = set(random.Random(seed).sample(ids, size))
            drop = [(i,) for i in ids if i not in keep]
            con.executemany("DELETE FROM mutation_specs WHERE job_id = ?", drop)
            con.executemany("DELETE FROM work_items WHERE job_id = ?", drop)
    return len(ids)


def _only_lines(db: Path, spans: list[str]) -> None:
    """Keep the session's mutants on the lines `FILE:FROM-TO` (or `FILE:LINE`) of `spans`."""
    wanted: list[tuple[str, int, int]] = []
    for span in spans:
        name, _, lines = span.rpartition(":")
        first, _, last = lines.partition("-")
        if not name or not first.isdigit() or not (last or first).isdigit():
            raise SystemExit(f"--lines wants FILE:FROM-TO, e.g. legal.py:176-183; got {span!r}")
        wanted.append((name, int(first), int(last or first)))
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT job_id, module_path, start_pos_row FROM mutation_specs").fetchall()
        drop = [(job,) for job, module, row in rows if not any(
            Path(module).name == name and first <= row <= last for name, first, last in wanted)]
        con.executemany("DELETE FROM mutation_specs WHERE job_id = ?", drop)
        con.executemany("DELETE FROM work_items WHERE job_id = ?", drop)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=500, help="mutants to run (0: all)")
    parser.add_argument("--seed", type=int, default=20, help="seed of the sample")
    parser.add_argument("--lines", action="append", default=[], metavar="FILE:FROM-TO",
                        help="only the mutants on these lines of this file of rules/ (repeatable)")
    parser.add_argument("--keep", type=Path, help="keep the scratch copy and session here")
    args = parser.parse_args()
    cosmic_ray = shutil.which("cosmic-ray")
    if cosmic_ray is None:
        raise SystemExit("cosmic-ray is not installed: pip install cosmic-ray")
    work = args.keep or Path(tempfile.mkdtemp(prefix="abyss-mutation-"))
    copy = work / "repo"
    for part in ("src", "spec"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    config, session = work / "cosmic-ray.toml", work / "session.sqlite"
    test = TEST.format(src=copy / "src", python=sys.executable)
    config.write_text(CONFIG.format(test=test), encoding="utf-8")
    subprocess.run([cosmic_ray, "init", str(config), str(session)], cwd=copy, check=True)
    if args.lines:
        _only_lines(session, args.lines)
    total = _sample(session, args.sample, args.seed)
    subprocess.run([cosmic_ray, "exec", str(config), str(session)], cwd=copy, check=True)
    with sqlite3.connect(session) as con:
        outcomes = dict(con.execute("SELECT test_outcome, COUNT(*) FROM work_results GROUP BY 1").fetchall())
        survivors = con.execute(
            "SELECT m.module_path, m.start_pos_row, r.diff FROM work_results r JOIN mutation_specs m "
            "USING (job_id) WHERE r.test_outcome = 'SURVIVED' ORDER BY 1, 2").fetchall()
    run = sum(outcomes.values())
    killed = outcomes.get("KILLED", 0)
    for module, row, diff in survivors:
        print(f"--- survived: {module}:{row}\n{diff}")
    print(f"{total} mutants, {run} run (seed {args.seed}): {killed} killed, {len(survivors)} survived, "
          f"score {killed / run:.1%}" if run else "no mutant ran")
    if args.keep is None:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
