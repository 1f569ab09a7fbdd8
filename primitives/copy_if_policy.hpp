#pragma once
// copy_if's tuning, in one place: the path and the tile shape, from the device profile, with the
// knobs' overrides inside. Why these values: docs/RESULTS.md, "Tuning notes behind the policies"
// (copy_if). Private to the primitives layer.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace clprim {
namespace detail {

// Which copy_if runs:
//  - single_pass: one launch (copy_if_lookback.cl). A tile loads its elements coalesced, evaluates
//    the predicate, scans its flags in the work-group, finds where its output starts by the
//    decoupled look-back over the earlier tiles' counts (lookback.cl, with the decoupled
//    fallback: no forward progress between work-groups is assumed, so any device may take it),
//    compacts its kept elements in local memory and writes them contiguously; the last tile
//    writes the count. Every element read once, every kept one written once. Every device that
//    is not a CPU, for ranges below 2^32 elements (the look-back carries 32-bit counts).
//  - three_pass: count per tile, scan of the counts (clprim's scan), compacting scatter
//    (copy_if.cl): reads the input twice. CPU devices for ranges of more than one tile (PoCL, 2
//    cores, 2^24 uint keeping half: 223 ms against 345 for the single pass, whose work-groups
//    of 256 run as loops with a barrier per step), and ranges of 2^32 elements or more. A range
//    that fits one tile takes the single pass everywhere: one launch, no look-back (PoCL, 1024
//    uint: 0.039 ms against 0.094).
// CLPRIM_COPY_IF_PATH=single_pass|three_pass forces one (any path runs on any device; 2^32
// elements or more always take three_pass). CLPRIM_COPY_IF_TUNE="wg,items" sets the single-pass
// tile (measurements, tests: tiny tiles make many tiles from few elements).
enum class copy_if_path { single_pass, three_pass };

struct copy_if_policy {
    copy_if_path path = copy_if_path::three_pass;
    std::size_t wg = 256;    // work-items per tile (a cap: the kernel's limits may lower it)
    std::size_t items = 16;  // elements per work-item
};

inline copy_if_policy select_copy_if_policy(const device_profile& profile, std::size_t elem, std::size_t n)
{
    copy_if_policy p;
    // GPUs: 96 bytes per work-item (24 four-byte / 12 eight-byte elements; H100, 2^26 uint keeping
    // half, kernel time: 256 x 24 0.244 ms, 256 x 16 0.277, 128 x 32 0.280); elsewhere 64 bytes.
    p.wg = 256;
    p.items = profile.is_gpu() ? (elem == 4 ? 24 : 12) : (elem == 4 ? 16 : 8);
    if (const auto tune = knob_numbers("CLPRIM_COPY_IF_TUNE", 2, 2, 1, 1024)) {
        p.wg = (*tune)[0];
        p.items = std::min<std::size_t>((*tune)[1], 32); // a 32-bit mask of kept elements per work-item
    }
    const bool one_tile = n <= p.wg * p.items;
    p.path = profile.is_cpu() && !one_tile ? copy_if_path::three_pass : copy_if_path::single_pass;
    if (const auto forced = knob_choice("CLPRIM_COPY_IF_PATH", {"single_pass", "three_pass"}))
        p.path = copy_if_path(*forced);
    if (std::uint64_t(n) >= (std::uint64_t(1) << 32)) p.path = copy_if_path::three_pass;
    return p;
}

} // namespace detail
} // namespace clprim
