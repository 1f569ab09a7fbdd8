#!/usr/bin/env bash
# Builds the Debian package libclprim-dev (cpack -G DEB) in a configured and built build
# directory, unpacks it into a scratch root (dpkg -x, nothing installed on the machine) and builds
# and runs test/consumer against it with find_package(clprim) (CMAKE_PREFIX_PATH=<root>/usr):
# the package's CMake files must be relocatable. Part of scripts/quickstart.sh test.
# Usage: scripts/check_deb_package.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
jobs=${CLPRIM_JOBS:-$(nproc 2>/dev/null || echo 2)}

echo "== Debian package: cpack -G DEB"
rm -f "$build"/libclprim-dev_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/libclprim-dev_*.deb)
echo "   $(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
root=$build/deb-root
rm -rf "$root"
dpkg -x "$deb" "$root"
echo "== outside project: find_package(clprim) from the package unpacked in $root"
consumer_build=$build/consumer-deb
rm -rf "$consumer_build"
cmake -S "$here/test/consumer" -B "$consumer_build" -DCMAKE_BUILD_TYPE=Release -DCLPRIM_CONSUMER_MODE=package \
      -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
found=$(sed -n 's/^clprim_DIR:PATH=//p' "$consumer_build/CMakeCache.txt")
case "$found" in
"$root"/*) echo "   clprim_DIR=$found" ;;
*) echo "find_package(clprim) took $found, not the unpacked package" >&2; exit 1 ;;
esac
cmake --build "$consumer_build" -j "$jobs" >/dev/null
"$consumer_build/clprim_consumer"
