//! `jobsort forecast --format html` (one static page), `--output` (written atomically) and
//! `--plot` (the Gantt chart alone), on `tests/data/snapshot/pbs_site/`: a PBS site of 12
//! nodes with 8 running and 14 waiting jobs, a reservation, and copies of its
//! `resource_group` and `usage`. The page in a real browser is `contrib/browser/`'s.

use crate::common;

use common::cli::{code, jobsort, json, repo_file, stderr, stdout};
use std::path::Path;

const SITE: &str = "tests/data/snapshot/pbs_site";

fn copy_dir(from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(repo_file(from)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn page_of(dir: &str) -> String {
    let out = jobsort(["forecast", "--snapshot", dir, "--format", "html"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_page_is_one_file_that_holds_every_job_and_needs_no_network() {
    let dir = repo_file(SITE);
    let page = page_of(&dir);
    let doc = json(&jobsort([
        "forecast",
        "--snapshot",
        &dir,
        "--format",
        "json",
    ]));
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..80]);
    assert!(page.trim_end().ends_with("</html>"));
    // Nothing to fetch: no URL, no external stylesheet, script or font.
    assert!(!page.to_lowercase().contains("http"), "a URL in the page");
    for tag in ["<link", "<img", "<iframe", "src=", "@import", "url(http"] {
        assert!(!page.contains(tag), "{tag} in the page");
    }
    assert_eq!(page.matches("<script").count(), 1, "one inline script");
    assert_eq!(page.matches("<svg").count(), 1, "the chart inline");
    // Every waiting job has its row, every running one its bar, in the JSON's order.
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 14);
    let mut at = 0;
    for j in jobs {
        let id = j["id"].as_str().unwrap();
        let row = format!("<tr id=\"q{}\">", j["rank"]);
        let found = page[at..]
            .find(&row)
            .unwrap_or_else(|| panic!("no row for {id} after the previous"));
        at += found;
        assert!(
            page[at..].contains(&format!("<td class=\"id\">{id}</td>")),
            "{id}"
        );
    }
    for r in doc["running"].as_array().unwrap() {
        let id = r["id"].as_str().unwrap();
        assert!(page.contains(&format!("<title>{id} (")), "no bar for {id}");
    }
    // The header, the users' waits and the fairshare tree from the folder's resource_group.
    for text in [
        "PBS queue forecast: snapshot of 2025-12-01 12:00 UTC",
        "running jobs use their full walltime and nothing new arrives",
        "sched_config (PBS_HOME/sched_priv/sched_config)",
        "id=\"waits-table\"",
        "The tree from resource_group and usage",
        "reservation maint",
        "data-sort-ready",
    ] {
        assert!(page.contains(text), "{text}");
    }
    // ann waits for 301.srv (14:00, in 2 h) and 307.srv (now): median 1 h, longest 2 h.
    assert!(
        page.contains("ann</td><td class=\"num\">1</td><td class=\"num\">2</td><td class=\"num\" data-k=\"3600\">1 h 00 min</td><td class=\"num\" data-k=\"7200\">2 h 00 min</td>"),
        "ann's waits"
    );
}

#[test]
fn hostile_names_are_text() {
    let tmp = tempfile::tempdir().unwrap();
    let snap = tmp.path().join("snap");
    copy_dir(SITE, &snap);
    let q = snap.join("qstat.json");
    let text = std::fs::read_to_string(&q)
        .unwrap()
        .replace(
            "\"euser\": \"hal\"",
            "\"euser\": \"<script>alert('x')</script>\"",
        )
        .replace(
            "\"313.srv\"",
            "\"313.srv\\\"><img src=x onerror=alert(1)>\"",
        );
    std::fs::write(&q, text).unwrap();
    let page = page_of(snap.to_str().unwrap());
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(!page.contains("<img"), "an element from a job id");
    assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(page.contains("313.srv&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"));
    // The SVG file too: it must stay XML.
    let svg = tmp.path().join("g.svg");
    let out = jobsort([
        "forecast",
        "--snapshot",
        snap.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(!svg.contains("<script") && !svg.contains("<img"));
    assert!(svg.contains("&lt;script&gt;"));
}

#[test]
fn output_replaces_the_file_in_one_rename() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = tempfile::tempdir().unwrap();
    let dir = repo_file(SITE);
    let page = tmp.path().join("index.html");
    std::fs::write(&page, "old page").unwrap();
    // A reader holding the old file (a hard link: the same inode) keeps it whole.
    let held = tmp.path().join("held.html");
    std::fs::hard_link(&page, &held).unwrap();
    let inode = std::fs::metadata(&page).unwrap().ino();
    let out = jobsort([
        "forecast",
        "--snapshot",
        &dir,
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the page goes to the file only");
    let meta = std::fs::metadata(&page).unwrap();
    assert_ne!(
        meta.ino(),
        inode,
        "a new file renamed over the old, not rewritten in place"
    );
    assert_eq!(std::fs::read_to_string(&held).unwrap(), "old page");
    let written = std::fs::read_to_string(&page).unwrap();
    assert_eq!(written, page_of(&dir), "the same page as on stdout");
    // Readable by a web server (a new file's mode, not a temporary file's 0600).
    assert_ne!(
        meta.permissions().mode() & 0o044,
        0,
        "{:o}",
        meta.permissions().mode()
    );
    // Nothing left beside it.
    let mut names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["held.html", "index.html"]);
    // A run that fails leaves the page as it was.
    let out = jobsort([
        "forecast",
        "--snapshot",
        tmp.path().join("no-such-folder").to_str().unwrap(),
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_ne!(code(&out), Some(0));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), written);
    // Other formats go there too.
    let out = jobsort([
        "forecast",
        "--snapshot",
        &dir,
        "--format",
        "json",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&page).unwrap()).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 14);
}

#[test]
fn plot_writes_the_chart_as_svg_or_png() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = repo_file(SITE);
    let svg = tmp.path().join("gantt.svg");
    let png = tmp.path().join("gantt.png");
    for p in [&svg, &png] {
        let out = jobsort([
            "forecast",
            "--snapshot",
            &dir,
            "--plot",
            p.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        assert!(stderr(&out).contains("plot written to"), "{}", stderr(&out));
        assert!(
            stdout(&out).contains("rank  id"),
            "the table still goes to stdout"
        );
    }
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("311.srv") && svg.contains(">now</text>"));
    let png = std::fs::read(png).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    let bad = tmp.path().join("gantt.pdf");
    let out = jobsort([
        "forecast",
        "--snapshot",
        &dir,
        "--plot",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--plot writes FILE.svg or FILE.png"));
    assert!(!bad.exists());
}

#[test]
fn the_json_holds_the_fairshare_tree_or_says_why_not() {
    let doc = json(&jobsort([
        "forecast",
        "--snapshot",
        &repo_file(SITE),
        "--format",
        "json",
    ]));
    let fs = &doc["fairshare"];
    assert_eq!(fs["algorithm"], "pbs");
    assert_eq!(fs["files"], serde_json::json!(["resource_group", "usage"]));
    let ann = fs["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "ann")
        .unwrap();
    assert_eq!(ann["parent"], "phys");
    assert_eq!(ann["usage"], 9000.0);
    // The formula's fairshare term reads the same tree.
    let j = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["user"] == "ann")
        .unwrap();
    let term = j["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["term"] == "fairshare_factor * 100")
        .unwrap();
    let factor = ann["fairshare_factor"].as_f64().unwrap();
    let shown: f64 = term["value"].as_str().unwrap().parse().unwrap();
    assert!((shown - factor * 100.0).abs() < 1e-9, "{shown} vs {factor}");
    for (snap, says) in [
        ("tests/data/snapshot/pbs", "holds no resource_group"),
        (
            "tests/data/snapshot/slurm",
            "a Slurm snapshot holds no fairshare data",
        ),
    ] {
        let doc = json(&jobsort([
            "forecast",
            "--snapshot",
            &repo_file(snap),
            "--format",
            "json",
        ]));
        assert!(
            doc["fairshare"]["note"].as_str().unwrap().contains(says),
            "{}",
            doc["fairshare"]
        );
        assert_eq!(doc["fairshare"]["entities"], serde_json::json!([]));
    }
}

#[test]
fn with_history_the_page_adds_the_history_starts_and_ends() {
    let out = jobsort([
        "forecast",
        "--snapshot",
        &repo_file(SITE),
        "--history",
        &common::cli::kth(),
        "--format",
        "html",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains("<th>start by the history</th>"));
    assert!(page.contains("<th>median wait by the history</th>"));
    assert!(page.contains("<dt>history model</dt>"));
    assert!(page.contains("says a running job ends"), "the chart's key");
    assert!(
        page.contains(" UTC by the history; on "),
        "a running bar's tip"
    );
}
