#!/usr/bin/env bash
# Summarises an Oclgrind log of test/tools/oclgrind_tour: per step ("== step" lines), each kind of
# report with the kernel and source line it names, and how often.
#   oclgrind --data-races --uninitialized --check-api build/test/oclgrind_tour 2> log; scripts/oclgrind_report.sh log
set -euo pipefail
awk '
/^== / { step = substr($0, 4); next }
/^(Uninitialized|Read-write|Write-write|Invalid|Work-group divergence|Oclgrind - Illegal|Oclgrind: )/ { kind = $0; sub(/ address 0x.*| at .*/, "", kind); pending = 1; kernel = ""; line = ""; next }
pending && /Kernel:/ { kernel = $2 }
pending && /At line/ { line = $3 " " $NF; key = step " | " kind " | " kernel " | " line; count[key]++; pending = 0 }
END { for (k in count) printf "%6d  %s\n", count[k], k }
' "$1" | sort -t'|' -k1,1 -s
