//! Fairshare inputs through the CLI: generic JSON trees, parsable sshare output and
//! flux-accounting databases; `--format json` columns per algorithm; located errors.

use jobsort::fairshare::inputs::{self, EntityKind, Fairshare};
use jobsort::jobs::{Job, JobSet};
use serde_json::{Value, json};

use crate::common;
use common::cli::run;

fn case(id: &str) -> Value {
    common::case(common::SLURM_FLUX, id)
}

/// test24.4 as a generic JSON tree (`acct/user` names for user associations).
fn test24_4_json() -> Value {
    let c = case("slurm-fairtree-test24.4");
    let rows = c["input"]["tree"].as_array().unwrap();
    let mut names = std::collections::HashMap::new();
    let mut nodes = Vec::new();
    for r in rows {
        let id = r["id"].as_i64().unwrap();
        let acct = r["acct"].as_str().unwrap();
        if r["parent"].is_null() {
            names.insert(id, "root".to_string());
            continue;
        }
        let parent = names[&r["parent"].as_i64().unwrap()].clone();
        let mut n = json!({"parent": parent, "shares": r["shares"]});
        let name = match r["user"].as_str() {
            Some(u) => {
                n["user"] = json!(u);
                n["usage"] = r["usage_raw"].clone();
                n["kind"] = json!("user");
                format!("{acct}/{u}")
            }
            None => {
                n["kind"] = json!("account");
                acct.to_string()
            }
        };
        n["name"] = json!(name);
        names.insert(id, name);
        nodes.push(n);
    }
    json!({ "nodes": nodes })
}

fn entity<'a>(out: &'a Value, name: &str) -> &'a Value {
    out["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
}

#[test]
fn json_tree_every_algorithm_json_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let p = dir.join("tree.json");
    std::fs::write(&p, test24_4_json().to_string()).unwrap();
    let ps = p.to_str().unwrap();
    let (code, out, err) = run([
        "fairshare",
        "--fairshare-tree",
        ps,
        "--algorithm",
        "slurm-fairtree",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let u = entity(&v, "aGA/uGA1");
    assert_eq!(
        format!("{:.6}", u["fairshare_factor"].as_f64().unwrap()),
        "0.190476"
    );
    assert_eq!(u["level_fs"], 1.25);
    assert_eq!(u["user"], "uGA1");
    assert_eq!(entity(&v, "root/u1")["level_fs"], "inf");
    assert_eq!(entity(&v, "aD/uD1")["shares"], "parent");
    for key in [
        "name",
        "parent",
        "shares",
        "usage",
        "fairshare_factor",
        "norm_shares",
        "norm_usage",
        "level_fs",
    ] {
        assert!(u.get(key).is_some(), "{key}");
    }
    let (code, out, _) = run([
        "fairshare",
        "--fairshare-tree",
        ps,
        "--algorithm",
        "slurm-classic",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(entity(&v, "aGA/uGA1").get("effective_usage").is_some());
    // Classic defines FairShare on every row (sshare prints it on accounts and the root).
    assert!(entity(&v, "aGA")["fairshare_factor"].is_f64());
    assert_eq!(entity(&v, "root")["fairshare_factor"], 0.5);
    assert_eq!(entity(&v, "root")["norm_shares"], 1.0);
    let (code, out, _) = run([
        "fairshare",
        "--fairshare-tree",
        ps,
        "--algorithm",
        "flux",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(entity(&v, "aGA/uGA1")["weight"].is_number());
    // pbs needs a resource_group file
    let (code, _, err) = run(["fairshare", "--fairshare-tree", ps, "--algorithm", "pbs"]);
    assert_eq!(code, 1);
    assert!(err.contains("resource_group"), "{err}");
}

/// The text output for Slurm is sshare-style parsable rows; reading it back with --sshare
/// gives the same tree and values.
#[test]
fn sshare_output_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let p = dir.join("tree.json");
    std::fs::write(&p, test24_4_json().to_string()).unwrap();
    let (code, text, _) = run(["fairshare", "--fairshare-tree", p.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.starts_with("Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS\nroot||"));
    assert!(
        text.contains("\n   aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000\n"),
        "{text}"
    );
    let s = dir.join("sshare.txt");
    std::fs::write(&s, &text).unwrap();
    let (code, again, err) = run(["fairshare", "--sshare", s.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, text);
    // errors carry the line
    std::fs::write(
        &s,
        "Account|User|RawShares|NormShares|RawUsage|\nroot|||0.0|10|\n a||x|0|1|\n",
    )
    .unwrap();
    let (code, _, err) = run(["fairshare", "--sshare", s.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("sshare.txt:3: RawShares `x` is not a number"),
        "{err}"
    );
}

/// flux-accounting database (t1006's tree): banks by name, users by name, usage aggregated.
#[test]
fn flux_db_t1006() {
    let c = case("flux-update-fshare-t1006");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let db = dir.join("FluxAccounting.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE bank_table (bank_id INTEGER PRIMARY KEY, bank TEXT, active INT DEFAULT 1,
               parent_bank TEXT DEFAULT '', shares INT DEFAULT 1, job_usage REAL DEFAULT 0.0, priority REAL DEFAULT 0.0);
             CREATE TABLE association_table (username TEXT, userid INT DEFAULT 65534, bank TEXT, active INT DEFAULT 1,
               shares INT DEFAULT 1, job_usage REAL DEFAULT 0.0, fairshare REAL DEFAULT 0.5);",
        )
        .unwrap();
        for r in c["input"]["before"].as_array().unwrap() {
            let bank = r["bank"].as_str().unwrap();
            let shares = r["shares"].as_i64().unwrap();
            match r["user"].as_str() {
                None => {
                    let parent = if bank == "root" { "" } else { "root" };
                    conn.execute(
                        "INSERT INTO bank_table (bank, parent_bank, shares) VALUES (?1, ?2, ?3)",
                        rusqlite::params![bank, parent, shares],
                    )
                    .unwrap();
                }
                Some(u) => {
                    conn.execute(
                        "INSERT INTO association_table (username, bank, shares, job_usage) VALUES (?1, ?2, ?3, ?4)",
                        rusqlite::params![u, bank, shares, r["usage"].as_f64().unwrap()],
                    )
                    .unwrap();
                }
            }
        }
        // an inactive association is skipped
        conn.execute("INSERT INTO association_table (username, bank, active, job_usage) VALUES ('gone', 'account1', 0, 5)", [])
            .unwrap();
    }
    let (code, out, err) = run([
        "fairshare",
        "--flux-db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for r in c["expected"]["before"].as_array().unwrap() {
        let Some(u) = r["user"].as_str() else {
            continue;
        };
        let e = entity(&v, &format!("{}/{}", r["bank"].as_str().unwrap(), u));
        assert_eq!(
            format!("{:.6}", e["fairshare_factor"].as_f64().unwrap()),
            format!("{:.6}", r["fairshare"].as_f64().unwrap()),
            "{u}"
        );
    }
    assert_eq!(entity(&v, "root")["usage"], 133.0);
    assert!(!out.contains("gone"));
    // Jobs map to flux users by username.
    let file = inputs::load_share_tree(&db).unwrap();
    assert_eq!(file.format, inputs::TreeFormat::FluxDb);
    assert_eq!(file.algorithm, jobsort::fairshare::Algorithm::Flux);
    let tree = file.tree;
    let values = inputs::compute(&tree, jobsort::fairshare::Algorithm::Flux, 1.0).unwrap();
    let mut fs = Fairshare::Shares {
        tree,
        algorithm: jobsort::fairshare::Algorithm::Flux,
        values,
    };
    let mut jobs: JobSet = [("1", "leaf.3.1"), ("2", "nobody")]
        .map(|(id, user)| Job {
            user: Some(user.into()),
            ..Job::new(id)
        })
        .into_iter()
        .collect();
    let w = fs.fill_jobs(&mut jobs, EntityKind::Euser).unwrap();
    assert_eq!(jobs.value(0, "fairshare_factor"), Some(1.0));
    assert_eq!(jobs.value(1, "fairshare_factor"), Some(0.0));
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("nobody"));
}

#[test]
fn json_tree_errors_name_the_node() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let p = dir.join("t.json");
    for (doc, want) in [
        (
            r#"{"nodes":[{"name":"a","parent":"root"},{"name":"a","parent":"root"}]}"#,
            "nodes[1]: duplicate name `a`",
        ),
        (
            r#"{"nodes":[{"name":"b","parent":"a"},{"name":"a","parent":"root"}]}"#,
            "nodes[0]: parent `a` of `b` is not defined",
        ),
        (
            r#"{"nodes":[{"name":"a","parent":"root","shares":-1}]}"#,
            "nodes[0]: shares of `a` must be a finite number >= 0",
        ),
        (
            r#"{"nodes":[{"name":"a","parent":"root","shares":"lots"}]}"#,
            "nodes[0]: `shares` of `a` must be a number or \"parent\"",
        ),
        (
            r#"{"nodes":[{"parent":"root"}]}"#,
            "nodes[0]: missing string field `name`",
        ),
        ("{\"nodes\":\n[1,,]}", ":2: invalid JSON"),
    ] {
        std::fs::write(&p, doc).unwrap();
        let (code, _, err) = run(["fairshare", "--fairshare-tree", p.to_str().unwrap()]);
        assert_eq!(code, 1, "{doc}");
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn pbs_entities_and_unknown_shares() {
    let (mut t, _) = jobsort::fairshare::PbsTree::parse_resource_group(
        "g 10 root 50\nalice 11 g 10\n",
        "rg",
        &jobsort::fairshare::pbs::ParseOptions {
            unknown_shares: 50,
            lenient: false,
        },
    )
    .unwrap();
    t.recompute();
    let mut fs = Fairshare::Pbs(t);
    let mut jobs: Vec<Job> = ["1", "2", "3"].iter().map(|i| Job::new(*i)).collect();
    jobs[0].user = Some("alice".into());
    jobs[1].user = Some("bob".into());
    jobs[2].group = Some("g".into());
    jobs[2].user = Some("alice".into());
    let mut last: JobSet = jobs.split_off(2).into_iter().collect();
    let mut jobs: JobSet = jobs.into_iter().collect();
    let w = fs.fill_jobs(&mut jobs, EntityKind::Euser).unwrap();
    assert!(w[0].contains("bob"), "{w:?}");
    // bob: under `unknown` (50 of 100 root shares) with 1 share, alone there: perc 0.5.
    assert_eq!(jobs.value(1, "fairshare_perc"), Some(0.5));
    assert_eq!(jobs.value(0, "fairshare_perc"), Some(0.5));
    fs.fill_jobs(&mut last, EntityKind::EgroupEuser).unwrap();
    let Fairshare::Pbs(t) = &fs else {
        unreachable!()
    };
    assert!(t.find("g:alice").is_some());
    let mut nouser: JobSet = [Job::new("x")].into_iter().collect();
    let e = fs.fill_jobs(&mut nouser, EntityKind::Euser).unwrap_err();
    assert!(e.contains("job x has no `user`"), "{e}");
}

/// A tree, a `resource_group` or a usage file that never ends (`/dev/zero`) is an error once
/// the most such a file may hold is read, not a read for ever.
#[test]
fn fairshare_files_are_read_up_to_a_bound() {
    let zero = std::path::Path::new("/dev/zero");
    let too_long = "/dev/zero: longer than 64 MiB (the most this file may hold)";
    let e = jobsort::fairshare::inputs::load_share_tree(zero).unwrap_err();
    assert_eq!(e.to_string(), too_long);
    let options = jobsort::fairshare::pbs::ParseOptions::default();
    let e = jobsort::fairshare::inputs::load_pbs(zero, None, &options, false).unwrap_err();
    assert_eq!(e.to_string(), too_long);
}
