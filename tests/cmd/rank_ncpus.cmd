# rank orders the example jobs by the formula, highest first.
rank --jobs examples/jobs.json ncpus
