# The example slurm.conf multifactor priority as a formula.
slurm-formula examples/slurm.conf
