# forecast of a snapshot without qmgr.txt or sched_config: notes say PBS defaults apply.
forecast --snapshot tests/data/snapshot/pbs
