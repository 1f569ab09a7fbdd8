// The public face of the work-group building blocks: what clprim::workgroup_source() hands to
// users' own programs, after workgroup_reduce.cl, workgroup_scan.cl and workgroup_histogram.cl
// (the very code the library's kernels use; these are only names over it).
//
//   CLPRIM_WG_SCRATCH(n)     elements of __local TYPE scratch a work-group of n items needs
//   TYPE clprim_wg_reduce_TYPE(TYPE x, __local TYPE* scratch)                 sum over the group
//   TYPE clprim_wg_inclusive_scan_TYPE(TYPE x, __local TYPE* scratch)
//   TYPE clprim_wg_exclusive_scan_TYPE(TYPE x, __local TYPE* scratch, TYPE* total)
//   void clprim_wg_histogram_clear(__local uint* bins, uint num_bins)
//   void clprim_wg_histogram_add(__local uint* bins, uint num_bins, uint bin)
//   void clprim_wg_histogram_flush(__local const uint* bins, uint num_bins, __global uint* counts)
//   TYPE clprim_wg_segmented_inclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch)
//   TYPE clprim_wg_segmented_exclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch)
//        sums restarting at every work-item whose flag is non-zero (workgroup_segmented.cl)
// Defined here for TYPE = uint; CLPRIM_WG_DEFINE(TYPE) instantiates the scans and the reduce for another
// type (int, long, ulong, float, double with cl_khr_fp64 enabled by the user's source).
// Every work-item of a 1-D work-group of any size calls each function (they contain barriers);
// each begins and ends with the barriers it needs, so one scratch serves consecutive calls.

#ifndef CLPRIM_WORKGROUP_API_CL
#define CLPRIM_WORKGROUP_API_CL

// The scans need the most: two buffers of n plus Blelloch's padding (the reduce needs n).
#define CLPRIM_WG_SCRATCH(n) WG_SCAN_SCRATCH(n)

#define CLPRIM_WG_ADD_(a, b) ((a) + (b))
#define CLPRIM_WG_REDUCE_DEFINE_(TYPE) CLPRIM_DEFINE_WORKGROUP_REDUCE(clprim_wg_reduce_##TYPE, TYPE, CLPRIM_WG_ADD_)

// Scans (with their public names) and the sum reduce for TYPE.
#define CLPRIM_WG_DEFINE(TYPE)                                                                    \
    WG_SCAN_DEFINE(TYPE)                                                                          \
    CLPRIM_WG_REDUCE_DEFINE_(TYPE)                                                                \
    CLPRIM_WG_SEGMENTED_DEFINE(TYPE)

// uint: the scans come from workgroup_scan.cl already.
CLPRIM_WG_REDUCE_DEFINE_(uint)

// Zeroes bins[0, num_bins); the leading barrier lets the caller still be reading bins before.
void clprim_wg_histogram_clear(__local uint* bins, uint num_bins)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    wg_hist_clear(bins, num_bins); // ends with a barrier
}

// Counts one value into bin (< num_bins); local atomics, no barrier.
void clprim_wg_histogram_add(__local uint* bins, uint num_bins, uint bin)
{
    wg_hist_add(bins, num_bins, bin);
}

// counts[b] += bins[b] for every b < num_bins (atomically: other groups add into the same counts).
void clprim_wg_histogram_flush(__local const uint* bins, uint num_bins, __global uint* counts)
{
    barrier(CLK_LOCAL_MEM_FENCE); // every add of the group is done
    wg_hist_flush_add((__local uint*)bins, num_bins, counts);
    barrier(CLK_LOCAL_MEM_FENCE);
}

#endif // CLPRIM_WORKGROUP_API_CL
