#pragma once
// The top_k tuning policy (issue #30): which path and its shape, chosen in this one place.
// Measurement notes go to docs/RESULTS.md.
//  - select: a threshold from `samples` evenly spaced elements (the sample of rank `need`), one
//    filtering read of the input keeping the elements at or below it, then a radix select over
//    those candidates (top_k.cl: 8-bit digits of (sortable key, index), one launch per digit) and
//    a stable radix sort of the k survivors. `need` is a little above k * samples / n (three
//    standard deviations and 4 more), so the candidates are few and yet, with all but a tiny
//    probability, at least k; when not, a second read takes every element (still exact).
//  - sort: a stable radix sort of every (sortable key, index) pair, then the first k.
// select unless k is a large share of n (then sorting the survivors costs about a full sort
// anyway) or n does not fit the 32-bit counters. CLPRIM_TOPK_PATH=select|sort forces one (tests
// run both on PoCL), CLPRIM_TOPK_TUNE="wg,groups_per_unit,samples,need" the select path's shape
// (need = 1 makes the threshold the smallest sample: tests force the second read with it),
// CLPRIM_TOPK_SMALL the largest k whose survivors one work-group sorts (1: always the radix sorts).
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace clprim {
namespace detail {

struct top_k_policy {
    bool select = true;
    std::size_t wg = 256;       // work-items per work-group of the filter, pass and gather kernels
    std::size_t groups = 1;     // work-groups of the grid-stride kernels (pass, gather)
    std::size_t items = 16;     // elements per work-item of the filter
    std::size_t samples = 4096; // m: samples of the threshold (at most n)
    std::size_t need = 1;       // the threshold is the sample of this rank (1-based); > samples: all
    std::size_t small = 1024;   // k up to this: the survivors sorted in one work-group's local memory
};

inline top_k_policy select_top_k_policy(const device_profile& profile, std::size_t n, std::size_t k,
                                        std::size_t key_bytes)
{
    top_k_policy p;
    p.select = k <= n / 4 && n < std::numeric_limits<cl_uint>::max();
    if (auto path = knob_choice("CLPRIM_TOPK_PATH", {"select", "sort"})) p.select = *path == 0;
    if (n >= std::numeric_limits<cl_uint>::max()) p.select = false; // 32-bit counters and indices
    // GPUs: 256 work-items, 8 work-groups per compute unit (grid-stride: enough to fill the
    // device, few local histograms to add up). CPU devices: one 64-wide group per compute unit.
    p.wg = profile.is_gpu() ? 256 : 64;
    std::size_t per_unit = profile.is_gpu() ? 8 : 1;
    // Samples in local memory (up to 32 KiB, at most 3/4 of it): 4096, two rounds of scattered
    // loads per work-item. More samples give fewer candidates, but the candidates' passes cost
    // about a launch each at these counts, while the samples' loads wait on memory.
    const std::size_t room = std::min<std::size_t>(32768, profile.local_mem_size / 4 * 3) / key_bytes;
    p.samples = 1;
    while (p.samples * 2 <= std::min<std::size_t>(room, 4096)) p.samples *= 2;
    std::size_t need = 0;
    if (auto t = knob_numbers("CLPRIM_TOPK_TUNE", 1, 4, 1, 1 << 16)) {
        p.wg = (*t)[0];
        if (t->size() > 1) per_unit = (*t)[1];
        if (t->size() > 2) p.samples = std::min<std::size_t>((*t)[2], room);
        if (t->size() > 3) need = (*t)[3];
    }
    p.samples = std::max<std::size_t>(1, std::min(p.samples, n));
    if (need == 0) {
        const double e = double(k) * double(p.samples) / double(std::max<std::size_t>(n, 1));
        need = std::size_t(std::ceil(e + 3 * std::sqrt(e) + 4));
    }
    p.need = std::min(need, p.samples + 1);
    // The small sort: (sortable key, index) pairs of up to 1024 in at most half of local memory.
    while (p.small > 1 && p.small * (key_bytes + 4) > profile.local_mem_size / 2) p.small /= 2;
    if (auto s = knob_number("CLPRIM_TOPK_SMALL", 1, 4096)) {
        p.small = 1;
        while (p.small * 2 <= *s) p.small *= 2;
    }
    p.wg = std::min(p.wg, profile.max_work_group_size);
    p.groups = std::max<std::size_t>(1, profile.compute_units * per_unit);
    return p;
}

} // namespace detail
} // namespace clprim
