#pragma once
// Private to algorithms/: the merge sort's rounds, shared by merge_sort.cpp (its rounds after the
// tile sort or the chunk sorts) and merge.cpp (the public merge: one round over two ranges, the
// program built with -DMERGE_TWO_RANGES). One policy (merge_policy.hpp) shapes both. Not installed.
#include "merge_policy.hpp"
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <string>

namespace clprim {
namespace detail {

// The launch shape of a GPU-path round: the merge kernel's work-group and tile (outputs per
// work-group and step), merge_partition's work-group, the merge kernel's local memory in bytes,
// and span: merge_stream's outputs per work-group (0: merge_partition + merge_global).
struct merge_round_shape {
    std::size_t wg, tile, partition_wg, local;
    std::size_t span = 0;
    // The partition kernel: merge_partition (split_per_group 0: one tile start per work-item) or
    // merge_partition_search (tile starts per work-group of partition_wg, `samples` per run in
    // local memory of samples_bytes, flag_bytes of counts).
    std::size_t split_per_group = 0, samples = 0, samples_bytes = 8, flag_bytes = 4;
    // The hidden partition (merge_policy::split_lead; merge_global_split): tiles whose starts the
    // partition kernel finds first (0: off), the merge kernel's samples per run and local memory.
    std::size_t lead_tiles = 0, lead_samples = 0, lead_local = 0;
    std::size_t ends = 1; // merge_policy::split_ends
    // merge_policy::split_gather as a shift (0: off), set where the partition kernel takes samples
    // of whole runs; merge_round_gpu gathers only where merge_gather_shift says it pays.
    unsigned gather_shift = 0;
    std::size_t gather_wg = 64; // merge_split_gather's work-group (a power of two the kernel allows)
    unsigned flush = 0;         // merge_policy::flush: clFlush after the partition (1), the merge kernel (2)
};

// The scalar (and local-memory) arguments a kernel was last given, so that a launch sets only those
// that changed (buffers always: a released buffer's handle may come back for another one). Kept
// beside a kernel object that nothing else sets arguments of (merge.cpp's per-thread kernels).
struct merge_arg_memo {
    bool valid = false;
    std::array<std::array<unsigned char, 8>, 24> bytes{};
};

namespace merge_arg_detail {
// (valid: the memo holds what argument i was last set to)
inline void set(bc::kernel& k, merge_arg_memo&, bool, cl_uint i, const bc::buffer& b) { set_kernel_args_from(k, i, b); }
inline void set(bc::kernel& k, merge_arg_memo& m, bool valid, cl_uint i, const local_bytes& l)
{
    const cl_ulong v = l.bytes;
    if (valid && std::memcmp(m.bytes[i].data(), &v, sizeof v) == 0) return;
    set_kernel_args_from(k, i, l);
    std::memcpy(m.bytes[i].data(), &v, sizeof v);
}
template <class T>
void set(bc::kernel& k, merge_arg_memo& m, bool valid, cl_uint i, const T& v)
{
    static_assert(sizeof(T) <= 8, "merge_arg_memo holds scalars of up to 8 bytes");
    if (valid && std::memcmp(m.bytes[i].data(), &v, sizeof(T)) == 0) return;
    set_kernel_args_from(k, i, v);
    std::memcpy(m.bytes[i].data(), &v, sizeof(T));
}
} // namespace merge_arg_detail

// Sets k's arguments as set_kernel_args does (memo null: every one; else those that changed since
// the memo's last launch), then launches it.
template <class... Args>
void launch_memo(bc::command_queue& queue, bc::kernel& k, merge_arg_memo* memo, std::size_t global, std::size_t local,
                 const Args&... args)
{
    if (!memo) {
        launch(queue, k, global, local, args...);
        return;
    }
    static_assert(sizeof...(Args) <= 24, "merge_arg_memo holds 24 arguments");
    const bool valid = memo->valid;
    memo->valid = false; // until every argument below is set (a throw leaves them unknown)
    cl_uint i = 0;
    (merge_arg_detail::set(k, *memo, valid, i++, args), ...);
    memo->valid = true;
    launch_1d(queue, k, global, local);
}

// The split-search part of a round's shape from the policy, for a partition kernel whose largest
// work-group here is partition_wg (queried) and `groups` tile starts.
inline void set_split_shape(merge_round_shape& shape, const merge_policy& p, std::size_t kbytes, std::size_t partition_wg,
                            std::size_t groups)
{
    if (p.split_probes == 0) {
        shape.partition_wg = std::min(partition_wg, next_pow2(groups));
    } else {
        merge_policy q = p;
        q.split_group = std::max(p.split_items, std::min(p.split_group, partition_wg));
        // No larger than the tile starts need (keeping a whole number of them per work-group).
        q.split_group = std::max(q.split_items, std::min(q.split_group, next_pow2(groups) * q.split_items));
        shape.partition_wg = q.split_group;
        shape.split_per_group = q.split_group / q.split_items;
        shape.samples = q.split_samples;
        shape.samples_bytes = merge_split_local_bytes(q, kbytes);
        shape.flag_bytes = merge_split_flag_bytes(q);
    }
    if (p.split_probes > 0 && p.split_gather > 1 && (p.split_ends == 0 || p.split_ends == 2) && shape.samples > 0)
        while ((std::size_t(1) << (shape.gather_shift + 1)) <= p.split_gather) ++shape.gather_shift;
    // The hidden partition: its searching work-groups are the merge kernel's (wg work-items, one
    // tile start each), their samples and counts in the merge kernel's local memory.
    const std::size_t lead = p.split_lead * groups / 64;
    shape.ends = p.split_ends;
    if (p.split_lead > 0 && shape.span == 0 && lead >= 1 && lead + 1 < groups) {
        shape.lead_tiles = lead;
        const std::size_t flags = shape.wg * 4; // after the samples (the ends' search)
        const std::size_t samples = std::min(p.split_samples, shape.local > flags ? (shape.local - flags) / (2 * kbytes) : 0);
        shape.lead_samples = samples & ~std::size_t(3); // keeps the counts after them 4-byte aligned
        shape.lead_local = std::max(shape.local, 2 * shape.lead_samples * kbytes + flags);
    }
}

// merge_stream's outputs per work-group for runs of L: stream_tiles tiles, or with
// stream_groups (work-groups per compute unit) the whole round spread over that many work-groups
// per compute unit, so that they all finish together (no last wave of a few). The sort's rounds
// keep span a power-of-two multiple of the tile dividing 2L (no work-group straddles two pairs
// of runs; 2L is tile * 2^k there); the public merge (one pair) takes any span.
inline std::size_t merge_stream_span(const merge_policy& p, std::size_t tile, std::size_t L, std::size_t n, bool two_ranges,
                                     std::size_t compute_units)
{
    if (p.stream_groups > 0) {
        const std::size_t groups = std::max<std::size_t>(1, compute_units) * p.stream_groups;
        const std::size_t even = std::max<std::size_t>(1, ceil_div(n, groups));
        if (two_ranges) return even;
        return tile * std::min(floor_pow2(std::max<std::size_t>(1, ceil_div(even, tile))), std::max<std::size_t>(1, 2 * L / tile));
    }
    std::size_t span = tile * (two_ranges ? std::max<std::size_t>(1, p.stream_tiles) : floor_pow2(std::max<std::size_t>(1, p.stream_tiles)));
    if (!two_ranges) span = std::min(span, 2 * L);
    return std::min(span, std::max(tile, round_up(n, tile)));
}

// The gathered samples' shift for a round of n outputs over runs of L (merge_split_gather before
// the partition), 0 where none: the round must be one pair of runs (the kernel's condition too),
// and (whole-run samples, ends 0) the partition's local samples (the smallest power-of-two spacing
// that needs no more than shape.samples per run, as merge_split_starts computes it) at least as
// far apart; with ends 2 the kernel decides per work-group.
inline unsigned merge_gather_shift(const merge_round_shape& shape, std::size_t n, std::size_t L, bool two_ranges)
{
    if (shape.gather_shift == 0 || shape.split_per_group == 0 || (!two_ranges && 2 * L < n)) return 0;
    const std::size_t la = std::min(L, n), lb = n - la, m = std::max(la, lb);
    if (shape.ends == 2) // the work-groups' pieces (not known here): where the runs are long enough
        return std::min(la, lb) > (std::size_t(4) << shape.gather_shift) ? shape.gather_shift : 0;
    unsigned shift = 0;
    while (((m + (std::size_t(1) << shift) - 1) >> shift) > shape.samples) ++shift;
    return shift >= shape.gather_shift && std::min(la, lb) > (std::size_t(2) << shift) ? shape.gather_shift : 0;
}
// Keys the gathered samples take (merge_split_gather's g), for a shift from merge_gather_shift.
inline std::size_t merge_gather_keys(std::size_t n, std::size_t L, unsigned shift)
{
    const std::size_t la = std::min(L, n), lb = n - la;
    return ((la + (std::size_t(1) << shift) - 1) >> shift) + (lb >> shift);
}

// One round on the GPU-path kernels (merge_stream, or merge_partition then merge_global: gk is
// the merge kernel, pk merge_partition or unused) from a and b (the same place for the sort's
// rounds) into dst; `last` converts keys back to the caller's form. shape.span > 0: merge_stream
// (the caller sets it per round, merge_stream_span); else splits: ceil(n / tile) ulongs.
// shape.lead_tiles > 0 (and lead_kernel, merge_global_split): the partition for the first tiles,
// then merge_global_split twice (see merge_policy::split_lead).
void merge_round_gpu(bc::command_queue& queue, bc::kernel& pk, bc::kernel& gk, const sort_place& a,
                     const sort_place& b, const sort_place& dst, std::size_t n, std::size_t L,
                     const merge_round_shape& shape, const bc::buffer& splits, bool last, bc::kernel* lead_kernel = nullptr,
                     bc::kernel* gather_kernel = nullptr, const bc::buffer* gathered = nullptr, bool two_ranges = false,
                     merge_arg_memo* partition_memo = nullptr, merge_arg_memo* round_memo = nullptr);
// One round on the CPU-path kernel (merge_cpu_round): pieces of `piece` outputs taken in turn by
// the work-groups through counter (word 0 of the queue's look-back slots, lookback_slots.hpp: take
// them before the first launch that writes the caller's data).
void merge_round_cpu(bc::command_queue& queue, bc::kernel& rk, const sort_place& a, const sort_place& b,
                     const sort_place& dst, std::size_t n, std::size_t L, std::size_t piece, bool last,
                     const bc::buffer& counter);

} // namespace detail
} // namespace clprim
