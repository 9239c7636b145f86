"""simulate on a real Dask cluster: a LocalCluster of two worker processes on loopback.

Needs the `dask` extra (`pip install 'abyss-rules[dask]'`, part of `dev`); `.ci/run`
installs it, so in CI this test runs.
"""

from __future__ import annotations

import pytest

from abyss_rules.simulation import simulate

distributed = pytest.importorskip(
    "dask.distributed",
    reason="SKIPPED LOUDLY: dask.distributed is not installed (pip install 'abyss-rules[dask]'); "
           "the Dask cluster test did not run",
)


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    try:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            yield client
    finally:
        cluster.close()


def test_simulate_on_a_dask_cluster_gives_the_same_games_as_without(client) -> None:  # type: ignore[no-untyped-def]
    lineup = ["greedy", "counting"]
    here = simulate(lineup, games=24, seed=2026, variant="short")
    with client.get_executor() as executor:
        there = simulate(lineup, games=24, seed=2026, variant="short", executor=executor, chunk_size=3)
    assert there == here
    assert [g.seed for g in there.games] == [g.seed for g in here.games]
    # The games really ran in the worker processes: their bots built their tables there.
    ran = client.run(lambda: bool(__import__("importlib").import_module("abyss_rules.bots._tables").TABLES))
    assert len(ran) == 2 and any(ran.values())
