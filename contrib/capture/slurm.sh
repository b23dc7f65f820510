#!/bin/sh
# Capture a Slurm site's state at this instant into a snapshot folder that
# `jobsort snapshot` (and every jobsort reader of snapshots) reads. Read-only: squeue and
# scontrol show only query slurmctld, sacctmgr show only slurmdbd; no root is needed
# (PrivateData in slurm.conf may hide other users' jobs or reservations from a plain user:
# capture as an operator then).
#
#   contrib/capture/slurm.sh DIR
#
# Files (contrib/capture/README.md says what each gives):
#   taken_at.txt       date +%s (Slurm 22.05's JSON names no capture time)
#   nodes.json         scontrol show nodes --json (Slurm 23.02 and later)
#   sinfo.json         sinfo --json, in place of nodes.json where scontrol has no --json
#                      (Slurm 22.05: the same node list, openapi/v0.0.38)
#   squeue.json        squeue --all --json
#   reservations.json  scontrol show reservation --json (none on 22.05)
#   slurm.conf         a copy of the controller's slurm.conf (SLURM_CONF of scontrol show config)
#   sacctmgr_assoc.txt sacctmgr -P show assoc: the default columns and ParentName (the
#                      associations' tree and limits; slurmdbd must answer)
#   sacctmgr_qos.txt   sacctmgr -P show qos (each QOS's flags and limits)
# A command that fails leaves no file (never a partial one); jobsort then says what the
# snapshot lacks.
set -u
out=${1:?usage: slurm.sh DIR}
mkdir -p "$out" || exit 1

status=0
capture() { # capture FILE COMMAND...
  file=$1
  shift
  if "$@" >"$out/$file.part" 2>"$out/$file.err"; then
    mv "$out/$file.part" "$out/$file"
    rm -f "$out/$file.err"
  else
    echo "slurm.sh: note: '$*' failed; $file left out: $(cat "$out/$file.err")" >&2
    rm -f "$out/$file.part" "$out/$file.err"
    status=1
  fi
}

capture taken_at.txt date +%s
# Nodes first, then jobs: a job that starts between the two is then on nodes already listed.
# Slurm 22.05's scontrol has no --json; its sinfo --json is the node list (later sinfo
# --json lists node groups per partition, and there scontrol has --json).
if scontrol show nodes --json >"$out/nodes.json.part" 2>"$out/nodes.json.err"; then
  mv "$out/nodes.json.part" "$out/nodes.json"
  rm -f "$out/nodes.json.err"
else
  echo "slurm.sh: note: 'scontrol show nodes --json' failed ($(head -n 1 "$out/nodes.json.err")); taking sinfo --json" >&2
  rm -f "$out/nodes.json.part" "$out/nodes.json.err"
  capture sinfo.json sinfo --json
fi
capture squeue.json squeue --all --json
capture reservations.json scontrol show reservation --json

# The association and QOS limits, from slurmdbd: sacctmgr show assoc's default columns
# (src/sacctmgr/association_functions.c) with ParentName, which places each account in
# the tree (without it an account's Grp limits cannot be told to reach its sub-accounts).
capture sacctmgr_assoc.txt sacctmgr -P show assoc \
  format=Cluster,Account,User,Partition,ParentName,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,GrpTRESMins,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins
capture sacctmgr_qos.txt sacctmgr -P show qos

conf=$(scontrol show config 2>/dev/null | sed -n 's/^SLURM_CONF *= *//p' | head -n 1)
conf=${conf:-${SLURM_CONF:-/etc/slurm/slurm.conf}}
if [ -r "$conf" ]; then
  cp "$conf" "$out/slurm.conf" || status=1
  if grep -qi '^[[:space:]]*include' "$out/slurm.conf"; then
    echo "slurm.sh: note: slurm.conf has Include lines; copy the files they name next to it" >&2
  fi
else
  echo "slurm.sh: note: $conf is not readable here; slurm.conf left out" >&2
fi
exit $status
