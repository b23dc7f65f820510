# An unknown flag is a usage error: clap's message, exit 2.
check --nope
