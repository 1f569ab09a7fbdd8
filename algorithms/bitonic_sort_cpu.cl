// The bitonic sort's CPU path (host side bitonic_sort_cpu.cpp). Joined after sort_key_order.cl;
// needs K and V (type macros), SORT_HAS_VALUES when values travel with the keys.
//
// The same network as bitonic_sort.cl (the "flip" form: stage k's first pass compares i with its
// mirror i ^ (k - 1), the later passes i with i ^ j, the smaller key always to the lower index, so
// indices >= n act as +inf and their comparators are skipped), shaped for a CPU: work-groups of
// ONE work-item, each walking long contiguous runs of comparators, so passes become simple loops
// over arrays that the compiler vectorizes (min / max of two streams), with no barriers.
//  - bitonic_cpu_blocks: each work-item takes whole blocks of BLOCK elements (sized to stay in
//    a core's cache) and runs, inside each block, every pass of stages k_lo .. k_hi whose
//    distance is below BLOCK: all of stages 2 .. BLOCK once at the start, then the tail of every
//    later stage.
//  - bitonic_cpu_mirror / bitonic_cpu_pass: one pass with a distance >= BLOCK over the whole
//    array, each work-item a contiguous range of the lower halves of the compared pairs.
// Keys are kept as key_to_sortable bits in the caller's range between the first launch
// (convert_in) and the last (convert_out), so every comparison is one unsigned compare.
#ifndef K_UNSIGNED
#error "bitonic_sort_cpu.cl needs K (the key type's macros)"
#endif
#ifndef V
#error "bitonic_sort_cpu.cl needs V (the value type's macros; a dummy without values)"
#endif

#define SK K_UNSIGNED

// Compare-exchange of x[a] and x[b] (a < b): the smaller sortable key to a, values with their
// keys; equal keys stay (the comparison is strict). Written as selects: no branch to mispredict,
// and loops of it vectorize.
inline void cpu_cx(__global SK* restrict x, __global V* restrict v, ulong a, ulong b)
{
    (void)v;
    const SK ka = x[a], kb = x[b];
    const bool swap = ka > kb;
    x[a] = swap ? kb : ka;
    x[b] = swap ? ka : kb;
#ifdef SORT_HAS_VALUES
    const V va = v[a], vb = v[b];
    v[a] = swap ? vb : va;
    v[b] = swap ? va : vb;
#endif
}

// Converts the keys of [b, e) in place between the caller's form and sortable bits.
inline void cpu_convert(__global SK* x, ulong b, ulong e, const bool to_sortable)
{
    for (ulong i = b; i < e; ++i) x[i] = to_sortable ? key_to_sortable(K_AS_KEY(x[i])) : K_AS_UNSIGNED(sortable_to_key(x[i]));
}

// Work-item g: blocks [g * per, (g + 1) * per) of BLOCK elements (x and v are the caller's range).
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void bitonic_cpu_blocks(__global SK* keys, ulong koff, __global V* vals, ulong voff, ulong n, ulong block,
                        ulong per, ulong k_lo, ulong k_hi, uint convert_in, uint convert_out)
{
    (void)vals; (void)voff;
    __global SK* restrict x0 = keys + koff;
    __global V* restrict v0 = vals + voff;
    const ulong g = get_global_id(0);
    const ulong first = g * per * block;
    const ulong last = min(n, first + per * block);
    for (ulong s = first; s < last; s += block) {
        __global SK* restrict x = x0 + s;
        __global V* restrict v = v0 + s;
        const ulong m = min(block, n - s); // elements of this block below n
        if (convert_in) cpu_convert(x, 0, m, true);
        for (ulong k = k_lo; k <= k_hi; k <<= 1) {
            ulong j = k / 2;
            if (k <= block) {
                // The mirror pass inside sub-blocks of k: t <-> base + k - 1 - (t - base).
                for (ulong base = 0; base < m; base += k) {
                    const ulong top = base + k - 1;
                    // Partners top - (t - base) < m: t from base + (top + 1 - m) when top >= m.
                    const ulong t0 = top < m ? base : base + (top + 1 - m);
                    for (ulong t = t0; t < base + j; ++t) cpu_cx(x, v, t, top - (t - base));
                }
                j /= 2;
            } else {
                j = block / 2; // the passes with distances >= block ran over the whole array
            }
            for (; j >= 1; j >>= 1)
                for (ulong base = 0; base + j < m; base += 2 * j) {
                    const ulong end = min(base + j, m - j); // t + j < m
                    for (ulong t = base; t < end; ++t) cpu_cx(x, v, t, t + j);
                }
        }
        if (convert_out) cpu_convert(x, 0, m, false);
    }
}

// The mirror pass of stage k over the whole array: in each block of k, t <-> base + k - 1 - t.
// Work-item g takes lower-half positions [g * per, (g + 1) * per) of the N / 2 in all blocks.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void bitonic_cpu_mirror(__global SK* keys, ulong koff, __global V* vals, ulong voff, ulong n, ulong k,
                        ulong half_total, ulong per)
{
    (void)vals; (void)voff;
    __global SK* restrict x = keys + koff;
    __global V* restrict v = vals + voff;
    const ulong h = k / 2;
    const ulong q0 = get_global_id(0) * per, q1 = min(half_total, q0 + per);
    for (ulong q = q0; q < q1;) {
        const ulong base = q / h * k, off = q % h;
        const ulong run = min(q1 - q, h - off); // positions of this block in our range
        // Partners p = base + k - 1 - (off + r) < n: r from (base + k - n) - off when base + k > n.
        const ulong skip = base + k <= n ? 0 : (base + k - n > off ? base + k - n - off : 0);
        for (ulong r = skip; r < run; ++r) cpu_cx(x, v, base + off + r, base + k - 1 - (off + r));
        q += run;
    }
}

// A pass with distance j of a later stage: in each pair of runs of j, t <-> t + j.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void bitonic_cpu_pass(__global SK* keys, ulong koff, __global V* vals, ulong voff, ulong n, ulong j,
                      ulong half_total, ulong per)
{
    (void)vals; (void)voff;
    __global SK* restrict x = keys + koff;
    __global V* restrict v = vals + voff;
    const ulong q0 = get_global_id(0) * per, q1 = min(half_total, q0 + per);
    for (ulong q = q0; q < q1;) {
        const ulong base = q / j * (2 * j), off = q % j;
        ulong run = min(q1 - q, j - off);
        const ulong t0 = base + off;
        // Only pairs whose upper element is below n.
        const ulong stop = t0 + j >= n ? 0 : min(run, n - j - t0);
        for (ulong r = 0; r < stop; ++r) cpu_cx(x, v, t0 + r, t0 + r + j);
        q += run;
    }
}
