"""simulate, replay and fairshare: the numbers of `jobsort sim`, `replay` and `fairshare`
(run on the same files), and per-job starts that add up to the metrics."""

import json
import warnings

import numpy as np
import gzip

import pytest

import jobsort
from conftest import KTH, REPO, progress_during

# The first 1500 KTH-SP2 jobs: enough for EASY backfilling and fairshare to matter, quick in
# a debug build.
FIRST = 1500
FORMULAS = ["eligible_time", "-walltime", "fairshare_factor * 1000 + eligible_time / 3600"]


@pytest.fixture(scope="module")
def kth():
    return jobsort.load_trace(KTH)


@pytest.mark.parametrize("policy", ["easy", "strict"])
def test_simulate_equals_the_cli(kth, cli_json, policy):
    result = jobsort.simulate(kth, FORMULAS, policy=policy, auto_tree="user", first=FIRST)
    doc = cli_json(
        "sim", "--trace", KTH, *[f"--formula={f}" for f in FORMULAS], "--policy", policy,
        "--auto-tree", "user", "--first", FIRST, "--format", "json",
    )
    m = result.metrics
    assert m["formula"].tolist() == FORMULAS
    for row, run in zip(m.to_dict("records"), doc["runs"]):
        assert row["policy"] == run["policy"] == policy
        for k, v in run["metrics"].items():
            assert row[k] == v, k  # exactly: the same code computed both
        for k in ("jobs", "dropped", "never_started", "rounds", "eval_errors"):
            assert row[k] == run[k], k
        shares = result.shares[result.shares["formula"] == run["formula"]]
        assert shares[["entity", "target", "delivered"]].to_dict("records") == [
            {"entity": s["entity"], "target": s["target"], "delivered": s["delivered"]} for s in run["shares"]
        ]
    for k in ("name", "sha256", "read", "kept", "dropped", "nodes", "cores"):
        assert result.trace[k] == doc["trace"][k], k


def test_starts_add_up_to_the_metrics(kth):
    result = jobsort.simulate(kth, FORMULAS[:2], first=FIRST, starts=True)
    starts = result.starts
    assert len(starts) == 2 * FIRST
    for formula, row in zip(FORMULAS[:2], result.metrics.to_dict("records")):
        s = starts[starts["formula"] == formula]
        assert s["start"].notna().all()
        assert (s["wait"] == s["start"] - s["submit"]).all()
        assert (s["wait"] >= 0).all()
        assert s["wait"].mean() == pytest.approx(row["mean_wait"], rel=1e-12)
        assert float(np.percentile(s["wait"], 95)) == pytest.approx(row["p95_wait"], rel=1e-12)
    # FCFS (no formula) and shortest-requested-first schedule differently.
    a, b = (starts[starts["formula"] == f]["start"].to_numpy() for f in FORMULAS[:2])
    assert (a != b).any()


def test_no_formula_is_first_come_first_served(kth, cli_json):
    result = jobsort.simulate(kth, first=FIRST, policy="strict")
    doc = cli_json("sim", "--trace", KTH, "--first", FIRST, "--policy", "strict", "--format", "json")
    assert result.metrics["formula"].tolist() == [None]
    assert result.metrics.iloc[0]["mean_wait"] == doc["runs"][0]["metrics"]["mean_wait"]


def test_record_then_replay_verifies_and_reconciles_as_the_cli(kth, tmp_path, cli_json):
    rec = tmp_path / "kth.rec"
    jobsort.simulate(kth, ["eligible_time"], policy="strict", first=400, record=rec)
    report = jobsort.replay(rec)
    assert report["mismatches"] == 0 and report["rounds"] > 0
    assert report == cli_json("replay", rec, "--verify", "--format", "json")
    other = jobsort.replay(rec, formula="-walltime")
    assert other == cli_json("replay", rec, "--formula=-walltime", "--format", "json")
    assert 0 < other["decisions"]
    # With the ranked queue, and gzip: the same verification.
    queued = tmp_path / "kth.rec.gz"
    jobsort.simulate(kth, ["eligible_time"], policy="strict", first=400, record=queued,
                     record_queue=True)
    assert gzip.open(queued, "rt").read().count('"queue":[') == report["rounds"]
    assert '"queue":[' not in rec.read_text()
    assert jobsort.replay(queued) == report


def test_replay_against_a_trace_s_real_schedule(cli_json, tmp_path):
    # An SWF cut of KTH (the real schedule is in its wait column).
    import gzip

    lines = gzip.open(KTH, "rt").read().splitlines()
    header = [l for l in lines if l.startswith(";")]
    data = [l for l in lines if not l.startswith(";")][:300]
    swf = tmp_path / "kth300.swf"
    swf.write_text("\n".join(header + data) + "\n")
    report = jobsort.replay(trace=swf, formula="-walltime", policy="easy")
    assert report == cli_json("replay", "--trace", swf, "--formula=-walltime", "--format", "json")
    assert "recorded_metrics" in report


def test_fairshare_trees_are_the_cli_s(cli_json):
    examples = REPO / "examples"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example tree's `unknown` note
        pbs = jobsort.fairshare(resource_group=examples / "resource_group", usage=examples / "usage.json")
    doc = cli_json("fairshare", "--resource-group", examples / "resource_group", "--usage", examples / "usage.json", "--format", "json")
    assert pbs.attrs["algorithm"] == "pbs"
    assert pbs["name"].tolist() == [e["name"] for e in doc["entities"]]
    assert pbs["id"].tolist() == [e["id"] for e in doc["entities"]]
    assert pbs["shares"].tolist() == [e["shares"] for e in doc["entities"]]
    assert pbs["usage"].tolist() == [e["usage"] for e in doc["entities"]]
    assert pbs["fairshare_factor"].tolist() == [e["fairshare_factor"] for e in doc["entities"]]
    # The CLI prints the float32 keywords with the shortest decimal of the f32; these are the
    # same f32 values.
    for col in ("fairshare_perc", "fairshare_tree_usage"):
        assert np.array_equal(pbs[col].to_numpy(np.float32), np.array([e[col] for e in doc["entities"]], np.float32))
    alice = pbs.set_index("name").loc["alice"]
    assert alice["parent"] == "physics" and alice["fairshare_perc"] == pytest.approx(0.3)


def test_slurm_and_flux_trees_are_the_cli_s(cli_json, tmp_path):
    tree = tmp_path / "tree.json"
    nodes = [
        {"name": "physics", "parent": "root", "shares": 40},
        {"name": "chem", "parent": "root", "shares": 60},
        {"name": "alice", "parent": "physics", "shares": 1, "usage": 500, "user": "alice"},
        {"name": "bob", "parent": "physics", "shares": 3, "usage": 100, "user": "bob"},
        {"name": "carol", "parent": "chem", "shares": 1, "usage": 2000, "user": "carol"},
    ]
    tree.write_text(json.dumps({"nodes": nodes}))
    for algorithm in ("slurm-classic", "slurm-fairtree", "flux"):
        df = jobsort.fairshare(fairshare_tree=tree, algorithm=algorithm)
        doc = cli_json("fairshare", "--fairshare-tree", tree, "--algorithm", algorithm, "--format", "json")
        assert df["name"].tolist() == [e["name"] for e in doc["entities"]]
        # (pandas >= 3 keeps text as its string dtype, whose missing value is NaN)
        assert [u if isinstance(u, str) else None for u in df["user"]] == [e["user"] for e in doc["entities"]]
        got = [None if np.isnan(x) else x for x in df["fairshare_factor"]]
        want = [None if isinstance(e["fairshare_factor"], str) else e["fairshare_factor"] for e in doc["entities"]]
        assert got == want, algorithm


def test_bad_simulation_input_raises_with_the_message(kth, tmp_path):
    with pytest.raises(ValueError, match=r"policy: `fifo` is not one of strict, easy, fill, conservative, slurm or backfill:N"):
        jobsort.simulate(kth, ["eligible_time"], policy="fifo")
    with pytest.raises(ValueError, match="decay_factor: 1.5: must be between 0 and 1"):
        jobsort.simulate(kth, ["eligible_time"], auto_tree="user", decay_factor=1.5)
    with pytest.raises(jobsort.FormulaError, match="unknown name `eligble_time`"):
        jobsort.simulate(kth, ["eligble_time"])
    bad = tmp_path / "bad.swf"
    bad.write_text("1 0 0 10 x\n")
    with pytest.raises(jobsort.InputError, match="bad.swf:1"):
        jobsort.load_trace(bad)
    with pytest.raises(jobsort.InputError, match="absent.swf"):
        jobsort.load_trace(tmp_path / "absent.swf")
    with pytest.raises(ValueError, match="record= holds one run"):
        jobsort.simulate(kth, FORMULAS, record=tmp_path / "r.rec")


def test_simulation_releases_the_gil(kth):
    moved = progress_during(lambda: jobsort.simulate(kth, ["-walltime"], first=FIRST), times=2)
    assert max(moved) > 0, moved


def test_the_load_report_counts_skipped_records_as_the_cli(cli_json, tmp_path):
    # A PBS accounting log (the first E record of the XDMoD sample) with a suspend record,
    # which is not a job: the CLI's trace report counts it under records_skipped, and so does
    # the Python one.
    from conftest import SHARED

    log = tmp_path / "20091221"
    sample = (SHARED / "data" / "samples" / "xdmod-pbs-accounting-E-records.log").read_text()
    log.write_text(sample.splitlines(keepends=True)[0] + "12/21/2009 16:00:00;z;6.edge.ccr.buffalo.edu;\n")
    trace = jobsort.load_trace(log)
    doc = cli_json("sim", "--trace", log, "--nodes", "64", "--cores", "8", "--format", "json")
    assert trace.report()["records_skipped"] == doc["trace"]["records_skipped"]
    assert trace.report()["records_skipped"] == {"record type z (suspended)": 1}
    assert jobsort.load_trace(KTH).report()["records_skipped"] == {}


def test_a_pbs_site_sets_what_is_not_given_as_in_the_cli(kth, cli_json, tmp_path):
    """simulate(pbs_home=, qmgr=) resolves the run's settings as `jobsort sim --pbs-home
    --qmgr` does (one resolver, in the library): the site's job_sort_formula, threshold,
    strict_ordering and backfill_depth, fair_share with its resource_group and decay; an
    argument given wins."""
    home = tmp_path / "pbs"
    (home / "sched_priv").mkdir(parents=True)
    (home / "sched_priv" / "sched_config").write_text(
        "strict_ordering: true ALL\nfair_share: true ALL\nfairshare_entity: euser\n"
        "fairshare_decay_time: 12:00:00\nfairshare_decay_factor: 0.7\n"
    )
    users = sorted({f"u{u}" for u in range(1, 300)})
    (home / "sched_priv" / "resource_group").write_text(
        "".join(f"{u} {10 + i} root {1 + i % 3}\n" for i, u in enumerate(users))
    )
    qmgr = tmp_path / "qmgr.txt"
    qmgr.write_text(
        "set server job_sort_formula = \"fairshare_factor * 1000 + eligible_time / 3600\"\n"
        "set server backfill_depth = 2\n"
    )
    result = jobsort.simulate(kth, pbs_home=home, qmgr=qmgr, first=FIRST)
    doc = cli_json(
        "sim", "--trace", KTH, "--pbs-home", home, "--qmgr", qmgr, "--first", FIRST,
        "--format", "json",
    )
    (row,) = result.metrics.to_dict("records")
    (run,) = doc["runs"]
    assert row["policy"] == run["policy"] == "backfill:2"
    for k, v in run["metrics"].items():
        assert row[k] == v, k
    # An argument wins over the site.
    easy = jobsort.simulate(kth, pbs_home=home, qmgr=qmgr, first=FIRST, policy="easy")
    assert easy.metrics["policy"].tolist() == ["easy"]


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"nodes": -5, "cores": 4}, r"nodes: -5 is out of range \(0 to 4294967295\)"),
        ({"nodes": 2**40, "cores": 4}, r"nodes: 1099511627776 is out of range"),
        ({"nodes": 2, "cores": 2.5}, r"cores: 2.5 is not a whole number"),
    ],
)
def test_a_machine_size_that_is_no_count_is_a_value_error_naming_it(tmp_path, kwargs, message):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(ValueError, match=message):
        jobsort.simulate(swf, **kwargs)


def test_ctrl_c_stops_a_simulation_within_a_round(tmp_path):
    """Ctrl-C during simulate raises KeyboardInterrupt at once: the waiting thread lets Python
    run its signal handlers every 50 ms and the simulator stops at the next round. The run is
    the whole of KTH-SP2 under conservative backfill (minutes in a debug build, seconds in a
    release one); SIGINT comes from a timer thread after 0.5 s. In a child process, so the
    signal is only its own."""
    script = f"""
import os, signal, threading, time, jobsort
trace = jobsort.load_trace({str(KTH)!r})
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    jobsort.simulate(trace, ["eligible_time / 3600 - walltime / 86400"], policy="conservative")
    print("finished", time.monotonic() - start)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - start)
"""
    import subprocess
    import sys

    try:
        p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("simulate ignored Ctrl-C for 30 s")
    assert p.returncode == 0, p.stderr
    outcome, seconds = p.stdout.split()
    assert outcome == "interrupted", p.stdout
    assert float(seconds) < 2.0, f"KeyboardInterrupt came {seconds} s after the run started"
