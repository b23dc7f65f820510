# The flux-accounting limit engine over the example events.
limits --config examples/limits.toml --events examples/limit_events.jsonl
