//! PBS fairshare conformance: every `fairshare_values` case and the fairshare `job_order`
//! cases of `tests/data/cases/openpbs.json`, driven from the file. Values are compared as PBS
//! prints them (`%f` of the float32 fields), `pbsfs` output byte for byte through the
//! `jobsort fairshare` binary.

use jobsort::fairshare::inputs::{EntityKind, Fairshare};
use jobsort::fairshare::pbs::{ParseOptions, PbsTree};
use jobsort::fairshare::usage_file;
use jobsort::jobs::{Job, JobSet};
use jobsort::rank::{RankOptions, TieBreak, rank};
use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common;
use common::cli::run;

const CASES: &str = crate::common::OPENPBS;

fn cases(kind: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(CASES).expect("read openpbs.json");
    let all: Vec<Value> = serde_json::from_str(&text).expect("parse openpbs.json");
    all.into_iter().filter(|c| c["kind"] == kind).collect()
}

fn rows_text(rows: &Value) -> String {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let r = r.as_array().unwrap();
            format!(
                "{}\t{}\t{}\t{}\n",
                r[0].as_str().unwrap(),
                r[1],
                r[2].as_str().unwrap(),
                r[3]
            )
        })
        .collect()
}

/// The resource_group text of a case (`resource_group` text or `(name,id,parent,shares)` rows).
fn resource_group(input: &Value) -> Option<String> {
    if let Some(t) = input["resource_group"].as_str() {
        return Some(t.to_string() + "\n");
    }
    input
        .get("resource_group_rows(name,id,parent,shares)")
        .map(rows_text)
}

fn tree_of(input: &Value) -> PbsTree {
    let text = resource_group(input).unwrap();
    let opts = ParseOptions {
        unknown_shares: input["unknown_shares"].as_i64().unwrap_or(0) as i32,
        lenient: false,
    };
    let (mut t, w) = PbsTree::parse_resource_group(&text, "resource_group", &opts).unwrap();
    assert!(w.is_empty());
    if let Some(u) = input["usage_file_leaves"].as_object() {
        for (n, v) in u {
            t.apply_usage_record(n, v.as_f64().unwrap(), false);
        }
    }
    t.recompute();
    t
}

/// Write the case's resource_group and a PBS binary usage file; return their paths.
fn write_inputs(dir: &Path, t: &PbsTree, rg: &str) -> (PathBuf, PathBuf) {
    let rgp = dir.join("resource_group");
    std::fs::write(&rgp, rg).unwrap();
    let up = dir.join("usage");
    usage_file::write_tree(&up, t).unwrap();
    (rgp, up)
}

#[test]
fn fairshare_values_cases() {
    let mut entity_checks = 0;
    let mut pbsfs_checks = 0;
    for c in cases("fairshare_values") {
        let input = &c["input"];
        let exp = &c["expected"];
        let src = c["source"].as_str().unwrap();
        if src.ends_with("test_pbsfs_invalid_sched") {
            // `pbsfs -I sched` asks a PBS server for another scheduler's sched_priv; jobsort
            // has no server and reads files given on the command line. Deliberate difference:
            // `-I` is not an option (a usage error), so no scheduler can "not exist".
            assert_eq!(exp["stderr_first_line"], "Scheduler foo does not exist");
            let (code, _, _) = run(["fairshare", "-I", "foo"]);
            assert_eq!(code, 2);
            continue;
        }
        if let Some(per) = input["per_sched"].as_object() {
            // test_multi_fairshare: each scheduler has its own tree and usage.
            for (sched, spec) in per {
                let text = rows_text(&spec["rows"]);
                let (mut t, _) =
                    PbsTree::parse_resource_group(&text, "rg", &ParseOptions::default()).unwrap();
                t.apply_usage_record("pbsuser", spec["usage"].as_f64().unwrap(), false);
                t.recompute();
                let want = &exp["pbsfs_node_id10"][sched];
                let n = t.node(t.find("pbsuser").unwrap());
                assert_eq!(n.cresgroup, 10);
                assert_eq!(n.shares as i64, want["nshares"].as_i64().unwrap());
                assert_eq!(n.usage, want["usage"].as_f64().unwrap());
            }
            continue;
        }
        let t = tree_of(input);
        let rg = resource_group(input).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let (rgp, up) = write_inputs(&dir, &t, &rg);
        let (rgs, ups) = (rgp.to_str().unwrap(), up.to_str().unwrap());
        if input["command"] == "pbsfs -d" {
            let (code, _, err) = run([
                "fairshare",
                "--resource-group",
                rgs,
                "--usage",
                ups,
                "--decay-factor",
                &input["fairshare_decay_factor"].to_string(),
                "-d",
            ]);
            assert_eq!(code, 0, "{err}");
            assert!(usage_file::backup_path(&up).exists(), "-d keeps usage.bak");
            let (uf, _) = usage_file::read_path(&up, false).unwrap();
            for (n, v) in exp["usage_after"].as_object().unwrap() {
                let got = uf.records.iter().find(|r| &r.0 == n).unwrap().1;
                assert_eq!(got, v.as_f64().unwrap(), "{n}");
            }
            continue;
        }
        for (name, want) in exp["entities"].as_object().unwrap() {
            let i = t.find(name).unwrap();
            let v = t.values(i);
            assert_eq!(
                format!("{:.6}", v.fairshare_perc),
                want["fairshare_perc"],
                "{src} {name}"
            );
            assert_eq!(
                format!("{:.6}", v.fairshare_tree_usage),
                want["fairshare_tree_usage"],
                "{src} {name}"
            );
            assert_eq!(
                format!("{:.6}", v.fairshare_factor),
                want["fairshare_factor"],
                "{src} {name}"
            );
            assert_eq!(
                t.node(i).usage,
                want["usage"].as_f64().unwrap(),
                "{src} {name}"
            );
            entity_checks += 1;
        }
        if let Some(lines) = exp["pbsfs_p"].as_array() {
            let want: String = lines
                .iter()
                .map(|l| l.as_str().unwrap().to_string() + "\n")
                .collect();
            let (code, out, err) =
                run(["fairshare", "--resource-group", rgs, "--usage", ups, "-p"]);
            assert_eq!(code, 0, "{err}");
            assert_eq!(out, want, "{src}");
            // -p is the default
            let (_, out2, _) = run(["fairshare", "--resource-group", rgs, "--usage", ups]);
            assert_eq!(out2, want);
            pbsfs_checks += 1;
        }
        if let Some(cmp) = exp.get("pbsfs_c") {
            let a: Vec<&str> = cmp["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            let (code, out, _) = run([
                "fairshare",
                "--resource-group",
                rgs,
                "--usage",
                ups,
                "-c",
                a[0],
                a[1],
            ]);
            assert_eq!(code, 0);
            assert_eq!(out, format!("{}\n", cmp["stdout"].as_str().unwrap()));
        }
    }
    assert_eq!(entity_checks, 10);
    assert_eq!(pbsfs_checks, 3);
}

const MAN_RG: &str = "group1\t10\troot\t40\ngroup2\t20\troot\t60\npbsuser\t11\tgroup1\t50\npbsuser1\t12\tgroup1\t50\npbsuser2\t21\tgroup2\t60\npbsuser3\t22\tgroup2\t40\n";

/// The pbsfs man page's example (and the seed example: Bob = pbsuser 0.125 / 0.648, Suzy =
/// pbsuser2 0.5 / 0.382): `-g` and `-t` output byte for byte as pbsfs.cpp prints them.
#[test]
fn man_page_example_g_and_t() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let rg = dir.join("resource_group");
    std::fs::write(&rg, MAN_RG).unwrap();
    let usage = dir.join("usage.json");
    std::fs::write(
        &usage,
        r#"{"pbsuser": 100, "pbsuser1": 100, "pbsuser3": 1000}"#,
    )
    .unwrap();
    let (rgs, us) = (rg.to_str().unwrap(), usage.to_str().unwrap());
    let (code, out, _) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        us,
        "-g",
        "pbsuser3",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "fairshare entity: pbsuser3\nResgroup\t\t: 20\ncresgroup\t\t: 22\nShares\t\t\t: 40\n\
         Percentage\t\t: 24.000000%\nfairshare_tree_usage\t: 0.832973\nusage\t\t\t: 1000 (cput)\n\
         usage/perc\t\t: 4167\nPath from root: \n\
         TREEROOT  :     0       1201 / 1.000 = 1201\n\
         group2    :    20       1001 / 0.600 = 1668\n\
         pbsuser3  :    22       1000 / 0.240 = 4167\n"
    );
    let (_, out, _) = run(["fairshare", "--resource-group", rgs, "--usage", us, "-t"]);
    assert_eq!(
        out,
        " TREEROOT(0)\n     group2(20)\n          pbsuser3(22)\n          pbsuser2(21)\n     group1(10)\n          pbsuser1(12)\n          pbsuser(11)\n     unknown(1)\n"
    );
    let (_, out, _) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        us,
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let bob = v["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "pbsuser")
        .unwrap();
    assert_eq!(
        format!("{:.3}", bob["fairshare_tree_usage"].as_f64().unwrap()),
        "0.125"
    );
    assert_eq!(
        format!("{:.3}", bob["fairshare_factor"].as_f64().unwrap()),
        "0.648"
    );
    assert_eq!(bob["parent"], "group1");
    assert_eq!(bob["id"], 11);
    let suzy = v["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "pbsuser2")
        .unwrap();
    assert_eq!(
        format!("{:.3}", suzy["fairshare_tree_usage"].as_f64().unwrap()),
        "0.500"
    );
    assert_eq!(
        format!("{:.3}", suzy["fairshare_factor"].as_f64().unwrap()),
        "0.382"
    );
    // errors as pbsfs words them, after the command's prefix
    let (code, _, err) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        us,
        "-g",
        "nobody",
    ]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "jobsort fairshare: Fairshare Entity nobody does not exist.\n"
        )
    );
    let (code, _, err) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "-c",
        "pbsuser",
        "ghost",
    ]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "jobsort fairshare: Fairshare Entity ghost does not exist.\n"
        )
    );
}

#[test]
fn set_decay_trim_write_usage_atomically() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let rg = dir.join("resource_group");
    std::fs::write(&rg, MAN_RG).unwrap();
    let up = dir.join("usage");
    let (rgs, ups) = (rg.to_str().unwrap(), up.to_str().unwrap());
    // No usage file yet: -s creates it.
    let (code, _, err) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        ups,
        "-s",
        "pbsuser",
        "80",
    ]);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read(&up).unwrap();
    assert_eq!(&first[..9], b"PBS_MAG!\0");
    // Unknown entities land under `unknown` and are kept by a plain read, dropped by -e.
    let mut t = PbsTree::parse_resource_group(MAN_RG, "rg", &ParseOptions::default())
        .unwrap()
        .0;
    t.apply_usage_record("pbsuser", 80.0, false);
    t.apply_usage_record("stranger", 9.0, false);
    t.recompute();
    usage_file::write_tree(&up, &t).unwrap();
    let (_, out, _) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        ups,
        "-g",
        "stranger",
    ]);
    assert!(out.contains("Resgroup\t\t: 1\n"), "{out}");
    let (code, _, _) = run(["fairshare", "--resource-group", rgs, "--usage", ups, "-e"]);
    assert_eq!(code, 0);
    let (uf, _) = usage_file::read_path(&up, false).unwrap();
    assert_eq!(uf.records, vec![("pbsuser".to_string(), 80.0)]);
    assert!(uf.last_decay > 946_713_600, "-e sets last_decay to now");
    let (bak, _) = usage_file::read_path(&usage_file::backup_path(&up), false).unwrap();
    assert_eq!(
        bak.records.len(),
        2,
        "the previous file is kept as usage.bak"
    );
    // -d halves and floors at 1.
    let (code, _, _) = run(["fairshare", "--resource-group", rgs, "--usage", ups, "-d"]);
    assert_eq!(code, 0);
    let (uf, _) = usage_file::read_path(&up, false).unwrap();
    assert_eq!(uf.records, vec![("pbsuser".to_string(), 40.0)]);
    // A bad value for -s is an error, and the file is untouched.
    let before = std::fs::read(&up).unwrap();
    let (code, _, err) = run([
        "fairshare",
        "--resource-group",
        rgs,
        "--usage",
        ups,
        "-s",
        "pbsuser",
        "1x",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(std::fs::read(&up).unwrap(), before);
    // Round trip: read, decay, write, read reproduces the values.
    let (uf, _) = usage_file::read_path(&up, false).unwrap();
    let mut t = PbsTree::parse_resource_group(MAN_RG, "rg", &ParseOptions::default())
        .unwrap()
        .0;
    uf.apply(&mut t, false);
    t.decay(0.5);
    let bytes = usage_file::write_v2(&t);
    let (uf2, _) = usage_file::read_binary(&bytes, "usage", false).unwrap();
    assert_eq!(uf2.records, vec![("pbsuser".to_string(), 20.0)]);
    assert_eq!(uf2.last_decay, uf.last_decay);
}

#[test]
fn bad_inputs_fail_with_location_and_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let rg = dir.join("resource_group");
    let rgs = rg.to_str().unwrap().to_string();
    for (text, want) in [
        (
            "a 1 root 10\n# c\na 2 root 5\n",
            ":3: entity a is not unique",
        ),
        (
            "a 1 root 10\nb 2 c 5\nc 3 root 1\n",
            ":2: Parent ginfo of b doesnt exist.",
        ),
        ("a 1 root ten\n", ":1: shares `ten` of a is not an integer"),
        ("a 1\n", ":1: missing field `parent`"),
        ("a 1 root -3\n", ":1: shares of a are negative (-3)"),
    ] {
        std::fs::write(&rg, text).unwrap();
        let (code, out, err) = run(["fairshare", "--resource-group", &rgs]);
        assert_eq!(code, 1, "{text}");
        assert!(out.is_empty());
        assert!(
            err.starts_with(&format!("jobsort fairshare: {rgs}{want}")),
            "{err}"
        );
        // --lenient: PBS's skip-and-warn
        let (code, out, err) = run(["fairshare", "--resource-group", &rgs, "--lenient"]);
        assert_eq!(code, 0, "{err}");
        assert!(err.starts_with("warning: "), "{err}");
        assert!(out.starts_with("Fairshare usage units are in: cput\n"));
    }
    std::fs::write(&rg, "a 1 root 10\n").unwrap();
    let up = dir.join("usage");
    std::fs::write(&up, b"PBS_MAG?\0garbage-garbage-garbage-garbage").unwrap();
    let (code, _, err) = run([
        "fairshare",
        "--resource-group",
        &rgs,
        "--usage",
        up.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("bad magic"), "{err}");
}

fn jobs_of(input: &Value) -> Vec<Job> {
    input["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let mut job = Job::new(j["id"].as_str().unwrap());
            job.user = j["user"].as_str().map(str::to_string);
            job.account = j["Account_Name"].as_str().map(str::to_string);
            job
        })
        .collect()
}

/// `job_order` cases whose formula is a bare fairshare keyword: the formula's value is the
/// keyword's value (PBS passes it rounded to 6 decimals; the log prints 4).
#[test]
fn job_order_cases_with_keyword_formulas() {
    let mut ran = 0;
    for c in cases("job_order") {
        let input = &c["input"];
        let Some(formula) = input["formula"].as_str() else {
            continue;
        };
        if !formula.starts_with("fairshare_") {
            continue;
        }
        let t = tree_of(input);
        let mut jobs: JobSet = jobs_of(input).into_iter().collect();
        let mut fs = Fairshare::Pbs(t);
        fs.fill_jobs(&mut jobs, EntityKind::Euser).unwrap();
        let values: Vec<f64> = jobs
            .table()
            .column(formula)
            .unwrap()
            .iter()
            .map(|v| (v * 1e6).round() / 1e6)
            .collect();
        let ids = jobs.ids();
        for (id, v) in ids.iter().zip(&values) {
            let want: f64 = c["expected"]["formula_log_values"][id]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                (v - want).abs() <= 5e-5,
                "{} {}: {v} vs {want}",
                formula,
                id
            );
        }
        let order = if input["fair_share"] == true {
            let ranks = fs
                .fair_share_ranks(&jobs, EntityKind::Euser)
                .unwrap()
                .unwrap();
            rank(
                &values,
                TieBreak {
                    fair_share: Some(&ranks),
                    ids: Some(ids),
                    ..TieBreak::default()
                },
                &RankOptions::default(),
            )
        } else {
            rank(
                &values,
                TieBreak {
                    ids: Some(ids),
                    ..TieBreak::default()
                },
                &RankOptions::default(),
            )
        };
        let got: Vec<&str> = order.iter().map(|r| jobs.id(r.index)).collect();
        let want: Vec<&str> = c["expected"]["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{}", c["source"]);
        ran += 1;
    }
    assert_eq!(ran, 4);
}

/// The most deserving job among `queued` (PBS with `fair_share` and no formula: every value
/// is 0, so `compare_path` orders, then submission order).
fn pick(fs: &Fairshare, jobs: &[Job], kind: EntityKind) -> usize {
    let jobs: JobSet = jobs.iter().cloned().collect();
    let ranks = fs.fair_share_ranks(&jobs, kind).unwrap().unwrap();
    let zeros = vec![0.0; jobs.len()];
    rank(
        &zeros,
        TieBreak {
            fair_share: Some(&ranks),
            ids: Some(jobs.ids()),
            ..TieBreak::default()
        },
        &RankOptions::default(),
    )[0]
    .index
}

fn tree_mut(fs: &mut Fairshare) -> &mut PbsTree {
    match fs {
        Fairshare::Pbs(t) => t,
        _ => unreachable!(),
    }
}

/// Scheduler-cycle cases driven with the library: one job runs per cycle, its usage accrues
/// to its entity's path before the next cycle (`fairshare_usage_res` per job as the case
/// says), and `compare_path` picks the next job.
#[test]
fn job_order_cases_with_fair_share_cycles() {
    let mut ran = 0;
    for c in cases("job_order") {
        let input = &c["input"];
        let src = c["source"].as_str().unwrap();
        if input["fair_share"] != true || input["formula"].is_string() {
            continue;
        }
        let exp = &c["expected"];
        if src.ends_with("test_fairshare_enhanced") {
            let mut fs = Fairshare::Pbs(tree_of(input));
            for (phase, seq, usage_after) in [
                ("phase1_jobs", "phase1_run_sequence", "usage_after_phase1"),
                ("phase2_jobs", "phase2_run_sequence", "usage_after_phase2"),
            ] {
                let mut queued = jobs_of(&serde_json::json!({ "jobs": input[phase] }));
                let mut run = Vec::new();
                while !queued.is_empty() {
                    let i = pick(&fs, &queued, EntityKind::Euser);
                    let j = queued.remove(i);
                    // usage formula ceil(1*0.2*10) = 2 per job
                    tree_mut(&mut fs).accrue(j.user.as_deref().unwrap(), 2.0);
                    tree_mut(&mut fs).recompute();
                    run.push(j.id);
                }
                assert_eq!(
                    run,
                    exp[seq]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_str().unwrap())
                        .collect::<Vec<_>>()
                );
                for (u, v) in exp[usage_after].as_object().unwrap() {
                    let t = tree_mut(&mut fs);
                    assert_eq!(t.node(t.find(u).unwrap()).usage, v.as_f64().unwrap(), "{u}");
                }
            }
            ran += 1;
        } else if src.ends_with("test_fairshare_acct_name") {
            let mut fs = Fairshare::Pbs(tree_of(input));
            let mut queued = jobs_of(input);
            let mut run = Vec::new();
            let want: Vec<&str> = exp["run_sequence"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            while run.len() < want.len() {
                let i = pick(&fs, &queued, EntityKind::Account);
                let j = queued.remove(i);
                tree_mut(&mut fs).accrue(j.account.as_deref().unwrap(), 1.0);
                tree_mut(&mut fs).recompute();
                run.push(j.id);
            }
            assert_eq!(run, want);
            ran += 1;
        } else if src.ends_with("test_fairshare_topjob") {
            // J2 becomes the top job: update_usage_on_run adds its 5 ncpus to temp_usage.
            let mut fs = Fairshare::Pbs(tree_of(input));
            let mut queued = jobs_of(&serde_json::json!({ "jobs": input["queued"] }));
            let mut order = Vec::new();
            while !queued.is_empty() {
                let i = pick(&fs, &queued, EntityKind::Euser);
                let j = queued.remove(i);
                let t = tree_mut(&mut fs);
                let n = t.find(j.user.as_deref().unwrap()).unwrap();
                t.add_temp_usage(n, 5.0);
                order.push(j.id);
            }
            assert_eq!(
                order,
                exp["political_order"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect::<Vec<_>>()
            );
            ran += 1;
        } else if src.ends_with("test_pbsfs_revert_to_defaults") {
            let fs = Fairshare::Pbs(tree_of(input));
            let jobs = jobs_of(input);
            let first = pick(&fs, &jobs, EntityKind::Euser);
            assert_eq!(jobs[1 - first].id, exp["last_considered"].as_str().unwrap());
            // After reverting (usage reset), a new resource_group and pbsuser1 = 50.
            let (mut t, _) = PbsTree::parse_resource_group(
                "pbsuser 15 root 10\npbsuser1 16 root 10\n",
                "rg",
                &ParseOptions::default(),
            )
            .unwrap();
            t.apply_usage_record("pbsuser1", 50.0, false);
            t.recompute();
            let fs = Fairshare::Pbs(t);
            let first = pick(&fs, &jobs, EntityKind::Euser);
            let key = "after_trim_rows(pbsuser,15,root,10),(pbsuser1,16,root,10)_and_pbsuser1=50";
            assert_eq!(
                jobs[1 - first].id,
                exp[key]["last_considered"].as_str().unwrap()
            );
            ran += 1;
        }
    }
    assert_eq!(ran, 4);
}

/// Every fairshare `job_order` case with a formula, through the real pipeline: compile the
/// formula (`--compat pbs`: fairshare inputs rounded to 6 decimals, results stored as float32,
/// as PBS does), fill the fairshare keywords from the tree, evaluate over the job table, rank
/// (with PBS's `compare_path` tie-break when the case has `fair_share`), check the order and
/// the logged values.
#[test]
fn job_order_cases_through_compiled_formulas() {
    use jobsort::catalog::Catalog;
    use jobsort::{CompileOptions, Engine, Formula};
    let mut ran = 0;
    for c in cases("job_order") {
        let input = &c["input"];
        let Some(formula) = input["formula"].as_str() else {
            continue;
        };
        if resource_group(input).is_none() {
            continue;
        }
        for engine in [Engine::Interp, Engine::Jit] {
            let opts = CompileOptions {
                engine,
                compat_pbs: true,
                ..CompileOptions::default()
            };
            let compiled = Formula::compile_with(formula, &Catalog::pbs(), &opts)
                .unwrap_or_else(|d| panic!("{formula}: {d:?}"));
            let mut fs = Fairshare::Pbs(tree_of(input));
            let mut jobs: JobSet = jobs_of(input).into_iter().collect();
            fs.fill_jobs(&mut jobs, EntityKind::Euser).unwrap();
            let ev = compiled.evaluate(jobs.table());
            assert_eq!(ev.error_count(), 0);
            let ids = jobs.ids();
            for (id, v) in ids.iter().zip(&ev.values) {
                let want: f64 = c["expected"]["formula_log_values"][id]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((v - want).abs() <= 5e-5, "{formula} {id}: {v} vs {want}");
            }
            let ties = TieBreak {
                ids: Some(ids),
                ..TieBreak::default()
            };
            let order = match fs.fair_share_ranks(&jobs, EntityKind::Euser).unwrap() {
                Some(r) if input["fair_share"] == true => rank(
                    &ev.values,
                    TieBreak {
                        fair_share: Some(&r),
                        ..ties
                    },
                    &RankOptions::default(),
                ),
                _ => rank(&ev.values, ties, &RankOptions::default()),
            };
            let got: Vec<&str> = order.iter().map(|r| jobs.id(r.index)).collect();
            let want: Vec<&str> = c["expected"]["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert_eq!(got, want, "{}", c["source"]);
        }
        ran += 1;
    }
    assert_eq!(ran, 4);
}

/// `eval`/`rank` with the shared fairshare options (`FairshareOpts`): the formula4 case end
/// to end through the binary, including an entity not in the tree (placed under `unknown`,
/// 0 shares by default, so its factor is 0, with a warning).
#[test]
fn rank_cli_with_resource_group() {
    let c = cases("job_order")
        .into_iter()
        .find(|c| {
            c["source"]
                .as_str()
                .unwrap()
                .ends_with("test_fairshare_formula4")
        })
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let rg = dir.join("resource_group");
    std::fs::write(&rg, resource_group(&c["input"]).unwrap()).unwrap();
    let usage = dir.join("usage.json");
    std::fs::write(&usage, c["input"]["usage_file_leaves"].to_string()).unwrap();
    let mut jobs = c["input"]["jobs"].as_array().unwrap().clone();
    jobs.push(serde_json::json!({"id": "J5", "user": "stranger"}));
    let jf = dir.join("jobs.json");
    std::fs::write(&jf, Value::Array(jobs).to_string()).unwrap();
    let args = [
        "rank",
        "fairshare_factor",
        "--jobs",
        jf.to_str().unwrap(),
        "--resource-group",
        rg.to_str().unwrap(),
        "--usage",
        usage.to_str().unwrap(),
        "--format",
        "json",
    ];
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("stranger"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["J3", "J4", "J1", "J2", "J5"]);
    assert_eq!(v["order"][4]["value"], 0.0);
}
