#!/usr/bin/env bash
# clprim quick start: installs what is missing (Debian packages), builds what the mode needs, then
#   demo  - builds the library and examples/sort_compare only, and runs it on the default device
#           (extra arguments go to sort_compare, e.g. `demo --n 2^20`)
#   test  - builds everything, checks the API reference (Doxygen: any warning, e.g. an undocumented
#           public name, fails), runs every Boost.Test suite through CTest (test_mpi_sort under
#           mpirun with 1 to 4 ranks: Open MPI is among the packages), then checks that an
#           outside CMake project can use clprim through add_subdirectory(), through find_package()
#           after cmake --install, and through find_package() on the Debian package (cpack -G DEB,
#           unpacked with dpkg -x into a scratch root)
#   docs  - builds the API reference into build/docs/html (open build/docs/html/index.html)
# Usage: scripts/quickstart.sh demo|test|docs   (as root on a fresh Debian machine, or with sudo)
set -euo pipefail
mode=${1:-demo}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CLPRIM_BUILD_DIR:-$here/build}
jobs=${CLPRIM_JOBS:-$(nproc 2>/dev/null || echo 2)}

# What each mode needs: the demo only the library's dependencies and Boost.Program_options
# (sort_compare's command line); the tests Boost.Test too, and Doxygen for the reference check.
base_packages="cmake g++ make libboost-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"
case "$mode" in
demo) packages="$base_packages libboost-program-options-dev" ;;
test) packages="$base_packages libboost-program-options-dev libboost-test-dev doxygen libopenmpi-dev openmpi-bin" ;;
docs) packages="$base_packages doxygen" ;;
*)
  echo "usage: $0 demo|test|docs" >&2
  exit 2
  ;;
esac
# First what the mode does and roughly how long it takes (2-core machine, packages missing).
case "$mode" in
demo)
  echo "== demo: installs the missing Debian packages (about a minute on a bare machine), builds the"
  echo "   library and examples/sort_compare only (under 2 minutes on 2 cores, seconds once built),"
  echo "   then sorts on the default device (CLPRIM_DEVICE=gpu|cpu|...; about 25 s on a 2-core CPU)"
  ;;
test)
  echo "== test: builds everything (about 4 minutes on 2 cores), checks the API reference, runs every"
  echo "   suite on the default device (about 15 minutes on a 2-core PoCL machine with cold kernel"
  echo "   caches: mostly PoCL compiling kernels), then the outside-project checks and the Debian"
  echo "   package (about a minute)"
  ;;
docs)
  echo "== docs: builds the API reference (Doxygen) into $build/docs/html (seconds after configuring)"
  ;;
esac
missing=""
for p in $packages; do
  # "install ok installed" only: a removed package keeps a status entry (and dpkg -s succeeds on it)
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends $missing
fi

configure() { # $1: ON to build the tests, examples and bench, OFF for the library alone
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCLPRIM_WARNINGS_AS_ERRORS=ON \
        -DCLPRIM_BUILD_TESTS="$1" -DCLPRIM_BUILD_BENCH="$1" -DCLPRIM_BUILD_EXAMPLES=ON >/dev/null
}

case "$mode" in
demo)
  configure OFF
  cmake --build "$build" -j "$jobs" --target sort_compare
  exec "$build/examples/sort_compare" "${@:2}"
  ;;
docs)
  configure OFF
  cmake --build "$build" --target clprim_docs
  echo "== open $build/docs/html/index.html"
  ;;
test)
  configure ON
  cmake --build "$build" -j "$jobs"
  echo "== API reference: Doxygen, every public name documented (any warning fails)"
  cmake --build "$build" --target clprim_docs
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
  bash "$here/scripts/check_deb_package.sh" "$build"
  ;;
esac
