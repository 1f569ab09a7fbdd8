// clprim::segmented_reduce: result[s] = the reduction of segment s = [offsets[s], offsets[s+1]).
//
// Required macros (besides the type macros of T from clprim_types.cl):
//   OFF           the caller's offset type (uint or ulong)
//   SR_OP_CODE    0 sum, 1 min, 2 max, 3 the user's CLPRIM_OP / CLPRIM_IDENTITY (a generated file)
//   SR_TEAM       work-items per segment in segred_teams (a power of two dividing the work-group)
//   SR_ORDERED    1: every work-item reduces one contiguous block, and blocks are combined left
//                 to right (operators that are not commutative); 0: strided, coalesced reads.
//   SR_VLOAD      (optional, SR_ORDERED 0 and T a scalar type) reads 4 elements a load
//
// Three kernels, no atomics, no host round trip:
//   segred_teams     teams of SR_TEAM work-items, one segment per team (short segments): a
//                    work-group reduces teams_per_group segments per round. Segments longer than
//                    long_len are left to the chunks: the team only writes how many chunks
//                    of `chunk` elements they take (0 for short ones).
//   (host)           clprim's exclusive scan of those counts: chunk_start[s], total at the end.
//   segred_chunks    a fixed grid of work-groups takes chunk after chunk (c = group, group + G,
//                    ...), finds its segment by binary search in chunk_start, reduces the chunk
//                    with the whole work-group, and writes one partial per chunk.
//   segred_finish    segred_teams' body again over the partials, with chunk_start as the
//                    offsets: combines each long segment's partials in order, writes its result.
// Every segment is clamped to [0, n] and begin <= end before anything is read, so malformed
// offsets never make a kernel read or write outside the ranges it was given.
#ifndef OFF
#error "segmented_reduce.cl needs OFF"
#endif
#ifndef SR_OP_CODE
#error "segmented_reduce.cl needs SR_OP_CODE"
#endif
#ifndef SR_TEAM
#error "segmented_reduce.cl needs SR_TEAM"
#endif
#ifndef SR_ORDERED
#error "segmented_reduce.cl needs SR_ORDERED"
#endif

#if SR_OP_CODE == 0
#if T_IS_FLOAT
#define SR_R T
#else
#define SR_R T_UNSIGNED // integer sums wrap (no signed overflow)
#endif
#define SR_OP(a, b) ((a) + (b))
#define SR_ID ((SR_R)0)
#elif SR_OP_CODE == 1
#define SR_R T
#if T_IS_FLOAT
#define SR_OP(a, b) fmin(a, b)
#else
#define SR_OP(a, b) min(a, b)
#endif
#define SR_ID ((SR_R)T_MAXVAL)
#elif SR_OP_CODE == 2
#define SR_R T
#if T_IS_FLOAT
#define SR_OP(a, b) fmax(a, b)
#else
#define SR_OP(a, b) max(a, b)
#endif
#define SR_ID ((SR_R)T_MINVAL)
#else
#define SR_R T
#define SR_OP(a, b) CLPRIM_OP(a, b)
#define SR_ID ((SR_R)CLPRIM_IDENTITY)
#endif

// Segment s of `offsets` clamped to [0, n] with begin <= end.
#define SR_SEGMENT(offsets, off_off, s, n, b, e)                                                   \
    do {                                                                                           \
        ulong b_ = (ulong)(offsets)[(off_off) + (s)];                                              \
        ulong e_ = (ulong)(offsets)[(off_off) + (s) + 1];                                          \
        b = min(b_, (ulong)(n));                                                                   \
        e = clamp(e_, b, (ulong)(n));                                                              \
    } while (0)

// The four elements of vector x into the four accumulators acc, a1, a2, a3.
#define SR_ADD4(x)                                                                                 \
    do {                                                                                           \
        acc = SR_OP(acc, (SR_R)(x).s0);                                                            \
        a1 = SR_OP(a1, (SR_R)(x).s1);                                                              \
        a2 = SR_OP(a2, (SR_R)(x).s2);                                                              \
        a3 = SR_OP(a3, (SR_R)(x).s3);                                                              \
    } while (0)

// Reduces [b, e) of in as work-item `lane` of `width`: strided (coalesced; vec and SR_VLOAD: 4
// elements a load) or one contiguous block per work-item (SR_ORDERED, so that blocks combine
// left to right).
inline SR_R sr_accumulate(__global const T* in, ulong b, ulong e, uint lane, uint width, uint vec)
{
    SR_R acc = SR_ID;
#if SR_ORDERED
    const ulong per = (e - b + width - 1) / width;
    const ulong lo = min(b + per * lane, e);
    const ulong hi = min(lo + per, e);
    for (ulong i = lo; i < hi; ++i) acc = SR_OP(acc, (SR_R)in[i]);
#else
    // Four loads in flight per round (commutative operators only: the partial results are
    // combined out of element order).
    SR_R a1 = SR_ID, a2 = SR_ID, a3 = SR_ID;
    ulong i = b + lane;
#ifdef SR_VLOAD
    if (vec) {
        // Scalar types: 4 consecutive elements a load (vload4 needs only the element's alignment),
        // two loads in flight, work-items on consecutive groups of 4; the last len % 4 one by one.
        const ulong q = (e - b) / 4;
        __global const T* p = in + b;
        ulong v = lane;
        for (; v + width < q; v += 2 * (ulong)width) {
            const CLPRIM_CAT(T, 4) x = vload4(v, p), y = vload4(v + width, p);
            SR_ADD4(x);
            SR_ADD4(y);
        }
        if (v < q) {
            const CLPRIM_CAT(T, 4) x = vload4(v, p);
            SR_ADD4(x);
        }
        i = b + 4 * q + lane;
    } else
#endif
    {
        for (; i + 3 * (ulong)width < e; i += 4 * (ulong)width) {
            acc = SR_OP(acc, (SR_R)in[i]);
            a1 = SR_OP(a1, (SR_R)in[i + width]);
            a2 = SR_OP(a2, (SR_R)in[i + 2 * width]);
            a3 = SR_OP(a3, (SR_R)in[i + 3 * width]);
        }
    }
    for (; i < e; i += width) acc = SR_OP(acc, (SR_R)in[i]);
    acc = SR_OP(SR_OP(acc, a1), SR_OP(a2, a3));
#endif
    return acc;
}

// Combines scratch[base .. base + width) in place, left to right (pairs of neighbours, so the
// order of the blocks is kept); the result lands in scratch[base]. Every work-item of the group
// calls it (the barriers), width dividing the group.
inline void sr_tree(__local SR_R* scratch, uint lid, uint lane, uint width)
{
    for (uint st = 1; st < width; st <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if ((lane & (2 * st - 1)) == 0) scratch[lid] = SR_OP(scratch[lid], scratch[lid + st]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The team kernel's body: group g owns segments [g * per_group, (g + 1) * per_group) and takes
// them teams_per_group at a time (a round: the same number of rounds for every work-item, so the
// barriers are uniform). finish = 0: the main pass (segments up to long_len; chunk counts of the
// longer ones); finish = 1: only segments with elements are written (the long ones' partials).
#define SR_TEAMS_BODY(OFFT)                                                                        \
    const uint lid = get_local_id(0);                                                              \
    const uint lane = lid % SR_TEAM;                                                               \
    const uint team = lid / SR_TEAM;                                                               \
    const uint teams = get_local_size(0) / SR_TEAM;                                                \
    const ulong first_seg = (ulong)get_group_id(0) * per_group;                                    \
    const ulong last_seg = min(first_seg + per_group, num_segments);                               \
    for (ulong base = first_seg; base < last_seg; base += teams) {                                 \
        const ulong s = base + team;                                                               \
        const bool active = s < last_seg;                                                          \
        ulong b = 0, e = 0;                                                                        \
        if (active) SR_SEGMENT(offsets, off_off, s, n, b, e);                                      \
        const ulong len = e - b;                                                                   \
        const bool mine = active && (finish ? len > 0 : len <= long_len);                          \
        scratch[lid] = mine ? sr_accumulate(in + in_off, b, e, lane, SR_TEAM, 0) : SR_ID;             \
        sr_tree(scratch, lid, lane, SR_TEAM);                                                      \
        if (lane == 0 && mine) out[out_off + s] = (T)scratch[lid];                                 \
        if (!finish && lane == 0 && active) chunk_counts[s] = len > long_len ? (len + chunk - 1) / chunk : 0; \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    }                                                                                              \
    if (!finish && get_global_id(0) == 0) chunk_counts[num_segments] = 0;

// One team of SR_TEAM work-items per short segment; long ones counted in chunks.
__kernel void segred_teams(__global const T* in, ulong in_off, ulong n, __global const OFF* offsets, ulong off_off,
                           ulong num_segments, __global T* out, ulong out_off, ulong per_group, ulong long_len,
                           ulong chunk, __global ulong* chunk_counts, __local SR_R* scratch)
{
    const uint finish = 0;
    SR_TEAMS_BODY(OFF)
}

// The long segments' partials combined in order (chunk_start, the scanned counts, as offsets).
__kernel void segred_finish(__global const T* in, ulong in_off, ulong n, __global const ulong* offsets, ulong off_off,
                            ulong num_segments, __global T* out, ulong out_off, ulong per_group,
                            __local SR_R* scratch)
{
    const uint finish = 1;
    const ulong long_len = 0, chunk = 1;
    __global ulong* chunk_counts = 0;
    SR_TEAMS_BODY(ulong)
}

// Several work-groups per long segment: chunk c of the long segments, by the whole work-group.
// partials has room for max_chunks; chunks beyond (only malformed offsets make that many) are
// not reduced.
__kernel void segred_chunks(__global const T* in, ulong in_off, ulong n, __global const OFF* offsets, ulong off_off,
                            ulong num_segments, __global const ulong* chunk_start, ulong chunk,
                            __global T* partials, ulong max_chunks, __local SR_R* scratch)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const ulong total = min(chunk_start[num_segments], max_chunks);
    for (ulong c = get_group_id(0); c < total; c += get_num_groups(0)) {
        // The segment s with chunk_start[s] <= c < chunk_start[s + 1] (counts are >= 0, so the
        // scanned starts never decrease).
        ulong lo = 0, hi = num_segments; // invariant: chunk_start[lo] <= c < chunk_start[hi]
        while (hi - lo > 1) {
            const ulong mid = lo + (hi - lo) / 2;
            if (chunk_start[mid] <= c) lo = mid;
            else hi = mid;
        }
        ulong b, e;
        SR_SEGMENT(offsets, off_off, lo, n, b, e);
        const ulong cb = min(b + (c - chunk_start[lo]) * chunk, e);
        const ulong ce = min(cb + chunk, e);
        scratch[lid] = sr_accumulate(in + in_off, cb, ce, lid, wg, 1);
        sr_tree(scratch, lid, lid, wg);
        if (lid == 0) partials[c] = (T)scratch[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
