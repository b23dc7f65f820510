//! `jobsort eval FORMULA --jobs FILE`: the value of the formula for every job, in input order.

use super::jobs_args::{OutputFormat, print_csv, print_table, show_value};
use super::prepared::{InputArgs, Prepared};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

pub fn run(args: Args) -> ExitCode {
    let p = match Prepared::new(&args.input) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let rows: Vec<Vec<String>> = p
        .jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            vec![
                job.id.clone(),
                show_value(p.evaluation.values[i]),
                p.evaluation
                    .error(i)
                    .map(|e| e.message().to_string())
                    .unwrap_or_default(),
            ]
        })
        .collect();
    match args.format {
        OutputFormat::Json => {
            let jobs: Vec<serde_json::Value> = p
                .jobs
                .iter()
                .enumerate()
                .map(|(i, job)| {
                    serde_json::json!({
                        "id": job.id,
                        "value": p.evaluation.values[i],
                        "error": p.evaluation.error(i).map(|e| e.message()),
                    })
                })
                .collect();
            println!("{}", serde_json::json!({ "jobs": jobs }));
        }
        OutputFormat::Csv => {
            if let Err(e) = print_csv(&["id", "value", "error"], &rows) {
                eprintln!("jobsort: {e}");
                return ExitCode::from(super::EXIT_INVALID);
            }
        }
        OutputFormat::Table => print_table(&["id", "value", "error"], &[false, true, false], &rows),
    }
    p.report_errors();
    ExitCode::SUCCESS
}
