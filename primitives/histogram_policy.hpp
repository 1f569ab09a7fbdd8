#pragma once
// The histogram's tuning, in one place: local counters (tiled over the bins where they do not fit
// local memory at once) or global atomics, counter copies per bin, and the launch shape, from the
// device profile; the test hook's forced values (histogram_impl_tuned) override inside. Why these
// values: docs/RESULTS.md, "Tuning notes behind the policies" (histogram). Private to the
// primitives layer.
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

constexpr std::size_t histogram_max_tiles = 8;        // more passes over the input than this: global atomics
constexpr std::size_t histogram_items_per_step = 4;   // values a work-item reads per loop step (the kernel's unroll)
constexpr std::size_t histogram_hot_copy_bytes = 12 * 1024; // local memory spent on extra counter copies (GPU)
constexpr std::size_t histogram_local_headroom = 256; // bytes of local memory left for the kernel's own use
constexpr std::size_t histogram_wg = 256;             // work-group size (capped by the kernel's limit)

struct histogram_policy {
    bool use_local = false;    // histogram_local (tiled) rather than histogram_global
    unsigned copies = 1;       // counters per bin (WG_HIST_COPIES)
    std::size_t tile_bins = 0; // bins one work-group counts at a time
    std::size_t tiles = 0;     // bin tiles (the second NDRange dimension)
};

// local_budget: bytes of local memory to plan with (0: the device's); copies: counters per bin
// (power of two, 0: chosen); path: 0 chosen, 1 local (tiled as needed), 2 global atomics. Copies
// only on GPUs, where work-items of one warp really collide on a counter (a CPU runs a
// work-group as a loop: no collisions).
inline histogram_policy select_histogram_policy(const device_profile& profile, std::size_t num_bins,
                                                std::size_t local_budget, unsigned copies, int path)
{
    histogram_policy p;
    std::size_t budget = local_budget ? local_budget : profile.local_mem_size;
    budget = budget > histogram_local_headroom ? budget - histogram_local_headroom : budget;
    const std::size_t budget_bins = budget / sizeof(cl_uint);
    if (copies == 0) {
        copies = 1;
        if (profile.is_gpu())
            while (copies < 8 && num_bins * copies * 2 * sizeof(cl_uint) <= histogram_hot_copy_bytes) copies *= 2;
    }
    std::size_t tile_bins = std::min(num_bins, budget_bins / copies);
    std::size_t tiles = tile_bins ? ceil_div(num_bins, tile_bins) : 0;
    if (tiles > 1 && copies > 1) { // no room for copies: tile with one counter per bin
        copies = 1;
        tile_bins = std::min(num_bins, budget_bins);
        tiles = tile_bins ? ceil_div(num_bins, tile_bins) : 0;
    }
    bool use_local = tiles != 0 && tiles <= histogram_max_tiles;
    if (path == 1 && tiles != 0) use_local = true;
    if (path == 2) use_local = false;
    if (!use_local) copies = 1;
    p.use_local = use_local;
    p.copies = copies;
    p.tile_bins = tile_bins;
    p.tiles = tiles;
    return p;
}

// Work-groups resident at once: enough to fill the device (2048 work-items per compute unit on
// GPUs, 2 groups per compute unit elsewhere).
inline std::size_t histogram_resident_groups(const device_profile& profile, std::size_t compute_units, std::size_t lsize)
{
    return std::max<std::size_t>(1, compute_units) * (profile.is_gpu() ? 2048 / std::min<std::size_t>(lsize, 2048) : 2);
}

} // namespace detail
} // namespace clprim
