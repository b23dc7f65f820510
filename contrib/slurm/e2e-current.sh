#!/usr/bin/env bash
# End-to-end test of jobsort against a current Slurm (Debian 13's 24.11), beside e2e.sh's
# Debian 12 Slurm 22.05 on the host.
#
# A Debian 13 (trixie) root made by debootstrap (Debian's own packages) and kept in a cache
# folder holds Slurm 24.11, munge and the configured 24.11 source (for the
# site_factor plugin's headers: the job record layout is in slurmctld's internal headers).
# The plugin is built inside the root against those headers; jobsort runs on the host. The
# test's work folder has the same path on the host and in the root (a bind mount), so every
# path in slurm.conf, the logs and the captures means the same on both sides, and the Slurm
# client commands e2e.sh's steps call (sbatch, squeue, sprio, ...) are the root's, through
# small wrappers first on PATH. munged, slurmdbd (without it priority/multifactor runs no
# decay thread, and slurmctld never calls site_factor_p_update), slurmctld and one slurmd run
# in the root, MariaDB on the host (see section 3), on private ports on 127.0.0.1, with their
# own munge socket and state (so e2e.sh can run at the same time). Checked, on 24.11:
#   1. the site factor: each pending job's SITE (sprio) is trunc(value × scale) of the
#      formula's value as `jobsort eval` computes it from `scontrol show job`, and the
#      priority is site − nice;
#   2. multifactor: `jobsort rank --scheduler slurm --explain` over `squeue --json`
#      (data_parser v0.0.42) and `sshare` gives every pending job sprio's PRIORITY and all
#      nine weighted columns exactly, for the default job size and for PriorityFavorSmall;
#   3. a snapshot made by contrib/capture/slurm.sh (24.11: `scontrol show nodes --json`)
#      loads with every node and every pending job.
# e2e.sh's steps (slurm.conf, job submission, the comparisons) are taken from e2e.sh itself,
# function by function (`e2e_fn`), so both versions run the same checks.
# Every daemon it started is stopped by pid, and everything it mounted is unmounted, on any
# exit. Run as root. It skips, loudly, only when the package archive cannot be reached.
#
#   contrib/slurm/e2e-current.sh    (from anywhere; CARGO_TARGET_DIR or ./target for builds)
#   KEEP=1 keeps the work folder (the captures: squeue.json, sprio-l.txt, sshare.txt, ...).
#   JOBSORT_SLURM_CACHE (default ~/.cache/jobsort-slurm) holds trixie-root, reused when present.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${JOBSORT_SLURM_CACHE:-$HOME/.cache/jobsort-slurm}
rootfs=$cache/trixie-root
target=${CARGO_TARGET_DIR:-$root/target}
mirror=http://deb.debian.org/debian
t_start=$(date +%s)
pids=()
host_pids=()
mounts=()
passed=0
failed=0
work=
work_src=

say() { printf 'slurm-current: %s\n' "$*"; }
cleanup() {
    local p i f
    # 24.11's `scontrol reconfigure` execs a new slurmctld and slurmd (controller.c:
    # _attempt_reconfig): their pid files name the live ones. Only processes inside the root
    # are stopped.
    if [ -n "$work" ]; then
        for f in "$work"/slurm*.pid "$work/munge/pid"; do
            if [ -s "$f" ]; then pids+=("$(cat "$f")"); fi
        done
    fi
    local live=() real
    real=$(readlink -f "$rootfs")
    for p in "${pids[@]}"; do
        if [ "$(readlink "/proc/$p/root" 2>/dev/null)" = "$real" ]; then live+=("$p"); fi
    done
    pids=("${live[@]}" "${host_pids[@]}")
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null ||
            say "cannot unmount ${mounts[i]}"
    done
    rm -rf "${work_src:-}"
    if [ -n "$work" ]; then
        mountpoint -q "$rootfs$work" 2>/dev/null || rmdir "$rootfs$work" 2>/dev/null || true
        if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
    fi
}
trap cleanup EXIT
skip() { say "SKIPPED: the package archive cannot be reached ($*); the Slurm 24.11 end-to-end test did NOT run"; exit 0; }
phase() { say "$1 in $(( $(date +%s) - $2 )) s"; }
bind() { # host path, path in the root; [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounts+=("$2")
    if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
# A command in the root, with the root's PATH and the test's environment.
# (The cache's lock, fd 9, stays with this script: no daemon inherits it.)
in_root() { chroot "$rootfs" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" 9>&-; }
# One of e2e.sh's functions, defined here as e2e.sh defines it.
e2e_fn() {
    local name text
    for name in "$@"; do
        # From `NAME() {` to the first line that closes it: itself when one line, else the
        # next line starting with `}`.
        text=$(awk -v start="$name() {" '
            !on && index($0, start) == 1 { on = 1; print; if ($0 ~ /; }$/) exit; next }
            on { print; if ($0 ~ /^}/) exit }' "$here/e2e.sh")
        if [ -z "$text" ]; then
            say "e2e.sh defines no function $name: the steps this test shares with it have moved"
            exit 1
        fi
        eval "$text"
        declare -F "$name" >/dev/null || { say "e2e.sh's $name did not read as a function"; exit 1; }
    done
}

if [ "$(id -u)" != 0 ]; then
    say "must run as root (debootstrap, chroot, mounts; slurmctld/slurmd run as SlurmUser=root)"
    exit 1
fi
# One run at a time per cache folder (they would share the root); then any mount a killed
# run left under the root is taken down before the root is touched.
mkdir -p "$cache"
exec 9>"$cache/.e2e-current.lock"
if ! flock -n 9; then
    say "another e2e-current.sh uses $cache; set JOBSORT_SLURM_CACHE to run beside it"
    exit 1
fi
while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
done < <(findmnt -rn -o TARGET | grep -F "$rootfs/" | sort -r || true)

# --- 1. the Debian 13 root: debootstrap, Slurm 24.11, munge, the 24.11 source --------------
t0=$(date +%s)
if [ ! -x "$rootfs/usr/bin/apt-get" ]; then
    if ! command -v debootstrap >/dev/null; then
        apt-get update -qq || skip "apt-get update failed"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    fi
    mkdir -p "$cache"
    partial=$rootfs.partial
    if findmnt -rn -o TARGET | grep -qF "$partial/"; then
        say "something is mounted under $partial; not touching it"
        exit 1
    fi
    rm -rf "$partial"
    log=$(mktemp /tmp/jobsort-slurm-current-debootstrap.XXXXXX)
    if ! debootstrap --variant=minbase trixie "$partial" "$mirror" >"$log" 2>&1; then
        if grep -q -e 'Failed getting release file' -e "Couldn't download" "$log"; then
            rm -f "$log"; skip "debootstrap could not download from $mirror"
        fi
        tail -20 "$log"; say "debootstrap failed"; exit 1
    fi
    rm -f "$log"
    mv "$partial" "$rootfs"
    phase "debootstrap" "$t0"
fi
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
cp /etc/hosts "$rootfs/etc/hosts"
mount -t proc proc "$rootfs/proc"; mounts+=("$rootfs/proc")
mount -t sysfs sysfs "$rootfs/sys"; mounts+=("$rootfs/sys")
bind /dev "$rootfs/dev"

ready=$rootfs/var/lib/jobsort-ready
if [ ! -s "$ready" ]; then
    t1=$(date +%s)
    # No daemon starts while packages are installed (invoke-rc.d asks policy-rc.d).
    printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
    chmod 755 "$rootfs/usr/sbin/policy-rc.d"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb deb-src
URIs: $mirror
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://deb.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    rm -f "$rootfs/etc/apt/sources.list"
    in_root apt-get update -qq || skip "apt-get update in the trixie root failed"
    pkgs="slurmctld slurmd slurmdbd slurm-client munge libmunge-dev libslurm-dev dpkg-dev gcc libc6-dev make"
    log=$rootfs/tmp/apt.log
    DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends $pkgs \
        >"$log" 2>&1 || { tail -30 "$log"; say "cannot install $pkgs in the root"; exit 1; }
    phase "packages installed" "$t1"
    t1=$(date +%s)
    version=$(in_root dpkg-query -W -f='${Version}' slurmctld)
    work_src=$(mktemp -d /tmp/jobsort-slurm-current-src.XXXXXX)
    rm -rf "$rootfs/usr/src/jobsort-slurm"
    mkdir -p "$rootfs/usr/src/jobsort-slurm"
    upstream=${version%%-*}
    if ! in_root sh -c "cd /usr/src/jobsort-slurm && apt-get source -qq 'slurm-wlm=$version'" >"$log" 2>&1; then
        # A mirror that lacks a file of the source package (seen: the .dsc of a security
        # update) fails apt-get source; the same files, from either archive's pool, checked
        # against the Sources index's SHA256, then unpacked and patched as dpkg-source does.
        tail -5 "$log"
        say "apt-get source failed; fetching the files the Sources index names"
        in_root apt-get source --print-uris -qq "slurm-wlm=$version" >"$work_src/uris"
        python3 - "$work_src/uris" "$rootfs/usr/src/jobsort-slurm" <<'EOF' || exit 1
import hashlib, os, sys, urllib.request
folder = sys.argv[2]
for line in open(sys.argv[1]):
    uri, name, size, digest = line.split()
    uri = uri.strip("'")
    algo, want = digest.split(":", 1)
    path = os.path.join(folder, name)
    def good():
        return os.path.exists(path) and hashlib.new(algo.lower(), open(path, "rb").read()).hexdigest() == want
    tried = []
    for u in (uri, uri.replace("/debian/pool/main/", "/debian-security/pool/updates/main/"),
              uri.replace("/debian-security/pool/updates/main/", "/debian/pool/main/")):
        if good() or u in tried:
            break
        tried.append(u)
        try:
            with urllib.request.urlopen(u, timeout=120) as r, open(path, "wb") as f:
                f.write(r.read())
        except OSError as e:
            print(f"  {u}: {e}")
    print(f"  {name}: {'ok' if good() else 'NOT FETCHED'}")
EOF
        (cd "$rootfs/usr/src/jobsort-slurm" && ls ./*.orig.tar.* ./*.debian.tar.* >/dev/null 2>&1) ||
            { say "cannot fetch the source of slurm-wlm $version"; exit 1; }
        in_root sh -c "cd /usr/src/jobsort-slurm && mkdir slurm-wlm-$upstream &&
            tar -xf slurm-wlm_$upstream.orig.tar.* -C slurm-wlm-$upstream --strip-components=1 &&
            tar -xf slurm-wlm_$version.debian.tar.* -C slurm-wlm-$upstream &&
            cd slurm-wlm-$upstream && if [ -f debian/patches/series ]; then
                grep -v '^#' debian/patches/series | while read -r p _; do
                    [ -z \"\$p\" ] || patch -s -p1 <debian/patches/\"\$p\" || exit 1; done; fi" \
            >"$log" 2>&1 || { tail -30 "$log"; say "cannot unpack the source of slurm-wlm $version"; exit 1; }
    fi
    in_root sh -c "cd /usr/src/jobsort-slurm/slurm-wlm-$upstream && ./configure --sysconfdir=/etc/slurm" \
        >"$log" 2>&1 || { tail -30 "$log"; say "configure of Slurm $upstream failed"; exit 1; }
    in_root apt-get clean
    rm -rf "$log" "$work_src"
    printf '%s\n' "$version" >"$ready"
    phase "source fetched and configured" "$t1"
fi
version=$(cat "$ready")
upstream=${version%%-*}
src=/usr/src/jobsort-slurm/slurm-wlm-$upstream
say "Debian 13 root with Slurm $version ready in $(( $(date +%s) - t0 )) s"

# --- 2. jobsort on the host, the plugin in the root -------------------------------------
t0=$(date +%s)
# The host's /tmp is e2e.sh's; this folder has another prefix, and the same path in the root.
work=$(mktemp -d /tmp/jobsort-slurm-current.XXXXXX)
bind "$work" "$rootfs$work"
mkdir -p "$work/bin" "$work/plugins"
# The binary first: building it may rewrite libjobsort.a with the default features, and the
# plugin links the lean library (build.sh's).
(cd "$root" && cargo build --locked --bin jobsort 2>&1 | tail -1)
(cd "$root" && cargo build --locked --lib --no-default-features 2>&1 | tail -1)
jobsort="$target/debug/jobsort"
# build.sh, run in the root: its version check and compiler line against the 24.11 headers;
# libjobsort.a is the host's (built above), so its `cargo build` is a no-op there.
bind "$root" "$rootfs/jobsort" ro
bind "$target" "$rootfs/jobsort-target" ro
printf '#!/bin/sh\ntest -f /jobsort-target/debug/libjobsort.a\n' >"$work/bin/cargo"
chmod 755 "$work/bin/cargo"
in_root env PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin" CARGO_TARGET_DIR=/jobsort-target \
    JOBSORT_PROFILE=debug /jobsort/contrib/slurm/build.sh "$src" "$work/plugins"
rm "$work/bin/cargo"
# The Slurm commands e2e.sh's steps and contrib/capture/slurm.sh call: the root's.
for c in sbatch squeue sprio sshare scontrol sacctmgr sinfo sacct scancel; do
    printf '#!/bin/sh\nexec chroot %q /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin %s "$@"\n' \
        "$rootfs" "$c" >"$work/bin/$c"
    chmod 755 "$work/bin/$c"
done
export PATH="$work/bin:$PATH"
phase "built" "$t0"

# --- 3. munged, MariaDB, slurmdbd, slurmctld, slurmd in the root --------------------------
t0=$(date +%s)
e2e_fn check wait_until free_port common_conf write_conf submit jobs_csv site_factors_match \
    priority_is_site_minus_nice multifactor_matches
host=$(hostname -s)
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/out"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
in_root munged --force --socket="$work/munge/sock" --key-file="$work/munge/munge.key" \
    --log-file="$work/munge/log" --pid-file="$work/munge/pid" --seed-file="$work/munge/seed"
pids+=("$(cat "$work/munge/pid")")
ctld_port=$(free_port); slurmd_port=$(free_port); dbd_port=$(free_port); db_port=$(free_port)
# MariaDB is the host's (Debian 12's 10.11, as e2e.sh installs it), on its own port and
# datadir: Debian 13's slurmdbd 24.11.5 stops at start against Debian 13's MariaDB 11.8.9
# (`_check_mysql_concat_is_sane: null result from query`, the client library's error 5027
# "Number of columns in result (=1) set exceeds maximum allowed number of columns (=0)").
if ! command -v mariadbd >/dev/null; then
    apt-get update -qq || skip "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >"$work/apt.log" 2>&1 ||
        { cat "$work/apt.log"; say "cannot install mariadb-server"; exit 1; }
fi
mariadb-install-db --user=root --datadir="$work/db" --auth-root-authentication-method=normal \
    >"$work/db-install.log" 2>&1 || { cat "$work/db-install.log"; exit 1; }
mariadbd --user=root --datadir="$work/db" --bind-address=127.0.0.1 --port="$db_port" \
    --socket="$work/db.sock" --pid-file="$work/db.pid" --skip-name-resolve \
    --log-error="$work/db.log" 9>&- &
for _ in $(seq 100); do [ -S "$work/db.sock" ] && [ -s "$work/db.pid" ] && break; sleep 0.2; done
host_pids+=("$(cat "$work/db.pid")")
mariadb --socket="$work/db.sock" -uroot -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'e2e';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
formula_file="$work/job_sort_formula"
F1='ncpus * 10 + walltime / 60 + nodect * 1000 + queue_priority * 7 + mem / 1048576 + ngpus * 100 + fairshare_factor * 1000'
printf '%s\n' "$F1" >"$formula_file"
export SLURM_CONF="$work/slurm.conf"
# e2e.sh's slurm.conf: its PluginDir (Debian's plugin folder) is the root's too.
write_conf 1
cat >"$work/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
DbdAddr=127.0.0.1
DbdHost=localhost
DbdPort=$dbd_port
CommunicationParameters=NoInAddrAny
SlurmUser=root
PidFile=$work/slurmdbd.pid
LogFile=$work/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=e2e
StorageLoc=slurm_acct_db
EOF
chmod 600 "$work/slurmdbd.conf"
# 24.11's slurmd initialises a cgroup plugin even under proctrack/linuxproc and task/none,
# and the root has no cgroup file system: "disabled" (cgroup.conf.5) stops that.
printf 'CgroupPlugin=disabled\n' >"$work/cgroup.conf"
# slurmdbd reads slurmdbd.conf beside slurm.conf (SLURM_CONF's folder).
in_root env SLURM_CONF="$SLURM_CONF" slurmdbd
for _ in $(seq 100); do [ -s "$work/slurmdbd.pid" ] && break; sleep 0.2; done
pids+=("$(cat "$work/slurmdbd.pid")")
for _ in $(seq 100); do timeout 60 sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
timeout 60 sacctmgr -i add cluster jobsorte2e >/dev/null
timeout 60 sacctmgr -i add account science >/dev/null
timeout 60 sacctmgr -i add user root account=science defaultaccount=science >/dev/null
in_root env SLURM_CONF="$SLURM_CONF" slurmctld -i
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
in_root env SLURM_CONF="$SLURM_CONF" slurmd
for _ in $(seq 100); do [ -s "$work/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 100); do timeout 60 scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
phase "daemons started" "$t0"
say "$(timeout 60 scontrol version)"
check "slurmctld $upstream is up with site_factor/jobsort loaded" grep -q "site_factor/jobsort: formula loaded" "$work/slurmctld.log"

# --- 4. the site factor (the partitions are DOWN, so nothing starts) -----------------------
t0=$(date +%s)
submit -n1 -t 10 >/dev/null
submit -n4 -t 60 --mem=2000 >/dev/null
submit -N1 -n2 -t 1:30:00 -p short --mem-per-cpu=700 >/dev/null
submit -n16 >/dev/null
submit -n3 -t 2-00:00:00 --gres=gpu:2 >/dev/null
submit -n1 -t 5 -p short --gpus=3 >/dev/null
submit -n8 -t 0:45 --nice=100 >/dev/null
check "site factors equal jobsort eval of the formula" wait_until 150 site_factors_match "$F1" 1
check "slurm's priority is the site factor minus nice" priority_is_site_minus_nice
phase "the site factor step" "$t0"

# --- 5. multifactor: jobsort's factors and priority against sprio (as e2e.sh, section 8) -----
t0=$(date +%s)
timeout 60 sacctmgr -i add qos high priority=100 >/dev/null
timeout 60 sacctmgr -i modify user root set qos+=high >/dev/null
submit -n2 -t 30 --qos=high -p short >/dev/null
printf '0\n' >"$formula_file"
weights="PriorityWeightAge=1000
PriorityWeightFairshare=5000
PriorityWeightPartition=3000
PriorityWeightQOS=4000
PriorityWeightTRES=CPU=100,Mem=50,GRES/gpu=300
PriorityMaxAge=1"
write_conf 1 "$weights
PriorityWeightJobSize=2000"
timeout 60 scontrol reconfigure
check "reconfigure loads the zero formula" wait_until 30 grep -q "formula loaded (0 inputs, scale 1)" "$work/slurmctld.log"
check "jobsort's multifactor priority and factors equal sprio's" wait_until 150 multifactor_matches
cp "$work/squeue.json" "$work/squeue-default.json"
cp "$work/sprio-l.txt" "$work/sprio-l-default.txt"
cp "$SLURM_CONF" "$work/slurm-default.conf"
write_conf 1 "$weights
PriorityWeightJobSize=100000
PriorityFavorSmall=YES
PriorityFlags=SMALL_RELATIVE_TO_TIME"
timeout 60 scontrol reconfigure
check "the same with PriorityFavorSmall and SMALL_RELATIVE_TO_TIME" wait_until 150 multifactor_matches
phase "the multifactor step" "$t0"

# --- 6. a snapshot of 24.11 (scontrol show nodes --json) loads whole -----------------------
t0=$(date +%s)
snap=$work/snap
"$root/contrib/capture/slurm.sh" "$snap" 2>&1 | sed 's/^/  /' || true
timeout 60 squeue -h -t PD -o %i | sort -n >"$work/pending.txt"
timeout 60 sinfo -h -N -o %N | sort -u >"$work/nodes.txt"
snapshot_loads() {
    [ -s "$snap/nodes.json" ] || { say "the capture has no nodes.json (scontrol show nodes --json)"; return 1; }
    "$jobsort" snapshot "$snap" --strict --format json >"$work/snap.json" 2>"$work/snap.err" \
        || { cat "$work/snap.err"; return 1; }
    python3 - "$work/snap.json" "$work/pending.txt" "$work/nodes.txt" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
pending = sorted(l.strip() for l in open(sys.argv[2]) if l.strip())
nodes = sorted(l.strip() for l in open(sys.argv[3]) if l.strip())
got_pending = sorted(s["pending"])
got_nodes = sorted(n["name"] for n in s["nodes"])
print("  snapshot:", len(got_nodes), "nodes", s["nodes_by_state"], "pending", len(got_pending),
      "missing", [m["part"] for m in s["missing"]])
ok = got_pending == pending and got_nodes == nodes and len(pending) > 0
if not ok:
    print("  squeue pending:", pending, "sinfo nodes:", nodes)
    print("  jobsort       :", got_pending, got_nodes)
sys.exit(0 if ok else 1)
EOF
}
check "a snapshot of Slurm $upstream loads with every node and pending job" snapshot_loads
phase "the snapshot step" "$t0"

grep "site_factor/jobsort" "$work/slurmctld.log" | sed 's/^/  log: /' | tail -4
say "Slurm $upstream in $(( $(date +%s) - t_start )) s"
say "$passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
