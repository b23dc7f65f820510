//! Slurm (classic, Fair Tree) and flux-accounting fairshare cases from
//! `tests/data/cases/slurm_flux.json`, compared to the precision the case gives (sshare prints
//! `%f`, flux's expected files 6 decimals).

use jobsort::fairshare::tree::{NodeValues, ShareTree, Shares};
use jobsort::fairshare::{flux, slurm};
use serde_json::Value;
use std::collections::HashMap;

use crate::common;

fn cases() -> Vec<Value> {
    common::cases(common::SLURM_FLUX)
}

fn case(id: &str) -> Value {
    common::case(common::SLURM_FLUX, id)
}

fn f6(x: f64) -> String {
    if x.is_infinite() {
        "inf".to_string()
    } else {
        format!("{x:.6}")
    }
}

fn shares(v: &Value) -> Shares {
    match v {
        Value::String(s) if s == "parent" => Shares::Parent,
        v => Shares::Value(v.as_f64().unwrap_or(1.0)),
    }
}

/// A Slurm case tree (`{id, parent, acct, user?, shares, usage_raw}`): accounts are named by
/// `acct`, user associations `acct/user`.
fn slurm_tree(rows: &[Value]) -> ShareTree {
    let mut t = ShareTree::new(1.0);
    let mut names: HashMap<i64, String> = HashMap::new();
    for r in rows {
        let id = r["id"].as_i64().unwrap();
        let acct = r["acct"].as_str().unwrap();
        if r["parent"].is_null() {
            names.insert(id, "root".into());
            continue;
        }
        let parent = names[&r["parent"].as_i64().unwrap()].clone();
        let (name, is_user, entity) = match r["user"].as_str() {
            Some(u) => (format!("{acct}/{u}"), true, Some(u)),
            None => (acct.to_string(), false, None),
        };
        let usage = if is_user {
            r["usage_raw"].as_f64().unwrap_or(0.0)
        } else {
            0.0
        };
        t.add(&name, &parent, shares(&r["shares"]), usage, is_user, entity)
            .unwrap();
        names.insert(id, name);
    }
    t.finish();
    t
}

fn row_name(row: &Value) -> String {
    let acct = row["account"].as_str().unwrap();
    match row["user"].as_str() {
        Some(u) => format!("{acct}/{u}"),
        None => acct.to_string(),
    }
}

fn check_col(name: &str, col: &str, expected: &Value, got: Option<f64>) {
    match expected {
        Value::Null => assert_eq!(got, None, "{name} {col}"),
        Value::String(s) if s == "inf" => assert_eq!(got, Some(f64::INFINITY), "{name} {col}"),
        Value::String(s) if s.is_empty() => {}
        v => {
            let want = v.as_f64().unwrap();
            let got = got.unwrap_or_else(|| panic!("{name} {col}: none, want {want}"));
            assert_eq!(f6(got), f6(want), "{name} {col}");
        }
    }
}

#[test]
fn slurm_classic_test24_1() {
    let c = case("slurm-classic-test24.1");
    let t = slurm_tree(c["input"]["tree"].as_array().unwrap());
    let v = slurm::classic(&t, c["input"]["damp_factor"].as_f64().unwrap());
    let mut checked = 0;
    for row in c["expected"]["rows"].as_array().unwrap() {
        let name = row_name(row);
        let i = t.find(&name).unwrap();
        assert_eq!(t.nodes[i].shares.raw(), row["raw_shares"].as_f64().unwrap());
        if let Some(u) = row.get("raw_usage") {
            assert_eq!(t.nodes[i].usage, u.as_f64().unwrap(), "{name}");
        }
        for (col, got) in [
            ("norm_shares", v[i].norm_shares),
            ("norm_usage", v[i].norm_usage),
            ("effective_usage", v[i].effective_usage),
            ("fairshare", v[i].fairshare_factor),
        ] {
            if let Some(e) = row.get(col) {
                check_col(&name, col, e, got);
                checked += 1;
            }
        }
    }
    assert_eq!(
        checked, 20,
        "5 full rows; User6 is checked for raw shares only"
    );
}

#[test]
fn slurm_classic_doc_example() {
    // The doc's tree is test24.1 without AccountG; its usage_norm values are relative to a
    // root whose usage includes 0.3 more, so we add a zero-share account holding that usage
    // (zero shares do not change anyone's level shares).
    let c = case("slurm-doc-classic-example");
    let inp = &c["input"];
    let mut t = ShareTree::new(1.0);
    for (a, spec) in inp["accounts"].as_object().unwrap() {
        t.add(
            a,
            "root",
            Shares::Value(spec["shares"].as_f64().unwrap()),
            0.0,
            false,
            None,
        )
        .unwrap();
        for (sub, sh) in spec["children"].as_object().unwrap() {
            t.add(
                sub,
                a,
                Shares::Value(sh.as_f64().unwrap()),
                0.0,
                false,
                None,
            )
            .unwrap();
        }
    }
    t.add("G", "root", Shares::Value(0.0), 0.0, false, None)
        .unwrap();
    t.add("G/rest", "G", Shares::Value(0.0), 0.3, true, None)
        .unwrap();
    for (u, spec) in inp["users"].as_object().unwrap() {
        let acct = spec["acct"].as_str().unwrap();
        t.add(
            u,
            acct,
            Shares::Value(spec["shares"].as_f64().unwrap()),
            spec["usage_norm"].as_f64().unwrap(),
            true,
            None,
        )
        .unwrap();
    }
    t.finish();
    let v = slurm::classic(&t, 1.0);
    let e = &c["expected"];
    for (a, want) in e["account_effective_usage"].as_object().unwrap() {
        let got = v[t.find(a).unwrap()].effective_usage.unwrap();
        assert!(
            (got - want.as_f64().unwrap()).abs() < 5e-5,
            "{a}: {got} vs {want}"
        );
    }
    for (u, want) in e["user_effective_usage"].as_object().unwrap() {
        let got = v[t.find(u).unwrap()].effective_usage.unwrap();
        assert!(
            (got - want.as_f64().unwrap()).abs() < 5e-5,
            "{u}: {got} vs {want}"
        );
    }
    for (u, want) in e["user_fairshare"].as_object().unwrap() {
        let got = v[t.find(u).unwrap()].fairshare_factor.unwrap();
        assert_eq!(f6(got), f6(want.as_f64().unwrap()), "{u}");
    }
}

#[test]
fn slurm_fair_tree_test24_4_every_column() {
    let c = case("slurm-fairtree-test24.4");
    let t = slurm_tree(c["input"]["tree"].as_array().unwrap());
    assert_eq!(
        t.user_count() as i64,
        c["input"]["user_assoc_count"].as_i64().unwrap()
    );
    let v = slurm::fair_tree(&t);
    let rows = c["expected"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 35);
    for row in rows {
        let name = row_name(row);
        let i = if name == "root" {
            0
        } else {
            t.find(&name).unwrap_or_else(|| panic!("{name}"))
        };
        let vals: &NodeValues = &v[i];
        assert_eq!(
            t.nodes[i].usage,
            row["raw_usage"].as_f64().unwrap(),
            "{name} raw_usage"
        );
        check_col(&name, "norm_shares", &row["norm_shares"], vals.norm_shares);
        check_col(&name, "norm_usage", &row["norm_usage"], vals.norm_usage);
        check_col(
            &name,
            "effective_usage",
            &row["effective_usage"],
            vals.effective_usage,
        );
        check_col(&name, "fairshare", &row["fairshare"], vals.fairshare_factor);
        check_col(&name, "level_fs", &row["level_fs"], vals.level_fs);
    }
}

/// flux CSV rows (`level, bank, user|null, shares, usage`): a bank row's parent is the last
/// bank one level up; a user row belongs to its `bank`.
fn flux_csv_tree(rows: &[Value]) -> ShareTree {
    let mut t = ShareTree::new(1.0);
    let mut last_bank_at: Vec<String> = Vec::new();
    for r in rows {
        let level = r["level"].as_u64().unwrap() as usize;
        let bank = r["bank"].as_str().unwrap();
        let sh = Shares::Value(r["shares"].as_f64().unwrap());
        let usage = r["usage"].as_f64().unwrap();
        match r["user"].as_str() {
            None if level == 0 => {
                t.set_root_shares(sh.raw());
                last_bank_at = vec!["root".into()];
            }
            None => {
                t.add(bank, &last_bank_at[level - 1], sh, 0.0, false, None)
                    .unwrap();
                last_bank_at.truncate(level);
                last_bank_at.push(bank.into());
            }
            Some(u) => {
                let parent = if level == 1 { "root" } else { bank };
                t.add(u, parent, sh, usage, true, None).unwrap();
            }
        }
    }
    t.finish();
    t
}

fn flux_values(t: &ShareTree) -> HashMap<String, f64> {
    let v = flux::weighted_tree(t);
    t.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_user)
        .map(|(i, n)| (n.name.clone(), v[i].fairshare_factor.unwrap()))
        .collect()
}

#[test]
fn flux_weighted_tree_csv_cases() {
    let mut ran = 0;
    for c in cases() {
        if c["kind"] != "flux_fairshare_weighted_tree" || c["input"]["rows"].is_null() {
            continue;
        }
        let t = flux_csv_tree(c["input"]["rows"].as_array().unwrap());
        let got = flux_values(&t);
        let exp = &c["expected"];
        let want = exp
            .get("fairshare")
            .or_else(|| exp.get("fairshare_derived_by_helper"))
            .unwrap();
        let want = want.as_object().unwrap();
        assert_eq!(got.len(), want.len(), "{}", c["id"]);
        for (u, w) in want {
            assert_eq!(f6(got[u]), f6(w.as_f64().unwrap()), "{} {u}", c["id"]);
        }
        // The upstream unit test's order (descending fairshare; ties in any order).
        let order: Vec<&str> = exp["order_desc_fairshare"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        for w in order.windows(2) {
            assert!(
                got[w[0]] >= got[w[1]],
                "{}: {} before {}",
                c["id"],
                w[0],
                w[1]
            );
        }
        ran += 1;
    }
    assert_eq!(ran, 4);
}

fn flux_db_rows_tree(rows: &[Value]) -> ShareTree {
    let mut t = ShareTree::new(1.0);
    for r in rows {
        let bank = r["bank"].as_str().unwrap();
        let sh = Shares::Value(r["shares"].as_f64().unwrap());
        match r["user"].as_str() {
            None if bank == "root" => t.set_root_shares(sh.raw()),
            None => {
                t.add(bank, "root", sh, 0.0, false, None).unwrap();
            }
            Some(u) => {
                t.add(u, bank, sh, r["usage"].as_f64().unwrap(), true, None)
                    .unwrap();
            }
        }
    }
    t.finish();
    t
}

#[test]
fn flux_update_fshare_t1006_before_and_after() {
    let c = case("flux-update-fshare-t1006");
    let before = c["input"]["before"].as_array().unwrap();
    let mut t = flux_db_rows_tree(before);
    for (phase, rows) in [
        ("before", &c["expected"]["before"]),
        ("after", &c["expected"]["after"]),
    ] {
        if phase == "after" {
            let mut changed: Vec<Value> = before.clone();
            for r in &mut changed {
                if let Some(u) = c["input"]["change"].get(r["user"].as_str().unwrap_or("")) {
                    r["usage"] = u.clone();
                }
            }
            t = flux_db_rows_tree(&changed);
        }
        let got = flux_values(&t);
        for r in rows.as_array().unwrap() {
            let name = r["user"].as_str().unwrap_or(r["bank"].as_str().unwrap());
            let i = t.find(name).unwrap_or(0);
            assert_eq!(
                t.nodes[i].usage,
                r["usage"].as_f64().unwrap(),
                "{phase} {name} usage"
            );
            if let Some(f) = r.get("fairshare") {
                assert_eq!(f6(got[name]), f6(f.as_f64().unwrap()), "{phase} {name}");
            }
        }
    }
}

#[test]
fn flux_fairshare_emulate_cases() {
    for id in [
        "flux-fairshare-emulate-single_user",
        "flux-fairshare-emulate-identical_weights",
    ] {
        let c = case(id);
        let root = &c["input"]["root"];
        let mut t = ShareTree::new(root["shares"].as_f64().unwrap());
        for (bank, spec) in root["children"].as_object().unwrap() {
            t.add(
                bank,
                "root",
                Shares::Value(spec["shares"].as_f64().unwrap()),
                0.0,
                false,
                None,
            )
            .unwrap();
            for (u, su) in spec["users"].as_object().unwrap() {
                let su = su.as_array().unwrap();
                t.add(
                    u,
                    bank,
                    Shares::Value(su[0].as_f64().unwrap()),
                    su[1].as_f64().unwrap(),
                    true,
                    None,
                )
                .unwrap();
            }
        }
        t.finish();
        let got = flux_values(&t);
        for (u, w) in c["expected"]["fairshare"].as_object().unwrap() {
            assert_eq!(f6(got[u]), f6(w.as_f64().unwrap()), "{id} {u}");
        }
    }
}

/// A live Slurm 22.05 (slurmctld + slurmdbd, Fair Tree): `sacctmgr add account` science,
/// alpha, beta, one command each, then users u1 (FairShare=1) and u2 (0) in alpha, u3 (1)
/// and u4 (0) in beta, no usage. Every account's LevelFS is inf (`_calc_assoc_fs`: S/U with
/// U = 0), so alpha, beta and science are tied and `_calc_tree_fs` walks them in the order
/// of root's `children_list` (`qsort` with `_cmp_level_fs`, which calls them equal). `sshare
/// -a -l -P` printed these two captures, in the same row order: BEFORE while slurmctld ran
/// after the accounts were added (the list refilled in name order by
/// `assoc_mgr_update_assocs`), AFTER once it restarted (the list in slurmdbd's `order by lft`:
/// beta, alpha, science, the newest first); their first nine columns (GrpTRESMins and
/// TRESRunMins left out). ASSOC is `sacctmgr -P show assoc format=Cluster,Account,User,Lft,ID`
/// of the same database.
const TIE_HEADER: &str =
    "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS\n";
const TIE_BEFORE: &str = "root|||0.000000|0||1.000000||
 root|root|1|0.250000|0|0.000000|0.000000|1.000000|inf
 alpha||1|0.250000|0|0.000000|0.000000||inf
  alpha|u1|1|1.000000|0|0.000000|0.000000|1.000000|inf
  alpha|u2|0|0.000000|0|0.000000|0.000000|0.666667|0.000000
 beta||1|0.250000|0|0.000000|0.000000||inf
  beta|u3|1|1.000000|0|0.000000|0.000000|0.666667|inf
  beta|u4|0|0.000000|0|0.000000|0.000000|0.333333|0.000000
 science||1|0.250000|0|0.000000|0.000000||inf
  science|root|1|1.000000|0|0.000000|0.000000|0.333333|inf
";
const TIE_AFTER: &str = "root|||0.000000|0||1.000000||
 root|root|1|0.250000|0|0.000000|0.000000|1.000000|inf
 alpha||1|0.250000|0|0.000000|0.000000||inf
  alpha|u1|1|1.000000|0|0.000000|0.000000|0.666667|inf
  alpha|u2|0|0.000000|0|0.000000|0.000000|0.333333|0.000000
 beta||1|0.250000|0|0.000000|0.000000||inf
  beta|u3|1|1.000000|0|0.000000|0.000000|1.000000|inf
  beta|u4|0|0.000000|0|0.000000|0.000000|0.666667|0.000000
 science||1|0.250000|0|0.000000|0.000000||inf
  science|root|1|1.000000|0|0.000000|0.000000|0.333333|inf
";
const TIE_ASSOC: &str = "Cluster|Account|User|LFT|ID
jobsortlive|root||1|1
jobsortlive|root|root|18|2
jobsortlive|alpha||8|5
jobsortlive|alpha|u1|11|7
jobsortlive|alpha|u2|9|8
jobsortlive|beta||2|6
jobsortlive|beta|u3|5|9
jobsortlive|beta|u4|3|10
jobsortlive|science||14|3
jobsortlive|science|root|15|4
";

/// Each user's Fair Tree factor as sshare prints it.
fn tie_factors(t: &ShareTree) -> Vec<(String, String)> {
    let v = slurm::fair_tree(t);
    t.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_user)
        .map(|(i, n)| (n.name.clone(), f6(v[i].fairshare_factor.unwrap())))
        .collect()
}

/// The FairShare column of a capture, by user association.
fn captured(capture: &str) -> Vec<(String, String)> {
    capture
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            (!f[1].is_empty()).then(|| (format!("{}/{}", f[0].trim(), f[1]), f[7].to_string()))
        })
        .collect()
}

/// The order of tied accounts is found from the capture's own FairShare values: after the
/// restart, four users' factors differ from the input (name) order's, and the search finds
/// beta, alpha, science (the lft order, which is neither the input's nor its reverse).
#[test]
fn fair_tree_tie_order_is_found_from_the_capture() {
    use jobsort::fairshare::inputs::from_sshare;
    for (capture, walk) in [
        (TIE_BEFORE, ["alpha", "beta", "science"]),
        (TIE_AFTER, ["beta", "alpha", "science"]),
    ] {
        let (mut t, _) = from_sshare(&format!("{TIE_HEADER}{capture}"), "sshare.txt").unwrap();
        let notes = slurm::settle_sibling_order(&mut t, None).unwrap();
        assert_eq!(tie_factors(&t), captured(capture));
        assert!(t.order_detected());
        let tied: Vec<Vec<&str>> = slurm::tied_accounts(&t)
            .iter()
            .map(|s| s.iter().map(|&i| t.nodes[i].name.as_str()).collect())
            .collect();
        assert_eq!(tied, [walk]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("found from the capture"), "{}", notes[0]);
    }
    // The input order alone gives BEFORE's values, four of them wrong for AFTER.
    let (t, _) = from_sshare(&format!("{TIE_HEADER}{TIE_AFTER}"), "sshare.txt").unwrap();
    let wrong = tie_factors(&t)
        .iter()
        .zip(captured(TIE_AFTER))
        .filter(|(a, b)| **a != *b)
        .count();
    assert_eq!(wrong, 4);
}

/// Without the FairShare column (nothing to find the order from), sacctmgr's lft order gives
/// the values after the restart, and the note says which order was used.
#[test]
fn fair_tree_tie_order_from_sacctmgr_lft() {
    use jobsort::fairshare::inputs::from_sshare;
    let bare: String = format!("{TIE_HEADER}{TIE_AFTER}")
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            format!("{}|{}|{}|{}\n", f[0], f[1], f[2], f[4])
        })
        .collect();
    let (mut t, _) = from_sshare(&bare, "sshare.txt").unwrap();
    let notes = slurm::settle_sibling_order(&mut t, None).unwrap();
    assert!(!t.order_detected());
    assert_eq!(tie_factors(&t), captured(TIE_BEFORE));
    assert!(
        notes[0].contains("the input's order") && notes[0].contains("Lft"),
        "{notes:?}"
    );
    let order = jobsort::slurm::assoc::lft_order(TIE_ASSOC, "assoc.txt", None).unwrap();
    let notes = slurm::settle_sibling_order(&mut t, Some(&order)).unwrap();
    assert_eq!(tie_factors(&t), captured(TIE_AFTER));
    assert_eq!(
        notes,
        [
            "Fair Tree: sibling accounts with equal LevelFS (`beta`, `alpha`, `science`) are \
          ranked in the associations' lft order from assoc.txt (slurmctld's order since it \
          last started)"
        ]
    );
    // An explicit order the capture contradicts is kept, and said so.
    let (mut t, _) = from_sshare(&format!("{TIE_HEADER}{TIE_AFTER}"), "sshare.txt").unwrap();
    let notes =
        slurm::settle_sibling_order(&mut t, Some(&jobsort::fairshare::tree::SiblingOrder::Input))
            .unwrap();
    assert!(
        notes[0].contains("4 user associations get another factor"),
        "{notes:?}"
    );
}

/// `jobsort fairshare --format json` says which order decided the ties (`tie_order`), from
/// the capture or from `--slurm-tie-order FILE` (sacctmgr's Lft table).
#[test]
fn fairshare_json_says_which_tie_order() {
    let dir = tempfile::tempdir().unwrap();
    let sshare = dir.path().join("sshare.txt");
    let assoc = dir.path().join("assoc.txt");
    std::fs::write(&sshare, format!("{TIE_HEADER}{TIE_AFTER}")).unwrap();
    std::fs::write(&assoc, TIE_ASSOC).unwrap();
    let run = |extra: &[&str]| -> Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jobsort"))
            .args([
                "fairshare",
                "--sshare",
                sshare.to_str().unwrap(),
                "--format",
                "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["tie_order"].clone()
    };
    assert_eq!(
        run(&[]),
        serde_json::json!({"order": "capture", "source": null, "detected": true,
                           "tied_accounts": [["beta", "alpha", "science"]]})
    );
    let a = assoc.to_str().unwrap();
    assert_eq!(
        run(&["--slurm-tie-order", a]),
        serde_json::json!({"order": "lft", "source": a, "detected": false,
                           "tied_accounts": [["beta", "alpha", "science"]]})
    );
}
