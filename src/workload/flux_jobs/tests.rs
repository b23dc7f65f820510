//! The Flux reader on flux-core's own job-list test input (`tests/data/samples/
//! flux-core-job-list-returncode.jsonl`, read at test time) and on a `flux jobs --json`
//! document written from `src/bindings/python/flux/job/info.py` (`JobInfo.to_dict`).

use super::*;

fn sample() -> String {
    let p = format!(
        "{}/tests/data/samples/flux-core-job-list-returncode.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn strict(text: &str) -> Result<Workload, WorkloadError> {
    parse_flux_jobs(text, "f", ReadOptions::default())
}

fn job(id: &str, submit: i64, start: i64, run: i64, request: Request) -> SimJob {
    SimJob::from(crate::workload::JobSpec {
        id: id.into(),
        submit,
        run,
        walltime: run.max(1),
        walltime_given: false,
        request,
        mem: 0.0,
        user: "1000".into(),
        group: "unknown".into(),
        account: "".into(),
        qos: "".into(),
        queue: "default".into(),
        queue_priority: 0.0,
        resources: BTreeMap::from([("urgency".to_string(), 16.0)]),
        recorded_start: Some(start),
    })
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn flux_cores_own_job_list_reads_to_the_exact_jobs() {
    let text = sample();
    assert!(looks_like_flux(&text));
    let w = strict(&text).unwrap();
    assert_eq!(
        w.jobs,
        [
            // `true` and `false` ran under half a second: 0 s once rounded. They started (and
            // held a core), so they are kept; with no `duration` their requested time is 1 s.
            job(
                "96444648259584",
                1_607_972_282,
                1_607_972_282,
                0,
                Request::Nodes { nodes: 1, cores: 1 }
            ),
            job(
                "96619970166784",
                1_607_972_292,
                1_607_972_292,
                0,
                Request::Nodes { nodes: 1, cores: 1 }
            ),
            // `sh`: t_run 1607972301.4992967, t_cleanup 1607972301.5430801: one second once
            // rounded.
            job(
                "96775562067968",
                1_607_972_301,
                1_607_972_301,
                1,
                Request::Nodes { nodes: 1, cores: 1 }
            ),
            // 16 tasks (no ncores: a core a task) on 4 nodes; t_cleanup − t_run ≈ 300.1 s.
            job(
                "97053292101632",
                1_607_972_318,
                1_607_972_318,
                300,
                Request::Nodes { nodes: 4, cores: 4 }
            ),
        ]
    );
    assert_eq!(
        w.report.dropped,
        counts(&[
            // State 16 (RUN), no t_cleanup.
            ("running (not ended)", 1),
            // Cancelled by ctrl-C before it ran (result 4, no t_run).
            ("never started (ended before it ran)", 1),
        ])
    );
    assert_eq!((w.report.read, w.report.kept), (6, 4));
    assert_eq!(w.report.zero_runtime, 2);
    // Ranks 0-3 (the nodelist repeats one host, `asp`, for its 4 brokers).
    assert_eq!((w.machine.nodes, w.machine.cores), (Some(4), Some(4)));
    assert!(
        w.machine_derived
            .unwrap()
            .contains("(ranks, ncores/ntasks)")
    );
}

const DOC: &str = r#"{"jobs": [
 {"id": 1234, "jobid": "ƒ2eH1q", "userid": 1000, "username": "alice", "urgency": 20,
  "priority": 20, "t_submit": 100.2, "t_depend": 100.2, "t_run": 104.6, "t_cleanup": 165.4,
  "t_inactive": 165.5, "state": "INACTIVE", "result": "COMPLETED", "status": "COMPLETED",
  "ntasks": 8, "ncores": 16, "nnodes": 2, "nodelist": "node[1-2]", "ranks": "[0-1]",
  "duration": 120.0, "queue": "batch", "bank": "physics", "exception": {"occurred": false}, "runtime": 60.8,
  "annotations": {"sched": {"resource_summary": "rank[0-1]/core[0-7]"}}},
 {"id": 1300, "jobid": "ƒ2eK7b", "userid": 1001, "username": "bob", "urgency": 16,
  "t_submit": 110.0, "state": "SCHED", "status": "SCHED", "ntasks": 1},
 {"id": 1400, "jobid": "ƒ2eM3c", "userid": 1001, "username": "bob", "urgency": 0,
  "t_submit": 120.0, "state": "INACTIVE", "result": "CANCELED", "t_inactive": 130.0,
  "ntasks": 1, "exception": {"occurred": true, "type": "cancel"}},
 {"id": 1500, "jobid": "ƒ2eN9d", "userid": 1002, "urgency": 16, "t_submit": 130.0,
  "t_run": 131.0, "state": "RUN", "ntasks": 3, "nnodes": 2, "nodelist": "node[2-3]",
  "ranks": "[1-2]", "duration": 0.0}
], "pbs_unrelated": 1}"#;

#[test]
fn a_flux_jobs_json_document_reads_field_by_field() {
    assert!(looks_like_flux(DOC));
    let w = strict(DOC).unwrap();
    assert_eq!(
        w.jobs,
        [SimJob::from(crate::workload::JobSpec {
            id: "ƒ2eH1q".into(),
            submit: 100,
            run: 165 - 105,
            walltime: 120,
            walltime_given: true,
            request: Request::Nodes { nodes: 2, cores: 8 },
            mem: 0.0,
            user: "alice".into(),
            group: "unknown".into(),
            // flux-accounting's bank, as job-list gives it (flux-framework/flux-core#4697).
            account: "physics".into(),
            qos: "".into(),
            queue: "batch".into(),
            queue_priority: 0.0,
            resources: BTreeMap::from([("urgency".to_string(), 20.0)]),
            recorded_start: Some(105),
        })]
    );
    assert_eq!(
        w.report.dropped,
        counts(&[
            ("pending (never started)", 1),
            ("never started (ended before it ran)", 1),
            ("running (not ended)", 1),
        ])
    );
    assert_eq!(w.report.read, 4);
}

#[test]
fn our_own_json_list_is_not_taken_for_flux() {
    assert!(!looks_like_flux(
        r#"[{"submit": 0, "run": 10, "ncpus": 1}]"#
    ));
    assert!(!looks_like_flux(
        r#"{"jobs": [{"submit": 0, "run": 1, "t_submit": 3}]}"#
    ));
    assert!(!looks_like_flux(
        "{\"submit\": 0, \"run\": 10, \"ncpus\": 1}\n"
    ));
    assert!(!looks_like_flux("1 0 0 10 1 -1"));
    assert!(looks_like_flux(
        "{\"t_submit\": 1.5, \"id\": 3}\n{\"t_submit\": 2"
    ));
}

#[test]
fn bad_flux_records_are_errors_or_counted() {
    let good = r#"{"id": 1, "t_submit": 10, "t_run": 11, "t_cleanup": 20, "ntasks": 1}"#;
    let cases = [
        (
            format!("{good}\n{good}\n"),
            "f:2: `id`: job `1` again (first at line 1)",
        ),
        (
            r#"{"id": 2, "t_submit": 10, "t_run": 15, "t_cleanup": 12, "ntasks": 1}"#.to_string(),
            "f:1: `t_cleanup`: 12 is before `t_run` 15",
        ),
        (
            r#"{"id": 2, "t_submit": 10, "t_run": 9, "t_cleanup": 12, "ntasks": 1}"#.to_string(),
            "f:1: `t_run`: 9 is before `t_submit` 10",
        ),
        (
            r#"{"id": 2, "t_run": 9, "t_cleanup": 12, "ntasks": 1}"#.to_string(),
            "f:1: `t_submit`: no submit time",
        ),
    ];
    for (text, message) in &cases {
        assert_eq!(strict(text).unwrap_err().to_string(), *message);
    }
    let cut = format!("{good}\n{{\"id\": 3, \"t_sub");
    let e = strict(&cut).unwrap_err().to_string();
    assert!(e.starts_with("f:2: the last line is cut short: "), "{e}");
    let doc = r#"{"jobs": [{"id": 1, "t_submit": 10, "t_run": 15, "t_cleanup": 12, "ntasks": 1}]}"#;
    assert_eq!(
        strict(doc).unwrap_err().to_string(),
        "f: jobs[0]: `t_cleanup`: 12 is before `t_run` 15"
    );
    let all = format!(
        "{good}\n{good}\nnot json\n{}\n{{\"id\": 3, \"t_sub",
        r#"{"id": 2, "t_submit": 10, "t_run": 15, "t_cleanup": 12, "ntasks": 1}"#
    );
    let w = parse_flux_jobs(&all, "f", ReadOptions { lenient: true }).unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert_eq!(
        w.report.dropped,
        counts(&[
            ("bad record: duplicate job id", 1),
            ("bad record: end before start", 1),
            ("bad record: invalid JSON", 1),
            ("bad record: truncated last line", 1),
        ])
    );
    assert_eq!(w.report.read, w.report.kept + w.report.dropped_total());
}

/// Flux lists cut at every character: lenient reads count every line; nothing panics.
#[test]
fn a_flux_list_cut_anywhere_is_read_or_refused_never_a_panic() {
    let text = sample();
    for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
        let w = parse_flux_jobs(&text[..end], "f", ReadOptions { lenient: true }).unwrap();
        assert_eq!(
            w.report.read,
            w.report.kept + w.report.dropped_total(),
            "{end}"
        );
        let _ = strict(&text[..end]);
    }
    for (end, _) in DOC.char_indices() {
        let _ = looks_like_flux(&DOC[..end]);
        let _ = strict(&DOC[..end]);
    }
}

/// sched-simple's summaries as flux-core's own tests give them (`src/common/librlist/
/// test/rlist.c`), counted; a summary that is not one is a bad record at its field.
#[test]
fn resource_summaries_count_ranks_cores_and_gpus() {
    let g = |ranks, cores, gpus| RankGroup { ranks, cores, gpus };
    assert_eq!(resource_summary("rank0/core[0-3]"), Ok(vec![g(1, 4, 0)]));
    assert_eq!(
        resource_summary("rank0/core[0-3] rank1/core[0-7]"),
        Ok(vec![g(1, 4, 0), g(1, 8, 0)])
    );
    assert_eq!(
        resource_summary("rank[0-3]/core[0-3],gpu[1,3]"),
        Ok(vec![g(4, 4, 2)])
    );
    assert_eq!(resource_summary("rank0/gpu0"), Ok(vec![g(1, 0, 1)]));
    assert!(resource_summary("node0/core0").is_err());
    assert!(resource_summary("rank0/disk[0-1]").is_err());
    let line = r#"{"id": 7, "t_submit": 1.0, "t_run": 2.0, "t_cleanup": 12.0, "ncores": 2,
        "annotations": {"sched": {"resource_summary": "rank0/core[0-1],gpu[x]"}}}"#;
    let e = strict(&line.replace('\n', " ")).unwrap_err().to_string();
    assert!(
        e.starts_with("f:1: `annotations.sched.resource_summary`: "),
        "{e}"
    );
}

/// A job whose summary has GPUs asks for a chunk per rank with its cores and GPUs,
/// scattered, and counts its GPUs as `ngpus`; one without GPUs keeps its cores' shape.
#[test]
fn a_summary_with_gpus_makes_chunks_per_rank() {
    use crate::model::place::Arrangement;
    use crate::workload::shape::{chunks, part};
    let text = [
        r#"{"id": 1, "t_submit": 1.0, "t_run": 2.0, "t_cleanup": 12.0, "ncores": 6, "nnodes": 2, "annotations": {"sched": {"resource_summary": "rank0/core[0-3],gpu[0-1] rank1/core[0-1],gpu0"}}}"#,
        r#"{"id": 2, "t_submit": 1.0, "t_run": 2.0, "t_cleanup": 12.0, "ncores": 8, "nnodes": 2, "annotations": {"sched": {"resource_summary": "rank[0-1]/core[0-3]"}}}"#,
    ]
    .join("\n");
    let w = strict(&text).unwrap();
    assert_eq!(
        w.jobs[0].request,
        chunks(
            vec![
                part(1, &[("ncpus", 4), ("ngpus", 2)]),
                part(1, &[("ncpus", 2), ("ngpus", 1)])
            ],
            Arrangement::Scatter
        )
    );
    assert_eq!(w.jobs[0].resources()["ngpus"], 3.0);
    assert_eq!(w.jobs[1].request, Request::Nodes { nodes: 2, cores: 4 });
    assert!(!w.jobs[1].resources().contains_key("ngpus"));
}
