//! `jobsort fairshare` against what the real programs do:
//! OpenPBS's `pbsfs` (src/scheduler/pbsfs.cpp, fairshare.cpp, parse.cpp) and Slurm's sshare
//! (src/sshare/process.c, src/plugins/priority/multifactor/). Every test drives the binary,
//! so it states the behaviour a user sees.

use jobsort::fairshare::pbs::{ParseOptions, PbsTree};
use jobsort::fairshare::usage_file;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use crate::common;
use common::cli::run;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `jobsort fairshare --resource-group RG --usage USAGE ARGS...`.
fn pbsfs(rg: &Path, usage: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["fairshare", "--resource-group", s(rg), "--usage", s(usage)];
    all.extend_from_slice(args);
    run(&all)
}

/// A resource_group file and a PBS usage file with `usage` for its leaves.
fn pbs_inputs(dir: &Path, rg: &str, usage: &[(&str, f64)]) -> (PathBuf, PathBuf) {
    let rgp = dir.join("resource_group");
    std::fs::write(&rgp, rg).unwrap();
    let (mut t, _) = PbsTree::parse_resource_group(rg, "rg", &ParseOptions::default()).unwrap();
    for &(n, u) in usage {
        t.apply_usage_record(n, u, false);
    }
    t.recompute();
    let up = dir.join("usage");
    usage_file::write_tree(&up, &t).unwrap();
    (rgp, up)
}

/// The records of a v2 usage file, read raw (negative and NaN usage included, which the
/// scheduler itself would skip).
fn raw_records(path: &Path) -> Vec<(String, f64)> {
    let b = std::fs::read(path).unwrap();
    b[32..]
        .chunks(64)
        .map(|r| {
            let n = r[..50].iter().position(|&c| c == 0).unwrap();
            let name = String::from_utf8(r[..n].to_vec()).unwrap();
            (name, f64::from_le_bytes(r[56..64].try_into().unwrap()))
        })
        .collect()
}

/// Item 23. pbsfs.cpp `print_fairshare_entity` prints `ginfo->gpath`; the root's is NULL
/// (fairshare.cpp `preload_tree` never calls `add_child` on it), so nothing follows the label.
#[test]
fn get_treeroot_prints_no_path_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "g 10 root 40\nu 11 g 1\n", &[("u", 50.0)]);
    let (code, out, err) = pbsfs(&rg, &up, &["-g", "TREEROOT"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("usage/perc\t\t: 51\nPath from root: \n"),
        "{out}"
    );
    // Every other node's path starts at the root.
    let (_, out, _) = pbsfs(&rg, &up, &["-g", "u"]);
    assert!(out.contains("Path from root: \nTREEROOT  :     0"), "{out}");
}

/// Item 24. parse.cpp `parse_config`: `float fnum = strtod(config_value, &endp)`, tested
/// `fnum <= 0 || fnum >= 1` and stored; fairshare.cpp `decay_fairshare_tree`:
/// `root->usage *= conf.fairshare_decay_factor` widens that float to double.
#[test]
fn decay_uses_the_float_pbs_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "u 10 root 1\n", &[("u", 5000.0)]);
    let (code, _, err) = pbsfs(&rg, &up, &["--decay-factor", "0.7", "-d"]);
    assert_eq!(code, 0, "{err}");
    let recs = raw_records(&up);
    assert_eq!(recs, vec![("u".to_string(), 3499.999940395355)]);
    assert_eq!(recs[0].1, 5000.0 * (0.7f32 as f64));
    // 0.99999999 is below 1 as a double but rounds to 1.0 as a float: PBS rejects it.
    let (code, _, err) = pbsfs(&rg, &up, &["--decay-factor", "0.99999999", "-d"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("fairshare_decay_factor: Invalid value"),
        "{err}"
    );
}

/// Item 25. pbsfs.cpp `main`, after `write_usage` for FS_WRITE_FILE (-s, -d, -e):
/// `fopen(USAGE_TOUCH, "w")` then `fclose` (config.h: `USAGE_TOUCH` is `USAGE_FILE ".touch"`),
/// creating or emptying `usage.touch`, which a running pbs_sched waits for.
#[test]
fn every_edit_creates_usage_touch() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "u 10 root 1\nv 11 root 1\n", &[("u", 5.0)]);
    let touch = dir.join("usage.touch");
    for edit in [&["-s", "u", "7"][..], &["-d"], &["-e"]] {
        std::fs::write(&touch, b"stale").unwrap();
        let (code, _, err) = pbsfs(&rg, &up, edit);
        assert_eq!(code, 0, "{edit:?}: {err}");
        assert_eq!(
            std::fs::read(&touch).unwrap(),
            b"",
            "{edit:?} empties usage.touch"
        );
        std::fs::remove_file(&touch).unwrap();
    }
    let (code, _, _) = pbsfs(&rg, &up, &["-d"]);
    assert_eq!(code, 0);
    assert!(touch.exists(), "-d creates usage.touch");
    // Reading does not touch; a JSON usage map is no scheduler's file and gets no .touch.
    std::fs::remove_file(&touch).unwrap();
    pbsfs(&rg, &up, &[]);
    assert!(!touch.exists());
    let map = dir.join("usage.json");
    std::fs::write(&map, r#"{"u": 3}"#).unwrap();
    let (code, _, _) = pbsfs(&rg, &map, &["-d"]);
    assert_eq!(code, 0);
    assert!(!dir.join("usage.json.touch").exists());
    assert!(
        dir.join("usage.json.bak").exists(),
        "the map's backup is usage.json.bak"
    );
}

/// Item 8. A writer killed mid-write leaves `.usage.tmp.PID` (and, between backing up and
/// renaming, `.usage.bak.tmp.PID`); the next write removes them and still leaves a `.bak`.
#[test]
fn stale_temporaries_are_cleaned_and_bak_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "u 10 root 1\n", &[("u", 5.0)]);
    let stale = [
        dir.join(".usage.tmp.4194301"),
        dir.join(".usage.bak.tmp.4194302"),
    ];
    for p in &stale {
        std::fs::write(p, vec![0u8; 1 << 20]).unwrap();
    }
    let other = dir.join(".other.tmp.4194303");
    std::fs::write(&other, b"not ours").unwrap();
    let before = std::fs::read(&up).unwrap();
    let (code, _, err) = pbsfs(&rg, &up, &["-s", "u", "9"]);
    assert_eq!(code, 0, "{err}");
    for p in &stale {
        assert!(!p.exists(), "{} removed", p.display());
    }
    assert!(other.exists(), "another file's temporaries are left alone");
    assert_eq!(std::fs::read(usage_file::backup_path(&up)).unwrap(), before);
    assert_eq!(raw_records(&up), vec![("u".to_string(), 9.0)]);
    // A second write replaces the backup with the file it replaces.
    let second = std::fs::read(&up).unwrap();
    let (code, _, _) = pbsfs(&rg, &up, &["-d"]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(usage_file::backup_path(&up)).unwrap(), second);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp."))
        .collect();
    assert_eq!(
        names,
        [".other.tmp.4194303"],
        "no temporary of ours is left"
    );
}

/// `fairshare -s` under a umask (`sh -c 'umask U; exec jobsort ...'`).
fn pbsfs_umask(umask: &str, rg: &Path, usage: &Path, args: &[&str]) -> (i32, String) {
    let mut all = vec![
        "-c",
        r#"umask "$0"; shift; exec "$@""#,
        umask,
        "x",
        env!("CARGO_BIN_EXE_jobsort"),
        "fairshare",
        "--resource-group",
        s(rg),
        "--usage",
        s(usage),
    ];
    all.extend_from_slice(args);
    let out = std::process::Command::new("sh")
        .args(&all)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), err)
}

/// pbsfs rewrites the usage file in place (OpenPBS `src/scheduler/fairshare.cpp`,
/// `write_usage`: `fopen(filename, "wb")`), so the file keeps its owner and mode and a
/// symbolic link keeps pointing at it; a new file is 0666 less the umask, as `fopen` creates
/// it. jobsort's atomic rename keeps the same, whatever the umask.
#[test]
fn a_rewritten_usage_file_keeps_its_owner_mode_and_link() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (rg, up) = pbs_inputs(dir, "u 10 root 1\n", &[("u", 5.0)]);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o7777;
    std::fs::set_permissions(&up, std::fs::Permissions::from_mode(0o600)).unwrap();
    for umask in ["022", "000"] {
        let (code, err) = pbsfs_umask(umask, &rg, &up, &["-s", "u", "9"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(mode(&up), 0o600, "umask {umask}");
        assert_eq!(mode(&usage_file::backup_path(&up)), 0o600, "umask {umask}");
    }
    assert_eq!(raw_records(&up), vec![("u".to_string(), 9.0)]);
    // A new file: 0666 less the umask.
    for (umask, want) in [("022", 0o644), ("000", 0o666), ("077", 0o600)] {
        let fresh = dir.join(format!("usage-{umask}"));
        let (code, err) = pbsfs_umask(umask, &rg, &fresh, &["-s", "u", "1"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(mode(&fresh), want, "umask {umask}");
    }
    // A symbolic link: written through to its target, with the backup beside the target.
    let real = dir.join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::rename(&up, real.join("usage")).unwrap();
    std::os::unix::fs::symlink("real/usage", &up).unwrap();
    let (code, _, err) = pbsfs(&rg, &up, &["-s", "u", "7"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::symlink_metadata(&up)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        raw_records(&real.join("usage")),
        vec![("u".to_string(), 7.0)]
    );
    assert_eq!(
        raw_records(&real.join("usage.bak")),
        vec![("u".to_string(), 9.0)]
    );
    assert_eq!(mode(&real.join("usage")), 0o600);
    // The owner: only root can give a file away.
    if unsafe { libc::geteuid() } != 0 {
        println!("skipped the owner check: it needs root to make a file owned by another user");
        return;
    }
    let target = real.join("usage");
    std::os::unix::fs::chown(&target, Some(65534), Some(65534)).unwrap();
    let (code, _, err) = pbsfs(&rg, &up, &["-s", "u", "8"]);
    assert_eq!(code, 0, "{err}");
    let m = std::fs::metadata(&target).unwrap();
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (65534, 65534, 0o600));
}

/// Item 20. `--format json` is a JSON object for `-c` and a nested tree for `-t`.
#[test]
fn compare_and_tree_json_are_objects() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(
        &dir,
        "g 10 root 40\na 11 g 1\nb 12 g 1\nh 20 root 60\n",
        &[("a", 50.0), ("b", 10.0)],
    );
    let base = [
        "fairshare",
        "--resource-group",
        s(&rg),
        "--usage",
        s(&up),
        "--format",
        "json",
    ];
    let mut args = base.to_vec();
    args.extend_from_slice(&["-c", "a", "b"]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!({"entities": ["a", "b"], "more_deserving": "b", "equal": false})
    );
    let mut args = base.to_vec();
    args.extend_from_slice(&["-c", "a", "a"]);
    let v: Value = serde_json::from_str(&run(&args).1).unwrap();
    assert_eq!(v["more_deserving"], Value::Null);
    assert_eq!(v["equal"], true);
    let mut args = base.to_vec();
    args.push("-t");
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let root = &v["tree"];
    assert_eq!(root["name"], "TREEROOT");
    let kids: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        kids,
        ["h", "g", "unknown"],
        "pbsfs's order: last added first"
    );
    assert_eq!(root["children"][1]["children"][0]["name"], "b");
    assert_eq!(root["children"][1]["children"][0]["children"], json!([]));
    assert_eq!(root["children"][1]["id"], 10);
}

fn chain_json(depth: usize) -> String {
    let mut nodes = Vec::with_capacity(depth + 1);
    let mut parent = "root".to_string();
    for k in 0..depth {
        let name = format!("a{k}");
        nodes.push(json!({"name": name, "parent": parent, "kind": "account", "shares": 1}));
        parent = name;
    }
    nodes.push(json!({"name": "alice", "parent": parent, "kind": "user", "usage": 10}));
    nodes.push(json!({"name": "bob", "parent": "root", "kind": "user", "usage": 5}));
    json!({ "nodes": nodes }).to_string()
}

/// Item 3. Deep chains: every tree walk is iterative, and the indented text outputs, whose
/// size grows with the square of the depth, refuse trees deeper than 1000 levels.
#[test]
fn deep_chains_neither_overflow_nor_flood() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let tree = dir.join("chain.json");
    std::fs::write(&tree, chain_json(40_000)).unwrap();
    for alg in ["slurm-fairtree", "slurm-classic", "flux"] {
        let (code, out, err) = run([
            "fairshare",
            "--fairshare-tree",
            s(&tree),
            "--algorithm",
            alg,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{alg}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["entities"].as_array().unwrap().len(), 40_003, "{alg}");
        let (code, out, err) = run([
            "fairshare",
            "--fairshare-tree",
            s(&tree),
            "--algorithm",
            alg,
        ]);
        if alg == "flux" {
            assert_eq!(code, 0, "flux rows are not indented: {err}");
        } else {
            assert_eq!(code, 1, "{alg}");
            assert!(out.is_empty());
            assert!(err.contains("40001 levels deep"), "{err}");
        }
    }
    let (code, _, err) = run([
        "rank",
        "ncpus + fairshare_factor",
        "--jobs",
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/jobs.json"),
        "--fairshare-tree",
        s(&tree),
    ]);
    assert_eq!(code, 0, "{err}");
    // PBS: -t on a 20,000-level resource_group would print 1 GB (5 columns per level).
    let mut rg = String::from("g0 1 root 1\n");
    for k in 1..20_000 {
        rg.push_str(&format!("g{k} {} g{} 1\n", k + 1, k - 1));
    }
    let rgp = dir.join("resource_group");
    std::fs::write(&rgp, rg).unwrap();
    let (code, out, err) = run(["fairshare", "--resource-group", s(&rgp), "-t"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("20000 levels deep") && err.contains("1000"),
        "{err}"
    );
    let (code, out, err) = run([
        "fairshare",
        "--resource-group",
        s(&rgp),
        "-t",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() < 2_000_000, "{} bytes", out.len());
    let (code, out, _) = run(["fairshare", "--resource-group", s(&rgp), "-g", "g19999"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 9 + 20_001);
}

/// Item 26. fairshare.cpp `parse_group`: `fgets(buf, 256, fp)`, only `\n` removed,
/// `strtok(buf, " \t")`, `shares = strtol(sharestok, &endp, 10)` with `*endp == '\0'`, stored
/// in an `int`; pbsfs.cpp prints names with `%-10s` (bytes). `--lenient` reads as PBS does;
/// strict mode fails and says what PBS would have done.
#[test]
fn lenient_reads_resource_group_as_pbs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let rg = dir.join("resource_group");
    let run = |text: &str, lenient: bool| {
        std::fs::write(&rg, text).unwrap();
        let mut args = vec!["fairshare", "--resource-group", s(&rg)];
        if lenient {
            args.push("--lenient");
        }
        run(&args)
    };
    // CRLF: `10\r` is not a number to strtol, so PBS rejects every line.
    let crlf = "a 10 root 10\r\nb 20 root 30\r\n";
    let (code, _, err) = run(crlf, false);
    assert_eq!(code, 1);
    assert!(
        err.contains(":1: shares `10\\r` of a is not an integer")
            && err.contains("carriage return"),
        "{err}"
    );
    let (code, out, err) = run(crlf, true);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("resgroup: error on line 1.") && err.contains("resgroup: error on line 2."),
        "{err}"
    );
    assert_eq!(out.lines().count(), 3, "only TREEROOT and unknown: {out}");
    // A line over 255 bytes is read as two lines; here the second holds another entity.
    let long = format!("a 10 root 10{}b 20 root 5\n", " ".repeat(250));
    let (code, _, err) = run(&long, false);
    assert_eq!(code, 1);
    assert!(
        err.contains(":1: line is 273 bytes") && err.contains("255"),
        "{err}"
    );
    let (code, out, err) = run(&long, true);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\nb         : Grp: 0      cgrp: 20   Shares: 5 "),
        "{out}"
    );
    assert!(
        out.contains("\na         : Grp: 0      cgrp: 10   Shares: 10 "),
        "{out}"
    );
    // Shares above INT_MAX: strtol reads the long, the int keeps its low 32 bits.
    let (code, _, err) = run("a 10 root 3000000000\n", false);
    assert_eq!(code, 1);
    assert!(err.contains("-1294967296"), "{err}");
    let (code, out, _) = run(
        "a 10 root 3000000000\nb 11 root 99999999999999999999\n",
        true,
    );
    assert_eq!(code, 0);
    assert!(out.contains("Shares: -1294967296 "), "{out}");
    assert!(
        out.contains("\nb         : Grp: 0      cgrp: 11   Shares: -1     "),
        "{out}"
    );
    // `%-10s` pads bytes: a 2-byte character takes two columns of the ten.
    let (code, out, err) = run("\u{e9}t\u{e9} 10 root 1\n", true);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\n\u{e9}t\u{e9}     : Grp: 0"), "{out}");
    let (code, _, err) = run("\u{e9}t\u{e9} 10 root 1\n", false);
    assert_eq!(code, 1);
    assert!(err.contains("Invalid entity"), "{err}");
}

/// Item 26. pbsfs.cpp `main` for `-s`: `val = strtod(testp, &endp); if (*endp == '\0')
/// ginfo->usage = val;` — and the file is rewritten either way.
#[test]
fn lenient_set_reads_values_with_strtod() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "u 10 root 1\n", &[("u", 5.0)]);
    let set = |val: &str, lenient: bool| {
        let mode = if lenient {
            "--lenient"
        } else {
            "--format=text"
        };
        pbsfs(&rg, &up, &[mode, "-s", "u", val])
    };
    for (val, want) in [
        ("0x10", 16.0),
        (" 5", 5.0),
        ("1e3", 1000.0),
        ("inf", f64::INFINITY),
        ("", 0.0),
    ] {
        let (code, _, err) = set(val, true);
        assert_eq!(code, 0, "{val:?}: {err}");
        assert_eq!(raw_records(&up), vec![("u".to_string(), want)], "{val:?}");
    }
    // A value that starts with `-` goes after `--`, as with getopt.
    for (val, want) in [("-5", -5.0), ("-0x8", -8.0)] {
        let (code, _, err) = pbsfs(&rg, &up, &["--lenient", "-s", "u", "--", val]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(raw_records(&up), vec![("u".to_string(), want)]);
    }
    // (Strict mode would now refuse the file: a record with negative usage.)
    let (code, _, err) = pbsfs(&rg, &up, &["-s", "u", "0"]);
    assert_eq!(code, 1);
    assert!(err.contains("Invalid entity"), "{err}");
    let (code, _, _) = pbsfs(&rg, &up, &["--lenient", "-s", "u", "0"]);
    assert_eq!(code, 0);
    // Not read whole: usage unchanged, the file still rewritten (and touched).
    std::fs::remove_file(dir.join("usage.touch")).unwrap();
    let (code, _, err) = set("7x", true);
    assert_eq!(code, 0);
    assert!(err.contains("unchanged"), "{err}");
    assert_eq!(raw_records(&up), vec![("u".to_string(), 0.0)]);
    assert!(dir.join("usage.touch").exists());
    for (val, says) in [
        ("0x10", "strtod as 16"),
        (" 5", "strtod as 5"),
        ("inf", "infinite"),
        ("7x", "rewrites the usage file unchanged"),
    ] {
        let before = std::fs::read(&up).unwrap();
        let (code, _, err) = set(val, false);
        assert_eq!(code, 1, "{val:?}");
        assert!(err.contains(says), "{val:?}: {err}");
        assert_eq!(
            std::fs::read(&up).unwrap(),
            before,
            "{val:?}: strict leaves the file"
        );
    }
}

/// `pbsfs -s alice -0` fails: pbsfs.cpp `main` reads its arguments with `getopt(argc, argv,
/// "sgptdceI:-:")`, which takes `-0` for an option (glibc: `invalid option -- '0'`), and then
/// has one operand where `-s` needs two ("Usage: pbsfs [-I sched_name] -s <fairshare_entity>
/// <usage>", exit 1). So does `-5`; after `--` both are usages. Strict or lenient, the usage
/// file is left as it was.
#[test]
fn set_value_starting_with_a_dash_is_options_as_pbsfs_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (rg, up) = pbs_inputs(&dir, "u 10 root 1\n", &[("u", 5.0)]);
    for mode in ["--lenient", "--format=text"] {
        for (val, says) in [
            ("-0", "(pbsfs: invalid option -- '0')"),
            ("-5", "(pbsfs: invalid option -- '5')"),
            (
                "-0.5",
                "(pbsfs: invalid option -- '0', invalid option -- '.', invalid option -- '5')",
            ),
        ] {
            let before = std::fs::read(&up).unwrap();
            let (code, _, err) = pbsfs(&rg, &up, &[mode, "-s", "u", val]);
            assert_eq!(code, 2, "{mode} {val}: {err}");
            assert!(err.contains(says), "{mode} {val}: {err}");
            assert!(err.contains(&format!("-s u -- {val}")), "{err}");
            assert_eq!(std::fs::read(&up).unwrap(), before, "{mode} {val}");
        }
    }
    let (code, _, err) = pbsfs(&rg, &up, &["--lenient", "-s", "u", "--", "-0"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(raw_records(&up), vec![("u".to_string(), -0.0)]);
}

/// A classic (`PriorityFlags=NO_FAIR_TREE`) `sshare -a -l -P` capture: no LevelFS column.
const CLASSIC: &str = "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|GrpTRESMins|TRESRunMins
root|||1.000000|45||1.000000|0.500000||cpu=0
 A||40|0.400000|20|0.444444|0.444444|0.462937||cpu=0
  A|u1|1|0.400000|20|0.444444|0.444444|0.462937||cpu=0
 B||60|0.600000|25|0.555556|0.555556|0.526558||cpu=0
  B|u2|1|0.600000|25|0.555556|0.555556|0.526558||cpu=0
";

/// Item 27. sshare/process.c `process`, PRINT_FSFACTOR: without Fair Tree every row prints
/// `priority_g_calc_fs_factor(usage_efctv, shares_norm)` (priority_multifactor.c:
/// `pow(2.0, -((usage_efctv/shares_norm) / damp_factor))`); assoc_mgr.c
/// `_normalize_assoc_shares_traditional` starts each NormShares at 1.0, so the root's is 1.
#[test]
fn classic_rows_match_sshare_and_captures_say_their_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let cap = dir.join("sshare.txt");
    std::fs::write(&cap, CLASSIC).unwrap();
    let (code, out, err) = run(["fairshare", "--sshare", s(&cap)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "the mode is known from the columns: {err}");
    let fs = |u: f64, sh: f64| format!("{:.6}", 2f64.powf(-(u / 45.0) / sh));
    let want = format!(
        "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare\n\
         root|||1.000000|45||1.000000|0.500000\n \
         A||40|0.400000|20|0.444444|0.444444|{a}\n  \
         A|u1|1|0.400000|20|0.444444|0.444444|{a}\n \
         B||60|0.600000|25|0.555556|0.555556|{b}\n  \
         B|u2|1|0.600000|25|0.555556|0.555556|{b}\n",
        a = fs(20.0, 0.4),
        b = fs(25.0, 0.6)
    );
    assert_eq!(out, want);
    // The short format has no NormUsage; the root's FairShare tells (empty under Fair Tree).
    for (root_fs, header_has_levelfs) in [("0.500000", false), ("", true)] {
        std::fs::write(
            &cap,
            format!(
                "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n\
                 root|||1.000000|45|1.000000|{root_fs}\n A||40|0.4|20|0.4|\n  A|u1|1|0.4|20|0.4|0.5\n"
            ),
        )
        .unwrap();
        let (code, out, err) = run(["fairshare", "--sshare", s(&cap)]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out.lines().next().unwrap().ends_with("|LevelFS"),
            header_has_levelfs,
            "{out}"
        );
    }
    // Nothing tells: Fair Tree is assumed, and said.
    std::fs::write(
        &cap,
        "Account|User|RawShares|RawUsage\nroot|||45\n A||40|20\n  A|u1|1|20\n",
    )
    .unwrap();
    let (code, _, err) = run(["fairshare", "--sshare", s(&cap)]);
    assert_eq!(code, 0);
    assert!(
        err.contains("assuming") && err.contains("Fair Tree"),
        "{err}"
    );
}

/// Item 27. fair_tree.c `_calc_tree_fs` sorts each sibling set with `qsort(..., _cmp_level_fs)`:
/// exactly tied accounts keep Slurm's list order, which `--slurm-tie-order` gives.
#[test]
fn fair_tree_tie_order_is_an_option() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let p = dir.join("t.json");
    let mut nodes = vec![
        json!({"name": "a", "parent": "root", "kind": "account"}),
        json!({"name": "b", "parent": "root", "kind": "account"}),
    ];
    for (u, acct, usage) in [
        ("a1", "a", 10),
        ("a2", "a", 30),
        ("b1", "b", 10),
        ("b2", "b", 30),
    ] {
        nodes.push(json!({"name": u, "parent": acct, "kind": "user", "usage": usage}));
    }
    std::fs::write(&p, json!({ "nodes": nodes }).to_string()).unwrap();
    let factors = |extra: &[&str]| -> Vec<f64> {
        let mut args = vec!["fairshare", "--fairshare-tree", s(&p), "--format", "json"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        ["a1", "a2", "b1", "b2"]
            .iter()
            .map(|n| {
                v["entities"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["name"] == *n)
                    .unwrap()["fairshare_factor"]
                    .as_f64()
                    .unwrap()
            })
            .collect()
    };
    assert_eq!(factors(&[]), [1.0, 0.75, 0.75, 0.25]);
    assert_eq!(
        factors(&["--slurm-tie-order", "reverse"]),
        [0.75, 0.25, 1.0, 0.75]
    );
    assert_eq!(
        factors(&["--slurm-tie-order", "b,a"]),
        [0.75, 0.25, 1.0, 0.75]
    );
    let (code, _, err) = run([
        "fairshare",
        "--fairshare-tree",
        s(&p),
        "--slurm-tie-order",
        "a,zz",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("`zz` is not"), "{err}");
}

/// Item 22. Every `$ jobsort fairshare ...` example in the README and the CLI reference
/// (`docs/cli.md`) is the program's output, byte for byte (run from the repository root, as
/// written).
#[test]
fn readme_fairshare_examples_are_real_output() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = ["README.md", "docs/cli.md"]
        .map(|f| std::fs::read_to_string(Path::new(root).join(f)).unwrap())
        .join("\n");
    let mut examples = 0;
    let mut lines = readme.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(cmd) = line.strip_prefix("$ jobsort fairshare ") else {
            continue;
        };
        let mut want = String::new();
        while let Some(next) = lines.peek() {
            if next.starts_with("$ ") || next.starts_with("```") {
                break;
            }
            want.push_str(next);
            want.push('\n');
            lines.next();
        }
        let mut args = vec!["fairshare"];
        args.extend(cmd.split_whitespace());
        let o = common::cli::command(&args)
            .current_dir(root)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{cmd}");
        assert_eq!(
            String::from_utf8(o.stdout).unwrap(),
            want,
            "README: $ jobsort fairshare {cmd}"
        );
        examples += 1;
    }
    assert!(examples >= 3, "{examples} examples");
}
