#!/bin/sh
# Capture a Flux instance's state at this instant into a snapshot folder that
# `jobsort snapshot` (and every jobsort reader of snapshots) reads. Read-only: `flux resource R`,
# `flux jobs` and `flux jobtap query` only query the instance; no instance-owner rights are
# needed (a guest sees other users' jobs with -A where the instance allows it) except, where
# the instance asks for them, by `flux jobtap query` (its file is then left out).
#
#   contrib/capture/flux.sh DIR
#
# Files (contrib/capture/README.md says what each gives):
#   taken_at.txt             date +%s (no Flux output names its time)
#   resource.json            flux resource R
#   resource_allocated.json  flux resource R -s allocated
#   resource_down.json       flux resource R -s down
#   jobs.json                flux jobs -A --json
#   mf_priority.json         flux jobtap query mf_priority.so (flux-accounting's limits;
#                            optional: see below)
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

# flux-accounting's association and queue limits, from its mf_priority jobtap plugin. Asking
# a jobtap plugin may need the instance owner, and an instance without flux-accounting has
# no such plugin: a failure is noted, the file left out, and the capture still succeeds
# (jobsort then gives no start to the jobs those limits hold).
if flux jobtap query mf_priority.so >"$out/mf_priority.json.part" 2>"$out/mf_priority.json.err"; then
  mv "$out/mf_priority.json.part" "$out/mf_priority.json"
  rm -f "$out/mf_priority.json.err"
else
  echo "flux.sh: note: 'flux jobtap query mf_priority.so' failed (flux-accounting's limits need its plugin loaded, and may need the instance owner); mf_priority.json left out: $(cat "$out/mf_priority.json.err")" >&2
  rm -f "$out/mf_priority.json.part" "$out/mf_priority.json.err"
fi
exit $status
