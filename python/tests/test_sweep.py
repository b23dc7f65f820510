"""sweep: every combination, one DataFrame; a Dask LocalCluster gives the local result."""

import pytest

import jobsort
from conftest import KTH

TEMPLATE = "{w} * fairshare_factor + eligible_time / 3600 - {s} * walltime / 3600"
GRID = {"w": [0, 1000], "s": [0, 1], "policy": ["easy", "strict"]}
OPTIONS = {"auto_tree": "user", "first": 300}


def test_sweep_runs_every_combination():
    df = jobsort.sweep(KTH, TEMPLATE, GRID, **OPTIONS)
    assert len(df) == 8
    assert list(df.columns[:5]) == ["trace", "formula", "w", "s", "policy"]
    assert df[["w", "s", "policy"]].drop_duplicates().shape[0] == 8
    # Each row is the simulation of its own formula and policy.
    row = df[(df.w == 1000) & (df.s == 1) & (df.policy == "strict")].iloc[0]
    alone = jobsort.simulate(KTH, [row.formula], policy="strict", **OPTIONS).metrics.iloc[0]
    assert row.formula == "1000 * fairshare_factor + eligible_time / 3600 - 1 * walltime / 3600"
    assert row.mean_bsld == alone.mean_bsld and row.rounds == alone.rounds
    # A list of formulas works too.
    listed = jobsort.sweep([KTH], ["eligible_time", "-walltime"], first=300)
    assert listed["formula"].tolist() == ["eligible_time", "-walltime"]


def test_a_local_cluster_gives_the_local_sweep():
    distributed = pytest.importorskip("distributed")
    local = jobsort.sweep(KTH, TEMPLATE, GRID, **OPTIONS)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            on_dask = jobsort.sweep(KTH, TEMPLATE, GRID, client=client, **OPTIONS)
    assert on_dask.equals(local)


def test_sweep_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match=r"template's fields \['s'\] have no values"):
        jobsort.sweep(KTH, TEMPLATE, {"w": [1]})
    with pytest.raises(ValueError, match=r"grid keys \['x'\] are neither"):
        jobsort.sweep(KTH, "eligible_time", {"x": [1]})
    with pytest.raises(TypeError, match="unexpected keywords"):
        jobsort.sweep(KTH, "eligible_time", bogus=1)
    with pytest.raises(jobsort.FormulaError, match="unknown name"):
        jobsort.sweep(KTH, "{w} * eligble_time", {"w": [1]}, first=10)
