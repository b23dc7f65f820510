//! `jobsort eval FORMULA --jobs FILE`: the value of the formula for every job, in input order.

use super::output::{Out, OutputFormat, show_value, write_csv, write_json, write_table};
use super::prepared::{InputArgs, Prepared, Ties};
use super::report::Outcome;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let p = Prepared::new(&args.input, Ties::Warn)?;
    let error = |i: usize| p.evaluation.error(i).map(|e| e.message());
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
                        "error": error(i),
                    })
                })
                .collect();
            write_json(out, &serde_json::json!({ "jobs": jobs }), false)?;
        }
        OutputFormat::Csv | OutputFormat::Table => {
            let rows: Vec<Vec<String>> = p
                .jobs
                .iter()
                .enumerate()
                .map(|(i, job)| {
                    vec![
                        job.id.clone(),
                        show_value(p.evaluation.values[i]),
                        error(i).unwrap_or_default().to_string(),
                    ]
                })
                .collect();
            let header = ["id", "value", "error"];
            if args.format == OutputFormat::Csv {
                write_csv(out, &header, &rows)?;
            } else {
                write_table(out, &header, &[false, true, false], &rows)?;
            }
        }
    }
    out.flush()?;
    p.report_errors();
    Ok(ExitCode::SUCCESS)
}
