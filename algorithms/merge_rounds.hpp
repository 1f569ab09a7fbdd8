#pragma once
// Private to algorithms/: the merge sort's rounds, shared by merge_sort.cpp (its rounds after the
// tile sort or the chunk sorts) and merge.cpp (the public merge: one round over two ranges, the
// program built with -DMERGE_TWO_RANGES). One policy (choose_merge_policy) shapes both. Not installed.
#include "sort_support.hpp"

#include <clprim/detail/kernel_launch.hpp>

#include <cstddef>
#include <string>

namespace clprim {
namespace detail {

// Which path sorts, and its shape: chosen in this one place.
//  - gpu: tiles of sort_group * elems keys sorted by whole work-groups (registers, then local
//    memory), then one merge-path round per doubling of the run length (merge_tile_sort, then
//    merge_partition and merge_global per round, group * elems outputs per work-group: each
//    work-item merges `elems` outputs serially after one co-rank search). CLPRIM_MERGE_STREAM
//    takes merge_stream instead (one launch per round: each work-group searches its own piece of
//    both runs and streams through stream_tiles tiles; measured slower, kept for measurements).
//  - cpu: one work-item per contiguous chunk, sorted sequentially, then co-rank rounds where each
//    work-item merges one long piece (merge_cpu_chunks, merge_cpu_round): no barriers, no local
//    memory, which PoCL-like CPU devices run as plain loops.
// CPU devices take the cpu path; CLPRIM_MERGE_PATH=cpu|gpu forces one (tests, measurements),
// CLPRIM_MERGE_GPU_TUNE="group,elems", CLPRIM_MERGE_SORT_GROUP, CLPRIM_MERGE_STREAM="tiles[,probes[,group]]"
// and CLPRIM_MERGE_CPU_TUNE="chunks,run" override the shapes.
struct merge_policy {
    bool cpu = false;
    std::size_t group = 256;  // gpu: work-items per work-group of the merge rounds (a power of two)
    std::size_t sort_group = 512; // gpu: work-items per work-group of the tile sort (group * 2^k)
    std::size_t wide_group = 0; // gpu: sort_group of the tile sort built for it (0: none), see below
    int wide = 0;               // gpu: take that kernel where it runs (0), always (1), never (-1)
    std::size_t elems = 17;   // gpu: keys per work-item (odd: strided local accesses conflict-free)
    std::string options;      // gpu: extra build options (CLPRIM_MERGE_OPTIONS)
    std::size_t chunks = 1;   // cpu: work-items (chunks of the first stage, pieces of each round)
    std::size_t run = 16;     // cpu: keys per insertion-sorted run
    // gpu rounds: merge_partition + merge_global (stream_tiles = 0, the default), or where forced
    // merge_stream (merge_stream.cl: one launch per round, each work-group finds its own piece
    // and streams through `stream_tiles` tiles of round_group * elems outputs; 2.3x slower on the
    // H100, docs/RESULTS.md "s4-merge"). probes: positions per step of the work-group's search.
    // round_group: merge_stream's work-group (<= group: two tiles of keys and values must fit
    // local memory).
    std::size_t stream_tiles = 0;
    std::size_t stream_groups = 0; // > 0: work-groups per compute unit instead (merge_stream_span)
    std::size_t probes = 8;
    std::size_t round_group = 256;
};

merge_policy choose_merge_policy(const bc::device& device, std::size_t n, std::size_t kbytes, std::size_t vbytes);

// Local memory of one merge round's work-group (merge_global): the keys (tile + 1), then the values.
inline std::size_t merge_round_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return round_up((tile + 1) * kbytes, std::max<std::size_t>(8, vbytes)) + tile * vbytes; // values aligned for V
}

// Local memory of merge_stream's work-group: two windows of `tile` keys, then two of values.
inline std::size_t merge_stream_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return round_up(2 * tile * kbytes, std::max<std::size_t>(8, vbytes)) + 2 * tile * vbytes;
}

// The launch shape of a GPU-path round: the merge kernel's work-group and tile (outputs per
// work-group and step), merge_partition's work-group, the merge kernel's local memory in bytes,
// and span: merge_stream's outputs per work-group (0: merge_partition + merge_global).
struct merge_round_shape {
    std::size_t wg, tile, partition_wg, local;
    std::size_t span = 0;
};

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

// One round on the GPU-path kernels (merge_stream, or merge_partition then merge_global: gk is
// the merge kernel, pk merge_partition or unused) from a and b (the same place for the sort's
// rounds) into dst; `last` converts keys back to the caller's form. shape.span > 0: merge_stream
// (the caller sets it per round, merge_stream_span); else splits: ceil(n / tile) ulongs.
void merge_round_gpu(bc::command_queue& queue, bc::kernel& pk, bc::kernel& gk, const sort_place& a,
                     const sort_place& b, const sort_place& dst, std::size_t n, std::size_t L,
                     const merge_round_shape& shape, const bc::buffer& splits, bool last);
// One round on the CPU-path kernel (merge_cpu_round): work-items of `piece` outputs each.
void merge_round_cpu(bc::command_queue& queue, bc::kernel& rk, const sort_place& a, const sort_place& b,
                     const sort_place& dst, std::size_t n, std::size_t L, std::size_t piece, bool last);

} // namespace detail
} // namespace clprim
