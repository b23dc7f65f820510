//! Formula arguments shared by `check`, `eval` and `rank`: where the formula text comes from
//! (argument, `-` for stdin, `--file`, or a qmgr line) and which names it may use (PBS's
//! built-ins plus `--resource NAME:TYPE` and `--resourcedef FILE`).

use jobsort::Catalog;
use jobsort::catalog::parse_resource_arg;
use jobsort::formula::check::formula_from_qmgr;
use std::io::Read;
use std::path::PathBuf;

/// Flatten into a subcommand with `#[command(flatten)]`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FormulaArgs {
    /// The formula (`-` reads it from stdin). A qmgr line `set server job_sort_formula="..."`
    /// is accepted and unquoted. A formula starting with `-` works too (`-walltime`), as does
    /// anything after `--`.
    #[arg(
        value_name = "FORMULA",
        allow_hyphen_values = true,
        required_unless_present = "file",
        conflicts_with = "file"
    )]
    pub formula: Option<String>,
    /// Read the formula (or a qmgr line setting it) from a file.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Declare a custom resource, e.g. `--resource paws:float` (types: long, float, size,
    /// time, boolean, string, string_array). Repeatable.
    #[arg(long = "resource", value_name = "NAME:TYPE")]
    pub resources: Vec<String>,
    /// Declare the custom resources of a PBS `resourcedef` file (`NAME type=TYPE [flag=...]`).
    #[arg(long, value_name = "FILE")]
    pub resourcedef: Option<PathBuf>,
}

impl FormulaArgs {
    /// The formula text. `Err` is a message for the user (exit code 2 for a missing source,
    /// the caller decides).
    pub fn source(&self) -> Result<String, String> {
        let text = match (&self.file, self.formula.as_deref()) {
            (Some(path), _) => {
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
            }
            (None, Some("-")) => {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|e| format!("<stdin>: {e}"))?;
                s
            }
            (None, Some(f)) => f.to_string(),
            (None, None) => return Err("no formula given (FORMULA, `-` or --file PATH)".into()),
        };
        Ok(match formula_from_qmgr(&text) {
            Some(f) => f,
            None => text.trim_end_matches(['\n', '\r']).to_string(),
        })
    }

    /// A name for the formula's source in diagnostics (`<formula>`, `<stdin>` or the path).
    pub fn source_name(&self) -> String {
        match (&self.file, self.formula.as_deref()) {
            (Some(path), _) => path.display().to_string(),
            (None, Some("-")) => "<stdin>".into(),
            _ => "<formula>".into(),
        }
    }

    /// PBS's catalog plus the declared custom resources (`--resourcedef` first, then each
    /// `--resource`, so a `--resource` can override a file entry).
    pub fn catalog(&self) -> Result<Catalog, String> {
        let mut catalog = Catalog::pbs();
        if let Some(path) = &self.resourcedef {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            catalog
                .add_resourcedef(&text, &path.display().to_string())
                .map_err(|e| e.to_string())?;
        }
        for r in &self.resources {
            let (name, ty) = parse_resource_arg(r).map_err(|e| format!("--resource {e}"))?;
            catalog.add_resource(&name, ty);
        }
        Ok(catalog)
    }
}
