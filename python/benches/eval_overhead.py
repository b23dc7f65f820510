"""`f.evaluate` from numpy vs the Rust API (`CompiledFormula::evaluate`) on the same 1M jobs.

    cd python && maturin develop --release && python benches/eval_overhead.py

Writes the columns to a temporary folder and alternates ROUNDS times: 5 Python calls, then
the `eval_rust` bench (`cargo bench -p jobsort-python --bench eval_rust`) timing 5 Rust calls on the same files;
prints the best of each and the ratio. Both evaluate on every core (tables of 65,536 jobs or more are split across threads).
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import jobsort

N = int(os.environ.get("JOBSORT_BENCH_N", 1_000_000))
ROUNDS = int(os.environ.get("JOBSORT_BENCH_ROUNDS", 20))
FORMULAS = {
    "seed": "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5 + eligible_time/3600",
    "weighted6": "0.5*ncpus + 0.001*mem + walltime/3600 + eligible_time/60 + 2*queue_priority + 0.1*job_priority",
}
REPO = Path(__file__).resolve().parents[2]


def columns(names, rng):
    cols = {}
    for name in names:
        if name == "fairshare_perc":
            cols[name] = rng.uniform(0.01, 1.0, N)
        else:
            cols[name] = rng.integers(0, 4096, N).astype(np.float64)
    return cols


def rust_bench() -> str:
    """The eval_rust bench executable (built here unless JOBSORT_EVAL_RUST names it)."""
    if os.environ.get("JOBSORT_EVAL_RUST"):
        return os.environ["JOBSORT_EVAL_RUST"]
    subprocess.run(["cargo", "bench", "-q", "-p", "jobsort-python", "--bench", "eval_rust", "--no-run"], cwd=REPO, check=True)
    exes = [p for p in (REPO / "target" / "release" / "deps").glob("eval_rust-*") if p.suffix == "" and os.access(p, os.X_OK)]
    return str(max(exes, key=lambda p: p.stat().st_mtime))


def main():
    rust = rust_bench()
    rng = np.random.default_rng(7)
    for label, text in FORMULAS.items():
        f = jobsort.compile(text)
        cols = columns(f.inputs, rng)
        py_best = rust_best = float("inf")
        with tempfile.TemporaryDirectory() as d:
            for name, c in cols.items():
                c.astype("<f8").tofile(os.path.join(d, f"{name}.f64"))
            # Interleaved rounds (5 Python calls, then 5 Rust calls), so both sides see the
            # same machine: on a shared machine, load comes and goes.
            for _ in range(ROUNDS):
                for _ in range(5):
                    t = time.perf_counter()
                    ev = f.evaluate(cols)
                    py_best = min(py_best, time.perf_counter() - t)
                assert ev.copied == ()
                out = subprocess.run([rust, text, d, "5"], capture_output=True, text=True, check=True).stdout.split()
                rust_best = min(rust_best, float(out[0]) / 1e9 * N)
        py_ns, rust_ns = py_best * 1e9 / N, rust_best * 1e9 / N
        print(f"{label}: {N} jobs, python f.evaluate {py_ns:.2f} ns/job, rust evaluate {rust_ns:.2f} ns/job, ratio {py_ns / rust_ns:.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
