# What a PBS snapshot folder holds.
snapshot tests/data/snapshot/pbs
