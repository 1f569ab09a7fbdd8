// One-launch sort of a range that fits one work-group's local memory: the radix sort's path for
// small inputs (CUB's single-tile policy), where launch cost, not memory, is the time: the
// one-sweep path takes five launches (a histogram and four passes) for 1024 uint keys.
//
// Both kernels run a bitonic sorting network over one work-group's keys. With values, an element
// is the pair (sortable key, original index): the index breaks ties, so equal keys keep their
// input order (stable, as the radix sort promises) although a bitonic network by itself is not
// stable, and the values are gathered by index at the end. Keys alone need no index: keys that
// tie are equal bit for bit. The range is padded to the power of two P with all-ones keys (and
// indices >= n) that sort after every real key (or tie with it, bit for bit).
//   sort_small            (network)   every compare-exchange step in local memory, one barrier
//                                     per step: log2(P) (log2(P) + 1) / 2 barriers.
//   sort_small_registers  (registers) each work-item holds SMALL_E elements in registers; a step
//                                     whose distance lies inside them is a register
//                                     compare-exchange; local memory only re-deals the elements
//                                     between work-items (a "remap") when the next distances lie
//                                     elsewhere: a few remaps per merge stage, not one per step.
//
// Required macros: K... and V... (sort_key_order.cl's key type, the values' type, SORT_HAS_VALUES),
// SMALL_P (the padded size, a power of two), SMALL_WG (work-group size, a power of two <= SMALL_P);
// sort_small_registers also SMALL_E (elements per work-item, SMALL_P / SMALL_WG), SMALL_LOG_E and
// SMALL_LOG_P, SMALL_BUFFERS (1 or 2: local copies the remaps alternate between; 2 saves a
// barrier per remap). Needs sort_key_order.cl joined before it.
#ifndef SMALL_P
#error "sort_small.cl needs SMALL_P (the padded size, a power of two)"
#endif
#ifndef SMALL_WG
#error "sort_small.cl needs SMALL_WG (the work-group size)"
#endif
#ifndef K_UNSIGNED
#error "sort_small.cl needs the key type's macros (type_options(key, \"K\"))"
#endif

#define SMALL_PER_ITEM (SMALL_P / SMALL_WG)

// The kernels' arguments: (keys, key offset[, values, value offset], n). Keys alone take no
// values arguments (a launch's host time grows with its arguments); values is then a null
// pointer that nothing reads.
#ifdef SORT_HAS_VALUES
#define SMALL_VALUE_ARGS __global V* values, ulong value_off,
#define SMALL_VALUES_AT values += value_off
#else
#define SMALL_VALUE_ARGS
#define SMALL_VALUES_AT __global V* values = 0
#endif

// (a, ia) before (b, ib) in the sorted order: by key, then by input position.
inline bool small_before(K_UNSIGNED a, uint ia, K_UNSIGNED b, uint ib) { return a < b || (a == b && ia < ib); }

// Network variant: the whole range [0, n) of keys (and values) is sorted in place by one
// work-group, every step through local memory.
__kernel __attribute__((reqd_work_group_size(SMALL_WG, 1, 1)))
void sort_small(__global K* keys, ulong key_off, SMALL_VALUE_ARGS uint n)
{
    __local K_UNSIGNED lk[SMALL_P];
    __local uint li[SMALL_P];
    const uint lid = get_local_id(0);
    keys += key_off;
    SMALL_VALUES_AT;
    for (uint i = lid; i < SMALL_P; i += SMALL_WG) {
        lk[i] = i < n ? key_to_sortable(keys[i]) : ~(K_UNSIGNED)0;
        li[i] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Bitonic network: for each block size 2^s, merges with distances 2^(s-1) .. 1; every
    // work-item takes SMALL_PER_ITEM / 2 compare-exchanges per step, one barrier per step.
    for (uint size = 2; size <= SMALL_P; size <<= 1) {
        for (uint dist = size >> 1; dist > 0; dist >>= 1) {
            for (uint c = lid; c < SMALL_P / 2; c += SMALL_WG) {
                const uint lo = ((c & ~(dist - 1)) << 1) | (c & (dist - 1)); // lower index of the pair
                const uint hi = lo + dist;
                const bool up = (lo & size) == 0; // this block ascends
                const K_UNSIGNED a = lk[lo], b = lk[hi];
                const uint ia = li[lo], ib = li[hi];
                if (small_before(b, ib, a, ia) == up) {
                    lk[lo] = b;
                    lk[hi] = a;
                    li[lo] = ib;
                    li[hi] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#ifdef SORT_HAS_VALUES
    // Every value is read before any is written (one work-group: the global barrier orders them).
    V v[SMALL_PER_ITEM];
    for (uint q = 0; q < SMALL_PER_ITEM; ++q) {
        const uint i = lid + q * SMALL_WG;
        if (i < n) v[q] = values[li[i]];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint q = 0; q < SMALL_PER_ITEM; ++q) {
        const uint i = lid + q * SMALL_WG;
        if (i < n) values[i] = v[q];
    }
#endif
    for (uint i = lid; i < n; i += SMALL_WG) keys[i] = sortable_to_key(lk[i]);
}

#ifdef SMALL_E
#if SMALL_E != (1 << SMALL_LOG_E) || SMALL_P != (1 << SMALL_LOG_P) || SMALL_P != SMALL_E * SMALL_WG
#error "sort_small_registers needs SMALL_E = 2^SMALL_LOG_E, SMALL_P = 2^SMALL_LOG_P = SMALL_E * SMALL_WG"
#endif
#ifndef SMALL_BUFFERS
#error "sort_small_registers needs SMALL_BUFFERS (1 or 2)"
#endif

// One element of the network, compared as one unsigned number where it fits: keys alone are the
// sortable key; pairs pack (sortable key, index) with the key in the high bits; 64-bit keys with
// values are (key, index) in a ulong2, compared key first.
#ifndef SORT_HAS_VALUES
typedef K_UNSIGNED small_elem;
#define SE_MAKE(k, i) (k)
#define SE_KEY(e) (e)
#elif K_BITS <= 16
typedef uint small_elem;
#define SE_MAKE(k, i) (((uint)(k) << 16) | (uint)(i))
#define SE_KEY(e) ((K_UNSIGNED)((e) >> 16))
#define SE_INDEX(e) ((e) & 0xffffu)
#elif K_BITS == 32
typedef ulong small_elem;
#define SE_MAKE(k, i) (((ulong)(k) << 32) | (ulong)(i))
#define SE_KEY(e) ((uint)((e) >> 32))
#define SE_INDEX(e) ((uint)(e))
#else
typedef ulong2 small_elem; // .x the key, .y the index
#define SE_MAKE(k, i) ((ulong2)((k), (ulong)(i)))
#define SE_KEY(e) ((e).x)
#define SE_INDEX(e) ((uint)(e).y)
#define SE_WIDE
#endif

// Orders a (lower index) and b for an ascending (up) or descending block.
inline void small_ce(__private small_elem* a, __private small_elem* b, bool up)
{
    const small_elem x = *a, y = *b;
#ifdef SE_WIDE
    const uint less = (uint)(y.x < x.x) | ((uint)(y.x == x.x) & (uint)(y.y < x.y)); // y before x
    const bool swap = less == (uint)up;
    *a = swap ? y : x;
    *b = swap ? x : y;
#else
    const small_elem lo = min(x, y), hi = max(x, y);
    *a = up ? lo : hi;
    *b = up ? hi : lo;
#endif
}

// Layout "lo": element j (0 <= j < SMALL_E) of work-item t is index bits [lo, lo + LOG_E) = j,
// the other bits t's, in order. So a step at distance 2^b, lo <= b < lo + LOG_E, pairs two
// elements of one work-item. This is t's part of the index.
inline uint small_thread_part(uint t, uint lo)
{
    return ((t >> lo) << (lo + SMALL_LOG_E)) | (t & ((1u << lo) - 1u));
}

// Local address of index i: the low 4 bits XOR bits 4..7, so that the remaps' strided accesses
// spread over the banks (stays inside [0, SMALL_P)).
inline uint small_phys(uint i) { return i ^ ((i >> 4) & 15u); }

// Stages 1 .. LOG_E of the network, inside each work-item's elements (layout 0): the bitonic
// sort of its SMALL_E elements, ascending where bit LOG_E of their index is 0 (flip 0), every
// direction below that known when the loops are unrolled.
inline void small_sort_own(__private small_elem* x, uint flip)
{
#pragma unroll
    for (uint s = 1; s <= SMALL_LOG_E; ++s)
#pragma unroll
        for (uint b = s; b-- > 0u;)
#pragma unroll
            for (uint j = 0; j < SMALL_E; ++j)
                if ((j & (1u << b)) == 0u)
                    small_ce(&x[j], &x[j | (1u << b)], (((j >> s) & 1u) ^ (s == SMALL_LOG_E ? flip : 0u)) == 0u);
}

// One step of a later stage at distance 2^(lo + rb), inside each work-item's elements (rb
// constant once inlined: x stays in registers). The stage's bit lies above the work-item's
// element bits, so one direction (up) holds for all of them.
inline void small_step(__private small_elem* x, uint rb, bool up)
{
#pragma unroll
    for (uint j = 0; j < SMALL_E; ++j)
        if ((j & (1u << rb)) == 0u) small_ce(&x[j], &x[j | (1u << rb)], up);
}

// Loads the elements of indices tp | j (j < SMALL_E) into x: past n, all-ones keys (the padding).
inline void small_load(__private small_elem* x, uint tp, uint n, __global const K* keys)
{
#pragma unroll
    for (uint j = 0; j < SMALL_E; ++j) {
        const uint i = tp | j;
        x[j] = SE_MAKE(i < n ? key_to_sortable(keys[i]) : (K_UNSIGNED) ~(K_UNSIGNED)0, i);
    }
}

// Writes a work-item's sorted elements x[j] (index tp | j) back to [0, n): every work-item has read
// its keys, and gathers its values by index, before any is written (every work-item calls it).
inline void small_write_back(__private small_elem* x, uint tp, uint n, __global K* keys, __global V* values)
{
#ifdef SORT_HAS_VALUES
    V v[SMALL_E];
#pragma unroll
    for (uint j = 0; j < SMALL_E; ++j)
        if ((tp | j) < n) v[j] = values[SE_INDEX(x[j])];
#endif
    barrier(CLK_GLOBAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < SMALL_E; ++j) {
        const uint i = tp | j;
        if (i < n) {
            keys[i] = sortable_to_key(SE_KEY(x[j]));
#ifdef SORT_HAS_VALUES
            values[i] = v[j];
#endif
        }
    }
}

// Registers variant: a bitonic network over SMALL_P elements, SMALL_E per work-item: the first
// LOG_E stages in each work-item's registers, then per stage s the steps at bits s-1 .. 0 in groups
// of LOG_E bits, each group in registers after one remap through local memory. The range [0, n)
// is sorted in place.
__kernel __attribute__((reqd_work_group_size(SMALL_WG, 1, 1)))
void sort_small_registers(__global K* keys, ulong key_off, SMALL_VALUE_ARGS uint n)
{
    __local small_elem buf[SMALL_BUFFERS][SMALL_P];
    const uint lid = get_local_id(0);
    keys += key_off;
    SMALL_VALUES_AT;
    small_elem x[SMALL_E];
    uint lo = 0, tp = small_thread_part(lid, 0); // blocked: work-item t holds [t E, (t + 1) E)
    small_load(x, tp, n, keys);
    small_sort_own(x, (tp >> SMALL_LOG_E) & 1u);
    // Stages LOG_E + 1 .. LOG_P: the steps at bits s-1 .. 0 in groups of up to LOG_E bits [lo, b],
    // each group in registers after a remap (lo + LOG_E <= s: bit s is one of the work-item's).
    uint remaps = 0;
    for (uint s = SMALL_LOG_E + 1; s <= SMALL_LOG_P; ++s) {
        int b = (int)s - 1;
        while (b >= 0) {
            const uint want = b >= SMALL_LOG_E - 1 ? (uint)b - (SMALL_LOG_E - 1) : 0u;
            if (want != lo) {
                // Remap: every element to local memory at its index, then back in layout "want".
                __local small_elem* lb = buf[remaps % SMALL_BUFFERS];
#if SMALL_BUFFERS == 1
                if (remaps > 0) barrier(CLK_LOCAL_MEM_FENCE); // the last remap's reads are done
#endif
#pragma unroll
                for (uint j = 0; j < SMALL_E; ++j) lb[small_phys(tp | (j << lo))] = x[j];
                barrier(CLK_LOCAL_MEM_FENCE);
                lo = want;
                tp = small_thread_part(lid, lo);
#pragma unroll
                for (uint j = 0; j < SMALL_E; ++j) x[j] = lb[small_phys(tp | (j << lo))];
                ++remaps;
            }
            const bool up = ((tp >> s) & 1u) == 0u;
            for (; b >= (int)lo; --b) {
                switch ((uint)b - lo) {
                case 0: small_step(x, 0, up); break;
#if SMALL_LOG_E > 1
                case 1: small_step(x, 1, up); break;
#endif
#if SMALL_LOG_E > 2
                case 2: small_step(x, 2, up); break;
#endif
#if SMALL_LOG_E > 3
                case 3: small_step(x, 3, up); break;
#endif
#if SMALL_LOG_E > 4
                case 4: small_step(x, 4, up); break;
#endif
#if SMALL_LOG_E > 5
#error "sort_small_registers: SMALL_E up to 32"
#endif
                default: break;
                }
            }
        }
    }
    // Layout 0 again (the last group of the last stage holds bit 0): index tp | j.
    small_write_back(x, tp, n, keys, values);
}
#endif
