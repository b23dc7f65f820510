//! `rank` and `eval` on `qstat -f -F json` output with jobs in every state: only the jobs
//! PBS's scheduler sorts are ranked, the others are listed with why; `--all` ranks all.
//!
//! Which jobs the scheduler sorts is OpenPBS's `in_runnable_state`
//! (`src/scheduler/resource_resv.cpp`): a job in state `Q`, one suspended by the scheduler
//! (`S`, substate 45, `SUSP_BY_SCHED_SUBSTATE`), an array parent in `Q` or `B` with queued
//! subjobs left (`array_indices_remaining`). `query_jobs_chunk` (`job_info.cpp`) drops a
//! subjob that is not running, exiting or suspended ("Subjob found in undesirable state"):
//! the parent stands for its queued subjobs. State letters: `job.h` `JOB_STATE_LTR_*`.

use crate::common;

use common::cli::{jobsort, json, write};
use serde_json::json;

/// One job per state, as `qstat -f -F json` (OpenPBS 23) prints them, trimmed.
const QSTAT: &str = r#"{"timestamp":1764600000,"pbs_version":"23.06.06","pbs_server":"srv",
 "Jobs":{
  "100.srv":{"Job_Name":"q1","Job_Owner":"ann@login","job_state":"Q","queue":"workq","qtime":"Tue Dec  1 10:00:00 2026","Resource_List":{"ncpus":4,"walltime":"01:00:00"},"substate":10},
  "101.srv":{"Job_Name":"r1","Job_Owner":"bob@login","job_state":"R","queue":"workq","qtime":"Tue Dec  1 09:00:00 2026","Resource_List":{"ncpus":8,"walltime":"02:00:00"},"substate":42},
  "102.srv":{"Job_Name":"h1","Job_Owner":"ann@login","job_state":"H","Hold_Types":"u","queue":"workq","qtime":"Tue Dec  1 09:30:00 2026","Resource_List":{"ncpus":2,"walltime":"00:30:00"},"substate":20},
  "103.srv":{"Job_Name":"w1","Job_Owner":"cid@login","job_state":"W","Execution_Time":"Tue Dec  1 20:00:00 2026","queue":"workq","qtime":"Tue Dec  1 09:40:00 2026","Resource_List":{"ncpus":1,"walltime":"00:10:00"},"substate":30},
  "104[].srv":{"Job_Name":"arr","Job_Owner":"bob@login","job_state":"B","array":"True","array_indices_submitted":"1-10","array_indices_remaining":"4-10","array_state_count":"Queued:7 Running:3 Exiting:0 Expired:0 ","queue":"workq","qtime":"Tue Dec  1 09:50:00 2026","Resource_List":{"ncpus":1,"walltime":"00:20:00"},"substate":11},
  "104[1].srv":{"Job_Name":"arr","Job_Owner":"bob@login","job_state":"R","array_id":"104[].srv","array_index":1,"queue":"workq","qtime":"Tue Dec  1 09:50:00 2026","Resource_List":{"ncpus":1,"walltime":"00:20:00"},"substate":42},
  "104[4].srv":{"Job_Name":"arr","Job_Owner":"bob@login","job_state":"Q","array_id":"104[].srv","array_index":4,"queue":"workq","qtime":"Tue Dec  1 09:50:00 2026","Resource_List":{"ncpus":1,"walltime":"00:20:00"}},
  "105[].srv":{"Job_Name":"arr2","Job_Owner":"ann@login","job_state":"B","array":"True","array_indices_submitted":"1-2","array_indices_remaining":"-","queue":"workq","qtime":"Tue Dec  1 08:00:00 2026","Resource_List":{"ncpus":1,"walltime":"00:20:00"},"substate":11},
  "106.srv":{"Job_Name":"s1","Job_Owner":"cid@login","job_state":"S","queue":"workq","qtime":"Tue Dec  1 08:30:00 2026","Resource_List":{"ncpus":16,"walltime":"04:00:00"},"substate":45},
  "107.srv":{"Job_Name":"s2","Job_Owner":"cid@login","job_state":"S","queue":"workq","qtime":"Tue Dec  1 08:31:00 2026","Resource_List":{"ncpus":16,"walltime":"04:00:00"},"substate":43},
  "108.srv":{"Job_Name":"e1","Job_Owner":"ann@login","job_state":"E","queue":"workq","qtime":"Tue Dec  1 07:00:00 2026","Resource_List":{"ncpus":2,"walltime":"00:40:00"},"substate":51},
  "109.srv":{"Job_Name":"t1","Job_Owner":"bob@login","job_state":"T","queue":"workq","qtime":"Tue Dec  1 10:05:00 2026","Resource_List":{"ncpus":2,"walltime":"00:40:00"},"substate":2},
  "110.srv":{"Job_Name":"f1","Job_Owner":"ann@login","job_state":"F","queue":"workq","qtime":"Tue Dec  1 06:00:00 2026","Resource_List":{"ncpus":2,"walltime":"00:40:00"},"substate":92},
  "111.srv":{"Job_Name":"h2","Job_Owner":"bob@login","job_state":"H","Hold_Types":"so","queue":"workq","qtime":"Tue Dec  1 10:10:00 2026","Resource_List":{"ncpus":2,"walltime":"00:40:00"},"substate":20}
 }}"#;

const FORMULA: &str = "ncpus + walltime/3600";

const NOT_RANKED: &str = "\
id          state  reason
101.srv     R      running
102.srv     H      held: user hold
103.srv     W      waiting for its execution time (qsub -a)
104[1].srv  R      running
104[4].srv  Q      queued subjob: PBS sorts its array parent 104[].srv
105[].srv   B      array parent with no queued subjob left
107.srv     S      suspended
108.srv     E      exiting after having run
109.srv     T      in transit to a new location
110.srv     F      finished
111.srv     H      held: operator and system holds
";

#[test]
fn rank_sorts_what_pbs_sorts_and_lists_the_rest_after_the_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let qstat = write(dir.path(), "qstat.json", QSTAT);
    let out = jobsort(["rank", FORMULA, "--jobs", &qstat]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 106.srv, suspended by the scheduler, is sorted (to be resumed); so is the array 104[]
    // with subjobs 4-10 queued, for its next subjob.
    let expected = format!(
        "\
rank  id                      value  runnable  reason
   1  106.srv                  20.0  yes
   2  100.srv                   5.0  yes
   3  104[].srv  1.3333333333333333  yes

3 jobs ranked; 11 not, as the scheduler would not sort them (--all: every job):
{NOT_RANKED}"
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn json_has_not_ranked_and_csv_stays_csv() {
    let dir = tempfile::tempdir().unwrap();
    let qstat = write(dir.path(), "qstat.json", QSTAT);
    let v = json(&jobsort([
        "rank", FORMULA, "--jobs", &qstat, "--format", "json",
    ]));
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["106.srv", "100.srv", "104[].srv"]);
    assert_eq!(v["not_ranked"].as_array().unwrap().len(), 11);
    assert_eq!(
        v["not_ranked"][1],
        json!({"id": "102.srv", "state": "H", "reason": "held: user hold"})
    );
    let v = json(&jobsort([
        "eval", "ncpus", "--jobs", &qstat, "--format", "json",
    ]));
    assert_eq!(v["jobs"].as_array().unwrap().len(), 3);
    assert_eq!(v["not_ranked"][4]["id"], "104[4].srv");

    let out = jobsort(["eval", "ncpus", "--jobs", &qstat, "--format", "csv"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "id,value,error\n100.srv,4.0,\n104[].srv,1.0,\n106.srv,16.0,\n"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with(&format!(
            "3 jobs evaluated; 11 not, as the scheduler would not sort them (--all: every job):\n{NOT_RANKED}"
        )),
        "{err}"
    );
}

#[test]
fn all_ranks_every_job_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let qstat = write(dir.path(), "qstat.json", QSTAT);
    let v = json(&jobsort([
        "rank", FORMULA, "--jobs", &qstat, "--all", "--format", "json",
    ]));
    assert_eq!(v["order"].as_array().unwrap().len(), 14);
    assert!(v.get("not_ranked").is_none());
    // Job files that are not qstat output have no states: no section, no key.
    let plain = write(
        dir.path(),
        "jobs.json",
        r#"[{"id":"a","ncpus":1,"job_state":"R"},{"id":"b","ncpus":2}]"#,
    );
    let v = json(&jobsort([
        "rank", "ncpus", "--jobs", &plain, "--format", "json",
    ]));
    assert_eq!(v["order"].as_array().unwrap().len(), 2);
    assert!(v.get("not_ranked").is_none());
    let out = jobsort(["rank", "ncpus", "--jobs", &plain]);
    assert!(
        !String::from_utf8(out.stdout)
            .unwrap()
            .contains("jobs ranked")
    );
}

#[test]
fn one_ranked_job_is_one_job() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "q.json",
        r#"{"Jobs":{
          "1.srv":{"job_state":"Q","Job_Owner":"ann@login","queue":"workq","Resource_List":{"ncpus":4}},
          "2.srv":{"job_state":"R","Job_Owner":"bob@login","queue":"workq","Resource_List":{"ncpus":8}}}}"#,
    );
    let out = jobsort(["rank", "ncpus", "--jobs", &jobs]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\n1 job ranked; 1 not, as the scheduler would not sort them"),
        "{text}"
    );
}
