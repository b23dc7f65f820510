//! Recording format version 2 (`docs/recording.md`): a job's pend or hold is written when it
//! changes, the ranked queue only with `--record-queue`, gzip when the file ends in `.gz`. Each
//! form verifies exactly, any edit of what it holds is a mismatch, and version 1 still reads.

use crate::common;

use common::cli::{code, jobsort, stderr, stdout, write};
use std::path::Path;

/// One node of two cores, EASY: job 1 holds both cores [0,100); 2, 3 and 4 queue behind it;
/// at 100, 2 starts, 3 (two cores) waits and 4 backfills; 3 starts at 150.
const SWF: &str = "; MaxNodes: 1\n\
; MaxProcs: 2\n\
1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 10 90 50 1 -1 -1 1 50 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 20 200 10 2 -1 -1 2 10 -1 1 3 1 -1 -1 -1 -1 -1\n\
4 30 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
";

/// What a version-1 jobsort wrote for [`SWF`] (`--policy easy --formula walltime`): the
/// queue and every decision in every round.
const V1: &str = r#"{"format":"jobsort-recording","version":1,"trace":{"name":"v1.swf","sha256":"844ba25f8395b29ebe736ea018b724febb1947db936bb0977bacccf8d4ee663b","jobs":4,"dropped":{}},"formula":"walltime","policy":"easy","cluster":{"nodes":1,"cores":2},"threshold":null,"fairshare":null,"limits":null}
{"round":0,"time":0,"events":[{"submit":"1","time":0,"procs":2,"walltime":100,"run":100,"mem":0.0,"user":"u1","group":"g1","queue":"default"}],"queue":[["1",100.0]],"decisions":[{"dispatch":"1","nodes":[0],"cores":2}],"hash":"7e048cbf2fa683764b5a42fe047bb191"}
{"round":1,"time":10,"events":[{"submit":"2","time":10,"procs":1,"walltime":50,"run":50,"mem":0.0,"user":"u2","group":"g1","queue":"default"}],"queue":[["2",50.0]],"decisions":[{"pend":"2","reason":"resources"}],"hash":"200b60f9bf9b904e218222070c242abc"}
{"round":2,"time":20,"events":[{"submit":"3","time":20,"procs":2,"walltime":10,"run":10,"mem":0.0,"user":"u3","group":"g1","queue":"default"}],"queue":[["2",50.0],["3",10.0]],"decisions":[{"pend":"2","reason":"resources"},{"pend":"3","reason":"resources"}],"hash":"9045c926b87abcfc6d33c30f9c8fc86a"}
{"round":3,"time":30,"events":[{"submit":"4","time":30,"procs":1,"walltime":10,"run":10,"mem":0.0,"user":"u1","group":"g1","queue":"default"}],"queue":[["2",50.0],["3",10.0],["4",10.0]],"decisions":[{"pend":"2","reason":"resources"},{"pend":"3","reason":"resources"},{"pend":"4","reason":"resources"}],"hash":"371823ef14c31fdf742db48eaa0d8fd7"}
{"round":4,"time":100,"events":[{"end":"1"}],"queue":[["2",50.0],["3",10.0],["4",10.0]],"decisions":[{"dispatch":"2","nodes":[0],"cores":1},{"pend":"3","reason":"resources"},{"dispatch":"4","nodes":[0],"cores":1}],"hash":"cb66734c6a229242a8b6d1870144424b"}
{"round":5,"time":110,"events":[{"end":"4"}],"queue":[["3",10.0]],"decisions":[{"pend":"3","reason":"resources"}],"hash":"c0cc35e2797466f991cfe7ad44ddb95c"}
{"round":6,"time":150,"events":[{"end":"2"}],"queue":[["3",10.0]],"decisions":[{"dispatch":"3","nodes":[0],"cores":2}],"hash":"b2530aaea218ade2310a3b8b5f63b7a8"}
{"round":7,"time":160,"events":[{"end":"3"}],"queue":[],"decisions":[],"hash":"38d1e61f3eab32c503178e49e7e7daf4"}
"#;

fn record(dir: &Path, name: &str, extra: &[&str]) -> String {
    let trace = write(dir, "t.swf", SWF);
    let rec = dir.join(name).display().to_string();
    let mut args = vec![
        "sim",
        "--trace",
        &trace,
        "--policy",
        "easy",
        "--formula",
        "walltime",
        "--record",
        &rec,
    ];
    args.extend_from_slice(extra);
    let out = jobsort(&args);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    rec
}

fn verify(rec: &str) -> (Option<i32>, String) {
    let out = jobsort(["replay", rec, "--verify"]);
    (code(&out), stdout(&out))
}

const VERIFIED: &str = "verified 8 rounds, 12 decisions: 0 mismatches\n";

#[test]
fn every_form_verifies_alike_and_version_1_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = write(dir.path(), "v1.rec", V1);
    assert_eq!(verify(&v1), (Some(0), VERIFIED.into()));
    for (name, extra) in [
        ("a.rec", &[][..]),
        ("q.rec", &["--record-queue"][..]),
        ("z.rec.gz", &[][..]),
    ] {
        let rec = record(dir.path(), name, extra);
        assert_eq!(verify(&rec), (Some(0), VERIFIED.into()), "{name}");
    }
    // Version 2 keeps 7 of version 1's 12 decisions (the 4 dispatches, and the pends of jobs
    // 2, 3 and 4 once each); without --record-queue, no queue.
    let text = std::fs::read_to_string(dir.path().join("a.rec")).unwrap();
    assert_eq!(text.matches("\"pend\"").count(), 3);
    assert_eq!(V1.matches("\"pend\"").count(), 8);
    assert!(!text.contains("\"queue\":[") && text.contains("\"version\":2"));
    let queued = std::fs::read_to_string(dir.path().join("q.rec")).unwrap();
    assert_eq!(queued.matches("\"queue\":[").count(), 8);
    // The gzip one is the plain one compressed.
    let gz = std::fs::read(dir.path().join("z.rec.gz")).unwrap();
    let mut plain = String::new();
    std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(&gz[..]), &mut plain)
        .unwrap();
    assert_eq!(plain, text);
}

#[test]
fn every_edit_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(record(dir.path(), "a.rec", &[])).unwrap();
    let queued = std::fs::read_to_string(record(dir.path(), "q.rec", &["--record-queue"])).unwrap();
    let edits = [
        // A pend reason (the kept decision of job 3).
        (
            &text,
            r#"{"pend":"3","reason":"resources"}"#,
            r#"{"pend":"3","reason":"reservation"}"#,
        ),
        // A pend dropped: job 4 decided nothing in round 3.
        (&text, r#"{"pend":"4","reason":"resources"}"#, ""),
        // Round 4's inputs (its hash): the queue is not listed, the hash speaks for it.
        (
            &text,
            "cb66734c6a229242a8b6d1870144424b",
            "cb66734c6a229242a8b6d1870144424c",
        ),
        // A queue value, where the queue is listed.
        (&queued, r#"["4",10.0]]"#, r#"["4",10.5]]"#),
    ];
    for (k, (base, from, to)) in edits.iter().enumerate() {
        assert!(base.contains(from), "edit {k}: {from} not in the recording");
        let edited = base
            .replacen(from, to, 1)
            .replace(",,", ",")
            .replace("[,", "[")
            .replace(",]", "]");
        let rec = write(dir.path(), &format!("e{k}.rec"), &edited);
        let (c, out) = verify(&rec);
        assert_eq!(c, Some(1), "edit {k} verified: {out}");
        assert!(!out.contains(" 0 mismatches"), "edit {k}: {out}");
    }
}

#[test]
fn a_gzip_recording_cut_anywhere_verifies_its_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let gz = std::fs::read(record(dir.path(), "z.rec.gz", &[])).unwrap();
    // From just past the header's bytes to just before the trailer.
    for cut in [gz.len() / 3, gz.len() / 2, gz.len() - 9, gz.len() - 1] {
        let path = dir.path().join(format!("cut{cut}.rec.gz"));
        std::fs::write(&path, &gz[..cut]).unwrap();
        let (c, out) = verify(path.to_str().unwrap());
        assert_eq!(c, Some(0), "cut at {cut}: {out}");
        assert!(
            out.contains("recording truncated") && out.contains(" 0 mismatches"),
            "cut at {cut}: {out}"
        );
    }
    // Cut before its first line decodes (only gzip's magic bytes left): cut, not empty.
    let path = dir.path().join("magic.rec.gz");
    std::fs::write(&path, &gz[..2]).unwrap();
    let out = jobsort(["replay", path.to_str().unwrap(), "--verify"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("magic.rec.gz:1: truncated before the end of the header"),
        "{}",
        stderr(&out)
    );
    // A file of no bytes at all is empty.
    let path = dir.path().join("empty.rec");
    std::fs::write(&path, b"").unwrap();
    let out = jobsort(["replay", path.to_str().unwrap(), "--verify"]);
    assert!(
        stderr(&out).contains("empty.rec:1: empty recording"),
        "{}",
        stderr(&out)
    );
}
