#!/usr/bin/env bash
# End-to-end test of site_factor/jobsort inside a real slurmctld.
#
# Installs Slurm (Debian packages) and the source of the same version for the plugin's
# headers, builds the plugin, starts munged, MariaDB + slurmdbd (without slurmdbd,
# priority/multifactor runs no decay thread, so slurmctld never calls site_factor_p_update:
# priority_multifactor.c, init), slurmctld and one slurmd, on localhost only (private ports,
# sockets and state in a temporary directory), submits pending jobs of different sizes,
# time limits, memory, GPUs and partitions, and checks that:
#   1. each job's site factor (sprio) is trunc(value × scale) of the formula's value as
#      `jobsort eval` computes it from the job as `scontrol show job` reports it;
#   2. a new formula takes effect after `scontrol reconfigure`;
#   3. a bad formula is reported in slurmctld's log, the controller stays up, and every site
#      factor becomes 0;
#   4. with non-zero PriorityWeightAge/FairShare/JobSize/Partition/QOS/TRES (two partitions,
#      a QOS with a priority, jobs of several sizes), `jobsort rank --scheduler slurm
#      --explain` over the same jobs (`squeue --json`, fairshare from `sshare`) gives each
#      job sprio's PRIORITY and every weighted factor column exactly;
#   5. on three nodes with backfill and a stream of short real jobs, a snapshot made by
#      contrib/capture/slurm.sh loads with every node and pending job, and `jobsort forecast`
#      gives each pending job a start; its error against the real starts is printed beside
#      squeue --start's (reported, not checked);
#   6. with AccountingStorageEnforce=limits and association and QOS limits set in slurmdbd
#      (MaxJobsPU, GrpTRES=cpu, MaxJobs, MaxWall), every job squeue holds by a limit is held
#      by the same limit, named the same, in `jobsort forecast` of a snapshot of the queue,
#      with a forecast start only when that limit can clear.
# Every daemon it started is stopped by pid. Run as root (CI is). It skips, loudly, only when
# the package archive cannot be reached.
#
#   contrib/slurm/e2e.sh            (from anywhere; uses ./target for the builds)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${JOBSORT_SLURM_CACHE:-$HOME/.cache/jobsort-slurm}
work=$(mktemp -d /tmp/jobsort-slurm-e2e.XXXXXX)
pids=()
passed=0
failed=0

say() { printf 'slurm-e2e: %s\n' "$*"; }
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null || true
    done
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
check() { # name, condition (a command)
    local name=$1; shift
    if "$@"; then passed=$((passed + 1)); say "ok: $name"; else failed=$((failed + 1)); say "FAILED: $name"; fi
}

if [ "$(id -u)" != 0 ]; then
    say "must run as root (installs packages, runs slurmctld/slurmd as SlurmUser=root)"
    exit 1
fi

# --- 1. Slurm and munge -----------------------------------------------------------------
pkgs="slurm-wlm slurmctld slurmd slurmdbd slurm-client munge libslurm-dev dpkg-dev mariadb-server"
if ! dpkg -s $pkgs >/dev/null 2>&1 || ! command -v slurmctld >/dev/null; then
    if ! apt-get update -qq; then
        say "SKIPPED: the package archive cannot be reached (apt-get update failed); the Slurm end-to-end test did NOT run"
        exit 0
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >"$work/apt.log" 2>&1 || {
        cat "$work/apt.log"; say "cannot install $pkgs"; exit 1; }
fi
version=$(dpkg-query -W -f='${Version}' slurmctld)
upstream=${version%%-*}

# --- 2. the source tree of the installed version, configured (for slurmctld.h) ------------
src="$cache/slurm-wlm-$upstream"
if [ ! -f "$src/config.h" ]; then
    mkdir -p "$cache"
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    cat >/etc/apt/sources.list.d/jobsort-slurm-src.sources <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $codename-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    if ! apt-get update -qq; then
        say "SKIPPED: the package archive cannot be reached (apt-get update for sources failed); the Slurm end-to-end test did NOT run"
        exit 0
    fi
    (cd "$cache" && apt-get source -qq "slurm-wlm=$version" >"$work/source.log" 2>&1) || {
        cat "$work/source.log"; say "cannot fetch the source of slurm-wlm $version"; exit 1; }
    (cd "$src" && ./configure --sysconfdir=/etc/slurm >"$work/configure.log" 2>&1) || {
        tail -30 "$work/configure.log"; say "configure failed"; exit 1; }
fi

# --- 3. jobsort and the plugin ----------------------------------------------------------
t0=$(date +%s)
mkdir -p "$work/plugins"
# Debug builds: values are bit-identical across profiles, and CI has just built debug.
JOBSORT_PROFILE=debug "$here/build.sh" "$src" "$work/plugins"
(cd "$root" && cargo build --locked --bin jobsort 2>&1 | tail -1)
jobsort="${CARGO_TARGET_DIR:-$root/target}/debug/jobsort"
say "built in $(( $(date +%s) - t0 )) s"

# --- 4. munged, MariaDB, slurmdbd, slurmctld, slurmd on localhost ------------------------
host=$(hostname -s)
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/out"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --socket="$work/munge/sock" --key-file="$work/munge/munge.key" \
    --log-file="$work/munge/log" --pid-file="$work/munge/pid" --seed-file="$work/munge/seed"
pids+=("$(cat "$work/munge/pid")")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port); slurmd_port=$(free_port); dbd_port=$(free_port); db_port=$(free_port)

mariadb-install-db --user=root --datadir="$work/db" --auth-root-authentication-method=normal \
    >"$work/db-install.log" 2>&1 || { cat "$work/db-install.log"; exit 1; }
mariadbd --user=root --datadir="$work/db" --bind-address=127.0.0.1 --port="$db_port" \
    --socket="$work/db.sock" --pid-file="$work/db.pid" --skip-name-resolve \
    --log-error="$work/db.log" &
for _ in $(seq 100); do [ -S "$work/db.sock" ] && [ -s "$work/db.pid" ] && break; sleep 0.2; done
pids+=("$(cat "$work/db.pid")")
mariadb --socket="$work/db.sock" -uroot -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'e2e';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
formula_file="$work/job_sort_formula"
F1='ncpus * 10 + walltime / 60 + nodect * 1000 + queue_priority * 7 + mem / 1048576 + ngpus * 100 + fairshare_factor * 1000'
S1=1
F2='# second formula: favour small jobs, scaled
100000 / ncpus - walltime / 3600'
S2=2.5
printf '%s\n' "$F1" >"$formula_file"
export SLURM_CONF="$work/slurm.conf"
common_conf() { # the settings every slurm.conf here shares
    cat <<EOF
ClusterName=jobsorte2e
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmctldPidFile=$work/slurmctld.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmctldPort=$ctld_port
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MailProg=/bin/true
MpiDefault=none
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm:$work/plugins
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
# gres/gpu as a TRES, so PriorityWeightTRES can weigh it (slurm.conf.5)
AccountingStorageTRES=gres/gpu
# slurmdbd connections take their munge socket from here, not from AuthInfo (slurm.conf.5)
AccountingStoragePass=$work/munge/sock
# bind to the address the host name resolves to (127.0.0.1), not to every address
CommunicationParameters=NoInAddrAny
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
EOF
}
write_conf() { # scale [extra priority settings] [extra node settings] [extra batch partition settings]
    {
        common_conf
        cat <<EOF
SlurmdSpoolDir=$work/spool
SlurmdPidFile=$work/slurmd.pid
SlurmdLogFile=$work/slurmd.log
SlurmdPort=$slurmd_port
GresTypes=gpu
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PrioritySiteFactorPlugin=site_factor/jobsort
PrioritySiteFactorParameters=file=$formula_file,scale=$1
${2:-}
NodeName=$host NodeAddr=127.0.0.1 CPUs=16 RealMemory=64000 Gres=gpu:4 State=UNKNOWN ${3:-}
PartitionName=batch Nodes=$host Default=YES MaxTime=INFINITE State=DOWN PriorityJobFactor=10 ${4:-}
PartitionName=short Nodes=$host MaxTime=120 State=DOWN PriorityJobFactor=3
EOF
    } >"$SLURM_CONF"
    printf 'NodeName=%s Name=gpu Count=4\n' "$host" >"$work/gres.conf"
}
write_conf "$S1"
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
slurmdbd
for _ in $(seq 100); do [ -s "$work/slurmdbd.pid" ] && break; sleep 0.2; done
pids+=("$(cat "$work/slurmdbd.pid")")
for _ in $(seq 100); do timeout 60 sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
timeout 60 sacctmgr -i add cluster jobsorte2e >/dev/null
timeout 60 sacctmgr -i add account science >/dev/null
timeout 60 sacctmgr -i add user root account=science defaultaccount=science >/dev/null
slurmctld -i
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
slurmd
for _ in $(seq 100); do [ -s "$work/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 100); do timeout 60 scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
check "slurmctld is up with site_factor/jobsort loaded" grep -q "site_factor/jobsort: formula loaded" "$work/slurmctld.log"

# --- 5. pending jobs (the partitions are DOWN, so nothing starts) -------------------------
submit() { timeout 60 sbatch --parsable --chdir="$work/out" -o /dev/null "$@" --wrap "sleep 600"; }
submit -n1 -t 10 >/dev/null
submit -n4 -t 60 --mem=2000 >/dev/null
submit -N1 -n2 -t 1:30:00 -p short --mem-per-cpu=700 >/dev/null
submit -n16 >/dev/null
submit -n3 -t 2-00:00:00 --gres=gpu:2 >/dev/null
submit -n1 -t 5 -p short --gpus=3 >/dev/null
submit -n8 -t 0:45 --nice=100 >/dev/null

# Job file for `jobsort eval`, built from `scontrol show job -o` (PBS units).
jobs_csv() {
    # Every job is root's, in account science: one fairshare factor (Fair Tree), as sshare prints it.
    local fs
    fs=$(timeout 60 sshare -n -P -o Account,User,FairShare | awk -F'|' '$1 ~ /science/ && $2 == "root" { print $3 }')
    local parts
    parts=$(timeout 60 scontrol show partition -o)
    timeout 60 scontrol show job -o | FS=$fs PARTS=$parts python3 -c '
import os, re, sys
# Each partition'"'"'s PriorityJobFactor and MaxTime, as slurmctld reports them.
parts = {}
for line in os.environ["PARTS"].splitlines():
    p = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    parts[p["PartitionName"]] = (int(p["PriorityJobFactor"]), p["MaxTime"])
def secs(t):
    if t in ("UNLIMITED", "Partition_Limit", "NONE", "N/A"): return 0
    d, _, hms = t.rpartition("-")
    f = [int(x) for x in hms.split(":")]
    while len(f) < 3: f = [0] + f
    return int(d or 0) * 86400 + f[0] * 3600 + f[1] * 60 + f[2]
def mb(v):
    m = re.fullmatch(r"(\d+)([MGT]?)", v)
    return int(m.group(1)) * {"": 1, "M": 1, "G": 1024, "T": 1 << 20}[m.group(2)]
fs = os.environ["FS"]
print("id,ncpus,nodect,walltime,queue_priority,mem,ngpus,fairshare_factor")
for line in sys.stdin:
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if f["JobState"] != "PENDING": continue
    ncpus = int(f["NumCPUs"].split("-")[0]); nodes = int(f["NumNodes"].split("-")[0])
    limit = f["TimeLimit"]
    prio, max_time = parts[f["Partition"]]
    if limit in ("UNLIMITED", "Partition_Limit"): limit = max_time
    if "MinMemoryCPU" in f: mem = mb(f["MinMemoryCPU"]) * ncpus
    else: mem = mb(f.get("MinMemoryNode", "0")) * nodes
    gpus = 0
    for key, times in (("TresPerJob", 1), ("TresPerNode", nodes)):
        for g in re.findall(r"gpu(?::\w+)?[:=](\d+)", f.get(key, "")): gpus += int(g) * times
    job, part = f["JobId"], prio
    print(f"{job},{ncpus},{nodes},{secs(limit)},{part},{mem * 1024},{gpus},{fs}")
'
}
# The site factors sprio shows, against trunc(value × scale) from `jobsort eval`.
site_factors_match() { # formula, scale
    jobs_csv >"$work/jobs.csv"
    "$jobsort" eval "$1" --resource ngpus:long --resource qos_priority:long \
        --jobs "$work/jobs.csv" --format json >"$work/eval.json"
    timeout 60 sprio -h -o "%i %S" | sort -n >"$work/sprio.txt"
    python3 - "$2" "$work/eval.json" "$work/sprio.txt" <<'EOF'
import json, math, sys
scale = float(sys.argv[1])
doc = json.load(open(sys.argv[2]))
rows = doc["jobs"] if isinstance(doc, dict) else doc
want = {}
for r in rows:
    v = 0.0 if r.get("error") else r["value"]
    want[str(r["id"])] = max(-2147483645, min(2147483645, math.trunc(v * scale)))
got = dict(line.split() for line in open(sys.argv[3]) if line.strip())
got = {k: int(v) for k, v in got.items()}
if got != want or len(got) < 7:
    print("  sprio site factors:", got)
    print("  jobsort eval      :", want)
    sys.exit(1)
print("  " + " ".join(f"{k}:{got[k]}" for k in sorted(got, key=int)))
EOF
}
wait_until() { # seconds, command...
    local limit=$1; shift
    for _ in $(seq "$limit"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
    "$@"
}
# The fairshare factor is computed by the decay thread (every PriorityCalcPeriod): wait for it.
check "site factors equal jobsort eval of formula 1 (scale $S1)" wait_until 150 site_factors_match "$F1" "$S1"
# Slurm adds the site factor into the job's priority: with every other weight 0, PRIORITY is
# SITE − NICE (clamped to ≥ 1), as priority_multifactor.c's _get_priority_internal sums it.
priority_is_site_minus_nice() {
    timeout 60 sprio -h -o "%i %Y %S %N" | awk '{ want = $3 - $4; if (want < 1) want = 1;
        if ($2 != want) { print "  job " $1 ": priority " $2 " != site " $3 " - nice " $4; bad = 1 } }
        END { exit bad }'
}
check "slurm's priority is the site factor minus nice" priority_is_site_minus_nice

# --- 6. a new formula on reconfigure -------------------------------------------------------
printf '%s\n' "$F2" >"$formula_file"
write_conf "$S2"
timeout 60 scontrol reconfigure
check "reconfigure loads formula 2" wait_until 30 grep -q "formula loaded (2 inputs, scale $S2)" "$work/slurmctld.log"
# slurmctld recomputes site factors in its decay thread, every PriorityCalcPeriod (60 s).
check "site factors follow formula 2 (scale $S2) after reconfigure" wait_until 150 site_factors_match "$(printf '%s\n' "$F2" | grep -v '^#')" "$S2"

# --- 7. a bad formula: reported, controller up, site factors 0 -----------------------------
printf 'ncpus * (walltime +\n' >"$formula_file"
timeout 60 scontrol reconfigure
# The compiler's message, not an empty "()": the diagnostics calls clear the last error.
check "a bad formula is reported in slurmctld's log" wait_until 30 grep -q "site_factor/jobsort: the formula does not compile (jobsort_compile_with: " "$work/slurmctld.log"
check "slurmctld is still up" timeout 60 scontrol ping
all_zero() { [ -n "$(timeout 60 sprio -h -o '%S')" ] && ! timeout 60 sprio -h -o '%S' | grep -qv '^ *0$'; }
check "every site factor is 0 under a bad formula" wait_until 150 all_zero
printf 'fairshare_perc * 10\n' >"$formula_file"
timeout 60 scontrol reconfigure
check "an input Slurm does not have is reported" wait_until 30 grep -q "reads \`fairshare_perc\`, which Slurm job records do not have" "$work/slurmctld.log"
check "slurmctld is still up after that" timeout 60 scontrol ping

# --- 8. multifactor: jobsort's factors and priority against sprio --------------------------
# PriorityMaxAge=1 (minute): every job here is older, so its age factor is exactly 1 and does
# not move between the capture and sprio (the decay thread computes sprio's factors at its
# own time, every PriorityCalcPeriod). The site factor formula is 0.
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
multifactor_matches() {
    timeout 60 squeue --json >"$work/squeue.json"
    timeout 60 sshare -a -l -P >"$work/sshare.txt"
    timeout 60 sprio -h -o '%i|%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T' >"$work/sprio-l.txt"
    local formula
    formula=$("$jobsort" slurm-formula "$SLURM_CONF" 2>/dev/null)
    "$jobsort" rank "$formula" --scheduler slurm --slurm-conf "$SLURM_CONF" \
        --jobs "$work/squeue.json" --qos normal=0 --qos high=100 \
        --fairshare-tree "$work/sshare.txt" --now "$(date +%s)" --explain --format json \
        >"$work/rank.json" 2>"$work/rank.err" || { cat "$work/rank.err"; return 1; }
    python3 - "$work/rank.json" "$work/sprio-l.txt" <<'EOF'
import json, sys
order = json.load(open(sys.argv[1]))["order"]
cols = ["SITE", "AGE", "ASSOC", "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES"]
ours = {}
for r in order:
    terms = {t["term"]: str(t["value"]) for t in r["terms"]}
    ours[r["id"]] = [str(int(r["value"]))] + [terms[c] for c in cols]
theirs = {}
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.rstrip("\n").split("|")]
    if len(f) == 11:
        theirs[f[0]] = f[1:]
if ours != theirs or len(theirs) < 8:
    print("  sprio  :", theirs)
    print("  jobsort:", ours)
    sys.exit(1)
for k in sorted(theirs, key=int):
    print("  " + k + ": " + " ".join(theirs[k]))
EOF
}
# The new weights apply at the decay thread's next pass (every PriorityCalcPeriod, 60 s).
check "jobsort's multifactor priority and factors equal sprio's" wait_until 150 multifactor_matches
# Job size the other way: PriorityFavorSmall with SMALL_RELATIVE_TO_TIME (CPUs per minute of
# time limit; the partition's MaxTime, here INFINITE, for jobs without one).
write_conf 1 "$weights
PriorityWeightJobSize=100000
PriorityFavorSmall=YES
PriorityFlags=SMALL_RELATIVE_TO_TIME"
timeout 60 scontrol reconfigure
check "the same with PriorityFavorSmall and SMALL_RELATIVE_TO_TIME" wait_until 150 multifactor_matches
# The billing TRES: batch's TRESBillingWeights weigh its total and each job's billing
# (assoc_mgr_tres_weighted; memory per GB), summed, then under MAX_TRES the largest node TRES.
billing="$(printf '%s\n' "$weights" | sed 's|^PriorityWeightTRES=.*|PriorityWeightTRES=CPU=100,Mem=50,GRES/gpu=300,billing=700|')
PriorityWeightJobSize=2000"
write_conf 1 "$billing" "" "TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
timeout 60 scontrol reconfigure
check "the same with TRESBillingWeights on batch" wait_until 150 multifactor_matches
write_conf 1 "$billing
PriorityFlags=MAX_TRES" "" "TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
timeout 60 scontrol reconfigure
check "the same with PriorityFlags=MAX_TRES" wait_until 150 multifactor_matches
# Core specialisation: the cluster's and partitions' CPUs are the node's cpus_efctv (16 - 2).
write_conf 1 "$weights
PriorityWeightJobSize=2000" "CoreSpecCount=2"
timeout 60 scontrol reconfigure
check "the same with CoreSpecCount=2 on the node" wait_until 150 multifactor_matches

# --- 9. forecast of the live queue, beside squeue --start ----------------------------------
# Three nodes of 8 CPUs (three slurmds on this host: Debian builds Slurm with
# --enable-multiple-slurmd), two partitions, backfill every second, and a fixed stream of
# short real jobs (`sleep`, 5-50 s, time limits of 1-3 minutes, 1-12 CPUs) that contend for
# the CPUs, after a few earlier ones that ran to their end. At one instant: `squeue --start`,
# a snapshot (contrib/capture/slurm.sh), and the jobs finished so far (sacct: the history
# `jobsort forecast --history` learns run times from). Once every job has started, each
# one's real start (sacct). For every job pending at the capture, jobsort's forecast (time
# limits; run times from the history), squeue's estimate, and the same plan as jobsort's with
# each job's real run time (tools/src/bin/forecast_known_runtimes.rs: the planner's own error) are
# set against it in a table. Checked: the snapshot loads with every node and pending job, and
# the forecast gives a start for each pending job. How near the forecasts come is reported,
# never checked: it depends on the machine's timing.
fc_t0=$(date +%s)
fc=$work/forecast
mkdir -p "$fc"
(cd "$root" && cargo build --locked -p jobsort-tools --bin forecast_known_runtimes >"$fc/build.log" 2>&1) \
    || cat "$fc/build.log"
known_runtimes="${CARGO_TARGET_DIR:-$root/target}/debug/forecast_known_runtimes"
timeout 60 scancel -u root || true
old_daemons="$(cat "$work/slurmctld.pid") $(cat "$work/slurmd.pid")"
for p in $old_daemons; do kill "$p" 2>/dev/null || true; done
for p in $old_daemons; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
done
live=()
for p in "${pids[@]}"; do case " $old_daemons " in *" $p "*) ;; *) live+=("$p") ;; esac; done
pids=("${live[@]}")
fc_ports=("$(free_port)" "$(free_port)" "$(free_port)")
{
    common_conf
    cat <<EOF
SlurmdSpoolDir=$work/spool/%n
SlurmdPidFile=$work/slurmd-%n.pid
SlurmdLogFile=$work/slurmd-%n.log
# job ids not used before in this cluster's accounting (slurmctld -c starts over)
FirstJobId=1000
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
DefMemPerCPU=100
PriorityType=priority/multifactor
PriorityWeightJobSize=1000
PriorityWeightPartition=500
NodeName=fc1 NodeHostname=$host NodeAddr=127.0.0.1 Port=${fc_ports[0]} CPUs=8 RealMemory=8000 State=UNKNOWN
NodeName=fc2 NodeHostname=$host NodeAddr=127.0.0.1 Port=${fc_ports[1]} CPUs=8 RealMemory=8000 State=UNKNOWN
NodeName=fc3 NodeHostname=$host NodeAddr=127.0.0.1 Port=${fc_ports[2]} CPUs=8 RealMemory=8000 State=UNKNOWN
PartitionName=batch Nodes=fc[1-3] Default=YES MaxTime=10 State=UP PriorityJobFactor=1
PartitionName=short Nodes=fc[2-3] MaxTime=3 State=UP PriorityJobFactor=2
EOF
} >"$SLURM_CONF"
: >"$work/gres.conf"
slurmctld -c -i
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && kill -0 "$(cat "$work/slurmctld.pid")" 2>/dev/null && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
for n in fc1 fc2 fc3; do
    slurmd -N "$n"
    for _ in $(seq 100); do [ -s "$work/slurmd-$n.pid" ] && break; sleep 0.1; done
    pids+=("$(cat "$work/slurmd-$n.pid")")
done
nodes_idle() { [ "$(timeout 10 sinfo -h -N -t idle -o %N | sort -u | wc -l)" = 3 ]; }
wait_until 60 nodes_idle >/dev/null || say "the three nodes are not idle: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
fc_sbatch() { # CPUs:sleep seconds:time limit in minutes:partition; prints the job id
    local cpus secs limit part id
    IFS=: read -r cpus secs limit part <<<"$1"
    id=$(timeout 60 sbatch --parsable --chdir="$work/out" -o /dev/null -n "$cpus" -t "$limit" \
        -p "$part" --wrap "sleep $secs") || return 1
    printf '%s,%s\n' "$id" "$secs" >>"$fc/runtimes.csv" # how long it runs, known here
    printf '%s\n' "$id"
}
# The site's history: earlier jobs, run to their end before the stream.
for j in 1:4:1:batch 2:8:1:batch 1:12:2:batch 2:6:1:short 1:10:2:batch 1:3:1:short \
    2:12:1:batch 1:7:2:batch; do
    fc_sbatch "$j" >>"$fc/history-ids.txt"
done
history_done() { [ -z "$(timeout 10 squeue -h -o %i)" ]; }
wait_until 60 history_done >/dev/null || true
# The stream, submitted in this order.
fc_jobs="4:30:1:batch 8:20:1:batch 2:40:2:batch 1:10:1:short 6:25:1:batch 12:15:1:batch
3:35:2:short 2:5:1:batch 4:30:1:batch 1:20:3:batch 8:15:2:batch 2:15:1:short 1:50:1:batch
6:10:1:batch 3:20:2:batch 12:10:1:batch 2:25:3:short 4:10:1:batch 1:35:1:batch 2:25:2:batch
6:15:1:short 1:5:1:batch 4:25:2:batch 8:10:1:batch 2:30:1:batch 1:15:2:short 3:10:1:batch
2:20:1:batch"
fc_submit=$(date +%s)
for j in $fc_jobs; do
    fc_sbatch "$j" >>"$fc/ids.txt"
done
# The capture: a quarter of a minute into the stream, when the first short jobs have ended.
sleep $(( fc_submit + 15 - $(date +%s) > 0 ? fc_submit + 15 - $(date +%s) : 0 ))
SLURM_TIME_FORMAT=%s timeout 60 squeue --start -h -o '%i %S' >"$fc/squeue-start.txt"
"$root/contrib/capture/slurm.sh" "$fc/snap" 2>&1 | sed 's/^/  /' || true
TZ=UTC timeout 60 sacct -a -X -P -S "$(date -u -d "@$fc_t0" +%Y-%m-%dT%H:%M:%S)" \
    -o jobid,submit,start,end,state,timelimit,nnodes,ncpus,reqtres,alloctres,user,group,account,partition \
    >"$fc/history.txt"
timeout 60 squeue -h -t PD -o %i | sort -n >"$fc/pending.txt"
say "captured: $(wc -l <"$fc/pending.txt") jobs pending of $(wc -l <"$fc/ids.txt"), $(grep -c '|COMPLETED|' "$fc/history.txt") finished"
forecast_args=(forecast --snapshot "$fc/snap" --format json)
grep -q '|COMPLETED|' "$fc/history.txt" && forecast_args+=(--history "$fc/history.txt")
"$jobsort" "${forecast_args[@]}" >"$fc/forecast.json" 2>"$fc/forecast.err" || cat "$fc/forecast.err"
# The same plan with each job's real run time (its sleep): what is left is the planner's error.
"$known_runtimes" "$fc/snap" "$fc/runtimes.csv" >"$fc/known.txt" || true
# Every job started (the longest wait is about a minute and a half).
none_pending() { [ -z "$(timeout 10 squeue -h -t PD -o %i)" ]; }
wait_until 150 none_pending >/dev/null || say "jobs still pending: $(squeue -h -t PD -o %i | tr '\n' ' ')"
all_started_in_sacct() {
    SLURM_TIME_FORMAT=%s timeout 10 sacct -X -P -n -o jobid,start -j "$(paste -sd, "$fc/ids.txt")" >"$fc/starts.txt"
    ! grep -q '|Unknown$' "$fc/starts.txt"
}
wait_until 30 all_started_in_sacct >/dev/null || true
timeout 60 scancel -u root || true
forecast_loads() {
    "$jobsort" snapshot "$fc/snap" --strict --format json >"$fc/snap.json" 2>"$fc/snap.err" \
        || { cat "$fc/snap.err"; return 1; }
    python3 - "$fc/snap.json" "$fc/forecast.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
pending = sorted(s["pending"], key=int)
planned = {j["id"]: j for j in f["jobs"]}
no_start = [i for i in pending if planned.get(i, {}).get("start") is None]
print("  snapshot:", len(s["nodes"]), "nodes", s["nodes_by_state"], "pending", len(pending),
      "missing", [m["part"] for m in s["missing"]])
ok = len(s["nodes"]) == 3 and len(pending) > 0 and not no_start
if no_start:
    print("  no forecast start for:", no_start)
sys.exit(0 if ok else 1)
EOF
}
check "a snapshot of the live queue loads and jobsort forecasts a start for every pending job" forecast_loads
python3 - "$fc" <<'EOF' || true
import json, os, sys
d = sys.argv[1]
f = json.load(open(os.path.join(d, "forecast.json")))
now = f["taken_at"]
pending = json.load(open(os.path.join(d, "snap.json")))["pending"]
actual = {}
for line in open(os.path.join(d, "starts.txt")):
    i, _, t = line.strip().partition("|")
    if t.isdigit():
        actual[i] = int(t)
known = {}
for line in open(os.path.join(d, "known.txt")):
    i, t = line.split()
    known[i] = int(t) if t.isdigit() else None
est = {}
for line in open(os.path.join(d, "squeue-start.txt")):
    i, t = line.split()
    est[i] = int(t) if t.isdigit() else None
jobs = {j["id"]: j for j in f["jobs"]}
ids = [i for i in pending if i in actual]
rows = [("jobsort, time limits", {i: jobs.get(i, {}).get("start") for i in ids})]
if f.get("model"):
    rows.append(("jobsort, history", {i: jobs.get(i, {}).get("model_start") for i in ids}))
rows.append(("squeue --start", {i: est.get(i) for i in ids}))
rows.append(("jobsort, real run times", {i: known.get(i) for i in ids}))
print(f"  {len(ids)} jobs pending at the capture compared ({len(pending) - len(ids)} never started);"
      f" |forecast - real start| in seconds over the jobs with a forecast, shares of all")
print(f"  {'':24} {'compared':>8} {'N/A':>4} {'median':>7} {'p90':>5} {'<=10 s':>7} {'<=60 s':>7}")
for name, got in rows:
    err = sorted(abs(got[i] - actual[i]) for i in ids if got[i] is not None)
    na = sum(1 for i in ids if got[i] is None)
    med = err[(len(err) - 1) // 2] if err else None
    p90 = err[max(0, -(-9 * len(err) // 10) - 1)] if err else None
    share = lambda s: f"{100 * sum(1 for e in err if e <= s) / len(ids):.0f} %" if ids else "-"
    print(f"  {name:24} {len(ids):>8} {na:>4} {med if med is not None else '-':>7} "
          f"{p90 if p90 is not None else '-':>5} {share(10):>7} {share(60):>7}")
print("  (real run times: each job's sleep, known to the test and to no forecast; the rest of"
      " that error is the planner's)")
print("  per job, seconds after the capture: real start, jobsort (limits, history), squeue,"
      " jobsort with real run times")
for i in sorted(ids, key=int):
    j = jobs.get(i, {})
    off = lambda t: "-" if t is None else str(t - now)
    print(f"    {i} (limit {j.get('walltime')} s): real {off(actual[i])}, jobsort {off(j.get('start'))}, "
          f"{off(j.get('model_start'))}, squeue {off(est.get(i))}, {off(known.get(i))}")
EOF
for _ in $(seq 100); do [ -z "$(timeout 10 squeue -h -o %i)" ] && break; sleep 0.2; done
say "the forecast step took $(( $(date +%s) - fc_t0 )) s"

# --- 10. association and QOS limits: jobsort's reasons beside squeue's ----------------------
# On the same three nodes, limits set in slurmdbd hold jobs, and jobsort's `blocked` (the
# snapshot's limits: src/slurm/limits.rs) must name each one as squeue does. slurmctld holds
# jobs by limits only under AccountingStorageEnforce=limits, which it reads at start
# (slurm.conf.5: "A restart of slurmctld is required"), so the controller restarts with it
# (its state kept: no -c, job ids go on), and with its main scheduling loop every 5 s
# (sched_interval, 60 by default: a job sbatch found below others keeps "Priority" until
# that loop, not backfill, tries it). Then:
#   QOS lim_peruser MaxJobsPU=1: a second job of the user waits (QOSMaxJobsPerUserLimit);
#   account lim_capped GrpTRES=cpu=4: 2 CPUs beside a running 4 wait (AssocGrpCpuLimit),
#     and 6 CPUs wait for ever (the same reason);
#   account lim_few MaxJobs=1: a second job in it waits (AssocMaxJobsLimit);
#   QOS lim_wall MaxWall=1 (minute): a job of -t 2 waits for ever
#     (QOSMaxWallDurationPerJobLimit). sbatch takes it only because the QOS lacks
#     DenyOnLimit: _acct_policy_validate (acct_policy.c) checks strictly only under that flag
#     (or when the job has no QOS), and the same limit with DenyOnLimit (lim_walldeny)
#     refuses the job at submission (checked);
# and, under no limit, a job of every CPU while 6 are taken (Resources) and one below it
# (Priority), given low priorities (--priority) so that the limit jobs come first in every
# scheduler pass: slurmctld tests a job's limits only if no higher job of its partition
# failed in the same pass (_schedule, job_scheduler.c). Once squeue shows every reason: a
# snapshot (contrib/capture/slurm.sh, with sacctmgr's tables) and `jobsort forecast`.
# Checked: for every job squeue holds by a limit jobsort models, jobsort's `blocked` names
# that limit; a job jobsort says a limit holds gets a forecast start if the limit can clear,
# none if it is `never`. Reported, not checked: how jobsort classes the Priority and
# Resources jobs, and how long after its limit clears (the end of the job that fills it)
# each job is forecast to start. Then every job is cancelled and the limits are removed.
lim_t0=$(date +%s)
lim=$work/limits
mkdir -p "$lim"
old_ctld=$(cat "$work/slurmctld.pid")
kill "$old_ctld" 2>/dev/null || true
for _ in $(seq 100); do kill -0 "$old_ctld" 2>/dev/null || break; sleep 0.1; done
live=()
for p in "${pids[@]}"; do [ "$p" = "$old_ctld" ] || live+=("$p"); done
pids=("${live[@]}")
sed -i -e 's/^ClusterName=.*/&\nAccountingStorageEnforce=limits/' \
    -e 's/^SchedulerParameters=.*/&,sched_interval=5/' "$SLURM_CONF"
rm -f "$work/slurmctld.pid"
# The slurmds keep the slurm.conf they started with (slurmctld logs that theirs differs: the
# two settings are the controller's alone).
slurmctld -i
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && kill -0 "$(cat "$work/slurmctld.pid")" 2>/dev/null && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
wait_until 60 timeout 10 scontrol ping >/dev/null
wait_until 60 nodes_idle >/dev/null || say "the three nodes are not idle: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
lim_acct() { # sacctmgr -i ARGS...; says what failed
    local out
    out=$(timeout 60 sacctmgr -i "$@" 2>&1) || { say "sacctmgr $* failed: $(printf '%s' "$out" | tr '\n' ' ')"; return 1; }
}
lim_acct add qos lim_peruser MaxJobsPU=1 || true
lim_acct add qos lim_wall MaxWall=1 || true
lim_acct add qos lim_walldeny MaxWall=1 Flags=DenyOnLimit || true
lim_acct add account lim_capped GrpTRES=cpu=4 || true
lim_acct add account lim_few MaxJobs=1 || true
lim_acct add user root account=lim_capped,lim_few || true
lim_acct modify user root set qos+=lim_peruser,lim_wall,lim_walldeny || true
# slurmdbd sends the changes to slurmctld: wait until its association manager has them.
lim_known() {
    timeout 10 scontrol show assoc_mgr flags=qos qos=lim_walldeny | grep -q 'QOS=lim_walldeny' &&
        timeout 10 scontrol show assoc_mgr flags=assoc accounts=lim_few users=root | grep -q 'UserName=root'
}
wait_until 60 lim_known >/dev/null || say "slurmctld does not know the new QOS or associations yet"
lim_sbatch() { # name, squeue's reason to come (- if it runs), never (1/0), the job whose end
    local name=$1 want=$2 never=$3 holder=$4 id #  clears its limit (-), sbatch options...
    shift 4
    id=$(timeout 60 sbatch --parsable --chdir="$work/out" -o /dev/null "$@" --wrap "sleep 600") \
        || { say "sbatch of $name ($*) failed"; return 0; }
    printf '%s %s %s %s %s\n' "$id" "$name" "$want" "$never" "$holder" >>"$lim/jobs.txt"
}
# The jobs the limits count: running, 5 minutes at most each (the step takes about one).
lim_sbatch run-peruser - 0 - -n1 -t 5 --qos=lim_peruser
lim_sbatch run-capped - 0 - -n4 -t 5 -A lim_capped
lim_sbatch run-few - 0 - -n1 -t 5 -A lim_few
holders_run() { [ "$(timeout 10 squeue -h -t R -o %i | wc -l)" = 3 ]; }
wait_until 60 holders_run >/dev/null || say "the three jobs the limits count are not all running: $(squeue -h -o '%i %T %r' | tr '\n' ' ')"
lim_sbatch peruser QOSMaxJobsPerUserLimit 0 run-peruser -n1 -t 5 --qos=lim_peruser
lim_sbatch capped AssocGrpCpuLimit 0 run-capped -n2 -t 5 -A lim_capped
lim_sbatch capped-over AssocGrpCpuLimit 1 - -n6 -t 5 -A lim_capped
lim_sbatch few AssocMaxJobsLimit 0 run-few -n1 -t 5 -A lim_few
lim_sbatch wall QOSMaxWallDurationPerJobLimit 1 - -n1 -t 2 --qos=lim_wall
lim_sbatch all-cpus Resources 0 - -n24 -t 5 --priority=20
lim_sbatch below Priority 0 - -n1 -t 10 --priority=10
deny_refuses() {
    if timeout 60 sbatch --parsable --chdir="$work/out" -o /dev/null -n1 -t 2 --qos=lim_walldeny \
        --wrap "sleep 600" >"$lim/deny.out" 2>"$lim/deny.err"; then
        say "sbatch took a job over lim_walldeny's MaxWall: job $(cat "$lim/deny.out")"
        return 1
    fi
    sed 's/^/  /' "$lim/deny.err"
}
check "a QOS with DenyOnLimit refuses a job over its MaxWall at submission" deny_refuses
# The scheduler gives a job its reason when it next tries it: wait for every one.
reasons_settled() { # [limits]: only the jobs a limit holds
    timeout 10 squeue -h -t PD -o '%i %r' >"$lim/squeue-reasons.txt"
    awk -v only="${1:-}" 'NR == FNR { got[$1] = $2; next }
        $3 == "-" || (only != "" && ($3 == "Resources" || $3 == "Priority")) { next }
        got[$1] != $3 { print "  job " $1 " (" $2 "): squeue says " ($1 in got ? got[$1] : "nothing") ", not " $3; bad = 1 }
        END { exit bad }' "$lim/squeue-reasons.txt" "$lim/jobs.txt"
}
lim_wait0=$(date +%s)
wait_until 90 reasons_settled >/dev/null || true
say "squeue's reasons after $(( $(date +%s) - lim_wait0 )) s: $(tr '\n' ' ' <"$lim/squeue-reasons.txt")"
"$root/contrib/capture/slurm.sh" "$lim/snap" 2>&1 | grep -v -e '--json' -e 'scontrol --help' | sed 's/^/  /' || true
"$jobsort" forecast --snapshot "$lim/snap" --format json >"$lim/forecast.json" 2>"$lim/forecast.err" \
    || cat "$lim/forecast.err"
check "squeue holds each job by the limit set for it" reasons_settled limits
limit_reasons_match() {
    python3 - "$lim/jobs.txt" "$lim/forecast.json" <<'EOF'
import json, sys
# The reasons jobsort models (the table in src/slurm/limits.rs's module docs), as squeue
# names them.
modelled = {
    "QOSGrpJobsLimit", "MaxJobsPerAccount", "QOSMaxJobsPerUserLimit",
    "QOSMaxWallDurationPerJobLimit", "AssocGrpJobsLimit", "AssocMaxJobsLimit",
    "AssocMaxWallDurationPerJobLimit",
    "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpBilling", "QOSGrpGRES",
    "QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit",
    "QOSMaxBillingPerJob", "QOSMaxGRESPerJob",
    "QOSMaxCpuPerNode", "QOSMaxMemoryPerNode", "QOSMaxBillingPerNode", "QOSMaxGRESPerNode",
    "MaxCpuPerAccount", "MaxMemoryPerAccount", "MaxNodePerAccount", "MaxBillingPerAccount",
    "MaxGRESPerAccount",
    "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxNodePerUserLimit",
    "QOSMaxBillingPerUser", "QOSMaxGRESPerUser",
    "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpBilling", "AssocGrpGRES",
    "AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob", "AssocMaxNodePerJobLimit",
    "AssocMaxBillingPerJob", "AssocMaxGRESPerJob",
    "AssocMaxCpuPerNode", "AssocMaxMemPerNode", "AssocMaxBillingPerNode", "AssocMaxGRESPerNode",
}
mine, ids = {}, {}
for line in open(sys.argv[1]):
    i, name, want, never, holder = line.split()
    mine[i] = (name, want, never == "1", holder)
    ids[name] = i
f = json.load(open(sys.argv[2]))
now = f["taken_at"]
ends = {r["id"]: r["planned_end"] for r in f.get("running", [])}
rel = lambda t: "-" if t is None else f"+{t - now}"
rows, words, bad, limit_jobs = [], [], [], 0
for j in sorted(f["jobs"], key=lambda j: int(j["id"])):
    i, says, b, start = j["id"], j.get("scheduler_says") or "-", j["blocked"], j.get("start")
    name, want, never_set, holder = mine.get(i, ("?", "-", False, "-"))
    limit = b["kind"] == "limit"
    never = b.get("never") if limit else None
    clears = ends.get(ids.get(holder)) if holder != "-" else None
    notes = []
    if says in modelled:
        limit_jobs += 1
        if not limit or b["reason"] != says:
            notes.append("MISMATCH")
    if limit:
        if never and start is not None:
            notes.append("never, yet a start")
        if not never and start is None:
            notes.append("can clear, yet no start")
        if want in modelled and never != never_set:
            notes.append(f"never should be {'yes' if never_set else 'no'}")
    if notes:
        bad.append(i)
    if says not in modelled:
        notes.append("not a limit: reported")
    if clears is not None and start is not None and start > clears:
        notes.append(f"starts {start - clears} s after its limit clears")
    rows.append((i, name, says, b["kind"] + (": " + b["reason"] if limit else ""),
                 f"{b['used']}/{b['asks']}/{b['limit']}" if limit else "-",
                 "-" if never is None else ("yes" if never else "no"),
                 rel(clears), rel(start), "; ".join(notes)))
    words.append(f"  {i}: {j['plain']}")
head = ("job", "", "squeue reason", "jobsort blocked", "used/asks/limit", "never",
        "clears", "start", "")
w = [max(len(str(r[k])) for r in rows + [head]) for k in range(len(head))]
for r in [head] + rows:
    print("  " + "  ".join(str(c).ljust(w[k]) for k, c in enumerate(r)).rstrip())
print("  (seconds after the capture; clears: the planned end of the job that fills the limit)")
print("\n".join(words))
pending = {j["id"] for j in f["jobs"]}
missing = [i for i, m in mine.items() if m[1] in modelled and i not in pending]
if missing:
    print("  not waiting in the snapshot:", missing)
expected = sum(1 for m in mine.values() if m[1] in modelled)
if limit_jobs < expected:
    print(f"  {limit_jobs} jobs held by a limit jobsort models, of the {expected} set up")
sys.exit(1 if bad or missing or limit_jobs < expected else 0)
EOF
}
check "jobsort names every limit squeue holds a job by, with a start only where it can clear" limit_reasons_match
# The same snapshot ranked (`rank --snapshot`): every job it says a limit holds has squeue's
# reason, as the scheduler writes it.
"$jobsort" rank --snapshot "$lim/snap" --format json >"$lim/rank.json" 2>"$lim/rank.err" \
    || cat "$lim/rank.err"
rank_reasons_match() {
    python3 - "$lim/forecast.json" "$lim/rank.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
says = {j["id"]: j.get("scheduler_says") for j in f["jobs"]}
held = [j for j in r["order"] if j.get("limit")]
bad = [f'{j["id"]}: rank says {j.get("reason")}, squeue {says.get(j["id"])}'
       for j in held if j.get("reason") != says.get(j["id"])]
print(f"  rank --snapshot: {len(r['order'])} waiting jobs, {len(held)} held by a limit: "
      + ("each with squeue's reason" if not bad else "; ".join(bad)))
sys.exit(1 if bad or not held else 0)
EOF
}
check "rank --snapshot gives each job a limit holds squeue's reason" rank_reasons_match
timeout 60 scancel -u root || true
wait_until 60 history_done >/dev/null || true
# slurmdbd refuses to remove an association while a job of it is running or pending in its
# records (job ends reach it from slurmctld a moment after squeue empties).
lim_jobs_ended() { [ -z "$(timeout 10 sacct -a -X -n -s R,PD -o jobid 2>/dev/null)" ]; }
wait_until 60 lim_jobs_ended >/dev/null || true
lim_acct modify user root set qos-=lim_peruser,lim_wall,lim_walldeny || true
lim_acct delete user name=root account=lim_capped,lim_few || true
lim_acct delete account lim_capped,lim_few || true
lim_acct delete qos lim_peruser,lim_wall,lim_walldeny || true
say "the limits step took $(( $(date +%s) - lim_t0 )) s"

grep "site_factor/jobsort" "$work/slurmctld.log" | sed 's/^/  log: /' | tail -8
say "$passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
