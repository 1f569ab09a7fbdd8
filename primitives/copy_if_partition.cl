// stable_partition's second step after partition_copy into scratch (copy_if_partition.hpp): the
// kept elements are tmp[0, k), the others tmp[n, 2n - k), k the count the single pass left on the
// device; both groups go back to the range, the kept ones first. A plain copy: 256 work-items a
// group, CPB_ITEMS elements each, j * local size + lid within the group's block (coalesced reads
// of both groups, coalesced writes).
//
// Required: T (type_options), CPB_ITEMS (elements per work-item).
#ifndef T
#error "copy_if_partition.cl needs T"
#endif
#ifndef CPB_ITEMS
#error "copy_if_partition.cl needs CPB_ITEMS"
#endif

__kernel void copy_if_partition_back(__global T* range, ulong range_off, ulong n, __global const T* tmp,
                                     __global const ulong* count, ulong count_off)
{
    const ulong k = count[count_off];
    const ulong block = (ulong)get_group_id(0) * get_local_size(0) * CPB_ITEMS + get_local_id(0);
    #pragma unroll
    for (uint j = 0; j < CPB_ITEMS; ++j) {
        const ulong i = block + (ulong)j * get_local_size(0);
        if (i < n) range[range_off + i] = i < k ? tmp[i] : tmp[n + i - k];
    }
}
