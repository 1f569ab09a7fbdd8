// lower_bound / upper_bound's tree path (issue #30): many unsorted queries over a long sorted
// range, answered in query order (coalesced reads of the queries and writes of the answers)
// through a small static B+tree built over the range for the call. Joined after
// sort_key_order.cl and search.cl (goes_before, search_local); needs K (key type macros), INDEX,
// SEARCH_NODE_SHIFT (log2 of the keys per node; a node is 16, 32 or 64 bytes: 1, 2 or 4 uint4
// words) and SEARCH_TREE_LANES (queries per work-item going down together: 1, 2 or 4).
//
// Why: a plain binary search reads one scattered 32-byte sector per level, and below the levels
// that the caches hold every one is a trip to memory (the cached path: about five of them per
// query at 2^26 keys). Here the range's blocks of F = 2^SEARCH_NODE_SHIFT keys are the leaves,
// and level k (k >= 1) holds, for every F^k keys, the last of them: its entry j is
// a[min((j + 1) * F^k - 1, n - 1)], so level k is also every F-th entry of level k - 1. A query
// counts how many entries of the top level (in local memory) go before it, then at each level
// below how many keys of ONE node (F keys, read with vector loads: a sector or two) go before it.
// The levels above the leaves are n / (F - 1) keys in all (a seventh of the range or less), the
// upper ones small enough to stay in the GPU's L2 cache, so a query makes one or two scattered
// reads of memory (its leaf block, its level-1 node) instead of five.
//
// Descent: j = how many level-k entries go before v. Entry j is the last of its node at level
// k - 1 (or the range's last key), so the answer at level k - 1 lies in node j: its F entries
// [jF, jF + F), of which the ones going before v are a prefix (the level is sorted), fewer than
// F (the node's last real entry, entry j above, does not go before v). So j' = jF + that count.
// Each level is padded to whole nodes with the range's last key (entries past the end are that
// key by the formula), which never goes before a v whose node it sits in.
#ifndef K
#error "search_tree.cl needs K"
#endif
#ifndef INDEX
#error "search_tree.cl needs INDEX"
#endif
#ifndef SEARCH_NODE_SHIFT
#error "search_tree.cl needs SEARCH_NODE_SHIFT"
#endif
#ifndef SEARCH_TREE_LANES
#error "search_tree.cl needs SEARCH_TREE_LANES"
#endif

#define TREE_F (1u << SEARCH_NODE_SHIFT)
#define TREE_WORDS ((TREE_F * sizeof(K) + 15) / 16) // uint4 words per node

// Entries of level k >= 1 (m_k = ceil(n / F^k), n >= 1) and its length padded to whole nodes.
inline ulong tree_level_count(ulong n, uint k)
{
    const uint sh = k * SEARCH_NODE_SHIFT;
    return sh >= 64 ? 1 : ((n - 1) >> sh) + 1;
}
inline ulong tree_level_padded(ulong n, uint k) { return ((tree_level_count(n, k) + TREE_F - 1) >> SEARCH_NODE_SHIFT) << SEARCH_NODE_SHIFT; }

// Builds levels 1..levels, stored one after the other from level 1, each padded to whole nodes:
// every entry is one strided read of the range (all levels in one launch).
__kernel void search_tree_build(__global const K* a, ulong a_off, ulong n, uint levels, ulong total,
                                __global K_UNSIGNED* tree)
{
    a += a_off;
    for (ulong i = get_global_id(0); i < total; i += get_global_size(0)) {
        ulong j = i;
        uint k = 1;
        for (ulong len = tree_level_padded(n, 1); j >= len && k < levels; len = tree_level_padded(n, k)) {
            j -= len;
            ++k;
        }
        const ulong pos = min(((j + 1) << (k * SEARCH_NODE_SHIFT)) - 1, n - 1);
        tree[i] = key_to_ordered(a[pos]);
    }
}

// How many of a node's F ordered keys go before v (a prefix of them). The node is whole and
// 16-byte aligned: read as uint4 words, all in flight at once.
inline uint tree_node_count(__global const uint4* node, K_UNSIGNED v, uint upper)
{
    union {
        uint4 w[TREE_WORDS];
        K_UNSIGNED k[TREE_F];
    } u;
#pragma unroll
    for (uint w = 0; w < TREE_WORDS; ++w) u.w[w] = node[w];
    uint c = 0;
#pragma unroll
    for (uint e = 0; e < TREE_F; ++e) c += goes_before(u.k[e], v, upper) ? 1 : 0;
    return c;
}

// The same for leaf block j of the caller's range: vector loads where the block is whole and
// the range 16-byte aligned (`aligned`), else one key at a time up to n.
inline uint tree_leaf_count(__global const K* a, ulong n, ulong j, K_UNSIGNED v, uint upper, uint aligned)
{
    const ulong first = j << SEARCH_NODE_SHIFT;
    uint c = 0;
    if (aligned && first + TREE_F <= n) {
        union {
            uint4 w[TREE_WORDS];
            K k[TREE_F];
        } u;
        __global const uint4* p = (__global const uint4*)(a + first);
#pragma unroll
        for (uint w = 0; w < TREE_WORDS; ++w) u.w[w] = p[w];
#pragma unroll
        for (uint e = 0; e < TREE_F; ++e) c += goes_before(key_to_ordered(u.k[e]), v, upper) ? 1 : 0;
    } else {
        const uint len = (uint)min((ulong)TREE_F, n - first);
        for (uint e = 0; e < len; ++e) c += goes_before(key_to_ordered(a[first + e]), v, upper) ? 1 : 0;
    }
    return c;
}

// The queries (grid stride, in order): the top level (`top` entries, level `levels`, from
// top_off) is loaded into local memory once per work-group; each query searches it there, then
// descends one node per level to its leaf block. SEARCH_TREE_LANES queries per work-item go down
// together (1, 2 or 4: their node reads in flight at once, for more reads per work-item in
// flight where the device holds few work-items).
__kernel void search_tree(__global const K* a, ulong a_off, ulong n, __global const K_UNSIGNED* tree, uint levels,
                          ulong top_off, uint top, __global const K* q, ulong q_off, ulong nq, __global INDEX* out,
                          ulong out_off, uint upper, uint aligned, __local K_UNSIGNED* ls)
{
    a += a_off;
    q += q_off;
    out += out_off;
    for (uint j = get_local_id(0); j < top; j += get_local_size(0)) ls[j] = tree[top_off + j];
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong stride = get_global_size(0);
    for (ulong i0 = get_global_id(0); i0 < nq; i0 += SEARCH_TREE_LANES * stride) {
        K_UNSIGNED v[SEARCH_TREE_LANES];
        ulong j[SEARCH_TREE_LANES];
        bool past[SEARCH_TREE_LANES]; // every key goes before v: the answer is n
#pragma unroll
        for (uint l = 0; l < SEARCH_TREE_LANES; ++l) {
            v[l] = key_to_ordered(q[min(i0 + l * stride, nq - 1)]); // lanes past nq: a valid query, not stored
            const uint t = search_local(ls, top, v[l], upper);
            past[l] = t == top;
            // Such a lane still goes down, from the top's last entry by its first child at every
            // level (count 0, always a real node), and its answer is not taken from there.
            j[l] = past[l] ? top - 1 : t;
        }
        ulong off = top_off;
        for (uint k = levels - 1; k >= 1; --k) {
            off -= tree_level_padded(n, k);
#pragma unroll
            for (uint l = 0; l < SEARCH_TREE_LANES; ++l) {
                const uint c = tree_node_count((__global const uint4*)(tree + off + (j[l] << SEARCH_NODE_SHIFT)), v[l], upper);
                j[l] = (j[l] << SEARCH_NODE_SHIFT) + (past[l] ? 0 : c);
            }
        }
#pragma unroll
        for (uint l = 0; l < SEARCH_TREE_LANES; ++l) {
            const ulong i = i0 + l * stride;
            const ulong pos = past[l] ? n : (j[l] << SEARCH_NODE_SHIFT) + tree_leaf_count(a, n, j[l], v[l], upper, aligned);
            if (i < nq) out[i] = (INDEX)pos;
        }
    }
}

#undef TREE_F
#undef TREE_WORDS
