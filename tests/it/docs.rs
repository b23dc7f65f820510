//! The documentation is checked against the code it describes, so that splitting or editing it
//! cannot leave it wrong:
//!
//! - `docs/diagnostics.md` is generated from the code table of `src/formula/diag.rs`
//!   (`jobsort::formula::diag::code_table`), each code with an example the binary really
//!   prints; the test regenerates it and fails when the file differs
//!   (`JOBSORT_BLESS=1 cargo test --test it docs::` rewrites it);
//! - the job fields of `docs/formats.md` are the job field table `src/input/fields.rs` (with
//!   the PBS keywords and resources of the catalog), both ways;
//! - every relative link of `README.md` and `docs/*.md` names a file that exists, and an
//!   `#anchor` a heading of it;
//! - every command of the README's table of subcommands runs, from the repository's root.

use crate::common;

use common::cli::command;
use jobsort::Catalog;
use jobsort::formula::diag::{CodeInfo, Severity, code_table};
use jobsort::input::fields;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// ---------------------------------------------------------------------------------------
// docs/diagnostics.md

/// How to show an example: the command as a reader types it, and the arguments it passes.
struct Example {
    shown: String,
    args: Vec<String>,
}

fn example(args: &[&str]) -> Example {
    let shown = args
        .iter()
        .map(|a| {
            if a.starts_with('-')
                || a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "./_:".contains(c))
            {
                a.to_string()
            } else {
                format!("'{a}'")
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    Example {
        shown: format!("jobsort {shown}"),
        args: args.iter().map(|a| a.to_string()).collect(),
    }
}

/// The example of each code: a formula (and flags) that the binary reports it for. A code
/// without one says why instead.
fn examples() -> BTreeMap<&'static str, Result<Example, &'static str>> {
    let check = |formula: &str| example(&["check", formula]);
    let deep = format!("{}ncpus{}", "(".repeat(201), ")".repeat(201));
    let long = "1".repeat(70_000);
    BTreeMap::from([
        ("E0101", Ok(check("ncpus $ 2"))),
        ("E0102", Ok(check("ncpus * 3e"))),
        ("E0103", Ok(check("ncpus if queue == \"workq\" else 0"))),
        ("E0104", Ok(check("(ncpus + 1"))),
        (
            "E0105",
            Ok(Example {
                shown: r#"jobsort check "$(python3 -c 'print("(" * 201 + "ncpus" + ")" * 201)')""#
                    .into(),
                args: vec!["check".into(), deep],
            }),
        ),
        (
            "E0106",
            Ok(Example {
                shown: r#"jobsort check "$(python3 -c 'print("1" * 70000)')""#.into(),
                args: vec!["check".into(), long],
            }),
        ),
        ("E0201", Ok(check("ncpu * 2"))),
        ("E0202", Ok(check("ncpus + arch"))),
        ("E0203", Ok(check("sqr(ncpus)"))),
        ("E0204", Ok(check("max(ncpus)"))),
        ("E0205", Ok(check("ncpus(2)"))),
        ("E0206", Ok(check("sqrt + ncpus"))),
        ("E0207", Ok(check("round(walltime, 1.5)"))),
        ("E0301", Ok(check("ncpus + 1/0"))),
        ("E0302", Ok(check("log(0) + ncpus"))),
        ("E0303", Ok(check("inf + ncpus"))),
        ("E0304", Ok(check("ncpus * 1e999"))),
        (
            "E0305",
            Ok(example(&["check", "--compat", "pbs", "ncpus ** 256"])),
        ),
        ("W0401", Ok(check("walltime/ncpus"))),
        (
            "W0402",
            Ok(example(&["check", "--resource", "x:float", "sqrt(x)"])),
        ),
        ("W0403", Ok(check("exp(walltime)"))),
        ("W0404", Ok(check("42"))),
        ("W0405", Ok(check("fair_share_perc * 100"))),
        (
            "W0406",
            Ok(example(&[
                "check",
                "--resource",
                "gamma:float",
                "gamma + ncpus",
            ])),
        ),
        ("W0407", Ok(check("ncpus ** 256"))),
        ("W0408", Ok(check("ncpus if walltime > 0 else inf"))),
        (
            "W0409",
            Ok(Example {
                shown: r#"jobsort check --compat pbs "$(python3 -c 'print("+".join(["ncpus"] * 2995))')""#
                    .into(),
                args: vec![
                    "check".into(),
                    "--compat".into(),
                    "pbs".into(),
                    vec!["ncpus"; 2995].join("+"),
                ],
            }),
        ),
        (
            "W0410",
            Ok(Example {
                shown: "jobsort check --compat pbs \"$(printf 'ncpus +\\n walltime')\"".into(),
                args: vec![
                    "check".into(),
                    "--compat".into(),
                    "pbs".into(),
                    "ncpus +\n walltime".into(),
                ],
            }),
        ),
        (
            "N0501",
            Ok(check(
                "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 100",
            )),
        ),
        (
            "N0502",
            Ok(example(&["check", "--compat", "pbs", "ncpus * 1e8"])),
        ),
        (
            "N0901",
            Err(
                "no example: it shows only on a host where Cranelift cannot generate code \
                 (the formula is then evaluated by the interpreter, with the same results)",
            ),
        ),
        (
            "N0902",
            Ok(example(&[
                "eval",
                "--compat",
                "pbs",
                "ncpus % 3 + 7 // 2",
                "--jobs",
                "examples/jobs.json",
            ])),
        ),
    ])
}

/// What the example prints, as a terminal shows it (stderr first: the diagnostics), lines
/// without trailing blanks. Fails when the output does not carry `code`.
fn run_example(code: &str, ex: &Example) -> String {
    let out = command(&ex.args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .expect("run jobsort");
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("[{code}]")),
        "the example of {code} ({}) does not report it:\n{text}",
        ex.shown
    );
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// `docs/diagnostics.md` as the code table and the examples make it.
fn diagnostics_md(table: &[CodeInfo]) -> String {
    let mut examples = examples();
    let mut s = String::from(
        "# Diagnostic codes\n\n\
         <!-- Generated from the code table of src/formula/diag.rs by tests/it/docs.rs; do not edit.\n     \
         Regenerate with: JOBSORT_BLESS=1 cargo test --test it docs:: -->\n\n\
         Every diagnostic jobsort reports about a formula (`check`, and every subcommand that reads a\n\
         formula) has a stable code; tools may match on it (`check --format json` gives each one's\n\
         `code`). `E01xx` are syntax errors, `E02xx` name and type errors, `E03xx` errors the hazard\n\
         analysis finds (the formula fails for every job that reaches the expression), `W04xx`\n\
         warnings (a hazard for some jobs, or a portability problem), `N05xx` notes, `N09xx` notes\n\
         about the engine. `--deny-warnings` turns warnings into errors but keeps their codes.\n\
         `jobsort explain CODE` prints one entry of this page.\n\n\
         | code | severity | meaning |\n|---|---|---|\n",
    );
    for c in table {
        s += &format!(
            "| [`{}`](#{}) | {} | {} |\n",
            c.code,
            c.code.to_ascii_lowercase(),
            severity_word(c.severity),
            c.meaning
        );
    }
    for c in table {
        s += &format!(
            "\n## {}\n\n{}: {}\n\n",
            c.code,
            severity_word(c.severity),
            c.meaning
        );
        match examples.remove(c.code) {
            Some(Ok(ex)) => {
                let out = run_example(c.code, &ex);
                s += &format!("```console\n$ {}\n{out}\n```\n", ex.shown);
            }
            Some(Err(why)) => s += &format!("{why}.\n"),
            None => panic!(
                "{} has no example: add one to `examples` in tests/it/docs.rs (a formula that \
                 reports it), then JOBSORT_BLESS=1 cargo test --test it docs::",
                c.code
            ),
        }
    }
    assert!(
        examples.is_empty(),
        "examples of codes the table does not have: {:?}",
        examples.keys().collect::<Vec<_>>()
    );
    s
}

#[test]
fn diagnostics_md_is_generated_from_the_code_table() {
    let want = diagnostics_md(&code_table());
    let path = repo().join("docs/diagnostics.md");
    if std::env::var_os("JOBSORT_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "docs/diagnostics.md differs from what src/formula/diag.rs's code table and the \
             examples give (first at line {}: have {:?}, want {:?}).\nRegenerate it with: \
             JOBSORT_BLESS=1 cargo test --test it docs::",
            line + 1,
            have.lines().nth(line).unwrap_or("<end>"),
            want.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

/// The codes `src/formula/diag.rs` declares (`pub const NAME: &str = "E0101";` in `mod
/// codes`).
fn declared_codes(source: &str) -> BTreeSet<String> {
    let body = source
        .split("pub mod codes {")
        .nth(1)
        .expect("diag.rs has `mod codes`");
    let body = &body[..body.find("\n}").expect("`mod codes` ends")];
    body.lines()
        .filter_map(|l| {
            let l = l.trim();
            l.starts_with("pub const ")
                .then(|| l.split('"').nth(1).map(str::to_string))
                .flatten()
        })
        .collect()
}

#[test]
fn the_code_table_lists_every_declared_code_once() {
    let table = code_table();
    let listed: Vec<&str> = table.iter().map(|c| c.code).collect();
    let unique: BTreeSet<String> = listed.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a code listed twice: {listed:?}"
    );
    assert_eq!(
        unique,
        declared_codes(&read("src/formula/diag.rs")),
        "the table in diag.rs's documentation and its `codes` differ"
    );
    assert!(listed.len() >= 29, "{listed:?}");
    // The table's own first and last rows, read with their severities.
    assert_eq!(
        (table[0].code, table[0].severity),
        ("E0101", Severity::Error)
    );
    assert!(
        table
            .iter()
            .any(|c| c.code == "W0401" && c.severity == Severity::Warning)
    );
}

#[test]
fn declared_codes_are_read_from_mod_codes() {
    let src = "x\npub mod codes {\n    /// A.\n    pub const A: &str = \"E0101\";\n    pub const B: &str = \"W0401\";\n}\npub const C: &str = \"N0501\";\n";
    assert_eq!(
        declared_codes(src),
        BTreeSet::from(["E0101".to_string(), "W0401".to_string()])
    );
}

// ---------------------------------------------------------------------------------------
// docs/formats.md: the job fields

/// Every name of the job field table (`src/input/fields.rs`) but the PBS job attributes.
fn field_table_names() -> BTreeSet<&'static str> {
    let mut names: BTreeSet<&str> = BTreeSet::new();
    names.extend(fields::ID);
    names.extend(fields::USER);
    names.insert(fields::OWNER);
    names.extend(fields::GROUP);
    names.extend(fields::ACCOUNT);
    names.extend(fields::QUEUE);
    names.extend(fields::QOS);
    names.extend(fields::SUBMIT);
    names.insert(fields::QUEUE_RANK);
    names.insert(fields::QTIME);
    names.extend(fields::TRACE);
    names.extend(fields::RESOURCE_LISTS);
    names
}

/// The text of the section `## title` of a Markdown page.
fn section<'a>(page: &'a str, title: &str) -> &'a str {
    let start = page
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("no section `## {title}`"));
    let rest = &page[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The `backticked` names of a text.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The names in the first column of the Markdown table of a section.
fn first_column(section: &str) -> Vec<&str> {
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| field "))
        .flat_map(|l| code_spans(l.split(" | ").next().unwrap_or_default()))
        .collect()
}

#[test]
fn the_job_fields_page_names_the_field_table() {
    let page = read("docs/formats.md");
    let text = section(&page, "Job fields");
    let table = field_table_names();
    let catalog = Catalog::pbs();
    // Every field the page's table lists is the field table's, or a PBS keyword or resource.
    let listed = first_column(text);
    assert!(listed.len() >= 30, "{listed:?}");
    let strays: Vec<&&str> = listed
        .iter()
        .filter(|n| {
            !table.contains(*n) && !fields::is_pbs_job_attribute(n) && catalog.lookup(n).is_none()
        })
        .collect();
    assert!(
        strays.is_empty(),
        "docs/formats.md lists job fields src/input/fields.rs and the PBS catalog do not know: {strays:?}"
    );
    // Every name of the field table is in the page's table.
    let missing: Vec<&&str> = table.iter().filter(|n| !listed.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "fields of src/input/fields.rs that docs/formats.md's table does not list: {missing:?}"
    );
    // The PBS job attributes: the paragraph that names them names exactly those of the table.
    let para = text
        .split("\n\n")
        .find(|p| p.contains("PBS job attributes jobsort knows"))
        .expect("the paragraph of PBS job attributes");
    let named: BTreeSet<&str> = code_spans(para)
        .into_iter()
        .filter(|n| !n.contains('.') && !n.contains(' '))
        .filter(|n| *n != "job_priority")
        .collect();
    let attributes: BTreeSet<&str> = fields::PBS_JOB_ATTRIBUTES.split_whitespace().collect();
    assert_eq!(
        named.difference(&attributes).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "named as PBS job attributes in docs/formats.md, not in fields::PBS_JOB_ATTRIBUTES"
    );
    assert_eq!(
        attributes.difference(&named).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "fields::PBS_JOB_ATTRIBUTES that docs/formats.md does not name"
    );
}

#[test]
fn the_first_column_of_a_field_table_is_read() {
    let text = "| field | unit | meaning |\n|---|---|---|\n| `id`, `jobid` | text | the `x` id |\n| any other | - | `y` |\n";
    assert_eq!(first_column(text), ["id", "jobid"]);
}

// ---------------------------------------------------------------------------------------
// Links

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to
/// `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The text of a page outside fenced code blocks, line by line with their numbers.
fn prose(page: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in page.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The anchors of a page's headings (a repeated heading gets `-1`, `-2`, ... as on GitHub).
fn anchors(page: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose(page) {
        let Some(title) = line.strip_prefix('#').map(|l| l.trim_start_matches('#')) else {
            continue;
        };
        if !title.starts_with(' ') {
            continue;
        }
        let s = slug(title);
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of a page's Markdown links `[text](target)` outside code, with their lines.
fn links(page: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose(page) {
        // Inline code is no link.
        let text: String = line
            .split('`')
            .enumerate()
            .map(|(i, part)| if i % 2 == 0 { part } else { "" })
            .collect();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// The broken relative links of the page `rel` (a file under `root`): `file:line: target: why`.
fn broken_links(root: &Path, rel: &str) -> Vec<String> {
    let page = std::fs::read_to_string(root.join(rel)).unwrap();
    let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (line, target) in links(&page) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target.as_str(), None),
        };
        let path = if file.is_empty() {
            root.join(rel)
        } else {
            root.join(dir).join(file)
        };
        let at = format!("{rel}:{line}: {target}");
        if !path.exists() {
            broken.push(format!("{at}: no file {}", path.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            let target_page = std::fs::read_to_string(&path).unwrap_or_default();
            if !anchors(&target_page).contains(anchor) {
                broken.push(format!("{at}: no heading with the anchor #{anchor}"));
            }
        }
    }
    broken
}

/// `README.md` and every page of `docs/`.
fn pages(root: &Path) -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.ends_with(".md").then(|| format!("docs/{name}"))
        })
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn every_relative_link_resolves() {
    let root = repo();
    let pages = pages(&root);
    assert!(pages.len() >= 8, "{pages:?}");
    let broken: Vec<String> = pages.iter().flat_map(|p| broken_links(&root, p)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_and_a_missing_heading() {
    let root = std::env::temp_dir().join(format!("jobsort-docs-links-{}", std::process::id()));
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("README.md"),
        "# Top\n\n## The `sim` command: a trace\n\n[ok](docs/a.md#a-b) [ok](#the-sim-command-a-trace) \
         `[code](nowhere.md)`\n[gone](docs/gone.md) [bad](docs/a.md#nope) [bad](#top-1)\n\
         ```\n[fenced](nowhere.md)\n```\n",
    )
    .unwrap();
    std::fs::write(root.join("docs/a.md"), "# A b\n\n[up](../README.md#top)\n").unwrap();
    let broken = broken_links(&root, "README.md");
    let lines: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        lines,
        ["docs/gone.md", "docs/a.md#nope", "#top-1"],
        "{broken:?}"
    );
    assert!(broken_links(&root, "docs/a.md").is_empty());
    std::fs::remove_dir_all(&root).unwrap();
}

// ---------------------------------------------------------------------------------------
// The README's commands

/// The words of a command line as a POSIX shell splits them (quotes, no expansions).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                    w.push(d);
                }
            }
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[test]
fn the_readmes_subcommand_examples_run_from_the_repository_root() {
    let readme = read("README.md");
    let text = section(&readme, "Subcommands");
    // The example column of the table: `jobsort ...` commands, `&&` chaining several.
    let commands: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.trim_end_matches('|').rsplit(" | ").next().map(str::trim))
        .filter_map(|cell| {
            cell.strip_prefix('`')?
                .strip_suffix('`')
                .map(str::to_string)
        })
        .collect();
    assert!(commands.len() >= 13, "{commands:?}");
    // Commands that write files write them in a scratch folder that sees the repository's.
    let scratch = std::env::temp_dir().join(format!("jobsort-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for dir in ["examples", "tests"] {
        let link = scratch.join(dir);
        if !link.exists() {
            std::os::unix::fs::symlink(repo().join(dir), link).unwrap();
        }
    }
    for line in &commands {
        for cmd in line.split("&&") {
            let words = shell_words(cmd);
            assert_eq!(words[0], "jobsort", "{line}");
            let out = command(&words[1..])
                .current_dir(&scratch)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "README: `{cmd}` failed ({}):\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn shell_words_follow_quotes() {
    assert_eq!(
        shell_words(r#"jobsort rank 'a * 2' --x "b c" d"#),
        ["jobsort", "rank", "a * 2", "--x", "b c", "d"]
    );
}

// ---------------------------------------------------------------------------------------
// jobsort explain

#[test]
fn explain_prints_the_pages_entry_of_a_code() {
    let (code, out, err) = common::cli::run(["explain", "e0304"]);
    assert_eq!(code, 0, "{err}");
    let page = read("docs/diagnostics.md");
    let entry = section(&page, "E0304");
    // The entry as the page has it, the heading's `## ` and the fences left out.
    let want: String = entry
        .lines()
        .map(|l| l.strip_prefix("## ").unwrap_or(l))
        .filter(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(out.trim_end(), want.trim_end());
    assert!(
        out.contains("$ jobsort check 'ncpus * 1e999'\n[E0304] Error"),
        "{out}"
    );
}

#[test]
fn explain_of_an_unknown_code_names_the_nearest_and_fails() {
    let (code, out, err) = common::cli::run(["explain", "W0499"]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("jobsort explain: `W0499` is no diagnostic code; did you mean W0409?"),
        "{err}"
    );
    let (code, _, err) = common::cli::run(["explain", "E0399"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("the codes of E03xx: E0301, E0302, E0303, E0304, E0305"),
        "{err}"
    );
}

#[test]
fn the_slurm_job_fields_page_names_the_raw_fields() {
    let page = read("docs/formats.md");
    let listed = first_column(section(&page, "Slurm job fields"));
    let raw: BTreeSet<&str> = jobsort::slurm::jobs::RAW_FIELDS
        .iter()
        .map(|&(n, _)| n)
        .collect();
    let slurm = Catalog::slurm();
    let strays: Vec<&&str> = listed
        .iter()
        .filter(|n| {
            !raw.contains(*n)
                && slurm.lookup(n).is_none()
                && **n != jobsort::slurm::multifactor::STORED_PRIORITY
                && !n.starts_with("gres_")
        })
        .collect();
    assert!(
        strays.is_empty(),
        "docs/formats.md's Slurm job fields not read: {strays:?}"
    );
    let missing: Vec<&&str> = raw.iter().filter(|n| !listed.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "slurm::jobs::RAW_FIELDS not in docs/formats.md: {missing:?}"
    );
}
