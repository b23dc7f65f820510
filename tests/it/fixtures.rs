//! The copies in `tests/data/` of files of `../shared/` are still those files: the cases,
//! samples and AleaNG files byte for byte, the KTH-SP2 part every header line and the first
//! 5,000 jobs of the whole trace. Skipped without `../shared/` (the copies are what a clone
//! tests with).

use crate::common::shared_or_skip;
use std::io::Read;
use std::path::Path;

/// Each copy (in this repository) and its original (in `../shared/`).
const VERBATIM: [(&str, &str); 10] = [
    ("tests/data/cases/openpbs.json", "cases/openpbs.json"),
    ("tests/data/cases/slurm_flux.json", "cases/slurm_flux.json"),
    (
        "tests/data/samples/xdmod-pbs-accounting-E-records.log",
        "data/samples/xdmod-pbs-accounting-E-records.log",
    ),
    (
        "tests/data/samples/xdmod-sacct-P-noheader-X.log",
        "data/samples/xdmod-sacct-P-noheader-X.log",
    ),
    (
        "tests/data/samples/xdmod-sacct-P-job-arrays.log",
        "data/samples/xdmod-sacct-P-job-arrays.log",
    ),
    (
        "tests/data/samples/xdmod-sacct-P-pending-running.log",
        "data/samples/xdmod-sacct-P-pending-running.log",
    ),
    (
        "tests/data/samples/flux-core-job-list-returncode.jsonl",
        "data/samples/flux-core-job-list-returncode.jsonl",
    ),
    (
        "tests/data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSeasy4.swf",
        "data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSeasy4.swf",
    ),
    (
        "tests/data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSeasy4.swf.machines",
        "data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSeasy4.swf.machines",
    ),
    (
        "tests/data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSstrict3.swf.machines",
        "data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSstrict3.swf.machines",
    ),
];

fn repo(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn gunzip(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

#[test]
fn copies_of_shared_files_are_byte_for_byte_the_originals() {
    for (copy, original) in VERBATIM {
        let Some(original) = shared_or_skip(original) else {
            return;
        };
        let copied = std::fs::read(repo(copy)).unwrap_or_else(|e| panic!("{copy}: {e}"));
        assert!(
            copied == std::fs::read(&original).unwrap(),
            "{copy} is not {}: copy it again",
            original.display()
        );
    }
}

#[test]
fn the_kth_part_is_the_whole_traces_header_and_first_5000_jobs() {
    let Some(whole) = shared_or_skip("data/traces/KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let whole = gunzip(&whole);
    let mut jobs = 0;
    let expected: String = whole
        .split_inclusive('\n')
        .filter(|l| {
            l.starts_with(';') || {
                jobs += 1;
                jobs <= 5000
            }
        })
        .collect();
    let part = gunzip(&repo(
        "tests/data/traces/KTH-SP2-1996-2.1-cln-first5000.swf.gz",
    ));
    assert!(
        part == expected,
        "the KTH-SP2 part is not the whole trace's first 5,000 jobs"
    );
}
