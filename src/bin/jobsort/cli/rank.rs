//! `jobsort rank FORMULA --jobs FILE`: jobs in the order PBS would consider them — formula
//! value descending, ties by submission order then id — with `--threshold`, `--top` and
//! `--explain`.

use super::output::{Out, OutputFormat, show_value, write_csv, write_json_list, write_table};
use super::prepared::{InputArgs, Prepared, Ties};
use super::report::{Failure, Outcome};
use super::schedule_args::threshold_arg;
use jobsort::formula::explain::Explanation;
use jobsort::rank::{RankOptions, Threshold, TieBreak, rank};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Show only the first K jobs (selected without sorting the rest).
    #[arg(long, value_name = "K")]
    pub top: Option<usize>,
    /// Jobs whose value is <= T are not runnable (PBS job_sort_formula_threshold; a number,
    /// not NaN).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = threshold_arg)]
    pub threshold: Option<Threshold>,
    /// PBS `fair_share`: break ties in formula value by the fairshare tree's most deserving
    /// entity (`compare_path`) before submission order. Needs `--resource-group`.
    #[arg(long)]
    pub fair_share: bool,
    /// Show the value of each top-level term of the formula per job.
    #[arg(long)]
    pub explain: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let mut p = Prepared::new(&args.input, Ties::Fail)?;
    // Each term compiled like the formula (same engine and `--compat`), over the same columns.
    let explanation = args.explain.then(|| Explanation::new(&p.compiled));
    let by_term = explanation
        .as_ref()
        .map(|e| e.evaluate(p.jobs.table()))
        .unwrap_or_default();
    // The order reads the values, submission order and ids only: the jobs' columns can go.
    p.jobs.drop_values();
    let ids = p.jobs.ids();
    // Submission order: the jobs' `submit`/`qrank` when every job has one, else input order.
    let ties = TieBreak {
        fair_share: None,
        submit: p.jobs.submits(),
        ids: Some(ids),
    };
    let options = RankOptions {
        threshold: args.threshold,
        top: args.top,
    };
    let ranked = if args.fair_share {
        let ranks = match &p.fairshare {
            Some(tree) => args
                .input
                .fairshare
                .entity_kind()
                .and_then(|kind| tree.fair_share_ranks(&p.jobs, kind)),
            None => Err("--fair-share needs a fairshare tree (--resource-group FILE)".to_string()),
        };
        match ranks {
            Ok(Some(ranks)) => rank(
                &p.evaluation.values,
                TieBreak {
                    fair_share: Some(&ranks),
                    ..ties
                },
                &options,
            ),
            Ok(None) => {
                return Err(Failure::usage(
                    "--fair-share applies to the PBS algorithm only",
                ));
            }
            Err(e) => return Err(Failure::usage(e)),
        }
    } else {
        rank(&p.evaluation.values, ties, &options)
    };

    let source = p.compiled.source();
    let term_names: Vec<String> = explanation
        .iter()
        .flat_map(Explanation::terms)
        .map(|t| {
            let text = source.get(t.span.start..t.span.end).unwrap_or("?").trim();
            if t.sign < 0.0 {
                format!("-({text})")
            } else {
                text.to_string()
            }
        })
        .collect();
    let term_values = |index: usize| -> Vec<Option<f64>> {
        by_term
            .iter()
            .map(|t| t.error(index).is_none().then(|| t.values[index]))
            .collect()
    };
    let reason = |runnable: bool| -> Option<String> {
        (!runnable).then(|| {
            format!(
                "under threshold: value <= {}",
                show_value(args.threshold.map_or(0.0, Threshold::value))
            )
        })
    };

    match args.format {
        OutputFormat::Json => write_json_list(out, "order", ranked.len(), |r| {
            let job = &ranked[r];
            let mut obj = serde_json::json!({
                "rank": r + 1,
                "id": p.jobs.id(job.index),
                "value": job.value,
                "runnable": job.runnable,
                "reason": reason(job.runnable),
                "error": p.evaluation.error(job.index).map(|e| e.message()),
            });
            if args.explain {
                let terms: Vec<serde_json::Value> = term_names
                    .iter()
                    .zip(term_values(job.index))
                    .map(|(name, v)| serde_json::json!({ "term": name, "value": v }))
                    .collect();
                obj["terms"] = serde_json::Value::Array(terms);
            }
            obj
        })?,
        OutputFormat::Table | OutputFormat::Csv => {
            let mut header: Vec<&str> = vec!["rank", "id", "value", "runnable", "reason"];
            header.extend(term_names.iter().map(String::as_str));
            let mut right = vec![true, false, true, false, false];
            right.extend(term_names.iter().map(|_| true));
            let row = |r: usize| {
                let job = &ranked[r];
                let why = reason(job.runnable)
                    .or_else(|| {
                        p.evaluation
                            .error(job.index)
                            .map(|e| format!("error: {}", e.message()))
                    })
                    .unwrap_or_default();
                let mut row = vec![
                    (r + 1).to_string(),
                    p.jobs.id(job.index).to_string(),
                    show_value(job.value),
                    if job.runnable { "yes" } else { "no" }.to_string(),
                    why,
                ];
                row.extend(
                    term_values(job.index)
                        .into_iter()
                        .map(|v| v.map(show_value).unwrap_or_else(|| "error".into())),
                );
                row
            };
            if args.format == OutputFormat::Csv {
                write_csv(out, &header, ranked.len(), row)?;
            } else {
                write_table(out, &header, &right, ranked.len(), row)?;
            }
        }
    }
    out.flush()?;
    p.report_errors();
    Ok(ExitCode::SUCCESS)
}
