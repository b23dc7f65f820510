#!/usr/bin/env bash
# Build site_factor_jobsort.so against the installed Slurm.
#
#   contrib/slurm/build.sh SLURM_SOURCE_DIR [OUT_DIR]
#
# SLURM_SOURCE_DIR is the source tree of the *installed* Slurm version, configured (its
# config.h exists): the plugin reads slurmctld's job records, whose layout is in the internal
# headers (src/slurmctld/slurmctld.h), which no binary package ships. On Debian:
#   apt-get source slurm-wlm && (cd slurm-wlm-* && ./configure)
# The plugin links libjobsort statically (the lean library: `cargo build --release --lib
# --no-default-features`), so slurmctld loads one self-contained file.
set -euo pipefail
src=${1:?usage: build.sh SLURM_SOURCE_DIR [OUT_DIR]}
out=${2:-$(pwd)}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ ! -f "$src/config.h" ] || [ ! -f "$src/src/slurmctld/slurmctld.h" ]; then
    echo "build.sh: $src is not a configured Slurm source tree (no config.h or src/slurmctld/slurmctld.h)" >&2
    exit 1
fi
version_of() { sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\)$/\1/p' "$1" 2>/dev/null; }
installed=$(version_of /usr/include/slurm/slurm_version.h)
tree=$(version_of "$src/slurm/slurm_version.h")
if [ -z "$installed" ] || [ -z "$tree" ]; then
    echo "build.sh: cannot read SLURM_VERSION_NUMBER from /usr/include/slurm/slurm_version.h (libslurm-dev) and $src/slurm/slurm_version.h" >&2
    exit 1
fi
if [ "$installed" != "$tree" ]; then
    echo "build.sh: the source tree is Slurm $tree but the installed headers are $installed: the job record layout must match" >&2
    exit 1
fi

# JOBSORT_PROFILE=debug builds faster (the end-to-end test uses it); deploy the release build.
profile=${JOBSORT_PROFILE:-release}
target=${CARGO_TARGET_DIR:-$root/target}
if [ "$profile" = release ]; then
    (cd "$root" && cargo build --locked --release --lib --no-default-features)
else
    (cd "$root" && cargo build --locked --lib --no-default-features)
fi
mkdir -p "$out"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
    -Wno-missing-field-initializers -fPIC -shared \
    -I"$src" -I"$root/include" \
    -o "$out/site_factor_jobsort.so" "$here/site_factor_jobsort.c" \
    "$target/$profile/libjobsort.a" -lpthread -ldl -lm -Wl,--exclude-libs,ALL -s
echo "built $out/site_factor_jobsort.so ($profile, Slurm $tree)"
