#pragma once
// The lower_bound / upper_bound tuning policy (issue #30): which path answers the queries and its
// shape, chosen in this one place. Measurement notes go to docs/RESULTS.md.
//  - plain: one work-item per query, a binary search over the whole range in global memory.
//  - cached: the top levels of the search tree (m samples of the range) in every work-group's
//    local memory; a query searches them, then one short interval in global memory.
// GPUs take `cached` when the queries are many enough to pay for loading the samples per
// work-group and the range is long enough for the samples to save levels; CPU devices take
// `plain` (their caches hold the top levels anyway). CLPRIM_SEARCH_PATH=plain|cached forces one
// (tests run both on PoCL), CLPRIM_SEARCH_TUNE="wg,items,samples" the shape.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

struct search_policy {
    bool cached = false;
    std::size_t wg = 256;      // work-items per work-group
    std::size_t items = 8;     // queries per work-item (grid-stride) on the cached path
    std::size_t samples = 2047; // m: samples in local memory (2^k - 1: whole tree levels)
};

inline search_policy select_search_policy(const device_profile& profile, std::size_t n, std::size_t queries,
                                          std::size_t key_bytes)
{
    search_policy p;
    // 2047 samples (11 levels) of 4-byte keys: 8 KiB of local memory, 16 KiB for 8-byte keys.
    p.samples = 2047;
    p.cached = profile.is_gpu() && queries >= 16 * 1024 && n >= 4 * (p.samples + 1);
    if (auto path = knob_choice("CLPRIM_SEARCH_PATH", {"plain", "cached"})) p.cached = *path == 1;
    if (auto t = knob_numbers("CLPRIM_SEARCH_TUNE", 1, 3, 1, 1 << 16)) {
        p.wg = (*t)[0];
        if (t->size() > 1) p.items = (*t)[1];
        if (t->size() > 2) p.samples = (*t)[2];
    }
    // The samples must fit local memory (queried, with room to spare).
    while (p.samples > 1 && p.samples * key_bytes > profile.local_mem_size / 2) p.samples /= 2;
    p.samples = std::max<std::size_t>(1, p.samples);
    return p;
}

} // namespace detail
} // namespace clprim
