//! `jobsort sim --plot FILE.svg|FILE.png`: the format follows the extension, PNGs are real
//! PNGs of the plot's size with their text drawn (bundled font), and a bad extension is a usage
//! error caught before simulating.

mod common;

use jobsort::sim::plot::render_png;
use std::path::Path;

const KTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/traces/KTH-SP2-1996-2.1-cln.swf.gz"
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
