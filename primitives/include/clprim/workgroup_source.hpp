#pragma once
/// \file
/// \brief The library's work-group building blocks as OpenCL C, for a user's own kernels.
#include <string>

namespace clprim {

/// \ingroup workgroup
/// \brief OpenCL C source of the library's work-group building blocks, to put in front of the
/// source of a user's own program.
///
/// It defines, for TYPE = uint (`CLPRIM_WG_DEFINE(TYPE)` in the user's source adds int, long,
/// ulong, float, double):
/// \code{.c}
///   CLPRIM_WG_SCRATCH(n)   // elements of __local TYPE scratch a work-group of n items needs
///   TYPE clprim_wg_reduce_TYPE(TYPE x, __local TYPE* scratch);          // sum over the work-group
///   TYPE clprim_wg_inclusive_scan_TYPE(TYPE x, __local TYPE* scratch);
///   TYPE clprim_wg_exclusive_scan_TYPE(TYPE x, __local TYPE* scratch, TYPE* total);
///   void clprim_wg_histogram_clear(__local uint* bins, uint num_bins);
///   void clprim_wg_histogram_add(__local uint* bins, uint num_bins, uint bin);
///   void clprim_wg_histogram_flush(__local const uint* bins, uint num_bins, __global uint* counts);
///   TYPE clprim_wg_segmented_inclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch);
///   TYPE clprim_wg_segmented_exclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch);
/// \endcode
/// The segmented sums: flag != 0 starts a segment at this work-item (work-item 0 always starts
/// one); the inclusive form sums x over [segment start, lid], the exclusive one over
/// [segment start, lid) (0 at a start); scratch: CLPRIM_WG_SCRATCH(local size) elements.
/// Every work-item of a 1-D work-group (any size, not only powers of two) makes each call. The
/// text is the same code the library's kernels are built from; it needs no other file and no
/// build option: `bc::program::create_with_source(clprim::workgroup_source() + src, context)`.
/// \return the OpenCL C text.
std::string workgroup_source();

} // namespace clprim
