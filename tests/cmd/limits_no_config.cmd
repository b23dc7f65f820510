# limits without --config (or --flux-db): usage error, exit 2.
limits --events examples/limit_events.jsonl
