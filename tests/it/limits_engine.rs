//! Limit engine behaviour beyond the upstream cases: flux's node/core overshoot and the
//! `count_sched_in_resources` fix, bad input leaving the engine unchanged, configuration
//! errors, the flux-accounting database loader and the query shape.

use jobsort::flux::limits::events::{apply, parse_event_line, parse_events};
#[cfg(feature = "flux-db")]
use jobsort::flux::limits::flux_db::load_flux_db;
use jobsort::flux::limits::{
    AssocUpdate, Change, Dependency, JobSpec, JobState, LimitEngine, LimitError, LimitsConfig,
    SubmitOutcome,
};
use serde_json::{Value, json};

fn engine(toml: &str) -> LimitEngine {
    LimitEngine::from_config(&LimitsConfig::parse("test.toml", toml).unwrap()).unwrap()
}

fn job(id: &str, nnodes: i64) -> JobSpec {
    JobSpec {
        id: id.into(),
        user: "u".into(),
        bank: None,
        queue: None,
        nnodes,
        ncores: nnodes,
    }
}

fn snapshot(e: &LimitEngine) -> String {
    serde_json::to_string(&e.query()).unwrap()
}

/// With limits of `i64::MAX`, two jobs of `i64::MAX` nodes used to pass
/// every check and wrap the counters (`cur_nodes = -2` in a release build). Sizes are
/// flux's C `int`: a larger one is an error naming the field, at the engine and in event
/// files, and the largest valid sizes keep every counter exact.
#[test]
fn job_sizes_beyond_flux_int_are_errors_naming_the_field() {
    let unlimited = "[[association]]\nuser='u'\nbank='A'\nmax_nodes=9223372036854775807\n\
        max_cores=9223372036854775807\nmax_running_jobs=100\nmax_active_jobs=100\n";
    let mut e = engine(unlimited);
    let before = snapshot(&e);
    for (nnodes, ncores, field) in [
        (i64::MAX, 1, "nnodes"),
        (1, i64::MAX, "ncores"),
        (1, -1, "ncores"),
    ] {
        let spec = JobSpec {
            ncores,
            ..job("huge", nnodes)
        };
        match e.submit(spec) {
            Err(LimitError::InvalidJob { job, reason }) => {
                assert_eq!(job, "huge");
                assert!(reason.starts_with(&format!("{field} = ")), "{reason}");
                assert!(reason.contains("2147483647"), "{reason}");
            }
            other => panic!("{nnodes} nodes, {ncores} cores: {other:?}"),
        }
        assert_eq!(snapshot(&e), before);
    }
    for id in ["a", "b", "c"] {
        assert_eq!(
            e.submit(job(id, i64::from(i32::MAX))).unwrap(),
            SubmitOutcome::Ready
        );
        e.run(id).unwrap();
    }
    let a = &e.associations()[0].counters;
    assert_eq!(
        (a.cur_nodes, a.cur_cores),
        (3 * i64::from(i32::MAX), 3 * i64::from(i32::MAX))
    );
    e.check_consistency().unwrap();

    let line = format!(
        r#"{{"op":"submit","job":"x","user":"u","nnodes":{}}}"#,
        i64::MAX
    );
    let err = parse_event_line("ev.jsonl", 7, &line)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("ev.jsonl:7: nnodes = 9223372036854775807 is out of range"),
        "{err}"
    );
}

const OVERSHOOT: &str =
    "[[association]]\nuser='u'\nbank='A'\nmax_nodes=4\nmax_running_jobs=100\nmax_active_jobs=100\n";

/// Two held jobs that each fit the headroom freed by one ending job are both released in
/// one pass (max-resources-user-limit has no pending adjustment and counts RUN only), and
/// both run: 6 nodes against max_nodes 4. This is flux's behaviour (reference §2.5).
#[test]
fn flux_overshoots_max_nodes_by_default() {
    let mut e = engine(OVERSHOOT);
    assert_eq!(e.submit(job("big", 4)).unwrap(), SubmitOutcome::Ready);
    e.run("big").unwrap();
    let held = SubmitOutcome::Held(vec![Dependency::MaxResourcesUser]);
    assert_eq!(e.submit(job("j2", 3)).unwrap(), held);
    assert_eq!(e.submit(job("j3", 3)).unwrap(), held);
    let changes = e.end("big").unwrap();
    let released: Vec<&str> = changes
        .iter()
        .filter_map(|c| match c {
            Change::State {
                job,
                state: JobState::Sched,
            } => Some(job.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(released, ["j2", "j3"]);
    e.run("j2").unwrap();
    e.run("j3").unwrap();
    let a = &e.associations()[0];
    assert_eq!(a.counters.cur_nodes, 6, "flux overshoots max_nodes=4");
    e.check_consistency().unwrap();

    // A job submitted while another is in SCHED also passes: SCHED nodes do not count.
    let mut e = engine(OVERSHOOT);
    assert_eq!(e.submit(job("a", 3)).unwrap(), SubmitOutcome::Ready);
    assert_eq!(e.submit(job("b", 3)).unwrap(), SubmitOutcome::Ready);
}

/// With `count_sched_in_resources` the same sequence releases one job per headroom.
#[test]
fn count_sched_in_resources_closes_the_overshoot() {
    let toml = format!("[options]\ncount_sched_in_resources = true\n{OVERSHOOT}");
    let mut e = engine(&toml);
    e.submit(job("big", 4)).unwrap();
    e.run("big").unwrap();
    e.submit(job("j2", 3)).unwrap();
    e.submit(job("j3", 3)).unwrap();
    let changes = e.end("big").unwrap();
    assert_eq!(
        serde_json::to_value(&changes).unwrap(),
        json!([
            {"job": "big", "state": "inactive"},
            {"job": "j2", "dependency_remove": "max-resources-user-limit"},
            {"job": "j2", "state": "sched"},
        ])
    );
    assert!(e.run("j3").is_err(), "j3 is still held");
    e.run("j2").unwrap();
    assert_eq!(e.job("j3").unwrap().state, JobState::Depend);
    let changes = e.end("j2").unwrap();
    assert!(changes.contains(&Change::State {
        job: "j3".into(),
        state: JobState::Sched
    }));
    e.run("j3").unwrap();
    assert_eq!(e.associations()[0].counters.cur_nodes, 3);

    let mut e = engine(&toml);
    assert_eq!(e.submit(job("a", 3)).unwrap(), SubmitOutcome::Ready);
    assert_eq!(
        e.submit(job("b", 3)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxResourcesUser])
    );
    e.check_consistency().unwrap();
}

#[test]
fn bad_operations_leave_the_engine_unchanged() {
    let mut e =
        engine("[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=1\n[[queue]]\nname='q'\n");
    e.submit(job("j1", 1)).unwrap();
    e.run("j1").unwrap();
    e.submit(job("j2", 1)).unwrap(); // held
    e.submit(job("j3", 1)).unwrap(); // held
    let before = snapshot(&e);

    assert_eq!(e.run("nope"), Err(LimitError::UnknownJob("nope".into())));
    assert_eq!(e.end("nope"), Err(LimitError::UnknownJob("nope".into())));
    assert!(matches!(e.run("j2"), Err(LimitError::NotSched { .. })));
    assert!(matches!(e.run("j1"), Err(LimitError::NotSched { .. })));
    assert_eq!(
        e.submit(job("j1", 1)),
        Err(LimitError::DuplicateJob("j1".into()))
    );
    assert!(matches!(
        e.submit(job("neg", -1)),
        Err(LimitError::InvalidJob { .. })
    ));
    assert!(matches!(
        e.update_association("u", "B", &AssocUpdate::default()),
        Err(LimitError::UnknownAssociation { .. })
    ));
    assert!(matches!(
        e.update_association(
            "u",
            "A",
            &AssocUpdate {
                queues: Some(vec!["nope".into()]),
                max_running_jobs: Some(5),
                ..Default::default()
            }
        ),
        Err(LimitError::UnknownQueue(_))
    ));
    assert!(matches!(
        e.update_queue("nope", &Default::default()),
        Err(LimitError::UnknownQueue(_))
    ));
    assert_eq!(snapshot(&e), before);

    e.end("j2").unwrap();
    assert_eq!(e.end("j2"), Err(LimitError::AlreadyInactive("j2".into())));
    let msg = e.run("j3").unwrap_err().to_string();
    assert_eq!(
        msg,
        "cannot run job \"j3\": it is held in DEPEND, not in SCHED"
    );
}

#[test]
fn hard_limits_reject_with_messages() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_nodes=2\nmax_cores=4\nqueues=['q']\nmax_active_jobs=1\n\
         [[association]]\nuser='v'\nbank='A'\nactive=false\n\
         [[queue]]\nname='q'\nmax_nodes_per_assoc=1\n[[queue]]\nname='r'\n",
    );
    let rejected = |o: SubmitOutcome| match o {
        SubmitOutcome::Rejected(m) => m,
        other => panic!("not rejected: {other:?}"),
    };
    let m = rejected(e.submit(job("big", 3)).unwrap());
    assert!(m.contains("greater than max resources limits"), "{m}");
    let mut s = job("q2", 2);
    s.queue = Some("q".into());
    let m = rejected(e.submit(s).unwrap());
    assert!(m.contains("configured for queue (1 node(s))"), "{m}");
    let mut s = job("r", 1);
    s.queue = Some("r".into());
    assert_eq!(
        rejected(e.submit(s).unwrap()),
        "queue \"r\" not valid for user; valid queues for user: q"
    );
    let mut s = job("x", 1);
    s.user = "nobody".into();
    let m = rejected(e.submit(s).unwrap());
    assert!(m.starts_with("cannot find user/bank"), "{m}");
    let mut s = job("inactive", 1);
    s.user = "v".into();
    assert_eq!(
        rejected(e.submit(s).unwrap()),
        "user/bank entry has been disabled from flux-accounting DB"
    );
    assert_eq!(e.submit(job("ok", 1)).unwrap(), SubmitOutcome::Ready);
    assert_eq!(
        rejected(e.submit(job("over", 1)).unwrap()),
        "user has max active jobs"
    );
    // Rejected jobs are known and inactive; a reused id is a duplicate.
    assert_eq!(e.job("over").unwrap().state, JobState::Inactive);
    assert!(e.submit(job("over", 1)).is_err());
    assert_eq!(e.associations()[0].counters.cur_active_jobs, 1);
    e.check_consistency().unwrap();
}

#[test]
fn update_resets_to_default_and_releases() {
    let mut e = engine("[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=1\n");
    e.submit(job("j1", 1)).unwrap();
    e.run("j1").unwrap();
    e.submit(job("j2", 1)).unwrap();
    let ch = e
        .update_association(
            "u",
            "A",
            &AssocUpdate {
                max_running_jobs: Some(-1),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(e.associations()[0].limits.max_running_jobs, 5);
    assert_eq!(
        ch,
        vec![
            Change::DependencyRemove {
                job: "j2".into(),
                dependency_remove: Dependency::MaxRunningJobsUser
            },
            Change::State {
                job: "j2".into(),
                state: JobState::Sched
            }
        ]
    );
}

#[test]
fn query_has_flux_shape_and_fifo_held_jobs() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nuserid=5011\nmax_running_jobs=0\nqueues=['q']\n[[queue]]\nname='q'\npriority=3\n",
    );
    for id in ["z", "a", "m"] {
        let mut s = job(id, 1);
        s.queue = Some("q".into());
        e.submit(s).unwrap();
    }
    let text = serde_json::to_string(&e.query()).unwrap();
    let z = text.find("\"z\"").unwrap();
    let a = text.find("\"a\"").unwrap();
    assert!(z < a, "held_jobs keep FIFO order: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let bank = &v["mf_priority_map"][0]["banks"][0];
    assert_eq!(v["mf_priority_map"][0]["userid"], 5011);
    assert_eq!(bank["bank_name"], "A");
    assert_eq!(bank["max_run_jobs"], 0);
    assert_eq!(bank["cur_active_jobs"], 3);
    assert_eq!(bank["queues"], "q");
    assert_eq!(bank["active"], 1);
    assert_eq!(
        bank["held_jobs"]["a"],
        json!({"nnodes": 1, "ncores": 1, "queue": "q", "deps": ["max-running-jobs-user-limit"]})
    );
    assert_eq!(bank["queue_usage"]["q"]["cur_run_jobs"], 0);
    assert_eq!(v["queues"]["q"]["priority"], 3);
    assert_eq!(v["queues"]["q"]["max_running_jobs"], 100);
}

#[test]
fn config_errors_are_located() {
    let err = |name: &str, text: &str| LimitsConfig::parse(name, text).unwrap_err().to_string();
    let e = err(
        "c.toml",
        "[[association]]\nuser = 'u'\nbank = 'A'\nmax_nodes = 'x'\n",
    );
    assert!(e.starts_with("c.toml:4: "), "{e}");
    let e = err(
        "c.toml",
        "[[association]]\nuser = 'u'\nbank = 'A'\nmax_node = 2\n",
    );
    assert!(e.starts_with("c.toml:4: ") && e.contains("max_node"), "{e}");
    let e = err("c.toml", "[[association]]\nuser = 'u'\n");
    assert!(e.starts_with("c.toml:1: ") && e.contains("bank"), "{e}");
    let e = err(
        "c.toml",
        "[[association]]\nuser='u'\nbank='A'\n[[association]]\nuser='u'\nbank='A'\n",
    );
    assert_eq!(e, "c.toml: association[1] (u/A): duplicate association");
    let e = err(
        "c.toml",
        "[[association]]\nuser='u'\nbank='A'\nqueues=['gold']\n",
    );
    assert_eq!(
        e,
        "c.toml: association[0] (u/A): queue \"gold\" is not defined by any [[queue]]"
    );
    let e = err("c.toml", "[[queue]]\nname='q'\n[[queue]]\nname='q'\n");
    assert_eq!(e, "c.toml: queue[1]: duplicate queue \"q\"");
    let e = err(
        "c.json",
        "{\"association\": [\n{\"user\": \"u\", \"bank\": 3}]}",
    );
    assert!(e.starts_with("c.json:2: "), "{e}");

    // JSON with the same shape, aliases and defaults.
    let c = LimitsConfig::parse(
        "c.json",
        r#"{"options": {"count_sched_in_resources": true},
            "associations": [{"user": "u", "bank": "A", "max_cores": -1, "max_active_jobs": 3}],
            "queues": [{"name": "q", "max_running_jobs": -1}]}"#,
    )
    .unwrap();
    assert!(c.options.count_sched_in_resources);
    assert_eq!(c.associations[0].limits.max_cores, 2147483647);
    assert_eq!(c.associations[0].limits.max_active_jobs, 3);
    assert_eq!(c.associations[0].limits.max_running_jobs, 5);
    assert_eq!(c.queues[0].limits.max_running_jobs, 100);
}

#[test]
fn event_errors_are_located() {
    let e = parse_events(
        "ev.jsonl",
        "{\"op\":\"run\",\"job\":\"a\"}\n\n{\"op\":\"fly\"}\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("ev.jsonl:3: ") && e.contains("fly"), "{e}");
    let e = parse_event_line("ev.jsonl", 7, "{\"op\":\"run\"")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("ev.jsonl:7: "), "{e}");
    let e = parse_event_line("ev.jsonl", 1, r#"{"op":"run","job":"a","x":1}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field"), "{e}");
    let e = parse_event_line("ev.jsonl", 2, r#"{"op":"update"}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "ev.jsonl:2: update needs exactly one of \"association\" or \"queue\""
    );
    // nnodes defaults to 1 and ncores to nnodes.
    let op = parse_event_line(
        "ev.jsonl",
        1,
        r#"{"op":"submit","job":"a","user":"u","nnodes":3}"#,
    )
    .unwrap();
    match op {
        jobsort::flux::limits::events::Op::Submit(s) => assert_eq!((s.nnodes, s.ncores), (3, 3)),
        other => panic!("{other:?}"),
    }
    // In an event file an unknown association is an input error, not a rejection.
    let mut eng = engine("[[association]]\nuser='u'\nbank='A'\n");
    let op = parse_event_line("ev.jsonl", 1, r#"{"op":"submit","job":"a","user":"x"}"#).unwrap();
    let before = snapshot(&eng);
    assert!(matches!(
        apply(&mut eng, 1, &op),
        Err(LimitError::UnknownAssociation { .. })
    ));
    assert_eq!(snapshot(&eng), before);
}

/// A flux-accounting database (schema 38, or the older one without `max_sched_jobs`).
#[cfg(feature = "flux-db")]
fn flux_db(path: &std::path::Path, with_sched_columns: bool) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let sched = if with_sched_columns {
        ", max_sched_jobs int(11) DEFAULT 2147483647 NOT NULL"
    } else {
        ""
    };
    // Columns of flux-accounting create_db.py (schema 38), reference §2.1.
    conn.execute_batch(&format!(
        "CREATE TABLE association_table (
            creation_time bigint(20) NOT NULL, mod_time bigint(20) DEFAULT 0 NOT NULL,
            active int(11) DEFAULT 1 NOT NULL, username tinytext NOT NULL,
            userid int(11) DEFAULT 65534 NOT NULL, bank tinytext NOT NULL,
            default_bank tinytext NOT NULL, shares int(11) DEFAULT 1 NOT NULL,
            job_usage real DEFAULT 0.0 NOT NULL, fairshare real DEFAULT 0.5 NOT NULL,
            max_running_jobs int(11) DEFAULT 5 NOT NULL, max_active_jobs int(11) DEFAULT 7 NOT NULL,
            max_nodes int(11) DEFAULT 2147483647 NOT NULL, max_cores int(11) DEFAULT 2147483647 NOT NULL,
            queues tinytext DEFAULT '' NOT NULL, projects tinytext DEFAULT '*' NOT NULL,
            default_project tinytext DEFAULT '*' NOT NULL{sched},
            PRIMARY KEY (username, bank));
         CREATE TABLE queue_table (
            queue tinytext NOT NULL, min_nodes_per_job int(11) DEFAULT 1 NOT NULL,
            max_nodes_per_job int(11) DEFAULT 1 NOT NULL, max_time_per_job int(11) DEFAULT 60 NOT NULL,
            priority int(11) DEFAULT 0 NOT NULL, max_running_jobs int(11) DEFAULT 100 NOT NULL,
            max_nodes_per_assoc int(11) DEFAULT 2147483647 NOT NULL,
            max_sched_jobs int(11) DEFAULT 2147483647 NOT NULL,
            max_sched_nodes_per_assoc int(11) DEFAULT 2147483647 NOT NULL,
            max_sched_cores_per_assoc int(11) DEFAULT 2147483647 NOT NULL,
            max_nodes int(11) DEFAULT 2147483647 NOT NULL, max_cores int(11) DEFAULT 2147483647 NOT NULL,
            PRIMARY KEY (queue));
         INSERT INTO association_table (creation_time, username, userid, bank, default_bank, max_running_jobs, queues)
            VALUES (0, 'user1', 5011, 'A', 'B', 2, 'bronze,silver');
         INSERT INTO association_table (creation_time, username, userid, bank, default_bank, active, max_nodes)
            VALUES (0, 'user1', 5011, 'B', 'B', 1, 3);
         INSERT INTO association_table (creation_time, username, userid, bank, default_bank, active)
            VALUES (0, 'user2', 5012, 'A', 'A', 0);
         INSERT INTO queue_table (queue, priority, max_running_jobs) VALUES ('bronze', 100, 3);
         INSERT INTO queue_table (queue, max_sched_nodes_per_assoc) VALUES ('silver', 4);"
    ))
    .unwrap();
}

#[test]
#[cfg(feature = "flux-db")]
fn loads_flux_accounting_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("FluxAccounting.db");
    flux_db(&path, true);
    let c = load_flux_db(&path).unwrap();
    assert_eq!(c.associations.len(), 3);
    let a = &c.associations[0];
    assert_eq!(
        (a.user.as_str(), a.bank.as_str(), a.userid),
        ("user1", "A", 5011)
    );
    assert_eq!(a.limits.max_running_jobs, 2);
    assert_eq!(a.limits.max_active_jobs, 7);
    assert_eq!(a.limits.queues, ["bronze", "silver"]);
    assert!(!a.default_bank);
    assert!(c.associations[1].default_bank);
    assert_eq!(c.associations[1].limits.max_nodes, 3);
    assert!(!c.associations[2].limits.active);
    assert_eq!(c.queues[0].name, "bronze");
    assert_eq!(c.queues[0].limits.priority, 100);
    assert_eq!(c.queues[0].limits.max_running_jobs, 3);
    assert_eq!(c.queues[1].limits.max_sched_nodes_per_assoc, 4);

    // The default bank from the database is used when a job names no bank.
    let mut e = LimitEngine::from_config(&c).unwrap();
    let mut s = job("j", 1);
    s.user = "user1".into();
    e.submit(s).unwrap();
    assert_eq!(e.associations()[e.job("j").unwrap().assoc].bank, "B");

    // An older schema without max_sched_jobs takes the default.
    let old = dir.path().join("old.db");
    flux_db(&old, false);
    let c = load_flux_db(&old).unwrap();
    assert_eq!(c.associations[0].limits.max_sched_jobs, 2147483647);

    // Not a flux-accounting database.
    let empty = dir.path().join("empty.db");
    rusqlite::Connection::open(&empty)
        .unwrap()
        .execute_batch("CREATE TABLE t (x int);")
        .unwrap();
    let err = load_flux_db(&empty).unwrap_err().to_string();
    assert!(err.contains("queue_table: table not found"), "{err}");
    let err = load_flux_db(&dir.path().join("missing.db"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot open database"), "{err}");
}

/// A job held by another limit while it still fitted the node headroom: flux re-checks
/// only its held dependency and releases it into an overshoot; with the option it gets
/// `max-resources-user-limit` at release time (found by the property test).
#[test]
fn count_sched_rechecks_resources_at_release() {
    let base = "[[association]]\nuser='u'\nbank='A'\nmax_nodes=4\nmax_sched_jobs=1\nmax_running_jobs=100\nmax_active_jobs=100\n";
    for count_sched in [false, true] {
        let toml = format!("[options]\ncount_sched_in_resources = {count_sched}\n{base}");
        let mut e = engine(&toml);
        assert_eq!(e.submit(job("j1", 2)).unwrap(), SubmitOutcome::Ready);
        let held = SubmitOutcome::Held(vec![Dependency::MaxSchedJobsUser]);
        assert_eq!(e.submit(job("j2", 2)).unwrap(), held);
        assert_eq!(e.submit(job("j3", 1)).unwrap(), held);
        e.run("j1").unwrap(); // j2 released, j3 still at max_sched_jobs
        assert_eq!(e.job("j3").unwrap().state, JobState::Depend);
        let changes = serde_json::to_value(e.run("j2").unwrap()).unwrap();
        if count_sched {
            assert_eq!(
                changes,
                json!([
                    {"job": "j2", "state": "run"},
                    {"job": "j3", "dependency_remove": "max-sched-jobs-user-limit"},
                    {"job": "j3", "dependency_add": "max-resources-user-limit"},
                ])
            );
            assert_eq!(e.job("j3").unwrap().deps, [Dependency::MaxResourcesUser]);
        } else {
            assert_eq!(
                changes,
                json!([
                    {"job": "j2", "state": "run"},
                    {"job": "j3", "dependency_remove": "max-sched-jobs-user-limit"},
                    {"job": "j3", "state": "sched"},
                ])
            );
            e.run("j3").unwrap();
            assert_eq!(e.associations()[0].counters.cur_nodes, 5, "flux overshoots");
        }
        e.check_consistency().unwrap();
    }
}

/// `max_running_jobs` counts RUN jobs only, and a submission is checked
/// when it reaches DEPEND, so jobs that passed while earlier ones waited in SCHED all run:
/// with `max_running_jobs = 1`, two submissions both enter SCHED and both run (flux's
/// `max-running-jobs-user-limit` and `max-run-jobs-queue` compare `cur_run_jobs` only;
/// reference `slurm_flux.md` §"Release": "the assoc and queue max-running-jobs limits
/// ignore jobs in SCHED at DEPEND time"). With `count_sched_in_resources` SCHED jobs
/// count too: the second is held until the first ends.
#[test]
fn count_sched_closes_the_running_jobs_overshoot() {
    for (assoc_max, queue, dep) in [
        (1, None, Dependency::MaxRunningJobsUser),
        (10, Some("q"), Dependency::MaxRunJobsQueue),
    ] {
        let base = format!(
            "[[association]]\nuser='u'\nbank='A'\nmax_running_jobs={assoc_max}\n\
             max_active_jobs=10\nqueues=['q']\n[[queue]]\nname='q'\nmax_running_jobs=1\n"
        );
        let at = |id: &str| JobSpec {
            queue: queue.map(String::from),
            ..job(id, 1)
        };
        let mut e = engine(&base);
        assert_eq!(e.submit(at("a")).unwrap(), SubmitOutcome::Ready);
        assert_eq!(e.submit(at("b")).unwrap(), SubmitOutcome::Ready);
        e.run("a").unwrap();
        e.run("b").unwrap();
        assert_eq!(
            e.associations()[0].counters.cur_run_jobs,
            2,
            "flux overshoots"
        );

        let mut e = engine(&format!(
            "[options]\ncount_sched_in_resources = true\n{base}"
        ));
        assert_eq!(e.submit(at("a")).unwrap(), SubmitOutcome::Ready);
        let held = e.submit(at("b")).unwrap();
        let SubmitOutcome::Held(deps) = held else {
            panic!("b must be held: {held:?}");
        };
        assert_eq!(deps, [dep], "{queue:?}");
        e.run("a").unwrap();
        assert_eq!(e.job("b").unwrap().state, JobState::Depend, "a is running");
        let changes = e.end("a").unwrap();
        assert!(changes.contains(&Change::State {
            job: "b".into(),
            state: JobState::Sched
        }));
        e.run("b").unwrap();
        assert_eq!(e.associations()[0].counters.cur_run_jobs, 1);
        e.check_consistency().unwrap();
    }
}

#[test]
fn forget_only_inactive_jobs() {
    let mut e = engine("[[association]]\nuser='u'\nbank='A'\n");
    e.submit(job("a", 1)).unwrap();
    assert!(!e.forget("a"), "a live job is kept");
    assert!(!e.forget("nope"));
    e.end("a").unwrap();
    assert!(e.forget("a"));
    assert!(e.job("a").is_none());
    assert_eq!(e.submit(job("a", 1)).unwrap(), SubmitOutcome::Ready);
    e.check_consistency().unwrap();
}
