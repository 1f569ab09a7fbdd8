// Vectorised binary search (lower_bound / upper_bound, issue #30): for every query v, the first
// position of the ascending-sorted range a[0, n) whose element does not go before v. An element x
// goes before v when x < v (lower_bound) or x <= v (upper_bound, `upper` set), compared in the
// library's key order (sort_key_order.cl's key_to_ordered: integers by value, floats by IEEE-754
// total order). Joined after sort_key_order.cl; needs K (key type macros) and INDEX (uint or
// ulong, the result type).
#ifndef K
#error "search.cl needs K"
#endif
#ifndef INDEX
#error "search.cl needs INDEX"
#endif

inline bool goes_before(K_UNSIGNED x, K_UNSIGNED v, uint upper) { return upper ? x <= v : x < v; }

// The first position in [lo, hi) of a whose element does not go before v (hi if all do): the
// textbook binary search, one global read per level.
inline ulong search_global(__global const K* a, ulong lo, ulong hi, K_UNSIGNED v, uint upper)
{
    while (lo < hi) {
        const ulong mid = lo + ((hi - lo) >> 1);
        if (goes_before(key_to_ordered(a[mid]), v, upper)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
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
        uint lo = 0, hi = m;
        while (lo < hi) {
            const uint mid = (lo + hi) >> 1;
            if (goes_before(ls[mid], v, upper)) lo = mid + 1;
            else hi = mid;
        }
        const ulong first = lo > 0 ? sample_pos(lo - 1, n, m) + 1 : 0;
        const ulong last = lo < m ? sample_pos(lo, n, m) : n;
        out[i] = (INDEX)search_global(a, first, last, v, upper);
    }
}
