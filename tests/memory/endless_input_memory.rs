//! Input that never ends, or expands without bound, is refused early and in bounded memory:
//! a NUL byte is an error at its line and column as soon as it is decoded (`/dev/zero`, a
//! gzip bomb of zeros), a line longer than any format's is an error at its line, white space
//! before the first line is looked past a piece at a time (a gzip bomb of newlines), and an
//! error found early reads only a bounded way further. Each reader gets an endless stream
//! (`std::io::repeat`), never a file. Measured with a counting allocator (this test binary's
//! own), in bytes; the tests take turns (`heap::alone`), as the counter is shared.

use jobsort::jobs::load::{JobFormat, read_jobs};
use jobsort::workload::{TraceOptions, TraceText, read_trace, read_workload};
use jobsort::{Catalog, input::text::MAX_LINE};
use std::io::{Read, Write};

use crate::heap;

/// The error of reading `stored` (endless) as a trace named `name`, and the heap it took.
fn trace_error(stored: impl Read, name: &str) -> (String, usize) {
    let (r, peak) = heap::peak_during(|| {
        let text = TraceText::new(stored, name, 0)?;
        read_trace(text, name, name, &TraceOptions::default())
    });
    (
        r.map(|_| ())
            .expect_err("an endless input is an error")
            .to_string(),
        peak,
    )
}

/// An endless repetition of `unit`.
struct Cycle(&'static [u8], usize);

impl Read for Cycle {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        for b in out.iter_mut() {
            *b = self.0[self.1 % self.0.len()];
            self.1 += 1;
        }
        Ok(out.len())
    }
}

#[test]
fn dev_zero_is_an_error_at_its_first_byte_in_every_trace_reader() {
    let _alone = heap::alone();
    // No name: the content decides (a NUL is no format); each name: its format's reader.
    for name in ["<stdin>", "t.swf", "t.json", "t.jsonl", "t.csv"] {
        let (e, peak) = trace_error(std::io::repeat(0), name);
        assert_eq!(
            e,
            format!("{name}:1:1: a NUL byte: this is not text"),
            "{name}"
        );
        assert!(peak < 4 << 20, "{name}: {peak} bytes");
    }
    // A format that reads its text whole (a sacct dump) stops at the NUL too, at its line.
    let sacct = std::io::Read::chain(&b"JobID|Submit\n1|2\nab"[..], std::io::repeat(0));
    let (e, peak) = trace_error(sacct, "sacct.txt");
    assert_eq!(e, "sacct.txt:3:3: a NUL byte: this is not text");
    assert!(peak < 4 << 20, "{peak} bytes");
}

#[test]
fn a_line_that_never_ends_is_an_error_at_its_line() {
    let _alone = heap::alone();
    let swf = std::io::Read::chain(&b"; MaxProcs: 4\n"[..], std::io::repeat(b'7'));
    let (e, peak) = trace_error(swf, "t.swf");
    assert!(e.starts_with("t.swf:2: a line longer than 16 MiB"), "{e}");
    assert!(peak < 3 * MAX_LINE, "{peak} bytes");
}

#[test]
fn an_error_early_in_an_endless_input_reads_a_bounded_way_on() {
    let _alone = heap::alone();
    // `yes | jobsort sim --trace -`: short lines, no NUL; the first is not SWF.
    let (e, peak) = trace_error(Cycle(b"y\n", 0), "t.swf");
    assert!(e.starts_with("t.swf:1: "), "{e}");
    assert!(peak < 4 << 20, "{peak} bytes");
}

/// A gzip member of `n` bytes of `byte` after `before`.
fn gzip_bomb(before: &[u8], byte: u8, n: usize) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(before).unwrap();
    let block = vec![byte; 1 << 20];
    for _ in 0..n >> 20 {
        gz.write_all(&block).unwrap();
    }
    gz.finish().unwrap()
}

#[test]
fn a_gzip_bomb_of_newlines_is_read_past_a_piece_at_a_time() {
    let _alone = heap::alone();
    let bomb = gzip_bomb(b"", b'\n', 48 << 20);
    let ((w, _), peak) = heap::peak_during(|| read_workload(bomb, "bomb", "bomb").unwrap());
    assert_eq!(w.jobs.len(), 0);
    assert!(peak < 4 << 20, "{peak} bytes for 48 MiB of newlines");
    // After them, a line is read at its number.
    let mut bomb = gzip_bomb(b"", b'\n', 8 << 20);
    bomb.extend(gzip_bomb(
        b"1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\nx\n",
        b'\n',
        0,
    ));
    let e = read_workload(bomb, "t", "t").unwrap_err().to_string();
    assert_eq!(
        e,
        format!("t:{}: expected 18 fields, found 1", (8 << 20) + 2),
        "{e}"
    );
}

#[test]
fn a_gzip_bomb_of_zeros_stops_at_its_first_zero() {
    let _alone = heap::alone();
    let bomb = gzip_bomb(b"; MaxProcs: 4\n", 0, 32 << 20);
    let (r, peak) = heap::peak_during(|| read_workload(bomb, "bomb.gz", "bomb.gz"));
    assert_eq!(
        r.unwrap_err().to_string(),
        "bomb.gz:2:1: a NUL byte: this is not text"
    );
    assert!(peak < 4 << 20, "{peak} bytes");
}

/// The error of reading `stored` (endless) as a job file, and the heap it took.
fn jobs_error(stored: impl std::io::BufRead, format: JobFormat) -> (String, usize) {
    let (r, peak) = heap::peak_during(|| read_jobs(stored, "jobs", format, &Catalog::pbs(), None));
    (
        r.map(|_| ())
            .expect_err("an endless input is an error")
            .to_string(),
        peak,
    )
}

#[test]
fn job_files_that_never_end_are_errors_in_bounded_memory() {
    let _alone = heap::alone();
    for format in [
        JobFormat::Auto,
        JobFormat::Csv,
        JobFormat::Json,
        JobFormat::JsonLines,
        JobFormat::Qstat,
    ] {
        let zero = std::io::BufReader::new(std::io::repeat(0));
        let (e, peak) = jobs_error(zero, format);
        assert_eq!(e, "jobs:1:1: a NUL byte: this is not text", "{format:?}");
        assert!(peak < 4 << 20, "{format:?}: {peak} bytes");
    }
    // After a header, in a row.
    let csv = std::io::BufReader::new(Read::chain(&b"id,ncpus\na,1\nb"[..], std::io::repeat(0)));
    let (e, _) = jobs_error(csv, JobFormat::Auto);
    assert_eq!(e, "jobs:3:2: a NUL byte: this is not text");
    // Blank lines before the first line are counted, not kept.
    let blank = std::io::BufReader::new(Read::chain(
        Read::take(std::io::repeat(b'\n'), 32 << 20),
        &b"{\"id\": 1, \"ncpus\": 2}\n{\"id\": 2, \"ncpus\": -1x}\n"[..],
    ));
    let (e, peak) = jobs_error(blank, JobFormat::Auto);
    assert!(
        e.starts_with(&format!("jobs:{}:22: invalid JSON", (32 << 20) + 2)),
        "{e}"
    );
    assert!(peak < 4 << 20, "{peak} bytes after 32 MiB of blank lines");
    // A row that never ends.
    let row = std::io::BufReader::new(Read::chain(&b"id,ncpus\n"[..], std::io::repeat(b'7')));
    let (e, peak) = jobs_error(row, JobFormat::Csv);
    assert!(e.starts_with("jobs:2: a line longer than 16 MiB"), "{e}");
    assert!(peak < 3 * MAX_LINE, "{peak} bytes");
}
