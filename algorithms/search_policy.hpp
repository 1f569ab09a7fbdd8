#pragma once
// The lower_bound / upper_bound tuning policy (issue #30): which path answers the queries and its
// shape, chosen in this one place. Measurement notes go to docs/RESULTS.md.
//  - plain: one work-item per query, a binary search over the whole range in global memory.
//  - cached: the top levels of the search tree (m samples of the range) in every work-group's
//    local memory; a query searches them, then one short interval in global memory.
//  - sorted: the queries' ordered keys and positions radix-sorted first; then a work-group's tile
//    of neighbouring queries answers from one slice of the range (loaded into local memory when
//    it fits), and the answers are scattered back. Random searches over a range far larger than
//    the caches wait on a scattered read per level; sorted ones read each slice about once.
//  - tree: a static B+tree over the range built for the call (search_tree.cl: every F-th key,
//    every F^2-th, ... up to a top level of at most `samples` keys in local memory); each query,
//    in query order, descends one node of F keys (`node` bytes, vector loads) per level: one or
//    two scattered reads of memory per query (its leaf block, its level-1 node), the levels above
//    staying in cache; answers written in order.
// GPUs take `tree` when the queries are many and the range is long (`cached` when the queries are
// few against the range), CPU devices `sorted` when both are many (the sort then costs less than
// the scattered levels), else `plain` (their caches hold the top levels anyway).
// CLPRIM_SEARCH_PATH=plain|cached|sorted|tree forces one (tests run each on PoCL),
// CLPRIM_SEARCH_TUNE="wg,items,samples,node,lanes" the shape (items: queries per work-item of the
// cached, sorted and tree paths; samples: the cached path's samples, the tree's top level at
// most; node: the tree's node in bytes, 16, 32 or 64; lanes: the tree's queries going down
// together per work-item, 1, 2 or 4).
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace clprim {
namespace detail {

enum class search_path { plain, cached, sorted, tree };

struct search_policy {
    search_path path = search_path::plain;
    std::size_t wg = 256;      // work-items per work-group
    std::size_t items = 8;     // queries per work-item (grid-stride) on the cached path
    std::size_t samples = 2047; // m: samples in local memory (2^k - 1: whole tree levels)
    std::size_t slice = 4096;   // sorted: most keys of a work-group's slice held in local memory
    std::size_t node = 32;      // tree: bytes per node (16, 32 or 64: a sector or two)
    std::size_t lanes = 1;      // tree: queries per work-item going down together (1, 2 or 4)
};

inline search_policy select_search_policy(const device_profile& profile, std::size_t n, std::size_t queries,
                                          std::size_t key_bytes)
{
    search_policy p;
    // 2047 samples (11 levels) of 4-byte keys: 8 KiB of local memory, 16 KiB for 8-byte keys.
    p.samples = 2047;
    // GPUs: with many queries over a long range, the cached path; the tree where the queries are
    // also many enough to pay for its build, which reads the whole range once (about n / 32
    // queries: each saves some 200 bytes of scattered reads against the cached path's). CPU
    // devices: sorted from 2^14 queries over 2^14 keys (PoCL, 2 shared cores: 2^16 queries 10.5
    // -> 3.6 ms, 2^18 114 -> 43 ms, 2^20 840 -> 241 ms: each plain search waits on a cache miss
    // per level, one query at a time).
    if (profile.is_gpu() && queries >= 16 * 1024 && n >= 4 * (p.samples + 1))
        p.path = queries >= n / 32 ? search_path::tree : search_path::cached;
    const std::size_t from = std::size_t(1) << 14;
    if (profile.is_cpu() && queries >= from && n >= from) p.path = search_path::sorted;
    if (auto path = knob_choice("CLPRIM_SEARCH_PATH", {"plain", "cached", "sorted", "tree"})) p.path = search_path(*path);
    // The sort carries 32-bit positions.
    if (p.path == search_path::sorted && queries > std::numeric_limits<cl_uint>::max()) p.path = search_path::cached;
    if (p.path == search_path::tree) {
        p.items = 16;
        p.samples = 4096; // the top level: at most 4096 keys (16 KiB of 4-byte keys)
    }
    if (auto t = knob_numbers("CLPRIM_SEARCH_TUNE", 1, 5, 1, 1 << 16)) {
        p.wg = (*t)[0];
        if (t->size() > 1) p.items = (*t)[1];
        if (t->size() > 2) p.samples = (*t)[2];
        if (t->size() > 3) p.node = (*t)[3];
        if (t->size() > 4) p.lanes = (*t)[4];
    }
    p.lanes = p.lanes >= 4 ? 4 : p.lanes >= 2 ? 2 : 1;
    // A node is whole uint4 words: 16, 32 or 64 bytes, at least two keys.
    p.node = p.node <= 16 ? 16 : p.node <= 32 ? 32 : 64;
    while (p.node < 2 * key_bytes) p.node *= 2;
    // The samples must fit local memory (queried, with room to spare).
    while (p.samples > 1 && p.samples * key_bytes > profile.local_mem_size / 2) p.samples /= 2;
    p.samples = std::max<std::size_t>(1, p.samples);
    // The slice: 4096 keys (16 or 32 KiB), at most a quarter of local memory.
    p.slice = std::max<std::size_t>(1, std::min<std::size_t>(4096, profile.local_mem_size / 4 / key_bytes));
    return p;
}

} // namespace detail
} // namespace clprim
