// Stable ranking of digits warp by warp: the work-group building block of the one-sweep pass
// (radix_onesweep_pass.cl) and of the few-tiles sort (sort_small_tiles.cl).
//
// Idea: a work-group is split into warps of 32 work-items; at each step every lane of a warp holds
// one key's digit d. The lanes holding the same d ("peers") are ranked among themselves by lane;
// the highest peer adds the number of peers to the warp's counter of d, and each peer's rank is
// that counter before the step plus its peers on lower lanes. Steps taken in key order give a
// stable rank of every key among the warp's keys of its digit.
//
// Two ways to find the peers:
// - WARP_RANK_VOTES (NVIDIA, where the host found that the compiler takes inline PTX): one warp
//   vote per digit bit (vote.sync.ballot): the lanes that agree with this lane on bit b are the
//   ballot of bit b or its complement, and the peers agree on every bit. The counter before the
//   step is broadcast from the highest peer by shfl.sync; bar.warp.sync orders a step's counter
//   update before the next step's read: no work-group barrier in the loop.
//   WARP_RANK_MATCH_ANY (measurements only) takes one match.any.sync instead, slower on the H100.
// - otherwise (portable): the warp's 32 digits go through local memory and each lane compares
//   them; work-group barriers separate the steps. Slower, but correct on any OpenCL device, also
//   where work-items of a group run one after the other (PoCL).
//
// Required macros: WARP_RANK_BITS (bits of a digit, at most 8). Optional: WARP_RANK_VOTES,
// WARP_RANK_MATCH_ANY. Every work-item of the group calls each function the same number of times
// (the portable forms contain barriers).
#ifndef WARP_RANK_BITS
#error "warp_rank.cl needs WARP_RANK_BITS"
#endif
#if defined(WARP_RANK_MATCH_ANY) && !defined(WARP_RANK_VOTES)
#error "warp_rank.cl: WARP_RANK_MATCH_ANY is a variant of WARP_RANK_VOTES"
#endif

// The lanes of this work-item's warp whose digit equals d, as a bit mask by lane. scratch: one
// uint per work-item of the group (the portable form only).
#ifdef WARP_RANK_VOTES
#ifdef WARP_RANK_MATCH_ANY
inline uint warp_peers(uint d, __local uint* scratch)
{
    (void)scratch;
    uint m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(d));
    return m;
}
#else
inline uint warp_peers(uint d, __local uint* scratch)
{
    (void)scratch;
    uint m = 0xffffffffu;
#pragma unroll
    for (uint b = 0; b < WARP_RANK_BITS; ++b) {
        const uint bit = (d >> b) & 1u;
        uint ones;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                     : "=r"(ones)
                     : "r"(bit));
        m &= bit ? ones : ~ones;
    }
    return m;
}
#endif
#else
inline uint warp_peers(uint d, __local uint* scratch)
{
    const uint lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE); // the last step's digits have been read
    scratch[lid] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const uint* warp_digits = scratch + (lid & ~31u);
    uint m = 0;
    for (uint j = 0; j < 32u; ++j) m |= (warp_digits[j] == d ? 1u : 0u) << j;
    return m;
}
#endif

// One step: this key's rank among the warp's keys of digit d so far, given its peers
// (warp_peers); adds the peers to my_counts[d], the warp's counters (one per digit value).
inline uint warp_rank_step(uint d, uint peers, __local uint* my_counts)
{
    const uint lane = get_local_id(0) & 31u;
    const uint leader = 31u - clz(peers); // the highest peer lane updates the counter
#ifdef WARP_RANK_VOTES
    uint before = 0;
    if (lane == leader) {
        before = my_counts[d];
        my_counts[d] = before + popcount(peers);
    }
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(before) : "r"(before), "r"(leader));
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); // the update is seen at the next step
#else
    const uint before = my_counts[d];
    barrier(CLK_LOCAL_MEM_FENCE); // every peer has read the counter
    if (lane == leader) my_counts[d] = before + popcount(peers);
#endif
    return before + popcount(peers & ((1u << lane) - 1u));
}
