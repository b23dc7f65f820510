//! Setting up a simulation from its settings: the auto fairshare tree on traces whose users
//! include SWF's -1 (`unknown`).

use crate::common;

use common::cli::{jobsort, stderr, write};

/// SWF jobs of user -1 are user `unknown`, which is PBS's own `unknown` group (see
/// `sim::share`'s test `an_entity_named_unknown_is_pbs_unknown_group` for what OpenPBS
/// does): `--auto-tree user` simulates them instead of failing on "entity unknown is not
/// unique".
#[test]
fn auto_tree_takes_swf_user_minus_one_as_pbs_unknown_group() {
    let dir = tempfile::tempdir().unwrap();
    let swf = write(
        dir.path(),
        "minus1.swf",
        "; MaxNodes: 4\n\
         1 0 -1 10 1 -1 -1 1 20 -1 1 3 1 -1 1 -1 -1 -1\n\
         2 1 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 1 -1 -1 -1\n\
         3 2 -1 10 1 -1 -1 1 20 -1 1 4 1 -1 1 -1 -1 -1\n",
    );
    for auto in ["user", "group", "group:user"] {
        let out = jobsort([
            "sim",
            "--trace",
            &swf,
            "--auto-tree",
            auto,
            "--formula",
            "fairshare_perc",
            "--format",
            "json",
        ]);
        assert!(out.status.success(), "{auto}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["runs"][0]["jobs"], 3, "{auto}");
        assert_eq!(v["runs"][0]["never_started"], 0, "{auto}");
    }
    // The LLNL Atlas trace of `../shared/data/traces/` has jobs of user -1.
    let Some(llnl) = common::shared_or_skip("data/traces/LLNL-Atlas-2006-2.1-cln.swf.gz") else {
        return;
    };
    let out = jobsort([
        "sim",
        "--trace",
        llnl.to_str().unwrap(),
        "--first",
        "20000",
        "--auto-tree",
        "user",
        "--formula",
        "fairshare_factor",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `replay --verify` of `text` (written to `dir/name`) as JSON.
fn verify(dir: &std::path::Path, name: &str, text: &str) -> serde_json::Value {
    let path = write(dir, name, text);
    let out = jobsort(["replay", &path, "--verify", "--format", "json"]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{name}: {}",
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A recording with `--auto-tree` records the tree's entities in its header, so a recording
/// cut at any line — between lines or inside one, as kill -9 leaves it — verifies exactly:
/// the tree is the whole workload's, not the one the prefix's users would give. Without them
/// (recordings made before), the tree comes from the prefix's jobs and the values differ.
#[test]
fn every_prefix_of_an_auto_tree_recording_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("kth.rec");
    let rec = rec.to_string_lossy();
    let out = jobsort([
        "sim",
        "--trace",
        &common::cli::kth(),
        "--first",
        "3000",
        "--policy",
        "strict",
        "--auto-tree",
        "user",
        "--formula",
        "fairshare_perc * 1000000 + fairshare_factor",
        "--record",
        &rec,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&*rec).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert!(lines[0].contains("\"auto_entities\":[\""), "{}", lines[0]);
    let n = lines.len();
    for cut in [1, 2, 50, n / 3, n / 2, n - 1, n] {
        let prefix = lines[..cut].concat();
        let v = verify(dir.path(), &format!("cut{cut}.rec"), &prefix);
        assert_eq!(v["mismatches"], 0, "cut at line {cut}: {v}");
        assert_eq!(v["rounds"], cut as u64 - 1, "cut at line {cut}");
        // A prefix of whole lines stops before its jobs end: truncated all the same.
        assert_eq!(v["truncated"], cut < n, "cut at line {cut}: {v}");
        // Cut inside the next line: its partial line is ignored, the rest verifies.
        if cut < n {
            let partial = format!("{prefix}{}", &lines[cut][..lines[cut].len() / 2]);
            let v = verify(dir.path(), &format!("mid{cut}.rec"), &partial);
            assert_eq!(v["mismatches"], 0, "cut inside line {}: {v}", cut + 1);
            assert_eq!(v["truncated"], true);
            assert_eq!(v["rounds"], cut as u64 - 1);
        }
    }
    // The header of an older recording, without the entities: a prefix builds its tree from
    // its own users, and the fairshare values differ.
    let mut header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    header["fairshare"]
        .as_object_mut()
        .unwrap()
        .remove("auto_entities");
    let old = format!("{header}\n{}", lines[1..n / 3].concat());
    let v = verify(dir.path(), "old.rec", &old);
    assert!(v["mismatches"].as_u64().unwrap() > 0, "{v}");
    let whole = format!("{header}\n{}", lines[1..].concat());
    assert_eq!(verify(dir.path(), "old-whole.rec", &whole)["mismatches"], 0);
}

/// `--record` to a pipe, a FIFO or `-` streams the recording and exits 0 with its report
/// (fsync, which a regular file gets at the end, is refused by pipes: "Invalid argument").
#[test]
fn recording_to_a_pipe_or_fifo_streams() {
    let kth = common::cli::kth();
    let sim = |record: &str| {
        jobsort([
            "sim", "--trace", &kth, "--first", "200", "--record", record, "--format", "json",
        ])
    };
    let lines = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .take_while(|l| l.starts_with("{\""))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // Stdout is the test's pipe: the recording, then the report.
    let out = sim("/dev/stdout");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let rec = lines(&text);
    assert_eq!(rec[0]["format"], "jobsort-recording");
    assert!(rec.len() > 100, "{} lines", rec.len());
    assert!(text.contains("\"runs\""), "no report after the recording");
    // `-`: the recording alone on stdout (the report on stderr), and it verifies.
    let out = sim("-");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("\"runs\""));
    let verified =
        common::cli::jobsort_stdin(["replay", "-", "--verify", "--format", "json"], &out.stdout);
    let v: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap();
    assert_eq!(v["mismatches"], 0, "{v}");
    assert_eq!(v["rounds"].as_u64(), Some(rec.len() as u64 - 1));
    // A FIFO, read by another thread.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("rec.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = sim(&fifo.to_string_lossy());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&reader.join().unwrap()), rec);
    // One stream holds one recording.
    let out = jobsort([
        "sim",
        "--trace",
        &kth,
        "--first",
        "20",
        "--record",
        "-",
        "--formula",
        "ncpus",
        "--formula",
        "walltime",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not a regular file, so it holds one recording"));
}
