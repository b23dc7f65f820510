#!/bin/sh
# Capture a Flux instance's state at this instant into a snapshot folder that
# `jobsort snapshot` (and every jobsort reader of snapshots) reads. Read-only: `flux resource R`
# and `flux jobs` only query the instance; no instance-owner rights are needed (a guest sees
# other users' jobs with -A where the instance allows it).
#
#   contrib/capture/flux.sh DIR
#
# Files (contrib/capture/README.md says what each gives):
#   taken_at.txt             date +%s (no Flux output names its time)
#   resource.json            flux resource R
#   resource_allocated.json  flux resource R -s allocated
#   resource_down.json       flux resource R -s down
#   jobs.json                flux jobs -A --json
# A command that fails leaves no file (never a partial one); jobsort then says what the
# snapshot lacks.
set -u
out=${1:?usage: flux.sh DIR}
mkdir -p "$out" || exit 1

status=0
capture() { # capture FILE COMMAND...
  file=$1
  shift
  if "$@" >"$out/$file.part" 2>"$out/$file.err"; then
    mv "$out/$file.part" "$out/$file"
    rm -f "$out/$file.err"
  else
    echo "flux.sh: note: '$*' failed; $file left out: $(cat "$out/$file.err")" >&2
    rm -f "$out/$file.part" "$out/$file.err"
    status=1
  fi
}

capture taken_at.txt date +%s
capture resource.json flux resource R
capture resource_allocated.json flux resource R -s allocated
capture resource_down.json flux resource R -s down
capture jobs.json flux jobs -A --json
exit $status
