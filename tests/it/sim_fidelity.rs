//! `sim --fidelity`: a run against the schedule the trace recorded, on a trace worked by hand,
//! on a real PBS run (AleaNG's validation traces), and on traces with nothing to compare.

use crate::common;

use common::cli::{code, jobsort, json, stderr, stdout, write};

/// One node of two cores. Recorded (submit + wait): job 1 runs [0,100) on both cores, job 2
/// [100,150) on one, job 3 waits until 220 on an idle cluster (something the trace does not
/// say held it) and runs [220,230) on both. Simulated (strict FCFS): 1 at 0, 2 at 100, and 3
/// at 150, when job 2 frees its core: errors 0, 0, −70.
const SWF: &str = "; MaxNodes: 1\n; MaxProcs: 2\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 10 90 50 1 -1 -1 1 50 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 20 200 10 2 -1 -1 2 10 -1 1 3 1 -1 -1 -1 -1 -1\n";

#[test]
fn every_figure_of_a_hand_worked_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.swf", SWF);
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--policy",
        "strict",
        "--fidelity",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let f = &json(&out)["runs"][0]["fidelity"];
    let num = |k: &str| f[k].as_f64().unwrap_or_else(|| panic!("{k}: {f}"));
    assert_eq!(
        (num("compared"), num("not_recorded"), num("not_simulated")),
        (3.0, 0.0, 0.0)
    );
    // |errors| 0, 0, 70: median 0; p95 at position 1.9, 0 + 0.9 × 70.
    assert!((num("mean_abs_error") - 70.0 / 3.0).abs() < 1e-12);
    assert_eq!(num("median_abs_error"), 0.0);
    assert!((num("p95_abs_error") - 63.0).abs() < 1e-9);
    assert_eq!(num("max_abs_error"), 70.0);
    assert!((num("mean_error") + 70.0 / 3.0).abs() < 1e-12);
    assert!((num("within_minute") - 2.0 / 3.0).abs() < 1e-12);
    // Waits recorded 0, 90, 200; simulated 0, 90, 130.
    assert!((num("mean_wait_recorded") - 290.0 / 3.0).abs() < 1e-12);
    assert!((num("mean_wait_simulated") - 220.0 / 3.0).abs() < 1e-12);
    assert!((num("mean_wait_error") - (220.0 - 290.0) / 290.0).abs() < 1e-12);
    // Idle while job 3 waited: [150,220); job 3 was the oldest waiting job and fit then
    // too (job 2, the oldest before 100, never fit while job 1 held both cores).
    assert_eq!(
        (num("recorded_idle_waiting"), num("recorded_head_fits")),
        (70.0, 70.0)
    );
    assert_eq!(num("recorded_span"), 230.0);
    assert_eq!(f["largest"][0]["id"], "3");
    assert_eq!(
        (
            &f["largest"][0]["recorded_wait"],
            &f["largest"][0]["simulated_wait"],
            &f["largest"][0]["error"]
        ),
        (&200.into(), &130.into(), &(-70).into())
    );

    let out = jobsort(["sim", "--trace", &trace, "--policy", "strict", "--fidelity"]);
    let text = stdout(&out);
    for line in [
        "against the recorded schedule: 3 jobs compared (0 with no recorded start, 0 the simulation never started)",
        "no core busy while a job waited 0.0 h (30.43%); the oldest waiting job fit in the free cores 0.0 h (30.4%)",
        "(fcfs)    strict        23.3         0.0        63.0      66.7%       -23.3        73.3        96.7    -24.1%",
        "           3            u3       2            20         200         130         -70",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
}

/// AleaNG's `PBSeasy4`: 210 jobs a real PBS ran (backfilling, fairshare, 5 × 2 cores). The
/// recorded mean wait is the trace's own wait field, averaged here independently.
#[test]
fn a_real_pbs_run_and_its_recorded_waits() {
    let trace = "tests/data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSeasy4.swf";
    let text = std::fs::read_to_string(trace).unwrap();
    let waits: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    let out = jobsort([
        "sim",
        "--trace",
        trace,
        "--fidelity",
        "--format",
        "json",
        "--auto-tree",
        "user",
        "--formula",
        "fairshare_factor",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let f = &json(&out)["runs"][0]["fidelity"];
    assert_eq!(f["compared"], waits.len());
    let mean = waits.iter().sum::<f64>() / waits.len() as f64;
    assert!((f["mean_wait_recorded"].as_f64().unwrap() - mean).abs() < 1e-9);
    let largest = f["largest"].as_array().unwrap();
    assert_eq!(largest.len(), 10);
    let abs: Vec<i64> = largest
        .iter()
        .map(|d| d["error"].as_i64().unwrap().abs())
        .collect();
    assert!(abs.windows(2).all(|w| w[0] >= w[1]), "{abs:?}");
    assert_eq!(abs[0] as f64, f["max_abs_error"].as_f64().unwrap());
}

#[test]
fn nothing_recorded_is_an_error_and_an_impossible_schedule_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "j.json",
        r#"{"jobs":[{"id":"1","submit":0,"run":10,"procs":1}]}"#,
    );
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--nodes",
        "1",
        "--cores",
        "1",
        "--fidelity",
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("no job has a recorded start"),
        "{}",
        stderr(&out)
    );
    // The same jobs with recorded starts (JSON `start`), two at once on one core.
    let jobs = write(
        dir.path(),
        "k.json",
        r#"{"jobs":[{"id":"1","submit":0,"run":10,"procs":1,"start":0},
                    {"id":"2","submit":0,"run":10,"procs":1,"start":5}]}"#,
    );
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--nodes",
        "1",
        "--cores",
        "1",
        "--fidelity",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the recorded schedule does not fit the cluster: at time 5 its 2 running jobs hold 2 cores"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("2 jobs compared"), "{}", stdout(&out));
}

#[test]
fn the_plot_draws_the_recorded_waits() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.swf", SWF);
    let svg = dir.path().join("p.svg");
    let args = |fidelity: bool| {
        let mut a = vec!["sim", "--trace", &trace, "--plot", svg.to_str().unwrap()];
        if fidelity {
            a.push("--fidelity");
        }
        let out = jobsort(a);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        std::fs::read_to_string(&svg).unwrap()
    };
    assert!(args(true).contains(">\nrecorded\n</text>"));
    assert!(!args(false).contains("recorded"));
}
