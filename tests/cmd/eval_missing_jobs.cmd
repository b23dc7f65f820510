# A job file that is not there: the path and the OS error, exit 1.
eval --jobs tests/data/no-such-file.json ncpus
