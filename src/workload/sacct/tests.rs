//! The sacct reader on fixtures written from sacct's source (`tests/data/sacct/`) and on the
//! real XDMoD dumps of `tests/data/samples/` (read at test time).

use super::*;

const EDGES: &str = include_str!("../../../tests/data/sacct/edges.txt");
/// 2026-01-05T10:00:00 UTC, the first submit of `edges.txt`.
const T0: i64 = 1_767_607_200;
const G: f64 = 1024.0 * 1024.0;

fn sample(name: &str) -> String {
    let p = format!("{}/tests/data/samples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn parse(text: &str) -> Result<Workload, WorkloadError> {
    parse_sacct(text, "f", ReadOptions::default(), &SacctOptions::default())
}

fn lenient(text: &str) -> Workload {
    parse_sacct(
        text,
        "f",
        ReadOptions { lenient: true },
        &SacctOptions::default(),
    )
    .unwrap()
}

#[allow(clippy::too_many_arguments)]
fn job(
    id: &str,
    submit: i64,
    start: i64,
    run: i64,
    walltime: Option<i64>,
    request: Request,
    mem: f64,
    (user, group, queue, account, qos): (&str, &str, &str, &str, &str),
    gpus: Option<f64>,
) -> SimJob {
    SimJob::from(crate::workload::JobSpec {
        id: id.into(),
        submit,
        run,
        walltime: walltime.unwrap_or(run),
        walltime_given: walltime.is_some(),
        request,
        mem,
        user: user.into(),
        group: group.into(),
        account: account.into(),
        qos: qos.into(),
        queue: queue.into(),
        queue_priority: 0.0,
        resources: gpus.map(|g| ("ngpus".to_string(), g)).into_iter().collect(),
        recorded_start: Some(start),
    })
}

fn nodes(nodes: u32, cores: u32) -> Request {
    Request::Nodes { nodes, cores }
}

/// A job with GPUs asks for one chunk per node with its share of cores, GPUs and memory,
/// scattered; without GPUs, or with GPUs that do not divide over its nodes, it keeps its
/// shape. Cores that do not divide over the nodes with memory on every node (`Mn`) are
/// chunks of each size, each with the node's memory; per CPU they stay cores anywhere
/// (their memory then follows each CPU: `shape.rs`).
#[test]
fn slurm_shapes_are_chunks_where_cores_alone_cannot_say_them() {
    use crate::model::place::Arrangement;
    use crate::workload::shape::{chunks, part};
    let scatter = |parts| chunks(parts, Arrangement::Scatter);
    let total = ReqMem::Total;
    assert_eq!(
        slurm_request(16, Some(2), Some(4), total(3.0 * G)),
        scatter(vec![part(
            2,
            &[("ncpus", 8), ("ngpus", 2), ("mem", (1.5 * G) as u64)]
        )])
    );
    assert_eq!(
        slurm_request(4, Some(1), Some(1), total(0.0)),
        scatter(vec![part(1, &[("ncpus", 4), ("ngpus", 1)])])
    );
    assert_eq!(slurm_request(16, Some(2), None, total(G)), nodes(2, 8));
    assert_eq!(slurm_request(16, Some(2), Some(3), total(G)), nodes(2, 8));
    assert_eq!(slurm_request(5, None, Some(1), total(G)), Request::Procs(5));
    // 3 CPUs on 2 nodes: 2 + 1.
    assert_eq!(
        slurm_request(3, Some(2), None, ReqMem::PerNode(G)),
        scatter(vec![
            part(1, &[("ncpus", 2), ("mem", G as u64)]),
            part(1, &[("ncpus", 1), ("mem", G as u64)])
        ])
    );
    assert_eq!(
        slurm_request(3, Some(2), None, ReqMem::PerCpu(G)),
        Request::Procs(3)
    );
    assert_eq!(
        slurm_request(3, Some(2), Some(2), ReqMem::PerCpu(G)),
        scatter(vec![
            part(1, &[("ncpus", 2), ("ngpus", 1), ("mem", 2 * G as u64)]),
            part(1, &[("ncpus", 1), ("ngpus", 1), ("mem", G as u64)])
        ])
    );
    // More nodes than CPUs is no shape: the CPUs anywhere.
    assert_eq!(
        slurm_request(1, Some(2), None, ReqMem::PerNode(G)),
        Request::Procs(1)
    );
}

/// Every job `edges.txt` makes, field by field.
fn edges_jobs() -> Vec<SimJob> {
    vec![
        job(
            "100",
            T0,
            T0 + 300,
            1800,
            Some(3600),
            nodes(2, 8),
            32.0 * G,
            ("alice", "phys", "batch", "proj1", "normal"),
            None,
        ),
        // A TIMEOUT array task: killed at its limit; GPUs from AllocTRES.
        job(
            "101_4",
            T0 + 60,
            T0 + 120,
            1800,
            Some(1800),
            // Its GPUs make it a chunk of the node's cores, GPUs and memory.
            slurm_request(4, Some(1), Some(2), ReqMem::Total(4000.0 * 1024.0)),
            4000.0 * 1024.0,
            ("bob", "bio", "gpu", "proj2", "high"),
            Some(2.0),
        ),
        // Het components are jobs of their own.
        job(
            "102+0",
            T0 + 100,
            T0 + 200,
            600,
            Some(1200),
            nodes(1, 2),
            2.0 * G,
            ("carol", "chem", "batch", "proj1", "normal"),
            None,
        ),
        job(
            "102+1",
            T0 + 100,
            T0 + 200,
            600,
            Some(1200),
            nodes(2, 4),
            8.0 * G,
            ("carol", "chem", "batch", "proj1", "normal"),
            None,
        ),
        // `CANCELLED by 0` while running; Timelimit `10:00` is M:S.
        job(
            "104",
            T0 + 150,
            T0 + 300,
            60,
            Some(600),
            nodes(1, 1),
            G,
            ("alice", "phys", "batch", "proj1", "normal"),
            None,
        ),
        // NODE_FAIL with UNLIMITED: the run time stands in.
        job(
            "107",
            T0 + 300,
            T0 + 400,
            600,
            None,
            nodes(1, 8),
            8.0 * G,
            ("erin", "phys", "batch", "proj3", "normal"),
            None,
        ),
        // 5 CPUs on 2 nodes: cores anywhere; user and group from UID and GID; ReqMem per CPU
        // (ReqTRES has no mem) × ReqCPUS; Partition_Limit.
        job(
            "108",
            T0 + 300,
            T0 + 310,
            60,
            None,
            Request::Procs(5),
            5000.0 * 1024.0,
            ("1006", "2006", "batch", "proj3", "normal"),
            None,
        ),
        // FAILED at once (Start = End): it started and held its core, so it is kept, with
        // run 0 (no Partition: the default queue).
        job(
            "109",
            T0 + 400,
            T0 + 500,
            0,
            Some(172800),
            nodes(1, 1),
            G,
            ("frank", "bio", "default", "proj2", "normal"),
            None,
        ),
        // The REQUEUED run before it is not the job; a `|` in the last column (JobName).
        job(
            "110",
            T0 + 500,
            T0 + 600,
            300,
            Some(3600),
            nodes(1, 2),
            2.0 * G,
            ("gina", "chem", "batch", "proj1", "normal"),
            None,
        ),
    ]
}

fn edges_dropped() -> BTreeMap<String, usize> {
    [
        ("pending array tasks (never started)", 1),
        ("never started (ended before it ran)", 1),
        ("pending (never started)", 1),
        ("running (not ended)", 1),
        ("requeued run (the later record is the job)", 1),
        ("no processors", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[test]
fn every_edge_of_a_headed_dump_gives_the_exact_jobs_and_counts() {
    let w = parse(EDGES).unwrap();
    assert_eq!(w.jobs, edges_jobs());
    assert_eq!(w.report.dropped, edges_dropped());
    // Steps are records of a job's allocation, not jobs: skipped, not read.
    assert_eq!(
        w.report.records_skipped,
        BTreeMap::from([("job step (not a job)".to_string(), 3)])
    );
    assert_eq!((w.report.read, w.report.kept), (15, 9));
    assert_eq!(w.report.zero_runtime, 1);
    assert_eq!(w.report.read, w.report.kept + w.report.dropped_total());
    assert_eq!(
        (w.report.walltime_from_runtime, w.report.killed_at_walltime),
        (2, 0)
    );
    // n01 n02 g01 n03 n04 n05 n07 n08 n09 n10 (job 109's, for its 0 seconds) n12; 9 cores
    // on n01 at once (job 100's 8 and job 104's 1 from 10:05:00).
    assert_eq!(
        w.machine,
        MachineHint {
            nodes: Some(11),
            cores: Some(9)
        }
    );
    assert!(
        w.machine_derived
            .as_deref()
            .unwrap()
            .starts_with("11 nodes x 9 cores from the allocations of 9 jobs"),
        "{:?}",
        w.machine_derived
    );
}

/// `edges.txt` with its columns reordered (JobName kept last, as its `|` needs), or as `-p`
/// writes it (a `|` after every line), or without its header.
#[test]
fn column_order_parsable_and_headerless_forms_read_the_same() {
    let rotate = |line: &str| {
        let f: Vec<&str> = line.splitn(21, '|').collect();
        let mut v: Vec<&str> = f[7..20].to_vec();
        v.extend(&f[..7]);
        v.push(f[20]);
        v.join("|")
    };
    let rotated: String = EDGES.lines().map(|l| rotate(l) + "\n").collect();
    assert!(rotated.starts_with("User|UID|"), "{rotated}");
    let w = parse(&rotated).unwrap();
    assert_eq!(w.jobs, edges_jobs());
    assert_eq!(w.report.dropped, edges_dropped());

    let bars: String = EDGES.lines().map(|l| format!("{l}|\n")).collect();
    assert_eq!(parse(&bars).unwrap().jobs, edges_jobs());

    let (header, body) = EDGES.split_once('\n').unwrap();
    let e = parse(body).unwrap_err().to_string();
    assert_eq!(
        e,
        "f:1: no header line (`JobID|Submit|...`): give the 21 columns with --sacct-fields"
    );
    let options = SacctOptions {
        fields: Some(SacctOptions::fields_of(&header.replace('|', ","))),
        utc_offset: 0,
    };
    let w = parse_sacct(body, "f", ReadOptions::default(), &options).unwrap();
    assert_eq!(w.jobs, edges_jobs());
    assert_eq!(w.report.read, 15);
    // Dumped in a zone 5 hours behind UTC: every time is 5 hours later in UTC.
    let options = SacctOptions {
        utc_offset: -5 * 3600,
        ..options
    };
    let w = parse_sacct(body, "f", ReadOptions::default(), &options).unwrap();
    let shifted: Vec<SimJob> = edges_jobs()
        .into_iter()
        .map(|mut j| {
            j.submit += 5 * 3600;
            j.set_recorded_start(j.recorded_start().map(|s| s + 5 * 3600));
            j
        })
        .collect();
    assert_eq!(w.jobs, shifted);
}

/// XDMoD's real `-P -n -X` dump (`xdmod-sacct-P-noheader-X.log`) with its 26 fields.
#[test]
fn the_xdmod_sample_reads_with_the_xdmod_preset() {
    let text = sample("xdmod-sacct-P-noheader-X.log");
    let e = parse(&text).unwrap_err().to_string();
    assert!(
        e.ends_with("(its 26 columns are those of XDMoD's dump: `--sacct-fields xdmod`)"),
        "{e}"
    );
    let options = SacctOptions {
        fields: Some(SacctOptions::fields_of("xdmod")),
        utc_offset: 0,
    };
    let w = parse_sacct(&text, "x", ReadOptions::default(), &options).unwrap();
    let m = 1024.0;
    assert_eq!(
        w.jobs,
        [
            // ReqTRES is empty: ReqMem `3000Mc` × ReqCPUS 256.
            job(
                "4103947",
                1_435_327_020,
                1_435_460_150,
                259_200,
                Some(259_200),
                nodes(32, 8),
                3000.0 * m * 256.0,
                ("unknown", "anon", "general-compute", "anon", "qos"),
                None
            ),
            // `CANCELLED by 102216` after it ran; ReqMem `48000Mn` × 3 nodes; the run is
            // the Elapsed column's 2-22:03:04.
            job(
                "4107166",
                1_435_348_285,
                1_435_504_489,
                2 * 86_400 + 22 * 3600 + 184,
                Some(259_200),
                nodes(3, 12),
                48000.0 * m * 3.0,
                ("hanx", "dspumpkins", "general-compute", "dspumpkins", "qos"),
                None
            ),
            // ReqTRES mem=144000M; Timelimit 14:20:00; Elapsed 14:00:49.
            job(
                "4107219",
                1_435_350_142,
                1_435_665_844,
                14 * 3600 + 49,
                Some(14 * 3600 + 1200),
                nodes(4, 12),
                144_000.0 * m,
                (
                    "anonuser",
                    "anongroup",
                    "general-compute",
                    "anonacct",
                    "qos"
                ),
                None
            ),
        ]
    );
    // The last row started and ended at once, and has no CPUs: it is dropped for that.
    assert_eq!(
        w.report.dropped,
        BTreeMap::from([("no processors".to_string(), 1)])
    );
    assert_eq!(w.machine.nodes, Some(32 + 3 + 4));
    assert_eq!(w.machine.cores, Some(12));
}

#[test]
fn the_xdmod_array_and_pending_running_samples_count_what_did_not_run() {
    let options = SacctOptions {
        fields: Some(SacctOptions::fields_of("xdmod")),
        utc_offset: 0,
    };
    let w = parse_sacct(
        &sample("xdmod-sacct-P-job-arrays.log"),
        "a",
        ReadOptions::default(),
        &options,
    )
    .unwrap();
    assert_eq!(
        w.jobs
            .iter()
            .map(|j| (j.id.as_str(), j.request.clone()))
            .collect::<Vec<_>>(),
        [("4103947_100", nodes(32, 8))]
    );
    assert_eq!(
        w.report.dropped,
        BTreeMap::from([("pending array tasks (never started)".to_string(), 5)])
    );
    let w = parse_sacct(
        &sample("xdmod-sacct-P-pending-running.log"),
        "p",
        ReadOptions::default(),
        &options,
    )
    .unwrap();
    assert!(w.jobs.is_empty());
    assert_eq!(
        w.report.dropped,
        BTreeMap::from([
            ("pending (never started)".to_string(), 1),
            ("running (not ended)".to_string(), 1)
        ])
    );
    assert_eq!(w.machine, MachineHint::default());
    assert_eq!(w.machine_derived, None);
}

const HEADER: &str = "JobID|Submit|Start|End|State|NCPUS|JobName";

fn rows(rows: &[&str]) -> String {
    let mut s = format!("{HEADER}\n");
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s
}

const GOOD: &str = "1|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:02:00|COMPLETED|1|a";

#[test]
fn bad_records_stop_a_strict_read_with_file_line_and_column() {
    let cases: [(String, &str); 8] = [
        (
            format!("{HEADER}\n{GOOD}\n2|2026-01-05T10:00:00|2026-01-05T1"),
            "f:3: the last line has no line feed and 3 of the 7 columns: the file was cut short",
        ),
        (
            rows(&["1|2026-01-05T10:00:00|COMPLETED|1|a"]),
            "f:2: 5 columns, expected 7",
        ),
        (
            rows(&["1|2026-01-05 10:00:00|2026-01-05T10:01:00|2026-01-05T10:02:00|COMPLETED|1|a"]),
            "f:2: column Submit: `2026-01-05 10:00:00` is not a time (expected \
             YYYY-MM-DDTHH:MM:SS, `Unknown` or `None`: dump with SLURM_TIME_FORMAT unset or \
             `standard`)",
        ),
        (
            rows(&[GOOD, GOOD]),
            "f:3: column JobID: job `1` again (first on line 2)",
        ),
        (
            rows(&["1|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:00:30|COMPLETED|1|a"]),
            "f:2: column End: 2026-01-05T10:00:30 is before the start 2026-01-05T10:01:00",
        ),
        (
            rows(&["1|2026-01-05T10:00:00|2026-01-05T09:59:00|2026-01-05T10:02:00|COMPLETED|1|a"]),
            "f:2: column Start: 2026-01-05T09:59:00 is before the submit 2026-01-05T10:00:00",
        ),
        (
            rows(&["1|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:02:00|CANCELLED+|1|a"]),
            "f:2: column State: `CANCELLED+` is not a job state of sacct",
        ),
        (
            rows(&["1|2026-01-05T10:00:00|2026-01-05T10:01:00|Unknown|COMPLETED|1|a"]),
            "f:2: column End: a job that ended (COMPLETED) has no end time",
        ),
    ];
    for (text, message) in &cases {
        assert_eq!(parse(text).unwrap_err().to_string(), *message, "{text}");
    }
    assert_eq!(
        parse("JobID|Submit|State\n").unwrap_err().to_string(),
        "f:1: the header has no Start, End column"
    );
}

#[test]
fn a_lenient_read_skips_bad_records_and_counts_them_by_reason() {
    let text = format!(
        "{HEADER}\n{GOOD}\n{}\n{GOOD}\n{}\n{}\n3|2026-01-05T10:00:00|2026-01-05T1",
        "1|2026-01-05T10:00:00|COMPLETED|1|a",
        "2|2026-01-05T10:00:00|2026-01-05T10:01:00|x|COMPLETED|1|a",
        "4|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:00:30|COMPLETED|1|a",
    );
    let w = lenient(&text);
    assert_eq!(w.jobs.len(), 1);
    assert_eq!(
        w.report.dropped,
        [
            ("bad record: duplicate job id", 1),
            ("bad record: end before start", 1),
            ("bad record: truncated last line", 1),
            ("bad record: unparsable time", 1),
            ("bad record: wrong number of columns", 1),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect::<BTreeMap<_, _>>()
    );
    assert_eq!(w.report.read, 6);
    assert_eq!(w.report.read, w.report.kept + w.report.dropped_total());
}

#[test]
fn the_streaming_reader_reads_what_the_text_reader_reads() {
    let w = read_sacct(
        EDGES.as_bytes(),
        "f",
        ReadOptions::default(),
        &SacctOptions::default(),
    )
    .unwrap();
    assert_eq!(w.jobs, edges_jobs());
    let cut = format!("{HEADER}\n{GOOD}\n2|2026");
    let e = read_sacct(
        cut.as_bytes(),
        "f",
        ReadOptions::default(),
        &SacctOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("f:3: the last line has no line feed"),
        "{e}"
    );
}

#[test]
fn a_preempted_run_followed_by_its_requeued_job_is_an_earlier_run() {
    let preempted = "5|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:02:00|PREEMPTED|4|a";
    let later = "5|2026-01-05T10:02:30|2026-01-05T10:03:00|2026-01-05T10:13:00|COMPLETED|4|a";
    let w = parse(&rows(&[GOOD, preempted, later])).unwrap();
    assert_eq!(
        w.jobs
            .iter()
            .map(|j| (j.id.as_str(), j.run))
            .collect::<Vec<_>>(),
        [("1", 60), ("5", 600)]
    );
    assert_eq!(
        w.report.dropped,
        BTreeMap::from([("requeued run (the later record is the job)".to_string(), 1)])
    );
    assert_eq!(
        (w.report.read, w.report.kept, w.report.walltime_from_runtime),
        (3, 2, 2)
    );
    // Two preempted jobs coming back in the other order.
    let (p6, l6) = (preempted.replacen('5', "6", 1), later.replacen('5', "6", 1));
    let w = parse(&rows(&[preempted, &p6, &l6, later])).unwrap();
    assert_eq!(
        w.jobs
            .iter()
            .map(|j| (j.id.as_str(), j.run))
            .collect::<Vec<_>>(),
        [("6", 600), ("5", 600)]
    );
    // A PREEMPTED job that did not come back is a job; a completed one twice is not.
    assert_eq!(parse(&rows(&[preempted])).unwrap().jobs.len(), 1);
    let e = parse(&rows(&[later, later])).unwrap_err().to_string();
    assert_eq!(e, "f:3: column JobID: job `5` again (first on line 2)");
}

/// Every prefix of the fixture (a dump cut anywhere; a header cut short may lack a column, an
/// error either way), and every row with one `|` doubled: a lenient read never
/// fails and counts every row; a strict one fails or agrees.
#[test]
fn a_dump_cut_or_garbled_anywhere_is_read_or_refused_never_a_panic() {
    for end in 0..EDGES.find('\n').unwrap() {
        let _ = parse(&EDGES[..end]);
    }
    for end in EDGES.find('\n').unwrap()..=EDGES.len() {
        let text = &EDGES[..end];
        let w = lenient(text);
        assert_eq!(
            w.report.read,
            w.report.kept + w.report.dropped_total(),
            "{end}"
        );
        if let Ok(s) = parse(text) {
            assert_eq!(s.jobs, w.jobs, "{end}");
        }
    }
    let body = EDGES.find('\n').unwrap();
    for (i, _) in EDGES.match_indices('|').filter(|(i, _)| *i > body) {
        let mut garbled = EDGES.to_string();
        garbled.replace_range(i..i + 1, "||");
        let w = lenient(&garbled);
        assert_eq!(
            w.report.read,
            w.report.kept + w.report.dropped_total(),
            "{i}"
        );
    }
}
