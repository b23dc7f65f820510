//! Job files load straight into columns: the heap a load needs grows by about the bytes the
//! columns hold per job, not by a row per job (a map each, ~1 KB) nor by the file's text.
//! Measured with a counting allocator (this test binary's own), in bytes, not time.

use jobsort::Catalog;
use jobsort::jobs::load::{JobFormat, load_jobs};
use std::io::Write;

use crate::heap;

const JOBS: usize = 100_000;

/// Ten fields a job: id, user, group, queue, submit and five values (units as PBS prints).
fn fields(i: usize) -> [String; 10] {
    [
        format!("{}.srv", 100_000 + i),
        format!("user{}", i % 97),
        format!("g{}", i % 13),
        ["workq", "long", "short"][i % 3].to_string(),
        (1_600_000_000 + i * 7).to_string(),
        (1 + i % 64).to_string(),
        format!("{}mb", 512 * (1 + i % 8)),
        format!("{:02}:{:02}:00", i % 48, i % 60),
        format!("00:{:02}:{:02}", i % 60, i % 59),
        (i % 10).to_string(),
    ]
}

const NAMES: [&str; 10] = [
    "id",
    "user",
    "group",
    "queue",
    "submit",
    "ncpus",
    "mem",
    "walltime",
    "eligible_time",
    "job_priority",
];

fn write(path: &std::path::Path, mut line: impl FnMut(usize, &mut Vec<u8>)) {
    let mut out = Vec::new();
    for i in 0..JOBS {
        line(i, &mut out);
    }
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(&out))
        .unwrap();
}

fn object(i: usize) -> String {
    let pairs: Vec<String> = NAMES
        .iter()
        .zip(fields(i))
        .map(|(k, v)| format!("\"{k}\":\"{v}\""))
        .collect();
    format!("{{{}}}", pairs.join(","))
}

/// Peak heap during a load, above what was live before it, per job.
fn peak_per_job(path: &std::path::Path) -> f64 {
    let (file, peak) =
        heap::peak_during(|| load_jobs(path, JobFormat::Auto, &Catalog::pbs(), None).unwrap());
    assert_eq!(file.jobs.len(), JOBS, "{}", path.display());
    assert!(file.unknown.is_empty());
    assert_eq!(file.jobs.value(JOBS - 1, "mem"), Some(512.0 * 1024.0 * 8.0));
    peak as f64 / JOBS as f64
}

#[test]
fn loading_ten_columns_costs_about_what_the_columns_hold() {
    let _alone = heap::alone();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    write(&csv, |i, out| {
        if i == 0 {
            writeln!(out, "{}", NAMES.join(",")).unwrap();
        }
        writeln!(out, "{}", fields(i).join(",")).unwrap();
    });
    let jsonl = dir.path().join("jobs.jsonl");
    write(&jsonl, |i, out| writeln!(out, "{}", object(i)).unwrap());
    let json = dir.path().join("jobs.json");
    write(&json, |i, out| {
        out.extend_from_slice(if i == 0 { b"[\n" } else { b",\n" });
        out.extend_from_slice(object(i).as_bytes());
        if i == JOBS - 1 {
            out.extend_from_slice(b"\n]\n");
        }
    });
    let qstat = dir.path().join("qstat.json");
    write(&qstat, |i, out| {
        out.extend_from_slice(if i == 0 { b"{\"Jobs\":{\n" } else { b",\n" });
        let o = object(i);
        write!(
            out,
            "\"{}\":{{{}",
            fields(i)[0],
            &o[o.find(",\"user").unwrap() + 1..]
        )
        .unwrap();
        if i == JOBS - 1 {
            out.extend_from_slice(b"\n}}\n");
        }
    });
    // What the columns hold: 5 values and the submission order (8 bytes each), the id
    // (~10 bytes and its end), user, group and queue codes (4 bytes each): ~86 bytes. The
    // columns grow by doubling, so up to a third more is allocated (not all of it touched).
    for path in [&csv, &jsonl, &json, &qstat] {
        let per_job = peak_per_job(path);
        assert!(
            per_job <= 128.0,
            "{}: {per_job:.0} bytes of heap per job",
            path.display()
        );
    }
}
