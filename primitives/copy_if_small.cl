// copy_if of a range that one work-group holds (CUB's single-tile select): one launch, no
// look-back, no status words, no tile counter, one barrier on NVIDIA. For a few thousand elements
// the time is the launch and the latency of one pass, so the kernel does the least between the
// load and the store.
//
// Work-item t of the group (CS_WG work-items, a multiple of 32) holds elements r * CS_WG + t of
// rows r = 0 .. CS_ROWS - 1 (coalesced loads). In every row each group of 32 consecutive
// work-items (a warp) votes on its elements: the bits of the kept ones (NVIDIA: PTX vote.ballot;
// elsewhere through a local word per row and warp: atomic_or, a stand-in that keeps the kernel
// portable for tests). The votes go to local memory, and after the one barrier every work-item
// counts, in element order (row by row, warp by warp), the kept elements before its own: its
// element's place is that count plus the kept ones of earlier lanes of its vote. The first
// work-item writes the total count. Stable, every element read once and every kept one written
// once, never a write at or past `capacity` (the host compares the count with it).
//
// The same kernel serves clprim::unique (CS_UNIQUE: an element is kept where its bits differ from
// the element before it, read again from memory) and partition_copy (CS_PARTITION: an element not
// kept goes to out2, at its index less the kept ones before it).
//
// Required: T (type_options), CLPRIM_PRED(x) (a generated predicate joined in front) or CS_UNIQUE, CS_WG (the
// work-group size, a multiple of 32), CS_ROWS (rows per work-item: the group takes up to
// CS_WG * CS_ROWS elements). Optional: CS_VOTE (NVIDIA: warp votes by PTX).
#ifndef T
#error "copy_if_small.cl needs T"
#endif
#if !defined(CLPRIM_PRED) && !defined(CS_UNIQUE)
#error "copy_if_small.cl needs CLPRIM_PRED (a generated predicate source joined in front) or CS_UNIQUE"
#endif
#if defined(CS_UNIQUE) && !defined(T_UNSIGNED)
#error "copy_if_small.cl: CS_UNIQUE needs T_UNSIGNED (type_options)"
#endif
#if !defined(CS_WG) || !defined(CS_ROWS)
#error "copy_if_small.cl needs CS_WG and CS_ROWS"
#endif
#if CS_WG % 32 != 0
#error "copy_if_small.cl: CS_WG must be a multiple of 32"
#endif

#define CS_WARPS (CS_WG / 32)

__kernel __attribute__((reqd_work_group_size(CS_WG, 1, 1)))
void copy_if_small(__global const T* in, __global T* out, __global ulong* count_out, ulong4 at, uint n
#ifdef CS_PARTITION
                   , __global T* out2, ulong2 at2
#endif
                   )
{
    // Few arguments (a launch's host time grows with them): at = (in_off, out_off, capacity,
    // count_off), at2 = (out2_off, capacity2).
    const ulong capacity = at.s2, count_off = at.s3;
    __local uint votes[CS_ROWS * CS_WARPS]; // row r, warp w: the kept lanes' bits
    const uint lid = (uint)get_local_id(0);
    const uint lane = lid & 31u, warp = lid >> 5;
    in += at.s0;
    out += at.s1;
    T x[CS_ROWS];
    uint keep = 0; // bit r: row r's element is kept
#ifndef CS_VOTE
#pragma unroll
    for (uint r = 0; r < CS_ROWS; ++r)
        if (lane == 0u) votes[r * CS_WARPS + warp] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#pragma unroll
    for (uint r = 0; r < CS_ROWS; ++r) {
        const uint i = r * CS_WG + lid;
        uint f = 0;
        if (i < n) {
            x[r] = in[i];
#ifdef CS_UNIQUE
            f = i == 0u || CLPRIM_CAT(as_, T_UNSIGNED)(x[r]) != CLPRIM_CAT(as_, T_UNSIGNED)(in[i - 1u]) ? 1u : 0u;
#else
            f = CLPRIM_PRED(x[r]) ? 1u : 0u;
#endif
        }
        keep |= f << r;
#ifdef CS_VOTE
        uint m;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                     : "=r"(m)
                     : "r"(f));
        if (lane == 0u) votes[r * CS_WARPS + warp] = m;
#else
        if (f) atomic_or(&votes[r * CS_WARPS + warp], 1u << lane);
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // In element order: rows, then warps within a row.
    const uint earlier_lanes = (1u << lane) - 1u;
    uint before = 0;
#pragma unroll
    for (uint r = 0; r < CS_ROWS; ++r) {
        uint row_before = before;
        for (uint w = 0; w < CS_WARPS; ++w) {
            const uint c = popcount(votes[r * CS_WARPS + w]);
            row_before += w < warp ? c : 0u;
            before += c;
        }
        const ulong kept_before = row_before + popcount(votes[r * CS_WARPS + warp] & earlier_lanes);
        if ((keep >> r) & 1u) {
            if (kept_before < capacity) out[kept_before] = x[r];
        }
#ifdef CS_PARTITION
        else if (r * CS_WG + lid < n) {
            const ulong other = r * CS_WG + lid - kept_before; // the others before it
            if (other < at2.s1) out2[at2.s0 + other] = x[r];
        }
#endif
    }
    if (lid == 0u) count_out[count_off] = before;
}
