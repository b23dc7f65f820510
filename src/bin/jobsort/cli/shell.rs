//! `jobsort completions SHELL` and `jobsort man`: the command line described for shells and
//! for `man`, generated from the same definitions clap parses (clap_complete, clap_mangen), so
//! they cannot drift from the flags.

use super::output::Out;
use super::report::{Failure, Outcome};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write `jobsort.1` and one page per subcommand (`jobsort-rank.1`, ...) into this folder
    /// instead of printing `jobsort.1` on stdout.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Print the completion script: `jobsort completions bash > ~/.local/share/bash-completion/
/// completions/jobsort`.
/// `cmd` is the whole command line's definition (`Cli::command()`).
pub fn run_completions(args: CompletionsArgs, mut cmd: clap::Command, out: &mut Out) -> Outcome {
    clap_complete::generate(args.shell, &mut cmd, "jobsort", out);
    Ok(ExitCode::SUCCESS)
}

/// Print `jobsort.1`, or write every page into `--dir`.
pub fn run_man(args: ManArgs, cmd: clap::Command, out: &mut Out) -> Outcome {
    let Some(dir) = args.dir else {
        clap_mangen::Man::new(cmd).render(out)?;
        return Ok(ExitCode::SUCCESS);
    };
    if !dir.is_dir() {
        return Err(Failure::invalid(format!("{}: not a folder", dir.display())));
    }
    let mut pages = vec![("jobsort".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("jobsort-{}", sub.get_name());
        pages.push((name.clone(), sub.clone().name(name)));
    }
    for (name, page) in pages {
        let mut bytes = Vec::new();
        clap_mangen::Man::new(page).render(&mut bytes)?;
        let path = dir.join(format!("{name}.1"));
        jobsort::files::write_atomic(&path, &bytes)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", path.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}
