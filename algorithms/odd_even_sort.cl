// Odd-even transposition sort: n phases of neighbour compare-exchange, even pairs (0,1), (2,3), ...
// then odd pairs (1,2), (3,4), ..., alternating; after n phases any input is sorted. O(n^2) work:
// for teaching and small inputs. Joined after sort_key_order.cl; needs K, V macros and
// SORT_HAS_VALUES when values travel with the keys. Keys compare by key_to_sortable (total order
// for floats, descending by inverted bits).

#define SK K_UNSIGNED

// The whole range in one work-group's local memory: all n phases in one launch, a barrier after
// each (work-items share neighbours across phases).
__kernel void odd_even_local(__global K* keys, ulong koff, __global V* vals, ulong voff, uint n,
                             __local SK* lk, __local V* lv)
{
    (void)vals; (void)lv; (void)voff;
    keys += koff;
#ifdef SORT_HAS_VALUES
    vals += voff;
#endif
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    for (uint i = lid; i < n; i += wg) {
        lk[i] = key_to_sortable(keys[i]);
#ifdef SORT_HAS_VALUES
        lv[i] = vals[i];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint phase = 0; phase < n; ++phase) {
        for (uint i = 2 * lid + (phase & 1); i + 1 < n; i += 2 * wg) {
            const SK a = lk[i], b = lk[i + 1];
            if (a > b) {
                lk[i] = b;
                lk[i + 1] = a;
#ifdef SORT_HAS_VALUES
                const V t = lv[i]; lv[i] = lv[i + 1]; lv[i + 1] = t;
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = lid; i < n; i += wg) {
        keys[i] = sortable_to_key(lk[i]);
#ifdef SORT_HAS_VALUES
        vals[i] = lv[i];
#endif
    }
}

// One phase over global memory (ranges too large for local memory): work-item t owns the pair
// (2t + parity, 2t + parity + 1). Pairs are disjoint, so phases need only the launch boundary.
__kernel void odd_even_global(__global K* keys, ulong koff, __global V* vals, ulong voff, ulong n, uint parity)
{
    (void)vals; (void)voff;
    keys += koff;
#ifdef SORT_HAS_VALUES
    vals += voff;
#endif
    const ulong i = 2 * (ulong)get_global_id(0) + parity;
    if (i + 1 >= n) return;
    const K a = keys[i], b = keys[i + 1];
    if (key_before(b, a)) {
        keys[i] = b;
        keys[i + 1] = a;
#ifdef SORT_HAS_VALUES
        const V t = vals[i]; vals[i] = vals[i + 1]; vals[i + 1] = t;
#endif
    }
}
