"""jobsort for Python: PBS ``job_sort_formula`` compiled to native code, evaluated over numpy
columns or pandas DataFrames; ranking, fairshare trees (PBS, Slurm, flux), trace simulation
and replay; formula sweeps locally or on Dask; when a site's waiting jobs start and why
(:func:`forecast`, :func:`why`).

Every rule is the Rust library's (the same code the ``jobsort`` command runs): this package
converts arguments and results. Errors are exceptions: :class:`FormulaError` (a formula that
does not compile: ``diagnostics``, ``span``, ``code``), :class:`InputError` (a file or value
the library cannot use; the message says where), both :class:`JobsortError`, a ``ValueError``.

>>> import jobsort, numpy as np
>>> f = jobsort.compile("ncpus * 0.5 + walltime / ncpus")
>>> ev = f.evaluate({"ncpus": np.array([4.0, 0.0]), "walltime": np.array([3600.0, 60.0])})
>>> ev.values.tolist(), ev.errors
([902.0, 0.0], [None, 'float division by zero'])
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _jobsort
from ._jobsort import Diagnostic, Formula, FormulaError, InputError, JobsortError, Jobs, Report, Trace

__version__: str = _jobsort.__version__

__all__ = [
    "Diagnostic",
    "Evaluation",
    "Formula",
    "FormulaError",
    "InputError",
    "Jobs",
    "JobsortError",
    "Report",
    "SimResult",
    "Trace",
    "check",
    "compile",
    "fairshare",
    "forecast",
    "load_jobs",
    "load_trace",
    "rank",
    "replay",
    "simulate",
    "sweep",
    "why",
]

PathLike = Union[str, "os.PathLike[str]"]
Resources = Union[Mapping[str, str], Iterable[str], None]

#: ``{code: (message, Python exception name)}`` of every per-job evaluation error.
ERRORS: dict[int, tuple[str, str]] = {code: (msg, exc) for code, msg, exc in _jobsort.error_messages()}


def _resources(resources: Resources) -> list[tuple[str, str]]:
    """``{"gpu_hours": "float"}`` or ``["gpu_hours:float"]`` as (name, type) pairs."""
    if resources is None:
        return []
    if isinstance(resources, Mapping):
        return [(str(k), str(v)) for k, v in resources.items()]
    out = []
    for r in resources:
        name, sep, ty = str(r).partition(":")
        if not sep:
            raise ValueError(f"resources: `{r}` is not NAME:TYPE (e.g. `foo:float`)")
        out.append((name, ty))
    return out


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def check(
    text: str,
    *,
    resources: Resources = None,
    resourcedef: Optional[PathLike] = None,
    compat: Optional[str] = None,
    deny_warnings: bool = False,
) -> Report:
    """Check a formula statically, as ``jobsort check`` does.

    Returns a :class:`Report` (``valid``, ``diagnostics``, ``range``; ``str()`` is the text
    the CLI prints). ``resources`` declares custom resources (``{"paws": "float"}``),
    ``resourcedef`` reads a PBS ``resourcedef`` file, ``compat="pbs"`` adds PBS's 32-bit
    storage notes, ``deny_warnings`` makes warnings errors. A qmgr line
    (``set server job_sort_formula="..."``) is unquoted first.
    """
    return _jobsort.check_formula(text, _resources(resources), _path(resourcedef), compat, deny_warnings)


def compile(
    text: str,
    *,
    resources: Resources = None,
    resourcedef: Optional[PathLike] = None,
    engine: str = "jit",
    compat: Optional[str] = None,
    deny_warnings: bool = False,
) -> Formula:
    """Compile a formula once (parse, check, optimise, JIT) and evaluate it many times.

    Raises :class:`FormulaError` (message, ``diagnostics``, ``span``) when it does not
    compile. ``engine="interp"`` uses the reference interpreter (bit-identical results);
    ``compat="pbs"`` rounds inputs as PBS passes them and stores values as 32-bit floats.
    """
    return _jobsort.compile_formula(
        text, _resources(resources), _path(resourcedef), engine, compat, deny_warnings
    )


@dataclass(frozen=True)
class Evaluation:
    """Per-job results: ``values`` (float64; 0 where the evaluation erred, as in PBS) and
    ``error_codes`` (uint8; 0 = none). ``errors`` gives each job's error message or ``None``.
    ``copied`` names the input columns that had to be converted to contiguous float64 (empty
    when every column was read in place)."""

    values: np.ndarray
    error_codes: np.ndarray
    copied: tuple[str, ...] = ()
    addresses: tuple[int, ...] = field(default=(), repr=False)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def error_count(self) -> int:
        return int(np.count_nonzero(self.error_codes))

    @property
    def failed(self) -> np.ndarray:
        """Indices of the jobs whose evaluation erred."""
        return np.flatnonzero(self.error_codes)

    @property
    def errors(self) -> list[Optional[str]]:
        """Each job's error in Python's words (``"float division by zero"``), or ``None``."""
        return [ERRORS[c][0] if c else None for c in self.error_codes.tolist()]

    def error(self, i: int) -> Optional[str]:
        c = int(self.error_codes[i])
        return ERRORS[c][0] if c else None


def _column(name: str, obj: Any) -> tuple[np.ndarray, bool]:
    """A 1-D contiguous float64 array for ``obj`` and whether it had to be copied."""
    arr = np.asarray(obj)
    if arr.ndim != 1:
        raise ValueError(f"column `{name}` has shape {arr.shape}: one value per job is needed")
    if arr.dtype == np.float64 and arr.flags.c_contiguous:
        return arr, False
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"column `{name}` has dtype {arr.dtype}: formula inputs are numbers")
    return np.ascontiguousarray(arr, dtype=np.float64), True


def _evaluate(self: Formula, data: Any, n: Optional[int] = None) -> Evaluation:
    """Evaluate the formula for every job.

    ``data`` is a mapping of column name to array (a ``dict`` of numpy arrays, a pandas
    DataFrame) or :class:`Jobs`. Contiguous float64 columns are read in place (no copy);
    other numeric dtypes are converted. A column the formula reads that ``data`` lacks reads
    0 for every job (a job that does not request a resource has 0, as in PBS), with a
    warning. ``n`` gives the job count when the formula reads no column (``MemoryError`` when
    the results of that many jobs cannot be allocated).
    The GIL is released while evaluating.
    """
    if isinstance(data, Jobs):
        _warn_missing(data._absent(self))
        values, codes = data._evaluate(self)
        return Evaluation(values, codes)
    columns: list[np.ndarray] = []
    copied: list[str] = []
    missing: list[str] = []
    length = n
    for name in self.inputs:
        if name in data:
            arr, was_copied = _column(name, data[name])
            if length is None:
                length = len(arr)
            elif len(arr) != length:
                raise ValueError(f"column `{name}` has {len(arr)} values, others {length}")
            columns.append(arr)
            if was_copied:
                copied.append(name)
        else:
            missing.append(name)
            columns.append(None)  # type: ignore[arg-type]
    if length is None:
        length = _data_len(data)
        if length is None:
            raise ValueError("the formula reads no column: give the job count, n=...")
    if missing:
        _warn_missing(missing)
        zeros = np.zeros(length)
        columns = [zeros if c is None else c for c in columns]
    values, codes, addresses = self._evaluate(columns, length)
    return Evaluation(values, codes, tuple(copied), tuple(addresses))


def _warn_missing(missing: list[str]) -> None:
    """The one warning for inputs the jobs lack, whatever holds the jobs."""
    if missing:
        warnings.warn(
            "no column " + ", ".join(f"`{m}`" for m in missing) + ": every job reads 0",
            stacklevel=3,
        )


def _data_len(data: Any) -> Optional[int]:
    try:
        return len(data.index)  # a DataFrame
    except AttributeError:
        pass
    for v in getattr(data, "values", lambda: [])():
        return len(v)
    return None


Formula.evaluate = _evaluate  # type: ignore[attr-defined]


def rank(
    values: Any,
    *,
    jobs: Optional[Jobs] = None,
    submit: Any = None,
    ids: Optional[Sequence[str]] = None,
    fair_share: bool = False,
    threshold: Optional[float] = None,
    top: Optional[int] = None,
):
    """Order jobs as PBS considers them: value descending; ties by submission order
    (``submit``, else input order), then ``ids`` by their sequence number (``96.vm`` before
    ``108.vm``, as PBS queued them). ``threshold``: jobs with value ``<= T``
    are not runnable (PBS ``job_sort_formula_threshold``). ``top``: the first K, selected
    without sorting the rest. ``jobs`` (from :func:`load_jobs`) supplies ``ids`` and
    ``submit`` as ``jobsort rank`` takes them, and with ``fair_share=True`` PBS's fairshare
    tie-break (``compare_path``) from its tree.

    ``values`` is an array or an :class:`Evaluation`. Returns a DataFrame in rank order:
    ``rank`` (1-based), ``index`` (the job's position), ``id`` (with ids), ``value``,
    ``runnable``, ``error`` (with an Evaluation).
    """
    import pandas as pd

    evaluation = values if isinstance(values, Evaluation) else None
    vals = _column("values", evaluation.values if evaluation else values)[0]
    if jobs is not None:
        ids = jobs.ids if ids is None else ids
        submit = jobs.submit if submit is None else submit
    fs = None
    if fair_share:
        if jobs is None:
            raise ValueError("fair_share needs jobs= (loaded with a resource_group tree)")
        fs = jobs.fair_share_ranks()
        if fs is None:
            raise ValueError("fair_share applies to the PBS algorithm only")
    sub = None if submit is None else _column("submit", submit)[0]
    id_list = None if ids is None else [str(i) for i in ids]
    index, value, runnable = _jobsort.rank_values(vals, sub, id_list, fs, threshold, top)
    out = {"rank": np.arange(1, len(index) + 1), "index": index}
    if id_list is not None:
        out["id"] = [id_list[i] for i in index.tolist()]
    out["value"] = value
    out["runnable"] = runnable
    if evaluation is not None:
        out["error"] = [evaluation.error(i) for i in index.tolist()]
    return pd.DataFrame(out)


def _tree(
    resource_group: Optional[PathLike],
    usage: Optional[PathLike],
    fairshare_tree: Optional[PathLike],
    algorithm: Optional[str],
    unknown_shares: int,
    lenient: bool,
    slurm_tie_order: Optional[str],
) -> dict:
    return {
        "resource_group": _path(resource_group),
        "usage": _path(usage),
        "fairshare_tree": _path(fairshare_tree),
        "algorithm": algorithm,
        "unknown_shares": unknown_shares,
        "lenient": lenient,
        "slurm_tie_order": slurm_tie_order,
    }


def load_jobs(
    path: PathLike,
    *,
    format: str = "auto",
    resources: Resources = None,
    resourcedef: Optional[PathLike] = None,
    strict: bool = False,
    resource_group: Optional[PathLike] = None,
    usage: Optional[PathLike] = None,
    fairshare_tree: Optional[PathLike] = None,
    algorithm: Optional[str] = None,
    entity: str = "euser",
    unknown_shares: int = 0,
    lenient: bool = False,
    slurm_tie_order: Optional[str] = None,
) -> Jobs:
    """Read a job file as ``jobsort eval``/``rank --jobs`` do: JSON, JSON lines, CSV or
    ``qstat -f -F json`` (``format`` from the name and content unless given; SWF traces are
    :func:`load_trace`'s). With a
    fairshare tree (``resource_group`` [+ ``usage``] for PBS, ``fairshare_tree`` with
    ``algorithm`` for Slurm and flux) each job gets ``fairshare_perc``,
    ``fairshare_tree_usage`` and ``fairshare_factor`` of its ``entity``.

    Warnings the CLI prints (unknown fields, entities not in the tree) are Python warnings;
    ``strict=True`` makes an unknown field an error. The result evaluates directly
    (``f.evaluate(jobs)``), ranks (``rank(ev, jobs=jobs)``) and converts
    (``jobs.to_pandas()``).
    """
    jobs = _jobsort.load_jobs(
        os.fspath(path),
        format,
        _resources(resources),
        _path(resourcedef),
        strict,
        entity,
        _tree(resource_group, usage, fairshare_tree, algorithm, unknown_shares, lenient, slurm_tie_order),
    )
    for w in jobs.warnings:
        warnings.warn(w, stacklevel=2)
    return jobs


def _jobs_to_pandas(self: Jobs):
    """The jobs as a DataFrame: id, user, group, account, queue, submit, then every numeric
    value (0 where a job lacks it)."""
    import pandas as pd

    return pd.DataFrame(self._columns())


Jobs.to_pandas = _jobs_to_pandas  # type: ignore[attr-defined]


def fairshare(
    *,
    resource_group: Optional[PathLike] = None,
    usage: Optional[PathLike] = None,
    fairshare_tree: Optional[PathLike] = None,
    algorithm: Optional[str] = None,
    unknown_shares: int = 0,
    lenient: bool = False,
    slurm_tie_order: Optional[str] = None,
):
    """A fairshare tree from the files ``jobsort fairshare`` reads, as a DataFrame.

    PBS: ``resource_group`` and optional ``usage`` (binary usage file or a JSON/TOML map);
    rows in ``pbsfs -p`` order with ``name``, ``id``, ``parent``, ``shares``, ``usage``.
    Slurm/flux: ``fairshare_tree`` (JSON tree, ``sshare -a -l -P`` output, flux-accounting
    database) with ``algorithm`` (``slurm-classic``, ``slurm-fairtree``, ``flux``; default
    from the file); rows in pre-order with ``user`` for user associations. Every row has
    the formula keywords ``fairshare_perc``, ``fairshare_tree_usage``, ``fairshare_factor``
    (NaN where the algorithm does not define one). ``df.attrs["algorithm"]`` names the
    algorithm.
    """
    import pandas as pd

    cols, warns, alg = _jobsort.fairshare_rows(
        _tree(resource_group, usage, fairshare_tree, algorithm, unknown_shares, lenient, slurm_tie_order)
    )
    for w in warns:
        warnings.warn(w, stacklevel=2)
    df = pd.DataFrame(cols)
    df.attrs["algorithm"] = alg
    return df


def load_trace(path: PathLike) -> Trace:
    """Read a workload trace once (SWF, or a JSON job list; plain or gzip) to simulate it
    many times. ``len(trace)`` is the jobs kept; ``trace.report()`` the load report;
    ``trace.to_pandas()`` the jobs."""
    return _jobsort.load_trace(os.fspath(path))


Trace.report = lambda self: self._report()  # type: ignore[attr-defined]


def _trace_to_pandas(self: Trace):
    import pandas as pd

    return pd.DataFrame(self._columns())


Trace.to_pandas = _trace_to_pandas  # type: ignore[attr-defined]

METRICS = (
    "mean_wait",
    "median_wait",
    "p95_wait",
    "mean_bsld",
    "p95_bsld",
    "utilization",
    "makespan",
    "jain_user_wait",
    "jain_user_bsld",
)


@dataclass
class SimResult:
    """What :func:`simulate` returns.

    ``metrics``: a DataFrame, one row per formula (``formula``, ``policy``, the metrics of
    ``jobsort sim``: ``mean_wait``, ``median_wait``, ``p95_wait``, ``mean_bsld``,
    ``p95_bsld``, ``utilization``, ``makespan``, ``jain_user_wait``, ``jain_user_bsld``, and ``jobs``,
    ``dropped``, ``never_started``, ``rounds``, ``eval_errors``). ``trace``: the load report
    and the machine. ``shares``: delivered vs target share per entity and formula.
    ``starts``: with ``starts=True``, one row per job and formula (``formula``, ``id``,
    ``user``, ``submit``, ``start``, ``end``, ``wait``; NaN for a job that never started).
    """

    metrics: Any
    trace: dict
    shares: Any
    starts: Any = None


def _count(name: str, value: Optional[int]) -> None:
    """A count the simulator takes as a 32-bit unsigned number: a ValueError naming it when
    it is not one (rather than a TypeError about a Rust field)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: {value!r} is not a whole number")
    if not 0 <= int(value) <= 0xFFFF_FFFF:
        raise ValueError(f"{name}: {value} is out of range (0 to 4294967295)")


def _sim_spec(
    policy: Optional[str],
    nodes: Optional[int],
    cores: Optional[int],
    threshold: Optional[float],
    resource_group: Optional[PathLike],
    auto_tree: Optional[str],
    entity: Optional[str],
    decay_time: Optional[int],
    decay_factor: Optional[float],
    unknown_shares: Optional[int],
    limits: Optional[PathLike],
    reject_unknown_users: bool,
    first: Optional[int],
    starts: bool,
    record: Optional[PathLike],
    record_queue: bool,
    pbs_home: Optional[PathLike] = None,
    sched_config: Optional[PathLike] = None,
    qmgr: Optional[PathLike] = None,
    slurm_conf: Optional[PathLike] = None,
) -> dict:
    for name, count in (("nodes", nodes), ("cores", cores), ("unknown_shares", unknown_shares)):
        _count(name, count)
    return {
        "policy": policy,
        "nodes": nodes,
        "cores": cores,
        "threshold": threshold,
        "resource_group": _path(resource_group),
        "auto_tree": auto_tree,
        "entity": entity,
        "decay_time": decay_time,
        "decay_factor": decay_factor,
        "unknown_shares": unknown_shares,
        "limits": _path(limits),
        "reject_unknown_users": reject_unknown_users,
        "first": first,
        "starts": starts,
        "record": _path(record),
        "record_queue": record_queue,
        "pbs_home": _path(pbs_home),
        "sched_config": _path(sched_config),
        "qmgr": _path(qmgr),
        "slurm_conf": _path(slurm_conf),
    }


def simulate(
    trace: Union[Trace, PathLike],
    formulas: Sequence[Union[str, Formula]] = (),
    *,
    policy: Optional[str] = None,
    nodes: Optional[int] = None,
    cores: Optional[int] = None,
    threshold: Optional[float] = None,
    resource_group: Optional[PathLike] = None,
    auto_tree: Optional[str] = None,
    entity: Optional[str] = None,
    decay_time: Optional[int] = None,
    decay_factor: Optional[float] = None,
    unknown_shares: Optional[int] = None,
    limits: Optional[PathLike] = None,
    reject_unknown_users: bool = False,
    first: Optional[int] = None,
    starts: bool = False,
    record: Optional[PathLike] = None,
    record_queue: bool = False,
    resources: Resources = None,
    resourcedef: Optional[PathLike] = None,
    engine: str = "jit",
    compat: Optional[str] = None,
    pbs_home: Optional[PathLike] = None,
    sched_config: Optional[PathLike] = None,
    qmgr: Optional[PathLike] = None,
    slurm_conf: Optional[PathLike] = None,
) -> SimResult:
    """Simulate a trace under each formula, side by side, as ``jobsort sim`` does (same
    flags, same numbers). No formula: first come, first served.

    ``trace`` is a path or a :class:`Trace` (load once with :func:`load_trace` to simulate it
    many times). ``policy``: ``"strict"``, ``"easy"``, ``"fill"``,
    ``"conservative"``, ``"slurm"`` (Slurm's backfill, default knobs) or ``"backfill:N"``; ``nodes``/``cores`` default to the
    trace header; ``threshold`` as PBS ``job_sort_formula_threshold``; fairshare from
    ``resource_group`` (with ``entity``) or ``auto_tree`` (``"user"``, ``"group"``,
    ``"group:user"``), decayed by ``decay_time``/``decay_factor``; ``limits``: a
    flux-accounting limits file; ``first``: only the first N jobs; ``record``: write the
    recording (one formula; gzip when the name ends in ``.gz``), with each round's ranked
    queue when ``record_queue``. Formulas given as text compile with ``resources``,
    ``resourcedef``, ``engine``, ``compat``. Runs in parallel with the GIL released; Ctrl-C
    stops the runs within a round and raises ``KeyboardInterrupt``.

    A site's own files set what is not given, as ``jobsort sim --pbs-home --sched-config
    --qmgr --slurm-conf`` read them (the same resolver, in the library): ``pbs_home`` (a
    PBS_HOME or a copy: its ``sched_priv/sched_config`` and ``resource_group``),
    ``sched_config``, ``qmgr`` (``qmgr -c 'print server'`` output: ``job_sort_formula``,
    ``job_sort_formula_threshold``, ``backfill_depth``), or ``slurm_conf`` (its scheduler
    and, when the nodes are of one size, the machine). An argument given wins; a setting
    neither gives is the default (``policy`` EASY, ``entity`` ``"euser"``, ``decay_time``
    86400, ``decay_factor`` 0.5, ``unknown_shares`` 0). With no formula, the site's
    ``job_sort_formula`` ranks. Not taken from the files here, unlike ``jobsort sim``: queue
    priorities and ``by_queue``, qmgr's nodes, and slurm.conf's multifactor priority.
    """
    import pandas as pd

    if isinstance(formulas, (str, Formula)):
        formulas = [formulas]
    compiled = [
        f
        if isinstance(f, Formula)
        else compile(f, resources=resources, resourcedef=resourcedef, engine=engine, compat=compat)
        for f in formulas
    ]
    if not isinstance(trace, Trace):
        trace = load_trace(trace)
    spec = _sim_spec(
        policy, nodes, cores, threshold, resource_group, auto_tree, entity, decay_time,
        decay_factor, unknown_shares, limits, reject_unknown_users, first, starts, record,
        record_queue, pbs_home, sched_config, qmgr, slurm_conf,
    )
    info, runs = _jobsort.simulate_trace(trace, compiled, spec)
    rows = []
    share_rows = []
    for r in runs:
        row = {"formula": r["formula"], "policy": r["policy"]}
        row.update(r["metrics"])
        for k in ("jobs", "dropped", "never_started", "rounds", "eval_errors"):
            row[k] = r[k]
        rows.append(row)
        share_rows += [
            {"formula": r["formula"], "entity": e, "target": t, "delivered": d} for e, t, d in r["shares"]
        ]
    starts_df = None
    if starts:
        jobs = info.pop("jobs")
        frames = []
        for r in runs:
            frame = pd.DataFrame(
                {
                    "formula": r["formula"],
                    "id": jobs["id"],
                    "user": jobs["user"],
                    "submit": jobs["submit"],
                    "start": r["start"],
                    "end": r["end"],
                }
            )
            frame["wait"] = frame["start"] - frame["submit"]
            frames.append(frame)
        starts_df = pd.concat(frames, ignore_index=True)
    return SimResult(
        metrics=pd.DataFrame(rows),
        trace=info,
        shares=pd.DataFrame(share_rows, columns=["formula", "entity", "target", "delivered"]),
        starts=starts_df,
    )


def replay(
    recording: Optional[PathLike] = None,
    *,
    trace: Union[Trace, PathLike, None] = None,
    verify: bool = False,
    formula: Union[str, Formula, None] = None,
    policy: str = "easy",
    nodes: Optional[int] = None,
    cores: Optional[int] = None,
    per_round: bool = False,
    resources: Resources = None,
    resourcedef: Optional[PathLike] = None,
    engine: str = "jit",
    compat: Optional[str] = None,
) -> dict:
    """Verify or reconcile a recording, as ``jobsort replay`` does; returns its
    ``--format json`` document as a dict.

    With only ``recording`` (or ``verify=True``): re-drive the recorded events through the
    live scheduler (with ``formula`` instead of the recorded one when given) and count the
    mismatches. With ``formula``: reconcile it against the recording, or against the real
    schedule of an SWF ``trace`` (then ``policy``, ``nodes``, ``cores`` apply, and the
    report has ``recorded_metrics``). Give the ``resources``/``engine``/``compat`` the
    recording was made with.
    """
    import json

    if isinstance(formula, str):
        formula = compile(formula, resources=resources, resourcedef=resourcedef, engine=engine, compat=compat)
    if trace is not None and not isinstance(trace, Trace):
        trace = load_trace(trace)
    text = _jobsort.replay_recording(
        _path(recording), trace, verify, formula, policy, nodes, cores, per_round,
        _resources(resources), _path(resourcedef), engine, compat,
    )
    return json.loads(text)


#: The forecast's times (Unix seconds); :func:`forecast` adds each as a UTC Timestamp, ``_utc``.
_FORECAST_TIMES = ("planned_at", "start", "end", "model_start", "model_end", "submit")

#: The columns of :func:`forecast`, in order (the seconds' ``_utc`` Timestamps at the end).
_FORECAST_COLUMNS = (
    "rank",
    "of",
    "id",
    "user",
    "queue",
    "value",
    "ahead",
    "blocked_kind",
    "plain",
    "blocked",
    "scheduler_says",
    "scheduler_says_plain",
    "planned_at",
    "start",
    "end",
    "nodes",
    "model_start",
    "model_end",
    "walltime",
    "submit",
)


def forecast(
    snapshot: PathLike,
    *,
    formula: Optional[str] = None,
    history: Optional[PathLike] = None,
    policy: Optional[str] = None,
    strict: bool = False,
):
    """When each waiting job of a site's snapshot starts, and what holds it now, as
    ``jobsort forecast --snapshot DIR`` forecasts it (the library's planner).

    ``snapshot`` is a folder ``contrib/capture/pbs.sh``, ``slurm.sh`` or ``flux.sh`` made.
    The queue is taken in the site's priority order: PBS's ``job_sort_formula`` (the folder's
    ``qmgr.txt``/``sched_config``) or ``formula`` evaluated over the folder's job capture
    (without either: submission order); Slurm's and Flux's priority as captured, or
    ``formula`` in that scheduler's catalog. It is planned forward by the site's dispatch
    policy (or ``policy``: ``"strict"``, ``"easy"``, ``"fill"``, ``"conservative"``,
    ``"slurm"``, ``"backfill:N"``) assuming running jobs use their full walltime and nothing
    new arrives; with ``history`` (PBS accounting logs, a sacct dump, a Flux job list, SWF)
    a second plan uses the run times learned from it (each user's median share of the
    walltime), in ``model_start``/``model_end``. ``strict=True`` refuses a snapshot whose
    parts disagree (otherwise each disagreement is a warning).

    Returns a DataFrame, one row per waiting job in rank order, with the fields of the CLI's
    ``--format json`` jobs: ``rank``, ``of``, ``id``, ``user``, ``queue`` (a list),
    ``value`` (the priority the order sorts by; NaN when the job was not ranked, e.g. held),
    ``ahead`` (the job just ahead), ``blocked_kind`` (``none``, ``resources``,
    ``reservation``, ``advance_reservation``, ``order``, ``never_fits``, ``hold``), ``plain``
    (what holds it, in words), ``blocked`` (the same as a dict), ``scheduler_says`` (and
    ``scheduler_says_plain``), ``planned_at`` (a top job's window), ``start``, ``end``,
    ``nodes``, ``model_start``, ``model_end``, ``walltime``, ``submit``. Times are Unix
    seconds (nullable ``Int64``: ``<NA>`` when none, e.g. no start within 30 days), each
    beside a UTC Timestamp column ``start_utc``, ``end_utc``, ... (``NaT`` when none).
    ``df.attrs`` holds the header: ``scheduler``, ``taken_at``, ``policy``, ``ordered_by``,
    ``assumption``, ``model`` (the history's fit) and ``missing`` (captures the folder lacks).

    Not here, unlike the CLI: each job's ``terms`` and ``computed_value``, and — as the
    order comes from :func:`jobsort`'s library rather than ``jobsort rank`` — PBS's
    ``by_queue``/``round_robin`` regrouping and ``fair_share`` tie-break, so a PBS site with
    several queues of different ``Priority`` under ``by_queue`` is ordered by the formula
    alone. Raises :class:`InputError` (naming the folder or file) for a folder that is no
    snapshot or a capture that cannot be read, :class:`ValueError` for a bad ``policy``.
    The GIL is released while loading and planning.

    >>> df = jobsort.forecast("tests/data/why/pbs")          # doctest: +SKIP
    >>> df[["rank", "id", "value", "start_utc", "blocked_kind"]]  # doctest: +SKIP
    """
    import pandas as pd

    header, jobs = _jobsort.forecast(os.fspath(snapshot), formula, _path(history), policy, strict)
    df = pd.DataFrame(jobs, columns=list(_FORECAST_COLUMNS))
    for name in ("rank", "of", "walltime", *_FORECAST_TIMES):
        df[name] = df[name].astype("Int64")
    df["value"] = df["value"].astype("float64")
    for name in _FORECAST_TIMES:
        df[f"{name}_utc"] = pd.to_datetime(df[name].astype("float64"), unit="s", utc=True)
    df.attrs.update(header)
    return df


def why(
    snapshot: PathLike,
    jobid: str,
    *,
    formula: Optional[str] = None,
    history: Optional[PathLike] = None,
    policy: Optional[str] = None,
    strict: bool = False,
) -> dict:
    """One waiting job of a snapshot, as ``jobsort why JOBID --snapshot DIR --format json``
    explains it: its rank and priority, what holds it now (``plain``, ``blocked``, and the
    scheduler's own words, ``scheduler_says``), and when it starts (``start``, with
    ``history`` ``model_start``; Unix seconds, ``None`` when not within 30 days).

    ``jobid`` as the scheduler names it (``"1234.server"``, or ``"1234"``). The keywords are
    :func:`forecast`'s. Returns a dict with the fields of one of :func:`forecast`'s rows
    (integer seconds, no ``_utc`` columns) and the header's beside them (``scheduler``,
    ``taken_at``, ``policy``, ``ordered_by``, ``assumption``, ``model``, ``missing``). A job
    that is not waiting raises :class:`InputError` saying what it is: running since when,
    in which state, or not in the snapshot.
    """
    return _jobsort.why(os.fspath(snapshot), str(jobid), formula, _path(history), policy, strict)


from ._sweep import sweep  # noqa: E402  (uses simulate)
