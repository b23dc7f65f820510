# eval without --jobs: clap names the required argument, exit 2.
eval ncpus
