# An unknown --policy: clap lists the possible values, exit 2.
sim --trace examples/trace.swf --nodes 4 --cores 16 --policy bogus walltime
