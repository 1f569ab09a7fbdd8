// Work-group segmented scans: every work-item holds a value and a flag "a segment starts here";
// the scan restarts at every flagged work-item. The building block of the by-key family
// (by_key.cl: reduce_by_key, the scans by key, unique, run-length encoding, partition) and,
// through its public names, of users' kernels (clprim::workgroup_source()).
//
// The trick that makes a segmented scan an ordinary scan: scan PAIRS (c, v) with the operator
//     (ca, va) . (cb, vb) = (ca + cb, cb != 0 ? vb : OP(va, vb))
// where c counts the segment starts a pair covers. The operator is associative whenever OP is
// (the right operand's value wins once it holds a start), so any scan algorithm applies. Keeping
// the count (not just a flag) gives the output position of every segment for free: the
// exclusive count before a start is the number of segments before it.
//
// This file compiles on its own (no clprim_types.cl), like workgroup_scan.cl.
//
//   WG_SEGMENTED_DEFINE_OP(NAME, TYPE, OP, ID) defines
//     void wg_segmented_exclusive_scan_NAME(uint c, TYPE v, __local uint* sc, __local TYPE* sv,
//                                           uint* ec, TYPE* ev, uint* tc, TYPE* tv)
//       (*ec, *ev): the pairs of work-items 0 .. lid-1 combined ((0, ID) for work-item 0);
//       (*tc, *tv): the whole work-group combined (the same in every work-item).
//       sc, sv: local scratch of (local size) elements each.
//   WG_SEGMENTED_DEFINE_OP_PINGPONG(NAME, TYPE, OP, ID) defines wg_segmented_exclusive_scan_pp_NAME,
//     the same with sc, sv of 2 * (local size) elements: half the barriers.
//   CLPRIM_WG_SEGMENTED_DEFINE(TYPE) defines the public sums (workgroup_api.cl):
//     TYPE clprim_wg_segmented_inclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch)
//     TYPE clprim_wg_segmented_exclusive_scan_TYPE(TYPE x, uint flag, __local TYPE* scratch)
//       flag != 0: a segment starts at this work-item (work-item 0 always starts one). The
//       inclusive form returns the sum of x over [segment start, lid], the exclusive one over
//       [segment start, lid) (0 at a start). scratch: CLPRIM_WG_SCRATCH(local size) elements.
// Every work-item of the group calls them (barriers inside); each begins and ends with a barrier.

#ifndef CLPRIM_WORKGROUP_SEGMENTED_CL
#define CLPRIM_WORKGROUP_SEGMENTED_CL

// Hillis & Steele over the pairs: log2(n) steps, work-item lid combines the pair d to its left
// (earlier, the left operand) with its own. WG_SEGMENTED_SCAN_BODY_(PP): PP = 0, one buffer and
// two barriers a step (everyone reads, then writes); PP = 1, twice the scratch (sc, sv: 2 * local
// size elements each), each step reads one half and writes the other, so one barrier a step
// suffices (the same combinations in the same order: the same bits). The by-key family's tiles
// use the second (wg_segmented_exclusive_scan_pp_NAME).
#define WG_SEGMENTED_SCAN_BODY_(TYPE, OP, ID, PP)                                                 \
    {                                                                                             \
        const uint n = (uint)get_local_size(0);                                                   \
        const uint lid = (uint)get_local_id(0);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE); /* the caller may still be reading the scratch */          \
        sc[lid] = c;                                                                              \
        sv[lid] = v;                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        uint src = 0;                                                                             \
        for (uint d = 1; d < n; d <<= 1) {                                                        \
            if (lid >= d) {                                                                       \
                const uint pc = sc[src + lid - d];                                                \
                const TYPE pv = sv[src + lid - d];                                                \
                v = c != 0 ? v : OP(pv, v);                                                       \
                c += pc;                                                                          \
            }                                                                                     \
            if (PP) src ^= n;                                                                     \
            else barrier(CLK_LOCAL_MEM_FENCE);                                                    \
            sc[src + lid] = c;                                                                    \
            sv[src + lid] = v;                                                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        }                                                                                         \
        *ec = lid > 0 ? sc[src + lid - 1] : 0u;                                                   \
        *ev = lid > 0 ? sv[src + lid - 1] : (ID);                                                 \
        *tc = sc[src + n - 1];                                                                    \
        *tv = sv[src + n - 1];                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    }
#define WG_SEGMENTED_DEFINE_OP(NAME, TYPE, OP, ID)                                                \
    void wg_segmented_exclusive_scan_##NAME(uint c, TYPE v, __local uint* sc, __local TYPE* sv,   \
                                            uint* ec, TYPE* ev, uint* tc, TYPE* tv)               \
    WG_SEGMENTED_SCAN_BODY_(TYPE, OP, ID, 0)
#define WG_SEGMENTED_DEFINE_OP_PINGPONG(NAME, TYPE, OP, ID)                                       \
    void wg_segmented_exclusive_scan_pp_##NAME(uint c, TYPE v, __local uint* sc, __local TYPE* sv, \
                                               uint* ec, TYPE* ev, uint* tc, TYPE* tv)            \
    WG_SEGMENTED_SCAN_BODY_(TYPE, OP, ID, 1)

#define WG_SEGMENTED_ADD_(a, b) ((a) + (b))

// The public sums: the scratch holds the values, then the counts (every TYPE is >= 4 bytes, so
// n uints fit in n TYPE elements; CLPRIM_WG_SCRATCH(n) >= 2n).
#define CLPRIM_WG_SEGMENTED_DEFINE(TYPE)                                                          \
    WG_SEGMENTED_DEFINE_OP(sum_##TYPE, TYPE, WG_SEGMENTED_ADD_, (TYPE)0)                          \
    /* the sum of x over the work-items before lid, back to the nearest flagged one (included) */ \
    TYPE wg_segmented_before_##TYPE(TYPE x, uint flag, __local TYPE* scratch)                     \
    {                                                                                             \
        uint ec, tc;                                                                              \
        TYPE ev, tv;                                                                              \
        wg_segmented_exclusive_scan_sum_##TYPE(flag != 0 ? 1u : 0u, x, (__local uint*)(scratch + get_local_size(0)), \
                                               scratch, &ec, &ev, &tc, &tv);                      \
        return ev;                                                                                \
    }                                                                                             \
    TYPE clprim_wg_segmented_exclusive_scan_##TYPE(TYPE x, uint flag, __local TYPE* scratch)      \
    {                                                                                             \
        const TYPE before = wg_segmented_before_##TYPE(x, flag, scratch);                         \
        return flag != 0 ? (TYPE)0 : before;                                                      \
    }                                                                                             \
    TYPE clprim_wg_segmented_inclusive_scan_##TYPE(TYPE x, uint flag, __local TYPE* scratch)      \
    {                                                                                             \
        const TYPE before = wg_segmented_before_##TYPE(x, flag, scratch);                         \
        return flag != 0 ? x : before + x;                                                        \
    }

CLPRIM_WG_SEGMENTED_DEFINE(uint)

#endif // CLPRIM_WORKGROUP_SEGMENTED_CL
