//! The thread pool large evaluations (and the CLI's and Python's side-by-side simulations) run
//! on: rayon's global pool, with at most the threads the machine runs at once. rayon takes
//! `RAYON_NUM_THREADS` as given, and 10,000 threads made a million-job evaluation 28 times
//! slower (and can fail to start under an address-space limit); here the variable is honoured
//! up to the machine's parallelism. Built once, before the first parallel evaluation, from
//! every surface: the CLI, Python and the C ABI all evaluate through [`super::CompiledFormula`].

use std::sync::Once;

static CAPPED: Once = Once::new();

/// Build rayon's global pool with [`pool_threads`] threads, once. If something built the global
/// pool first (an embedding program), that pool is kept.
pub fn cap_global_pool() {
    CAPPED.call_once(|| {
        let available = std::thread::available_parallelism().map_or(1, |n| n.get());
        let asked = std::env::var("RAYON_NUM_THREADS").ok();
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(pool_threads(asked.as_deref(), available))
            .build_global();
    });
}

/// The threads of the pool: `RAYON_NUM_THREADS` (a positive whole number; anything else is
/// rayon's "not set") capped at `available`.
pub fn pool_threads(asked: Option<&str>, available: usize) -> usize {
    asked
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or(available, |n| n.min(available))
}

#[cfg(test)]
mod tests {
    use super::pool_threads;

    #[test]
    fn the_variable_is_honoured_up_to_the_machine() {
        assert_eq!(pool_threads(None, 8), 8);
        assert_eq!(pool_threads(Some("4"), 8), 4);
        assert_eq!(pool_threads(Some("10000"), 8), 8);
        assert_eq!(pool_threads(Some("0"), 8), 8);
        assert_eq!(pool_threads(Some("many"), 8), 8);
        assert_eq!(pool_threads(Some(" 2 "), 8), 2);
    }
}
