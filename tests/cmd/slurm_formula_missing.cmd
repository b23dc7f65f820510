# slurm-formula of a file that is not there, exit 1.
slurm-formula tests/data/no-such-slurm.conf
