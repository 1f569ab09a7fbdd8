#pragma once
// The radix sort's tuning, in one place: which path runs, the one-sweep tile shape, the multi-pass
// constants and the CPU path's shape, from the device profile, with the knobs' overrides inside the
// select functions. Why these values: docs/RESULTS.md, "Tuning notes behind the policies" (radix).
// Private to the algorithms layer.
#include "radix_onesweep_layout.cl"
#include "sort_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/lookback_slots.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

namespace clprim {
namespace detail {

// ---- The path ---------------------------------------------------------------------------------
// Which radix sort runs:
//  - onesweep (radix_onesweep.cpp): every device that is not a CPU (GPUs and accelerators of any
//    vendor), at every n (from 2^30 keys one launch per pass and portion of below 2^30 keys).
//    One read and one write of the keys per 8-bit digit, chained across work-groups by
//    decoupled look-back with its fallback (lookback.cl): a tile whose predecessor stalls counts
//    that tile's digits itself, so no forward progress between work-groups is assumed. Ranks
//    with NVIDIA's match.any where the compiler takes inline PTX, else portably
//    (onesweep_portable).
//  - small (sort_small.cpp): the same devices, n up to what one work-group's local memory holds
//    (4096 4-byte keys): one launch, a bitonic network over (key, index) pairs, where the
//    one-sweep path's five launches would cost more than the keys (its kernel and limit:
//    sort_small_policy.hpp).
//  - cpu (radix_sort_cpu.cpp): CPU devices: a contiguous chunk per work-item, no barriers.
//  - multipass (radix_multipass.cpp): Zagha & Blelloch's count / scan / scatter per digit, the
//    textbook algorithm: only where forced (tests, measurements).
// CLPRIM_RADIX_PATH=onesweep|onesweep_portable|multipass|cpu|small forces a path (for tests and
// measurements; onesweep falls back to onesweep_portable where match.any is not available, small
// to the device's choice where n does not fit).
enum class radix_path { onesweep, onesweep_portable, multipass, cpu, small };

// fits_small: n fits the small path on this device; fits_onesweep: n fits the one-sweep counts;
// match_any(): whether the device takes the match.any ranking (asked only where it matters).
template <class MatchAny>
radix_path select_radix_path(const device_profile& profile, bool fits_small, bool fits_onesweep, MatchAny&& match_any)
{
    auto onesweep = [&] { return match_any() ? radix_path::onesweep : radix_path::onesweep_portable; };
    if (const auto forced = knob_choice("CLPRIM_RADIX_PATH", {"onesweep", "onesweep_portable", "multipass", "cpu", "small"})) {
        const radix_path p = radix_path(*forced);
        if (p == radix_path::cpu || p == radix_path::multipass) return p;
        if (p == radix_path::small && fits_small) return p;
        if (p != radix_path::small && fits_onesweep) return p == radix_path::onesweep ? onesweep() : radix_path::onesweep_portable;
    }
    if (profile.is_cpu()) return radix_path::cpu;
    if (fits_small) return radix_path::small;
    if (fits_onesweep) return onesweep();
    return radix_path::multipass;
}

// ---- One-sweep --------------------------------------------------------------------------------
constexpr unsigned onesweep_radix_bits = 8;

// CLPRIM_ONESWEEP_TRACE=file (measurement only, NVIDIA): every call waits for the device and
// appends a timeline of its tiles to the file (radix_onesweep.cl, LB_TRACE); the file is
// started afresh by the process's first call.
inline std::optional<std::string> onesweep_trace_path() { return knob_text("CLPRIM_ONESWEEP_TRACE"); }

// A tile is wg * kpt keys: larger tiles mean fewer look-back slots and tiles to chain, but more
// registers and local memory per work-group. 256 work-items; keys per work-item: 24 for 32-bit
// (and 8-bit) keys alone, 32 for 16-bit keys alone, 28 for keys of up to 32 bits with values, 17
// for 64-bit keys (the most whose tile fits 48 KiB of local memory); the caller takes fewer where
// the built kernel's local memory is too much (pairs with wide values).
// Histogram: at least 4 rounds of WG * HIST_KEYS keys per work-group, 4 groups per compute unit.
// Portion: the most keys one pass launch takes (radix_onesweep.cpp: a look-back slot counts
// below 2^30; a sort's portions are evened out). CLPRIM_ONESWEEP_PORTION=<keys> sets it exactly
// and builds the kernels with portions at any n (tests: many portions at small n; the host
// rounds it down to whole tiles; measurements: the portions' cost at one portion).
// CLPRIM_ONESWEEP_TUNE="wg,kpt[,rounds[,groups per compute unit]]" overrides, for measurements;
// CLPRIM_ONESWEEP_OPTIONS adds build options (e.g. -DLB_BATCH=16, -DLB_SLEEP_NS=0,
// -cl-nv-maxrregcount=64), for measurements too.
struct onesweep_policy {
    std::size_t wg = 256;
    std::size_t kpt = 16;
    std::size_t histogram_groups_per_cu = 4;
    std::size_t histogram_rounds = 4; // at least this many rounds of WG*HIST_KEYS keys per group
    std::size_t value_piece = 4;      // bytes of a value staged through local memory at a time
    std::size_t portion_keys = (std::size_t(1) << 30) - 1; // at most, per pass launch
    bool exact_portion = false;       // portion_keys exactly (whole tiles), not evened out (tests)
    std::string extra_options;
};

// Small inputs (issue #27): up to 2^18 keys a pass is a few dozen tiles and its time is latency,
// not memory: smaller tiles (256 x 8 keys) finish sooner and the histogram runs one round per
// work-group. H100, 2^16 uint keys: 0.0528 ms against 0.0667 at 256 x 24 with 4 rounds; 2^18:
// 0.0611 against 0.0730; pairs, float and ulong keys alike (docs/RESULTS.md, "#27 (s3-small)").
constexpr std::size_t onesweep_small_input = std::size_t(1) << 18;
inline void onesweep_small_input_shape(onesweep_policy& t, std::size_t n)
{
    if (n > onesweep_small_input) return;
    t.kpt = 8;
    t.histogram_rounds = 1;
}

inline onesweep_policy select_onesweep_policy(const device_profile& profile, const sort_request& r)
{
    onesweep_policy t;
    const std::size_t key_size = size_of(r.key_type);
    t.kpt = key_size <= 4 ? (r.has_values ? 28 : (key_size == 2 ? 32 : 24)) : 17;
    onesweep_small_input_shape(t, r.keys.size);
    if (const auto v = knob_numbers("CLPRIM_ONESWEEP_TUNE", 2, 4)) {
        t.wg = std::max<std::size_t>(std::size_t(1) << onesweep_radix_bits, (*v)[0] / 32 * 32);
        t.kpt = std::max<std::size_t>(1, (*v)[1]);
        if (v->size() > 2) t.histogram_rounds = std::max<std::size_t>(1, (*v)[2]);
        if (v->size() > 3) t.histogram_groups_per_cu = std::max<std::size_t>(1, (*v)[3]);
    }
    if (const auto v = knob_number("CLPRIM_ONESWEEP_PORTION", 1, t.portion_keys)) {
        t.portion_keys = *v;
        t.exact_portion = true;
    }
    // Values go through local memory a piece at a time: whole up to 16 bytes, 32-byte vector
    // values in two 16-byte pieces. H100, 2^26 uint -> float4: whole values 6.09 ms (the tile cut
    // to 256 x 6 keys to fit), 8-byte pieces 8.01 ms (256 x 11), 4-byte 10.43 ms (256 x 28):
    // smaller pieces mean more, narrower global stores. CLPRIM_ONESWEEP_VALUE_PIECE=4|8|16 overrides.
    const std::size_t vbytes = r.has_values ? size_of(r.value_type) : 4;
    t.value_piece = std::min<std::size_t>(vbytes, 16);
    if (const auto piece = knob_number("CLPRIM_ONESWEEP_VALUE_PIECE", 4, 16))
        if (*piece == 4 || *piece == 8 || *piece == 16) t.value_piece = std::min<std::size_t>(vbytes, *piece);
    t.extra_options = knob_options("CLPRIM_ONESWEEP_OPTIONS");
    // Pieces wider than the keys: staged over the keys' local array (V_OVER_KEYS, sized for the
    // pieces) rather than beside it, so that more keys per work-item fit the local memory. On
    // for 16-byte pieces (where measured: uint -> float4), off for narrower ones (not measured).
    // CLPRIM_ONESWEEP_VALUE_OVER_KEYS=0|1 overrides.
    const bool wide_pieces = r.has_values && t.value_piece > key_size;
    if (wide_pieces && knob_number("CLPRIM_ONESWEEP_VALUE_OVER_KEYS", 0, 1).value_or(t.value_piece >= 16 ? 1 : 0) == 1)
        t.extra_options += " -DV_OVER_KEYS";
    if (onesweep_trace_path()) t.extra_options += " -DLB_TRACE";
    t.extra_options += lookback_build_options(); // CLPRIM_LOOKBACK=fallback: every tile takes it
    // The look-back's fallback costs the one-sweep pass 3% (uint) to 6% (ulong) on the H100 with
    // no tile ever stalled (docs/RESULTS.md, "#27: the fallback's cost"). NVIDIA GPUs run a resident
    // work-group to completion (what CUB's one-sweep sort relies on too), so their builds leave it
    // out; every other device keeps it, and CLPRIM_LOOKBACK=fallback builds it in anywhere (tests).
    if (profile.nvidia && profile.is_gpu() && profile.progress == forward_progress::resident &&
        t.extra_options.find("LB_FALLBACK") == std::string::npos)
        t.extra_options += " -DLB_FALLBACK=0";
    return t;
}

// ---- Multi-pass -------------------------------------------------------------------------------
// Digit width: 8 bits halves the passes of a 4-bit sort; the tile is ranked 4 bits at a time in
// local memory (radix_sort.cl, rank_bins), so wider digits cost little more per pass.
constexpr unsigned multipass_radix_bits = 8;
constexpr unsigned multipass_rank_bins = 16;

// Work-group size and the most keys per work-item (the caller takes fewer where local memory or
// the built kernels ask), and the kernel variant bits (radix_sort.cl): bit 0 RANK_PACKED, bit 1
// STAGE_VALUES (pairs whose values are no wider than the keys), bit 2 BLOCKED_LOAD. GPUs: 256
// work-items, 20 keys each for 32-bit keys alone, 12 with values or 64-bit keys, all three
// variants; other devices: 64 x 64, no variant. CLPRIM_RADIX_TUNE="wg,kpt" and
// CLPRIM_RADIX_VARIANT override, for measurements.
struct multipass_policy {
    std::size_t wg = 256;
    std::size_t max_kpt = 12;
    unsigned variant = 0;
};

inline multipass_policy select_multipass_policy(const device_profile& profile, const sort_request& r)
{
    multipass_policy p;
    const bool gpu = profile.is_gpu();
    const std::size_t key_size = size_of(r.key_type);
    p.wg = std::min<std::size_t>(gpu ? 256 : 64, floor_pow2(profile.max_work_group_size));
    p.max_kpt = gpu ? (r.has_values || key_size > 4 ? 12 : 20) : 64;
    if (const auto t = knob_numbers("CLPRIM_RADIX_TUNE", 2, 2)) {
        p.wg = std::max<std::size_t>(multipass_rank_bins, floor_pow2(std::max<std::size_t>(1, (*t)[0])));
        p.max_kpt = std::max<std::size_t>(1, (*t)[1]);
    }
    p.variant = gpu ? 7u : 0u;
    if (const auto v = knob_number("CLPRIM_RADIX_VARIANT", 0, 7)) p.variant = unsigned(*v);
    return p;
}

// ---- CPU path ---------------------------------------------------------------------------------
// 11-bit digits for 32-bit keys (3 passes), 8 for 64-bit keys; 4 chunks per compute unit, none
// shorter than 4096 keys; no write-combining lines (WC_LINE). CLPRIM_RADIX_CPU_TUNE="bits,chunks,wc"
// overrides all three, for measurements.
struct radix_cpu_policy {
    unsigned digit_bits = 8;  // 2^digit_bits buckets per pass
    std::size_t chunks = 1;   // work-items, each owning one contiguous chunk
    unsigned wc_line = 0;     // keys per write-combining line per digit (0: write each key directly)
};

inline radix_cpu_policy select_radix_cpu_policy(const device_profile& profile, const sort_request& r)
{
    radix_cpu_policy p;
    const std::size_t n = r.keys.size;
    p.digit_bits = size_of(r.key_type) == 4 ? 11 : 8; // 8/16-bit keys: one or two 8-bit digits
    p.chunks = 4 * profile.compute_units;
    p.wc_line = 0;
    if (const auto t = knob_numbers("CLPRIM_RADIX_CPU_TUNE", 1, 3)) {
        if ((*t)[0] >= 4 && (*t)[0] <= 12) p.digit_bits = unsigned((*t)[0]);
        if (t->size() > 1 && (*t)[1] >= 1) p.chunks = (*t)[1];
        if (t->size() > 2) p.wc_line = unsigned(std::min<std::size_t>(255, (*t)[2]));
    }
    // Small inputs: no chunk shorter than 4096 keys (a launch costs more than that much work).
    p.chunks = std::max<std::size_t>(1, std::min(p.chunks, ceil_div(n, 4096)));
    // The write-combining lines live in local memory (one line per digit, keys and values).
    const std::size_t per_key = size_of(r.key_type) + (r.has_values ? size_of(r.value_type) : 0);
    while (p.wc_line > 1 && (std::size_t(p.wc_line) << p.digit_bits) * per_key > profile.local_mem_size)
        p.wc_line /= 2;
    if (p.wc_line < 2) p.wc_line = 0;
    return p;
}

} // namespace detail
} // namespace clprim
