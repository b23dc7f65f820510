//! `jobsort fairshare`: compute and inspect a fairshare tree. For the PBS algorithm the text
//! output is `pbsfs`'s, byte for byte (`-p`, `-t`, `-g`, `-c`), and `-s`, `-d`, `-e` update
//! the usage file atomically (the previous one kept as `FILE.bak`), then create `FILE.touch`
//! as pbsfs does. `--format json` is a JSON object for every mode and algorithm.
//!
//! Files: `args` (the flags), `pbs` (the PBS modes, which read and write the usage file),
//! `pbsfs` (pbsfs's text), `share_tree` (Slurm and flux trees: computing and their
//! sshare-style text), `json` (`--format json` for both), `exit` (writing stdout, failing).

#[macro_use]
mod exit;
mod args;
pub(crate) mod json;
mod pbs;
mod pbsfs;
mod share_tree;

pub use args::Args;

use super::output::Out;
use jobsort::fairshare::Algorithm;
use std::process::ExitCode;

pub fn run(args: Args, out: &mut Out) -> ExitCode {
    let a = *args.opts;
    let explicit = match &a.algorithm {
        None => None,
        Some(s) => match Algorithm::parse(s) {
            Some(x) => Some(x),
            None => {
                eprintln!(
                    "unknown --algorithm `{s}` (pbs, slurm-classic, slurm-depth-oblivious, slurm-fairtree, flux)"
                );
                return ExitCode::from(super::EXIT_USAGE);
            }
        },
    };
    if let Some(rg) = &a.resource_group {
        if let Some(alg) = explicit.filter(|&x| x != Algorithm::Pbs) {
            eprintln!(
                "--resource-group works with --algorithm pbs; use --fairshare-tree for {}",
                alg.name()
            );
            return ExitCode::from(super::EXIT_USAGE);
        }
        return pbs::run(&a, rg, out);
    }
    if a.set.is_some() || a.decay || a.trim || a.get.is_some() || a.compare.is_some() || a.tree {
        eprintln!("-g, -c, -s, -d, -e and -t need the PBS algorithm (--resource-group)");
        return ExitCode::from(super::EXIT_USAGE);
    }
    share_tree::run(&a, explicit, out)
}
