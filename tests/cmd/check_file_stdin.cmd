# --file - reads the formula from standard input.
check --file -
--- stdin
ncpus + 1
