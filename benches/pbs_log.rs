//! A generated PBS accounting log, shared by `benches/pbs_accounting.rs` and
//! `tools/src/bin/pbs_accounting_year.rs`: jobs submitted evenly over the period, each with a
//! Q, an S and an E record in the layout OpenPBS writes (`src/server/accounting.c`), the
//! records of all jobs interleaved in time order as a server writes them, one file per day.
#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const T0: i64 = 1_704_067_200; // 01/01/2024 00:00:00 UTC
const DAY: i64 = 86_400;

/// A small deterministic generator (splitmix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn prefix(t: i64) -> String {
    // Civil date from days (Howard Hinnant's algorithm), as UTC: the prefix is not read.
    let (days, secs) = (t.div_euclid(DAY), t.rem_euclid(DAY));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{m:02}/{d:02}/{y:04} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

struct Job {
    user: u64,
    ncpus: u64,
    nodes: u64,
    submit: i64,
    start: i64,
    end: i64,
    walltime: i64,
}

fn job_line(kind: char, id: u64, j: &Job) -> String {
    let per = j.ncpus / j.nodes;
    let common = format!(
        "user=user{u} group=group{g} project=_pbs_project_default jobname=job{id} queue=workq \
         ctime={s} qtime={s} etime={s}",
        u = j.user,
        g = j.user % 37,
        s = j.submit
    );
    let rl = format!(
        "Resource_List.mem={mem}gb Resource_List.ncpus={c} Resource_List.nodect={n} \
         Resource_List.place=scatter Resource_List.select={n}:ncpus={per}:mem={pm}gb \
         Resource_List.walltime={h:02}:{m:02}:00",
        mem = 4 * j.nodes,
        c = j.ncpus,
        n = j.nodes,
        pm = 4,
        h = j.walltime / 3600,
        m = j.walltime / 60 % 60
    );
    let first = (id * 7) % 1000;
    let host: Vec<String> = (0..j.nodes)
        .map(|k| format!("n{:04}/0*{per}", (first + k) % 1000))
        .collect();
    let vnode: Vec<String> = (0..j.nodes)
        .map(|k| format!("(n{:04}:ncpus={per}:mem=4194304kb)", (first + k) % 1000))
        .collect();
    let exec = format!(
        "start={} exec_host={} exec_vnode={}",
        j.start,
        host.join("+"),
        vnode.join("+")
    );
    let time = match kind {
        'Q' => j.submit,
        'S' => j.start,
        _ => j.end,
    };
    let message = match kind {
        'Q' => format!("{common} {rl} "),
        'S' => format!(
            "{common} {exec} {rl} resource_assigned.mem={}kb resource_assigned.ncpus={} ",
            4_194_304 * j.nodes,
            j.ncpus
        ),
        _ => {
            let used = j.end - j.start;
            format!(
                "{common} {exec} {rl} session={id} end={} Exit_status=0 \
                 resources_used.cpupercent=99 resources_used.cput={:02}:{:02}:{:02} \
                 resources_used.mem=1048576kb resources_used.ncpus={} \
                 resources_used.vmem=2097152kb resources_used.walltime={:02}:{:02}:{:02} \
                 run_count=1",
                j.end,
                used * j.ncpus as i64 / 3600,
                used / 60 % 60,
                used % 60,
                j.ncpus,
                used / 3600,
                used / 60 % 60,
                used % 60
            )
        }
    };
    format!("{};{kind};{id}.pbs;{message}\n", prefix(time))
}

/// Generate `jobs` jobs over `days` days: `out(day, line)` gets each record line in the
/// order a server writes them (days in order). Returns the number of records.
pub fn generate(
    jobs: u64,
    days: u64,
    mut out: impl FnMut(u64, &str) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    let mut rng = Mix(42);
    let span = (days as i64) * DAY;
    // Pending records by time: (time, order, kind, job).
    let mut heap: BinaryHeap<Reverse<(i64, u64, u8, u64)>> = BinaryHeap::new();
    let mut live: std::collections::HashMap<u64, Job> = Default::default();
    let mut order = 0u64;
    let mut records = 0u64;
    let mut next_job = 0u64;
    loop {
        let next_submit = (next_job < jobs).then(|| T0 + (next_job as i64 * span) / jobs as i64);
        let take_submit = match (next_submit, heap.peek()) {
            (Some(s), Some(Reverse((t, ..)))) => s <= *t,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (time, kind, id) = if take_submit {
            let submit = next_submit.unwrap_or(T0);
            let nodes = 1 << rng.below(4);
            let walltime = 600 * (1 + rng.below(48) as i64);
            let start = submit + rng.below(7200) as i64;
            let end = start + 1 + rng.below(walltime as u64) as i64;
            let id = next_job + 1;
            live.insert(
                id,
                Job {
                    user: rng.below(500),
                    ncpus: nodes * 16,
                    nodes,
                    submit,
                    start,
                    end,
                    walltime,
                },
            );
            heap.push(Reverse((start, order, b'S', id)));
            order += 1;
            next_job += 1;
            (submit, b'Q', id)
        } else {
            let Some(Reverse((t, _, kind, id))) = heap.pop() else {
                break;
            };
            if kind == b'S' {
                heap.push(Reverse((live[&id].end, order, b'E', id)));
                order += 1;
            }
            (t, kind, id)
        };
        let d = ((time - T0).max(0) / DAY) as u64;
        out(d, &job_line(kind as char, id, &live[&id]))?;
        records += 1;
        if kind == b'E' {
            live.remove(&id);
        }
    }
    Ok(records)
}
