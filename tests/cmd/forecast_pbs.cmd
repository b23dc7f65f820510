# forecast of a PBS snapshot with qmgr.txt and sched_config.
forecast --snapshot tests/data/why/pbs
