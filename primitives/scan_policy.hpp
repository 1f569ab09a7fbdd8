#pragma once
// The device-wide scan's tuning, in one place: the path, elements per work-item, the NVIDIA
// register cap and when one work-group scans every tile, from the device profile, with the knobs'
// overrides inside the select functions. Why these values: docs/RESULTS.md, "Tuning notes behind
// the policies" (scan). Private to the primitives layer.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/scan.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

// Up to this many tiles, one work-group scans them in a loop (one launch) rather than a level
// of tile kernels plus the scan of their sums (three launches, each costing microseconds).
constexpr std::size_t scan_single_group_tiles = 8;

// Which device-wide scan runs:
//  - lookback: every device that is not a CPU (GPUs and accelerators of any vendor). One pass,
//    every element read once and written once (decoupled look-back, lookback.cl), with the
//    decoupled fallback (scan_lookback.cl): a tile never waits without bound, so the path needs
//    no forward progress between work-groups and is safe on any device.
//  - chunks: CPU devices: a few long sequential runs per core, no barriers (two reads of the
//    input, but a CPU is bound by its cores long before its memory).
//  - tiles: reduce-then-scan over tiles (three passes over n): the textbook algorithms
//    (hillis_steele, blelloch), whatever the device; selectable for `fast`.
// CLPRIM_SCAN_PATH=lookback|chunks|tiles overrides the choice for `fast`, for tests and
// measurements (any path runs on any device).
enum class scan_path { lookback, chunks, tiles };

inline scan_path select_scan_path(const device_profile& profile, scan_algorithm algorithm)
{
    if (algorithm != scan_algorithm::fast) return scan_path::tiles;
    if (const auto forced = knob_choice("CLPRIM_SCAN_PATH", {"lookback", "chunks", "tiles"})) return scan_path(*forced);
    return profile.is_cpu() ? scan_path::chunks : scan_path::lookback;
}

// Elements per work-item: 32 four-byte (16 eight-byte) on GPUs, half that elsewhere.
// CLPRIM_SCAN_ITEMS overrides the four-byte figure (eight-byte elements take half).
inline std::size_t scan_items(const device_profile& profile, std::size_t elem)
{
    const std::size_t items = knob_number("CLPRIM_SCAN_ITEMS", 2, 64).value_or(profile.is_gpu() ? 32 : 16);
    return elem == 4 ? items : std::max<std::size_t>(1, items / 2);
}

// The register cap per work-item of the scan programs (-cl-nv-maxrregcount; 0: none): on NVIDIA
// 40 for 4-byte and 48 for 8-byte elements with the sum; 48 for a user's operator, whose programs
// also scan a work-item's elements one at a time in the store (scan_user_op_options): the
// max-scan's kernel spilled under 40 (H100, 2^26 uint, device time: 0.346 ms at 40, 0.311 at 48,
// 0.257 at 64; streamed and at 48: 0.232, the sum 0.228; docs/RESULTS.md, #27 s2-scan).
// CLPRIM_SCAN_OPTIONS with its own -cl-nv-maxrregcount replaces it.
inline std::size_t scan_register_cap(const device_profile& profile, std::size_t elem, bool user_op)
{
    if (!profile.nvidia) return 0;
    if (user_op) return 48;
    return elem == 4 ? 40 : 48;
}

// Build options of a user operator's scan programs: the store's scan one element at a time
// (scan.cl, SCAN_STREAM; the sum keeps the batched form, 1% quicker for it).
inline const char* scan_user_op_options() { return " -DSCAN_STREAM=1"; }

} // namespace detail
} // namespace clprim
