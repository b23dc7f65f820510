//! The C ABI from C: builds `examples/c/scheduler.c`, `examples/c/bad_args.c` and
//! `examples/c/call_cost.c` with gcc
//! against the generated `include/jobsort.h` and the library cargo just built (the staticlib,
//! and the cdylib for the scheduler), runs them and checks their output — so the header, the
//! library and the examples cannot drift apart. The scheduler's values must equal the Rust
//! API's bit for bit.

use jobsort::rank::{RankOptions, TieBreak, rank};
use jobsort::{Catalog, Formula, JobTable};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");
const FORMULA: &str = "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus";
/// What the Rust standard library needs when linking a Rust staticlib into a C program
/// (`rustc --print native-static-libs` on Linux).
const NATIVE_LIBS: &[&str] = &[
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

/// Where cargo put the library it built for this test run: this test binary lives in
/// `target/<profile>/deps/`, and `cargo test` builds the library's staticlib and cdylib there
/// in the same rustc run as the rlib the tests link (only `cargo build` copies them up to
/// `target/<profile>/`, so that copy may be stale and is only a fallback).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("target/<profile>/deps").to_path_buf();
    let has_libs = |dir: &Path| {
        ["libjobsort.a", "libjobsort.so"]
            .iter()
            .all(|l| dir.join(l).is_file())
    };
    if has_libs(&deps) {
        return deps;
    }
    let profile = deps.parent().expect("target/<profile>").to_path_buf();
    assert!(
        has_libs(&profile),
        "libjobsort.a / libjobsort.so not found in {} or {}: cargo builds them with the tests \
         (crate-type staticlib + cdylib)",
        deps.display(),
        profile.display()
    );
    profile
}

/// Build `examples/c/<name>.c` into `out_dir`, linked statically (the `.a`) or dynamically.
fn build_c(name: &str, out_dir: &Path, dynamic: bool) -> PathBuf {
    let lib = library_dir();
    let exe = out_dir.join(if dynamic {
        format!("{name}_dyn")
    } else {
        name.to_string()
    });
    let mut cmd = Command::new("gcc");
    cmd.args([
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-O1",
    ])
    .arg(format!("-I{MANIFEST_DIR}/include"))
    .arg(format!("{MANIFEST_DIR}/examples/c/{name}.c"))
    .arg("-o")
    .arg(&exe);
    if dynamic {
        cmd.arg(format!("-L{}", lib.display()))
            .arg("-ljobsort")
            // DT_RPATH (not RUNPATH): found before any LD_LIBRARY_PATH, which `cargo test`
            // points at target/<profile>, where a stale copy of the library may sit.
            .arg("-Wl,--disable-new-dtags")
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .arg("-lm");
    } else {
        cmd.arg(lib.join("libjobsort.a")).args(NATIVE_LIBS);
    }
    let out = cmd
        .output()
        .expect("gcc runs (gcc is required by the C ABI tests)");
    assert!(
        out.status.success(),
        "gcc failed on {name}.c:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .current_dir(MANIFEST_DIR)
        .env_remove("LD_LIBRARY_PATH")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `examples/c/jobs.txt` read the Rust way: ids, submit times and a table of the other
/// numeric columns.
fn jobs_file() -> (Vec<String>, Vec<f64>, JobTable) {
    let src =
        std::fs::read_to_string(format!("{MANIFEST_DIR}/examples/c/jobs.txt")).expect("jobs.txt");
    let mut lines = src
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("header").split_whitespace().collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let ids = rows.iter().map(|r| r[col("id")].to_string()).collect();
    let numbers =
        |k: usize| -> Vec<f64> { rows.iter().map(|r| r[k].parse().expect("number")).collect() };
    let submit = numbers(col("submit"));
    let mut table = JobTable::new(rows.len());
    for (k, name) in header.iter().enumerate() {
        if *name != "id" && *name != "submit" {
            table.set_column(name, numbers(k)).expect("same length");
        }
    }
    (ids, submit, table)
}

#[test]
fn scheduler_example_ranks_like_the_rust_api_bit_for_bit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let static_exe = build_c("scheduler", dir.path(), false);
    let dynamic_exe = build_c("scheduler", dir.path(), true);

    // The Rust API's answer.
    let (ids, submit, table) = jobs_file();
    let formula = Formula::compile(FORMULA, &Catalog::pbs()).expect("the example formula compiles");
    let evaluation = formula.evaluate(&table);
    let ranked = rank(
        &evaluation.values,
        TieBreak {
            submit: Some(&submit),
            ..TieBreak::default()
        },
        &RankOptions::default(),
    );

    for exe in [&static_exe, &dynamic_exe] {
        let out = run(exe, &["examples/c/jobs.txt"]);
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{} failed:\n{stdout}{}",
            exe.display(),
            text(&out.stderr)
        );
        let mut lines = stdout.lines();
        assert_eq!(
            lines.next(),
            Some(format!("# jobsort {}: {FORMULA}", env!("CARGO_PKG_VERSION")).as_str())
        );
        assert_eq!(lines.next(), Some("# rank id value"));
        let rows: Vec<&str> = lines.collect();

        // The order, worked out by hand: 103 (934.03), 105 and 101 tie at 761.86 (105 was
        // submitted first), 102 (266), 106 (64.5), 104 (0: its entity has no shares, 0/0).
        let order: Vec<&str> = rows
            .iter()
            .map(|r| r.split(' ').nth(1).unwrap_or(""))
            .collect();
        assert_eq!(
            order,
            [
                "103.pbs", "105.pbs", "101.pbs", "102.pbs", "106.pbs", "104.pbs"
            ]
        );
        assert!(
            rows[5].ends_with(" 0 error: float division by zero"),
            "{}",
            rows[5]
        );

        // Every value equal to the Rust API's, bit for bit (%.17g round-trips exactly).
        assert_eq!(rows.len(), ranked.len());
        for (r, (row, expected)) in rows.iter().zip(&ranked).enumerate() {
            let fields: Vec<&str> = row.split(' ').collect();
            assert_eq!(fields[0], (r + 1).to_string());
            assert_eq!(fields[1], ids[expected.index]);
            let value: f64 = fields[2].parse().expect("value");
            assert_eq!(value.to_bits(), expected.value.to_bits(), "{row}");
            match evaluation.error(expected.index) {
                Some(e) => assert_eq!(fields[3..].join(" "), format!("error: {}", e.message())),
                None => assert_eq!(fields.len(), 3, "{row}"),
            }
        }
    }
}

#[test]
fn scheduler_example_reports_formula_errors_and_bad_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = build_c("scheduler", dir.path(), false);

    let out = run(&exe, &["examples/c/jobs.txt", "ncpus * bogus_name"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("jobsort: jobsort_compile: the formula has errors"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error[E") && stderr.contains(" at 8..18: "),
        "{stderr}"
    );

    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "id ncpus\n1 4\n2 four\n").expect("write");
    let out = run(&exe, &[bad.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("bad.txt:3: column `ncpus`: `four` is not a number"));

    // A column the formula reads but the file lacks is 0 for every job (PBS).
    let partial = dir.path().join("partial.txt");
    std::fs::write(&partial, "id ncpus\na 4\nb 8\n").expect("write");
    let out = run(
        &exe,
        &[partial.to_str().expect("utf-8 path"), "ncpus + walltime"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("has no column `walltime`: 0 for every job"));
    assert!(
        text(&out.stdout).ends_with("1 b 8\n2 a 4\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_arguments_from_c_are_error_codes_never_crashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = build_c("bad_args", dir.path(), false);
    let out = run(&exe, &[]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "bad_args failed ({:?}):\n{stdout}{}",
        out.status,
        text(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.starts_with("bad_args: ") && last.ends_with(" passed, 0 failed"),
        "{stdout}"
    );
    let passed: usize = last["bad_args: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 130, "only {passed} checks ran:\n{stdout}");
}

/// The call-cost measurement builds and runs (with few calls: its numbers are for release
/// builds, `examples/c/call_cost.c` says how).
#[test]
fn call_cost_example_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = build_c("call_cost", dir.path(), false);
    let out = run(&exe, &["2000", "100"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(stdout.contains("jobsort_eval, 100 jobs: "), "{stdout}");
}

/// Every `extern "C"` function of src/capi/ is declared in the checked-in header (build.rs
/// regenerates it; this catches a generation failure that was only a warning).
#[test]
fn header_declares_every_entry_point() {
    let dir = format!("{MANIFEST_DIR}/src/capi");
    let mut src = String::new();
    for file in std::fs::read_dir(&dir).expect("src/capi/") {
        let path = file.expect("src/capi/ entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            src += &std::fs::read_to_string(&path).expect("src/capi/*.rs");
        }
    }
    let header =
        std::fs::read_to_string(format!("{MANIFEST_DIR}/include/jobsort.h")).expect("jobsort.h");
    let mut names = Vec::new();
    for line in src.lines() {
        let line = line.trim_start();
        for prefix in ["pub extern \"C\" fn ", "pub unsafe extern \"C\" fn "] {
            if let Some(rest) = line.strip_prefix(prefix) {
                names.push(rest.split('(').next().unwrap_or("").to_string());
            }
        }
    }
    assert!(names.len() >= 20, "found only {names:?}");
    for name in &names {
        let declared = [" ", "*"]
            .iter()
            .any(|before| header.contains(&format!("{before}{name}(")));
        assert!(declared, "include/jobsort.h lacks {name}");
    }
    for ty in [
        "typedef struct JobsortFormula JobsortFormula;",
        "JOBSORT_STATUS_NO_JOBS = 7",
        "JOBSORT_STATUS_OUT_OF_MEMORY = 12",
        "#define JOBSORT_COMPILE_INTERP 1",
    ] {
        assert!(header.contains(ty), "include/jobsort.h lacks {ty}");
    }
}
