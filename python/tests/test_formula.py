"""check, compile, evaluate and rank: equal to the `jobsort` binary bit for bit, on the
conformance formulas of shared/cases/openpbs.json (OpenPBS's own tests); zero-copy reads;
errors with their message and span."""

import json
import struct
import warnings

import numpy as np
import pandas as pd
import pytest

import jobsort
from conftest import REPO, cases, progress_during

# Formulas OpenPBS accepts and jobsort deliberately rejects (tests/it/frontend_acceptance.rs,
# DELIBERATE_DIFFERENCES: names PBS only looks up at run time are static errors here).
DELIBERATE = {"(ncpus-1) and bogus", "1/0 + bogus", "ncpus=1"}


def bits(values):
    return [struct.pack("<d", v) for v in values]


def resources_of(case):
    return case["input"].get("custom_resources") or {}


def resource_flags(resources):
    return [a for name, ty in resources.items() for a in ("--resource", f"{name}:{ty}")]


@pytest.mark.parametrize("kind", ["formula_accept", "formula_reject"])
def test_check_agrees_with_openpbs_cases_and_the_cli(kind, cli):
    seen = 0
    for case in cases("openpbs.json", kind):
        formula = case["input"]["formula"]
        resources = resources_of(case)
        report = jobsort.check(formula, resources=resources)
        want = case["expected"]["accepted"] and formula not in DELIBERATE
        assert report.valid == want, (case["source"], str(report))
        # str() is what `jobsort check` prints on stderr (NO_COLOR), byte for byte.
        code, _, err = cli("check", *resource_flags(resources), "--", formula)
        assert code == (0 if want else 1)
        assert str(report) + "\n" == err, formula
        # and the JSON document is the CLI's.
        _, out, _ = cli("check", *resource_flags(resources), "--format", "json", "--", formula)
        assert json.loads(report.to_json()) == json.loads(out)
        seen += 1
    assert seen >= 7


# Inputs whose domain is narrower than 0..9 (job files with a value outside an input's domain
# are refused, as `check` analyses over those domains): the fairshare keywords are fractions,
# PBS's accrue types 0..4.
_NARROW = {
    "fairshare_perc": lambda rng: float(rng.integers(0, 10)) / 9,
    "fairshare_tree_usage": lambda rng: float(rng.integers(0, 10)) / 9,
    "fairshare_factor": lambda rng: float(rng.integers(0, 10)) / 9,
    "accrue_type": lambda rng: int(rng.integers(0, 5)),
}


def _jobs_file(tmp_path, names, n, seed):
    """A JSON job file giving each input a value 0..9, or a value of its narrower domain
    (0 included: divisions can fail)."""
    rng = np.random.default_rng(seed)
    value = lambda name: _NARROW[name](rng) if name in _NARROW else int(rng.integers(0, 10))
    jobs = [{"id": f"j{i}", **{name: value(name) for name in names}} for i in range(n)]
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(jobs))
    return path


def test_evaluate_is_bit_equal_to_the_cli_and_the_interpreter(tmp_path, cli_json):
    """Every accepted conformance formula over 200 jobs: the numpy path (zero-copy columns),
    the job-file path (`table_from_jobs` + `CompiledFormula::evaluate`, the Rust API as `eval`
    calls it), the reference interpreter and `jobsort eval --format json` give the same bits
    and the same errors."""
    seen = 0
    for k, case in enumerate(cases("openpbs.json", "formula_accept")):
        formula = case["input"]["formula"]
        if formula in DELIBERATE:
            continue
        resources = resources_of(case)
        for compat in (None, "pbs"):
            f = jobsort.compile(formula, resources=resources, compat=compat)
            interp = jobsort.compile(formula, resources=resources, compat=compat, engine="interp")
            assert interp.engine == "interp"
            path = _jobs_file(tmp_path, f.inputs, 200, seed=k)
            jobs = jobsort.load_jobs(path, resources=resources)
            frame = jobs.to_pandas()
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # every input is a column: no warning
                by_numpy = f.evaluate({c: frame[c].to_numpy() for c in f.inputs}, n=len(frame))
            by_jobs = f.evaluate(jobs)
            by_interp = interp.evaluate(jobs)
            flags = ["--compat", "pbs"] if compat else []
            doc = cli_json("eval", *resource_flags(resources), *flags, "--jobs", path, "--format", "json", "--", formula)
            cli_values = [j["value"] for j in doc["jobs"]]
            cli_errors = [j["error"] for j in doc["jobs"]]
            for ev in (by_numpy, by_jobs, by_interp):
                assert bits(ev.values.tolist()) == bits(cli_values), (formula, compat)
                assert ev.errors == cli_errors, (formula, compat)
            seen += 1
    assert seen >= 28


def test_job_order_cases_through_python(tmp_path, cli_json):
    """OpenPBS's fairshare job orders (test_fairshare_formula and friends): load the jobs with
    the tree, evaluate with PBS's rounding, rank with `fair_share` where the case has it; the
    order and the logged values are OpenPBS's, and every value is the CLI's bit for bit."""
    seen = 0
    for case in cases("openpbs.json", "job_order"):
        inp = case["input"]
        if "resource_group" not in inp or "formula" not in inp:
            continue
        rg = tmp_path / "resource_group"
        rg.write_text(inp["resource_group"] + "\n")
        usage = tmp_path / "usage.json"
        usage.write_text(json.dumps(inp.get("usage_file_leaves", {})))
        jobs_path = tmp_path / "jobs.json"
        jobs_path.write_text(json.dumps(inp["jobs"]))
        f = jobsort.compile(inp["formula"], compat="pbs")
        jobs = jobsort.load_jobs(jobs_path, resource_group=rg, usage=usage)
        ev = f.evaluate(jobs)
        order = jobsort.rank(ev, jobs=jobs, fair_share=bool(inp.get("fair_share")))
        assert order["id"].tolist() == case["expected"]["order"], case["source"]
        for job_id, value in zip(jobs.ids, ev.values):
            assert abs(value - float(case["expected"]["formula_log_values"][job_id])) <= 5e-5
        flags = ["--fair-share"] if inp.get("fair_share") else []
        doc = cli_json(
            "rank", "--compat", "pbs", "--jobs", jobs_path, "--resource-group", rg, "--usage", usage,
            *flags, "--format", "json", "--", inp["formula"],
        )
        assert [o["id"] for o in doc["order"]] == order["id"].tolist()
        assert bits([o["value"] for o in doc["order"]]) == bits(order["value"].tolist())
        seen += 1
    assert seen == 4


def test_rank_of_the_example_jobs_is_the_cli_s(cli_json):
    formula = "ncpus*0.5 + eligible_time/3600 - walltime/36000"
    jobs = jobsort.load_jobs(REPO / "examples" / "jobs.json")
    ev = jobsort.compile(formula).evaluate(jobs)
    for top, threshold in ((None, None), (4, 20.0)):
        order = jobsort.rank(ev, jobs=jobs, top=top, threshold=threshold)
        args = ["--top", top] if top else []
        args += ["--threshold", threshold] if threshold is not None else []
        doc = cli_json("rank", formula, "--jobs", REPO / "examples" / "jobs.json", *args, "--format", "json")
        assert order["id"].tolist() == [o["id"] for o in doc["order"]]
        assert order["runnable"].tolist() == [o["runnable"] for o in doc["order"]]
        assert bits(order["value"].tolist()) == bits([o["value"] for o in doc["order"]])


def test_float64_columns_are_read_in_place():
    f = jobsort.compile("ncpus * 0.5 + walltime / 3600")
    n = 10_000
    ncpus = np.arange(n, dtype=np.float64)
    walltime = np.full(n, 7200.0)
    ev = f.evaluate({"ncpus": ncpus, "walltime": walltime})
    # The binding read the caller's buffers: the addresses it was given are numpy's.
    assert ev.addresses == (ncpus.ctypes.data, walltime.ctypes.data)
    assert ev.copied == ()
    # A DataFrame's float64 columns too (pandas keeps them in one block, each a contiguous row).
    df = pd.DataFrame({"ncpus": ncpus, "walltime": walltime, "other": np.zeros(n)})
    ev_df = f.evaluate(df)
    assert ev_df.copied == ()
    assert ev_df.addresses == tuple(df[c].to_numpy().ctypes.data for c in f.inputs)
    assert all(np.shares_memory(df[c].to_numpy(), df[c]) for c in f.inputs)
    assert bits(ev_df.values.tolist()) == bits(ev.values.tolist())
    # Other dtypes and strided views are converted, and say so.
    ev_int = f.evaluate({"ncpus": np.arange(n), "walltime": walltime[::1]})
    assert ev_int.copied == ("ncpus",)
    assert ev_int.addresses[1] == walltime.ctypes.data
    wide = np.full(2 * n, 7200.0)
    ev_strided = f.evaluate({"ncpus": ncpus, "walltime": wide[::2]})
    assert ev_strided.copied == ("walltime",)
    assert bits(ev_int.values.tolist()) == bits(ev.values.tolist()) == bits(ev_strided.values.tolist())


def test_missing_columns_read_zero_with_a_warning():
    f = jobsort.compile("ncpus + mem")
    with pytest.warns(UserWarning, match="no column `mem`: every job reads 0"):
        ev = f.evaluate({"ncpus": np.array([1.0, 2.0])})
    assert ev.values.tolist() == [1.0, 2.0]


def test_loaded_jobs_without_a_column_warn_as_a_mapping_does(tmp_path):
    # The same rule for jobs read from a file as for a mapping: an input no job has reads 0,
    # with the same warning (before, only the mapping path warned).
    path = tmp_path / "jobs.json"
    path.write_text('[{"id": "a", "ncpus": 2}, {"id": "b", "ncpus": 3}]')
    jobs = jobsort.load_jobs(path, resources={"gpu_hours": "float"})
    f = jobsort.compile("ncpus + gpu_hours", resources={"gpu_hours": "float"})
    with pytest.warns(UserWarning, match="no column `gpu_hours`: every job reads 0"):
        ev = f.evaluate(jobs)
    assert ev.values.tolist() == [2.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jobsort.compile("ncpus").evaluate(jobs)


def test_per_job_errors_are_python_s():
    f = jobsort.compile("walltime / ncpus + sqrt(mem - 1)")
    ev = f.evaluate({"walltime": np.array([10.0, 10.0, 10.0]), "ncpus": np.array([2.0, 0.0, 1.0]), "mem": np.array([1.0, 1.0, 0.0])})
    assert ev.values.tolist() == [5.0, 0.0, 0.0]
    assert ev.errors == [None, "float division by zero", "math domain error"]
    assert ev.failed.tolist() == [1, 2]
    assert jobsort.ERRORS[int(ev.error_codes[1])] == ("float division by zero", "ZeroDivisionError")


def test_a_bad_formula_raises_with_message_and_span():
    with pytest.raises(jobsort.FormulaError) as info:
        jobsort.compile("ncpus + ncpu * 2")
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.code, e.span, e.message) == ("E0201", (8, 12), "unknown name `ncpu`")
    assert "did you mean `ncpus`?" in str(e)
    assert [d.code for d in e.diagnostics] == ["E0201"]
    with pytest.raises(jobsort.FormulaError, match="E0101|E01"):
        jobsort.compile("ncpus +")
    # deny_warnings makes a warning an error.
    with pytest.raises(jobsort.FormulaError) as info:
        jobsort.compile("walltime/ncpus", deny_warnings=True)
    assert info.value.code == "W0401"


def test_bad_arguments_raise_with_the_message(tmp_path):
    with pytest.raises(ValueError, match="engine: `fast` is not an engine"):
        jobsort.compile("ncpus", engine="fast")
    with pytest.raises(ValueError, match="resources: .*not a resource type|resources:"):
        jobsort.compile("paws", resources={"paws": "complex"})
    with pytest.raises(ValueError, match="threshold"):
        jobsort.rank(np.array([1.0]), threshold=float("nan"))
    with pytest.raises(ValueError, match="has 3 values, others 2"):
        jobsort.compile("ncpus + mem").evaluate({"ncpus": np.zeros(2), "mem": np.zeros(3)})
    bad = tmp_path / "jobs.json"
    bad.write_text('[{"id": "a", "walltime": "1:xx"}]')
    with pytest.raises(jobsort.InputError, match=r"jobs.json: \$\[0\]\.walltime: `1:xx` is not a time"):
        jobsort.load_jobs(bad)
    with pytest.raises(jobsort.InputError, match="no such file|cannot read|No such file"):
        jobsort.load_jobs(tmp_path / "absent.json")
    unknown = tmp_path / "unknown.json"
    unknown.write_text('[{"id": "a", "ncpu": 2}]')
    with pytest.warns(UserWarning, match="did you mean `ncpus`"):
        jobsort.load_jobs(unknown)
    with pytest.raises(jobsort.InputError, match="ncpu"):
        jobsort.load_jobs(unknown, strict=True)


def test_qmgr_lines_and_reports():
    r = jobsort.check('set server job_sort_formula="ncpus * 2"')
    assert r.source == "ncpus * 2" and r.valid and bool(r)
    assert r.range == (0.0, float("inf"))
    assert str(r) == "valid: 0 warnings, 0 notes; value in [0, inf]"
    bad = jobsort.check("ncpu * 2")
    assert not bad.valid and bad.range is None
    (d,) = bad.diagnostics
    assert (d.severity, d.code, d.span) == ("error", "E0201", (0, 4))
    assert str(d) == "error[E0201] at 0..4: unknown name `ncpu`"


def test_evaluation_releases_the_gil():
    f = jobsort.compile("pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5")
    n = 2_000_000
    cols = {"fairshare_tree_usage": np.full(n, 0.5), "fairshare_perc": np.full(n, 0.25), "ncpus": np.ones(n)}
    moved = progress_during(lambda: f.evaluate(cols), times=5)
    assert max(moved) > 0, moved


def test_rank_refuses_a_nan_and_names_it():
    with pytest.raises(ValueError, match=r"values\[1\] is NaN"):
        jobsort.rank(np.array([1.0, float("nan"), 2.0]))
    # Infinities rank (PBS stores overflowing values as inf under --compat pbs).
    df = jobsort.rank(np.array([1.0, float("inf"), 2.0]))
    assert list(df["index"]) == [1, 2, 0]


def test_a_job_count_beyond_memory_is_a_memory_error_not_an_abort():
    """`evaluate(n=...)` with more jobs than memory holds raises MemoryError before
    allocating; it used to abort the interpreter (in a child process, so an abort cannot take
    the test run with it)."""
    import subprocess
    import sys

    script = """
import jobsort
f = jobsort.compile("42")
try:
    f.evaluate({}, n=10**13)
except MemoryError as e:
    print("MemoryError:", e)
print(len(f.evaluate({}, n=3)))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"the interpreter died ({p.returncode}): {p.stderr}"
    assert p.stdout.splitlines() == [
        "MemoryError: cannot allocate the results of 10000000000000 jobs (80000000000000 bytes)",
        "3",
    ]
