#!/usr/bin/env bash
# clprim quick start: installs what is missing (Debian packages), builds, then
#   demo  - runs the sort comparison demo (examples/sort_compare) on the default device
#   test  - runs every Boost.Test suite through CTest, then checks that an outside CMake project
#           can use clprim both through add_subdirectory() and through find_package() after install
# Usage: scripts/quickstart.sh demo|test   (as root on a fresh Debian machine, or with sudo)
set -euo pipefail
mode=${1:-demo}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLPRIM_BUILD_DIR:-$here/build}
jobs=${CLPRIM_JOBS:-$(nproc 2>/dev/null || echo 2)}

packages="cmake g++ make libboost-dev libboost-test-dev libboost-program-options-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends $missing
fi

echo "== configuring and building in $build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCLPRIM_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$build" -j "$jobs"

case "$mode" in
demo)
  exec "$build/examples/sort_compare" "${@:2}"
  ;;
test)
  # Compiling kernels dominates a cold test run on PoCL (Debian's PoCL 3.1 has no "cbs" work-group
  # method: asking for it only printed "Unknown work group generation method" once per kernel).
  (cd "$build" && ctest --output-on-failure --timeout 1500 -j "$jobs")
  echo "== outside project: add_subdirectory(clprim)"
  consumer_build=$build/consumer-subdir
  cmake -S "$here/test/consumer" -B "$consumer_build" -DCMAKE_BUILD_TYPE=Release -DCLPRIM_CONSUMER_MODE=subdirectory \
        -DCLPRIM_SOURCE_DIR="$here" >/dev/null
  cmake --build "$consumer_build" -j "$jobs" >/dev/null
  "$consumer_build/clprim_consumer"
  echo "== outside project: find_package(clprim) after cmake --install"
  prefix=$build/install
  cmake --install "$build" --prefix "$prefix" >/dev/null
  consumer_build=$build/consumer-package
  cmake -S "$here/test/consumer" -B "$consumer_build" -DCMAKE_BUILD_TYPE=Release -DCLPRIM_CONSUMER_MODE=package \
        -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$consumer_build" -j "$jobs" >/dev/null
  "$consumer_build/clprim_consumer"
  ;;
*)
  echo "usage: $0 demo|test" >&2
  exit 2
  ;;
esac
