#pragma once
// The tuning of clprim::segmented_reduce in one place: the path (GPU-shaped teams or the
// CPU-shaped one work-item per run of segments) and every constant. Not installed.
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

struct segmented_reduce_policy {
    bool cpu = false;          // the CPU-shaped path
    std::size_t wg = 256;      // work-items per group (teams kernel and chunks kernel)
    std::size_t team = 32;     // work-items per short segment (SR_TEAM)
    std::size_t long_len = 0;  // segments longer than this go to the chunks
    std::size_t chunk = 0;     // elements per chunk (one work-group each)
    std::size_t max_groups = 0;       // teams kernel: at most this many groups
    std::size_t chunk_groups = 0;     // chunks kernel: a fixed grid
    // GPU: everything in one launch (segmented_reduce_single.cl; 32-bit elements, 64-bit ones
    // with 64-bit atomics), about single_groups work-groups each owning an element range for the
    // long segments; otherwise teams + scan + chunks + finish.
    bool single = true;
    std::size_t single_groups = 0;
    // One launch: segments shorter than this are reduced by one work-item each (0: every short
    // segment by a team), so that many empty or tiny ones (100 000 empty beside one huge) cost a
    // round of wg segments, not a team round per few (H100, 2^26 uint, one_huge: 0.129 ms with
    // 0, 0.114 with 1, 0.112 with 16; power law 0.529 / 0.532 / 0.504; docs/RESULTS.md).
    std::size_t solo = 16;
    std::size_t loads = 4; // one launch: 16-byte loads in flight per work-item in a long piece
    std::size_t probes = 4; // one launch: offsets a work-item probes per round of its range's search
                            // (H100, 2^26: power law 0.501 / 0.506 ms against 0.508 with 1,
                            // segments of 65536 0.1065 / 0.1065 against 0.1057 / 0.1110)
    // One launch: the range's search stops at one walk step's candidates (SR_SEARCH_WALK; one
    // dependent round of offset reads less before a work-group streams: 100 000 empty segments
    // + one huge take 1 round instead of 2, 1024 segments none instead of 1). H100, 2^26, kernel
    // time, three processes each: one_huge 0.0989-0.0993 against 0.0995-0.0998 ms, segments of
    // 65536 0.0945-0.0948 against 0.0950-0.0955, power law 0.468 against 0.472; segments of
    // 1024 0.103 against 0.0997 (docs/RESULTS.md, s6-reduce).
    bool search_walk = true;
};

// n elements in num_segments segments (n / num_segments: the mean length; offsets are not read on
// the host). CLPRIM_SEGMENTED_PATH=gpu|cpu forces a path; CLPRIM_SEGMENTED_REDUCE_TUNE=
// "chunk_items[,chunk_groups_per_cu]" sets the GPU path's chunks (elements per work-item, grid), for
// measurements; a third number sets the one-launch grid (work-groups per compute unit);
// CLPRIM_SEGMENTED_REDUCE_LONG=single|chunks picks the GPU path's way with long segments (one
// launch, or teams + scan + chunks + finish); CLPRIM_SEGMENTED_REDUCE_SOLO=k sets the one-launch
// path's solo length (segments shorter than k by one work-item; 0: none);
// CLPRIM_SEGMENTED_REDUCE_LOADS=2|4|8 its loads in flight per work-item in a long piece;
// CLPRIM_SEGMENTED_REDUCE_PROBES=1|4 the probes a work-item makes per round of a range's search;
// CLPRIM_SEGMENTED_REDUCE_SEARCH=exact|walk where that search stops (search_walk).
inline segmented_reduce_policy select_segmented_reduce_policy(const device_profile& profile, std::size_t n,
                                                              std::size_t num_segments)
{
    segmented_reduce_policy p;
    bool cpu = profile.is_cpu();
    // The knobs are read only where one of the family's may be set (knobs_with_prefix: one pass
    // over the environment instead of a search per knob, at every call).
    const bool knobs = knobs_with_prefix("CLPRIM_SEGMENTED");
    if (knobs)
        if (const auto forced = knob_choice("CLPRIM_SEGMENTED_PATH", {"gpu", "cpu"})) cpu = *forced == 1;
    p.cpu = cpu;
    const std::size_t cu = std::max<std::size_t>(1, profile.compute_units);
    if (cpu) {
        // A work-group of one work-item owns a contiguous run of segments and reduces them one
        // after another; segments longer than 64 Ki elements are split into chunks so one huge
        // segment still uses every core.
        p.single = false;
        p.wg = 1;
        p.team = 1;
        p.long_len = std::size_t(1) << 16;
        p.chunk = std::size_t(1) << 16;
        p.max_groups = cu * 8;
        p.chunk_groups = cu * 4;
        return p;
    }
    // Teams sized to the mean length: about 4 elements per work-item, 1 to 32 work-items a
    // segment; a team reduces up to 64 elements per work-item before a segment counts as long.
    p.wg = 256;
    const std::size_t mean = num_segments ? n / num_segments : n;
    p.team = std::min<std::size_t>(32, std::max<std::size_t>(1, floor_pow2(std::max<std::size_t>(1, mean / 4))));
    p.long_len = p.team * 64;
    // Chunks of 64 elements a work-item (16 Ki with 256): fewer partials, tree steps and
    // segment searches per byte; a grid of about one chunk per group for 2^26 elements.
    // One launch: about 4 groups of 256 per compute unit (fewer: the range is a power of two),
    // one wave (H100, 2^26 in segments of 65536: 2 0.124, 4 0.114, 8 0.116 ms; docs/RESULTS.md).
    std::size_t chunk_items = 64, chunk_groups_per_cu = 32, single_groups_per_cu = 4;
    if (knobs) {
        if (const auto t = knob_numbers("CLPRIM_SEGMENTED_REDUCE_TUNE", 1, 3, 1)) {
            chunk_items = (*t)[0];
            if (t->size() > 1) chunk_groups_per_cu = (*t)[1];
            if (t->size() > 2) single_groups_per_cu = (*t)[2];
        }
        if (const auto forced = knob_choice("CLPRIM_SEGMENTED_REDUCE_LONG", {"single", "chunks"})) p.single = *forced == 0;
        if (const auto solo = knob_number("CLPRIM_SEGMENTED_REDUCE_SOLO", 0, 4096)) p.solo = *solo;
        if (const auto loads = knob_choice("CLPRIM_SEGMENTED_REDUCE_LOADS", {"2", "4", "8"}))
            p.loads = std::size_t(2) << *loads;
        if (const auto pr = knob_choice("CLPRIM_SEGMENTED_REDUCE_PROBES", {"1", "4"})) p.probes = *pr == 1 ? 4 : 1;
        if (const auto v = knob_choice("CLPRIM_SEGMENTED_REDUCE_SEARCH", {"exact", "walk"})) p.search_walk = *v == 1;
    }
    p.single_groups = cu * single_groups_per_cu;
    p.chunk = p.wg * chunk_items;
    p.max_groups = cu * 32;
    p.chunk_groups = cu * chunk_groups_per_cu;
    return p;
}

} // namespace detail
} // namespace clprim
