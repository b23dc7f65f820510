//! Every `jobsort ...` example a help text gives parses: a flag or subcommand a help text names
//! exists (help texts are the first thing a user reads, and a renamed flag left in one sends
//! them looking for nothing).

use super::Cli;
use clap::CommandFactory;
use clap::error::ErrorKind;

/// Every help text of `command` and its subcommands: about, long about, after-help, and each
/// argument's help.
fn help_texts(command: &clap::Command, out: &mut Vec<(String, String)>) {
    let name = command.get_name().to_string();
    let mut push = |t: Option<&clap::builder::StyledStr>| {
        if let Some(t) = t {
            out.push((name.clone(), t.to_string()));
        }
    };
    push(command.get_about());
    push(command.get_long_about());
    push(command.get_after_help());
    push(command.get_after_long_help());
    for arg in command.get_arguments() {
        push(arg.get_help());
        push(arg.get_long_help());
    }
    for sub in command.get_subcommands() {
        help_texts(sub, out);
    }
}

/// The subcommands' names.
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Every long flag of every command, `--name`.
fn long_flags(command: &clap::Command, out: &mut Vec<String>) {
    for arg in command.get_arguments() {
        if let Some(l) = arg.get_long() {
            out.push(format!("--{l}"));
        }
        for alias in arg.get_all_aliases().into_iter().flatten() {
            out.push(format!("--{alias}"));
        }
    }
    out.push("--help".into());
    out.push("--version".into());
    for sub in command.get_subcommands() {
        long_flags(sub, out);
    }
}

/// The flags quoted alone in backticks in `text` (`` `--nodes` ``, `` `--qos high=100` ``).
fn quoted_flags(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|q| q.starts_with("--") && q.len() > 2)
        .filter_map(|q| q.split([' ', '=']).next().map(str::to_string))
        .collect()
}

/// The `jobsort ...` commands quoted in backticks in `text` (also those that start at a
/// subcommand: `` `sim --lenient` ``), as words (quotes grouped, a pipe and what follows it
/// dropped).
fn examples(text: &str) -> Vec<Vec<String>> {
    let subcommands = subcommands();
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|q| {
            if q.starts_with("jobsort ") {
                Some(q.to_string())
            } else {
                let first = q.split(' ').next()?;
                (q.contains(" -") && subcommands.iter().any(|s| s == first))
                    .then(|| format!("jobsort {q}"))
            }
        })
        .map(|q| {
            let q = q.as_str();
            let command = q.split(" | ").next().unwrap_or(q);
            let mut words = Vec::new();
            let (mut word, mut quote) = (String::new(), None);
            for c in command.chars() {
                match (c, quote) {
                    ('\'' | '"', None) => quote = Some(c),
                    (c, Some(q)) if c == q => quote = None,
                    (c, None) if c.is_whitespace() => {
                        if !word.is_empty() {
                            words.push(std::mem::take(&mut word));
                        }
                    }
                    (c, _) => word.push(c),
                }
            }
            if !word.is_empty() {
                words.push(word);
            }
            words
        })
        .collect()
}

#[test]
fn every_example_in_a_help_text_names_flags_that_exist() {
    let mut texts = Vec::new();
    help_texts(&Cli::command(), &mut texts);
    let mut checked = 0;
    let mut bad = Vec::new();
    for (command, text) in &texts {
        for words in examples(text) {
            checked += 1;
            if let Err(e) = Cli::command().try_get_matches_from(&words) {
                // A required argument the example leaves out is not a wrong name.
                if matches!(
                    e.kind(),
                    ErrorKind::UnknownArgument
                        | ErrorKind::InvalidSubcommand
                        | ErrorKind::NoEquals
                        | ErrorKind::ArgumentConflict
                ) {
                    bad.push(format!("{command}: `{}`: {}", words.join(" "), e.kind()));
                }
            }
        }
    }
    let mut flags = Vec::new();
    long_flags(&Cli::command(), &mut flags);
    for (command, text) in &texts {
        for flag in quoted_flags(text) {
            checked += 1;
            if !flags.contains(&flag) {
                bad.push(format!("{command}: `{flag}` is no flag of any subcommand"));
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} examples found: is the scan broken?"
    );
    assert!(
        bad.is_empty(),
        "help texts name what does not exist:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_scan_finds_a_wrong_flag() {
    let words = examples("as `jobsort fairshare --tree FILE | head` does");
    assert_eq!(words, [["jobsort", "fairshare", "--tree", "FILE"]]);
    let e = Cli::command().try_get_matches_from(&words[0]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownArgument);
    assert_eq!(
        examples("as `sim --lenient` reads it; `squeue --json`"),
        [["jobsort", "sim", "--lenient"]]
    );
    assert_eq!(
        quoted_flags("`--qos high=100`, `--nodes`, `--`"),
        ["--qos", "--nodes"]
    );
}
