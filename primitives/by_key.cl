// The by-key and selection family in one building block: a segmented scan of (count, value)
// pairs (workgroup_segmented.cl explains the pair operator) with a fused prologue that makes the
// pairs from the input and a fused epilogue that scatters the results.
//
//   prologue: element i gets head(i) = "a run starts here" (keys: i == 0 or keys[i] differs from
//             keys[i-1] in its bits; partition: pred(keys[i])) and the pair (head(i), values[i]).
//   scan:     the exclusive scan of the pairs gives, at every element, how many heads came
//             before it and the combination of its run's values so far.
//   epilogue: per mode (BK_MODE):
//     1 reduce_by_key  at a head i > 0 the previous run is complete: out1[c-1] = keys[i-1],
//                      out2[c-1] = its value; the last element writes the last run.
//     2 scan_by_key    out2[i] = the inclusive value, or (exclusive) init at a head and
//                      OP(init, value so far) elsewhere.
//     3 unique         at a head: out1[c] = keys[i].
//     4 rle            reduce_by_key of the value 1 (V = uint): out1 = keys, out2 = run lengths.
//     5 partition      head (pred true): out1[c] = x, else out2[i - c] = x (copy_if: no out2).
//   Writes past an output's capacity are dropped (the host reports a count beyond it); the
//   total count (heads) goes to count_out when BK_WRITE_COUNT is in flags.
//
// Two device-wide forms of the scan, chosen by the host (by_key_policy.hpp):
//   by_key_lookback         one pass: tiles chained by decoupled look-back (by_key_lookback.cl).
//   by_key_cpu_count/_emit  CPU devices (by_key_cpu.cl): one work-item per long contiguous chunk;
//                           the first kernel counts every chunk's heads, the second folds the
//                           pairs of the chunks before its own and compacts its results.
//
// Required macros: K (key / element type, with K_UNSIGNED), V (value type, with V_UNSIGNED and
// V_BITS; the element type for partition, uint where unused), BK_MODE (1..5), BK_ITEMS (elements
// per work-item of a look-back tile). Optional: CLPRIM_OP(a, b) and CLPRIM_IDENTITY (the value
// operator, a generated source; the sum otherwise), CLPRIM_PRED(x) (mode 5, required there).
// Joined after workgroup_segmented.cl and lookback.cl.

#ifndef K
#error "by_key.cl needs K"
#endif
#ifndef V
#error "by_key.cl needs V"
#endif
#ifndef BK_MODE
#error "by_key.cl needs BK_MODE"
#endif
#ifndef BK_ITEMS
#error "by_key.cl needs BK_ITEMS"
#endif
#if BK_MODE == 5 && !defined(CLPRIM_PRED)
#error "by_key.cl needs CLPRIM_PRED for BK_MODE 5"
#endif

#ifdef CLPRIM_OP
#define BK_OP(a, b) CLPRIM_OP(a, b)
#define BK_ID CLPRIM_IDENTITY
#else
#define BK_OP(a, b) ((a) + (b))
#define BK_ID ((V)0)
#endif

#define BK_HAS_VALUES (BK_MODE == 1 || BK_MODE == 2 || BK_MODE == 4)
#define BK_INCLUSIVE 1u
#define BK_WRITE_COUNT 2u

WG_SEGMENTED_DEFINE_OP_PINGPONG(bk, V, BK_OP, BK_ID)

#define BK_KEY_BITS CLPRIM_CAT(as_, K_UNSIGNED)
#define BK_V_BITS CLPRIM_CAT(as_, V_UNSIGNED)
#define BK_V_FROM_BITS CLPRIM_CAT(as_, V)

// The pair operator (workgroup_segmented.cl): a earlier, b later.
inline void bk_combine(uint ac, V av, uint* bc, V* bv)
{
    *bv = *bc != 0 ? *bv : BK_OP(av, *bv);
    *bc += ac;
}

// Element i's value, at vals[j] (mode 4: 1; modes without values: the identity).
#if BK_MODE == 4
#define bk_value(vals, j) ((V)1)
#elif BK_HAS_VALUES
#define bk_value(vals, j) ((vals)[j])
#else
#define bk_value(vals, j) (BK_ID)
#endif

// Does a run start at element i, whose key is k (prev: keys[i-1], read only when i > 0)?
inline uint bk_head(ulong i, K k, K prev)
{
#if BK_MODE == 5
    return CLPRIM_PRED(k) ? 1u : 0u;
#else
    return (i == 0 || BK_KEY_BITS(k) != BK_KEY_BITS(prev)) ? 1u : 0u;
#endif
}

// The arguments every kernel shares (buffers already offset by the host's element offsets).
#define BK_ARGS                                                                                   \
    __global const K *keys, ulong keys_off, __global const V *vals, ulong vals_off, ulong n,       \
        __global K *out1, ulong out1_off, ulong cap1, __global V *out2, ulong out2_off, ulong cap2, \
        __global ulong *count_out, ulong count_off, uint flags, V init

// The per-element work, written once for elements in global memory (the chunks path) and for a
// tile staged in local memory (the look-back path): BK_DEFINE_ELEMENTS(NAME, AS, AT) defines
// bk_fold_NAME and bk_emit_NAME over keys / vals in address space AS, where element i (an index
// into the caller's range) is keys[AT(i)]. prev: the key of element from - 1 (read when from > 0).
//   bk_fold_NAME: the pair of the elements [from, to) (to <= n), starting from the pair (*c, *v).
//   bk_emit_NAME: the epilogue over [from, to); (c, v) is the pair of every element before from.
//                 Scan results go to scan_out[AT(i)] (the output range, or the staged tile).
#define BK_DEFINE_ELEMENTS(NAME, AS, AT)                                                          \
    inline void bk_fold_##NAME(AS const K* keys, AS const V* vals, ulong base, ulong from, ulong to, K prev, \
                               uint* c, V* v)                                                     \
    {                                                                                             \
        for (ulong i = from; i < to; ++i) {                                                       \
            const K k = keys[AT(i)];                                                              \
            uint hc = bk_head(i, k, prev);                                                        \
            V hv = bk_value(vals, AT(i));                                                         \
            bk_combine(*c, *v, &hc, &hv);                                                         \
            *c = hc;                                                                              \
            *v = hv;                                                                              \
            prev = k;                                                                             \
        }                                                                                         \
    }                                                                                             \
    inline void bk_emit_##NAME(AS const K* keys, AS const V* vals, ulong base, ulong n, __global K* out1, \
                               ulong cap1, __global V* out2, ulong cap2, AS V* scan_out,           \
                               __global ulong* count_out, uint flags, V init, ulong from, ulong to, K prev, \
                               uint c, V v)                                                       \
    {                                                                                             \
        for (ulong i = from; i < to; ++i) {                                                       \
            const K k = keys[AT(i)];                                                              \
            const uint h = bk_head(i, k, prev);                                                   \
            const V x = bk_value(vals, AT(i));                                                    \
            BK_EMIT_BEFORE(i);                                                                    \
            v = h ? x : BK_OP(v, x);                                                              \
            c += h;                                                                               \
            BK_EMIT_AFTER(i);                                                                     \
            if (i == n - 1 && (flags & BK_WRITE_COUNT)) *count_out = c;                           \
            prev = k;                                                                             \
        }                                                                                         \
    }

// What the epilogue writes for element i before and after its pair joins (c, v) (BK_MODE).
#if BK_MODE == 1 || BK_MODE == 4
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h && i > 0 && c - 1 < cap1) out1[c - 1] = prev;                                           \
    if (h && i > 0 && c - 1 < cap2) out2[c - 1] = v;
#define BK_EMIT_AFTER(i)                                                                          \
    if (i == n - 1 && c - 1 < cap1) out1[c - 1] = k;                                              \
    if (i == n - 1 && c - 1 < cap2) out2[c - 1] = v;
#elif BK_MODE == 2
#define BK_EMIT_BEFORE(i)                                                                         \
    if (!(flags & BK_INCLUSIVE)) scan_out[AT_(i)] = h ? init : BK_OP(init, v);
#define BK_EMIT_AFTER(i)                                                                          \
    if (flags & BK_INCLUSIVE) scan_out[AT_(i)] = v;
#elif BK_MODE == 3
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h && c < cap1) out1[c] = k;
#define BK_EMIT_AFTER(i)
#else // 5
#define BK_EMIT_BEFORE(i)                                                                         \
    if (h) {                                                                                      \
        if (c < cap1) out1[c] = k;                                                                \
    } else if (i - c < cap2) {                                                                    \
        out2[i - c] = k;                                                                          \
    }
#define BK_EMIT_AFTER(i)
#endif

// Elements in global memory (the chunks path): index i as it is.
#define BK_GLOBAL_AT(i) (i)
#define AT_ BK_GLOBAL_AT
BK_DEFINE_ELEMENTS(global, __global, BK_GLOBAL_AT)
#undef AT_

// (The CPU path's kernels, by_key_cpu_count / by_key_cpu_emit, are in by_key_cpu.cl, joined after.)

#if BK_MODE == 5
// stable_partition's copy back: range[i] = the true group (tmp[0, c)) then the false group
// (tmp[n, 2n - c)), c read from the device (the count partition_copy wrote).
__kernel void by_key_partition_back(__global K* range, ulong range_off, ulong n, __global const K* tmp,
                                    __global const ulong* count, ulong count_off)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    const ulong c = count[count_off];
    range[range_off + i] = i < c ? tmp[i] : tmp[n + i - c];
}
#endif
