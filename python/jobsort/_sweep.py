"""Formula sweeps: every combination of traces, formulas and settings, one DataFrame.

Locally the simulations of one trace and setting run in one call, in parallel on every core
with the GIL released (the trace read once). Given a ``dask.distributed.Client``, each
simulation is one task; a worker reads each trace once and keeps it (``_worker_trace``), so
a sweep over a site's PBS or Slurm cluster (``dask_jobqueue.PBSCluster`` /
``SLURMCluster``) pays for the trace once per worker, not once per task.
"""

from __future__ import annotations

import itertools
import os
import string
from functools import lru_cache
from typing import Any, Mapping, Optional, Sequence, Union

import jobsort

_SIM_KEYWORDS = frozenset(
    {
        "policy", "nodes", "cores", "threshold", "resource_group", "auto_tree", "entity",
        "decay_time", "decay_factor", "unknown_shares", "limits", "reject_unknown_users",
        "first", "resources", "resourcedef", "engine", "compat", "pbs_home", "sched_config",
        "qmgr", "slurm_conf",
    }
)


def _template_fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def _combinations(
    traces: Sequence[str],
    formulas: Union[str, Sequence[str]],
    grid: Optional[Mapping[str, Sequence[Any]]],
) -> list[dict]:
    """One dict per simulation: ``trace``, ``formula``, the grid's values and the
    simulate() keywords the grid varies (``_sim``), in a stable order (traces, then the
    grid's product in its key order, then the formulas)."""
    grid = dict(grid or {})
    if isinstance(formulas, str):
        fields = _template_fields(formulas)
        missing = [f for f in fields if f not in grid]
        if missing:
            raise ValueError(f"the template's fields {missing} have no values in grid")
        templates = [formulas]
    else:
        fields = []
        templates = list(formulas)
        if not templates:
            raise ValueError("no formulas to sweep")
    unknown = [k for k in grid if k not in fields and k not in _SIM_KEYWORDS]
    if unknown:
        raise ValueError(
            f"grid keys {unknown} are neither template fields nor simulate() keywords"
        )
    keys = list(grid)
    combos = []
    for trace in traces:
        for values in itertools.product(*(grid[k] for k in keys)):
            point = dict(zip(keys, values))
            for template in templates:
                formula = template.format(**{k: point[k] for k in fields}) if fields else template
                sim = {k: v for k, v in point.items() if k in _SIM_KEYWORDS}
                combos.append({"trace": trace, "formula": formula, **point, "_sim": sim})
    return combos


@lru_cache(maxsize=8)
def _cached_trace(path: str, mtime_ns: int, size: int) -> "jobsort.Trace":
    return jobsort.load_trace(path)


def _worker_trace(path: str) -> "jobsort.Trace":
    """The trace, read once per process (a Dask worker) and kept while the file is
    unchanged."""
    st = os.stat(path)
    return _cached_trace(path, st.st_mtime_ns, st.st_size)


def _run_one(path: str, formula: str, options: dict) -> dict:
    """One simulation (one Dask task): its metrics row."""
    result = jobsort.simulate(_worker_trace(path), [formula], **options)
    return result.metrics.iloc[0].to_dict()


def sweep(
    traces: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
    formulas: Union[str, Sequence[str]],
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    *,
    client: Any = None,
    **options: Any,
):
    """Simulate every combination and return one DataFrame, a row per simulation.

    ``formulas`` is a list of formulas, or a template whose ``{fields}`` take every
    combination of the ``grid``'s values (``"{w} * fairshare_factor + eligible_time"``,
    ``grid={"w": [0, 100, 1000]}``). Grid keys that are :func:`jobsort.simulate` keywords
    (``policy``, ``threshold``, ...) vary that setting instead. ``options`` are further
    :func:`jobsort.simulate` keywords, the same for every run.

    Columns: ``trace``, ``formula``, each grid key, then the metrics of
    :func:`jobsort.simulate` (``mean_bsld``, ``jain_user_wait``, ...). Rows are in a stable
    order whatever runs them: traces, then the grid's product, then the formulas.

    Without ``client``, runs locally: one :func:`jobsort.simulate` call per trace and setting
    with all its formulas, in parallel on every core. With a ``dask.distributed.Client``,
    one task per simulation; each worker reads a trace once. The results are the same
    (the simulator is deterministic).
    """
    import pandas as pd

    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    paths = [os.path.abspath(os.fspath(t)) for t in traces]
    bad = [k for k in options if k not in _SIM_KEYWORDS]
    if bad:
        raise TypeError(f"sweep() got unexpected keywords {bad}")
    combos = _combinations(paths, formulas, grid)
    if client is None:
        rows = _local(combos, options)
    else:
        futures = [
            client.submit(_run_one, c["trace"], c["formula"], {**options, **c["_sim"]}, pure=False)
            for c in combos
        ]
        rows = client.gather(futures)
    out = []
    for c, metrics in zip(combos, rows):
        row = {k: v for k, v in c.items() if k != "_sim"}
        row.update({k: v for k, v in metrics.items() if k != "formula"})
        out.append(row)
    return pd.DataFrame(out)


def _local(combos: list[dict], options: dict) -> list[dict]:
    """Group the simulations by trace and setting; each group is one parallel
    :func:`jobsort.simulate` call."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(combos):
        key = (c["trace"], tuple(sorted(c["_sim"].items(), key=lambda kv: kv[0])))
        groups.setdefault(key, []).append(i)
    rows: list[Optional[dict]] = [None] * len(combos)
    for (path, sim), members in groups.items():
        formulas = [combos[i]["formula"] for i in members]
        result = jobsort.simulate(_worker_trace(path), formulas, **{**options, **dict(sim)})
        for i, (_, row) in zip(members, result.metrics.iterrows()):
            rows[i] = row.to_dict()
    return rows  # type: ignore[return-value]
