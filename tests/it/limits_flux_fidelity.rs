//! The limit engine against what a live flux-core + flux-accounting instance does where the
//! two used to differ: the release pass's running-jobs headroom, urgency changes of SCHED
//! jobs, queues of an association without any, the order associations are walked on an
//! update, the rejection texts, and the query's queue usage of jobs without a queue.
//!
//! Upstream: flux-framework/flux-accounting, `src/plugins/mf_priority.cpp`
//! (`check_and_release_held_jobs`, `validate_cb`, `new_cb`, `sched_cb`, `reprior_cb`) and
//! `src/plugins/accounting.cpp` (`Association`, `get_queue_info`).

use jobsort::flux::limits::{
    Change, Dependency, JobSpec, JobState, LimitEngine, LimitsConfig, SubmitOutcome,
};

fn engine(toml: &str) -> LimitEngine {
    LimitEngine::from_config(&LimitsConfig::parse("test.toml", toml).unwrap()).unwrap()
}

fn spec(id: &str, user: &str, queue: Option<&str>, ncores: i64) -> JobSpec {
    JobSpec {
        id: id.into(),
        user: user.into(),
        bank: None,
        queue: queue.map(str::to_string),
        nnodes: 1,
        ncores,
    }
}

fn entered_sched(changes: &[Change]) -> Vec<&str> {
    changes.iter().filter_map(Change::entered_sched).collect()
}

/// `check_and_release_held_jobs` adds a released job to `released_assoc_run` only when the
/// pass removed its `max-running-jobs-user-limit` (`job_assoc_run`). j2 is held by
/// `max-resources-user-limit` alone, so releasing it takes no running-jobs headroom, and
/// j4's `max-running-jobs-user-limit` goes in the same pass: live flux runs 3 jobs on 5
/// cores against `max_running_jobs = 2` and `max_cores = 4`.
#[test]
fn release_reserves_run_headroom_only_for_jobs_released_from_that_limit() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=2\nmax_cores=4\nmax_active_jobs=10\n",
    );
    assert_eq!(
        e.submit(spec("j1", "u", None, 2)).unwrap(),
        SubmitOutcome::Ready
    );
    e.run("j1").unwrap();
    assert_eq!(
        e.submit(spec("j2", "u", None, 3)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxResourcesUser])
    );
    assert_eq!(
        e.submit(spec("j3", "u", None, 1)).unwrap(),
        SubmitOutcome::Ready
    );
    e.run("j3").unwrap();
    assert_eq!(
        e.submit(spec("j4", "u", None, 1)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxRunningJobsUser])
    );
    let changes = e.end("j1").unwrap();
    assert_eq!(entered_sched(&changes), ["j2", "j4"]);
    e.run("j2").unwrap();
    e.run("j4").unwrap();
    let c = &e.associations()[0].counters;
    assert_eq!((c.cur_run_jobs, c.cur_cores), (3, 5));
    e.check_consistency().unwrap();
}

/// The same for the queue's limit: `released_queue_run` counts only jobs whose
/// `max-run-jobs-queue` the pass removed (`job_queue_run`).
#[test]
fn release_reserves_queue_run_headroom_only_for_jobs_released_from_that_limit() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=100\nmax_cores=4\n\
         max_active_jobs=10\nqueues=['q']\n[[queue]]\nname='q'\nmax_running_jobs=2\n",
    );
    let q = Some("q");
    assert_eq!(
        e.submit(spec("j1", "u", q, 2)).unwrap(),
        SubmitOutcome::Ready
    );
    e.run("j1").unwrap();
    assert_eq!(
        e.submit(spec("j2", "u", q, 3)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxResourcesUser])
    );
    assert_eq!(
        e.submit(spec("j3", "u", q, 1)).unwrap(),
        SubmitOutcome::Ready
    );
    e.run("j3").unwrap();
    assert_eq!(
        e.submit(spec("j4", "u", q, 1)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxRunJobsQueue])
    );
    let changes = e.end("j1").unwrap();
    assert_eq!(entered_sched(&changes), ["j2", "j4"]);
    e.check_consistency().unwrap();
}

/// Two jobs held by `max-running-jobs-user-limit` still cannot share one freed slot: the
/// first one released from that limit reserves it.
#[test]
fn jobs_released_from_the_running_jobs_limit_still_reserve_their_slot() {
    let mut e =
        engine("[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=1\nmax_active_jobs=10\n");
    assert_eq!(
        e.submit(spec("j1", "u", None, 1)).unwrap(),
        SubmitOutcome::Ready
    );
    e.run("j1").unwrap();
    for id in ["j2", "j3"] {
        assert_eq!(
            e.submit(spec(id, "u", None, 1)).unwrap(),
            SubmitOutcome::Held(vec![Dependency::MaxRunningJobsUser])
        );
    }
    let changes = e.end("j1").unwrap();
    assert_eq!(entered_sched(&changes), ["j2"]);
    assert_eq!(e.job("j3").unwrap().state, JobState::Depend);
}

/// After an update `reprior_cb` runs `check_and_release_held_jobs` for every association in
/// the plugin's map order: users by uid (`std::map<int, ...>`), then banks by name
/// (`std::map<std::string, Association>`), not in database row order.
#[test]
fn an_update_releases_associations_by_uid_then_bank_name() {
    let mut e = engine(
        "[[association]]\nuser='u2'\nuserid=2\nbank='B'\nqueues=['q']\n\
         [[association]]\nuser='u1'\nuserid=1\nbank='Z'\nqueues=['q']\n\
         [[association]]\nuser='u1'\nuserid=1\nbank='A'\nqueues=['q']\n\
         [[queue]]\nname='q'\nmax_running_jobs=0\n",
    );
    for (id, user, bank) in [("b", "u2", "B"), ("z", "u1", "Z"), ("a", "u1", "A")] {
        let s = JobSpec {
            bank: Some(bank.into()),
            ..spec(id, user, Some("q"), 1)
        };
        assert_eq!(
            e.submit(s).unwrap(),
            SubmitOutcome::Held(vec![Dependency::MaxRunJobsQueue])
        );
    }
    let update = jobsort::flux::limits::QueueUpdate {
        max_running_jobs: Some(-1),
        ..Default::default()
    };
    let changes = e.update_queue("q", &update).unwrap();
    assert_eq!(entered_sched(&changes), ["a", "z", "b"]);
}

fn rejected(o: SubmitOutcome) -> String {
    match o {
        SubmitOutcome::Rejected(m) => m,
        other => panic!("not rejected: {other:?}"),
    }
}

/// `validate_cb`'s rejection texts, word for word: the association's and the queue's
/// resource limits (flux-accounting's sharness test "test validating job size compared to
/// max resources limits" greps the first two) and a queue the association may not use
/// (`queue "pllm" not valid for user; valid queues for user: pdebug,pci` as users see it).
#[test]
fn rejection_texts_are_flux_words() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_nodes=1\nmax_cores=2\nqueues=['bronze','silver']\n\
         max_active_jobs=10\n[[queue]]\nname='bronze'\nmax_nodes_per_assoc=1\n\
         [[queue]]\nname='silver'\n[[queue]]\nname='gold'\n",
    );
    let two_nodes = JobSpec {
        nnodes: 2,
        ..spec("n2", "u", None, 2)
    };
    assert_eq!(
        rejected(e.submit(two_nodes).unwrap()),
        "job size (2 node(s), 2 core(s)) is greater than max resources limits configured \
         for association (1 node(s), 2 core(s))"
    );
    assert_eq!(
        rejected(e.submit(spec("c64", "u", None, 64)).unwrap()),
        "job size (1 node(s), 64 core(s)) is greater than max resources limits configured \
         for association (1 node(s), 2 core(s))"
    );
    let queue_two_nodes = JobSpec {
        nnodes: 2,
        ..spec("q2", "u", Some("bronze"), 2)
    };
    assert_eq!(
        rejected(e.submit(queue_two_nodes).unwrap()),
        "job size (2 node(s)) is greater than max resources limit configured for queue \
         (1 node(s))"
    );
    assert_eq!(
        rejected(e.submit(spec("g", "u", Some("gold"), 1)).unwrap()),
        "queue \"gold\" not valid for user; valid queues for user: bronze,silver"
    );
}

/// `get_queue_info` looks a known queue up in the association's queue list whatever the
/// list holds, so an association with none may use no queue flux-accounting knows; a job
/// without a queue, or naming a queue flux-accounting does not know, is not affected.
#[test]
fn an_association_without_queues_may_not_use_a_known_queue() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_active_jobs=10\n[[queue]]\nname='bronze'\n",
    );
    assert_eq!(
        rejected(e.submit(spec("b", "u", Some("bronze"), 1)).unwrap()),
        "queue \"bronze\" not valid for user; valid queues for user: "
    );
    assert_eq!(
        e.submit(spec("none", "u", None, 1)).unwrap(),
        SubmitOutcome::Ready
    );
    assert_eq!(
        e.submit(spec("unknown", "u", Some("pdebug"), 1)).unwrap(),
        SubmitOutcome::Ready
    );
}

fn bank(e: &LimitEngine) -> serde_json::Value {
    serde_json::to_value(e.query()).unwrap()["mf_priority_map"][0]["banks"][0].clone()
}

/// The plugin keys an association's per-queue usage by the job's queue name, which is empty
/// for a job without a queue: `flux jobtap query` shows those jobs under `""`.
#[test]
fn jobs_without_a_queue_have_the_empty_queue_usage_entry() {
    let mut e = engine("[[association]]\nuser='u'\nbank='A'\nqueues=['q']\n[[queue]]\nname='q'\n");
    assert!(bank(&e)["queue_usage"].as_object().unwrap().is_empty());
    e.submit(spec("a", "u", None, 2)).unwrap();
    e.submit(spec("b", "u", None, 3)).unwrap();
    e.run("a").unwrap();
    let usage = &bank(&e)["queue_usage"][""];
    assert_eq!(usage["cur_run_jobs"], 1);
    assert_eq!(usage["cur_nodes"], 1);
    assert_eq!(usage["cur_sched_jobs"], 1);
    assert_eq!(usage["cur_sched_nodes"], 1);
    assert_eq!(usage["cur_sched_cores"], 3);
    e.check_consistency().unwrap();
    e.end("a").unwrap();
    e.end("b").unwrap();
    let usage = &bank(&e)["queue_usage"][""];
    assert_eq!(usage["cur_run_jobs"], 0);
    assert_eq!(usage["cur_sched_jobs"], 0);
    assert!(bank(&e)["queue_usage"].get("q").is_none());
    e.check_consistency().unwrap();
}

/// An urgency change moves a SCHED job back to PRIORITY and on to SCHED, and `sched_cb`
/// counts it again in `cur_sched_jobs` and the queue's SCHED jobs, nodes and cores; neither
/// `run_cb` nor `inactive_cb` takes the extra count back, so with `max_sched_jobs = 1` one
/// urgency change holds every later job with `max-sched-jobs-user-limit` for good.
/// `sched_counted_once` counts the job once.
#[test]
fn an_urgency_change_counts_a_sched_job_again_for_good() {
    let config = "[[association]]\nuser='u'\nbank='A'\nmax_sched_jobs=1\nmax_active_jobs=10\n\
                  queues=['q']\n[[queue]]\nname='q'\n";
    let mut e = engine(config);
    assert_eq!(
        e.submit(spec("j1", "u", Some("q"), 4)).unwrap(),
        SubmitOutcome::Ready
    );
    assert_eq!(e.urgency("j1", 20).unwrap(), []);
    assert_eq!(bank(&e)["cur_sched_jobs"], 2);
    let q = &bank(&e)["queue_usage"]["q"];
    assert_eq!(
        (&q["cur_sched_jobs"], &q["cur_sched_cores"]),
        (&2.into(), &8.into())
    );
    e.run("j1").unwrap();
    e.end("j1").unwrap();
    assert_eq!(bank(&e)["cur_sched_jobs"], 1, "never taken back");
    assert_eq!(bank(&e)["queue_usage"]["q"]["cur_sched_nodes"], 1);
    assert_eq!(
        e.submit(spec("j2", "u", Some("q"), 1)).unwrap(),
        SubmitOutcome::Held(vec![Dependency::MaxSchedJobsUser])
    );
    e.check_consistency().unwrap();
    // A held or running job is not affected; bad urgencies and jobs are errors.
    assert_eq!(e.urgency("j2", 0).unwrap(), []);
    assert_eq!(bank(&e)["cur_sched_jobs"], 1);
    assert!(e.urgency("j2", 32).is_err());
    assert!(e.urgency("j1", 16).is_err(), "inactive");
    assert!(e.urgency("nope", 16).is_err());

    let mut e = engine(&format!("[options]\nsched_counted_once = true\n{config}"));
    e.submit(spec("j1", "u", Some("q"), 4)).unwrap();
    e.urgency("j1", 20).unwrap();
    assert_eq!(bank(&e)["cur_sched_jobs"], 1);
    e.run("j1").unwrap();
    assert_eq!(
        e.submit(spec("j2", "u", Some("q"), 1)).unwrap(),
        SubmitOutcome::Ready
    );
    e.check_consistency().unwrap();
}

/// The event file's `urgency` op, located errors for an out-of-range urgency.
#[test]
fn urgency_events_parse_and_apply() {
    use jobsort::flux::limits::events::{apply, parse_event_line};
    let mut e = engine("[[association]]\nuser='u'\nbank='A'\n");
    let submit = parse_event_line("ev", 1, r#"{"op":"submit","job":"a","user":"u"}"#).unwrap();
    apply(&mut e, 1, &submit).unwrap();
    let op = parse_event_line("ev", 2, r#"{"op":"urgency","job":"a","urgency":31}"#).unwrap();
    let rec = apply(&mut e, 2, &op).unwrap();
    assert_eq!(rec.op, "urgency");
    assert_eq!(rec.associations[0].cur_sched_jobs, 2);
    let err = parse_event_line("ev", 3, r#"{"op":"urgency","job":"a","urgency":-1}"#)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "ev:3: urgency -1 is out of range (0 to 31)");
}

/// `new_cb` stores the new job's queue factor on the association, so the query shows the
/// queue priority of the association's last accepted job (0 for no queue); a rejected job
/// never reaches `new_cb`.
#[test]
fn the_query_shows_the_queue_factor_of_the_last_accepted_job() {
    let mut e = engine(
        "[[association]]\nuser='u'\nbank='A'\nmax_active_jobs=10\nqueues=['bronze','silver']\n\
         [[queue]]\nname='bronze'\npriority=7\n[[queue]]\nname='silver'\npriority=3\n\
         [[queue]]\nname='gold'\npriority=9\n",
    );
    assert_eq!(bank(&e)["queue_factor"], 0);
    e.submit(spec("a", "u", Some("bronze"), 1)).unwrap();
    assert_eq!(bank(&e)["queue_factor"], 7);
    rejected(e.submit(spec("g", "u", Some("gold"), 1)).unwrap());
    assert_eq!(bank(&e)["queue_factor"], 7);
    e.submit(spec("b", "u", Some("silver"), 1)).unwrap();
    assert_eq!(bank(&e)["queue_factor"], 3);
    e.submit(spec("c", "u", None, 1)).unwrap();
    assert_eq!(bank(&e)["queue_factor"], 0);
}
