"""`simulate` on KTH-SP2 vs `jobsort sim`, and a 64-simulation sweep locally vs on a 2-worker
Dask LocalCluster.

    cd python && maturin develop --release && cargo build --release --bin jobsort
    python benches/sim_and_sweep.py

Best of RUNS each (wall clock). The CLI time includes reading the trace; `simulate` is timed
both with a path (reads the trace) and with a loaded Trace.
"""

import os
import subprocess
import time
from pathlib import Path

import jobsort

REPO = Path(__file__).resolve().parents[2]
KTH = Path(os.environ.get("JOBSORT_KTH", REPO.parent / "shared" / "data" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"))
CLI = os.environ.get("JOBSORT_BIN", str(REPO / "target" / "release" / "jobsort"))
RUNS = int(os.environ.get("JOBSORT_BENCH_RUNS", 5))
TEMPLATE = "{fs} * fairshare_factor + eligible_time / 3600 - {short} * walltime / 3600"
GRID = {"fs": [0, 1, 10, 30, 100, 300, 1000, 3000], "short": [0, 0.1, 0.25, 0.5, 1, 2, 4, 16]}


def best(f, runs=RUNS):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    for policy, formula in (("easy", "eligible_time"), ("strict", "fairshare_factor * 1000 + eligible_time / 3600")):
        args = [CLI, "sim", "--trace", str(KTH), f"--formula={formula}", "--policy", policy, "--auto-tree", "user", "--format", "json"]
        cli = best(lambda: subprocess.run(args, check=True, capture_output=True))
        path = best(lambda: jobsort.simulate(KTH, [formula], policy=policy, auto_tree="user"))
        trace = jobsort.load_trace(KTH)
        loaded = best(lambda: jobsort.simulate(trace, [formula], policy=policy, auto_tree="user"))
        print(f"{policy} {formula!r}: jobsort sim {cli * 1e3:.1f} ms, simulate(path) {path * 1e3:.1f} ms, simulate(Trace) {loaded * 1e3:.1f} ms")

    n = len(GRID["fs"]) * len(GRID["short"])
    local = best(lambda: jobsort.sweep(KTH, TEMPLATE, GRID, auto_tree="user"), runs=3)
    print(f"sweep of {n} simulations, local: {local:.2f} s")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            first = best(lambda: jobsort.sweep(KTH, TEMPLATE, GRID, auto_tree="user", client=client), runs=1)
            warm = best(lambda: jobsort.sweep(KTH, TEMPLATE, GRID, auto_tree="user", client=client), runs=3)
            same = jobsort.sweep(KTH, TEMPLATE, GRID, auto_tree="user", client=client).equals(
                jobsort.sweep(KTH, TEMPLATE, GRID, auto_tree="user")
            )
    print(f"sweep of {n} simulations, 2-worker LocalCluster: first {first:.2f} s (workers read the trace), then {warm:.2f} s; equal to local: {same}")


if __name__ == "__main__":
    main()
