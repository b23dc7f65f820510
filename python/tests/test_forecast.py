"""`jobsort.forecast` and `jobsort.why` against `jobsort forecast|why --format json` on the same
snapshot folders: the same order, values, holds and starts."""

import math

import pandas as pd
import pytest

import jobsort
from jobsort import _jobsort

from conftest import REPO, progress_during

WHY = REPO / "tests" / "data" / "why"
HISTORY = WHY / "history.json"
SNAPSHOTS = ["pbs", "slurm", "flux"]

#: The CLI's job fields the library does not give (only `jobsort rank` computes them).
CLI_ONLY = {"terms", "computed_value"}


def same(a, b):
    """Equal, a float compared as the CLI prints it (and NaN/None as no value)."""
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is None and b is None
        return math.isclose(a, b, rel_tol=1e-12)
    return a == b


@pytest.mark.parametrize("name", SNAPSHOTS)
@pytest.mark.parametrize("history", [False, True])
def test_forecast_equals_the_cli(cli_json, name, history):
    extra = ["--history", HISTORY] if history else []
    doc = cli_json("forecast", "--snapshot", WHY / name, "--format", "json", *extra)
    kwargs = {"history": HISTORY} if history else {}
    df = jobsort.forecast(WHY / name, **kwargs)
    assert list(df["id"]) == [j["id"] for j in doc["jobs"]]
    assert [None if pd.isna(s) else int(s) for s in df["start"]] == [j["start"] for j in doc["jobs"]]
    assert [None if pd.isna(s) else int(s) for s in df["model_start"]] == [j["model_start"] for j in doc["jobs"]]
    if history:
        assert any(j["model_start"] is not None for j in doc["jobs"])
    # Every field of every job, as the native module gives it.
    header, jobs = _jobsort.forecast(str(WHY / name), None, str(HISTORY) if history else None)
    for mine, theirs in zip(jobs, doc["jobs"]):
        assert set(theirs) - set(mine) == CLI_ONLY
        assert set(mine) <= set(theirs)
        for k, v in mine.items():
            assert same(v, theirs[k]), (mine["id"], k, v, theirs[k])
    for k in ("scheduler", "taken_at", "policy", "ordered_by", "assumption", "missing"):
        assert header[k] == doc[k] == df.attrs[k], k
    assert (header["model"] is None) == (doc["model"] is None)
    if history:
        assert header["model"]["fit"] == doc["model"]["fit"]


def test_forecast_dataframe_times_and_values():
    df = jobsort.forecast(WHY / "pbs")
    # The site's job_sort_formula, ncpus * 2 + walltime / 3600; the held 304 is not ranked.
    assert list(df["id"]) == ["301.srv", "302.srv", "303.srv", "304.srv"]
    assert df["value"].tolist()[:3] == pytest.approx([34.0, 9.0, 13 / 3])
    assert math.isnan(df["value"].iloc[3])
    assert list(df["rank"]) == [1, 2, 3, 4]
    assert str(df["start"].dtype) == "Int64"
    for _, row in df.iterrows():
        if pd.isna(row["start"]):
            assert pd.isna(row["start_utc"])
        else:
            assert row["start_utc"] == pd.Timestamp(int(row["start"]), unit="s", tz="UTC")
    assert df.loc[df["id"] == "303.srv", "blocked_kind"].item() == "none"
    assert df.loc[df["id"] == "304.srv", "blocked_kind"].item() == "hold"
    assert df.attrs["ordered_by"] == "the site's job_sort_formula"


def test_a_formula_orders_as_the_cli_does(cli_json):
    doc = cli_json("forecast", "--snapshot", WHY / "pbs", "--format", "json", "--formula", "-walltime")
    df = jobsort.forecast(WHY / "pbs", formula="-walltime")
    assert list(df["id"]) == [j["id"] for j in doc["jobs"]]
    assert [None if pd.isna(s) else int(s) for s in df["start"]] == [j["start"] for j in doc["jobs"]]
    assert df.attrs["ordered_by"] == doc["ordered_by"] == "the formula `-walltime`"


def test_a_policy_given_plans_with_it(cli_json):
    doc = cli_json("forecast", "--snapshot", WHY / "slurm", "--format", "json", "--policy", "strict")
    df = jobsort.forecast(WHY / "slurm", policy="strict")
    assert df.attrs["policy"] == doc["policy"] == "strict"
    assert [None if pd.isna(s) else int(s) for s in df["start"]] == [j["start"] for j in doc["jobs"]]
    with pytest.raises(ValueError, match="policy: `sometimes`"):
        jobsort.forecast(WHY / "slurm", policy="sometimes")


@pytest.mark.parametrize("name,job", [("pbs", "302.srv"), ("pbs", "302"), ("slurm", "22"), ("flux", "f4")])
def test_why_equals_the_cli(cli_json, name, job):
    doc = cli_json("why", job, "--snapshot", WHY / name, "--format", "json", "--history", HISTORY)
    theirs = doc["jobs"][0]
    mine = jobsort.why(WHY / name, job, history=HISTORY)
    for k, v in mine.items():
        if k == "model":
            # Its `what` names the keyword (`history`) where the CLI names its flag.
            assert {**v, "what": None} == {**doc[k], "what": None}
            continue
        expected = theirs[k] if k in theirs else doc[k]
        assert same(v, expected), (k, v, expected)
    assert set(theirs) - set(mine) == CLI_ONLY
    assert mine["plain"]
    assert mine["start"] is not None and mine["model_start"] is not None


@pytest.mark.parametrize(
    "name,job,reason",
    [
        ("pbs_limits", "302.srv", "Not Running: would exceed project chem's limit on resource ncpus in queue workq"),
        ("slurm_limits", "14", "AssocGrpCpuLimit"),
    ],
)
def test_why_a_limit_holds_a_job_as_the_cli_says(cli_json, name, job, reason):
    folder = REPO / "tests" / "data" / "snapshot" / name
    doc = cli_json("why", job, "--snapshot", folder, "--format", "json")
    mine = jobsort.why(folder, job)
    assert mine["blocked"] == doc["jobs"][0]["blocked"]
    assert mine["blocked"]["kind"] == "limit" and mine["blocked"]["reason"] == reason
    assert mine["start"] == doc["jobs"][0]["start"] is not None


def test_why_a_job_that_is_not_waiting_raises():
    with pytest.raises(jobsort.InputError, match=r"job 999 is not in the snapshot .*why/pbs \(4 waiting, 2 running\)"):
        jobsort.why(WHY / "pbs", "999")
    running = _running_id(WHY / "slurm")
    with pytest.raises(jobsort.InputError, match=f"job {running} is running since"):
        jobsort.why(WHY / "slurm", running)


def _running_id(folder):
    import json

    doc = json.loads((folder / "squeue.json").read_text())
    return next(str(j["job_id"]) for j in doc["jobs"] if "RUNNING" in j["job_state"])


def test_a_missing_folder_raises_with_its_path(tmp_path):
    missing = tmp_path / "no-such-snapshot"
    with pytest.raises(jobsort.InputError, match=f"{missing}: not a folder"):
        jobsort.forecast(missing)
    with pytest.raises(jobsort.InputError, match=f"{missing}: not a folder"):
        jobsort.why(missing, "1")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(jobsort.InputError, match=f"{empty}: no snapshot here"):
        jobsort.forecast(empty)


def test_a_bad_history_or_formula_names_the_file(tmp_path):
    missing = tmp_path / "history.swf"
    with pytest.raises(jobsort.InputError, match=f"history: .*{missing}"):
        jobsort.forecast(WHY / "pbs", history=missing)
    with pytest.raises(jobsort.InputError, match="the formula `ncpus \\+` does not compile"):
        jobsort.forecast(WHY / "pbs", formula="ncpus +")
    # Flux's job list is read as a history (finished jobs): a formula has nothing to order.
    with pytest.raises(jobsort.InputError, match="flux/jobs.json: no waiting job read"):
        jobsort.forecast(WHY / "flux", formula="urgency")


def test_forecast_releases_the_gil():
    moved = progress_during(lambda: _jobsort.forecast(str(WHY / "slurm"), None, str(HISTORY)), 20)
    assert any(m > 0 for m in moved), moved
