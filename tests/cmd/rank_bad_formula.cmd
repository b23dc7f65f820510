# rank refuses a formula with an error before reading jobs, exit 1.
rank --jobs examples/jobs.json 'ncpus +'
