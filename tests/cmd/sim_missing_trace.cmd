# A trace that is not there, exit 1.
sim --trace tests/data/no-such-trace.swf --nodes 4 --cores 16 walltime
