//! `jobsort sim --plot FILE.svg|FILE.png`: the format follows the extension, PNGs are real
//! PNGs of the plot's size with their text drawn (bundled font), and a bad extension is a usage
//! error caught before simulating.

use crate::common;

use jobsort::sim::plot::render_png;
use std::path::Path;

const KTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/traces/KTH-SP2-1996-2.1-cln-first5000.swf.gz"
);

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

fn sim_plot(out: &Path) -> std::process::Output {
    let plot = out.to_string_lossy();
    common::cli::jobsort([
        "sim",
        "--trace",
        KTH,
        "--first",
        "200",
        "--formula",
        "eligible_time",
        "--formula",
        "-walltime",
        "--plot",
        &plot,
    ])
}

/// Width and height from the IHDR chunk, which must come first.
fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(b[..8], PNG_SIGNATURE, "not a PNG signature");
    assert_eq!(&b[12..16], b"IHDR", "first chunk is not IHDR");
    let w = u32::from_be_bytes(b[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(b[20..24].try_into().unwrap());
    (w, h)
}

#[test]
fn plot_png_writes_a_full_size_png_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cmp.png");
    let o = sim_plot(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // It says where it wrote the plot.
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!(
            "jobsort sim: note: plot written to {}",
            out.display()
        )),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let a = std::fs::read(&out).unwrap();
    assert_eq!(png_size(&a), (1000, 1500));
    assert_eq!(&a[a.len() - 8..a.len() - 4], b"IEND", "PNG not terminated");
    // Three panels of curves, grids and labels: far more than a blank image compresses to.
    assert!(
        a.len() > 20_000,
        "suspiciously small PNG: {} bytes",
        a.len()
    );
    // No temporary file left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("cmp.png")]);
    // Same inputs, same bytes (bundled font, no system font lookup).
    let o = sim_plot(&out);
    assert!(o.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), a);
}

/// `--plot F` over an existing plot replaces it whole and keeps no `F.bak` (a backup is for
/// usage files); its mode stays, and a symbolic link is written through to its target.
#[test]
fn plot_over_an_old_plot_keeps_its_mode_and_link_and_leaves_no_backup() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cmp.svg");
    std::fs::write(&out, "old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let o = sim_plot(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<svg"));
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    let link = dir.path().join("link.svg");
    std::os::unix::fs::symlink("cmp.svg", &link).unwrap();
    std::fs::write(&out, "old").unwrap();
    let o = sim_plot(&link);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("<svg"));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["cmp.svg", "link.svg"]);
}

#[test]
fn plot_svg_still_writes_svg() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cmp.svg");
    let o = sim_plot(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = std::fs::read_to_string(&out).unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..s.len().min(80)]);
    assert!(s.contains("Wait time CDF per formula"));
}

#[test]
fn plot_with_unknown_extension_is_a_usage_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cmp.jpg");
    let o = sim_plot(&out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cmp.jpg") && err.contains("FILE.png"), "{err}");
    assert!(!out.exists());
    // Nothing was simulated: no table on stdout.
    assert!(o.stdout.is_empty());
}

#[test]
fn png_text_is_drawn_with_the_bundled_font() {
    let blank = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"></svg>"#;
    let text = r#"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text x="5" y="30" font-family="sans-serif" font-size="20">Wait 123</text></svg>"#;
    let b = render_png(blank).unwrap();
    let t = render_png(text).unwrap();
    assert_eq!(png_size(&b), (200, 50));
    assert_eq!(png_size(&t), (200, 50));
    // Without a usable font the text renders as nothing and both images are identical.
    assert_ne!(b, t, "text was not rendered");
}

#[test]
fn png_from_malformed_svg_is_an_error_not_a_panic() {
    let e = render_png("<svg").unwrap_err();
    assert!(e.contains("SVG to PNG"), "{e}");
}

/// Two users on one core, each with one job submitted at 0: by hand, `walltime` runs alice's
/// 100 s job first (bob waits 100 s), `-walltime` bob's 50 s job first (alice waits 50 s). So
/// against the first formula bob's mean wait changes by -100 s and alice's by +50 s (listed in
/// that order: largest change first), and the same per queue; the plot's third panel shows
/// these changes instead of the delivered shares, which every formula leaves alike.
#[test]
fn formulas_are_compared_by_each_users_and_queues_wait_and_per_job() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("two.json");
    std::fs::write(
        &trace,
        r#"[{"id": "a1", "user": "alice", "queue": "long", "submit": 0, "run": 100, "ncpus": 1, "walltime": 100},
            {"id": "b1", "user": "bob", "queue": "short", "submit": 0, "run": 50, "ncpus": 1, "walltime": 50}]"#,
    )
    .unwrap();
    let per_job = dir.path().join("jobs.csv");
    let svg = dir.path().join("cmp.svg");
    let args = |format: &str| {
        common::cli::jobsort([
            "sim",
            "--trace",
            trace.to_str().unwrap(),
            "--nodes",
            "1",
            "--cores",
            "1",
            "--formula",
            "walltime",
            "--formula",
            "-walltime",
            "--per-job",
            per_job.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
            "--format",
            format,
        ])
    };
    let o = args("table");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let section = text
        .split("mean wait per user, `-walltime` against `walltime`")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let rows: Vec<Vec<&str>> = section
        .lines()
        .skip(2)
        .take(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["bob", "1", "100.0", "0.0", "-100.0"], "{text}");
    assert_eq!(rows[1], ["alice", "1", "0.0", "50.0", "+50.0"], "{text}");
    assert!(
        text.contains("mean wait per queue, `-walltime` against `walltime`"),
        "{text}"
    );

    let csv = std::fs::read_to_string(&per_job).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "formula,id,user,group,queue,submit,cores,start,end,wait"
    );
    assert!(
        lines.contains(&"walltime,b1,bob,unknown,short,0,1,100,150,100"),
        "{csv}"
    );
    assert!(
        lines.contains(&"-walltime,a1,alice,unknown,long,0,1,50,150,50"),
        "{csv}"
    );
    assert_eq!(lines.len(), 5, "{csv}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(
        plot.contains("Mean wait per user against walltime"),
        "third panel missing"
    );
    assert!(!plot.contains("Delivered vs target share"));

    let o = args("json");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let second = &doc["runs"][1];
    assert_eq!(second["wait_change_by_user"][0]["name"], "bob");
    assert_eq!(second["wait_change_by_user"][0]["change"], -100.0);
    assert_eq!(second["wait_change_by_queue"][1]["name"], "long");
    assert_eq!(second["wait_change_by_queue"][1]["change"], 50.0);
    assert!(doc["runs"][0].get("wait_change_by_user").is_none());
    // Jain's index over per-user mean bounded slowdown: under `walltime`, alice 1 and bob
    // (100 + 50) / 50 = 3: (1 + 3)^2 / (2 * (1 + 9)) = 0.8.
    assert_eq!(doc["runs"][0]["metrics"]["jain_user_bsld"], 0.8);

    let bad = common::cli::jobsort([
        "sim",
        "--trace",
        trace.to_str().unwrap(),
        "--per-job",
        "x.txt",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
