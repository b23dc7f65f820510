//! Slurm's multifactor priority and flux-accounting's mf_priority through the CLI:
//! `slurm-formula`, `flux-formula`, and `check`/`eval`/`rank --scheduler slurm|flux`.
//!
//! Expected values are worked out by hand from Slurm 22.05's
//! `src/plugins/priority/multifactor/priority_multifactor.c` (`set_priority_factors`,
//! `_get_priority_internal`) and flux-accounting's `src/plugins/mf_priority.cpp`
//! (`priority_calculation`) and `doc/components/job-priorities.rst`. The live check against
//! `sprio` is `contrib/slurm/e2e.sh` (section 8).

use crate::common;

use common::cli::{jobsort, json, run, write};
use serde_json::Value;

/// The values of `eval --format json`, in job order.
fn values(doc: &Value) -> Vec<f64> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["value"].as_f64().unwrap())
        .collect()
}

const CONF: &str = "\
ClusterName=demo
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=500
PriorityWeightPartition=2000
PriorityWeightQOS=3000
# listed out of slurmctld's TRES order on purpose
PriorityWeightTRES=GRES/gpu=400,CPU=100
PriorityMaxAge=1-0
NodeName=n[01-04] CPUs=16 RealMemory=64000 Gres=gpu:4
PartitionName=batch Nodes=ALL Default=YES PriorityJobFactor=10 MaxTime=2-0
PartitionName=short Nodes=n[01-02] PriorityJobFactor=3 MaxTime=2:00:00
";

const FORMULA: &str = "trunc(min(4294967295, max(1, 1000 * age + 10000 * fairshare + \
                       500 * jobsize + 2000 * partition + 3000 * qos + \
                       (100 * tres_cpu + 400 * tres_gres_gpu) + site - nice)))";

const JOBS: &str = "\
id,queue,user,accrue_time,ncpus,nodect,walltime,qos_priority,fairshare,gres_gpu,nice
1,batch,ann,1700000000,16,1,3600,10,0.5,0,0
2,short,bob,1700040000,4,1,600,20,0.25,2,0
3,batch,cid,1699990000,64,4,86400,0,0.75,4,100
";

#[test]
fn slurm_formula_prints_the_weighted_sum_and_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "slurm.conf", CONF);
    let (code, out, err) = run(["slurm-formula", &conf]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim_end(), FORMULA);
    assert!(
        err.contains("valid") && err.contains("[1, 4294967295]"),
        "{err}"
    );
    let v = json(&jobsort(["slurm-formula", &conf, "--format", "json"]));
    assert_eq!(v["formula"], FORMULA);
    assert_eq!(v["valid"], true);
    // slurm.conf errors say file:line, as slurmctld would refuse the file.
    let bad = write(
        dir.path(),
        "bad.conf",
        "ClusterName=x\nPriorityWeightAgee=3\n",
    );
    let (code, _, err) = run(["slurm-formula", &bad]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.conf:2: unrecognized key `PriorityWeightAgee`"),
        "{err}"
    );
}

#[test]
fn eval_and_rank_give_slurms_priority_and_sprios_columns() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "slurm.conf", CONF);
    let jobs = write(dir.path(), "jobs.csv", JOBS);
    let common = [
        "--slurm-conf",
        &conf,
        "--jobs",
        &jobs,
        "--now",
        "1700050000",
        "--qos",
        "normal=10",
        "--qos",
        "high=20",
    ];
    // Job 1: age 50000/86400 → 578.7; fairshare 0.5 → 5000; job size (1/4 + 16/64)/2 → 125;
    // partition 10/10 → 2000; qos 10/20 → 1500; TRES cpu 16/64 → 25: 9228.7 → 9228.
    // Job 2: 115.7 + 2500 + (1/4 + 4/64)/2·500 = 78.125 + 3/10·2000 + 3000 + cpu 4/32 → 12.5
    // + gpu 2/8 → 100: 6406.3 → 6406. Job 3: 694.4 + 7500 + 500 + 2000 + 0 + 100 + 100
    // − nice 100 = 10794.4 → 10794.
    let v = json(&jobsort(
        ["eval", FORMULA, "--format", "json"]
            .iter()
            .chain(common.iter()),
    ));
    let values = values(&v);
    assert_eq!(values, [9228.0, 6406.0, 10794.0]);

    let v = json(&jobsort(
        ["rank", FORMULA, "--explain", "--format", "json"]
            .iter()
            .chain(common.iter()),
    ));
    let first = &v["order"][0];
    assert_eq!(first["id"], "3");
    let terms: Vec<(String, String)> = first["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["term"].as_str().unwrap().to_string(),
                t["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("SITE", "0"),
        ("AGE", "694"),
        ("ASSOC", "0"),
        ("FAIRSHARE", "7500"),
        ("JOBSIZE", "500"),
        ("PARTITION", "2000"),
        ("QOS", "0"),
        ("NICE", "100"),
        // sprio's TRES column: slurmctld's TRES order, non-zero ones, `%.0f`.
        ("TRES", "cpu=100,gres/gpu=100"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(terms, want);
}

#[test]
fn squeue_json_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "slurm.conf", CONF);
    // openapi/v0.0.38's job fields (Slurm 22.05 `squeue --json`).
    let squeue = write(
        dir.path(),
        "squeue.json",
        r#"{"meta": {"plugin": {"type": "openapi/v0.0.38"}}, "errors": [],
            "jobs": [
              {"job_id": 41, "job_state": "PENDING", "user_name": "ann", "account": "phys",
               "partition": "short", "qos": "high", "accrue_time": 1700000000,
               "submit_time": 1699999000, "cpus": 4, "max_cpus": 0, "node_count": 1,
               "time_limit": 60, "nice": 0, "tres_req_str": "cpu=4,mem=1000M,node=1,billing=4,gres/gpu=2"},
              {"job_id": 42, "job_state": "RUNNING", "partition": "batch", "cpus": 16,
               "node_count": 1, "nice": 0}
            ]}"#,
    );
    let v = json(&jobsort([
        "eval",
        FORMULA,
        "--slurm-conf",
        &conf,
        "--jobs",
        &squeue,
        "--qos",
        "high=20",
        "--now",
        "1700043200",
        "--format",
        "json",
    ]));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "only pending jobs, as sprio lists them");
    // The others are listed with why (priority_p_get_priority_factors_list: pending only).
    assert_eq!(
        v["not_ranked"],
        serde_json::json!([{"id": "42", "state": "RUNNING", "reason": "running"}])
    );
    // age 0.5 → 500; job size (1/4 + 4/64)/2 → 78.125; partition 3/10 → 600; qos 20/20 →
    // 3000; cpu 4/32 → 12.5; gpu 2/8 → 100: 4290.625 → 4290 (no fairshare given: 0).
    assert_eq!(jobs[0]["id"], "41");
    assert_eq!(jobs[0]["value"], 4290.0);
}

#[test]
fn scheduler_catalogs_in_check() {
    let (code, _, err) = run(["check", "--scheduler", "slurm", "1000 * age + qos"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("value in [0, 1001]"), "{err}");
    // PBS's names are not Slurm's.
    let (code, _, err) = run(["check", "--scheduler", "slurm", "ncpus"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = run(["check", "--scheduler", "flux", "urgency * 2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("value in [0, 62]"), "{err}");
    let (code, _, err) = run(["check", "--scheduler", "pbs", "--slurm-conf", "x", "1"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn flux_formula_gives_mf_priority() {
    let dir = tempfile::tempdir().unwrap();
    // job-priorities.rst: fairshare 0.5, queue priority 1, bank priority 100 at bank weight
    // 1000, urgency 16 → 50000 + 10000 + 100000 + 0 = 160000. Urgency 0 holds (0), 31
    // expedites (4294967295), and a negative sum is 0.
    let jobs = write(
        dir.path(),
        "jobs.csv",
        "id,fairshare,queue_factor,bank_factor,urgency\na,0.5,1,100,16\nb,0.9,0,0,0\nc,0,0,0,31\nd,0,0,0,1\n",
    );
    let (code, formula, err) = run(["flux-formula", "--weights", "bank=1000"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&jobsort([
        "eval",
        formula.trim_end(),
        "--scheduler",
        "flux",
        "--jobs",
        &jobs,
        "--format",
        "json",
    ]));
    let values = values(&v);
    assert_eq!(values, [160_000.0, 0.0, 4_294_967_295.0, 0.0]);
    let (code, _, err) = run(["flux-formula", "--weights", "age=1"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn rank_takes_partition_tiers_first() {
    // job_scheduler.c, sort_job_queue2: a job in a partition of a higher PriorityTier is
    // considered before any job of a lower tier, whatever their priorities; within a tier,
    // by priority. Job 2 (short, 6406) is first under short's PriorityTier=2, then jobs 3
    // (10794) and 1 (9228) of batch (tier 1) by priority.
    let dir = tempfile::tempdir().unwrap();
    let tiered = CONF.replace(
        "PartitionName=short Nodes=n[01-02] PriorityJobFactor=3",
        "PartitionName=short Nodes=n[01-02] PriorityJobFactor=3 PriorityTier=2",
    );
    let conf = write(dir.path(), "slurm.conf", &tiered);
    let jobs = write(dir.path(), "jobs.csv", JOBS);
    let order = |top: Option<&str>| -> Vec<(String, f64)> {
        let mut a = vec![
            "rank",
            FORMULA,
            "--slurm-conf",
            &conf,
            "--jobs",
            &jobs,
            "--now",
            "1700050000",
            "--qos",
            "normal=10",
            "--qos",
            "high=20",
            "--format",
            "json",
        ];
        if let Some(k) = top {
            a.extend(["--top", k]);
        }
        json(&jobsort(a))["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["id"].as_str().unwrap().to_string(),
                    j["value"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let want = [("2", 6406.0), ("3", 10794.0), ("1", 9228.0)]
        .map(|(i, v)| (i.to_string(), v))
        .to_vec();
    assert_eq!(order(None), want);
    assert_eq!(order(Some("1")), want[..1]);
}

#[test]
fn incr_only_priority_does_not_fall_below_squeues() {
    // priority_multifactor.c, decay_apply_weighted_factors: under INCR_ONLY slurmctld keeps
    // the stored priority unless the new one is higher. Job 41 of squeue_json_jobs computes
    // 4290 at this time: stored 5000 stays 5000, stored 4000 becomes 4290.
    let dir = tempfile::tempdir().unwrap();
    let conf = write(
        dir.path(),
        "slurm.conf",
        &format!("{CONF}PriorityFlags=INCR_ONLY\n"),
    );
    let job = |id: u32, priority: u32| {
        format!(
            r#"{{"job_id": {id}, "job_state": "PENDING", "partition": "short", "qos": "high",
               "accrue_time": 1700000000, "submit_time": 1699999000, "cpus": 4,
               "max_cpus": 0, "node_count": 1, "time_limit": 60, "nice": 0,
               "priority": {priority},
               "tres_req_str": "cpu=4,mem=1000M,node=1,billing=4,gres/gpu=2"}}"#
        )
    };
    let squeue = write(
        dir.path(),
        "squeue.json",
        &format!(
            r#"{{"meta": {{}}, "jobs": [{}, {}]}}"#,
            job(41, 5000),
            job(43, 4000)
        ),
    );
    let (code, formula, err) = run(["slurm-formula", &conf]);
    assert_eq!(code, 0, "{err}");
    let formula = formula.trim_end();
    assert!(
        formula.starts_with("max(stored_priority, trunc("),
        "{formula}"
    );
    let v = json(&jobsort([
        "eval",
        formula,
        "--slurm-conf",
        &conf,
        "--jobs",
        &squeue,
        "--qos",
        "high=20",
        "--now",
        "1700043200",
        "--format",
        "json",
    ]));
    assert_eq!(values(&v), [5000.0, 4290.0]);
}

#[test]
fn depth_oblivious_fairshare_under_its_slurm_conf() {
    // priority_multifactor.c, _depth_oblivious_set_usage_efctv (hand-worked in
    // fairshare::slurm's test): A → u1 (usage 30), u2 (10); B → u3 (60). sshare in this mode
    // prints like classic (NormUsage, no LevelFS); under PriorityFlags=DEPTH_OBLIVIOUS the
    // factors are u1 2^(-0.2395925/.25) → 5146, u2 2^-.4 → 7578, u3 2^-1.2 → 4352 (classic
    // gives u1 .3 + (.4 - .3)·.5 = .35: 2^-1.4 → 3789, u2 .1 + (.4 - .1)·.5 = .25: 2^-1 → 5000).
    let dir = tempfile::tempdir().unwrap();
    let conf = |flags: &str| {
        format!(
            "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n{flags}\
             NodeName=n1 CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
        )
    };
    let oblivious = write(
        dir.path(),
        "do.conf",
        &conf("PriorityFlags=DEPTH_OBLIVIOUS\n"),
    );
    let classic = write(
        dir.path(),
        "classic.conf",
        &conf("PriorityFlags=NO_FAIR_TREE\n"),
    );
    let sshare = write(
        dir.path(),
        "sshare.txt",
        "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare\n\
         root||||100|||\n A||1||40|||\n  A|u1|1||30|||\n  A|u2|1||10|||\n B||1||60|||\n\
         \x20 B|u3|1||60|||\n",
    );
    let jobs = write(
        dir.path(),
        "jobs.csv",
        "id,queue,user,account,ncpus\n1,batch,u1,A,1\n2,batch,u2,A,1\n3,batch,u3,B,1\n",
    );
    let formula = "trunc(min(4294967295, max(1, 10000 * fairshare + site - nice)))";
    let eval = |conf: &str| {
        values(&json(&jobsort([
            "eval",
            formula,
            "--slurm-conf",
            conf,
            "--jobs",
            &jobs,
            "--fairshare-tree",
            &sshare,
            "--now",
            "0",
            "--format",
            "json",
        ])))
    };
    assert_eq!(eval(&oblivious), [5146.0, 7578.0, 4352.0]);
    assert_eq!(eval(&classic), [3789.0, 5000.0, 4352.0]);
}

#[test]
fn association_priorities_from_sacctmgr() {
    // assoc_mgr.c, _set_assoc_norm_priority: the assoc factor is the association's priority
    // over the largest one's (2000): ann in phys 500 → 0.25, weighted 2000 → 500. Job 41 of
    // squeue_json_jobs is 4290.625 without it: 4790.625 → 4790.
    let dir = tempfile::tempdir().unwrap();
    let conf = write(
        dir.path(),
        "slurm.conf",
        &format!("{CONF}PriorityWeightAssoc=2000\n"),
    );
    let squeue = write(
        dir.path(),
        "squeue.json",
        r#"{"meta": {}, "jobs": [
              {"job_id": 41, "job_state": "PENDING", "user_name": "ann", "account": "phys",
               "partition": "short", "qos": "high", "accrue_time": 1700000000,
               "submit_time": 1699999000, "cpus": 4, "max_cpus": 0, "node_count": 1,
               "time_limit": 60, "nice": 0, "tres_req_str": "cpu=4,mem=1000M,node=1,billing=4,gres/gpu=2"}
            ]}"#,
    );
    let assoc = write(
        dir.path(),
        "assoc.txt",
        "Cluster|Account|User|Partition|Priority\n\
         demo|root|||\ndemo|phys|||1000\ndemo|phys|ann||500\ndemo|bio|||2000\n",
    );
    let formula = FORMULA.replace("1000 * age +", "1000 * age + 2000 * assoc +");
    let eval = |extra: &[&str]| {
        let mut a = vec![
            "eval",
            &formula,
            "--slurm-conf",
            &conf,
            "--jobs",
            &squeue,
            "--qos",
            "high=20",
            "--now",
            "1700043200",
            "--format",
            "json",
        ];
        a.extend(extra);
        run(a)
    };
    let (code, out, err) = eval(&["--associations", &assoc]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(values(&serde_json::from_str(&out).unwrap()), [4790.0]);
    // Without the associations the factor is 0, and said.
    let (code, out, err) = eval(&[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(values(&serde_json::from_str(&out).unwrap()), [4290.0]);
    assert!(
        err.contains("PriorityWeightAssoc is set but no --associations"),
        "{err}"
    );
}

/// `rank` and `eval` with a slurm.conf of PriorityType=priority/multifactor and no formula
/// rank by Slurm's multifactor priority, as Slurm does and as `sim --slurm-conf` does (it was
/// "no formula given"): the values are those of the formula `slurm-formula` prints. With no
/// association tree the fairshare factor is 0 for every job; where its weight is the largest
/// that is a warning.
#[test]
fn a_multifactor_slurm_conf_ranks_without_a_formula() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "slurm.conf", CONF);
    let jobs = write(dir.path(), "jobs.csv", JOBS);
    let common = [
        "--slurm-conf",
        &conf,
        "--jobs",
        &jobs,
        "--now",
        "1700050000",
    ];
    let by_default = jobsort(["rank", "--format", "json"].iter().chain(common.iter()));
    assert_eq!(
        by_default.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&by_default.stderr)
    );
    let printed = jobsort(["slurm-formula", conf.as_str()]);
    let formula = String::from_utf8(printed.stdout).unwrap();
    let explicit = jobsort(
        ["rank", formula.trim(), "--format", "json"]
            .iter()
            .chain(common.iter()),
    );
    assert_eq!(json(&by_default)["order"], json(&explicit)["order"]);
    // CONF's largest weight is PriorityWeightFairshare; JOBS give `fairshare` columns, so no
    // warning; without them the factor is 0 for every job and the order is another's.
    let bare = write(
        dir.path(),
        "bare.csv",
        "id,queue,user,accrue_time,ncpus,nodect,walltime\n1,batch,ann,1700000000,16,1,3600\n",
    );
    let out = jobsort(["rank", "--slurm-conf", &conf, "--jobs", &bare]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "the fairshare factor is 0 for every job while PriorityWeightFairshare (10000) is the largest weight"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let quiet = jobsort(["rank", "--format", "json"].iter().chain(common.iter()));
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("fairshare factor is 0"));
}

/// `squeue --json` of Slurm 23.02 and later (data_parser v0.0.40+: numbers as
/// `{"set": true, "infinite": false, "number": N}`) is read as 22.05's openapi v0.0.38 is
/// (it was refused: `jobs[1].cpus: expected an integer`).
#[test]
fn squeue_json_of_data_parser_v0_0_40_is_read() {
    let squeue = common::cli::repo_file("tests/data/snapshot/slurm/squeue.json");
    let out = jobsort([
        "rank",
        "jobsize",
        "--scheduler",
        "slurm",
        "--jobs",
        &squeue,
        "--all",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = json(&out)["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
}

/// A real capture of Slurm 24.11.5 (Debian 13; `contrib/slurm/e2e-current.sh`, its multifactor
/// step): `squeue --json` of data_parser v0.0.42 (numbers as `{"set","infinite","number"}`,
/// `job_state` an array, memory in TRES strings as `62.50G`), `sshare -a -l -P` and `sprio -h -o
/// '%i|%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T'` taken at the same instant, and the slurm.conf they ran
/// under. `rank --explain` gives every job sprio's PRIORITY and each weighted column
/// (`priority_multifactor.c`: `_get_priority_internal`, `priority_p_get_priority_factors_list`).
#[test]
fn a_slurm_24_11_capture_ranks_as_its_sprio() {
    let dir = |f: &str| common::cli::repo_file(&format!("tests/data/slurm-24.11/{f}"));
    let conf = dir("slurm.conf");
    let out = jobsort(["slurm-formula", &conf]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let formula = String::from_utf8(out.stdout).unwrap();
    let (squeue, sshare) = (dir("squeue.json"), dir("sshare.txt"));
    let out = jobsort([
        "rank",
        formula.trim(),
        "--scheduler",
        "slurm",
        "--slurm-conf",
        &conf,
        "--jobs",
        &squeue,
        "--qos",
        "normal=0",
        "--qos",
        "high=100",
        "--fairshare-tree",
        &sshare,
        // squeue's last_update: the capture's instant (every job's accrue_time is unset, so
        // the age factor is 0 whatever the time)
        "--now",
        "1796576954",
        "--explain",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cols = [
        "SITE",
        "AGE",
        "ASSOC",
        "FAIRSHARE",
        "JOBSIZE",
        "PARTITION",
        "QOS",
        "NICE",
        "TRES",
    ];
    let mut ours: Vec<Vec<String>> = json(&out)["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let terms: std::collections::BTreeMap<&str, String> = r["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["term"].as_str().unwrap(),
                        t["value"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            let mut row = vec![
                r["id"].as_str().unwrap().to_string(),
                format!("{}", r["value"].as_f64().unwrap() as i64),
            ];
            row.extend(cols.iter().map(|c| terms[c].clone()));
            row
        })
        .collect();
    ours.sort_by_key(|r| r[0].parse::<u32>().unwrap());
    let sprio = std::fs::read_to_string(dir("sprio.txt")).unwrap();
    let theirs: Vec<Vec<String>> = sprio
        .lines()
        .map(|l| l.split('|').map(|f| f.trim().to_string()).collect())
        .collect();
    assert_eq!(theirs.len(), 8);
    assert_eq!(ours, theirs);
}
