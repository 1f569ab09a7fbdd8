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
// tile (measurements, tests: tiny tiles make many tiles from few elements); a range of at most
// 4 x 256 elements otherwise takes one tile of 256 x 4 (one work-group, no look-back, the
// fewest loop steps).
//
// The single-pass kernel's variants (copy_if_lookback.cl), each with a measurement knob:
//  - compact (CLPRIM_COPY_IF_COMPACT=gather|in_place|rows): how a tile compacts its kept elements
//    in local memory before its one contiguous store: their positions (2 bytes each) then a
//    gather in the store, or the values moved down in place (no position array: a third less
//    local memory per work-group), or by rows: loaded straight into registers, ranked by a warp
//    vote per row of 32 elements, written once to their compacted places (work-groups a
//    multiple of 32; NVIDIA's votes, elsewhere a slow portable stand-in for tests);
//  - vec (CLPRIM_COPY_IF_VEC=0|1): 16-byte vector loads of full tiles (4- and 8-byte types);
//    by rows CLPRIM_COPY_IF_ROWS_VEC=0|1: registers of 16-byte vectors, a row of a warp 32
//    vectors, ranked by a vote per bit of each work-item's count in it;
//  - warp_scan (CLPRIM_COPY_IF_WARP=0|1): the tile's scan by warp shuffles (NVIDIA's inline
//    PTX; other devices always take the local-memory scan).
//  - look-back (CLPRIM_COPY_IF_LOOKBACK=window|warp): the work-group's window look-back
//    (scan_window_lookback.cl) or one warp walking with votes and shuffles (NVIDIA, with
//    warp_scan's conditions; elsewhere always the window);
//  - the warp walk's reach (CLPRIM_COPY_IF_WALK_READS=1|2|4): slots each lane reads per round
//    trip (32, 64 or 128 predecessors at once);
//  - tile order (CLPRIM_COPY_IF_ORDER=start|group): tiles numbered in the order the work-groups
//    start (an atomic counter before the loads) or by group id (the loads start at once; safe
//    only because the look-back's decoupled fallback never waits without bound).
// CLPRIM_COPY_IF_READ=pinned|plain|finish|async|map|flush_pinned|flush_async|spin: how the value-returning call reads the count
// (copy_if_read below; the pinned word: reduce_pinned.hpp).
enum class copy_if_path { single_pass, three_pass };
enum class copy_if_compact { gather, in_place, rows };
// pinned: a blocking read into this host thread's pinned word; plain: a blocking read into the
// variable; finish: clFinish, then the blocking read into the pinned word; async: a non-blocking
// read into the pinned word, then clFinish; map: the kernel writes the count into a zero-copy
// word (CL_MEM_ALLOC_HOST_PTR, one per host thread and queue), mapped after the kernel (the
// blocking map waits for it) and unmapped again; flush_pinned / flush_async: pinned / async after a
// clFlush (the kernel submitted before the read's enqueue work; count_read.hpp); spin: the host
// polls the read's event (count_read.hpp).
enum class copy_if_read { pinned, plain, finish, async, map, flush_pinned, flush_async, spin };

struct copy_if_policy {
    copy_if_path path = copy_if_path::three_pass;
    std::size_t wg = 256;    // work-items per tile (a cap: the kernel's limits may lower it)
    std::size_t items = 16;  // elements per work-item
    copy_if_compact compact = copy_if_compact::in_place;
    bool vec = true;         // 16-byte loads where the type and the items allow (copy_if.cpp)
    bool warp_scan = false;  // NVIDIA only
    // How the value-returning call reads its count: a clFlush right after the launch, then a
    // non-blocking read into the pinned word and clFinish. H100, 2^10 uint, wall medians of 60
    // interleaved calls, round 0: flush_async 0.0176 ms, pinned 0.0267, async 0.0255, plain
    // 0.0187 (the blocking reads bimodal, minima 0.017-0.018); round 2: every form within noise,
    // spin (polling the read's event) no better (docs/RESULTS.md, s4-copyif).
    copy_if_read read = copy_if_read::flush_async;
    bool group_order = false; // tile index = group id (no start-order counter)
    bool warp_lookback = false; // NVIDIA only: the look-back walked by one warp
    bool rows_vec = false;   // by rows: 16-byte loads into registers of vectors
    std::size_t reg_cap = 0; // NVIDIA: -cl-nv-maxrregcount for the single pass (0: none; see below)
    std::size_t walk_reads = 1; // the warp look-back's slots per lane per round (1, 2, 4)
    // unique by rows: the element before each one from the previous lane's register (a shuffle)
    // instead of a load from memory per element (CLPRIM_UNIQUE_PREV=registers|global, read by
    // copy_if_unique_launch). H100, 2^26 uint, kernel ms: 0.525 from registers against 0.214
    // from memory (NVIDIA's build of the shuffles in the unrolled rows: much slower; unique takes
    // the tile in place anyway, 0.1705).
    bool unique_prev = false;
    // NVIDIA, 4-byte types by rows: the loads' cache hint (CLPRIM_COPY_IF_LOAD=plain|nc|cs|lu;
    // copy_if_tile.cl's CPY_LOAD_HINT).
    std::size_t load_hint = 0;
    std::string options; // CLPRIM_COPY_IF_OPTIONS: extra build options of the single pass (measurements)
};

// staged: clprim::unique and partition_copy through the single pass (copy_if.cpp), which take the
// tile in local memory (in place) on GPUs.
inline copy_if_policy select_copy_if_policy(const device_profile& profile, std::size_t elem, std::size_t n,
                                            bool staged = false)
{
    copy_if_policy p;
    // GPUs: 96 bytes per work-item (24 four-byte / 12 eight-byte elements; H100, 2^26 uint keeping
    // half, kernel time: 256 x 24 0.244 ms, 256 x 16 0.277, 128 x 32 0.280); elsewhere 64 bytes.
    p.wg = 256;
    p.items = profile.is_gpu() ? (elem == 4 ? 24 : 12) : (elem == 4 ? 16 : 8);
    // unique and partition_copy on GPUs, and copy_if of 1- to 4-byte types on NVIDIA: in place,
    // 128 bytes per work-item (H100, 2^26 uint, kernel ms, docs/RESULTS.md, s5-select: unique
    // 0.1705 in place 256 x 32 against 0.2140 by rows reading each element's predecessor again
    // and 0.525 by rows taking it from the previous lane; partition_copy 0.2294 against 0.680 by
    // rows; copy_if 0.1706 in place capped at 48 registers against 0.1873 by rows 256 x 24 in
    // the same run; unique 0.1607 and partition 0.2125 capped at 48).
    const bool wide = profile.is_gpu() && (staged || (profile.nvidia && elem <= 4));
    if (wide) p.items = elem == 8 ? 16 : 32;
    if (n <= p.wg * 4) p.items = 4;
    // The CLPRIM_COPY_IF_* knobs only where one may be set (one pass over the environment instead
    // of a search per knob: about 4,000 host instructions a call; s5-select in docs/RESULTS.md).
    const bool knobs = knobs_with_prefix("CLPRIM_COPY_IF_");
    if (const auto tune = knobs ? knob_numbers("CLPRIM_COPY_IF_TUNE", 2, 2, 1, 1024) : std::nullopt) {
        p.wg = (*tune)[0];
        p.items = std::min<std::size_t>((*tune)[1], 32); // a 32-bit mask of kept elements per work-item
    }
    const bool one_tile = n <= p.wg * p.items;
    p.path = profile.is_cpu() && !one_tile ? copy_if_path::three_pass : copy_if_path::single_pass;
    if (const auto forced = knobs ? knob_choice("CLPRIM_COPY_IF_PATH", {"single_pass", "three_pass"}) : std::nullopt)
        p.path = copy_if_path(*forced);
    if (std::uint64_t(n) >= (std::uint64_t(1) << 32)) p.path = copy_if_path::three_pass;
    // NVIDIA (H100, 2^26 uint keeping half, 256 x 24, kernel ms; docs/RESULTS.md, #27 s3-copyif):
    // by rows with the warp look-back and tiles by group id 0.175; by rows alone 0.203; in place
    // with 16-byte loads 0.212 (with the warp look-back 0.189); the session-2 kernel (gather,
    // scalar loads, local-memory scan) 0.239; by rows stays for 8-byte types on NVIDIA (the wide
    // in-place tiles above take the rest). Elsewhere: in place with 16-byte loads, the window
    // look-back, tiles in start order (votes and warp walks need NVIDIA's PTX).
    p.compact = profile.nvidia && !wide ? copy_if_compact::rows : copy_if_compact::in_place;
    p.warp_scan = p.warp_lookback = p.group_order = profile.nvidia;
    // NVIDIA, 4-byte types: by rows at most 40 registers a work-item (six work-groups of 256 an
    // SM instead of five; H100, 2^26 uint keeping half, kernel ms: 0.1805 capped at 40, 0.1867 at
    // 48, 0.1978 at 32, 0.2171 uncapped; docs/RESULTS.md, s4-copyif); in place 256 x 32 at most
    // 48 (0.1706 against 0.1819 at 40; s5-select). 8-byte types: not measured, uncapped.
    if (profile.nvidia && elem <= 4) p.reg_cap = 48; // (elem <= 4 on NVIDIA: always the wide tiles)
    if (!knobs) return p;
    p.options = knob_options("CLPRIM_COPY_IF_OPTIONS");
    if (const auto r = knob_number("CLPRIM_COPY_IF_REGS", 0, 255)) p.reg_cap = *r; // 0: no cap
    if (const auto c = knob_choice("CLPRIM_COPY_IF_COMPACT", {"gather", "in_place", "rows"})) p.compact = copy_if_compact(*c);
    if (const auto v = knob_number("CLPRIM_COPY_IF_VEC", 0, 1)) p.vec = *v == 1;
    if (const auto v = knob_number("CLPRIM_COPY_IF_ROWS_VEC", 0, 1)) p.rows_vec = *v == 1;
    if (const auto w = knob_number("CLPRIM_COPY_IF_WARP", 0, 1)) p.warp_scan = profile.nvidia && *w == 1;
    if (const auto r = knob_choice("CLPRIM_COPY_IF_READ", {"pinned", "plain", "finish", "async", "map", "flush_pinned", "flush_async", "spin"})) p.read = copy_if_read(*r);
    if (const auto o = knob_choice("CLPRIM_COPY_IF_ORDER", {"start", "group"})) p.group_order = *o == 1;
    if (const auto l = knob_choice("CLPRIM_COPY_IF_LOOKBACK", {"window", "warp"})) p.warp_lookback = profile.nvidia && *l == 1;
    if (const auto w = knob_choice("CLPRIM_COPY_IF_WALK_READS", {"1", "2", "4"})) p.walk_reads = std::size_t(1) << *w;
    if (const auto l = knob_choice("CLPRIM_COPY_IF_LOAD", {"plain", "nc", "cs", "lu"})) p.load_hint = *l;
    return p;
}

} // namespace detail
} // namespace clprim
