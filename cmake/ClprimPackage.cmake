# The Debian package: `cpack -G DEB` in the build directory makes libclprim-dev_<version>_<arch>.deb
# with what `cmake --install` installs (headers, the static libraries, the CMake package files
# under usr/lib/<multiarch>/cmake/clprim), depending on the Debian packages a user's build needs.
set(CPACK_PACKAGE_NAME "libclprim-dev")
set(CPACK_PACKAGE_VENDOR "clprim")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenCL parallel primitives (reduce, scan, histogram, copy_if, sorts) on Boost.Compute")
set(CPACK_PACKAGE_DESCRIPTION "clprim is a C++17 library of parallel primitives for OpenCL built on
Boost.Compute: reductions, scans, histograms, stream compaction, work-group building blocks
and radix, merge, bitonic and odd-even sorts. This package holds the headers, the static
libraries and the CMake package files (find_package(clprim)).")
set(CPACK_PACKAGE_CONTACT "clprim developers <clprim@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # libclprim-dev_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libboost-dev (>= 1.74), ocl-icd-opencl-dev | opencl-dev, opencl-headers")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.16), g++ | c++-compiler, pocl-opencl-icd | opencl-icd")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
# Only the library's own install rules (no test or example programs are installed anyway).
include(CPack)
