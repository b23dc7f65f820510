fn main() {
    // grammar/formula.lalrpop -> $OUT_DIR/formula.rs
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop failed on grammar/");

    generate_c_header();
}

/// src/capi/ -> include/jobsort.h (cbindgen, configured by cbindgen.toml; it reads
/// `src/capi/mod.rs` and follows its `mod` declarations).
///
/// The header is checked in, so it is rewritten only when its content changes (a clean
/// checkout stays clean), atomically (temp file + rename). A failure here never fails the
/// build: it becomes a cargo warning and the checked-in header stays as it was.
fn generate_c_header() {
    println!("cargo:rerun-if-changed=src/capi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let dir = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string()),
    );
    let header = dir.join("include").join("jobsort.h");
    let config = match cbindgen::Config::from_file(dir.join("cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            println!("cargo:warning=include/jobsort.h not regenerated: cbindgen.toml: {e}");
            return;
        }
    };
    let bindings = match cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src").join("capi").join("mod.rs"))
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            println!("cargo:warning=include/jobsort.h not regenerated: cbindgen: {e}");
            return;
        }
    };
    let mut text = Vec::new();
    bindings.write(&mut text);
    if std::fs::read(&header).ok().as_deref() == Some(text.as_slice()) {
        return;
    }
    let tmp = header.with_extension("h.tmp");
    let written = std::fs::create_dir_all(dir.join("include"))
        .and_then(|()| {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&text)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, &header));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        println!("cargo:warning=include/jobsort.h not regenerated: {e}");
    }
}
