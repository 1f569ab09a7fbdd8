// Odd-even transposition sort: n phases of neighbour compare-exchange, even pairs (0,1), (2,3), ...
// then odd pairs (1,2), (3,4), ..., alternating; after n phases any input is sorted. O(n^2) work:
// for teaching and small inputs. Joined after sort_key_order.cl; needs K, V macros and
// SORT_HAS_VALUES when values travel with the keys. Keys compare by key_to_sortable (total order
// for floats, descending by inverted bits); a pair swaps only if strictly out of order, so equal
// keys never pass each other (stable, though the API does not promise it).
//
// Three kernels (the host picks, see odd_even_sort.cpp): odd_even_local runs all n phases of a
// range that fits one work-group's local memory; odd_even_tiles runs a block of phases per launch
// over tiles of a larger range (halos make the tiles independent); odd_even_global runs one phase
// over global memory (the few phases left over after the blocks).
#ifndef K_UNSIGNED
#error "odd_even_sort.cl needs K (the key type's macros)"
#endif
#ifndef V
#error "odd_even_sort.cl needs V (the value type's macros; a dummy without values)"
#endif

#define SK K_UNSIGNED

// Compare-exchange of the local neighbours l, l + 1: the smaller sortable key goes to l (strict
// comparison: equal keys never pass each other).
inline void neighbour_cmpx(__local SK* lk, __local V* lv, uint l)
{
    (void)lv;
    const SK a = lk[l], b = lk[l + 1];
    if (a > b) {
        lk[l] = b;
        lk[l + 1] = a;
#ifdef SORT_HAS_VALUES
        const V t = lv[l]; lv[l] = lv[l + 1]; lv[l + 1] = t;
#endif
    }
}

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
            neighbour_cmpx(lk, lv, i);
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

// Several phases per launch over a range larger than one work-group's local memory: temporal
// blocking with halos. Work-group g owns the positions [g*tile, g*tile + tile) (clipped to n). It
// loads the window [g*tile - phases, g*tile + tile + phases), clipped to [0, n), from src into
// local memory, runs phases phase0 .. phase0 + phases - 1 there and writes only the positions it
// owns to dst. Pairs follow the parity of the GLOBAL index (pair (i, i+1) where i has the phase's
// parity and both lie in the window), so inside the window each phase does what a global phase
// does. After one phase an element depends only on itself and its neighbours, so a wrong (stale)
// value can only enter at a window edge that is not an end of the range: the element there whose
// partner lies outside the window keeps its old value. The stale region grows by one position per
// phase from each such edge; after `phases` phases it covers at most the halo of `phases`
// positions, so the owned positions hold exactly what `phases` global phases would give. Window
// edges clipped to [0, n) are ends of the range (a global phase has no partner there either), so
// nothing goes stale at them.
// src and dst are different buffers (the host ping-pongs between the caller's range and a scratch
// buffer): other work-groups read their halos from src while this one writes dst.
__kernel void odd_even_tiles(__global const K* skeys, ulong skoff, __global const V* svals, ulong svoff,
                             __global K* dkeys, ulong dkoff, __global V* dvals, ulong dvoff, ulong n,
                             ulong phase0, uint phases, uint tile, __local SK* lk, __local V* lv)
{
    (void)svals; (void)svoff; (void)dvals; (void)dvoff; (void)lv;
    skeys += skoff;
    dkeys += dkoff;
#ifdef SORT_HAS_VALUES
    svals += svoff;
    dvals += dvoff;
#endif
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const ulong own = (ulong)get_group_id(0) * tile;        // first owned position (< n)
    const ulong own_end = min(own + tile, n);
    const ulong ws = own > phases ? own - phases : 0;       // window [ws, we)
    const ulong we = min(own_end + phases, n);
    const uint w = (uint)(we - ws);

    for (uint l = lid; l < w; l += wg) {
        lk[l] = key_to_sortable(skeys[ws + l]);
#ifdef SORT_HAS_VALUES
        lv[l] = svals[ws + l];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = 0; p < phases; ++p) {
        // First local index l with ws + l of the phase's parity.
        const uint first = (uint)((ws ^ (phase0 + p)) & 1);
        for (uint l = first + 2 * lid; l + 1 < w; l += 2 * wg) {
            neighbour_cmpx(lk, lv, l);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (ulong i = own + lid; i < own_end; i += wg) {
        dkeys[i] = sortable_to_key(lk[i - ws]);
#ifdef SORT_HAS_VALUES
        dvals[i] = lv[i - ws];
#endif
    }
}

// One phase over global memory, in place: work-item t owns the pair (2t + parity, 2t + parity + 1).
// Pairs are disjoint, so phases need only the launch boundary.
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
