# A valid formula: the summary line on stderr, the value range, exit 0.
check 'ncpus * 2'
