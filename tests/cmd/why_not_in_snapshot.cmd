# why for a job the snapshot does not hold, exit 1.
why --snapshot tests/data/why/pbs 103.srv
