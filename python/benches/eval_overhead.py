"""`f.evaluate` from numpy vs the Rust API (`CompiledFormula::evaluate`) on the same 1M jobs.

    cd python && maturin develop --release && python benches/eval_overhead.py

Writes the columns to a temporary folder, times the Python call (best of RUNS), runs
`cargo bench -p jobsort-python --bench eval_rust` on the same files, and prints both and the
ratio. Both evaluate on every core (tables of 65,536 jobs or more are split across threads).
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
RUNS = int(os.environ.get("JOBSORT_BENCH_RUNS", 30))
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


def main():
    rng = np.random.default_rng(7)
    for label, text in FORMULAS.items():
        f = jobsort.compile(text)
        cols = columns(f.inputs, rng)
        best = float("inf")
        for _ in range(RUNS):
            t = time.perf_counter()
            ev = f.evaluate(cols)
            best = min(best, time.perf_counter() - t)
        assert ev.copied == ()
        with tempfile.TemporaryDirectory() as d:
            for name, c in cols.items():
                c.astype("<f8").tofile(os.path.join(d, f"{name}.f64"))
            out = subprocess.run(
                ["cargo", "bench", "-q", "-p", "jobsort-python", "--bench", "eval_rust", "--", text, d, str(RUNS)],
                cwd=REPO, capture_output=True, text=True, check=True,
            ).stdout.split()
        rust_ns = float(out[0])
        py_ns = best * 1e9 / N
        print(f"{label}: {N} jobs, python f.evaluate {py_ns:.2f} ns/job, rust evaluate {rust_ns:.2f} ns/job, ratio {py_ns / rust_ns:.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
