# The Slurm catalog: Slurm factor names are known.
check --scheduler slurm '1000 * age + 10000 * fairshare'
