#!/usr/bin/env bash
# Runs every step of test/tools/oclgrind_tour under Oclgrind, each in a process of its own (an
# Oclgrind fatal error, or its abort at exit, then costs one step, and no step inherits the
# checker's state of another), with no cap on the number of reports (Oclgrind stops printing
# after 1000 per process by default). Writes DIR/<step>.log (Oclgrind's reports) and
# DIR/<step>.out (the tour's verdict) and prints scripts/oclgrind_report.sh's summary of all.
#   scripts/oclgrind_sweep.sh build/test/oclgrind_tour DIR [step prefixes...]
# TOUR_N sets n (default 1500); OCLGRIND_FLAGS the checks (default --data-races --uninitialized --check-api).
set -uo pipefail
tour=$1 dir=$2
shift 2
mkdir -p "$dir"
here=$(cd "$(dirname "$0")" && pwd)
flags=${OCLGRIND_FLAGS:---data-races --uninitialized --check-api}
"$tour" --list "$@" | while IFS= read -r step; do
    file="$dir/$(printf '%s' "$step" | tr -c 'A-Za-z0-9_\n' '_')"
    start=$(date +%s)
    # shellcheck disable=SC2086
    OCLGRIND_MAX_ERRORS=100000000 oclgrind $flags "$tour" "$step" > "$file.out" 2> "$file.log" < /dev/null
    rc=$?
    # Oclgrind (21.10 and 26.03) cannot create a kernel that calls llvm.usub.sat, which LLVM's
    # optimiser makes of `a > b ? a - b : 0`: such a step runs again with the programs built
    # unoptimised (the first log is kept as .optimised.log).
    if grep -q "Undefined external function" "$file.log"; then
        mv "$file.log" "$file.optimised.log"
        # shellcheck disable=SC2086
        CLPRIM_BUILD_OPTIONS=-cl-opt-disable OCLGRIND_MAX_ERRORS=100000000 oclgrind $flags "$tour" "$step" > "$file.out" 2> "$file.log" < /dev/null
        rc="$?/-cl-opt-disable"
    fi
    verdict=$(grep -E "all results right|SOME RESULTS WRONG" "$file.out" || echo "no verdict")
    printf '%-34s rc=%-3s %4ss  %s\n' "$step" "$rc" "$(( $(date +%s) - start ))" "$verdict" | tee -a "$dir/status"
done
for f in "$dir"/*.log; do
    case $f in *.optimised.log) ;; *) cat "$f" ;; esac
done > "$dir/all.txt"
"$here/oclgrind_report.sh" "$dir/all.txt"
