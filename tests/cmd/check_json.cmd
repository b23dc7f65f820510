# --format json: one document on stdout with the diagnostics and the range.
check --format json 'ncpus / walltime'
