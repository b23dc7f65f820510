#[path = "../benches/forecast.rs"]
#[allow(dead_code)]
mod b;
use jobsort::model::policy::Policy;
fn main() {
    let v: Vec<usize> = std::env::var("SIZE")
        .unwrap_or("5000,4000,10000".into())
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    let s = b::site(v[0], v[1], v[2]);
    let order: Vec<usize> = (0..s.pending.len()).collect();
    let which = std::env::var("POLICY").unwrap_or("easy,strict".into());
    for name in which.split(',') {
        let policy = match name {
            "easy" => Policy::Easy,
            "strict" => Policy::Strict,
            _ => Policy::Slurm(Default::default()),
        };
        let o = jobsort::forecast::PlanOptions {
            policy,
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let p = jobsort::forecast::plan(
            &s,
            &jobsort::model::limits::Limits::none(s.running.len(), s.pending.len()),
            &order,
            1_764_590_400,
            &o,
            &jobsort::forecast::FullWalltime,
        );
        let started = p.jobs.iter().filter(|j| j.start.is_some()).count();
        let now = p.jobs.iter().filter(|j| j.start == Some(p.now)).count();
        eprintln!(
            "{name}: {:?} cycles {} started {} now {}",
            t.elapsed(),
            p.cycles,
            started,
            now
        );
    }
}
