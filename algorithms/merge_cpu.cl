// The CPU merges' inner loop with independent streams (merge_sort.cl's merge_seq hands long merges
// here when built with -DMERGE_CPU_STREAMS=S, S of 2 to 8): a branch-free sequential merge waits,
// at every output, for the load of the side it just advanced (index -> load -> compare -> index:
// the load's latency per element). Cutting the work-item's merge into S pieces of equal output by
// co-rank (ties to the first range, as everywhere: stable) and stepping all S in one loop gives the
// core S such chains at once. The pieces step together for as long as none of them can reach the
// end of one of its ranges, then each finishes on its own.
//
// Required: merge_sort.cl joined before (SK, V, LOAD_SK, SK_LESS, sortable_to_caller, co_rank, merge_seq_one,
// SORT_HAS_VALUES); MERGE_CPU_STREAMS (the file is empty without it).

#ifdef MERGE_CPU_STREAMS // (nothing otherwise)
#if MERGE_CPU_STREAMS < 2 || MERGE_CPU_STREAMS > 8
#error "merge_cpu.cl: MERGE_CPU_STREAMS from 2 to 8"
#endif
#define MCS MERGE_CPU_STREAMS

// One output of a piece: x, y its next keys in a and b, (a, b) its indices, off + a + b its output.
#ifdef SORT_HAS_VALUES
#define MCS_VALUE(take_b, a, b, q) vout[q] = (take_b) ? vb[b] : va[a];
#else
#define MCS_VALUE(take_b, a, b, q)
#endif
#define MCS_STEP(x, y, a, b, off)                                                                 \
    do {                                                                                          \
        const bool take_b_ = SK_LESS(y, x);                                                      \
        const SK m_ = take_b_ ? (y) : (x);                                                        \
        out[(off) + (a) + (b)] = convert ? sortable_to_caller(m_) : m_;                           \
        MCS_VALUE(take_b_, a, b, (off) + (a) + (b))                                               \
        (a) += take_b_ ? 0 : 1;                                                                   \
        (b) += take_b_ ? 1 : 0;                                                                   \
        const SK xn_ = LOAD_SK(ka[a]), yn_ = LOAD_SK(kb[b]); /* (both: a select, not a branch) */ \
        (x) = take_b_ ? (x) : xn_;                                                                \
        (y) = take_b_ ? yn_ : (y);                                                                \
    } while (0)

// AVX-512, ascending 32-bit unsigned keys alone (their sortable bits are the keys themselves, so
// equal keys are identical and stability cannot show; no comparator): the merge 16 keys at a time.
// The 16 keys still pending (hi) and the next 16 of the side whose next key is smaller form two
// sorted vectors; a bitonic merge network (one reversal, a min / max, then four half-cleaner
// stages on each half) gives the 16 smallest of the 32, which are stored, and the 16 largest, which
// stay pending. Everything stored is no larger than anything not yet loaded (the side not taken
// has its next key at least the taken side's first, and all 16 pending keys are at most that), so
// the output is the merge. Branch-free: both sides' next 16 are loaded and one selected. When a
// side has fewer than 16 left, a three-way scalar merge of the pending 16 and both rests, then
// merge_seq_one for what remains. (MCS_NO_VEC, host: CLPRIM_MERGE_CPU_VEC=0: the scalar streams.)
#if defined(__AVX512F__) && !defined(SORT_HAS_VALUES) && !defined(MERGE_COMPARATOR) && !defined(SORT_DESCENDING) && \
    K_BITS == 32 && !K_IS_SIGNED && !K_IS_FLOAT && !defined(MCS_NO_VEC)
#define MCS_VEC 1
// One half-cleaner stage at distance d: lanes i and i ^ d compared, the smaller to the lower lane.
#define MCS_STAGE(x, partner, pick)                                                               \
    do {                                                                                          \
        const uint16 y_ = shuffle((x), (partner));                                               \
        (x) = shuffle2(min((x), y_), max((x), y_), (pick));                                      \
    } while (0)
inline uint16 mcs_bitonic_sort16(uint16 x)
{
    MCS_STAGE(x, ((uint16)(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)),
              ((uint16)(0, 1, 2, 3, 4, 5, 6, 7, 24, 25, 26, 27, 28, 29, 30, 31)));
    MCS_STAGE(x, ((uint16)(4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11)),
              ((uint16)(0, 1, 2, 3, 20, 21, 22, 23, 8, 9, 10, 11, 28, 29, 30, 31)));
    MCS_STAGE(x, ((uint16)(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)),
              ((uint16)(0, 1, 18, 19, 4, 5, 22, 23, 8, 9, 26, 27, 12, 13, 30, 31)));
    MCS_STAGE(x, ((uint16)(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)),
              ((uint16)(0, 17, 2, 19, 4, 21, 6, 23, 8, 25, 10, 27, 12, 29, 14, 31)));
    return x;
}

void mcs_merge_vec(__global const SK* restrict ka, __global const V* restrict va, ulong i, ulong i1,
                   __global const SK* restrict kb, __global const V* restrict vb, ulong j, ulong j1,
                   __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert)
{
    if (i1 - i >= 16 && j1 - j >= 16) {
        uint16 hi = vload16(0, kb + j);
        j += 16;
        while (i + 16 <= i1 && j + 16 <= j1) {
            const bool take_a = ka[i] <= kb[j];
            const uint16 na = vload16(0, ka + i), nb = vload16(0, kb + j);
            const uint16 next = take_a ? na : nb;
            i += take_a ? 16 : 0;
            j += take_a ? 0 : 16;
            const uint16 r = shuffle(hi, (uint16)(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
            const uint16 lo = mcs_bitonic_sort16(min(next, r));
            hi = mcs_bitonic_sort16(max(next, r));
            vstore16(lo, 0, out + o);
            o += 16;
        }
        // The pending 16 against both rests (one of them shorter than 16) until they are out.
        SK h[16];
        vstore16(hi, 0, h);
        for (uint p = 0; p < 16;) {
            SK best = h[p];
            uint src = 0;
            if (i < i1 && ka[i] < best) best = ka[i], src = 1;
            if (j < j1 && kb[j] < best) best = kb[j], src = 2;
            out[o++] = best;
            if (src == 0) ++p;
            else if (src == 1) ++i;
            else ++j;
        }
    }
    merge_seq_one(ka, va, i, i1, kb, vb, j, j1, out, vout, o, convert);
}
#endif

// Stable merge of ka[i, i1) and kb[j, j1) into out[o, ...) (values with their keys), as merge_seq.
void merge_seq_streams(__global const SK* restrict ka, __global const V* restrict va, ulong i, ulong i1,
                       __global const SK* restrict kb, __global const V* restrict vb, ulong j, ulong j1,
                       __global SK* restrict out, __global V* restrict vout, ulong o, const bool convert)
{
    (void)va; (void)vb; (void)vout;
#ifdef MCS_VEC
    mcs_merge_vec(ka, va, i, i1, kb, vb, j, j1, out, vout, o, convert);
    return;
#endif
    const ulong la = i1 - i, lb = j1 - j, total = la + lb;
    ulong pi[MCS], pj[MCS], pie[MCS], pje[MCS], po[MCS];
    // Piece s: outputs [s * total / MCS, (s + 1) * total / MCS) of the merge.
    ulong prev_a = 0;
    for (uint s = 0; s < MCS; ++s) {
        const ulong d1 = (ulong)(s + 1) * total / MCS;
        const ulong a1 = s + 1 == MCS ? la : co_rank(ka + i, la, kb + j, lb, d1);
        const ulong d0 = (ulong)s * total / MCS;
        pi[s] = i + prev_a;
        pj[s] = j + (d0 - prev_a);
        pie[s] = i + a1;
        pje[s] = j + (d1 - a1);
        po[s] = o + d0;
        prev_a = a1;
    }
    // Batches of steps in which no piece can run to the end of a range (one key short of it, so
    // the next keys read are inside the ranges): no bounds test in the loop.
    for (;;) {
        ulong steps = (ulong)-1;
        for (uint s = 0; s < MCS; ++s) steps = min(steps, min(pie[s] - pi[s], pje[s] - pj[s]));
        if (steps <= 1) break;
        --steps;
        // (pieces 0 and 1 in named variables, the others, if any, after them: arrays indexed in
        // the loop would live in memory, and a store-to-load wait would join every chain)
        for (uint p0 = 0; p0 < MCS; p0 += 2) {
            const uint p1 = min(p0 + 1, (uint)MCS - 1);
            const bool two = p1 != p0;
            SK x0 = LOAD_SK(ka[pi[p0]]), y0 = LOAD_SK(kb[pj[p0]]);
            SK x1 = LOAD_SK(ka[pi[p1]]), y1 = LOAD_SK(kb[pj[p1]]);
            ulong a0 = pi[p0], b0 = pj[p0], a1 = pi[p1], b1 = pj[p1];
            const ulong off0 = po[p0] - a0 - b0, off1 = po[p1] - a1 - b1;
            if (two) {
                for (ulong t = 0; t < steps; ++t) {
                    MCS_STEP(x0, y0, a0, b0, off0);
                    MCS_STEP(x1, y1, a1, b1, off1);
                }
            } else {
                for (ulong t = 0; t < steps; ++t) MCS_STEP(x0, y0, a0, b0, off0);
            }
            pi[p0] = a0;
            pj[p0] = b0;
            po[p0] = off0 + a0 + b0;
            if (two) {
                pi[p1] = a1;
                pj[p1] = b1;
                po[p1] = off1 + a1 + b1;
            }
        }
    }
    // The pieces' rests, one after the other (merge_sort.cl's single loop).
    for (uint s = 0; s < MCS; ++s) merge_seq_one(ka, va, pi[s], pie[s], kb, vb, pj[s], pje[s], out, vout, po[s], convert);
}
#endif
