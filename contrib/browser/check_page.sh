#!/usr/bin/env bash
# The forecast page in a real browser: writes `jobsort forecast --format html` for a test
# snapshot (one user renamed `<script>...`, to see that names are escaped), opens it in
# headless Chromium (Debian's `chromium`, installed with apt-get when missing), and checks
# what the browser made of it (check_page.py):
#   - the DOM Chromium dumps (--dump-dom, after the page's script ran) has the queue table
#     with one row per waiting job, each with the id, rank and priority value
#     `forecast --format json` gives; the sort script ran (its marker) and sorted the table
#     by the column the link asked for; the hostile user name is text, not an element; the
#     console shows no message (an error in the script would be one);
#   - the screenshot (--screenshot) is not blank: many colours, a good share of it not white.
# Run as root when Chromium is missing (CI is). It skips, loudly, only when the package
# archive cannot be reached. KEEP=1 keeps the page, the DOM and the screenshot.
#
#   contrib/browser/check_page.sh      (from anywhere; JOBSORT_BIN=... else target/debug/jobsort)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${JOBSORT_BIN:-$root/target/debug/jobsort}
snap=${SNAPSHOT:-$root/tests/data/snapshot/pbs_site}
work=$(mktemp -d /tmp/jobsort-page.XXXXXX)
say() { printf 'browser: %s\n' "$*"; }
cleanup() { if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
started=$(date +%s)

find_browser() {
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then command -v "$b"; return 0; fi
    done
    return 1
}
if ! browser=$(find_browser); then
    if [ "$(id -u)" != 0 ]; then
        say "Chromium is missing and installing it needs root (apt-get install chromium)"
        exit 1
    fi
    say "installing chromium (apt-get)"
    if ! apt-get update -qq >"$work/apt.log" 2>&1 || grep -qE '^(W|E): (Failed to fetch|Some index files failed)' "$work/apt.log"; then
        cat "$work/apt.log" >&2
        say "SKIPPED: the package archive cannot be reached (apt-get update failed); the browser test did NOT run"
        exit 0
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        chromium fonts-dejavu-core >"$work/apt.log" 2>&1; then
        cat "$work/apt.log" >&2
        if grep -qE 'Failed to fetch|Temporary failure resolving|Could not resolve|Unable to connect' "$work/apt.log"; then
            say "SKIPPED: the package archive cannot be reached (apt-get install failed to fetch); the browser test did NOT run"
            exit 0
        fi
        say "FAILED: apt-get install chromium"
        exit 1
    fi
    browser=$(find_browser)
fi
say "$("$browser" --version 2>/dev/null || echo "$browser")"

# The snapshot, with one user named as an attacker would name it.
cp -r "$snap" "$work/snap"
sed -i 's/"euser": "hal"/"euser": "<script>alert(1)<\/script>"/' "$work/snap/qstat.json"
grep -q '<script>alert' "$work/snap/qstat.json" || { say "FAILED: could not plant the hostile user name"; exit 1; }
"$bin" forecast --snapshot "$work/snap" --format json >"$work/forecast.json" 2>"$work/jobsort.err"
"$bin" forecast --snapshot "$work/snap" --format html --output "$work/page.html" 2>>"$work/jobsort.err"

# Root cannot run Chromium's sandbox; the profile stays in the work folder.
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --hide-scrollbars --user-data-dir="$work/profile" --window-size=1280,1600)
url="file://$work/page.html#sort-queue-table-1-desc"
t0=$(date +%s)
timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "$url" \
    >"$work/dom.html" 2>"$work/chromium.err" || {
    cat "$work/chromium.err" >&2; say "FAILED: chromium --dump-dom"; exit 1; }
timeout 120 "$browser" "${flags[@]}" --screenshot="$work/shot.png" "file://$work/page.html" \
    >/dev/null 2>>"$work/chromium.err" || {
    cat "$work/chromium.err" >&2; say "FAILED: chromium --screenshot"; exit 1; }
t1=$(date +%s)
say "chromium took $((t1 - t0)) s for the DOM and the screenshot"
status=0
python3 "$here/check_page.py" "$work/forecast.json" "$work/dom.html" "$work/shot.png" \
    "$work/chromium.err" || status=1
say "done in $(($(date +%s) - started)) s"
exit $status
