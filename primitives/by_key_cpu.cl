// The by-key family's CPU path (by_key_policy.hpp's chunks): one work-item per long contiguous
// chunk, each loop shaped for a CPU compiler (PoCL runs a work-group of one work-item as plain
// scalar code; LLVM vectorises the counting loops). The loops (bkc_pair, bkc_emit_range) serve
// both forms of the path: the two launches below (CLPRIM_BY_KEY_CPU=two) and by_key_cpu_single.cl's
// one launch (the default), joined after this file.
//
//   by_key_cpu_count  every chunk's pair: its head count by a branch-free loop over the keys (a
//                     comparison of neighbours, or the predicate, summed: vectorised), its value
//                     (modes with values) by a short walk back from its end to its last head.
//   by_key_cpu_emit   every chunk folds the pairs of the chunks before it, then writes its results
//                     by a branch-free compaction: element i writes its slot (the count so far)
//                     unconditionally and the count moves by the head flag, so a slot's last
//                     write is its run's last element (reduce_by_key, run_length_encode) or its
//                     head (unique), with no data-dependent branch per element. No slot another
//                     chunk writes is touched: reduce_by_key's chunk writes the runs that end in
//                     it (up to its last head; the last chunk to the end), unique's starts at its
//                     first head, partition's two streams stop where the other kind last occurs
//                     (after it every element is of one kind: a plain copy); the scans by key
//                     write every element's result. Where the results do not all fit an output
//                     (one test on the total, the same in every chunk) every chunk takes
//                     by_key.cl's guarded epilogue (bk_emit_global) instead.
//
// Required macros: those of by_key.cl, joined after it (bk_head, bk_value, bk_combine, BK_ARGS,
// bk_emit_global, BK_OP, BK_ID).

#ifndef BK_MODE
#error "by_key_cpu.cl needs BK_MODE (join it after by_key.cl)"
#endif
#ifndef BK_HAS_VALUES
#error "by_key_cpu.cl needs by_key.cl joined before it"
#endif

// Is element i (0 < i) a head: its key's bits differ from the one before (partition: the predicate).
#if BK_MODE == 5
#define BKC_HEAD(keys, i) (CLPRIM_PRED((keys)[i]) ? 1u : 0u)
#else
#define BKC_HEAD(keys, i) (BK_KEY_BITS((keys)[i]) != BK_KEY_BITS((keys)[(i) - 1]) ? 1u : 0u)
#endif
#if BK_MODE == 5
#define BKC_HEAD0(keys, i) BKC_HEAD(keys, i)
#else
#define BKC_HEAD0(keys, i) ((i) == 0 ? 1u : BKC_HEAD(keys, i)) // (element 0 starts a run)
#endif

// The pair of elements [from, to): the heads in it, and (modes with values) the fold of the
// values from its last head on (from its first element where it has none). The chunks' pass,
// and the single pass's pieces (their own pair and the decoupled fallback's, bit for bit).
inline void bkc_pair(__global const K* keys, __global const V* vals, ulong from, ulong to, uint* pc, V* pv)
{
    uint c = 0;
    V v = BK_ID;
    if (from < to) {
        c = BKC_HEAD0(keys, from);
        // (64-bit indices, branch-free: vectorised; 32-bit ones, which may wrap, were not)
        for (ulong i = from + 1; i < to; ++i) c += BKC_HEAD(keys, i);
#if BK_HAS_VALUES
        ulong s = to - 1; // back to the last head (or the first element)
        while (s > from && !BKC_HEAD(keys, s)) --s;
        v = bk_value(vals, s);
        for (ulong i = s + 1; i < to; ++i) v = BK_OP(v, bk_value(vals, i));
#endif
    }
    *pc = c;
    *pv = v;
}

// Chunk g's pair (agg_c[g], agg_v[g]).
__kernel void by_key_cpu_count(BK_ARGS, ulong chunk, __global uint* agg_c, __global V* agg_v)
{
    const uint g = (uint)get_global_id(0);
    const ulong from = min(n, g * chunk), to = min(n, from + chunk);
    uint c;
    V v;
    bkc_pair(keys + keys_off, vals + vals_off, from, to, &c, &v);
    agg_c[g] = c;
    agg_v[g] = v;
}

// The compaction loops, each over restrict pointers (the results never overlap the inputs they
// are read with: no reload of a key after every store) with the key before in a register.
// s: the slot of the open run (its count less one, wrapping below 0 before the first head).
#if BK_MODE == 1 || BK_MODE == 4
inline void bkc_reduce(__global const K* restrict keys, __global const V* restrict vals, __global K* restrict out1,
                       __global V* restrict out2, ulong from, ulong end, uint* pc, V* pv)
{
    ulong s = (ulong)*pc - 1;
    V v = *pv;
    K prev = keys[from > 0 ? from - 1 : 0];
    for (ulong i = from; i < end; ++i) {
        const K k = keys[i];
        const uint h = (i == 0) | (BK_KEY_BITS(k) != BK_KEY_BITS(prev));
        const V x = bk_value(vals, i);
        v = h ? x : BK_OP(v, x);
        s += h;
        out1[s] = k;
        out2[s] = v;
        prev = k;
    }
    *pc = (uint)(s + 1);
    *pv = v;
}
#elif BK_MODE == 3
inline uint bkc_unique(__global const K* restrict keys, __global K* restrict out1, ulong from, ulong to, uint c)
{
    ulong s = (ulong)c - 1;
    K prev = keys[from > 0 ? from - 1 : 0];
    for (ulong i = from; i < to; ++i) {
        const K k = keys[i];
        s += (i == 0) | (BK_KEY_BITS(k) != BK_KEY_BITS(prev));
        out1[s] = k;
        prev = k;
    }
    return (uint)(s + 1);
}
#elif BK_MODE == 5
inline ulong bkc_partition(__global const K* restrict keys, __global K* restrict out1, __global K* restrict out2,
                           ulong from, ulong end, ulong c)
{
    for (ulong i = from; i < end; ++i) {
        const K k = keys[i];
        out1[c] = k;
        out2[i - c] = k;
        c += CLPRIM_PRED(k) ? 1u : 0u;
    }
    return c;
}
inline ulong bkc_select(__global const K* restrict keys, __global K* restrict out1, ulong from, ulong end, ulong c)
{
    for (ulong i = from; i < end; ++i) {
        const K k = keys[i];
        out1[c] = k;
        c += CLPRIM_PRED(k) ? 1u : 0u;
    }
    return c;
}
#endif

// Sixteen elements at a time where the compiler targets AVX-512 (PoCL on such CPUs; 4-byte keys;
// unique, partition, reduce_by_key's and run_length_encode's sum of 4-byte integer values;
// partition: the predicate's flags as the mask, see bkc_partition16): the head flags by one
// vector comparison with the keys one before, the runs' ends by one with the keys one after,
// and the results stored by compressing the lanes of a mask (vpcompressd) and a masked store of
// as many lanes, so the stores are exactly the final ones of the scalar loops above. The sums
// need no segmented scan: with S the running sum of the values (wrapping, in 32 bits: exact for
// integers), a run's sum is S at its end less S at the previous run's end, so the ends' S,
// compressed, less the same shifted by one lane (the last end's S carried between blocks), are
// the runs' sums (run_length_encode: S is the position, the lengths are differences of ends).
// OpenCL C has no compressing store: clang's builtins are called, on the address as a flat
// pointer (PoCL's CPU devices have one address space). Without AVX-512, or with -DBKC_SCALAR=1
// (tests), the scalar loops do all. (Integer sums only: a float sum would round differently.)
#if defined(__AVX512F__) && defined(__AVX512DQ__) && !BKC_SCALAR && K_BITS == 32 &&                                  \
    (BK_MODE == 3 || BK_MODE == 5 || ((BK_MODE == 1 || BK_MODE == 4) && V_BITS == 32 && !V_IS_FLOAT && !defined(CLPRIM_OP)))
#define BKC_VECTOR 1
#define BKC_K16 CLPRIM_CAT(K, 16)
typedef int bkc_int16 __attribute__((ext_vector_type(16)));
// The lanes' flags (-1 / 0) as the bits of a mask; x's lanes of mask m packed and stored at p.
#define bkc_mask16(f) ((uint)__builtin_ia32_cvtd2mask512(f))
#define BKC_COMPRESS(p, x, m)                                                                     \
    __builtin_ia32_storedqusi512_mask((bkc_int16*)(ulong)(p),                                    \
                                      __builtin_ia32_compresssi512_mask(as_int16(x), (int16)(0), (ushort)(m)), \
                                      (ushort)((1u << popcount(m)) - 1u))
#define BKC_BITS16(p) as_uint16(vload16(0, p))
// shuffle2(a, b, ...) masks: (a's lane 15, b's lanes 0 .. 14), (a's lanes 1 .. 15, b's lane 0)
#define BKC_BEFORE (uint16)(15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)
#define BKC_AFTER (uint16)(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
// x's lanes moved up by k (lane j takes lane j - k), zeros shifted in: valignd of (x, zero)
#define BKC_UP(x, k) as_uint16(__builtin_ia32_alignd512(as_int16(x), (int16)(0), 16 - (k)))

#if BK_MODE == 3
// unique from element i >= 1; *ps: the last slot written.
inline ulong bkc_unique16(__global const K* restrict keys, __global K* restrict out1, ulong i, ulong to, ulong* ps)
{
    ulong s = *ps;
    uint16 last = (uint16)(BK_KEY_BITS(keys[i - 1])); // the block before (lane 15 used)
    for (; i + 16 <= to; i += 16) {
        const BKC_K16 k = vload16(0, keys + i);
        const uint16 kb = as_uint16(k);
        // (the keys one before: one aligned load a block, the last block's lane shifted in)
        const uint m = bkc_mask16(kb != shuffle2(last, kb, BKC_BEFORE));
        BKC_COMPRESS(out1 + s + 1, k, m);
        s += popcount(m);
        last = kb;
    }
    *ps = s;
    return i;
}
#elif BK_MODE == 5
// partition from element i while 16 remain before end: the predicate's 16 flags as a mask, the
// kept keys compressed to out1 at *pc and (two) the others to out2 at i - *pc: every store a final
// one, none outside the chunk's slots.
inline ulong bkc_partition16(__global const K* restrict keys, __global K* restrict out1, __global K* restrict out2,
                             ulong i, ulong end, ulong* pc, bool two)
{
    ulong c = *pc;
    for (; i + 16 <= end; i += 16) {
        const BKC_K16 k = vload16(0, keys + i);
        uint m = 0;
        for (uint l = 0; l < 16; ++l) m |= (CLPRIM_PRED(keys[i + l]) ? 1u : 0u) << l;
        BKC_COMPRESS(out1 + c, k, m);
        if (two) BKC_COMPRESS(out2 + (i - c), k, ~m & 0xFFFFu);
        c += popcount(m);
    }
    *pc = c;
    return i;
}
#else
// reduce_by_key / run_length_encode from element i >= 1 while element i + 16 exists; *pc, *pv:
// the count before element i and the fold of the run holding element i - 1 (in and out).
inline ulong bkc_reduce16(__global const K* restrict keys, __global const V* restrict vals, __global K* restrict out1,
                          __global V* restrict out2, ulong i, ulong end, ulong n, uint* pc, V* pv)
{
    ulong s = (ulong)*pc - 1;
    // S before element i (base) and at the last run end before it (last): their difference is
    // the open run's value, none where element i starts a run.
    const uint head_i = BK_KEY_BITS(keys[i]) != BK_KEY_BITS(keys[i - 1]);
    const uint base0 = CLPRIM_CAT(as_, V_UNSIGNED)(*pv);
    const uint last0 = head_i ? base0 : 0u;
    // (one load of keys a block: the keys one before and one after by shifting in a lane of the
    // blocks before and after; the block after must lie in the range)
    if (i + 32 > n) return i;
    const ulong i0 = i, stop = min(end, n - 16); // blocks while i + 16 <= end and i + 32 <= n
    const ulong first_slot = s + (head_i ? 1 : 0); // the slot the first end found here goes to
    uint16 basev = (uint16)(base0);
    uint16 prev = (uint16)(BK_KEY_BITS(keys[i - 1])), kb = BKC_BITS16(keys + i);
    for (; i + 16 <= stop; i += 16) {
        const uint16 next = BKC_BITS16(keys + i + 16);
        const uint mh = bkc_mask16(kb != shuffle2(prev, kb, BKC_BEFORE)),
                   me = bkc_mask16(shuffle2(kb, next, BKC_AFTER) != kb);
        // The block's own inclusive sums, then S = base + those (base in every lane: the next
        // block's is this one's lane 15, one permute, no extract).
#if BK_MODE == 4
        const uint16 own = (uint16)(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
#else
        // four shift-and-add steps, each shift one valignd with zeros (written as shuffle2 with a
        // zero vector, LLVM rebuilt the loaded vector from eight 8-byte loads and seven permutes)
        uint16 own = as_uint16(vload16(0, vals + i));
        own += BKC_UP(own, 1);
        own += BKC_UP(own, 2);
        own += BKC_UP(own, 4);
        own += BKC_UP(own, 8);
#endif
        const uint16 sum = own + basev;
        basev = as_uint16(__builtin_ia32_permvarsi512(as_int16(sum), (int16)(15)));
        const ulong at = s + (mh & 1u); // the slot of the run open at lane 0
        s += popcount(mh);
        // The runs' ends: their keys, and S at each (the run values are the differences of
        // consecutive ends' S: taken by one pass over these slots below, not here)
        BKC_COMPRESS(out1 + at, kb, me);
        BKC_COMPRESS(out2 + at, sum, me);
        prev = kb;
        kb = next;
    }
    // The slots written above hold S at their runs' ends: each becomes its S less the one before
    // (the first: less `last0`), 16 at a time.
    if (i == i0) return i; // (no block: *pc, *pv as they came)
    const bool head_at_i = i < n && BK_KEY_BITS(keys[i]) != BK_KEY_BITS(keys[i - 1]);
    const ulong last_slot = s + 1 - (head_at_i ? 0 : 1);
    // (slots first_slot .. last_slot - 1 were written: every run that ended before element i)
    uint prev_s = last0, last_s = last0;
    if (last_slot > first_slot) {
        __global uint* d = (__global uint*)out2;
        last_s = d[last_slot - 1];
        ulong j = first_slot;
        for (; j + 16 <= last_slot; j += 16) {
            const uint16 x = vload16(0, d + j);
            vstore16(x - shuffle2((uint16)(prev_s), x, BKC_BEFORE), 0, d + j);
            prev_s = x.sf;
        }
        for (; j < last_slot; ++j) {
            const uint x = d[j];
            d[j] = x - prev_s;
            prev_s = x;
        }
    }
    *pc = (uint)(s + 1);
    // the fold of the run holding element i - 1: ended there (its value, the last slot written),
    // or open (S so far less S at the last end)
    *pv = CLPRIM_CAT(as_, V)(head_at_i ? ((__global uint*)out2)[last_slot - 1] : basev.s0 - last_s);
    return i;
}
#endif
#endif

// The results of elements [from, to) (pointers already offset). c: the heads before from, v: the
// fold of the run open at from; fast: every result of [0, to) fits its output (else by_key.cl's
// guarded epilogue: it writes what fits and the count where to is n). The chunks' emit and the
// single pass's pieces. Modes 1, 3, 4 and 5 with fast: (*c_to, *v_to) is then the pair of elements
// [0, to) (the single pass publishes it without a count pass of its own; unset otherwise).
inline void bkc_emit_range(__global const K* keys, __global const V* vals, ulong n, __global K* out1, ulong cap1,
                           __global V* out2, ulong cap2, __global ulong* count_out, uint flags, V init, ulong from,
                           ulong to, uint c, V v, bool fast, uint* c_to, V* v_to)
{
    const bool last = to == n;
#if BK_MODE == 2
    // scan by key: every element writes its own result (nothing to compact).
    if (flags & BK_INCLUSIVE) {
        for (ulong i = from; i < to; ++i) {
            const uint h = BKC_HEAD0(keys, i);
            const V x = bk_value(vals, i);
            v = h ? x : BK_OP(v, x);
            out2[i] = v;
        }
    } else {
        for (ulong i = from; i < to; ++i) {
            const uint h = BKC_HEAD0(keys, i);
            const V x = bk_value(vals, i);
            out2[i] = h ? init : BK_OP(init, v);
            v = h ? x : BK_OP(v, x);
        }
    }
#else
    if (!fast) { // by_key.cl's guarded epilogue (writes the count too, where the range is the last)
        bk_emit_global(keys, vals, 0, n, out1, cap1, out2, cap2, out2, count_out, flags, init, from, to,
                       keys[from > 0 ? from - 1 : 0], c, v);
        return;
    }
#if BK_MODE == 1 || BK_MODE == 4
    // The runs that end in the chunk: up to its last head where its last run goes on into the
    // next chunk (which then writes that run), else to its end. Element i
    // writes (its key, the fold so far) at its run's slot; the run's last element writes last.
    ulong end = to;
    if (!last && !BKC_HEAD(keys, to)) { // the chunk's last run goes on into the next chunk
        end = to - 1;
        while (end > from && !BKC_HEAD0(keys, end)) --end;
        if (!BKC_HEAD0(keys, end)) end = from; // no head: the open run goes on into the next chunk
    }
    ulong i = from;
#ifdef BKC_VECTOR
    if (i == 0 && end > 0) bkc_reduce(keys, vals, out1, out2, 0, 1, &c, &v), i = 1;
    i = bkc_reduce16(keys, vals, out1, out2, i, end, n, &c, &v);
#endif
    bkc_reduce(keys, vals, out1, out2, i, end, &c, &v);
    // The pair at `to`: the last run's head at `end` (if any) and its fold up to the piece's end
    // (a run without a head here: the open run's fold goes on over the whole range).
    if (end < to) {
        const bool head = BKC_HEAD0(keys, end);
        V w = head ? bk_value(vals, end) : BK_OP(v, bk_value(vals, end));
        for (ulong j = end + 1; j < to; ++j) w = BK_OP(w, bk_value(vals, j));
        c += head ? 1 : 0;
        v = w;
    }
#elif BK_MODE == 3
    // From the chunk's first head (the elements before it continue a run of an earlier chunk).
    ulong i = from;
    while (i < to && !BKC_HEAD0(keys, i)) ++i;
#ifdef BKC_VECTOR
    if (i == 0 && to > 0) c = bkc_unique(keys, out1, 0, 1, c), i = 1;
    if (i < to) {
        ulong sl = (ulong)c - 1;
        i = bkc_unique16(keys, out1, i, to, &sl);
        c = (uint)(sl + 1);
    }
#endif
    c = bkc_unique(keys, out1, i, to, c);
#else // 5
    // Both streams branch-free up to where the rarer kind last occurs: a kept element also
    // writes the others' next slot and the other way round, each overwritten by the element that
    // owns it, which comes later in the chunk. Past that point the elements are of one kind.
    const bool two = cap2 != 0;
#ifdef BKC_VECTOR
    // (16 at a time by compressing stores, then the rest one by one, each store a final one)
    ulong cv = c;
    ulong i = bkc_partition16(keys, out1, out2, from, to, &cv, two);
    for (; i < to; ++i) {
        const K k = keys[i];
        if (CLPRIM_PRED(k)) out1[cv++] = k;
        else if (two) out2[i - cv] = k;
    }
    c = (uint)cv;
#else
    long last_kept = -1, last_other = -1;
    for (long i = (long)to - 1; i >= (long)from && (last_kept < 0 || (two && last_other < 0)); --i) {
        if (CLPRIM_PRED(keys[i])) {
            if (last_kept < 0) last_kept = i;
        } else if (last_other < 0) {
            last_other = i;
        }
    }
    const long mixed_end = two ? min(last_kept, last_other) : last_kept; // inclusive
    const ulong mix_to = mixed_end < (long)from ? from : (ulong)(mixed_end + 1);
    if (two) {
        c = (uint)bkc_partition(keys, out1, out2, from, mix_to, c);
        if (last_kept > last_other) { // the rest are kept
            for (ulong j = mix_to; j < to; ++j) out1[c + (j - mix_to)] = keys[j];
            c += (uint)(to - mix_to);
        } else {
            for (ulong j = mix_to; j < to; ++j) out2[j - c] = keys[j];
        }
    } else {
        c = (uint)bkc_select(keys, out1, from, mix_to, c);
    }
#endif
#endif
    if (last && (flags & BK_WRITE_COUNT)) *count_out = c;
    *c_to = c;
    *v_to = v;
#endif
}

// Does every result of elements [0, to) fit its output, with c_end the heads (kept) among them?
inline bool bkc_fits(ulong c_end, ulong to, ulong cap1, ulong cap2)
{
#if BK_MODE == 1 || BK_MODE == 4
    return c_end <= min(cap1, cap2);
#elif BK_MODE == 3
    return c_end <= cap1;
#else // 5: the kept fit, and the others fit or are not wanted (copy_if: no second range)
    return c_end <= cap1 && (cap2 == 0 || to - c_end <= cap2);
#endif
}

// Chunk g's results: the pairs of the chunks before it folded, then its range.
__kernel void by_key_cpu_emit(BK_ARGS, ulong chunk, __global const uint* agg_c, __global const V* agg_v)
{
    const uint g = (uint)get_global_id(0);
    const ulong from = min(n, g * chunk), to = min(n, from + chunk);
    if (from >= to) return;
    uint c = 0;
    V v = BK_ID;
    for (uint j = 0; j < g; ++j) {
        uint bc = agg_c[j];
        V bv = agg_v[j];
        bk_combine(c, v, &bc, &bv);
        c = bc;
        v = bv;
    }
    // Every result fits (one test on the total, the same in every chunk: the chunks never mix
    // the two epilogues).
    ulong total = 0;
    for (uint j = 0; j < (uint)get_global_size(0); ++j) total += agg_c[j];
    uint c_to;
    V v_to;
    bkc_emit_range(keys + keys_off, vals + vals_off, n, out1 + out1_off, cap1, out2 + out2_off, cap2,
                   count_out + count_off, flags, init, from, to, c, v, bkc_fits(total, n, cap1, cap2), &c_to, &v_to);
}

#if BK_MODE == 5
// stable_partition's copy back on the CPU path: work-item g copies outputs [g * chunk, +chunk)
// of range = (tmp[0, c), tmp[n, 2n - c)) as at most two contiguous copies (vectorised), c
// read from the device (the count partition_copy wrote).
__kernel void by_key_cpu_partition_back(__global K* range, ulong range_off, ulong n, __global const K* tmp,
                                        __global const ulong* count, ulong count_off, ulong chunk)
{
    const ulong from = min(n, get_global_id(0) * chunk), to = min(n, from + chunk);
    const ulong c = count[count_off], mid = clamp(c, from, to);
    __global K* restrict out = range + range_off;
    __global const K* restrict kept = tmp;
    __global const K* restrict others = tmp + n - c;
    for (ulong i = from; i < mid; ++i) out[i] = kept[i];
    for (ulong i = mid; i < to; ++i) out[i] = others[i];
}
#endif
