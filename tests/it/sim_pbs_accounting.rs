//! PBS accounting logs as workloads: every record type and lifecycle of the fixture
//! directory `tests/data/pbs_accounting/accounting/` (written from the record layouts of
//! OpenPBS `src/server/accounting.c`, as `../shared/reference/scheduler_data.md` §1 lists
//! them), the real XDMoD sample (`tests/data/samples/`), and bad data strict and lenient.

use jobsort::sim::workload::pbs_accounting::{
    ArrayRole, Chunk, Fate, HostCores, PlaceSpec, select_request,
};
use jobsort::sim::workload::{
    DroppedJob, LoadReport, MachineHint, Name, PbsJob, ReadOptions, Request, SimJob,
    parse_pbs_accounting, pbs_accounting_jobs, read_pbs_accounting,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const B: i64 = 1_709_280_000; // 03/01/2024 08:00:00 UTC: the fixture's time 0

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pbs_accounting/accounting")
}

const STRICT: ReadOptions = ReadOptions { lenient: false };
const LENIENT: ReadOptions = ReadOptions { lenient: true };

#[allow(clippy::too_many_arguments)]
fn sim(
    id: &str,
    submit: i64,
    start: i64,
    run: i64,
    walltime: i64,
    request: Request,
    mem: f64,
    (user, group, queue): (&str, &str, &str),
    resources: &[(&str, f64)],
) -> SimJob {
    SimJob::from(jobsort::sim::JobSpec {
        id: id.into(),
        submit: B + submit,
        run,
        walltime,
        walltime_given: true,
        request,
        mem,
        user: user.into(),
        group: group.into(),
        account: "".into(),
        qos: "".into(),
        queue: queue.into(),
        queue_priority: 0.0,
        resources: resources.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        recorded_start: Some(B + start),
    })
}

fn nodes(nodes: u32, cores: u32) -> Request {
    Request::Nodes { nodes, cores }
}

/// A request of chunks placed as written (memory, GPUs, custom resources, exclusive nodes).
fn select(text: &str, place: Option<&str>) -> Request {
    Request::Select(std::sync::Arc::new(select_request(text, place).unwrap()))
}

#[test]
fn an_accounting_directory_is_a_workload_with_every_field() {
    let w = read_pbs_accounting(&[fixture_dir()], STRICT, None).unwrap();
    let gb = 1024.0 * 1024.0;
    let expected = vec![
        // E alone (it started before the logs): Torque's nodes=2:ppn=4.
        sim(
            "106",
            -500,
            -100,
            2600,
            3600,
            nodes(2, 4),
            0.0,
            ("fay", "phys", "workq"),
            &[],
        ),
        // Q S E, place=scatter with two equal chunks of four cores and 2 GB: the memory
        // makes them chunks placed as written.
        sim(
            "100.srv",
            0,
            10,
            1800,
            3600,
            select("2:ncpus=4:mem=2gb", Some("scatter")),
            4.0 * gb,
            ("ann", "phys", "workq"),
            &[],
        ),
        // Q S R S E: the run that counts is the second.
        sim(
            "102.srv",
            100,
            240,
            600,
            1200,
            nodes(1, 4),
            0.0,
            ("cid", "phys", "workq"),
            &[],
        ),
        // Subjobs of 103[] (no Q of their own): ngpus is a custom resource, and a chunk
        // resource.
        sim(
            "103[1].srv",
            1000,
            1010,
            120,
            300,
            select("1:ncpus=2:ngpus=1", None),
            0.0,
            ("dee", "bio", "workq"),
            &[("ngpus", 1.0)],
        ),
        sim(
            "103[2].srv",
            1000,
            1010,
            390,
            300,
            select("1:ncpus=2:ngpus=1", None),
            0.0,
            ("dee", "bio", "workq"),
            &[("ngpus", 1.0)],
        ),
        // Deleted while running (Q S D E): submit is qtime, not ctime; `foo=bar` is text;
        // its `account` (`qsub -A`) is the job's account.
        SimJob::from(jobsort::sim::JobSpec {
            account: "big lab".into(),
            ..sim(
                "104.srv",
                1600,
                1700,
                300,
                7200,
                select("1:ncpus=6:scratch=10gb", None),
                0.0,
                ("eve", "chem", "long"),
                &[("scratch", 10.0 * gb)],
            )
            .spec()
        }),
        // Q S C T E: T restarts it; E gives the start of that run.
        sim(
            "107.srv",
            2000,
            2300,
            600,
            3600,
            nodes(1, 3),
            0.0,
            ("gus", "bio", "workq"),
            &[],
        ),
    ];
    assert_eq!(w.jobs, expected);
    let dropped: BTreeMap<String, usize> = [
        ("aborted before it started", 1),
        ("array parent (its subjobs are the jobs)", 1),
        ("deleted before it started", 2),
        ("queued at the end of the logs (never started)", 1),
        ("running at the end of the logs (no E record)", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    // Records of other types are not jobs: skipped, apart from the jobs dropped.
    let records_skipped: BTreeMap<String, usize> = [
        ("record type B (reservation begins)", 1),
        ("record type C (checkpointed)", 1),
        ("record type L (floating licences)", 1),
        ("record type a (attributes altered)", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(
        w.report,
        LoadReport {
            read: 13,
            kept: 7,
            dropped,
            records_skipped,
            walltime_from_runtime: 0,
            killed_at_walltime: 1,
            zero_runtime: 0,
            // Each by its id, in the order the logs end them (the open ones last, by id).
            dropped_jobs: [
                ("101.srv", "deleted before it started"),
                ("103[3].srv", "deleted before it started"),
                ("103[].srv", "array parent (its subjobs are the jobs)"),
                ("105.srv", "aborted before it started"),
                ("108.srv", "queued at the end of the logs (never started)"),
                ("109.srv", "running at the end of the logs (no E record)"),
            ]
            .map(|(id, reason)| DroppedJob {
                id: id.into(),
                reason: reason.into()
            })
            .to_vec(),
            dropped_unlisted: 0,
        }
    );
    assert_eq!(w.report.read, w.report.kept + w.report.dropped_total());
    // Five hosts; n1 and n2 each hold 8 cores at once (100 with 102, 100 with 103[1..2]).
    assert_eq!(
        w.machine,
        MachineHint {
            nodes: Some(5),
            cores: Some(8)
        }
    );
    assert_eq!(
        w.machine_derived.as_deref(),
        Some("5 hosts in exec_vnode/exec_host, at most 8 cores in use at once on one")
    );
    assert_eq!(w.name, "accounting");
    // The two files in date order, the same as one file holding both.
    let one: Vec<u8> = ["20240301", "20240302"]
        .iter()
        .flat_map(|f| std::fs::read(fixture_dir().join(f)).unwrap())
        .collect();
    let whole = parse_pbs_accounting(&one, "both", STRICT).unwrap();
    assert_eq!(
        (whole.jobs, whole.report),
        (w.jobs.clone(), w.report.clone())
    );
    use sha2::Digest;
    assert_eq!(w.sha256, format!("{:x}", sha2::Sha256::digest(&one)));
    // Several paths, and gzip told by its bytes (whatever the name).
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(
        &mut gz,
        &std::fs::read(fixture_dir().join("20240302")).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join("20240302"), gz.finish().unwrap()).unwrap();
    let paths = [fixture_dir().join("20240301"), dir.path().join("20240302")];
    let two = read_pbs_accounting(&paths, STRICT, None).unwrap();
    assert_eq!((two.jobs, two.report), (w.jobs, w.report));
    assert_eq!(two.name, "2 accounting logs");
}

#[test]
fn a_job_keeps_what_a_sim_job_has_no_field_for() {
    let bytes = std::fs::read(fixture_dir().join("20240301")).unwrap();
    let (jobs, _) = pbs_accounting_jobs(&bytes, "20240301", STRICT).unwrap();
    let by_id = |id: &str| jobs.iter().find(|j| j.id == id).unwrap().clone();
    let j100 = by_id("100.srv");
    let rl = |pairs: &[(&str, &str)]| -> BTreeMap<Name, String> {
        pairs
            .iter()
            .map(|&(k, v)| (k.into(), v.to_string()))
            .collect()
    };
    assert_eq!(
        j100,
        PbsJob {
            id: "100.srv".into(),
            array: None,
            array_indices: None,
            user: Some("ann".into()),
            group: Some("phys".into()),
            account: None,
            project: Some("_pbs_project_default".into()),
            queue: Some("workq".into()),
            jobname: Some("lammps".into()),
            ctime: Some(B),
            qtime: Some(B),
            etime: Some(B),
            eligible_time: Some(10),
            start: Some(B + 10),
            end: Some(B + 1810),
            exit_status: Some(0),
            run_count: 1,
            starts: 1,
            reruns: 0,
            deleted_while_running: false,
            resource_list: rl(&[
                ("mem", "4gb"),
                ("ncpus", "8"),
                ("nodect", "2"),
                ("place", "scatter"),
                ("select", "2:ncpus=4:mem=2gb"),
                ("walltime", "01:00:00"),
            ]),
            exec_vnode: Some("(n1:ncpus=4:mem=2097152kb)+(n2:ncpus=4:mem=2097152kb)".into()),
            exec_host: Some("n1/0*4+n2/0*4".into()),
            fate: Fate::Ended,
        }
    );
    assert_eq!(
        j100.select().unwrap(),
        Some(vec![Chunk {
            count: 2,
            resources: vec![("ncpus".into(), "4".into()), ("mem".into(), "2gb".into())]
        }])
    );
    assert_eq!(
        j100.place().unwrap(),
        Some(PlaceSpec {
            arrangement: Some("scatter".into()),
            sharing: None,
            group: None
        })
    );
    let hc = |h: &str, c| HostCores {
        host: h.into(),
        cores: c,
    };
    assert_eq!(j100.allocation().unwrap(), [hc("n1", 4), hc("n2", 4)]);
    // A rerun: two starts, one R, run_count 2, the last run's start and allocation.
    let j102 = by_id("102.srv");
    assert_eq!(
        (
            j102.starts,
            j102.reruns,
            j102.run_count,
            j102.start,
            j102.end
        ),
        (2, 1, 2, Some(B + 240), Some(B + 840))
    );
    assert_eq!(j102.allocation().unwrap(), [hc("n1", 4)]);
    let j101 = by_id("101.srv");
    assert_eq!((j101.fate, j101.start), (Fate::DeletedQueued, None));

    let bytes = std::fs::read(fixture_dir().join("20240302")).unwrap();
    let (jobs, report) = pbs_accounting_jobs(&bytes, "20240302", STRICT).unwrap();
    let by_id = |id: &str| jobs.iter().find(|j| j.id == id).unwrap().clone();
    let j104 = by_id("104.srv");
    // account is always quoted; a quoted value keeps its space.
    assert_eq!(j104.account.as_deref(), Some("big lab"));
    // The names are one text each for the whole read: the subjobs' user and the two bio jobs'
    // group, and the resources' names.
    let (sub1, sub2, j107) = (by_id("103[1].srv"), by_id("103[2].srv"), by_id("107.srv"));
    let (u1, u2) = (sub1.user.unwrap(), sub2.user.unwrap());
    assert!(u1.shares(&u2));
    assert!(sub1.group.unwrap().shares(j107.group.as_ref().unwrap()));
    let ncpus = |j: &PbsJob| j.resource_list.keys().find(|k| *k == "ncpus").cloned();
    assert!(ncpus(&j107).unwrap().shares(&ncpus(&j104).unwrap()));
    assert_eq!(j104.jobname.as_deref(), Some("my job"));
    assert_eq!(
        (j104.deleted_while_running, j104.exit_status, j104.fate),
        (true, Some(271), Fate::Ended)
    );
    let parent = by_id("103[].srv");
    assert_eq!(
        (parent.array, parent.array_indices.as_deref(), parent.fate),
        (Some(ArrayRole::Parent), Some("1-3"), Fate::Ended)
    );
    assert_eq!(by_id("103[2].srv").array, Some(ArrayRole::Subjob(2)));
    assert_eq!(by_id("103[3].srv").fate, Fate::DeletedQueued);
    // etime=0: not yet eligible (a dependency holds it).
    let j105 = by_id("105.srv");
    assert_eq!((j105.etime, j105.fate), (None, Fate::AbortedQueued));
    let j106 = by_id("106");
    assert_eq!(j106.nodes().unwrap().unwrap()[0].ppn, 4);
    assert_eq!(j106.allocation().unwrap(), [hc("n4", 4), hc("n5", 4)]);
    let j107 = by_id("107.srv");
    assert_eq!((j107.starts, j107.start), (2, Some(B + 2300)));
    assert_eq!(by_id("108.srv").fate, Fate::QueuedAtEnd);
    assert_eq!(by_id("109.srv").fate, Fate::RunningAtEnd);
    assert_eq!(report.read, 10);
}

/// The XDMoD sample (real E records, Torque and PBS Pro mixed, with XDMoD's hand-made
/// edge cases; `../shared/data/samples/README.md`).
#[test]
fn the_real_xdmod_sample_reads_with_its_bad_records_named() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/samples/xdmod-pbs-accounting-E-records.log");
    let bytes = std::fs::read(&path).unwrap();
    // Line 2 is line 1's job again without its server suffix.
    let e = parse_pbs_accounting(&bytes, "x.log", STRICT).unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.log:2: E record of job `6` after its end (a duplicated record?)"
    );
    let w = parse_pbs_accounting(&bytes, "x.log", LENIENT).unwrap();
    // Line 7: `Resource_List.nodect=1:ppn=24:gpu=4:...` is not a node count: its job is
    // dropped. Line 2 is a record skipped: its job is line 1's, kept.
    assert_eq!(
        w.report.dropped,
        BTreeMap::from([("bad attribute value".to_string(), 1)])
    );
    assert_eq!(
        w.report.records_skipped,
        BTreeMap::from([("record after the job ended".to_string(), 1)])
    );
    assert_eq!(w.report.read, w.jobs.len() + w.report.dropped_total());
    type Row<'a> = (&'a str, i64, i64, i64, Request, Option<i64>);
    let got: Vec<Row> = w
        .jobs
        .iter()
        .map(|j| {
            (
                j.id.as_str(),
                j.submit,
                j.run,
                j.walltime,
                j.request.clone(),
                j.recorded_start(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            // Torque nodes=4:ppn=8.
            (
                "6.edge.ccr.buffalo.edu",
                1261424924,
                2197,
                14400,
                nodes(4, 8),
                Some(1261425023)
            ),
            // nodes=1:ppn=4:avx wins over Torque's ncpus=1; `account` comes last.
            (
                "6464684.anonhost",
                1415579756,
                9350,
                86400,
                nodes(1, 4),
                Some(1415589841)
            ),
            (
                "2994.pbs",
                1453756297,
                156,
                163,
                // place=scatter:excl: five whole nodes.
                select("5:ncpus=13", Some("scatter:excl")),
                Some(1453766281)
            ),
            // ncpus=12 on nodect=2 without place=scatter: cores anywhere.
            (
                "2995.pbs",
                1453756297,
                156,
                163,
                Request::Procs(12),
                Some(1453766281)
            ),
            // No qtime: submit is ctime.
            (
                "7904",
                1485451423,
                8407,
                345600,
                nodes(1, 28),
                Some(1485451424)
            ),
            (
                "10712",
                1587912657,
                100000,
                345600,
                nodes(1, 28),
                Some(1588046363)
            ),
            // One chunk of 48 cpus, 4 GPUs and memory (place=free).
            (
                "3073070.[hostname_1]",
                1607291960,
                36072,
                36000,
                select("1:mpiprocs=48:ncpus=48:ngpus=4:mem=190000128kb", None),
                Some(1607291966)
            ),
        ]
    );
    let last = w.jobs.last().unwrap();
    assert_eq!(last.mem, 185547.0 * 1024.0);
    assert_eq!(
        *last.resources(),
        BTreeMap::from([
            ("job_ecores".to_string(), 48.0),
            ("mpiprocs".to_string(), 48.0),
            ("ngpus".to_string(), 4.0),
        ])
    );
    let gpu = &w.jobs[5];
    // Torque's `gpu=2` and `pcput`-like durations are numbers; `feature=gpu` is text.
    assert_eq!(*gpu.resources(), BTreeMap::from([("gpu".to_string(), 2.0)]));
    assert_eq!(
        *w.jobs[0].resources(),
        BTreeMap::from([("pcput".to_string(), 144.0 * 3600.0)])
    );
    assert_eq!(
        (w.jobs[0].user.as_str(), w.jobs[0].group.as_str()),
        ("jonesm", "ccrstaff")
    );
}

/// One job's Q S E, with `extra` lines after it.
fn log(extra: &str) -> String {
    let c = "user=u group=g queue=q ctime=100 qtime=100 etime=100";
    format!(
        "01/01/2024 00:00:00;Q;1.s;{c} Resource_List.ncpus=1 \n\
         01/01/2024 00:00:00;S;1.s;{c} start=110 exec_host=a/0 Resource_List.ncpus=1 \n\
         01/01/2024 00:00:00;E;1.s;{c} start=110 exec_host=a/0 Resource_List.ncpus=1 end=170 Exit_status=0 run_count=1\n{extra}"
    )
}

fn strict_err(text: &str) -> String {
    parse_pbs_accounting(text.as_bytes(), "acct", STRICT)
        .unwrap_err()
        .to_string()
}

/// The jobs kept, and what was counted (dropped jobs and records skipped, by reason). A bad
/// record that drops its job is a dropped job; any other is a record skipped: so the jobs
/// read are always the kept plus the dropped (`trace t: 2 jobs read, 1 simulated, 1 dropped
/// (...); 1 record skipped (1 truncated last line)`).
fn lenient(text: &str) -> (usize, BTreeMap<String, usize>) {
    let w = parse_pbs_accounting(text.as_bytes(), "acct", LENIENT).unwrap();
    let r = &w.report;
    assert_eq!(
        r.read,
        w.jobs.len() + r.dropped_total(),
        "read = kept + dropped: {r:?}"
    );
    let mut counted = r.dropped.clone();
    for (reason, n) in &r.records_skipped {
        *counted.entry(reason.clone()).or_insert(0) += n;
    }
    (w.jobs.len(), counted)
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn bad_records_stop_at_file_and_line_or_are_skipped_and_counted() {
    assert_eq!(lenient(&log("")), (1, counts(&[])));
    // A record cut short: the last line has no newline.
    let cut = log("01/01/2024 00:00:00;Q;2.s;user=u group=g queue=q ctime=1");
    assert_eq!(
        strict_err(&cut),
        "acct:4: truncated last line (no newline at its end: PBS ends every record with one; \
         was the file still being written?)"
    );
    assert_eq!(lenient(&cut), (1, counts(&[("truncated last line", 1)])));
    // A record type PBS does not write, and a line that is no record at all.
    let t = log("01/01/2024 00:00:00;X;2.s;\nhello\n");
    assert_eq!(strict_err(&t), "acct:4: unknown record type `X`");
    assert_eq!(
        lenient(&t),
        (
            1,
            counts(&[("not an accounting record", 1), ("unknown record type", 1)])
        )
    );
    // An E with no S and no start (pbsparse's `start=0` case).
    let t = log("01/01/2024 00:00:00;E;2.s;user=u start=0 end=200 Exit_status=0\n");
    assert_eq!(
        strict_err(&t),
        "acct:4: E record of job `2.s` without a start (no S record, no `start`)"
    );
    assert_eq!(lenient(&t), (1, counts(&[("E without a start", 1)])));
    // Clock skew: an end before the start, a start before the qtime.
    let t = log("01/01/2024 00:00:00;E;2.s;user=u qtime=100 start=300 end=200 Exit_status=0\n");
    assert_eq!(
        strict_err(&t),
        "acct:4: E record of job `2.s`: `end` 200 is before `start` 300 (clock skew?)"
    );
    assert_eq!(lenient(&t), (1, counts(&[("end before start", 1)])));
    let t = log("01/01/2024 00:00:00;E;2.s;user=u qtime=400 start=300 end=500 Exit_status=0\n");
    assert_eq!(
        strict_err(&t),
        "acct:4: E record of job `2.s`: `start` 300 is before `qtime` 400 (clock skew?)"
    );
    assert_eq!(lenient(&t), (1, counts(&[("start before qtime", 1)])));
    // A record repeated: the same S twice, and the whole log twice.
    let text = log("");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, lines[1]);
    let t = lines.join("\n") + "\n";
    assert_eq!(
        strict_err(&t),
        "acct:3: S record of job `1.s` repeats an earlier one"
    );
    assert_eq!(lenient(&t), (1, counts(&[("duplicate record", 1)])));
    let t = log(&log(""));
    assert_eq!(
        strict_err(&t),
        "acct:4: Q record of job `1.s` after its end (a duplicated record?)"
    );
    assert_eq!(
        lenient(&t),
        (1, counts(&[("record after the job ended", 3)]))
    );
    // An attribute PBS does not write, and one that is not key=value: named with the key.
    let t = log("01/01/2024 00:00:00;Q;2.s;user=u shoe_size=9 ctime=1 \n");
    assert_eq!(strict_err(&t), "acct:4: unknown attribute `shoe_size`");
    let (kept, dropped) = lenient(&t);
    assert_eq!(
        (kept, dropped),
        (
            1,
            counts(&[
                ("unknown attribute", 1),
                ("queued at the end of the logs (never started)", 1)
            ])
        )
    );
    let t = log("01/01/2024 00:00:00;Q;2.s;user=u ctime=yesterday \n");
    assert_eq!(
        strict_err(&t),
        "acct:4: `ctime=yesterday` is not a time in epoch seconds"
    );
    let t = log(
        "01/01/2024 00:00:00;E;2.s;user=u ctime=1 start=5 end=9 Resource_List.ncpus=1 Resource_List.walltime=1:xx\n",
    );
    assert!(
        strict_err(&t).starts_with("acct:4: job `2.s`: `Resource_List.walltime`: "),
        "{}",
        strict_err(&t)
    );
    // A bad `select` or `place`, asked by two jobs (each distinct select is read once for
    // the log, its error too): each job gives the error, at its own E.
    let e = |id: u32, rl: &str| {
        format!(
            "01/01/2024 00:00:00;E;{id}.s;user=u ctime=1 start=5 end=9 exec_host=a/0 \
             Resource_List.ncpus=2 {rl}\n"
        )
    };
    let bad_select = "Resource_List.select=2:ncpus Resource_List.place=scatter";
    let t = log(&(e(2, bad_select) + &e(3, bad_select)));
    assert_eq!(
        strict_err(&t),
        "acct:4: job `2.s`: `Resource_List.select`: chunk `2:ncpus`: `ncpus` is not \
         resource=value"
    );
    assert_eq!(lenient(&t), (1, counts(&[("bad attribute value", 2)])));
    let bad_place = "Resource_List.select=2:ncpus=1 Resource_List.place=sideways";
    let t = log(&(e(2, bad_place) + &e(3, bad_place)));
    let err = strict_err(&t);
    assert!(
        err.starts_with("acct:4: job `2.s`: `Resource_List.place`: "),
        "{err}"
    );
    assert_eq!(lenient(&t), (1, counts(&[("bad attribute value", 2)])));
    // The same select with a good place is a job, read from the shared parse.
    let good = "Resource_List.select=2:ncpus=1 Resource_List.place=scatter";
    assert_eq!(lenient(&log(&(e(2, bad_place) + &e(3, good)))).0, 2);
    // Epoch times as `str::parse::<i64>` reads them: a sign, and no more than i64 holds.
    let t = log("01/01/2024 00:00:00;Q;2.s;user=u ctime=+7 qtime=0007 \n");
    assert_eq!(
        lenient(&t),
        (
            1,
            counts(&[("queued at the end of the logs (never started)", 1)])
        )
    );
    let t = log("01/01/2024 00:00:00;Q;2.s;user=u ctime=9223372036854775808 \n");
    assert_eq!(
        strict_err(&t),
        "acct:4: `ctime=9223372036854775808` is not a time in epoch seconds"
    );
}

#[test]
fn the_format_is_sniffed_from_the_first_record() {
    use jobsort::sim::{TraceFormat, read_workload, trace_format};
    let text = log("");
    assert_eq!(trace_format("20240101", &text), TraceFormat::PbsAccounting);
    assert_eq!(
        trace_format("x.gz", &format!("\n\n{text}")),
        TraceFormat::PbsAccounting
    );
    // SWF and JSON stay what they were, whatever the name.
    let swf = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
    assert_eq!(trace_format("20240101", swf), TraceFormat::Swf);
    assert_eq!(
        trace_format("20240101", "; MaxNodes: 4\n"),
        TraceFormat::Swf
    );
    let (w, f) = read_workload(text.into_bytes(), "a", "a").unwrap();
    assert_eq!(
        (f, w.jobs.len(), w.name.as_str()),
        (TraceFormat::PbsAccounting, 1, "a")
    );
}

use crate::common;
use common::cli::{jobsort, json, stderr, stdout, write};

#[test]
fn sim_and_replay_run_on_an_accounting_directory() {
    let dir = fixture_dir();
    let dir = dir.to_str().unwrap();
    let out = jobsort([
        "sim",
        "--trace",
        dir,
        "--formula",
        "ncpus",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    let t = &v["trace"];
    assert_eq!(
        (t["read"].as_u64(), t["kept"].as_u64()),
        (Some(13), Some(7))
    );
    assert_eq!(
        (t["nodes"].as_u64(), t["cores"].as_u64()),
        (Some(5), Some(8))
    );
    assert_eq!(t["dropped"]["deleted before it started"], 2);
    assert_eq!(
        t["machine_derived"],
        "5 hosts in exec_vnode/exec_host, at most 8 cores in use at once on one"
    );
    // The real schedule, reconciled against a formula.
    let out = jobsort(["replay", "--trace", dir, "--formula", "ncpus"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("reconciled 18 rounds: 7 recorded dispatches, 7 jobs captured"),
        "{}",
        stdout(&out)
    );
    // Jobs read = simulated + dropped; the records of other types are apart.
    assert!(
        stderr(&out).contains(
            "note: trace accounting: 13 jobs read, 7 simulated, 6 dropped (1 aborted before it \
             started, 1 array parent (its subjobs are the jobs), 2 deleted before it started, 1 \
             queued at the end of the logs (never started), 1 running at the end of the logs (no \
             E record)); 4 records skipped (1 record type B (reservation begins), 1 record type \
             C (checkpointed), 1 record type L (floating licences), 1 record type a (attributes \
             altered))\n"
        ),
        "{}",
        stderr(&out)
    );
    // The recorded schedule must fit: on 2 nodes of 6 cores, 106 (8 cores from -100 s) and
    // 100 (8 cores from 10 s) overlap.
    let out = jobsort(["replay", "--trace", dir, "--nodes", "2", "--cores", "6"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "{dir}: the recorded schedule does not fit the cluster: at time {} its 2 running \
             jobs hold 16 cores, the cluster has 12 (2 nodes x 6 cores); give --nodes/--cores \
             if the log's size is wrong",
            B + 10
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn lenient_skips_and_counts_what_strict_stops_at() {
    let tmp = tempfile::tempdir().unwrap();
    let text = log("01/01/2024 00:00:00;E;2.s;user=u qtime=100 start=300 end=200\n");
    let f = write(tmp.path(), "20240101", &text);
    let out = jobsort(["sim", "--trace", &f, "--nodes", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "{f}:4: E record of job `2.s`: `end` 200 is before `start` 300 (clock skew?)"
        )),
        "{}",
        stderr(&out)
    );
    let out = jobsort(["sim", "--trace", &f, "--lenient"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "trace 20240101: 2 jobs read, 1 simulated, 1 dropped (1 end before start); \
             cluster 1 nodes x 1 cores"
        ),
        "{}",
        stdout(&out)
    );
    // The job its bad record drops, by its id.
    let out = jobsort(["sim", "--trace", &f, "--lenient", "--list-dropped"]);
    assert!(
        stdout(&out).contains("dropped jobs: 1\nid   reason\n2.s  end before start\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_archive_trace_that_overcommits_is_only_warned_about() {
    // Two one-core jobs at once on a one-core machine: SWF archives have such rows.
    let tmp = tempfile::tempdir().unwrap();
    let swf = "; MaxNodes: 1\n; MaxProcs: 1\n\
               1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n\
               2 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
    let f = write(tmp.path(), "t.swf", swf);
    let out = jobsort(["replay", "--trace", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: ")
            && stderr(&out).contains("the recorded schedule does not fit the cluster: at time 0"),
        "{}",
        stderr(&out)
    );
}
