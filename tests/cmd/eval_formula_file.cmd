# eval with the example formula file over the example jobs.
eval --jobs examples/jobs.json --file examples/formula.txt
