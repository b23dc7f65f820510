//! JSON job lists stream as SWF traces do (`tests/memory/trace_memory.rs`): a document and JSON
//! lines, plain or gzip, are parsed a piece at a time as they are decoded, so their text is
//! never held whole. Measured with a counting allocator (this test binary's own, its tests
//! one at a time so that no other test's heap is counted), in bytes, not time.

use jobsort::sim::load_workload;
use sha2::Digest;
use std::io::Write;

use crate::heap;

/// JSON job lists stream too: a document (`{"jobs": [...]}` or an array) and JSON lines, plain and gzip,
/// whose entries carry 40 kB of a key no reader uses, load in a small part of their text.
#[test]
fn a_json_job_list_is_parsed_as_it_is_decoded_never_held_whole() {
    let _alone = heap::alone();
    let note = "n".repeat(40_000);
    let job = |i: usize| {
        format!(
            r#"{{"id": "j{i}", "note": "{note}", "submit": {i}, "run": 10, "ncpus": {}, "user": "u{}"}}"#,
            1 + i % 4,
            i % 7
        )
    };
    let lines: String = (1..=1000).map(|i| job(i) + "\n").collect();
    let document = format!(
        "{{\"pbs_version\": \"23.06\", \"jobs\": [\n{}\n]}}\n",
        (1..=1000).map(job).collect::<Vec<_>>().join(",\n")
    );
    let array = format!(
        "[\n{}\n]\n",
        (1..=1000).map(job).collect::<Vec<_>>().join(",\n")
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("t.jsonl", &lines),
        ("t.json", &document),
        ("array.json", &array),
    ] {
        assert!(text.len() > 40_000_000);
        let plain = dir.path().join(name);
        std::fs::write(&plain, text).unwrap();
        let gz = dir.path().join(format!("{name}.gz"));
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        for path in [&plain, &gz] {
            let (w, peak) = heap::peak_during(|| load_workload(path).unwrap());
            assert_eq!(w.jobs.len(), 1000);
            assert_eq!(
                (w.jobs[999].id.as_str(), w.jobs[999].user.as_str()),
                ("j1000", "u6")
            );
            let stored = std::fs::read(path).unwrap();
            assert_eq!(w.sha256, hex(&sha2::Sha256::digest(&stored)));
            assert!(
                peak < text.len() / 20,
                "{}: {peak} bytes of heap for {} bytes of text",
                path.display(),
                text.len()
            );
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
