//! Traces stream: an SWF trace, plain or gzip, is parsed a piece at a time as it is decoded,
//! so its text is never held whole. A trace whose text is mostly comments (40 MB of them,
//! 1000 jobs) loads in a small part of its text's size; the SHA-256 is of the stored bytes.
//! Measured with a counting allocator (this test binary's own), in bytes, not time.

use jobsort::sim::load_workload;
use sha2::Digest;
use std::io::Write;

use crate::heap;

#[test]
fn a_trace_is_parsed_as_it_is_decoded_never_held_whole() {
    let _alone = heap::alone();
    let mut text = String::from("; MaxNodes: 64\n; MaxProcs: 64\n");
    let comment = format!(";{}\n", " comment".repeat(24));
    for i in 1..=1000 {
        for _ in 0..200 {
            text.push_str(&comment);
        }
        text.push_str(&format!(
            "{i} {i} 0 10 1 -1 -1 1 20 -1 1 {} 1 -1 1 -1 -1 -1\n",
            i % 9
        ));
    }
    assert!(text.len() > 38_000_000);
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("t.swf");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("t.swf.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let len = text.len();
    drop(text);
    for path in [&plain, &gz] {
        let (w, peak) = heap::peak_during(|| load_workload(path).unwrap());
        assert_eq!(w.jobs.len(), 1000);
        assert_eq!(
            (w.machine.nodes, w.jobs[999].id.as_str()),
            (Some(64), "1000")
        );
        let stored = std::fs::read(path).unwrap();
        assert_eq!(w.sha256, hex(&sha2::Sha256::digest(&stored)));
        assert!(
            peak < len / 20,
            "{}: {peak} bytes of heap for {len} bytes of text",
            path.display()
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
