// clprim::segmented_reduce in ONE launch (GPU path, 32-bit elements and 64-bit ones where the
// device has 64-bit atomics): segred_single does what segred_teams + scan + segred_chunks +
// segred_finish do in four (segmented_reduce.cl, joined before this file: SR_OP, SR_ID, SR_R,
// SR_SEGMENT, sr_accumulate, sr_tree).
//
// Every work-group g has two jobs:
//   1. the short segments (length <= long_len) of its index range [g * per_group, ...), one
//      team of SR_TEAM work-items per segment (as segred_teams);
//   2. its element range [g * span, (g + 1) * span): the pieces of the long segments that lie
//      in it, each reduced by the whole work-group with vector loads. The first long segment is
//      found by a cooperative search (every work-item probes SR_PROBES of wg * SR_PROBES evenly
//      spaced segments a round: with 4 and 256 work-items, 2^20 segments take 2 rounds), the
//      others by walking forward wg segments at a time until one begins past the range.
// A long segment inside one range is written at once. One that crosses ranges g0 .. g1 leaves a
// partial per range: range g0's "tail" slot (2 * g0 + 1), the "head" slots (2 * g) of the others
// (a range has at most one segment running in from the left and one running out to the right).
// Then the work-group counts itself on the segment's arrival word (arrivals[g0]); the one that
// counts g1 - g0 + 1 knows every partial is published and combines them in order (the
// "last block" pattern of reduce.cl's reduce_fast_once: nobody waits, so no forward-progress
// promise is needed). Partials are written and read with atomics (the device's coherent level);
// a device-scope fence (clprim_device_fence: membar.gl on NVIDIA, whose mem_fence is only
// membar.cta) orders the partial before the arrival, and the arrival before the last group's reads.
//
// Arrival words need no clearing command: the host keeps two sets per queue (queue_state.hpp;
// the partials live behind them in the same buffer, so a call takes no scratch lease);
// a call counts on one set (plain atomic_inc: a segment that spans every range gets an arrival
// from every work-group, and a compare-and-swap loop there cost the H100 0.3 ms) and zeroes the
// other, which the next call uses; whatever malformed offsets leave behind is cleared that way
// too.
//
// Required macros: those of segmented_reduce.cl, T_BITS 32 or 64 (64: SR_ATOM64 defined by the
// host where cl_khr_int64_base_atomics exists); optional: SR_SOLO (see phase 1), SR_LOADS, SR_PROBES,
// SR_SEARCH_WALK (0 or 1: where the search stops, see phase 2); stream_block.cl joined before.
#ifndef SR_TEAM
#error "segmented_reduce_single.cl needs segmented_reduce.cl joined before it"
#endif

#if T_BITS == 32
#define SR_WORD uint
#define SR_PUBLISH(p, x) atomic_xchg((volatile __global uint*)(p), CLPRIM_CAT(as_, SR_WORD)(x))
#define SR_FETCH(p) CLPRIM_CAT(as_, SR_R)(atomic_add((volatile __global uint*)(p), 0u))
#elif T_BITS == 64 && defined(SR_ATOM64)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define SR_WORD ulong
#define SR_PUBLISH(p, x) atom_xchg((volatile __global ulong*)(p), CLPRIM_CAT(as_, SR_WORD)(x))
#define SR_FETCH(p) CLPRIM_CAT(as_, SR_R)(atom_add((volatile __global ulong*)(p), 0ul))
#else
#error "segmented_reduce_single.cl: 32-bit elements, or 64-bit ones with SR_ATOM64"
#endif

#define SR_WALK 4     // segments a work-item looks at per step of the walk
#define SR_MAX_WG 256 // the host launches at most this many work-items a group
#ifndef SR_LOADS
#define SR_LOADS 4 // vector loads in flight per work-item in a long piece
#endif
#ifndef CLPRIM_STREAM_BLOCK_CL
#error "segmented_reduce_single.cl needs stream_block.cl joined before it"
#endif
#ifndef SR_PROBES
#define SR_PROBES 4 // offsets a work-item probes per round of the search for a range's first segment
#endif
#ifndef SR_SOLO
#define SR_SOLO 0 // segments shorter than this are reduced by one work-item (0: every short one by a team)
#endif
#ifndef SR_SEARCH_WALK
#define SR_SEARCH_WALK 0 // 1: the search for a range's first segment stops at one walk step's candidates
#endif

// Clamped begin of segment s.
inline ulong sr_begin(__global const OFF* offsets, ulong off_off, ulong s, ulong n)
{
    return min((ulong)offsets[off_off + s], n);
}

// [b, e) of base (the buffer's start, so that index % 4 == 0 is a 16-byte boundary) as work-item
// lid of wg: commutative operators on scalar types read aligned 4-vectors, SR_LOADS loads in
// flight (stream_block.cl), the fewer than 8 elements around them one each; otherwise
// sr_accumulate's way.
inline SR_R sr_accumulate_wide(__global const T* base, ulong b, ulong e, uint lid, uint wg)
{
#ifdef SR_VLOAD
    const ulong a = min((b + 3) & ~(ulong)3, e), z = max(a, e & ~(ulong)3);
    SR_R acc = SR_ID, a1 = SR_ID, a2 = SR_ID, a3 = SR_ID;
    if (lid < a - b) acc = (SR_R)base[b + lid];
    if (lid < e - z) a1 = (SR_R)base[z + lid];
    __global const CLPRIM_CAT(T, 4)* v = (__global const CLPRIM_CAT(T, 4)*)(base + a);
    const ulong q = (z - a) / 4;
#define SR_STEP(x, i) SR_ADD4(x)
#if T_BITS == 32
    CLPRIM_STREAM(CLPRIM_CAT(T, 4), v, lid, q, wg, SR_LOADS, SR_STEP);
#else
    CLPRIM_STREAM_WITH(CLPRIM_LOAD_PLAIN, CLPRIM_CAT(T, 4), v, lid, q, wg, SR_LOADS, SR_STEP);
#endif
#undef SR_STEP
    return SR_OP(SR_OP(acc, a1), SR_OP(a2, a3));
#else
    return sr_accumulate(base, b, e, lid, wg, 1);
#endif
}

// Reduces the piece [pb, pe) of long segment s with the whole work-group and writes the result,
// or publishes it as a partial and, if this work-group arrives last, combines the segment's
// partials. Called by every work-item (barriers).
inline void sr_long_piece(__global const T* base, ulong in_off, ulong pb, ulong pe, ulong b, ulong e, ulong lo,
                          ulong hi, ulong s, ulong span, __global T* out, __global SR_R* partials,
                          volatile __global uint* arrivals, __local SR_R* scratch, __local uint* last)
{
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g = get_group_id(0);
    scratch[lid] = sr_accumulate_wide(base, in_off + pb, in_off + pe, lid, wg);
    sr_tree(scratch, lid, lid, wg);
    const bool whole = b >= lo && e <= hi;
    const ulong g0 = b / span, g1 = (e - 1) / span;
    if (lid == 0) {
        if (!whole) {
            SR_PUBLISH(partials + 2 * g + (g == g0 ? 1 : 0), scratch[0]);
            clprim_device_fence(); // the partial reaches the device before the ticket does
        }
        *last = whole || atomic_inc(arrivals + g0) + 1u == (uint)(g1 - g0 + 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (*last && !whole) { // uniform
        clprim_device_fence();
        // Partial j (0 .. m - 1): range g0's tail, then the heads of g0 + 1 .. g1; each
        // work-item one contiguous block, blocks combined left to right (order kept).
        const ulong m = g1 - g0 + 1, per = (m + wg - 1) / wg;
        const ulong j0 = min(per * lid, m), j1 = min(j0 + per, m);
        SR_R acc = SR_ID;
        for (ulong j = j0; j < j1; ++j) acc = SR_OP(acc, SR_FETCH(partials + (j == 0 ? 2 * g0 + 1 : 2 * (g0 + j))));
        scratch[lid] = acc;
        sr_tree(scratch, lid, lid, wg);
    }
    // One store for both ways (PoCL 3.1 lost the result when each way had its own store).
    if (lid == 0 && *last) out[s] = (T)scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
}

// The whole segmented reduction in one launch (see the top of this file). Launched with
// ceil(n / span) work-groups (at least 1); per_group * groups >= num_segments. partials: the
// element at partials_off of the arrival words' buffer on (2 * groups of them). (One function:
// PoCL ran this kernel 2-5 times slower with its two jobs as functions holding barriers.)
__kernel void segred_single(__global const T* in, ulong in_off, ulong n, __global const OFF* offsets, ulong off_off,
                            ulong num_segments, __global T* out, ulong out_off, ulong per_group, ulong long_len,
                            ulong span, __global SR_R* partials, ulong partials_off,
                            volatile __global uint* arrival_sets, uint set, uint set_words, __local SR_R* scratch)
{
    __local ulong list[SR_WALK * SR_MAX_WG]; // long segments found in one step of the walk
    __local uint count, stop, best, last;
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g = get_group_id(0);
    __global const T* const base = in;
    in += in_off;
    out += out_off;
    partials += partials_off;
    // This call's arrival words (set `set`); the next call's (the other set) zeroed, a share each.
    volatile __global uint* const arrivals = arrival_sets + set * set_words;
    for (uint w = (uint)get_global_id(0); w < set_words; w += (uint)get_global_size(0))
        arrival_sets[(1 - set) * set_words + w] = 0;

    // 1. Short segments of the index range.
#if SR_SOLO > 0
    // wg segments a round: every work-item reads one segment's bounds (coalesced) and reduces it
    // alone if it is shorter than SR_SOLO (empty ones just get the identity), else lists it; then
    // the teams take the listed ones, a team each. Many empty or tiny segments cost a round per
    // wg of them, not a team round (offsets, tree, barriers) per few.
    {
        const uint lane = lid % SR_TEAM, team = lid / SR_TEAM, teams = wg / SR_TEAM;
        const ulong first_seg = g * per_group, last_seg = min(first_seg + per_group, num_segments);
        for (ulong r = first_seg; r < last_seg; r += wg) { // uniform
            barrier(CLK_LOCAL_MEM_FENCE); // the last round's list is read
            if (lid == 0) count = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            const ulong s = r + lid;
            if (s < last_seg) {
                ulong b, e;
                SR_SEGMENT(offsets, off_off, s, n, b, e);
                if (e - b < SR_SOLO) {
                    SR_R a = SR_ID;
                    for (ulong i = b; i < e; ++i) a = SR_OP(a, (SR_R)in[i]);
                    out[s] = (T)a;
                } else if (e - b <= long_len) {
                    list[atomic_inc(&count)] = s;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint c = count;
            for (uint k0 = 0; k0 < c; k0 += teams) { // uniform
                const uint k = k0 + team;
                ulong b = 0, e = 0, t = 0;
                if (k < c) {
                    t = list[k];
                    SR_SEGMENT(offsets, off_off, t, n, b, e);
                }
                scratch[lid] = k < c ? sr_accumulate(in, b, e, lane, SR_TEAM, 0) : SR_ID;
                sr_tree(scratch, lid, lane, SR_TEAM);
                if (lane == 0 && k < c) out[t] = (T)scratch[lid];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
    }
#else
    // A team each (SR_SOLO 0).
    {
        const uint lane = lid % SR_TEAM, team = lid / SR_TEAM, teams = wg / SR_TEAM;
        const ulong first_seg = g * per_group, last_seg = min(first_seg + per_group, num_segments);
        // The next round's offsets are read before this round's elements (two memory latencies
        // a round would otherwise follow one another).
        ulong b = 0, e = 0;
        if (first_seg + team < last_seg) SR_SEGMENT(offsets, off_off, first_seg + team, n, b, e);
        for (ulong base = first_seg; base < last_seg; base += teams) {
            const ulong s = base + team;
            ulong nb = 0, ne = 0;
            if (s + teams < last_seg) SR_SEGMENT(offsets, off_off, s + teams, n, nb, ne);
            const bool mine = s < last_seg && e - b <= long_len;
            scratch[lid] = mine ? sr_accumulate(in, b, e, lane, SR_TEAM, 0) : SR_ID;
            sr_tree(scratch, lid, lane, SR_TEAM);
            if (lane == 0 && mine) out[s] = (T)scratch[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            b = nb;
            e = ne;
        }
    }
#endif

    // 2. Long pieces of the element range [lo, hi).
    const ulong lo = g * span;
    if (lo >= n || num_segments == 0) return; // uniform
    const ulong hi = min(lo + span, n);
    // The last segment whose begin is <= lo (segment 0 if none): in [L, H) after every round.
    // A round: wg * SR_PROBES evenly spaced probes (SR_PROBES a work-item, their loads issued
    // together); the last probe at or before lo narrows [L, H) to one step. With SR_SEARCH_WALK
    // the search stops once [L, H) holds at most one walk step's segments (wg * SR_WALK): the
    // walk below starts at L (the segments before the one sought end at or before lo, so the
    // walk passes over them), which saves the rounds that would narrow them down to one.
    const ulong stop_at = SR_SEARCH_WALK ? (ulong)wg * SR_WALK : 1;
    ulong L = 0, H = num_segments;
    while (H - L > stop_at) { // uniform: L and H are the same in every work-item
        const ulong slots = (ulong)wg * SR_PROBES;
        const ulong step = (H - L + slots - 1) / slots;
        ulong pb[SR_PROBES];
        for (uint k = 0; k < SR_PROBES; ++k) {
            const ulong slot = lid + (ulong)k * wg, p = L + slot * step;
            pb[k] = slot > 0 && p < H ? sr_begin(offsets, off_off, p, n) : n + 1; // n + 1 > lo: not taken
        }
        barrier(CLK_LOCAL_MEM_FENCE); // every work-item has read the last round's best
        if (lid == 0) best = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < SR_PROBES; ++k)
            if (pb[k] <= lo) atomic_max(&best, lid + k * wg);
        barrier(CLK_LOCAL_MEM_FENCE);
        L += (ulong)best * step;
        H = min(L + step, H);
    }
    // The walk: SR_WALK segments a work-item per step (wg * SR_WALK in all, the list's room).
    for (ulong s0 = L;; s0 += (ulong)wg * SR_WALK) {
        barrier(CLK_LOCAL_MEM_FENCE); // the list and flags of the last step are read
        if (lid == 0) {
            count = 0;
            stop = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong sb[SR_WALK], se[SR_WALK];
        for (uint k = 0; k < SR_WALK; ++k) {
            const ulong s = s0 + lid + (ulong)k * wg;
            sb[k] = n;
            se[k] = n;
            if (s < num_segments) SR_SEGMENT(offsets, off_off, s, n, sb[k], se[k]);
        }
        for (uint k = 0; k < SR_WALK; ++k) {
            const ulong s = s0 + lid + (ulong)k * wg;
            if (s >= num_segments || sb[k] >= hi) atomic_or(&stop, 1u);
            else if (se[k] - sb[k] > long_len && se[k] > lo) list[atomic_inc(&count)] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint c = count;
        for (uint k = 0; k < c; ++k) {
            const ulong s = list[k];
            ulong b, e;
            SR_SEGMENT(offsets, off_off, s, n, b, e);
            sr_long_piece(base, in_off, max(b, lo), min(e, hi), b, e, lo, hi, s, span, out, partials, arrivals, scratch,
                          &last);
        }
        if (stop) break; // uniform (read after the barrier that ended its writes)
    }
}
