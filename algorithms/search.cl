// Vectorised binary search (lower_bound / upper_bound, issue #30): for every query v, the first
// position of the ascending-sorted range a[0, n) whose element does not go before v. An element x
// goes before v when x < v (lower_bound) or x <= v (upper_bound, `upper` set), compared in the
// library's key order (sort_key_order.cl's key_to_ordered: integers by value, floats by IEEE-754
// total order). Joined after sort_key_order.cl; needs K (key type macros), INDEX (uint or ulong,
// the result type) and SEARCH_ITEMS (queries per work-item of search_sorted).
#ifndef K
#error "search.cl needs K"
#endif
#ifndef INDEX
#error "search.cl needs INDEX"
#endif
#ifndef SEARCH_ITEMS
#error "search.cl needs SEARCH_ITEMS"
#endif

inline bool goes_before(K_UNSIGNED x, K_UNSIGNED v, uint upper) { return upper ? x <= v : x < v; }

// The first position in [lo, hi) of a whose element does not go before v (hi if all do): a
// binary search without branches on the data. The interval [base, base + len) holding the answer
// loses its lower half when the element before its middle goes before v, else its upper half; len
// shrinks the same way for every query (len -= len / 2), so work-items searching intervals of one
// length run the same number of steps (no divergence on GPUs; CPU compilers vectorise the loop
// across work-items). One global read per level.
inline ulong search_global(__global const K* a, ulong lo, ulong hi, K_UNSIGNED v, uint upper)
{
    if (lo >= hi) return lo;
    ulong base = lo, len = hi - lo;
    while (len > 1) {
        const ulong step = len >> 1;
        base = goes_before(key_to_ordered(a[base + step - 1]), v, upper) ? base + step : base;
        len -= step;
    }
    return base + goes_before(key_to_ordered(a[base]), v, upper);
}

// The same over local memory (the sorted path's slice, the cached path's samples).
inline uint search_local(__local const K_UNSIGNED* a, uint len, K_UNSIGNED v, uint upper)
{
    if (len == 0) return 0;
    uint base = 0;
    while (len > 1) {
        const uint step = len >> 1;
        base = goes_before(a[base + step - 1], v, upper) ? base + step : base;
        len -= step;
    }
    return base + goes_before(a[base], v, upper);
}

// Plain path: one query per work-item, a binary search over the whole range in global memory.
__kernel void search_plain(__global const K* a, ulong a_off, ulong n, __global const K* q, ulong q_off,
                           ulong nq, __global INDEX* out, ulong out_off, uint upper)
{
    a += a_off;
    q += q_off;
    out += out_off;
    for (ulong i = get_global_id(0); i < nq; i += get_global_size(0))
        out[i] = (INDEX)search_global(a, 0, n, key_to_ordered(q[i]), upper);
}

// Sample j of m (0 <= j < m) sits at position (j + 1) * n / (m + 1): m increasing positions
// (non-decreasing when n <= m) splitting a into m + 1 nearly equal intervals.
inline ulong sample_pos(ulong j, ulong n, uint m) { return (j + 1) * n / ((ulong)m + 1); }

// Cached path, step 1: the m samples' ordered keys, contiguous (read by every work-group of step 2).
__kernel void search_samples(__global const K* a, ulong a_off, ulong n, uint m, __global K_UNSIGNED* samples)
{
    a += a_off;
    const uint j = get_global_id(0);
    if (j < m) samples[j] = key_to_ordered(a[sample_pos(j, n, m)]);
}

// Cached path, step 2: the top levels of the search tree in local memory. Every work-group loads
// the m samples once (coalesced), then each work-item answers queries (grid-stride) by a binary
// search among the samples in local memory, which leaves one interval of about n / (m + 1)
// elements, and a binary search in global memory inside it: log2(m + 1) fewer global reads per
// query, and those were the ones every query shares (the rest scatter anyway).
// Why the interval is right: j = how many samples go before v (a monotone predicate over
// positions). Sample j - 1 goes before v, so the answer is past its position; sample j does not,
// so the answer is at most its position.
__kernel void search_cached(__global const K* a, ulong a_off, ulong n, __global const K_UNSIGNED* samples, uint m,
                            __global const K* q, ulong q_off, ulong nq, __global INDEX* out, ulong out_off,
                            uint upper, __local K_UNSIGNED* ls)
{
    a += a_off;
    q += q_off;
    out += out_off;
    for (uint j = get_local_id(0); j < m; j += get_local_size(0)) ls[j] = samples[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong i = get_global_id(0); i < nq; i += get_global_size(0)) {
        const K_UNSIGNED v = key_to_ordered(q[i]);
        const uint lo = search_local(ls, m, v, upper);
        const ulong first = lo > 0 ? sample_pos(lo - 1, n, m) + 1 : 0;
        const ulong last = lo < m ? sample_pos(lo, n, m) : n;
        out[i] = (INDEX)search_global(a, first, last, v, upper);
    }
}

// Sorted path (many queries over a long range: random searches are bound by scattered reads, so
// the queries are sorted first and neighbouring searches then read the same few cache lines).
// Step 1: every query's ordered key and its position, for a radix sort of the pairs.
__kernel void search_keys(__global const K* q, ulong q_off, ulong nq, __global K_UNSIGNED* qs, __global uint* qi)
{
    q += q_off;
    const ulong i = get_global_id(0);
    if (i < nq) {
        qs[i] = key_to_ordered(q[i]);
        qi[i] = (uint)i;
    }
}

// Step 3 (after the sort): bounds[g] = the answer of sorted query min(g * tile, nq - 1) for
// g <= groups: every answer of work-group g's tile of sorted queries lies in [bounds[g],
// bounds[g + 1]] (the answer is monotone in the query). One search per work-item, all at once.
__kernel void search_partition(__global const K* a, ulong a_off, ulong n, __global const K_UNSIGNED* qs, ulong nq,
                               ulong tile, ulong groups, __global ulong* bounds, uint upper)
{
    a += a_off;
    const ulong g = get_global_id(0);
    if (g <= groups) bounds[g] = search_global(a, 0, n, qs[min(g * tile, nq - 1)], upper);
}

// Step 4: work-group g answers its tile of sorted queries (SEARCH_ITEMS per work-item, strided
// for coalesced reads). When the slice a[bounds[g], bounds[g + 1]) fits local memory (`cap`
// keys) the group loads it once, coalesced, and searches there; else each query searches that
// slice in global memory, where its neighbours' reads have just been. Answers are scattered back
// to the queries' positions.
__kernel void search_sorted(__global const K* a, ulong a_off, __global const K_UNSIGNED* qs, __global const uint* qi,
                            ulong nq, __global const ulong* bounds, __global INDEX* out, ulong out_off, uint upper,
                            __local K_UNSIGNED* la, uint cap)
{
    a += a_off;
    out += out_off;
    const ulong g = get_group_id(0);
    const ulong lo = bounds[g], hi = bounds[g + 1];
    const uint local_slice = hi - lo <= cap;
    if (local_slice)
        for (uint j = get_local_id(0); j < hi - lo; j += get_local_size(0)) la[j] = key_to_ordered(a[lo + j]);
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong first = g * get_local_size(0) * SEARCH_ITEMS + get_local_id(0);
    for (uint t = 0; t < SEARCH_ITEMS; ++t) {
        const ulong i = first + (ulong)t * get_local_size(0);
        if (i >= nq) break;
        const K_UNSIGNED v = qs[i];
        ulong pos;
        if (local_slice) {
            pos = lo + search_local(la, (uint)(hi - lo), v, upper);
        } else {
            pos = search_global(a, lo, hi, v, upper);
        }
        out[qi[i]] = (INDEX)pos;
    }
}
