// One merge round in one launch (issue #30): the merge sort's rounds and the public merge. Joined
// after merge_sort.cl (its key macros, LOAD_SK, SK_LESS, pair_of, RUN_B, the conversions) and
// merge_path_search.cl (merge_path_search, the work-group's split search); needs
// MERGE_ELEMS (outputs per work-item and tile step) and MERGE_PROBES (positions one search step
// probes at once, at most half the work-group).
//
// merge_stream: each work-group owns `span` consecutive outputs (several tiles of wg * E, inside
// one pair of runs) and finds for itself where they start and end in both runs: a work-group
// search on the merge path, MERGE_PROBES positions of each diagonal per step (one global round
// trip per step, about log_(P+1) of the run length steps instead of log_2 of them). No split
// kernel, no splits buffer, no second launch.
// Then it streams through its outputs a tile at a time, holding a window of the next `tile`
// keys of each run in local memory (two circular buffers: [0, tile) for the left run, [tile,
// 2 tile) for the right one). The tile's first `tile` outputs of the merge come from those two
// windows alone; each work-item finds its E outputs' start in them (co-rank in local memory)
// and merges them serially from registers. The ta keys taken from the left window and tb from
// the right (ta + tb = tile) free exactly `tile` slots: the outputs are staged into those slots
// (output i < ta in the left window's freed slots, the rest in the right one's), stored coalesced
// from there, and each freed slot is refilled at once with the key that enters its window next
// (left: run position head + tile + i, right likewise): every key is read once and written once,
// all global accesses coalesced, and local memory holds two tiles, not three.
// Values follow their keys the same way (windows of values beside the keys' windows, gathered
// by the local index each key came from).
#ifndef MERGE_ELEMS
#error "merge_stream.cl needs MERGE_ELEMS"
#endif
#ifndef MERGE_PROBES
#error "merge_stream.cl needs MERGE_PROBES"
#endif
#ifndef SK_MAX
#error "merge_stream.cl is joined after merge_sort.cl"
#endif
#ifndef MERGE_PATH_IN_FLIGHT
#error "merge_stream.cl is joined after merge_path_search.cl"
#endif

#define SE MERGE_ELEMS

// Slot of window position x (x <= T) of the circular window that starts at slot h (h < T).
inline uint window_slot(uint h, uint x, uint T)
{
    const uint s = h + x;
    return s >= T ? s - T : s;
}

// One round: runs of L pairwise into runs of 2L (MERGE_TWO_RANGES: in[0, L) with in2[0, n - L)),
// `span` outputs per work-group (a multiple of the tile that divides 2L). lmem: the key windows
// (2 tiles), then the value windows (2 tiles), aligned for V (merge_stream_local_bytes).
__kernel void merge_stream(__global const SK* in, ulong in_off, __global const V* vin, ulong vin_off,
                           __global const SK* in2, ulong in2_off, __global const V* vin2, ulong vin2_off,
                           __global SK* out, ulong out_off, __global V* vout, ulong vout_off, ulong n,
                           ulong L, uint out_convert, ulong span, __local ulong4* lmem4)
{
    __local uint flags[2 * MERGE_PROBES];
    __local ulong cuts[2];
    __local uint took;
    MERGE_ROUND_OFFSETS();
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint T = wg * SE;
    __local SK* lk = (__local SK*)lmem4;
#ifdef SORT_HAS_VALUES
    const size_t v_align = sizeof(V) > 8 ? sizeof(V) : 8;
    __local V* lv = (__local V*)((__local uchar*)lmem4 + (2 * T * sizeof(SK) + v_align - 1) / v_align * v_align);
#endif

    const ulong o0 = get_group_id(0) * span;
    const ulong o1 = min(o0 + span, n);
    MERGE_PAIR_RUNS(o0);
    __global SK* ko = out + base;
#ifdef SORT_HAS_VALUES
    __global V* vo = vout + base;
#endif
    // This work-group's piece of the left run, [a0, a1): the co-ranks of diagonals o0 and o1, searched
    // side by side (merge_path_search.cl), MERGE_PROBES probes per step each.
    ulong a0, a1;
    merge_path_search_pair(ka, la, kb, lb, o0 - base, o1 - base, MERGE_PROBES, flags, cuts, &a0, &a1);
    const ulong b0 = (o0 - base) - a0;
    // From here on everything is relative to the pieces' starts (32-bit offsets: a piece is at
    // most span keys).
    ka += a0;
    kb += b0;
#ifdef SORT_HAS_VALUES
    va += a0;
    vb += b0;
#endif
    ko += o0 - base;
#ifdef SORT_HAS_VALUES
    vo += o0 - base;
#endif
    const uint a_end = (uint)(a1 - a0), b_end = (uint)((o1 - base) - a1 - b0), d_end = (uint)(o1 - o0);
    uint ac = 0, bc = 0, d = 0; // keys taken from each piece, outputs written

    // The windows' first fill: the pieces' first T keys (as far as they go).
#pragma unroll
    for (uint r = 0; r < SE; ++r) {
        const uint l = lid + r * wg;
        if (l < a_end) {
            lk[l] = LOAD_SK(ka[l]);
#ifdef SORT_HAS_VALUES
            lv[l] = va[l];
#endif
        }
        if (l < b_end) {
            lk[T + l] = LOAD_SK(kb[l]);
#ifdef SORT_HAS_VALUES
            lv[T + l] = vb[l];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    uint ha = 0, hb = 0; // the windows' first slots
    while (d < d_end) {
        const uint tot = min(T, d_end - d);  // outputs this step
        const uint wa = min(T, a_end - ac);  // keys in the left window
        const uint wb = min(T, b_end - bc);  // and in the right one
        const uint x = lid * SE;
        SK kr[SE];
        uint ix[SE];
#ifdef SORT_HAS_VALUES
        V vr[SE];
#endif
        if (x < tot) {
            // Co-rank of diagonal x in the two windows.
            uint lo = x > wb ? x - wb : 0;
            uint hi = min(x, wa);
            while (lo < hi) {
                const uint mid = (lo + hi) >> 1;
                const SK ya = lk[window_slot(ha, mid, T)];
                const SK yb = lk[T + window_slot(hb, x - 1 - mid, T)];
                if (SK_LESS(yb, ya)) hi = mid;
                else lo = mid + 1;
            }
            uint i = lo, j = x - lo;
            const uint cnt = min((uint)SE, tot - x);
            // Serial merge: the two head keys in registers, one local read per output.
            uint sa = window_slot(ha, i, T), sb = T + window_slot(hb, j, T);
            SK ya = lk[sa], yb = lk[sb];
#pragma unroll
            for (uint e = 0; e < SE; ++e) {
                if (e < cnt) {
                    const bool take_a = j >= wb || (i < wa && !SK_LESS(yb, ya));
                    kr[e] = take_a ? ya : yb;
                    ix[e] = take_a ? sa : sb;
                    if (take_a) {
                        ++i;
                        sa = sa + 1 == T ? 0 : sa + 1;
                        ya = lk[sa];
                    } else {
                        ++j;
                        sb = sb + 1 == 2 * T ? T : sb + 1;
                        yb = lk[sb];
                    }
                }
            }
            if (x + cnt == tot) took = i; // the work-item holding the step's last output
#ifdef SORT_HAS_VALUES
#pragma unroll
            for (uint e = 0; e < SE; ++e)
                if (e < cnt) vr[e] = lv[ix[e]];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint ta = took;
        // Stage the outputs in the freed slots: output g < ta in the left window's, else the right's.
        if (x < tot) {
            const uint cnt = min((uint)SE, tot - x);
#pragma unroll
            for (uint e = 0; e < SE; ++e) {
                if (e < cnt) {
                    const uint g = x + e;
                    const uint s = g < ta ? window_slot(ha, g, T) : T + window_slot(hb, g - ta, T);
                    lk[s] = kr[e];
#ifdef SORT_HAS_VALUES
                    lv[s] = vr[e];
#endif
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // Coalesced stores from the staged slots, then each freed slot refilled with the key that
        // enters its window (the same work-item reads a slot, then writes it: no barrier between).
        // Stores first, loads after: few values live at once (registers decide how many
        // work-groups an SM holds), and the loads still go out together.
#pragma unroll
        for (uint r = 0; r < SE; ++r) {
            const uint l = lid + r * wg;
            if (l < tot) {
                const uint s = l < ta ? window_slot(ha, l, T) : T + window_slot(hb, l - ta, T);
                const SK y = lk[s];
                ko[d + l] = out_convert ? sortable_to_caller(y) : y;
#ifdef SORT_HAS_VALUES
                vo[d + l] = lv[s];
#endif
            }
        }
#pragma unroll
        for (uint r = 0; r < SE; ++r) {
            const uint l = lid + r * wg;
            if (l < tot) {
                const bool left = l < ta;
                const uint s = left ? window_slot(ha, l, T) : T + window_slot(hb, l - ta, T);
                const uint p = left ? ac + T + l : bc + T + (l - ta);
                if (left ? p < a_end : p < b_end) {
                    lk[s] = LOAD_SK(left ? ka[p] : kb[p]);
#ifdef SORT_HAS_VALUES
                    lv[s] = left ? va[p] : vb[p];
#endif
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        ac += ta;
        bc += tot - ta;
        ha = window_slot(ha, ta, T);
        hb = window_slot(hb, tot - ta, T);
        d += tot;
    }
}
#undef SE
