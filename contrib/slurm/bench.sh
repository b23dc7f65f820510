#!/usr/bin/env bash
# The cost of one site_factor_p_update over N pending jobs (see bench.c).
#   contrib/slurm/bench.sh SLURM_SOURCE_DIR [N ...]
set -euo pipefail
src=${1:?usage: bench.sh SLURM_SOURCE_DIR [N ...]}; shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
libdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
(cd "$root" && cargo build --locked --release --lib --no-default-features)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -std=gnu11 -O2 -Wall -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers \
    -I"$src" -I"$root/include" -I"$here" -o "$out/bench" "$here/bench.c" \
    "$target/release/libjobsort.a" -L"$libdir" -lslurmfull -Wl,-rpath,"$libdir" -lpthread -ldl -lm
"$out/bench" "$@"
