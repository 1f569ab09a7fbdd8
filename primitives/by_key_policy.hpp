#pragma once
// The by-key family's tuning policy (primitives/by_key.cpp): which device-wide form of the
// segmented scan runs, and its shape. Every constant of the family's kernels is here.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>

namespace clprim {
namespace detail {

struct by_key_policy {
    // lookback: one pass over the data, tiles chained by decoupled look-back with its fallback
    //           (primitives/lookback.cl, by_key.cl): no forward progress between work-groups needed.
    // chunks:   CPU devices: one work-item per long contiguous chunk, a fold pass and a scatter pass.
    enum class path { lookback, chunks } path = path::chunks;
    // The look-back kernel: gather (by_key_gather.cl: the tile stays in local memory, few
    // registers, results gathered by search), registers (by_key_lookback.cl: each work-item's
    // elements in registers from load to store, results compacted in local memory) or lean
    // (by_key_lean.cl, reduce_by_key and run_length_encode only: elements in registers up to the
    // tile scan, the runs' ends staged in local memory before the look-back).
    enum class kernel { gather, registers, lean } kernel = kernel::gather;
    std::size_t register_cap = 0; // NVIDIA: -cl-nv-maxrregcount of the programs (0: none)
    // NVIDIA (by_key_warp.cl): the tile's scan of the pairs by warp shuffles (shfl_scan) instead
    // of the ping-pong work-group scan; the look-back walked by one warp (warp_lookback) instead
    // of the work-group's rounds.
    bool shfl_scan = false;
    bool warp_lookback = false;
    bool group_order = false; // tiles by group id (no start-order counter; NVIDIA)
    bool stage_vec = false;   // 16-byte loads of full tiles of 4-byte elements (by_key_tile.cl)
    // gather: the stream before the look-back (BK_EARLY, by_key_gather.cl): the scans by key
    bool early_stream = false;
    // gather, run_length_encode: lengths from the heads' places (BK_RLE_POSITIONS): no values staged
    bool rle_positions = false;
    // gather: how a result finds its element: a search (owner maps and a select, little local
    // memory) or an index written beside the tile (a ushort per element; few instructions).
    bool index_epilogue = false;
    // NVIDIA, warp look-back: a tile's status (count and value words) written and read as one
    // 16-byte vector (BK_SLOT16, by_key_lookback.cl; modes with values of at most 4 bytes)
    bool slot16 = false;
    // lean, NVIDIA warp look-back: warp 0 walks right after its own stage, one barrier (BK_LEAN_QUICK)
    bool lean_quick = false;
    bool lean_preread = false; // and warp 0 reads its predecessors' slots before its stage (BK_LEAN_PREREAD)
    // lean and gather, NVIDIA: before its look-back a tile asks L2 for tile t + prefetch's input
    // (0: none; BK_LEAN_PREFETCH, by_key_tile.cl)
    std::size_t prefetch = 0;
    // lean: persistent work-groups (BK_LEAN_PERSIST): 0 one work-group a tile; 1 a group loads
    // its next tile into registers before the current tile's look-back; 2 the same as L2 prefetches
    int persist = 0;
    std::size_t persist_groups = 4; // persist: work-groups per compute unit
    // lean: sub-tiles of wg x items a look-back (1, or 2: by_key_lean2.cl, one wait for two)
    std::size_t lean_sub = 1;
    std::size_t wg = 256;        // look-back: work-items per tile (at most; the kernel's limit decides)
    std::size_t items = 16;      // look-back: consecutive elements per work-item
    std::size_t min_chunk = 4096; // chunks: at least this many elements per chunk
    std::size_t chunks_per_cu = 4; // chunks: at most this many chunks per compute unit
    // chunks: one launch (by_key_cpu_single.cl: pieces of `piece` elements taken in turn by one
    // work-group per compute unit, chained by a look-back) instead of two (count, emit)
    bool single_pass = true;
    std::size_t piece = 16384;
};

// Every device that is not a CPU takes the look-back path (as the scan does: with the fallback it
// is safe under any scheduling), CPU devices the chunks. CLPRIM_BY_KEY_PATH=lookback|chunks
// forces one (tests run both on PoCL); CLPRIM_LOOKBACK=fallback makes every tile take the fallback;
// CLPRIM_BY_KEY_TUNE="wg,items" sets the look-back tile (measurements, tests);
// CLPRIM_BY_KEY_KERNEL=gather|registers the look-back kernel (measurements, tests).
// element_bytes: the bytes a look-back tile stages per element (key, plus value where the mode has
// values); n: the elements of the call; partition: every element is a result (partition_copy,
// stable_partition).
// run_length: run_length_encode (values made in the kernel, none loaded); scan: a scan by key.
inline by_key_policy select_by_key_policy(const device_profile& profile, std::size_t element_bytes, std::size_t n,
                                          bool partition, bool run_length = false, bool scan = false, bool reduce = false)
{
    by_key_policy p;
    // The family's knobs are read only where one may be set (knobs_with_prefix: one pass over the
    // environment instead of a getenv per knob at every call).
    const bool knobs = knobs_with_prefix("CLPRIM_BY_KEY_");
    p.path = profile.is_cpu() ? by_key_policy::path::chunks : by_key_policy::path::lookback;
    if (const auto forced = (knobs ? knob_choice("CLPRIM_BY_KEY_PATH", {"lookback", "chunks"}) : std::nullopt))
        p.path = *forced == 0 ? by_key_policy::path::lookback : by_key_policy::path::chunks;
    // reduce_by_key takes the lean tile on GPUs (by_key_lean.cl; H100 2^26: kernel 0.2835 ms
    // against gather's 0.3238), run_length_encode only for one tile (2^10: 0.0078-0.0081 against
    // 0.0091-0.0095; at 2^26 gather's lengths by positions 0.2170 against 0.2220-0.2240).
    const bool lean_mode = run_length || reduce;
    if (!profile.is_cpu() && (reduce || (run_length && n <= 1024))) p.kernel = by_key_policy::kernel::lean;
    if (const auto forced = (knobs ? knob_choice("CLPRIM_BY_KEY_KERNEL", {"gather", "registers", "lean"}) : std::nullopt))
        p.kernel = *forced == 0 ? by_key_policy::kernel::gather
                   : *forced == 1 ? by_key_policy::kernel::registers
                                  : by_key_policy::kernel::lean;
    if (p.kernel == by_key_policy::kernel::lean && !lean_mode) p.kernel = by_key_policy::kernel::gather; // (1 and 4 only)
    // Elements per work-item, at most 32 (a work-item keeps its head flags as the bits of one
    // uint). Elsewhere than GPUs 64 work-items, 32 / 16 / 8 elements.
    // GPUs, gather: 256 work-items, the tile about 32 KiB staged (32 elements of 4 bytes, 16 of
    // 8 (key and value), 8 of 16), registers capped on NVIDIA (40, 48 with values: ptxas spills
    // nothing there) so that five or six work-groups fit an SM.
    // GPUs, registers: 256 x 32 for 4 bytes (unique, partition of uint), 128 x 32 up to 8 bytes
    // (uint -> uint pairs: 128 x 32 beat 256 x 16 on the H100, RESULTS.md), 128 x 16 beyond.
    // run_length_encode on GPUs (gather): the lengths from the heads' places, no values staged,
    // so the tile is the keys' alone (H100 2^26: 256 x 32 kernel 0.217 ms against 0.255 for
    // the streamed lengths at 256 x 16). CLPRIM_BY_KEY_RLE=stream|positions forces one.
    if (run_length) {
        p.rle_positions = !profile.is_cpu() && p.kernel == by_key_policy::kernel::gather;
        if (const auto r = (knobs ? knob_choice("CLPRIM_BY_KEY_RLE", {"stream", "positions"}) : std::nullopt)) p.rle_positions = *r == 1;
        p.rle_positions = p.rle_positions && p.kernel == by_key_policy::kernel::gather; // (gather only)
        if (p.rle_positions && element_bytes > 4) element_bytes -= 4; // (the uint lengths)
    }
    if (profile.is_cpu()) {
        p.wg = 64;
        p.items = element_bytes <= 4 ? 32 : element_bytes <= 8 ? 16 : 8;
    } else if (p.kernel == by_key_policy::kernel::gather) {
        p.wg = 256;
        p.items = std::max<std::size_t>(1, std::min<std::size_t>(32, 128 / std::max<std::size_t>(1, element_bytes)));
        // (run-length by positions at 48: H100 2^26 kernel 0.2083 ms against 0.2158-0.2221 at 40,
        // RESULTS.md s6-bykey round 2.)
        if (profile.nvidia) p.register_cap = run_length ? (p.rle_positions ? 48 : 40) : element_bytes <= 4 ? 40 : 48;
        // NVIDIA: the warp pieces (by_key_warp.cl), tiles by group id (the decoupled fallback
        // keeps that correct under any order), 16-byte loads. H100, 2^26 uint (RESULTS.md, #28
        // s5-bykey): reduce_by_key kernel 0.422 -> 0.347 ms with the warp pieces, -5% by group
        // id, -3% with 16-byte loads; run-length encoding capped at 40 registers 0.293 -> 0.270
        // (the scan by key at 40 spills: 0.395 -> 0.525).
        p.shfl_scan = p.warp_lookback = p.group_order = profile.nvidia;
        p.stage_vec = true;
        // partition_copy on NVIDIA 256 x 24 (0.270 against 0.293 ms at 256 x 32, one run).
        if (profile.nvidia && partition && element_bytes <= 4) p.items = 24;
        // A range of one tile of 4 elements a work-item (2^10 with 256): every work-item folds
        // 4 elements instead of a few work-items 32 each (a single tile is all latency).
        if (n <= p.wg * 4) p.items = 4;
        // NVIDIA, run-length by positions and the scans by key: the L2 prefetch of the tile 4 x
        // compute units ahead before the look-back, as lean's (H100 2^26 kernels: run-length
        // 0.1833 ms against 0.1915, the scan by key 0.2762 against 0.2962; 3 x / 4.5 x / 5 x
        // compute units: 0.1844-0.1856 / 0.2749-0.2941; RESULTS.md s7-bykey round 2).
        if (profile.nvidia && p.items > 4 && (p.rle_positions || scan))
            p.prefetch = 4 * std::max<std::size_t>(1, profile.compute_units);
    } else if (p.kernel == by_key_policy::kernel::lean) {
        // lean: 256 work-items, 16 elements of 4-byte keys and values (64 bytes of registers a
        // work-item up to the tile scan), 20 on NVIDIA (the largest tile of 16-byte loads whose
        // staging fits 48 KB of local memory: H100 2^26 kernel 0.2626 ms against 0.289-0.292 at
        // 16, RESULTS.md s6-bykey round 2), registers capped at 64 there (56, 72, none, 80
        // slower).
        p.wg = 256;
        p.items = element_bytes <= 8 ? (profile.nvidia ? 20 : 16) : 8;
        if (profile.nvidia) p.register_cap = 64;
        p.shfl_scan = p.warp_lookback = p.group_order = profile.nvidia;
        p.stage_vec = true; // (tiles loaded through local memory: -DBK_LEAN_DIRECT=0, partial tiles)
        if (n <= p.wg * 4) p.items = 4;
        // NVIDIA: before its look-back a tile asks L2 for the input of the tile that starts when
        // it ends (tiles by group id, four groups of 256 at 64 registers a compute unit: H100
        // 2^26 kernel 0.2284 ms at 528 tiles ahead against 0.2635 without; 1056 ahead 0.3776,
        // right after the tile's own loads 0.3421; RESULTS.md s7-bykey round 1).
        if (profile.nvidia && p.items == 20) p.prefetch = 4 * std::max<std::size_t>(1, profile.compute_units);
    } else {
        p.wg = element_bytes <= 4 ? 256 : 128;
        p.items = element_bytes <= 8 ? 32 : 16;
    }
    // The index where every element is a result (a search per element costs more than the
    // memory it saves); CLPRIM_BY_KEY_EPILOGUE=search|index forces one (measurements, tests).
    p.index_epilogue = partition;
    if (const auto forced = (knobs ? knob_choice("CLPRIM_BY_KEY_EPILOGUE", {"search", "index"}) : std::nullopt)) p.index_epilogue = *forced == 1;
    // CLPRIM_BY_KEY_SCAN=local|shfl, CLPRIM_BY_KEY_WALK=group|warp (NVIDIA only; measurements, tests).
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_SCAN", {"local", "shfl"}) : std::nullopt)) p.shfl_scan = profile.nvidia && *c == 1;
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_WALK", {"group", "warp"}) : std::nullopt)) p.warp_lookback = profile.nvidia && *c == 1;
    // The stream before the look-back for the scans by key (every device): kernel 0.399 ->
    // 0.315 ms on the H100; reduce_by_key and run-length were slower with it there (0.327 ->
    // 0.344, 0.255 -> 0.282: their gather waits for the look-back anyway).
    // CLPRIM_BY_KEY_EARLY=0|1 forces it (measurements, tests).
    p.early_stream = scan;
    if (const auto e = (knobs ? knob_number("CLPRIM_BY_KEY_EARLY", 0, 1) : std::nullopt)) p.early_stream = *e == 1;
    // CLPRIM_BY_KEY_ORDER=start|group, CLPRIM_BY_KEY_VEC=0|1 (measurements, tests).
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_ORDER", {"start", "group"}) : std::nullopt)) p.group_order = *c == 1;
    if (const auto v = (knobs ? knob_number("CLPRIM_BY_KEY_VEC", 0, 1) : std::nullopt)) p.stage_vec = *v == 1;
    // A tile's status as one 16-byte vector on NVIDIA (H100 2^26 kernels: reduce_by_key 0.2445 ms
    // against 0.2635, run-length 0.1920 against 0.2077, the scan by key 0.2963 against 0.3166;
    // RESULTS.md s7-bykey round 1). CLPRIM_BY_KEY_SLOT=words|vector, CLPRIM_BY_KEY_LEAN_WAIT=
    // group|quick|preread (quick, preread: slower there; measurements, tests).
    p.slot16 = profile.nvidia;
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_SLOT", {"words", "vector"}) : std::nullopt)) p.slot16 = *c == 1;
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_LEAN_WAIT", {"group", "quick", "preread"}) : std::nullopt)) {
        p.lean_quick = *c >= 1;
        p.lean_preread = *c == 2;
    }
    if (const auto d = (knobs ? knob_number("CLPRIM_BY_KEY_PREFETCH", 0, 1 << 20) : std::nullopt)) p.prefetch = profile.nvidia ? *d : 0;
    // CLPRIM_BY_KEY_PERSIST=0|1|2 (lean only), CLPRIM_BY_KEY_PERSIST_GROUPS=N a compute unit
    // (measurements, tests).
    if (const auto v = (knobs ? knob_number("CLPRIM_BY_KEY_PERSIST", 0, 2) : std::nullopt)) p.persist = int(*v);
    if (const auto g = (knobs ? knob_number("CLPRIM_BY_KEY_PERSIST_GROUPS", 1, 64) : std::nullopt)) p.persist_groups = *g;
    // CLPRIM_BY_KEY_LEAN_SUB=1|2 (lean only; not with persist; measurements, tests).
    if (const auto u = (knobs ? knob_number("CLPRIM_BY_KEY_LEAN_SUB", 1, 2) : std::nullopt)) p.lean_sub = *u;
    if (p.kernel != by_key_policy::kernel::lean) {
        p.persist = 0;
        p.lean_sub = 1;
    }
    if (p.lean_sub > 1) p.persist = 0;
    if (p.persist || p.lean_sub > 1) p.prefetch = 0;
    // CLPRIM_BY_KEY_REGS=N: NVIDIA's register cap for the look-back kernels (0: none; measurements).
    if (const auto r = (knobs ? knob_number("CLPRIM_BY_KEY_REGS", 0, 255) : std::nullopt)) p.register_cap = profile.nvidia ? *r : 0;
    // CLPRIM_BY_KEY_CHUNKS="min_chunk,chunks_per_cu": the chunks path's shape (tests: many small chunks).
    if (const auto ch = (knobs ? knob_numbers("CLPRIM_BY_KEY_CHUNKS", 2, 2, 1, 1u << 30) : std::nullopt)) {
        p.min_chunk = (*ch)[0];
        p.chunks_per_cu = (*ch)[1];
    }
    // CLPRIM_BY_KEY_CPU=one|two, CLPRIM_BY_KEY_PIECE=N: the chunks path's launches and the single
    // pass's piece (measurements, tests).
    if (const auto c = (knobs ? knob_choice("CLPRIM_BY_KEY_CPU", {"one", "two"}) : std::nullopt)) p.single_pass = *c == 0;
    if (const auto e = (knobs ? knob_number("CLPRIM_BY_KEY_PIECE", 1, 1u << 30) : std::nullopt)) p.piece = *e;
    if (const auto tune = (knobs ? knob_numbers("CLPRIM_BY_KEY_TUNE", 2, 2, 1, 1024) : std::nullopt)) {
        p.wg = (*tune)[0];
        p.items = std::min<std::size_t>(32, (*tune)[1]);
    }
    return p;
}

// The one-work-group path (by_key_small.cl) for ranges of at most `most` elements: one launch,
// no look-back, no fill. GPUs: up to 4096 (256 work-items x 16), off elsewhere (the CPU branch's
// chunks). H100 (RESULTS.md, s8-small): 2^10 wall 0.021-0.023 ms against the old path's
// 0.022-0.035 for reduce_by_key (0.017-0.024 against 0.022-0.035 run-length), 2^12 0.027-0.033
// against 0.040-0.046; at 2^13 no gain (8192: 0.042 against 0.036-0.044); 128 work-items alike,
// 512 and 1024 slower. CLPRIM_BY_KEY_SMALL="n[,wg]" sets it (0: off; at most 8192 and 32 a work-item) and the
// work-group size (a power of two, at least 32). Off where CLPRIM_BY_KEY_PATH, _KERNEL or _TUNE
// forces a path (that path's at every size, whatever CLPRIM_BY_KEY_SMALL says).
// NVIDIA: the group's scan of the pairs by warp shuffles (by_key_warp.cl), as the look-back
// tiles' (CLPRIM_BY_KEY_SCAN=local|shfl forces one there too).
struct by_key_small_shape {
    std::size_t most = 0;
    std::size_t wg = 256;
    bool shfl_scan = false;
    // The kernel's elements a work-item (its unrolled loops) fitted to the call: the power of
    // two >= 4 that holds n (a kernel for 4, 8, ... up to what `most` needs), or always the
    // largest (one kernel a type: the default; H100 2^10 / 2^12, no difference beyond the
    // spread, RESULTS.md s8-small round 2). CLPRIM_BY_KEY_SMALL_FIT=0|1.
    bool fit_rows = false;
    // CLPRIM_BY_KEY_SMALL_DIAG=0|1|2 (measurements, WRONG results): 1 the kernel returns at once
    // (the launch alone), 2 no pair scan (by_key_small.cl SK_DIAG).
    int diag = 0;
};
inline by_key_small_shape select_by_key_small(const device_profile& profile)
{
    by_key_small_shape s;
    if (!profile.is_cpu()) s.most = 4096;
    s.shfl_scan = profile.nvidia;
    if (knobs_with_prefix("CLPRIM_BY_KEY_")) {
        if (const auto c = knob_choice("CLPRIM_BY_KEY_SCAN", {"local", "shfl"})) s.shfl_scan = profile.nvidia && *c == 1;
        if (const auto f = knob_number("CLPRIM_BY_KEY_SMALL_FIT", 0, 1)) s.fit_rows = *f == 1;
        if (const auto d = knob_number("CLPRIM_BY_KEY_SMALL_DIAG", 0, 2)) s.diag = int(*d);
        if (const auto m = knob_numbers("CLPRIM_BY_KEY_SMALL", 1, 2, 0, 8192)) {
            s.most = (*m)[0];
            if (m->size() > 1) {
                s.wg = 32;
                while (s.wg * 2 <= (*m)[1]) s.wg *= 2;
            }
        }
        if (knob_text("CLPRIM_BY_KEY_PATH") || knob_text("CLPRIM_BY_KEY_KERNEL") || knob_text("CLPRIM_BY_KEY_TUNE")) s.most = 0;
    }
    s.most = std::min(s.most, s.wg * 32);
    return s;
}

// How reduce_by_key's and run_length_encode's count comes back (count_read.hpp's forms, by
// CLPRIM_BY_KEY_READ's numbers): on GPUs 5, spin (the kernel flushed, a non-blocking read with an
// event, the host polling it: s4-copyif's H100 run, 1.5-4.3 us off both at 2^10 against 4), 4
// (flush_async) elsewhere and for the other modes (stable_partition was slower with spin).
inline int select_by_key_read(const device_profile& profile, bool reduce_or_run_length)
{
    if (const auto forced = knob_number("CLPRIM_BY_KEY_READ", 0, 5)) return int(*forced);
    return reduce_or_run_length && !profile.is_cpu() ? 5 : 4;
}

} // namespace detail
} // namespace clprim
