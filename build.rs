fn main() {
    // grammar/formula.lalrpop -> $OUT_DIR/formula.rs
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop failed on grammar/");
}
