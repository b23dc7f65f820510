#!/bin/sh
# Capture a PBS site's state at this instant into a snapshot folder that `jobsort snapshot`
# (and every jobsort reader of snapshots) reads. Read-only: every command here only queries
# the server; none needs root (qstat shows other users' jobs unless the server sets
# query_other_jobs=false; PBS_HOME/sched_priv is often readable by root only, and is then
# left out with a note).
#
#   contrib/capture/pbs.sh DIR
#
# Files (contrib/capture/README.md says what each gives):
#   pbsnodes.json  pbsnodes -av -F json
#   qstat.json     qstat -f -t -F json
#   pbs_rstat.txt  pbs_rstat -f
#   qmgr.txt       qmgr -c 'print server'
#   sched_config   a copy of PBS_HOME/sched_priv/sched_config
#   resource_group a copy of PBS_HOME/sched_priv/resource_group (the fairshare tree)
#   usage          a copy of PBS_HOME/sched_priv/usage (the fairshare usage)
# A command that fails leaves no file (never a partial one); jobsort then says what the
# snapshot lacks.
set -u
out=${1:?usage: pbs.sh DIR}
mkdir -p "$out" || exit 1
# qstat and pbs_rstat print times in local time without the zone; jobsort reads them as UTC.
TZ=UTC
export TZ

status=0
capture() { # capture FILE COMMAND...
  file=$1
  shift
  if "$@" >"$out/$file.part" 2>"$out/$file.err"; then
    mv "$out/$file.part" "$out/$file"
    rm -f "$out/$file.err"
  else
    echo "pbs.sh: note: '$*' failed; $file left out: $(cat "$out/$file.err")" >&2
    rm -f "$out/$file.part" "$out/$file.err"
    status=1
  fi
}

capture pbsnodes.json pbsnodes -av -F json
capture qstat.json qstat -f -t -F json
capture pbs_rstat.txt pbs_rstat -f
capture qmgr.txt qmgr -c 'print server'

home=${PBS_HOME:-}
if [ -z "$home" ] && [ -r "${PBS_CONF_FILE:-/etc/pbs.conf}" ]; then
  home=$(sed -n 's/^PBS_HOME=//p' "${PBS_CONF_FILE:-/etc/pbs.conf}" | tail -n 1)
fi
for f in sched_config resource_group usage; do
  if [ -n "$home" ] && [ -r "$home/sched_priv/$f" ]; then
    if ! { cp "$home/sched_priv/$f" "$out/$f.part" && mv "$out/$f.part" "$out/$f"; }; then
      rm -f "$out/$f.part"
      status=1
    fi
  else
    echo "pbs.sh: note: PBS_HOME/sched_priv/$f is not readable here; left out" >&2
  fi
done
exit $status
