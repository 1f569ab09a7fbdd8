#pragma once
// The tuning of the radix sort's one-launch path for small ranges (sort_small.cpp, sort_small.cl):
// which kernel, elements per work-item and the largest range it takes, from the device profile,
// with the knobs' overrides. Why these values: docs/RESULTS.md, "#27 (s3-small)".
// Private to the algorithms layer.
#include "sort_support.hpp"

#include <clprim/detail/device_limits.hpp>

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

// registers (sort_small_registers): elements in registers, local memory only between groups of
// steps; network (sort_small): every step through local memory, one barrier per step; warp
// (sort_small_warp.cl): elements in registers, steps between work-items of a warp by shuffles on
// NVIDIA, only steps between warps through local memory.
enum class sort_small_kernel { registers, network, warp };

// CLPRIM_SORT_SMALL=registers|network|warp, CLPRIM_SORT_SMALL_ITEMS (elements per work-item of the
// registers and warp kernels, a power of two, 2..32) and CLPRIM_SORT_SMALL_MAX (the largest range the small
// path takes, up to 16384, as far as local memory allows) override, for measurements;
// CLPRIM_SORT_SMALL_TILES="max_keys[,kpt[,ballot]]" sets the few-tiles path's largest range (0:
// off), its keys per work-item and whether NVIDIA devices rank by warp votes (1) or portably (0).
// Defaults (H100, 2026-11-24): one work-group up to 4096 keys, 8 per work-item (16 at 4096: the
// group stays at 256; the warp kernel on NVIDIA: 4 per work-item from 1024 keys, 8 at 2048); few tiles of 256 x 4 keys up to 65536 (four launches for 32-bit keys; at
// 2^16 uint keys 0.0491 ms against 0.0518 with 256 x 6 and 0.0586 with 256 x 8, one session).
struct sort_small_policy {
    sort_small_kernel kernel = sort_small_kernel::registers;
    std::size_t items = 8;       // elements per work-item (registers kernel), more where the group would pass max_wg
    std::size_t items_from_1024 = 0; // the same from 1024 padded keys on (0: items)
    bool items_forced = false;   // CLPRIM_SORT_SMALL_ITEMS: exactly items (as far as the device's groups allow)
    std::size_t max_wg = 256;    // widest work-group (both kernels)
    std::size_t max_keys = 4096; // the largest range, before local memory's limit
    // Few tiles (sort_small_tiles.cl): ranges up to tiles_max keys that one work-group does not
    // hold take one launch per digit pass (0: that path is off); tiles of tiles_wg x tiles_kpt keys.
    std::size_t tiles_max = 65536;
    std::size_t tiles_wg = 256;
    std::size_t tiles_kpt = 4;
    bool tiles_ballot = true; // NVIDIA: the warp-vote ranking (inline PTX) where the compiler takes it
};

inline sort_small_policy select_sort_small_policy(const device_profile& profile)
{
    sort_small_policy p;
    // NVIDIA: the warp kernel, 4 elements per work-item from 1024 keys (H100, 1024 uint keys,
    // kernel us: registers 12.9-14.2, warp 8.7-10.5, warp with 4 a work-item 8.4-9.6; wall with
    // clFinish 0.0168-0.0216 ms against 0.0213-0.0258; docs/RESULTS.md, "#27 (s6-small)").
    if (profile.nvidia) {
        p.kernel = sort_small_kernel::warp;
        p.items_from_1024 = 4;
    }
    if (const auto k = knob_choice("CLPRIM_SORT_SMALL", {"registers", "network", "warp"})) p.kernel = sort_small_kernel(*k);
    if (const auto e = knob_number("CLPRIM_SORT_SMALL_ITEMS", 2, 32)) {
        p.items = floor_pow2(*e);
        p.items_forced = true;
    }
    if (const auto m = knob_number("CLPRIM_SORT_SMALL_MAX", 2, 16384)) p.max_keys = floor_pow2(*m);
    if (const auto t = knob_numbers("CLPRIM_SORT_SMALL_TILES", 1, 3)) {
        p.tiles_max = (*t)[0];
        if (t->size() > 1 && (*t)[1] >= 1) p.tiles_kpt = std::min<std::size_t>((*t)[1], 32);
        if (t->size() > 2) p.tiles_ballot = (*t)[2] != 0;
    }
    p.max_wg = std::min<std::size_t>(p.max_wg, floor_pow2(std::max<std::size_t>(1, profile.max_work_group_size)));
    return p;
}

// The registers kernel's elements per work-item for a padded size P (a power of two >= 2): the
// policy's items, at most P, at least P / max_wg (and P / the device's widest group when forced).
inline std::size_t sort_small_items(const sort_small_policy& p, const device_profile& profile, std::size_t padded)
{
    const std::size_t device_wg = floor_pow2(std::max<std::size_t>(1, profile.max_work_group_size));
    const bool large = p.kernel == sort_small_kernel::warp && p.items_from_1024 && padded >= 1024;
    const std::size_t want = !p.items_forced && large ? p.items_from_1024 : p.items;
    std::size_t e = std::min(want, padded);
    e = std::max(e, padded / (p.items_forced ? device_wg : p.max_wg));
    return std::max<std::size_t>(e, std::min<std::size_t>(2, padded));
}

} // namespace detail
} // namespace clprim
