#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with build-gpu carried:
#   scripts/gpu_suite.sh [tests|stress|bench|examples|all]...
# Registers NVIDIA's OpenCL driver with the ICD loader, then runs every test binary directly
# (CTest files hold the build machine's paths), the benchmark and the examples; logs go to $OUT.
set -uo pipefail
out=${OUT:-/tmp/clprim-out}
mkdir -p "$out" /tmp/icd
echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd CLPRIM_DEVICE=${CLPRIM_DEVICE:-gpu}
export CLPRIM_CACHE_DIR=${CLPRIM_CACHE_DIR:-/tmp/clprim-cache}
b=${CLPRIM_GPU_BUILD:-build-gpu}
status=0
what=${*:-all}
if [[ " $what " == *" tests "* || " $what " == *" all "* ]]; then
  for t in "$b"/test/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    start=$(date +%s%N)
    if "$t" --report_level=short > "$out/$name.log" 2>&1; then r=passed; else r=FAILED; status=1; fi
    printf '%-28s %s (%d ms)\n' "$name" "$r" "$(( ($(date +%s%N) - start) / 1000000 ))"
    [ "$r" = FAILED ] && tail -25 "$out/$name.log"
  done
fi
if [[ " $what " == *" stress "* || " $what " == *" all "* ]] && [ -x "$b/test/stress_sort" ]; then
  # Races that show rarely or only under load: four sorts of each kind at once, each repeated
  # and checked (test/tools/stress_sort.cpp).
  pids=()
  for args in "--type char --pairs" "--type ushort --pairs" "--type uint --pairs" "--type ulong"; do
    for i in 1 2; do
      "$b/test/stress_sort" $args --iterations "${CLPRIM_STRESS_ITERATIONS:-200}" --seed $i \
        > "$out/stress_${args// /_}_$i.log" 2>&1 & pids+=($!)
    done
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  tail -qn 1 "$out"/stress_*.log
fi
if [[ " $what " == *" bench "* || " $what " == *" all "* ]]; then
  "$b"/bench/clprim_bench --sizes "${CLPRIM_BENCH_SIZES:-2^10:2^26}" --repeat "${CLPRIM_BENCH_REPEAT:-10}" \
     --csv "$out/clprim_bench.csv" --json "$out/clprim_bench.json" ${CLPRIM_BENCH_ARGS:-} > "$out/bench.log" 2>&1 || status=1
  cat "$out/bench.log"
fi
if [[ " $what " == *" examples "* || " $what " == *" all "* ]]; then
  for e in reduce_progression scan_steps histogram_demo sort_compare; do
    [ -x "$b/examples/$e" ] || continue
    case $e in
      reduce_progression) args="--n 2^26 --type uint --op sum";;
      sort_compare) args="--algorithm all --n 2^24";;
      histogram_demo) args="--n 2^24";;
      *) args="";;
    esac
    echo "== $e $args"
    "$b/examples/$e" $args 2>&1 | tee "$out/$e.log" || status=1
  done
fi
exit $status
