//! The integration tests, one module per area, in one binary (one build and link instead of
//! one per file). Add a test to a module here, or a module for a new area; a new file directly
//! in `tests/` would be a test binary of its own, which `tests/tidy.rs` refuses. Tests that
//! measure memory are in `tests/memory/` (a counting allocator is per binary).

#[path = "../common/mod.rs"]
mod common;

mod capi_c;
mod capi_rust;
mod check_output_size;
mod check_pbs_compile;
mod check_soundness;
mod cli_conventions;
mod cli_eval_rank;
mod cli_forecast_page;
mod cli_job_states;
mod cli_snapshot;
mod cmd_transcripts;
mod docs;
mod fairshare_fidelity;
mod fairshare_inputs;
mod fairshare_pbs;
mod fairshare_slurm_flux;
mod fixtures;
mod flux_priority_fidelity;
mod formula_nesting;
mod frontend_acceptance;
mod frontend_cli;
mod frontend_robustness;
mod frontend_snapshots;
mod frontend_values;
mod input_errors;
mod ir_filetests;
mod jit_proptest;
mod jit_stress;
mod jit_text;
mod limits_cases;
mod limits_cli;
mod limits_engine;
mod limits_flux_fidelity;
mod limits_props;
mod opt_rewrites;
mod python_differential;
mod rank_site_config;
mod recording_v2;
mod replay_site_config;
mod schedule_cases;
mod sim_account_entity;
mod sim_fidelity;
mod sim_inputs;
mod sim_kth;
mod sim_metrics;
mod sim_pbs_accounting;
mod sim_plain;
mod sim_plot;
mod sim_policies;
mod sim_queue_order;
mod sim_reconcile;
mod sim_replay;
mod sim_resources;
mod sim_schedule;
mod sim_setup;
mod sim_shapes;
mod sim_site_config;
mod sim_slurm_backfill;
mod sim_slurm_conf;
mod sim_snapshot;
mod sim_usage_res;
mod sim_workload;
mod site_logs_cli;
mod slurm_priority;
