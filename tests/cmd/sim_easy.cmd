# sim of the example trace on 4 nodes x 16 cores, EASY (the default).
sim --trace examples/trace.swf --nodes 4 --cores 16 walltime
