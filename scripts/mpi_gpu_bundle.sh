#!/usr/bin/env bash
# Open MPI for the GPU machine, which has no package registry: downloads here (apt-get download,
# nothing installed) Debian's Open MPI runtime (mpirun/orted, libmpi and the MCA plugins) and the
# libraries they need, unpacks them (dpkg -x) into DEST/root, drops what a one-node run cannot
# use (docs, manuals, the InfiniBand/UCX/libfabric/PSM plugins and their libraries), and writes
# DEST/env.sh, which points PATH, LD_LIBRARY_PATH and Open MPI's relocation variables (OPAL_PREFIX
# and friends, PMIx's PMIX_PREFIX and friends) into the folder and sets the MCA choices for ranks on one
# node, as root, in a container: btl self,vader (no single-copy, which needs ptrace rights), pml
# ob1, plm isolated (no ssh), oversubscription allowed.
#   scripts/mpi_gpu_bundle.sh [DEST]        (default build-gpu-slim/ompi; about 6 MB compressed)
# There (the folder carried to the same relative place):
#   source build-gpu-slim/ompi/env.sh && mpirun -np 2 build-gpu-slim/examples/mpi_sort --n 2^24
# Assumed present on that machine: glibc (libc, libm, libdl, libpthread, librt, ld-linux),
# libgcc_s and libstdc++ (clprim's programs need them too). Every ELF file kept is checked:
# each library it needs is in the bundle or in that list, else a plugin is dropped and a core
# file fails the script.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:-$here/build-gpu-slim/ompi}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
packages="openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
          libudev1 libmunge2 zlib1g libnuma1 libatomic1"
assumed="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libutil.so.1 ld-linux-x86-64.so.2 libgcc_s.so.1 libstdc++.so.6"

debs=$(mktemp -d)
chmod 755 "$debs" # apt-get download as root hands the files to its _apt user
trap 'rm -rf "$debs"' EXIT
echo "== apt-get download:" $packages
(cd "$debs" && apt-get download -q $packages >/dev/null)
rm -rf "$dest"
mkdir -p "$dest/root"
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$dest/root"; done
root=$dest/root
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/lintian" "$root/usr/share/bug" \
       "$root/usr/lib/$arch/pkgconfig" "$root/lib/udev" "$root/usr/lib/udev" "$root/etc/default" "$root/etc/init.d" \
       "$root/usr/sbin" "$root/usr/share/locale"
# Debian's mpirun and mpiexec are alternatives symlinks (/etc/alternatives): make them local.
ln -sf orterun "$root/usr/bin/mpirun"
ln -sf orterun "$root/usr/bin/mpiexec"
# usrmerge packages (libudev1, zlib1g on older releases) may put libraries under /lib
if [ -d "$root/lib/$arch" ]; then
  mkdir -p "$root/usr/lib/$arch"
  cp -a "$root/lib/$arch/." "$root/usr/lib/$arch/" && rm -rf "$root/lib/$arch"
fi

# Libraries each ELF file needs that neither the bundle nor the assumed list has.
libdirs="$root/usr/lib/$arch $root/usr/lib/$arch/openmpi/lib $root/usr/lib/$arch/pmix2/lib"
missing_of() {
  local need lib found d
  for need in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case " $assumed " in *" $need "*) continue ;; esac
    found=""
    for d in $libdirs; do [ -e "$d/$need" ] && found=1 && break; done
    [ -n "$found" ] || echo "$need"
  done
}
dropped=""
for plugin in "$root/usr/lib/$arch/openmpi/lib/openmpi3/"*.so "$root/usr/lib/$arch/pmix2/lib/pmix/"*.so \
              "$root/usr/lib/$arch/libmca_common_"*.so.*; do
  [ -f "$plugin" ] || continue
  if [ -n "$(missing_of "$plugin")" ]; then dropped="$dropped $(basename "$plugin")"; rm -f "$plugin"; fi
done
# libmca_common_* dropped above leave dangling symlinks
find "$root" -xtype l -delete
echo "== dropped (need InfiniBand/UCX/libfabric/PSM libraries):$dropped"
bad=0
for f in "$root/usr/bin/orterun" "$root/usr/bin/orted" "$root/usr/lib/$arch/"*.so.* "$root/usr/lib/$arch/openmpi/lib/"*.so.* \
         "$root/usr/lib/$arch/pmix2/lib/"*.so.* "$root/usr/lib/$arch/openmpi/lib/openmpi3/"*.so; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  m=$(missing_of "$f")
  if [ -n "$m" ]; then echo "missing for $f:" $m >&2; bad=1; fi
done
[ "$bad" -eq 0 ] || exit 1

cat > "$dest/env.sh" <<ENV
# Source this (bash) to use the Open MPI of this folder (scripts/mpi_gpu_bundle.sh made it).
ompi_root=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)/root
ompi_lib=\$ompi_root/usr/lib/$arch
export PATH=\$ompi_root/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$ompi_lib/openmpi/lib:\$ompi_lib/pmix2/lib:\$ompi_lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
# Open MPI's relocation: every directory it was built with, moved under this folder
export OPAL_PREFIX=\$ompi_root/usr
export OPAL_EXEC_PREFIX=\$ompi_root/usr
export OPAL_BINDIR=\$ompi_root/usr/bin
export OPAL_LIBDIR=\$ompi_lib/openmpi/lib
export OPAL_PKGLIBDIR=\$ompi_lib/openmpi/lib/openmpi3
export OPAL_DATADIR=\$ompi_root/usr/share
export OPAL_DATAROOTDIR=\$ompi_root/usr/share
export OPAL_PKGDATADIR=\$ompi_root/usr/share/openmpi
export OPAL_SYSCONFDIR=\$ompi_root/etc/openmpi
export OMPI_MCA_mca_base_component_path=\$ompi_lib/openmpi/lib/openmpi3
# PMIx's relocation (its own variables: PMIX_INSTALL_PREFIX and the component path are not read)
pmix=\$ompi_lib/pmix2
export PMIX_PREFIX=\$pmix PMIX_EXEC_PREFIX=\$pmix PMIX_LIBDIR=\$pmix/lib PMIX_PKGLIBDIR=\$pmix/lib/pmix
export PMIX_DATADIR=\$pmix/share PMIX_DATAROOTDIR=\$pmix/share PMIX_PKGDATADIR=\$pmix/share/pmix PMIX_SYSCONFDIR=\$pmix/share
# One node, as root, in a container, no ssh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mca_base_component_show_load_errors=0
# hwloc: no plugins from the machine (there may be none; here Debian's libhwloc-plugins)
export HWLOC_PLUGINS_PATH=\$ompi_root/hwloc-plugins-none
ENV
echo "== $dest: $(du -sh "$dest" | cut -f1) unpacked, $(tar -C "$dest" -czf - . | wc -c | awk '{printf "%.1f MB", $1/1e6}') compressed"
echo "   use: source $dest/env.sh && mpirun -np 2 <program>"
