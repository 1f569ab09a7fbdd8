#pragma once
// The tuning of clprim::segmented_sort in one place: the path (GPU size classes in local memory
// or the CPU-shaped sequential one) and every constant. Not installed.
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>

namespace clprim {
namespace detail {

struct segmented_sort_policy {
    bool cpu = false;
    std::size_t tile = 4096;     // GPU: elements a work-group holds in local memory; CPU: the
                                 // longest segment sorted by one work-item (longer: radix sort)
    std::size_t wg = 256;        // GPU: work-items of segsort_local
    std::size_t min_log = 5;     // GPU size classes: slices of 2^(min_log + step_log * c), the
    std::size_t step_log = 1;    // last one `tile` (32, 64, ..., 4096 for 4-byte keys: a
                                 // segment is padded to less than twice its length)
    std::size_t classes = 1;     // local classes (slices)
    std::size_t spt = 16;        // segments per work-item when binning
    std::size_t groups = 0;      // GPU: persistent groups per class launch; CPU: work-items
    // Segments longer than `tile`: up to `calls_up_to` of them one radix sort call each (the
    // device-wide one-sweep on the sub-range, no copy); more: all in one segmented LSD radix sort
    // (lsd: segmented_sort_lsd.cl, tiles of lsd_wg * lsd_kpt keys), or its pass on the top digit
    // followed by a segmented sort of the digits' sub-segments (msd), or, 32-bit keys, one radix
    // sort of packed (segment, key) words (packed).
    enum class long_mode { lsd, packed, msd } many_long = long_mode::lsd;
    std::size_t calls_up_to = 8;
    // msd: the digit of its one pass ends at the highest bit in which some long segment's keys
    // differ (one more read of the keys: ssr_span), or is the key's top digit.
    bool msd_span = true;
    std::size_t lsd_wg = 256, lsd_kpt = 16;
    // GPU: segments of the smallest class (tiny = slice(0); 0: off) are counted by the binning
    // but not listed, and sorted by number: a warp each with lanes exchanging keys (tiny_warp:
    // segmented_sort_tiny.cl, keys of up to 32 bits without values; tiny_shuffle: by NVIDIA's
    // shfl.sync) or by segsort_local's direct mode (H100, 2^21 segments of 32: warp 0.35 ms,
    // direct 0.50, binned 0.52; docs/RESULTS.md).
    std::size_t tiny = 0;
    // Inputs longer than the tile: the class counts and the long segments' ranges first, in one
    // launch (segsort_scout), and the class lists after the long sorts, only where a listed class
    // has segments (scout), or always and while the counts come back (early); or the lists
    // always, the class starts then read from them (lists). By default (automatic) the scout
    // where segments average at most the tiny class's length (most need no list), else the
    // lists (H100 2^26 uint, lists / scout: segments of 32 0.30 / 0.27-0.30 ms, 1024 0.77 / 0.80-0.84,
    // 65536 1.88 / 2.00, one huge 1.62-1.64 / 1.61-1.65).
    enum class bin_mode { scout, early, lists, automatic } bin = bin_mode::automatic;
    bin_mode bin_for(std::size_t n, std::size_t num_segments) const
    {
        if (bin != bin_mode::automatic) return bin;
        return !cpu && tiny > 0 && num_segments * tiny >= n ? bin_mode::scout : bin_mode::lists;
    }
    bool tiny_warp = false, tiny_shuffle = false;
    // CPU path (segmented_sort_cpu.cl): segments of at most cpu_rank keys (64 at most) by a
    // rank sort in private memory, longer ones by an LSD radix sort, each by one work-item.
    std::size_t cpu_rank = 64;
    // CPU path: the radix sort of a segment of up to cpu_reuse keys ping-pongs with the
    // work-item's own slice of the scratch (in cache from its last segment), a longer one with
    // the segment's own positions (PoCL, 2^20 uint, CPU time: segments of 256 6.5 -> 5.3 ms,
    // 1024 5.1 -> 4.6, 4096 4.3 -> 4.1).
    std::size_t cpu_reuse = 4096;
    // CPU path: a work-item sorts segments of up to max(tile, n / cpu_split) keys (more would
    // leave cores idle while it works; 0: up to tile).
    std::size_t cpu_split = 0;
    // The longest segment the size classes take (longer ones: the long path), for n keys.
    std::size_t longest(std::size_t n) const { return cpu && cpu_split ? std::max(tile, n / cpu_split) : tile; }
    std::size_t slice(std::size_t c) const
    {
        return c + 1 == classes ? tile : std::size_t(1) << (min_log + step_log * c);
    }
};

// key_bytes: the key's size; has_values: values travel with the keys (the local memory then
// holds a tag beside each key).
// CLPRIM_SEGMENTED_PATH=gpu|cpu forces a path; CLPRIM_SEGMENTED_LONG=calls|lsd|packed|msd how
// the segments longer than the tile are sorted (calls: one radix sort each, however many);
// CLPRIM_SEGMENTED_TUNE="items[,tile[,lsd_kpt[,spt]]]" sets the GPU path's registers per
// work-item, tile, LSD keys per work-item and segments per binning work-item, for measurements;
// CLPRIM_SEGMENTED_TINY=warp|direct|binned: segments of the smallest class by number, a warp
// each (where the keys allow) or segsort_local's direct mode, or binned like the others;
// CLPRIM_SEGMENTED_BIN=scout|early|lists: the class counts and long ranges read before the lists
// are made, or while they are made, or the lists always; CLPRIM_SEGMENTED_MSD_DIGIT=span|top: the MSD form's digit;
// CLPRIM_SEGMENTED_CPU="rank[,tile[,groups]]" the CPU path's longest rank-sorted segment, longest
// segment a work-item sorts and work-items (measurements).
inline segmented_sort_policy select_segmented_sort_policy(const device_profile& profile, std::size_t key_bytes,
                                                          bool has_values)
{
    segmented_sort_policy p;
    bool cpu = profile.is_cpu();
    if (const auto forced = knob_choice("CLPRIM_SEGMENTED_PATH", {"gpu", "cpu"})) cpu = *forced == 1;
    p.cpu = cpu;
    const std::size_t cu = std::max<std::size_t>(1, profile.compute_units);
    // The LSD's tile: 4096 keys of 4 bytes (16 KiB of keys, 16 KiB of rank table), 2048 of 8;
    // halved until its local memory fits the device's.
    const std::size_t local = profile.local_mem_size ? profile.local_mem_size : 32768;
    p.lsd_wg = cpu ? 64 : 256;
    // H100, 2^26 uint in 1024 segments of 65536 (docs/RESULTS.md): 16 keys a work-item 3.12 ms,
    // 24 keys 3.16 ms.
    p.lsd_kpt = cpu ? 32 : (key_bytes > 4 ? 8 : 16);
    // Segments per binning work-item: 8 (H100, 2^21 segments of 32: 0.504 ms; 16: 0.536; 32: 0.580).
    if (!cpu) p.spt = 8;
    const auto tune = cpu ? std::nullopt : knob_numbers("CLPRIM_SEGMENTED_TUNE", 1, 4);
    if (tune && tune->size() > 2) p.lsd_kpt = std::max<std::size_t>(1, (*tune)[2]);
    if (tune && tune->size() > 3) p.spt = std::max<std::size_t>(1, (*tune)[3]);
    auto lsd_bytes = [&](std::size_t kpt) {
        const std::size_t t = p.lsd_wg * kpt, pad = t + t / 32 + 1;
        return pad * (key_bytes + (has_values ? 2 : 0)) + (16 * p.lsd_wg * 33 / 32 + 1) * 4 +
               (2 * p.lsd_wg + p.lsd_wg / 16 + 1) * 4 + 256 * 4 + 64;
    };
    while (p.lsd_kpt > 1 && lsd_bytes(p.lsd_kpt) > local) p.lsd_kpt /= 2;
    // CPU devices (PoCL, 2^20 keys in 15 segments of 65536: packed 49 ms, LSD 172 ms): packed.
    // GPUs: the MSD form (H100, 2^26 uint in segments of 65536: 1.98 ms against the LSD's 2.91).
    p.many_long = cpu ? segmented_sort_policy::long_mode::packed : segmented_sort_policy::long_mode::msd;
    if (const auto b = knob_choice("CLPRIM_SEGMENTED_BIN", {"scout", "early", "lists"}))
        p.bin = segmented_sort_policy::bin_mode(*b);
    if (const auto d = knob_choice("CLPRIM_SEGMENTED_MSD_DIGIT", {"span", "top"})) p.msd_span = *d == 0;
    if (const auto forced = knob_choice("CLPRIM_SEGMENTED_LONG", {"calls", "lsd", "packed", "msd"})) {
        using m = segmented_sort_policy::long_mode;
        if (*forced == 0) p.calls_up_to = std::size_t(-1);
        else p.many_long = *forced == 1 ? m::lsd : *forced == 2 ? m::packed : m::msd;
    }
    if (cpu) {
        // Segments longer than max(4096, n / (4 cu)) go to the long path (packed, or one radix
        // call each): one work-item's sort of a segment that long would leave the other cores
        // idle (PoCL, 2^20 uint: 16 segments of 65536 by a work-item each 4.2-5.6 ms, by the
        // packed sort 14-15; docs/RESULTS.md).
        p.tile = 4096;
        p.cpu_split = cu * 4;
        p.classes = 1;
        p.groups = cu * 8;
        if (const auto t = knob_numbers("CLPRIM_SEGMENTED_CPU", 1, 3)) {
            p.cpu_rank = std::min<std::size_t>(std::max<std::size_t>(1, (*t)[0]), 64);
            if (t->size() > 1) {
                p.tile = std::max<std::size_t>(64, (*t)[1]);
                p.cpu_split = 0;
            }
            if (t->size() > 2) p.groups = std::max<std::size_t>(1, (*t)[2]);
        }
        return p;
    }
    // The local tile: keys alone 4 bytes an element (sortable key), with values 8 (key and tag
    // packed, keys up to 4 bytes) or key + 4; as long as it fits, at most 8192. A work-item keeps
    // `items` consecutive elements in registers (the network's steps below that distance need no
    // local memory).
    const std::size_t elem = !has_values ? key_bytes : (key_bytes <= 4 ? 8 : key_bytes + 4);
    auto bytes = [&](std::size_t t) { return (t + t / 32) * elem + (t >> p.min_log) * 12 + 256; };
    p.tile = 8192;
    while (p.tile > 64 && bytes(p.tile) > local) p.tile /= 2;
    // H100 (docs/RESULTS.md): keys alone 32 a work-item, pairs 16 (segments of 32 by key: 0.90
    // against 1.07 ms with 32).
    std::size_t items = has_values ? 16 : 32;
    if (const auto& t = tune) {
        items = floor_pow2(std::max<std::size_t>(2, (*t)[0]));
        if (t->size() > 1) p.tile = std::min(p.tile, floor_pow2(std::max<std::size_t>(64, (*t)[1])));
    }
    items = std::min(items, p.tile / 2);
    p.wg = std::min<std::size_t>(std::max<std::size_t>(1, profile.max_work_group_size), p.tile / items);
    p.wg = floor_pow2(std::max<std::size_t>(1, p.wg));
    while (p.tile / p.wg > 64 && p.tile > 64) p.tile /= 2; // a work-group too small for the tile
    p.classes = 1;
    while ((std::size_t(1) << (p.min_log + p.step_log * (p.classes - 1))) < p.tile) ++p.classes;
    p.groups = cu * 128; // groups of a class launch at most (they loop over the rest)
    p.tiny = p.slice(0);
    p.tiny_shuffle = profile.nvidia;
    p.tiny_warp = p.tiny_shuffle && key_bytes <= 4 && !has_values && p.slice(0) == 32 && p.wg % 32 == 0;
    if (const auto t = knob_choice("CLPRIM_SEGMENTED_TINY", {"warp", "direct", "binned"})) {
        p.tiny = *t == 2 ? 0 : p.slice(0);
        p.tiny_warp = *t == 0 && key_bytes <= 4 && !has_values && p.slice(0) == 32 && p.wg % 32 == 0;
    }
    return p;
}

} // namespace detail
} // namespace clprim
