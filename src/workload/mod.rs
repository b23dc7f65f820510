//! Workloads: every trace and site log read into the jobs a simulation replays ([`SimJob`]),
//! with the hygiene report of what was dropped or adjusted while loading ([`LoadReport`]).
//! The readers: SWF (`swf`), the JSON job list (`json`), Slurm `sacct -P` (`sacct`), Flux
//! job lists (`flux_jobs`), PBS accounting logs (`pbs_accounting`); [`load_workload`] picks
//! one by [`crate::input::format`]'s rule. `rank` and `eval` read the same files through
//! them (`jobs::load` sends them here), so a file means one thing in every subcommand.
//!
//! Conventions (documented in `docs/recording.md` too):
//! - times are integer seconds;
//! - a job with a requested time never runs past it: its effective run time is
//!   `min(run, walltime)` ([`SimJob::effective_run`]);
//! - a missing requested time falls back to the run time.

mod flux_jobs;
mod job;
mod json;
mod load;
mod names;
pub mod pbs_accounting;
pub mod sacct;
pub mod shape;
mod site_log;
pub mod swf;

pub use flux_jobs::{looks_like_flux, parse_flux_jobs, sniff_flux};
pub use job::*;
pub use json::{JsonLayout, parse_csv_jobs, parse_json_jobs, parse_json_jobs_as, read_json_jobs};
pub use load::{
    FORMATS_TRIED, TraceFormat, TraceOptions, detect, load_workload, load_workload_with,
    read_trace, read_workload, read_workload_with, trace_format,
};
pub use pbs_accounting::{PbsJob, parse_pbs_accounting, pbs_accounting_jobs, read_pbs_accounting};
pub use sacct::{SacctOptions, parse_sacct, read_sacct};
pub use shape::{memory_request, place_memory};
pub(crate) use site_log::{BadRecord, reject};

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn json_list_reads_fields_and_drops_with_reasons() {
        let text = r#"[
            {"id": "a", "submit": 0, "run": 10, "procs": 2, "walltime": 20, "user": "alice"},
            {"id": "b", "submit": 5, "run": 0, "procs": 2},
            {"id": "c", "submit": 1, "run": 30, "nnodes": 2, "ncores": 4, "walltime": 10},
            {"id": "d", "submit": 2, "run": 3}
        ]"#;
        let w = parse_json_jobs(text, "jobs.json").unwrap();
        assert_eq!(
            w.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
            ["a", "c", "b"]
        );
        assert_eq!(w.jobs[1].request, Request::Nodes { nodes: 2, cores: 4 });
        assert_eq!(w.jobs[1].effective_run(), 10);
        // `b` ran 0 seconds: kept, counted (its requested time is the 1 s a request is).
        assert_eq!((w.jobs[2].run, w.jobs[2].walltime), (0, 1));
        assert_eq!(w.report.zero_runtime, 1);
        assert!(!w.report.dropped.contains_key("runtime <= 0"));
        assert_eq!(w.report.dropped["no processors"], 1);
        assert_eq!(w.report.killed_at_walltime, 1);
    }

    /// The JSON job list reads the field table `eval`/`rank` read (`input::fields`): qstat's
    /// `Account_Name` is the account, and a flat numeric field that is no field, keyword or
    /// PBS job attribute is a custom resource (a string holding a number too); other flat
    /// values are no formula value, and keywords are the simulator's to give.
    #[test]
    fn json_list_reads_flat_custom_resources_and_the_accounts_of_qstat() {
        let text = r#"[
            {"id": "a", "submit": 0, "run": 10, "ncpus": 1, "Account_Name": "phys",
             "gpu_hours": 5, "scratch": "2.5", "Job_Name": "x", "note": "hi",
             "eligible_time": 99, "Priority": 7},
            {"id": "b", "submit": 0, "run": 10, "ncpus": 1, "account": "chem",
             "resources": {"gpu_hours": 1}}
        ]"#;
        let w = parse_json_jobs(text, "jobs.json").unwrap();
        assert_eq!(w.jobs[0].account().as_str(), "phys");
        assert_eq!(w.jobs[1].account().as_str(), "chem");
        let res = |i: usize| w.jobs[i].resources().clone();
        assert_eq!(
            res(0),
            BTreeMap::from([("gpu_hours".to_string(), 5.0), ("scratch".to_string(), 2.5)])
        );
        assert_eq!(res(1), BTreeMap::from([("gpu_hours".to_string(), 1.0)]));
    }

    #[test]
    fn json_list_reads_the_job_schema_of_eval_and_rank() {
        // The fields as `eval`/`rank` job files and `qstat -f -F json` spell them.
        let text = r#"{"jobs": [
            {"Job_Id": "1.srv", "Job_Owner": "ann@login1", "egroup": "phys", "queue": "workq",
             "qtime": 100, "run": 50, "Resource_List": {"ncpus": 8, "nodect": 2,
             "walltime": "01:00:00", "mem": "4gb", "select": "2:ncpus=4", "place": "scatter",
             "scratch": 7}},
            {"id": 2, "euser": "bob", "submit": 5, "run": 10, "ncpus": 3, "walltime": 60,
             "mem": 1024, "queue_priority": 20, "start": 9},
            {"id": "3", "submit": 6, "run": 10, "nnodes": 2, "ncores": 2, "procs": 99}
        ], "pbs_version": "23.06"}"#;
        let w = parse_json_jobs(text, "j.json").unwrap();
        let [b, c, a] = &w.jobs[..] else {
            panic!("{:?}", w.jobs)
        };
        assert_eq!((b.id.as_str(), b.user.as_str()), ("2", "bob"));
        assert_eq!(
            (b.request.clone(), b.walltime, b.mem),
            (Request::Procs(3), 60, 1024.0)
        );
        assert_eq!((b.queue_priority(), b.recorded_start()), (20.0, Some(9)));
        assert_eq!((b.group.as_str(), b.queue.as_str()), ("unknown", "default"));
        assert_eq!(c.request, Request::Nodes { nodes: 2, cores: 2 });
        assert_eq!(
            (a.id.as_str(), a.user.as_str(), a.group.as_str()),
            ("1.srv", "ann", "phys")
        );
        assert_eq!((a.submit, a.run, a.walltime), (100, 50, 3600));
        assert_eq!(a.request, Request::Nodes { nodes: 2, cores: 4 });
        assert_eq!(a.mem, 4.0 * 1024.0 * 1024.0);
        assert_eq!(
            a.resources(),
            &BTreeMap::from([("scratch".to_string(), 7.0)])
        );
        let e = parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "ncpus": 7, "nodect": 2}]"#,
            "j.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "j.json: jobs[0]: `ncpus` 7 is not a whole number of cores on each of the `nodect` 2 nodes"
        );
        let e = parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "ncpus": 1, "walltime": "1:xx"}]"#,
            "j.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("j.json: jobs[0]: `walltime`: "), "{e}");
    }

    #[test]
    fn json_lines_are_read_line_by_line_and_bad_json_says_where() {
        let text = "{\"submit\": 0, \"run\": 10, \"ncpus\": 1}\n\n{\"submit\": 1, \"run\": 5, \"procs\": 2}\n";
        let w = parse_json_jobs(text, "j.jsonl").unwrap();
        assert_eq!(
            w.jobs
                .iter()
                .map(|j| (j.id.as_str(), j.request.clone()))
                .collect::<Vec<_>>(),
            [("1", Request::Procs(1)), ("2", Request::Procs(2))]
        );
        let e = parse_json_jobs("{\"submit\": 0, \"run\": 1}\n{\"submit\": \n", "j.jsonl")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("j.jsonl:2: invalid JSON: "), "{e}");
        let e = parse_json_jobs("[{\"submit\": 0, \"run\": 1},\n {\"run\" 1}]", "j.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("j.json:2: invalid JSON: "), "{e}");
        let e = parse_json_jobs(
            "[{\"submit\": 0, \"run\": 1, \"ncpus\": 1, \"user\": [1, {\"a\": true}]}]",
            "j.json",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "j.json: jobs[0]: `user` must be a string, got [1,{\"a\":true}]"
        );
    }

    /// A document cut short is an error at its end (serde_json asks for more after the text
    /// ended: that once indexed past the last piece and panicked).
    #[test]
    fn a_json_document_cut_short_is_an_error_at_its_end() {
        for (text, what) in [
            ("[{\"submit\": 0, \"run\": 1, \"ncpus\": 1},\n", "a value"),
            ("[{\"submit\": 0, \"run\": 1, \"ncpus\": 1}\n", "a list"),
            ("{\"jobs\": [\n", "a list"),
        ] {
            let e = parse_json_jobs(text, "cut.json").unwrap_err().to_string();
            assert_eq!(
                e,
                format!("cut.json:2: invalid JSON: EOF while parsing {what} at line 2 column 0")
            );
        }
    }

    #[test]
    fn json_errors_name_the_entry() {
        let e =
            parse_json_jobs(r#"[{"submit": 0, "run": "x", "procs": 1}]"#, "f.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.json: jobs[0]: `run` must be a number, got \"x\""
        );
    }

    /// Of a field given more than once, by one name or by its other spellings (`ncpus` and
    /// `procs`, `user` and `euser`, at the top or in `Resource_List`), the one given last
    /// counts; an error names the spelling that counted.
    #[test]
    fn json_fields_given_twice_take_the_last() {
        let text = r#"{"id": "1", "submit": 0, "run": 10, "ncpus": 2, "procs": 3, "user": "a", "euser": "b"}
{"id": "2", "qrank": 5, "submit": 1, "run": 10, "procs": 3, "ncpus": 1, "euser": "b", "user": "c", "Resource_List": {"ncpus": 4, "walltime": 100}, "walltime": 50}
{"id": "3", "submit": 2, "run": 10, "ncpus": 1, "ncpus": 2, "group": "x", "egroup": "y", "nodect": 1, "nnodes": 2, "ncores": 1}
"#;
        let w = parse_json_jobs(text, "j.jsonl").unwrap();
        let [a, b, c] = &w.jobs[..] else {
            panic!("{:?}", w.jobs)
        };
        assert_eq!(
            (a.request.clone(), a.user.as_str()),
            (Request::Procs(3), "b")
        );
        assert_eq!(
            (b.submit, b.request.clone(), b.walltime, b.user.as_str()),
            (1, Request::Procs(4), 50, "c")
        );
        assert_eq!(
            (c.request.clone(), c.group.as_str()),
            (Request::Nodes { nodes: 2, cores: 1 }, "y")
        );
        let e = parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "procs": "x", "ncpus": 1, "nodect": 1, "nnodes": "y"}]"#,
            "j.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "j.json: jobs[0]: `nnodes` must be a number, got \"y\""
        );
    }

    /// Job ids are texts: a number id is its text (`7` and `"7"` are one id), `"07"` and
    /// `"x7"` are others, an entry without an id is its position; a repeated one is the error
    /// at its entry, in a document and in JSON lines alike.
    #[test]
    fn json_job_ids_are_texts_and_a_repeated_one_is_an_error() {
        let job = |id: &str| format!(r#"{{{id}"submit": 0, "run": 5, "ncpus": 1}}"#);
        let ok = [
            job(r#""id": 7, "#),
            job(r#""id": "07", "#),
            job(r#""id": "x7", "#),
            job(""),
        ];
        let w = parse_json_jobs(&format!("[{}]", ok.join(",")), "j.json").unwrap();
        let ids: Vec<String> = w.jobs.iter().map(|j| j.id.to_string()).collect();
        assert_eq!(ids, ["7", "07", "x7", "4"]);
        for (text, at) in [
            (
                format!("[{},{}]", job(r#""id": 7, "#), job(r#""Job_Id": "7", "#)),
                "jobs[1]",
            ),
            (
                format!("{}\n{}\n", job(""), job(r#""id": "1", "#)),
                "line 2",
            ),
        ] {
            let e = parse_json_jobs(&text, "j.json").unwrap_err().to_string();
            let id = if at == "line 2" { "1" } else { "7" };
            assert_eq!(e, format!("j.json: {at}: duplicate job id `{id}`"));
        }
    }
}
