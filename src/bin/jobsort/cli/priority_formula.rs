//! `jobsort slurm-formula SLURM_CONF` and `jobsort flux-formula [--weights ...]`: a
//! scheduler's built-in priority as a formula in its catalog, printed on stdout and checked
//! (diagnostics and the value range on stderr). `eval`/`rank --scheduler slurm|flux` with
//! that formula give the scheduler's integer priorities.
//!
//! Exit codes: 0 printed and valid, 1 unreadable or invalid slurm.conf / weights.
//! `--format json` prints `{"formula", "valid", "diagnostics", "range"}` instead.

use super::check::Format;
use super::output::{Out, write_json};
use super::report::{EXIT_INVALID, Failure, Outcome, stderr_color};
use jobsort::Catalog;
use jobsort::flux::mf_priority::FluxWeights;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{check_json, render};
use jobsort::slurm::conf::SlurmConf;
use jobsort::slurm::multifactor::Multifactor;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct SlurmArgs {
    /// The slurm.conf (its `Include`s are followed).
    #[arg(value_name = "SLURM_CONF", value_parser = crate::cli::input::path_or_stdin)]
    pub slurm_conf: PathBuf,
    /// Output format: text (the formula on stdout, the check on stderr) or json (`formula`
    /// added to `check`'s document).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(clap::Args, Debug)]
pub struct FluxArgs {
    /// The plugin's weights, e.g. `fairshare=100000,queue=10000` (flux account
    /// edit-factor; unnamed factors keep flux-accounting v0.60.0's defaults fairshare
    /// 100000, queue 10000, bank 0, urgency 1000; `urgency=1` for releases before v0.47.0).
    #[arg(long, value_name = "FACTOR=WEIGHT,...", default_value = "")]
    pub weights: String,
    /// Output format, as for slurm-formula.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_slurm(args: SlurmArgs, out: &mut Out) -> Outcome {
    let conf = SlurmConf::load(&args.slurm_conf).map_err(Failure::invalid)?;
    // The QOS maximum only scales the qos column's values, not the formula.
    let m = Multifactor::from_conf(&conf, 0);
    emit(&m.formula(), &m.catalog(), args.format, out)
}

pub fn run_flux(args: FluxArgs, out: &mut Out) -> Outcome {
    let w =
        FluxWeights::parse(&args.weights).map_err(|m| Failure::usage(format!("--weights: {m}")))?;
    emit(&w.formula(), &w.catalog(), args.format, out)
}

fn emit(formula: &str, catalog: &Catalog, format: Format, out: &mut Out) -> Outcome {
    let checked = check(formula, catalog, &CheckOptions::default());
    let valid = checked.is_valid();
    match format {
        Format::Json => {
            let mut doc = check_json(valid, &checked.diagnostics, checked.range);
            doc["formula"] = serde_json::Value::String(formula.to_string());
            write_json(out, &doc, false)?;
        }
        Format::Text => {
            writeln!(out, "{formula}")?;
            out.flush()?;
            eprint!(
                "{}",
                render(formula, "<formula>", &checked.diagnostics, stderr_color())
            );
            let range = checked.range.map_or_else(
                || "value range unknown".to_string(),
                |(lo, hi)| format!("value in [{lo}, {hi}]"),
            );
            eprintln!(
                "{}: {} diagnostic(s); {range}",
                if valid { "valid" } else { "invalid" },
                checked.diagnostics.len()
            );
        }
    }
    Ok(if valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    })
}
