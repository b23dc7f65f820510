//! Workload loading from files: SWF (plain and gzip) errors with file:line, JSON job lists,
//! node-shaped requests.

use jobsort::sim::load_workload;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::workload::Request;
use jobsort::sim::{Policy, SimConfig};
use std::io::Write;

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn swf_parse_errors_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.swf", b"; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 x 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
    let e = load_workload(&p).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("{}:3: field 4 (run time) is not a number: `x`", p.display())
    );
    let p = write(dir.path(), "short.swf", b"1 0 0 10 1\n");
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!("{}:1: expected 18 fields, found 5", p.display())
    );
    let p = write(dir.path(), "dup.swf", b"1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!("{}:2: duplicate job number 1", p.display())
    );
}

#[test]
fn gzip_swf_is_read_transparently() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"; MaxNodes: 2\n; MaxProcs: 8\n7 3 1 10 2 -1 -1 2 20 -1 1 5 6 -1 2 -1 -1 -1\n")
        .unwrap();
    let p = write(dir.path(), "t.swf.gz", &gz.finish().unwrap());
    let w = load_workload(&p).unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert_eq!((w.machine.nodes, w.machine.cores), (Some(2), Some(4)));
    assert_eq!(w.jobs[0].user, "u5");
    assert_eq!(w.name, "t.swf.gz");
    assert_eq!(w.sha256.len(), 64);
}

#[test]
fn json_job_list_with_node_requests_is_placed_on_whole_nodes() {
    // 3 nodes × 4 cores. a: 1 node × 3 cores on node 0; b: 2 nodes × 2 cores → nodes 1, 2
    // (node 0 has 1 core left); c: 6 procs anywhere → waits for a or b.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "jobs.json",
        br#"[{"id":"a","submit":0,"run":10,"nnodes":1,"ncores":3,"walltime":10},
             {"id":"b","submit":0,"run":20,"nnodes":2,"ncores":2,"walltime":20},
             {"id":"c","submit":1,"run":5,"procs":6,"walltime":5}]"#,
    );
    let w = load_workload(&p).unwrap();
    assert_eq!(w.jobs[1].request, Request::Nodes { nodes: 2, cores: 2 });
    let cfg = SimConfig {
        policy: Policy::Strict,
        nodes: 3,
        cores: 4,
        threshold: None,
        fairshare: None,
        limits: None,
    };
    let r = simulate(&w, &cfg, None, &RunOptions::default()).unwrap();
    // Free at t=1: node0 1, node1 2, node2 2 = 5 < 6. At t=10 a ends: 4 + 2 + 2 = 8 ≥ 6.
    assert_eq!(r.outcome.start, [Some(0), Some(0), Some(10)]);
}

#[test]
fn json_errors_name_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "j.json",
        br#"[{"submit":0,"run":1,"procs":1},{"submit":"late","run":1,"procs":1}]"#,
    );
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!(
            "{}: jobs[1]: `submit` must be a number, got \"late\"",
            p.display()
        )
    );
}
