//! `jobsort eval FORMULA --jobs FILE`: the value of the formula for every job, in input order
//! (of `qstat`/`squeue` output, the jobs the scheduler sorts unless `--all`; the others are
//! listed after them, as `rank` lists them).

use super::output::{
    Out, OutputFormat, show_value, write_csv, write_json_list, write_not_ranked, write_table,
};
use super::prepared::{InputArgs, Prepared, Ties};
use super::report::Outcome;
use super::site_args::WriteExplained;
use jobsort::jobs::units::value_json;
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
    if args.input.explain_config {
        args.input.resolve()?.explained.write(out)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let p = Prepared::new(&args.input, Ties::Warn)?;
    let error = |i: usize| p.evaluation.error(i).map(|e| e.message());
    let n = p.jobs.len();
    match args.format {
        OutputFormat::Json => write_json_list(
            out,
            "jobs",
            n,
            |i| {
                serde_json::json!({
                    "id": p.jobs.id(i),
                    "value": value_json(p.evaluation.values[i]),
                    "error": error(i),
                })
            },
            p.not_ranked.as_deref(),
            None,
        )?,
        OutputFormat::Csv | OutputFormat::Table => {
            let row = |i: usize| {
                vec![
                    p.jobs.id(i).to_string(),
                    show_value(p.evaluation.values[i]),
                    error(i).unwrap_or_default().to_string(),
                ]
            };
            let header = ["id", "value", "error"];
            let not_ranked = p.not_ranked.as_deref().unwrap_or_default();
            if args.format == OutputFormat::Csv {
                write_csv(out, &header, n, row)?;
                // A diagnostic: lost, not an error, when stderr cannot be written.
                let _ = write_not_ranked(&mut std::io::stderr(), n, "evaluated", not_ranked);
            } else {
                write_table(out, &header, &[false, true, false], n, row)?;
                write_not_ranked(out, n, "evaluated", not_ranked)?;
            }
        }
    }
    out.flush()?;
    p.report_errors();
    Ok(ExitCode::SUCCESS)
}
