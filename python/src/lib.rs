//! `jobsort._jobsort`: the native module of the `jobsort` Python package.
//!
//! A thin layer over the library: every rule (compiling, evaluating, ranking, fairshare,
//! simulation, replay, forecasts) is the library's; this crate converts arguments and results, releases
//! the GIL around the work, and turns library errors into Python exceptions. The Python
//! package (`python/jobsort/`) gives the API its shape (DataFrames, sweeps, Dask).

mod diagnostic;
mod errors;
mod fairshare;
mod forecast;
mod formula;
mod sim;

use pyo3::prelude::*;

#[pymodule]
fn _jobsort(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // At most the threads the machine runs, whatever RAYON_NUM_THREADS asks (as the CLI).
    jobsort::formula::threads::cap_global_pool();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("JobsortError", py.get_type::<errors::JobsortError>())?;
    m.add("FormulaError", py.get_type::<errors::FormulaError>())?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    formula::register(m)?;
    fairshare::register(m)?;
    forecast::register(m)?;
    sim::register(m)?;
    Ok(())
}
