#!/usr/bin/env python3
"""Python peers for tools/src/bin/bench_report.rs: numexpr (one thread) and per-job CPython eval.

usage: peers.py DATA_DIR N_NUMEXPR N_PYTHON

DATA_DIR holds one raw little-endian f64 file per column (<name>.f64), the JIT's values per
formula (<formula>.jit.f64) and formulas.json ([{"name", "text", "numexpr", "columns"}]).
Prints one JSON object per line:
  {"formula", "numexpr_ns" | null, "numexpr_note", "python_ns", "python_mismatch", "numexpr_maxrel"}

The per-job eval is OpenPBS's method (src/scheduler/job_info.cpp formula_evaluate): for every
job, run `globals_dict = {...}` from a string, then
`_FORMANS_ = eval("<formula>", globals_dict, locals())` from a string, after
`from math import *` once. Install numexpr with `pip install numexpr`.
"""
import json
import os
import sys
import time
from array import array


def load(path, n):
    a = array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read(8 * n))
    return a


def main():
    data_dir, n_ne, n_py = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    formulas = json.load(open(os.path.join(data_dir, "formulas.json")))
    try:
        import numpy as np
        import numexpr as ne

        ne.set_num_threads(1)
        have_ne = True
    except Exception as ex:  # noqa: BLE001 - report and skip
        have_ne = False
        ne_err = str(ex)
    for f in formulas:
        out = {"formula": f["name"]}
        jit = load(os.path.join(data_dir, f["name"] + ".jit.f64"), max(n_ne, n_py))
        if have_ne:
            cols = {c: np.fromfile(os.path.join(data_dir, c + ".f64"), dtype="<f8", count=n_ne)
                    for c in f["columns"]}
            buf = np.empty(n_ne)
            best = float("inf")
            for _ in range(int(os.environ.get("JOBSORT_BENCH_REPS", "3"))):
                # The thread's CPU time, as bench_report times the Rust engines.
                t = time.thread_time()
                ne.evaluate(f["numexpr"], local_dict=cols, out=buf)
                best = min(best, time.thread_time() - t)
            out["numexpr_ns"] = best * 1e9 / n_ne
            ref = np.frombuffer(jit, dtype="<f8")[:n_ne]
            out["numexpr_maxrel"] = float(np.max(np.abs(buf - ref) / np.maximum(np.abs(ref), 1e-300)))
        else:
            out["numexpr_ns"] = None
            out["numexpr_note"] = "numexpr: not available (%s)" % ne_err
        # Per-job CPython eval, as OpenPBS does it.
        cols = {c: load(os.path.join(data_dir, c + ".f64"), n_py) for c in f["columns"]}
        main_ns = {}
        exec("from math import *", main_ns)
        snippet = ("try:\n    _FORMANS_ = eval(\"%s\", globals_dict, locals())\n"
                   "except Exception as ex:\n    _FORMANS_ = 0\n") % f["text"]
        names = f["columns"]
        mismatch = 0
        t = time.thread_time()
        for i in range(n_py):
            exec("globals_dict = {" + ", ".join("'%s': %r" % (c, cols[c][i]) for c in names) + "}",
                 main_ns)
            exec(snippet, main_ns)
            if main_ns["_FORMANS_"] != jit[i]:
                mismatch += 1
        out["python_ns"] = (time.thread_time() - t) * 1e9 / n_py
        out["python_mismatch"] = mismatch
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
