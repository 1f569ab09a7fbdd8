// min_element / max_element: a reduce over (key, index) pairs, where key is the element mapped
// to an unsigned integer in the library's key order (floats by the IEEE-754 total order of their
// bits: -0.0 < +0.0, NaNs by their bits beyond the infinities) and ties go to the smaller index,
// so the result is the first smallest / largest element.
//   mm_partial: every work-group folds a grid-stride share of the range (coalesced loads; CPUs: a
//               contiguous chunk per work-item) to one
//               pair, then reduces its work-items' pairs in local memory (a tree; power-of-two
//               work-groups) and publishes it; the work-group that counts last on a global
//               counter folds the published pairs and writes the index: one launch.
// Required macros: T, T_UNSIGNED, T_BITS, T_IS_FLOAT, T_IS_SIGNED (type_options), MM_MAX (0: the
// smallest, 1: the largest), stream_block.cl joined before; optional: MM_VECTOR, MM_UNROLL, MM_BLOCK
// (loop shapes, below).

#ifndef T
#error "min_max_element.cl needs T"
#endif
#ifndef T_UNSIGNED
#error "min_max_element.cl needs T_UNSIGNED"
#endif
#ifndef MM_MAX
#error "min_max_element.cl needs MM_MAX"
#endif
#ifndef CLPRIM_STREAM_BLOCK_CL
#error "min_max_element.cl needs stream_block.cl joined before it"
#endif

#define MM_NONE ((ulong)-1) // the index of "no element yet"

// The element as an unsigned integer whose order is the key order.
inline T_UNSIGNED mm_sortable(T x)
{
    const T_UNSIGNED b = CLPRIM_CAT(as_, T_UNSIGNED)(x);
    const T_UNSIGNED sign = (T_UNSIGNED)1 << (T_BITS - 1);
#if T_IS_FLOAT
    return (b & sign) ? (T_UNSIGNED)~b : (T_UNSIGNED)(b | sign);
#elif T_IS_SIGNED
    return b ^ sign;
#else
    return b;
#endif
}

// (ka, ia) becomes the better of itself and (kb, ib): smaller (larger) key, then smaller index.
inline void mm_take(T_UNSIGNED* ka, ulong* ia, T_UNSIGNED kb, ulong ib)
{
    if (ib == MM_NONE) return;
#if MM_MAX
    const bool better = *ia == MM_NONE || kb > *ka || (kb == *ka && ib < *ia);
#else
    const bool better = *ia == MM_NONE || kb < *ka || (kb == *ka && ib < *ia);
#endif
    if (better) {
        *ka = kb;
        *ia = ib;
    }
}

// The pair of the whole work-group, in work-item 0 (tree over local memory; barriers each level).
inline void mm_group(T_UNSIGNED* k, ulong* i, __local T_UNSIGNED* lk, __local ulong* li)
{
    const uint lid = (uint)get_local_id(0);
    lk[lid] = *k;
    li[lid] = *i;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = (uint)get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) {
            mm_take(k, i, lk[lid + s], li[lid + s]);
            lk[lid] = *k;
            li[lid] = *i;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// (ka, ia) takes (kb, ib) when kb is strictly better: a work-item visits its elements in
// increasing index order, so on a tie the earlier one it holds is already the first.
inline void mm_take_later(T_UNSIGNED* ka, ulong* ia, T_UNSIGNED kb, ulong ib)
{
#if MM_MAX
    const bool better = *ia == MM_NONE || kb > *ka;
#else
    const bool better = *ia == MM_NONE || kb < *ka;
#endif
    *ka = better ? kb : *ka;
    *ia = better ? ib : *ia;
}

#ifndef MM_UNROLL
#define MM_UNROLL 8 // independent loads in flight per work-item and round (grid stride)
#endif
// 16-byte loads in flight per work-item and round for 4-byte elements at an aligned start (grid
// stride); 0: none, every type loads one element at a time (CLPRIM_MIN_MAX_OPTIONS).
#ifndef MM_VECTOR
#define MM_VECTOR 4
#endif
#ifndef MM_BLOCK
#define MM_BLOCK 2048 // CPUs: elements per block of the chunked loop (one scan of the best block at the end)
#endif

// chunk == 0: work-items stride over the range (coalesced on GPUs), MM_UNROLL loads issued
// together before any is compared (a memory-bound reduction needs many reads in flight, not one
// read then a dependent compare); chunk > 0: work-item g takes the contiguous elements
// [g * chunk, (g + 1) * chunk) (CPUs: one cache line after another). With one work-group
// (small ranges) it writes the index itself (result). Otherwise each work-group publishes its
// pair (pk, pi: volatile stores, then a device-scope fence) and counts itself on *counter (0 at launch); the
// one that counts last knows every pair is published, sets the counter back to 0 for the next
// launch, folds the pairs (volatile loads: no stale cached line) and writes the index.
//
// state (one buffer the host keeps per queue): word 0 the counter (its first 4 bytes), word 1 the
// index, words 2 .. 2 + cap the partial indices, then cap partial keys (cap >= the work-groups).
__kernel void mm_partial(__global const T* in, ulong off, ulong n, ulong chunk, __global ulong* state, ulong cap,
                         __local T_UNSIGNED* lk, __local ulong* li)
{
    __local uint is_last;
    __global volatile uint* const counter = (__global volatile uint*)state;
    __global ulong* const result = state + 1;
    __global volatile ulong* const pi = state + 2;
    __global volatile T_UNSIGNED* const pk = (__global volatile T_UNSIGNED*)(state + 2 + cap);
    T_UNSIGNED k = 0;
    ulong idx = MM_NONE;
    const ulong g = get_global_id(0);
    const uint lid = (uint)get_local_id(0);
    in += off;
    bool done = false;
#if T_BITS == 32 && MM_VECTOR
    // 4-byte elements at a 16-byte aligned start (uniform: the same in every work-item): 16-byte
    // loads, four elements each, MM_VECTOR of them in flight (stream_block.cl); each work-item
    // still visits its elements in increasing index order (vector after vector, component after
    // component), then one of the at most three elements past the last whole vector.
    if (chunk == 0 && (((ulong)in) & 15) == 0) {
        __global const CLPRIM_CAT(T, 4)* in4 = (__global const CLPRIM_CAT(T, 4)*)in;
        const ulong n4 = n / 4;
#define MM_STEP(x, i)                                                                              \
    do {                                                                                           \
        const ulong at_ = 4 * (i);                                                                 \
        mm_take_later(&k, &idx, mm_sortable((x).s0), at_);                                         \
        mm_take_later(&k, &idx, mm_sortable((x).s1), at_ + 1);                                     \
        mm_take_later(&k, &idx, mm_sortable((x).s2), at_ + 2);                                     \
        mm_take_later(&k, &idx, mm_sortable((x).s3), at_ + 3);                                     \
    } while (0)
        CLPRIM_STREAM(CLPRIM_CAT(T, 4), in4, g, n4, get_global_size(0), MM_VECTOR, MM_STEP);
#undef MM_STEP
        if (4 * n4 + g < n) mm_take_later(&k, &idx, mm_sortable(in[4 * n4 + g]), 4 * n4 + g);
        done = true;
    }
#endif
    if (done) {
    } else if (chunk == 0) {
        const ulong stride = get_global_size(0);
        ulong i = g;
        for (; i + (MM_UNROLL - 1) * stride < n; i += MM_UNROLL * stride) {
            T_UNSIGNED x[MM_UNROLL];
#pragma unroll
            for (uint u = 0; u < MM_UNROLL; ++u) x[u] = mm_sortable(in[i + u * stride]);
#pragma unroll
            for (uint u = 0; u < MM_UNROLL; ++u) mm_take_later(&k, &idx, x[u], i + u * stride);
        }
        for (; i < n; i += stride) mm_take_later(&k, &idx, mm_sortable(in[i]), i);
    } else {
        // CPUs (chunk > 0): a contiguous chunk in blocks of MM_BLOCK; each block's smallest
        // (largest) key by a branch-free loop the compiler vectorises, a block kept only when
        // strictly better (the first best block), then one scan of that block for the first
        // element with the key: one read of the chunk at vector speed, no per-element select.
        const ulong from = g * chunk, end = min(n, (g + 1) * chunk);
        ulong best_block = MM_NONE;
        for (ulong b = from; b < end; b += MM_BLOCK) {
            const ulong e = min(end, b + MM_BLOCK);
            T_UNSIGNED m = mm_sortable(in[b]);
            for (ulong i = b + 1; i < e; ++i) {
                const T_UNSIGNED x = mm_sortable(in[i]);
#if MM_MAX
                m = x > m ? x : m;
#else
                m = x < m ? x : m;
#endif
            }
#if MM_MAX
            if (best_block == MM_NONE || m > k) {
#else
            if (best_block == MM_NONE || m < k) {
#endif
                k = m;
                best_block = b;
            }
        }
        if (best_block != MM_NONE) {
            ulong i = best_block;
            while (mm_sortable(in[i]) != k) ++i;
            idx = i;
        }
    }
    mm_group(&k, &idx, lk, li);
    const uint groups = (uint)get_num_groups(0);
    if (lid == 0) {
        if (groups == 1) {
            *result = idx;
            is_last = 0;
        } else {
            pk[get_group_id(0)] = k;
            pi[get_group_id(0)] = idx;
            clprim_device_fence(); // the pair visible device-wide before the ticket (lib/clprim_types.cl)
            is_last = atomic_inc(counter) == groups - 1u;
            if (is_last) atomic_xchg(counter, 0u);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // (No early return: PoCL, which runs a work-group's items as loops between barriers, gave
    // wrong results with one before the barriers below.)
    if (is_last) { // the same in the whole group
        clprim_device_fence(); // every work-item: the ticket before its reads of the pairs
        k = 0;
        idx = MM_NONE;
        for (uint j = lid; j < groups; j += (uint)get_local_size(0)) mm_take(&k, &idx, pk[j], pi[j]);
        mm_group(&k, &idx, lk, li);
        if (lid == 0) *result = idx;
    }
}
