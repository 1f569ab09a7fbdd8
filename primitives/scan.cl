// Device-wide scans of T, joined after workgroup_scan.cl: sums, or any associative operator.
//
// A tile is SCAN_ITEMS elements per work-item times the work-group size. Within a tile each
// work-item scans its SCAN_ITEMS consecutive elements in registers, then one work-group scan
// over the per-item totals gives every item its offset: the memory traffic dominates, not the
// barriers. The host strings tiles together either as
//   scan tiles (+ tile sums) -> scan the sums -> add_tile_offsets      (hillis_steele, blelloch)
//   reduce_tiles -> scan the sums -> scan tiles starting from the sums (fast: 3 passes over n)
// and a level of at most a few tiles is scanned by one work-group in one launch (scan_single).
//
// SCAN_WG selects the work-group scan: 0 Hillis & Steele, 1 Blelloch, 2 the fastest one.
//
// The operator is SCAN_OP(a, b) with identity SCAN_IDENTITY: the sum, or a user's operator from
// a generated source joined in front (CLPRIM_OP and CLPRIM_IDENTITY, clprim/detail/
// operator_source.hpp). Every kernel keeps element order (a is always the earlier part of the
// range), so the operator need only be associative; SCAN_ORDERED (set by the host for operators
// not known to be commutative) also keeps it where a sum may take elements in any order.
//
// Required: T (the element type's macros, type_options), workgroup_scan.cl and scan_layout.cl
// joined before this file; optional: SCAN_ITEMS, SCAN_WG, SCAN_ORDERED, SCAN_REREAD,
// SCAN_FULL_TILES, CLPRIM_OP / CLPRIM_IDENTITY (a generated operator).
#ifndef T
#error "scan.cl needs T"
#endif
#ifndef WG_SCAN_SCRATCH
#error "scan.cl needs workgroup_scan.cl joined before it"
#endif
#ifndef SCAN_TILE_PAD
#error "scan.cl needs scan_layout.cl joined before it"
#endif

#ifndef SCAN_ITEMS
#define SCAN_ITEMS 8
#endif
#ifndef SCAN_WG
#define SCAN_WG 2
#endif

#ifndef SCAN_ORDERED
#define SCAN_ORDERED 0
#endif

#ifdef CLPRIM_OP
#define SCAN_OP(a, b) CLPRIM_OP(a, b)
#define SCAN_IDENTITY ((T)CLPRIM_IDENTITY)
// The work-group scans of workgroup_scan.cl over the user's operator: wg_exclusive_scan_hs_op, ...
WG_SCAN_DEFINE_OP(op, T, SCAN_OP, SCAN_IDENTITY)
#if SCAN_WG == 0
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_hs_op
#elif SCAN_WG == 1
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_blelloch_op
#else
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_op
#endif
#else
#define SCAN_OP(a, b) ((a) + (b))
#define SCAN_IDENTITY ((T)0)
#if SCAN_WG == 0
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_hs_T
#elif SCAN_WG == 1
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_blelloch_T
#else
#define SCAN_WG_EXCLUSIVE wg_exclusive_scan_T
#endif
#endif

// Every tile but the last is full: loads and stores without bounds checks let the compiler
// issue all of a work-item's loads back to back (SCAN_FULL_TILES=0 keeps one checked loop, for
// measurements).
#ifndef SCAN_FULL_TILES
#define SCAN_FULL_TILES 1
#endif

// The tile stays in local memory from load to store, so the store reads each work-item's values
// again instead of keeping SCAN_ITEMS of them in registers through the work-group scan and the
// look-back: fewer registers, more work-groups per SM to keep loads in flight (H100, 2^26 uint
// look-back scan: see docs/RESULTS.md). SCAN_REREAD=0 keeps them in registers, for measurements.
#ifndef SCAN_REREAD
#define SCAN_REREAD 1
#endif
// SCAN_STREAM=1 (with SCAN_REREAD): the store's scan of a work-item's elements reads, combines
// and writes back one element at a time, in the source order: fewer values live at once (the
// host sets it for user operators: scan_policy.hpp).
#ifndef SCAN_STREAM
#define SCAN_STREAM 0
#endif

// Tile slots in local memory: SCAN_TILE_PAD (scan_layout.cl, shared with the host).

#define SCAN_INCLUSIVE 1u     // else exclusive
#define SCAN_USE_OFFSETS 2u   // start tile g from offsets[g] (else from init)
#define SCAN_WRITE_SUMS 4u    // write tile g's total to sums[g]

// Loads the count (<= tile size) elements of one tile, coalesced, through local memory into v:
// the work-item's SCAN_ITEMS consecutive elements (slots past the end hold the identity, never
// read from memory). Returns their combination. tile holds SCAN_TILE_PAD(tile size - 1) + 1.
inline T scan_tile_load(__global const T* in, uint count, T* v, __local T* tile)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE); // a previous tile may still be reading the tile memory
    if (SCAN_FULL_TILES && count == wg * SCAN_ITEMS) {
        T r[SCAN_ITEMS];
        for (uint j = 0; j < SCAN_ITEMS; ++j) r[j] = in[j * wg + lid];
        for (uint j = 0; j < SCAN_ITEMS; ++j) tile[SCAN_TILE_PAD(j * wg + lid)] = r[j];
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const uint i = j * wg + lid;
            tile[SCAN_TILE_PAD(i)] = i < count ? in[i] : SCAN_IDENTITY;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T sum = SCAN_IDENTITY;
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        v[j] = tile[SCAN_TILE_PAD(lid * SCAN_ITEMS + j)];
        sum = SCAN_OP(sum, v[j]);
    }
    return sum;
}

// Scans the work-item's elements (v, or read again from the tile: SCAN_REREAD) from p (everything
// before the work-item's first element) and stores the tile's count elements, coalesced, through
// local memory. The tile must still hold what scan_tile_load left there.
inline void scan_tile_store(__global T* out, uint count, T* v, T p, bool inclusive, __local T* tile)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
#if SCAN_REREAD && SCAN_STREAM
    // One element at a time: read, combine, write back (no run of values live at once).
    if (inclusive) {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const uint s = SCAN_TILE_PAD(lid * SCAN_ITEMS + j);
            p = SCAN_OP(p, tile[s]);
            tile[s] = p;
        }
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const uint s = SCAN_TILE_PAD(lid * SCAN_ITEMS + j);
            const T x = tile[s];
            tile[s] = p;
            p = SCAN_OP(p, x);
        }
    }
#else
#if SCAN_REREAD
    for (uint j = 0; j < SCAN_ITEMS; ++j) v[j] = tile[SCAN_TILE_PAD(lid * SCAN_ITEMS + j)];
#endif
    if (inclusive) {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            p = SCAN_OP(p, v[j]);
            v[j] = p;
        }
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const T x = v[j];
            v[j] = p;
            p = SCAN_OP(p, x);
        }
    }
    // Each item rewrites only its own slots (which only it read), then all read for the store.
    for (uint j = 0; j < SCAN_ITEMS; ++j) tile[SCAN_TILE_PAD(lid * SCAN_ITEMS + j)] = v[j];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (SCAN_FULL_TILES && count == wg * SCAN_ITEMS) {
        for (uint j = 0; j < SCAN_ITEMS; ++j) out[j * wg + lid] = tile[SCAN_TILE_PAD(j * wg + lid)];
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const uint i = j * wg + lid;
            if (i < count) out[i] = tile[SCAN_TILE_PAD(i)];
        }
    }
}

// Scans the count (<= tile size) elements of one tile from carry; returns the tile's total.
// scratch holds WG_SCAN_SCRATCH(work-group size). in may equal out (in place): the tile is read
// in full before any of it is written.
T scan_one_tile(__global const T* in, __global T* out, uint count, T carry, bool inclusive,
                __local T* tile, __local T* scratch)
{
    T v[SCAN_ITEMS];
    const T sum = scan_tile_load(in, count, v, tile);
    T total;
    const T p = SCAN_OP(carry, SCAN_WG_EXCLUSIVE(sum, scratch, &total));
    scan_tile_store(out, count, v, p, inclusive, tile);
    return total;
}

// One work-group per tile, starting from offsets[aux_off + g] or from init; tile g's total goes
// to sums[aux_off + g] if flags ask for it.
__kernel void scan_tiles(__global const T* in, ulong in_off, __global T* out, ulong out_off,
                         ulong n, __global const T* offsets, __global T* sums, ulong aux_off,
                         uint flags, T init, __local T* tile, __local T* scratch)
{
    const uint tile_n = (uint)get_local_size(0) * SCAN_ITEMS;
    const ulong g = get_group_id(0);
    const ulong base = g * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    const T carry = (flags & SCAN_USE_OFFSETS) ? offsets[aux_off + g] : init;
    const T total = scan_one_tile(in + in_off + base, out + out_off + base, count, carry,
                                  (flags & SCAN_INCLUSIVE) != 0, tile, scratch);
    if ((flags & SCAN_WRITE_SUMS) && get_local_id(0) == 0) sums[aux_off + g] = total;
}

// A single work-group scans all n elements, tile after tile, carrying the running total: for
// the tile sums of a level, where one more level of launches would cost more than the few
// tiles this loops over.
__kernel void scan_single(__global const T* in, ulong in_off, __global T* out, ulong out_off,
                          ulong n, uint flags, T init, __local T* tile, __local T* scratch)
{
    const uint tile_n = (uint)get_local_size(0) * SCAN_ITEMS;
    T carry = init;
    for (ulong base = 0; base < n; base += tile_n) {
        const uint count = (uint)min((ulong)tile_n, n - base);
        carry = SCAN_OP(carry, scan_one_tile(in + in_off + base, out + out_off + base, count, carry,
                                      (flags & SCAN_INCLUSIVE) != 0, tile, scratch));
    }
}

// sums[g] = the total of tile g (same tiling as scan_tiles). Needs no tile in local memory: the
// order of a sum (or of any commutative operator) does not matter for integers, and floats are
// only promised to a tolerance, so each work-item takes a coalesced column of the tile. An
// operator that may not commute (SCAN_ORDERED) gets each work-item's own SCAN_ITEMS consecutive
// elements instead (the layout scan_one_tile uses), so the work-group scan sees runs in order.
__kernel void reduce_tiles(__global const T* in, ulong in_off, ulong n, __global T* sums,
                           ulong sums_off, __local T* scratch)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const uint tile_n = wg * SCAN_ITEMS;
    const ulong g = get_group_id(0);
    const ulong base = g * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    in += in_off + base;

    T sum = SCAN_IDENTITY;
#if SCAN_ORDERED
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        const uint i = lid * SCAN_ITEMS + j;
        if (i < count) sum = SCAN_OP(sum, in[i]);
    }
#else
    if (count == tile_n) {
        for (uint j = 0; j < SCAN_ITEMS; ++j) sum = SCAN_OP(sum, in[j * wg + lid]);
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j) {
            const uint i = j * wg + lid;
            if (i < count) sum = SCAN_OP(sum, in[i]);
        }
    }
#endif
    T total;
    SCAN_WG_EXCLUSIVE(sum, scratch, &total);
    if (lid == 0) sums[sums_off + g] = total;
}

// out[tile g] = offsets[g] combined with out[tile g], one work-group per tile of tile_n elements.
__kernel void add_tile_offsets(__global T* out, ulong out_off, ulong n, __global const T* offsets,
                               ulong offsets_off, uint tile_n)
{
    const uint lid = (uint)get_local_id(0);
    const uint wg = (uint)get_local_size(0);
    const ulong g = get_group_id(0);
    const ulong base = g * tile_n;
    const uint count = (uint)min((ulong)tile_n, n - base);
    const T off = offsets[offsets_off + g];
    out += out_off + base;
    for (uint i = lid; i < count; i += wg) out[i] = SCAN_OP(off, out[i]);
}

// CPU devices (fast algorithm): a work-item per chunk of consecutive elements and plain loops,
// with no barriers or local memory, which a CPU runtime turns into loops over work-items.
__kernel void reduce_chunks(__global const T* in, ulong in_off, ulong n, ulong chunk,
                            __global T* sums)
{
    const ulong g = get_global_id(0);
    const ulong b = g * chunk, e = min(n, b + chunk);
    T s = SCAN_IDENTITY;
    for (ulong i = b; i < e; ++i) s = SCAN_OP(s, in[in_off + i]);
    sums[g] = s;
}

// Chunk g starts from init combined with the totals of chunks 0..g-1, in order (few: a small
// multiple of the cores).
__kernel void scan_chunks(__global const T* in, ulong in_off, __global T* out, ulong out_off,
                          ulong n, ulong chunk, __global const T* sums, uint flags, T init)
{
    const ulong g = get_global_id(0);
    const ulong b = g * chunk, e = min(n, b + chunk);
    T p = init;
    for (ulong c = 0; c < g; ++c) p = SCAN_OP(p, sums[c]);
    if (flags & SCAN_INCLUSIVE) {
        for (ulong i = b; i < e; ++i) {
            p = SCAN_OP(p, in[in_off + i]);
            out[out_off + i] = p;
        }
    } else {
        for (ulong i = b; i < e; ++i) {
            const T x = in[in_off + i];
            out[out_off + i] = p;
            p = SCAN_OP(p, x);
        }
    }
}
