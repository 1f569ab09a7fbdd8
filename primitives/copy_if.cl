// clprim::copy_if (stream compaction), stable, in tiles of CPY_ITEMS elements per work-item:
//   copy_if_count:   tile g counts the elements that pass -> counts[g]
//   (the host scans counts[0, tiles] exclusively with clprim's scan: counts[g] becomes tile g's
//    first output slot, counts[tiles] the total)
//   copy_if_scatter: tile g compacts its passing elements in local memory and writes them out
//                    from counts[g] on, coalesced
// The predicate is evaluated in both passes (fused into the loads: no flag array in memory).
// Joined after a generated source defining CLPRIM_PRED(x) (operator_source.hpp), and after
// workgroup_reduce.cl, workgroup_scan.cl, workgroup_histogram.cl and workgroup_api.cl: the
// kernels use the public building blocks clprim_wg_reduce_uint / clprim_wg_exclusive_scan_uint.

#ifndef CPY_ITEMS
#define CPY_ITEMS 16
#endif
// One pad slot every 32 elements: item-major accesses (stride CPY_ITEMS) spread over the banks.
#define CPY_PAD(i) ((i) + ((i) >> 5))

// counts[g] = the passing elements of tile g (coalesced loads: the order does not matter for a
// count); group 0 also sets counts[num_groups] = 0, the slot the scan turns into the total.
__kernel void copy_if_count(__global const T* in, const ulong in_off, const ulong n, __global ulong* counts,
                            __local uint* scratch)
{
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong base = (ulong)get_group_id(0) * L * CPY_ITEMS;
    in += in_off;
    uint c = 0;
    for (uint j = 0; j < CPY_ITEMS; ++j) {
        const ulong i = base + j * L + lid;
        if (i < n && CLPRIM_PRED(in[i])) ++c;
    }
    c = clprim_wg_reduce_uint(c, scratch);
    if (lid == 0) {
        counts[get_group_id(0)] = c;
        if (get_group_id(0) == 0) counts[get_num_groups(0)] = 0;
    }
}

// Tile g's passing elements, in order, to out[offsets[g] ...]. Writes past capacity (the room
// the caller's range has) are dropped: the host reports that case as an error.
__kernel void copy_if_scatter(__global const T* in, const ulong in_off, const ulong n, __global T* out,
                              const ulong out_off, const ulong capacity, __global const ulong* offsets,
                              __local T* tile, __local uint* scratch)
{
    const uint lid = get_local_id(0), L = get_local_size(0);
    const uint tile_n = L * CPY_ITEMS;
    const ulong base = (ulong)get_group_id(0) * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    in += in_off + base;
    // Coalesced load of the tile.
    for (uint j = 0; j < CPY_ITEMS; ++j) {
        const uint i = j * L + lid;
        if (i < count) tile[CPY_PAD(i)] = in[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Work-item lid owns the consecutive elements [lid*CPY_ITEMS, (lid+1)*CPY_ITEMS): its
    // passing ones, in order, and how many.
    // (v is indexed by j only, so that it can stay in registers; mask marks the passing ones.)
    T v[CPY_ITEMS];
    uint mask = 0, c = 0;
    for (uint j = 0; j < CPY_ITEMS; ++j) {
        const uint i = lid * CPY_ITEMS + j;
        v[j] = tile[CPY_PAD(min(i, tile_n - 1))];
        if (i < count && CLPRIM_PRED(v[j])) {
            mask |= 1u << j;
            ++c;
        }
    }
    // Where this work-item's first passing element goes within the tile (stable: the passing
    // elements of earlier work-items come first). The scan begins with a barrier, so every
    // work-item has read the tile before anyone overwrites it below.
    uint total;
    uint pos = clprim_wg_exclusive_scan_uint(c, scratch, &total);
    for (uint j = 0; j < CPY_ITEMS; ++j) {
        if (mask & (1u << j)) {
            tile[CPY_PAD(pos)] = v[j];
            ++pos;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Coalesced store of the compacted tile.
    const ulong first = offsets[get_group_id(0)];
    for (uint i = lid; i < total; i += L) {
        if (first + i < capacity) out[out_off + first + i] = tile[CPY_PAD(i)];
    }
}
