// Work-group histogram building block: a work-group counts values into bins in local memory with
// local atomics, then writes its counts out, either added atomically into a global histogram
// (clprim::histogram) or as plain stores into a digit-major table (radix sort: counts[b *
// num_groups + group], whose exclusive scan gives every (digit, group) its first output slot).
//
// Work-groups are 1-D along dimension 0 (other dimensions, if any, must have local size 1).
//
// Hot counters: with WG_HIST_COPIES = c > 1 (a power of two, set by the host) each bin has c
// counters, interleaved (bins[bin * c + copy]) and picked by local id modulo c, so neighbouring
// work-items that hit the same bin (one warp, all values equal) land on different banks and
// addresses instead of serialising on one. The local array then needs WG_HIST_LOCAL_SIZE(num_bins)
// uints. The flush sums the copies.

#ifndef WG_HIST_COPIES
#define WG_HIST_COPIES 1
#endif
#if (WG_HIST_COPIES & (WG_HIST_COPIES - 1)) != 0 || WG_HIST_COPIES < 1
#error "WG_HIST_COPIES must be a power of two"
#endif

// uints of local memory a histogram of num_bins bins needs (a constant expression if num_bins is).
#define WG_HIST_LOCAL_SIZE(num_bins) ((num_bins) * WG_HIST_COPIES)

// All work-items of the group call it: zeroes every counter (copies included), then a barrier so
// no work-item counts into a bin another has not cleared yet.
inline void wg_hist_clear(__local uint* bins, uint num_bins)
{
    const uint total = WG_HIST_LOCAL_SIZE(num_bins);
    for (uint i = (uint)get_local_id(0); i < total; i += (uint)get_local_size(0)) bins[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
}

// Counts `count` values into bin (bin < num_bins). Any work-item, any number of times.
inline void wg_hist_add_n(__local uint* bins, uint num_bins, uint bin, uint count)
{
    (void)num_bins;
#if WG_HIST_COPIES > 1
    const uint copy = (uint)get_local_id(0) & (WG_HIST_COPIES - 1);
    atomic_add(&bins[bin * WG_HIST_COPIES + copy], count);
#else
    atomic_add(&bins[bin], count);
#endif
}

// Counts one value into bin (bin < num_bins).
inline void wg_hist_add(__local uint* bins, uint num_bins, uint bin)
{
#if WG_HIST_COPIES > 1
    const uint copy = (uint)get_local_id(0) & (WG_HIST_COPIES - 1);
    atomic_inc(&bins[bin * WG_HIST_COPIES + copy]);
#else
    atomic_inc(&bins[bin]);
#endif
    (void)num_bins;
}

// This group's count of bin b (all copies summed). Only after a barrier that follows the adds.
inline uint wg_hist_count(__local const uint* bins, uint b)
{
#if WG_HIST_COPIES > 1
    uint s = 0u;
    for (uint c = 0; c < WG_HIST_COPIES; ++c) s += bins[b * WG_HIST_COPIES + c];
    return s;
#else
    return bins[b];
#endif
}

// All work-items call it after a barrier that follows the adds. Plain stores:
// counts[b * num_groups + group] = this group's count of bin b, for every b < num_bins.
inline void wg_hist_flush_digit_major(__local uint* bins, uint num_bins, __global uint* counts,
                                      uint group, uint num_groups)
{
    for (uint b = (uint)get_local_id(0); b < num_bins; b += (uint)get_local_size(0))
        counts[(ulong)b * num_groups + group] = wg_hist_count(bins, b);
}

// All work-items call it after a barrier that follows the adds: counts[b] += this group's count of
// bin b, atomically (other groups add into the same histogram). Empty bins cost no atomic.
inline void wg_hist_flush_add(__local uint* bins, uint num_bins, __global uint* counts)
{
    for (uint b = (uint)get_local_id(0); b < num_bins; b += (uint)get_local_size(0)) {
        const uint c = wg_hist_count(bins, b);
        if (c != 0u) atomic_add(&counts[b], c);
    }
}
