# snapshot of a path that is not a folder, exit 1.
snapshot tests/data/no-such-folder
