"""Tune a formula's weights on KTH-SP2: minimise mean bounded slowdown subject to a
fairness floor (Jain's index over the users' mean waits), and plot the trade-off.

    python python/examples/tune_kth.py                      # grid, every core
    python python/examples/tune_kth.py --dask tcp://host:8786  # on a Dask cluster

The formula: fairshare (auto user tree), age, and a preference for short requests,

    {fs} * fairshare_factor + eligible_time / 3600 - {short} * walltime / 3600

Each grid point is one EASY-backfilling simulation of the whole trace (28,467 jobs); the
sweep runs them in parallel (or one Dask task each). Writes the trade-off plot to --out.
"""

import argparse
import os
from pathlib import Path

import jobsort

HERE = Path(__file__).resolve()
DEFAULT_TRACE = HERE.parents[2].parent / "shared" / "data" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"
TEMPLATE = "{fs} * fairshare_factor + eligible_time / 3600 - {short} * walltime / 3600"
GRID = {"fs": [0, 10, 100, 1000], "short": [0, 0.25, 1, 4, 16]}


def pareto(df):
    """The points no other point beats on both mean_bsld (lower) and fairness (higher)."""
    front = []
    for _, r in df.sort_values(["mean_bsld", "jain_user_wait"], ascending=[True, False]).iterrows():
        if not front or r.jain_user_wait > front[-1].jain_user_wait:
            front.append(r)
    return front


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=os.environ.get("JOBSORT_KTH", DEFAULT_TRACE))
    ap.add_argument("--floor", type=float, default=0.2, help="fairness floor: jain_user_wait >= FLOOR")
    ap.add_argument("--first", type=int, default=None, help="simulate only the first N jobs")
    ap.add_argument("--dask", default=None, help="address of a Dask scheduler (default: local)")
    ap.add_argument("--out", default="kth_tradeoff.png")
    args = ap.parse_args()

    client = None
    if args.dask:
        from distributed import Client

        client = Client(args.dask)
    df = jobsort.sweep(args.trace, TEMPLATE, GRID, auto_tree="user", policy="easy", first=args.first, client=client)
    feasible = df[df.jain_user_wait >= args.floor]
    cols = ["fs", "short", "mean_bsld", "jain_user_wait", "mean_wait", "utilization"]
    print(df[cols].sort_values("mean_bsld").to_string(index=False))
    if feasible.empty:
        print(f"no weights reach the fairness floor {args.floor}")
        best = None
    else:
        best = feasible.loc[feasible.mean_bsld.idxmin()]
        print(
            f"\nbest with jain_user_wait >= {args.floor}: fs={best.fs:g}, short={best.short:g}: "
            f"mean bounded slowdown {best.mean_bsld:.2f}, fairness {best.jain_user_wait:.3f}\n"
            f"formula: {best.formula}"
        )

    try:
        import matplotlib
    except ImportError:
        print(f"no plot: matplotlib is not installed (pip install matplotlib, then run again for {args.out})")
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ok = df.jain_user_wait >= args.floor
    ax.scatter(df[~ok].jain_user_wait, df[~ok].mean_bsld, c="tab:gray", label="below the floor")
    ax.scatter(df[ok].jain_user_wait, df[ok].mean_bsld, c="tab:blue", label="feasible")
    front = pareto(df)
    ax.plot([r.jain_user_wait for r in front], [r.mean_bsld for r in front], "k--", lw=1, label="Pareto front")
    for _, r in df.iterrows():
        ax.annotate(f"{r.fs:g}/{r.short:g}", (r.jain_user_wait, r.mean_bsld), fontsize=6, alpha=0.7)
    if best is not None:
        ax.scatter([best.jain_user_wait], [best.mean_bsld], s=160, facecolors="none", edgecolors="tab:red", lw=2, label="chosen")
    ax.axvline(args.floor, color="tab:red", lw=0.8, ls=":")
    ax.set_xlabel("fairness: Jain's index of the users' mean waits (higher is fairer)")
    ax.set_ylabel("mean bounded slowdown (tau = 10 s)")
    ax.set_title(f"{Path(str(args.trace)).name}: weights fs/short, EASY")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot written to {args.out}")


if __name__ == "__main__":
    main()
