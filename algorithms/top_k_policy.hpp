#pragma once
// The top_k tuning policy (issue #30): which path and its shape, chosen in this one place.
// Measurement notes go to docs/RESULTS.md.
//  - select: a radix select on the device (top_k.cl: 8-bit digits of (sortable key, index), a
//    histogram and a one-work-group scan per digit, the candidates of the first digit compacted),
//    then a stable radix sort of the k survivors. Reads the input twice.
//  - sort: a stable radix sort of every (sortable key, index) pair, then the first k.
// select unless k is a large share of n (then sorting the survivors costs about a full sort
// anyway) or n does not fit the 32-bit counters. CLPRIM_TOPK_PATH=select|sort forces one (tests
// run both on PoCL), CLPRIM_TOPK_TUNE="wg,groups_per_unit" the select kernels' shape.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace clprim {
namespace detail {

struct top_k_policy {
    bool select = true;
    std::size_t wg = 256;    // work-items per work-group of the grid-stride kernels
    std::size_t groups = 1;  // work-groups of the grid-stride kernels
};

inline top_k_policy select_top_k_policy(const device_profile& profile, std::size_t n, std::size_t k)
{
    top_k_policy p;
    p.select = k <= n / 4 && n < std::numeric_limits<cl_uint>::max();
    if (auto path = knob_choice("CLPRIM_TOPK_PATH", {"select", "sort"})) p.select = *path == 0;
    if (n >= std::numeric_limits<cl_uint>::max()) p.select = false; // 32-bit counters and indices
    // GPUs: 256 work-items, 8 work-groups per compute unit (grid-stride: enough to fill the
    // device, few local histograms to add up). CPU devices: one 64-wide group per compute unit.
    p.wg = profile.is_gpu() ? 256 : 64;
    std::size_t per_unit = profile.is_gpu() ? 8 : 1;
    if (auto t = knob_numbers("CLPRIM_TOPK_TUNE", 1, 2, 1, 4096)) {
        p.wg = (*t)[0];
        if (t->size() > 1) per_unit = (*t)[1];
    }
    p.wg = std::min(p.wg, profile.max_work_group_size);
    p.groups = std::max<std::size_t>(1, profile.compute_units * per_unit);
    return p;
}

} // namespace detail
} // namespace clprim
