//! `jobsort sim --snapshot DIR`: formulas compared on a site's queue now.
//!
//! The acceptance test is a snapshot whose future is known: jobsort's simulator runs a
//! prefix of the KTH-SP2 trace first come, first served under strict ordering, the schedule
//! it records is cut at an instant into a PBS snapshot folder
//! (`forecast::history::snapshot_at`), and `sim --snapshot` with each job's run time
//! (`--runtimes`) must give every job waiting then exactly the start the simulator gave it.
//! The hand-worked cases use the hand-built PBS snapshots of `tests/data/why/pbs` and
//! `tests/data/snapshot/pbs_limits`.

use crate::common;
use crate::common::cli::{jobsort, run, stderr};
use jobsort::forecast::history::{HistorySnapshot, snapshot_at};
use jobsort::model::place::Arrangement;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The first 300 jobs of `KTH-SP2-1996-2.1-cln.swf` (the Parallel Workloads Archive's cleaned
/// log of the IBM SP2 at KTH, 100 nodes of one processor), its header kept.
fn kth() -> String {
    format!("{DATA}/sim_snapshot/kth-sp2-first-300.swf")
}

fn why_pbs() -> String {
    format!("{DATA}/why/pbs")
}

/// `--format json`'s document, after asserting the run succeeded.
fn json_doc(args: &[&str]) -> Value {
    let out = jobsort(args);
    common::cli::json(&out)
}

/// The run labelled `label` in a `sim --snapshot --format json` document.
fn run_of<'a>(doc: &'a Value, label: &str) -> &'a Value {
    doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == label)
        .unwrap_or_else(|| panic!("no run {label}: {doc}"))
}

/// Site order (`ncpus * 2 + walltime / 3600`, qmgr.txt: 301 34, 302 9, 303 4.33) against
/// `-walltime` (303, 302, 301) on `tests/data/why/pbs`, EASY (`backfill_depth = 1` with
/// `strict_ordering`), every job its full walltime. The snapshot is at 12:00; n1 (8 cpus) is
/// full until 13:00 (201), n2 has 4 of 8 free until 12:30 (202), n3 is free.
///
/// Site order: 301 (cid, 2 whole nodes, 2 h, submitted 11:40) fits nowhere now; its window
/// is 12:30, when n2 and n3 are both free. 302 (dan, 4 cpus, 1 h, 11:45) would fit on n2 or
/// n3 but run into that window; 303 (eve, 2 cpus, 20 min, 11:55) ends by 12:20 and starts
/// now on n2. At 12:30 301 starts on n2 and n3, at 13:00 302 on n1. Waits: eve 300, cid
/// 3000, dan 4500 (mean 2600).
///
/// `-walltime`: 303 starts now on n2 (300), 302 now on n3 (900: first fit passes n2, which
/// has 2 cpus left), 301 waits for two free nodes: n1 and n3 at 13:00 (4800). Mean 2000;
/// per user: dan −3600, cid +1800, eve 0. The held 304 never starts under either.
#[test]
fn two_formulas_on_a_pbs_snapshot_give_each_user_the_wait_worked_by_hand() {
    let doc = json_doc(&[
        "sim",
        "--snapshot",
        &why_pbs(),
        "--formula=-walltime",
        "--format",
        "json",
    ]);
    assert_eq!(doc["policy"], "easy", "{doc}");
    let site = run_of(&doc, "site");
    assert_eq!(site["ordered_by"], "the site's job_sort_formula");
    let m = &site["metrics"];
    assert_eq!(m["waiting"], 4);
    assert_eq!(m["started"], 3);
    assert_eq!(m["not_started"], json!([{"why": "held", "jobs": 1}]));
    assert_eq!(m["mean_wait"], 2600.0);
    assert_eq!(m["median_wait"], 3000.0);
    // p95 of [300, 3000, 4500]: 3000 + 0.9 × 1500.
    assert_eq!(m["p95_wait"], 4350.0);
    // Bounded slowdowns (w + r) / r: 1500/1200, 10200/7200, 8100/3600.
    let bsld = (1500.0 / 1200.0 + 10200.0 / 7200.0 + 8100.0 / 3600.0) / 3.0;
    assert!(
        (m["mean_bsld"].as_f64().unwrap() - bsld).abs() < 1e-12,
        "{m}"
    );
    assert_eq!(m["last_start"], 1_764_590_400 + 3600);
    let other = run_of(&doc, "-walltime");
    assert_eq!(other["metrics"]["mean_wait"], 2000.0);
    let changes: Vec<(String, f64, f64, f64)> = other["wait_change_by_user"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["base"].as_f64().unwrap(),
                c["other"].as_f64().unwrap(),
                c["change"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("dan".to_string(), 4500.0, 900.0, -3600.0),
            ("cid".to_string(), 3000.0, 4800.0, 1800.0),
            ("eve".to_string(), 300.0, 300.0, 0.0),
        ]
    );
    // One queue: no per-queue table.
    assert!(other.get("wait_change_by_queue").is_none(), "{other}");
    // --per-job FILE.csv: each waiting job under each order, in its rank order.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let out = jobsort([
        "sim",
        "--snapshot",
        &why_pbs(),
        "--formula=-walltime",
        "--per-job",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "formula,id,user,group,queue,submit,rank,start,end,wait,never"
    );
    assert_eq!(lines.len(), 1 + 2 * 4, "{text}");
    // Under -walltime, 301 comes third and starts at 13:00 (80 min after 11:40).
    assert!(
        lines.contains(&"-walltime,301.srv,cid,,workq,1764589200,3,1764594000,1764601200,4800,"),
        "{text}"
    );
    assert!(
        lines.contains(&"site,304.srv,fay,,workq,1764587400,4,,,,held"),
        "{text}"
    );
}

/// The same comparison as text: the table's rows and the per-user changes, largest first,
/// as `sim --trace` prints them.
#[test]
fn the_table_shows_each_order_and_the_users_changes() {
    let (code, out, err) = run(["sim", "--snapshot", &why_pbs(), "--formula=-walltime"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("site: the site's job_sort_formula"), "{out}");
    let row = |label: &str| {
        out.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label}: {out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(row("site ")[1..5], ["4", "3", "1", "2600.0"]);
    assert_eq!(row("-walltime ")[1..5], ["4", "3", "1", "2000.0"]);
    assert!(out.contains("never started: 1 held"), "{out}");
    let at = out
        .find("mean wait per user, `-walltime` against `site`")
        .unwrap_or_else(|| panic!("{out}"));
    let users: Vec<&str> = out[at..]
        .lines()
        .skip(2)
        .take(3)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(users, ["dan", "cid", "eve"]);
}

/// `--runtimes`: 202 (bob's, on n2) really runs 45 min, so it ends at 12:15 instead of
/// 12:30. The scheduler still plans with walltimes: at 12:15 n2 holds 303 (2 cpus, until
/// 12:20, its full walltime: the file does not list it), so 301's window moves to 12:20, and
/// 301 starts then (a wait of 40 min from 11:40). The line names 202 without its server's
/// suffix. 302 still waits for n1, at 13:00.
#[test]
fn runtimes_end_jobs_when_the_file_says() {
    let dir = tempfile::tempdir().unwrap();
    let rt = dir.path().join("runtimes.csv");
    std::fs::write(&rt, "id,seconds\n202,2700\n").unwrap();
    let doc = json_doc(&[
        "sim",
        "--snapshot",
        &why_pbs(),
        "--runtimes",
        rt.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let m = &run_of(&doc, "site")["metrics"];
    // Waits: eve 300, cid 2400, dan 4500.
    assert_eq!(m["mean_wait"], 2400.0, "{doc}");
    assert_eq!(m["median_wait"], 2400.0, "{doc}");
    assert!(
        doc["run_times"]
            .as_str()
            .unwrap()
            .contains("runtimes.csv (1 jobs"),
        "{doc}"
    );
}

/// `forecast` and `why` take the same file for their first forecast: 301 starts at 12:20
/// instead of 12:30 (the case above), and the output says what it assumed.
#[test]
fn forecast_and_why_take_runtimes_too() {
    let dir = tempfile::tempdir().unwrap();
    let rt = dir.path().join("runtimes.csv");
    std::fs::write(&rt, "202,2700\n").unwrap();
    let start = |doc: &Value| {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["id"] == "301.srv")
            .unwrap()["start"]
            .clone()
    };
    let args = ["forecast", "--snapshot", &why_pbs(), "--format", "json"];
    let plain = json_doc(&args);
    assert_eq!(start(&plain), 1_764_590_400 + 1800);
    let mut with = args.to_vec();
    with.extend(["--runtimes", rt.to_str().unwrap()]);
    let known = json_doc(&with);
    assert_eq!(start(&known), 1_764_590_400 + 1200);
    assert!(
        known["assumption"]
            .as_str()
            .unwrap()
            .starts_with("jobs end when"),
        "{known}"
    );
    let why = json_doc(&[
        "why",
        "301",
        "--snapshot",
        &why_pbs(),
        "--runtimes",
        rt.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(start(&why), 1_764_590_400 + 1200);
    // With --history: one or the other.
    let (code, _, err) = run([
        "forecast",
        "--snapshot",
        &why_pbs(),
        "--runtimes",
        rt.to_str().unwrap(),
        "--history",
        &kth(),
    ]);
    assert_eq!(code, 2, "{err}");
}

/// A bad line of the run-times file is an error at its file and line, exit code 1.
#[test]
fn a_bad_runtimes_line_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, line, says) in [
        ("202.srv\n", 1, "is not `id,seconds`"),
        (
            "# run times\n202.srv,12\n301.srv,1h\n",
            3,
            "`1h` is not a run time",
        ),
        ("202.srv,-5\n", 1, "`-5` is not a run time"),
        (
            "202.srv,10\n\n202.srv,20\n",
            3,
            "listed twice (first at line 1)",
        ),
        (",20\n", 1, "no job id"),
    ] {
        let rt = dir.path().join("rt.csv");
        std::fs::write(&rt, text).unwrap();
        let (code, _, err) = run([
            "sim",
            "--snapshot",
            &why_pbs(),
            "--runtimes",
            rt.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{text:?}: {err}");
        let at = format!("{}:{line}: ", rt.display());
        assert!(err.contains(&at) && err.contains(says), "{text:?}: {err}");
    }
}

/// Ids of the run-times file that name no job of the snapshot are a warning naming them (a
/// misspelt id would otherwise run its walltime unnoticed).
#[test]
fn runtimes_of_jobs_the_snapshot_lacks_are_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let rt = dir.path().join("rt.csv");
    std::fs::write(
        &rt,
        "202.srv,2700
999.srv,5
",
    )
    .unwrap();
    let (code, _, err) = run([
        "sim",
        "--snapshot",
        &why_pbs(),
        "--runtimes",
        rt.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("1 id names no job of the snapshot (999.srv)"),
        "{err}"
    );
}

/// The flags that belong to a trace are refused beside --snapshot, and sim needs one of the
/// two.
#[test]
fn trace_flags_and_snapshot_do_not_mix() {
    let (code, _, err) = run(["sim", "--snapshot", &why_pbs(), "--trace", &kth()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    // A flag of the simulation the snapshot's own configuration answers is refused, not
    // ignored: the queue's order and its fairshare are the site's.
    for flag in [
        ["--record", "x.jsonl"],
        ["--queue-priority", "workq=5"],
        ["--entity", "egroup"],
        ["--resource", "paws:float"],
    ] {
        let (code, _, err) = run(["sim", "--snapshot", &why_pbs(), flag[0], flag[1]]);
        assert_eq!(code, 2, "{flag:?}: {err}");
        assert!(err.contains("cannot be used with"), "{flag:?}: {err}");
    }
    let (code, _, err) = run(["sim", "--formula", "ncpus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--trace"), "{err}");
}

/// The jobs a limit holds now, per limit: in `tests/data/snapshot/pbs_limits`, queue gpu
/// runs one job at once (`max_run = [o:PBS_ALL=1]`) and 205 runs there from 11:00 with 3 h of
/// walltime, so 303 (hal, submitted 11:10) starts at 14:00: a wait of 10200 s, 7200 s of it
/// after the snapshot at 12:00.
#[test]
fn the_jobs_a_limit_holds_wait_until_it_clears() {
    let doc = json_doc(&[
        "sim",
        "--snapshot",
        &format!("{DATA}/snapshot/pbs_limits"),
        "--format",
        "json",
    ]);
    let limits = run_of(&doc, "site")["metrics"]["limits"]
        .as_array()
        .unwrap()
        .clone();
    let gpu = limits
        .iter()
        .find(|l| l["reason"] == "Not Running: Queue gpu job limit has been reached.")
        .unwrap_or_else(|| panic!("{limits:?}"));
    assert_eq!(
        (
            &gpu["jobs"],
            &gpu["started"],
            &gpu["mean_wait"],
            &gpu["mean_left"]
        ),
        (&json!(1), &json!(1), &json!(10200.0), &json!(7200.0))
    );
    assert_eq!(limits.len(), 4, "{limits:?}");
}

// --- the acceptance test: a snapshot whose future is known ----------------------------------

/// One job's start and end in the simulator's `--per-job` CSV.
fn simulated(per_job: &Path) -> HashMap<String, (i64, i64)> {
    let text = std::fs::read_to_string(per_job).unwrap();
    let mut out = HashMap::new();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (id, start, end) = (col("id"), col("start"), col("end"));
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        out.insert(
            f[id].to_string(),
            (f[start].parse().unwrap(), f[end].parse().unwrap()),
        );
    }
    out
}

/// The SWF text of `swf` with each job's wait and run replaced by the simulated schedule's,
/// so that the trace records that schedule (what `snapshot_at` reads).
fn recorded(swf: &str, schedule: &HashMap<String, (i64, i64)>) -> String {
    let mut out = String::new();
    for line in swf.lines() {
        if line.starts_with(';') || line.trim().is_empty() {
            out.push_str(line);
        } else {
            let mut f: Vec<String> = line.split_whitespace().map(str::to_string).collect();
            let (start, end) = schedule[&f[0]];
            let submit: i64 = f[1].parse().unwrap();
            f[2] = (start - submit).to_string();
            f[3] = (end - start).to_string();
            out.push_str(&f.join(" "));
        }
        out.push('\n');
    }
    out
}

/// The state at an instant as a PBS snapshot folder: `pbsnodes.json` and `qstat.json` as
/// `pbsnodes -av -F json` and `qstat -f -t -F json` print them (times as Unix seconds, which
/// the reader takes beside ctime text), the waiting jobs in trace order.
fn write_pbs_folder(h: &HistorySnapshot, dir: &Path) {
    let s = &h.snapshot;
    let t = s.taken_at.unwrap();
    let mut nodes = serde_json::Map::new();
    for n in &s.nodes {
        nodes.insert(
            n.name.clone(),
            json!({
                "Mom": n.name,
                "state": n.state_text,
                "resources_available": {"host": n.name, "vnode": n.name, "ncpus": n.available[0]},
                "resources_assigned": {"ncpus": n.assigned[0]},
                "jobs": n.jobs,
            }),
        );
    }
    let doc =
        json!({"timestamp": t, "pbs_version": "23.06.06", "pbs_server": "srv", "nodes": nodes});
    std::fs::write(dir.join("pbsnodes.json"), doc.to_string()).unwrap();
    let mut jobs = serde_json::Map::new();
    for r in &s.running {
        let vnode: Vec<String> = r
            .held
            .iter()
            .map(|h| format!("({}:ncpus={})", h.node, h.amounts[0]))
            .collect();
        let mut list = json!({"ncpus": r.total[0], "place": "free", "select": format!("1:ncpus={}", r.total[0])});
        if let Some(w) = r.walltime {
            list["walltime"] = json!(w);
        }
        jobs.insert(
            r.id.clone(),
            json!({
                "job_state": "R",
                "queue": "workq",
                "Job_Owner": format!("{}@login", r.user.as_deref().unwrap()),
                "euser": r.user,
                "egroup": r.group,
                "stime": r.start.to_string(),
                "exec_vnode": vnode.join("+"),
                "Resource_List": list,
            }),
        );
    }
    for p in &s.pending {
        let (count, amounts) = &p.ask.parts[0];
        let place = match p.ask.place.arrangement {
            Arrangement::Scatter => "scatter",
            _ => "free",
        };
        let mut list = json!({
            "ncpus": u64::from(*count) * amounts[0],
            "place": place,
            "select": format!("{count}:ncpus={}", amounts[0]),
        });
        if let Some(w) = p.walltime {
            list["walltime"] = json!(w);
        }
        jobs.insert(
            p.id.clone(),
            json!({
                "job_state": "Q",
                "queue": "workq",
                "Job_Owner": format!("{}@login", p.user.as_deref().unwrap()),
                "euser": p.user,
                "egroup": p.group,
                "qtime": p.submit,
                "Resource_List": list,
            }),
        );
    }
    let doc = json!({"timestamp": t, "pbs_version": "23.06.06", "pbs_server": "srv", "Jobs": jobs});
    std::fs::write(dir.join("qstat.json"), doc.to_string()).unwrap();
}

/// The acceptance test. jobsort's simulator runs the first 300 KTH-SP2 jobs on KTH's 100
/// processors first come, first served under strict ordering (no formula: submission order;
/// `--policy strict`), with `--per-job` writing each job's start and end. That schedule is
/// cut at several instants into a PBS snapshot folder (`snapshot_at`: the jobs running then
/// on the nodes, the jobs waiting then with their requests and walltimes), and `sim
/// --snapshot` plans each folder forward by the site's order (PBS without a
/// `job_sort_formula`: submission order) under `--policy strict` with `--runtimes` giving
/// every running and waiting job the run the simulator gave it (`end − start`: its trace run,
/// cut at its requested time).
///
/// Every job waiting at the instant must get exactly the start the simulator gave it: under
/// strict first come, first served a job starts once every job submitted before it has
/// started and its cores are free, so the jobs submitted after the instant — which the
/// snapshot cannot know — never change the start of one waiting at it. (Under EASY they can:
/// a later job backfilled into a hole delays nothing the plan reserved with walltimes, but
/// when jobs end before their walltime the top job could have started in the hole the later
/// job now holds; so EASY's starts are not checked here.)
#[test]
fn a_snapshot_of_a_simulated_fcfs_schedule_replays_every_waiting_jobs_start() {
    let dir = tempfile::tempdir().unwrap();
    let per_job = dir.path().join("schedule.csv");
    let out = jobsort([
        "sim",
        "--trace",
        &kth(),
        "--policy",
        "strict",
        "--per-job",
        per_job.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let schedule = simulated(&per_job);
    assert_eq!(schedule.len(), 300);
    let trace = dir.path().join("recorded.swf");
    std::fs::write(
        &trace,
        recorded(&std::fs::read_to_string(kth()).unwrap(), &schedule),
    )
    .unwrap();
    let w = jobsort::workload::load_workload(&trace).unwrap();
    // Run times of every job (running or waiting), as the simulator ran them.
    let runtimes = dir.path().join("runtimes.csv");
    let lines: String = schedule
        .iter()
        .map(|(id, (s, e))| format!("{id},{}\n", e - s))
        .collect();
    std::fs::write(&runtimes, lines).unwrap();
    // Instants: the submission of every 20th job, and a second after it.
    let mut compared = 0;
    let mut instants = 0;
    for t in w
        .jobs
        .iter()
        .step_by(20)
        .flat_map(|j| [j.submit, j.submit + 1])
    {
        let h = snapshot_at(&w, 100, 1, t);
        if h.snapshot.pending.is_empty() {
            continue;
        }
        assert_eq!(
            (h.skipped, h.overcommitted, h.walltime_assumed),
            (0, 0, 0),
            "at {t}"
        );
        instants += 1;
        let folder = dir.path().join(format!("snap-{t}"));
        std::fs::create_dir(&folder).unwrap();
        write_pbs_folder(&h, &folder);
        let planned = folder.join("planned.json");
        let out = jobsort([
            "sim",
            "--snapshot",
            folder.to_str().unwrap(),
            "--policy",
            "strict",
            "--runtimes",
            runtimes.to_str().unwrap(),
            "--per-job",
            planned.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert!(out.status.success(), "at {t}: {}", stderr(&out));
        let starts: HashMap<String, Option<i64>> = std::fs::read_to_string(&planned)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|v| (v["id"].as_str().unwrap().to_string(), v["start"].as_i64()))
            .collect();
        assert_eq!(starts.len(), h.snapshot.pending.len(), "at {t}");
        for (p, recorded) in h.snapshot.pending.iter().zip(&h.recorded_starts) {
            assert_eq!(
                starts[&p.id],
                Some(*recorded),
                "job {} waiting at {t}: planned start against the simulated one",
                p.id
            );
            compared += 1;
        }
    }
    // Enough to mean something: the queue is long at most of these instants.
    assert!(
        instants >= 10 && compared >= 400,
        "{instants} instants, {compared} jobs"
    );
}
