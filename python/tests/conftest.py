"""Shared fixtures: the `jobsort` binary the results are compared with, the repository and the
`shared/` folder beside it (cases and traces are read from there at test time)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JOBSORT_SHARED", REPO.parent / "shared"))
KTH = SHARED / "data" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"


def _binary() -> Path:
    env = os.environ.get("JOBSORT_BIN")
    path = Path(env) if env else REPO / "target" / "debug" / "jobsort"
    if not path.exists():
        pytest.fail(f"{path} does not exist: build it with `cargo build --bin jobsort` (or set JOBSORT_BIN)")
    return path


@pytest.fixture(scope="session")
def cli():
    """Run the `jobsort` binary: `cli(*args)` returns (exit code, stdout, stderr)."""
    binary = _binary()

    def run(*args, input=None):
        env = dict(os.environ, NO_COLOR="1")
        p = subprocess.run(
            [str(binary), *map(str, args)], input=input, capture_output=True, text=True, env=env, cwd=REPO
        )
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """Run the binary and parse its JSON stdout (the exit code must be 0)."""

    def run(*args):
        code, out, err = cli(*args)
        assert code == 0, err
        return json.loads(out)

    return run


def cases(file: str, kind: str):
    path = SHARED / "cases" / file
    if not path.exists():
        pytest.fail(f"{path} does not exist: the conformance cases are read from shared/ beside the repository")
    return [c for c in json.loads(path.read_text()) if c["kind"] == kind]


def progress_during(call, times):
    """How far the main thread got while another thread ran `call` (once per run).

    With the switch interval at 1000 s no thread is preempted: a thread that held the GIL
    through `call` would stop the main thread until it returned, so every count would be 0.
    A count that moves *during* a call shows the GIL was released. (A pure-Python loop in
    place of `call` gives all zeros.)"""
    import sys
    import threading
    import time

    counter = [0]
    moved = []
    done = threading.Event()

    def work():
        for _ in range(times):
            before = counter[0]
            call()
            moved.append(counter[0] - before)
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        t = threading.Thread(target=work)
        t.start()
        while not done.is_set():
            time.sleep(0.0001)  # releases the GIL, then needs it back
            counter[0] += 1
        t.join()
    finally:
        sys.setswitchinterval(old)
    return moved
