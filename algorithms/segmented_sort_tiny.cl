// clprim::segmented_sort, segments of at most 32 keys (keys of up to 32 bits, no values): one warp
// of 32 consecutive work-items per segment, one key a work-item, sorted by a bitonic network whose
// partners are exchanged between lanes (lane i and lane i ^ j), so the keys never touch local
// memory: one coalesced read and one coalesced write of every segment.
//
// Each work-group takes SS_WG consecutive segments a round: work-item w reads the bounds of
// segment base + w (coalesced), then every warp sorts its 32 segments ST_AT_ONCE at a time (the
// bounds broadcast from the lane that read them; the keys of ST_AT_ONCE segments loaded together,
// so that several reads are in flight). Segments longer than 32 keys are left alone (the binned
// classes sort them); the binning leaves these out (segmented_sort.cl, `tiny`).
//
// ST_SHUFFLE (NVIDIA, where the host found the compiler takes inline PTX): shfl.sync moves the
// values between lanes. Otherwise the exchange goes through local memory with a work-group
// barrier around it (every work-item runs every step: the loops are uniform), which is slow but
// runs anywhere (PoCL, Oclgrind) and so tests the network.
//
// Required macros: those of segmented_sort.cl (joined before this file), K_BITS <= 32, no
// SS_HAS_VALUES; SS_WG a multiple of 32.
#ifndef SS_WG
#error "segmented_sort_tiny.cl needs segmented_sort.cl joined before it"
#endif
#if K_BITS > 32 || defined(SS_HAS_VALUES)
#error "segmented_sort_tiny.cl: keys of up to 32 bits, no values"
#endif
#if SS_WG % 32 != 0
#error "segmented_sort_tiny.cl: SS_WG a multiple of 32"
#endif

#define ST_LANES 32u
#define ST_AT_ONCE 4u

#ifdef ST_SHUFFLE
// The value of lane (lane ^ mask) / of lane src of this warp.
inline uint st_xor(uint x, uint mask, __local uint* ex)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(mask));
    return r;
}
inline uint st_from(uint x, uint src, __local uint* ex)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
    return r;
}
#else
inline uint st_xor(uint x, uint mask, __local uint* ex)
{
    const uint lid = get_local_id(0);
    ex[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint r = ex[lid ^ mask];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
inline uint st_from(uint x, uint src, __local uint* ex)
{
    const uint lid = get_local_id(0);
    ex[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint r = ex[(lid & ~(ST_LANES - 1u)) | src];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
#endif

// Every segment of at most 32 keys sorted in place (see above). Persistent: group g takes the
// rounds g, g + G, ...
__kernel __attribute__((reqd_work_group_size(SS_WG, 1, 1)))
void segsort_tiny(__global K* keys, ulong koff, ulong n, __global const OFF* offsets, ulong ooff, ulong num_segments)
{
    __local uint ex[SS_WG]; // the exchange without ST_SHUFFLE
    const uint lid = get_local_id(0), lane = lid & (ST_LANES - 1u);
    for (ulong base = (ulong)get_group_id(0) * SS_WG; base < num_segments; base += (ulong)get_num_groups(0) * SS_WG) {
        ulong b = 0, e = 0;
        if (base + lid < num_segments) ss_segment(offsets, ooff, base + lid, n, &b, &e);
        const uint my_begin = (uint)b; // n < 2^32 (the host checks)
        const uint my_len = e - b <= ST_LANES ? (uint)(e - b) : 0u;
        for (uint t = 0; t < ST_LANES; t += ST_AT_ONCE) {
            uint sb[ST_AT_ONCE], sl[ST_AT_ONCE], x[ST_AT_ONCE];
            for (uint u = 0; u < ST_AT_ONCE; ++u) {
                sb[u] = st_from(my_begin, t + u, ex);
                sl[u] = st_from(my_len, t + u, ex);
            }
            for (uint u = 0; u < ST_AT_ONCE; ++u)
                x[u] = lane < sl[u] ? (uint)key_to_sortable(keys[koff + sb[u] + lane]) : 0xffffffffu;
            // Bitonic: blocks of k ascending where lane & k is 0, descending elsewhere (k = 32:
            // all ascending); at distance j the lower lane of a pair keeps the smaller key in an
            // ascending block.
            for (uint k = 2; k <= ST_LANES; k <<= 1) {
                for (uint j = k >> 1; j > 0; j >>= 1) {
                    const bool keep_min = ((lane & k) == 0) == ((lane & j) == 0);
                    for (uint u = 0; u < ST_AT_ONCE; ++u) {
                        const uint y = st_xor(x[u], j, ex);
                        x[u] = keep_min ? min(x[u], y) : max(x[u], y);
                    }
                }
            }
            for (uint u = 0; u < ST_AT_ONCE; ++u)
                if (lane < sl[u]) keys[koff + sb[u] + lane] = sortable_to_key((K_UNSIGNED)x[u]);
        }
    }
}
