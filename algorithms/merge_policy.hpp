#pragma once
// The merge sort's tuning policy (and the public merge's, which runs its rounds): the path, the
// tile shapes and the kernels' local memory, from the device profile; the knobs' overrides
// inside. Private to algorithms/.
#include "sort_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace clprim {
namespace detail {

// Which path sorts, and its shape: chosen in this one place.
//  - gpu: tiles of sort_group * elems keys sorted by whole work-groups (registers, then local
//    memory), then one merge-path round per doubling of the run length (merge_tile_sort, then
//    merge_partition and merge_global per round, group * elems outputs per work-group: each
//    work-item merges `elems` outputs serially after one co-rank search). CLPRIM_MERGE_STREAM
//    takes merge_stream instead (one launch per round: each work-group searches its own piece of
//    both runs and streams through stream_tiles tiles; measured slower, kept for measurements).
//  - cpu: one work-item per contiguous chunk, sorted sequentially, then co-rank rounds where each
//    work-item merges one long piece (merge_cpu_chunks, merge_cpu_round): no barriers, no local
//    memory, which PoCL-like CPU devices run as plain loops.
// CPU devices take the cpu path; CLPRIM_MERGE_PATH=cpu|gpu forces one (tests, measurements),
// CLPRIM_MERGE_GPU_TUNE="group,elems", CLPRIM_MERGE_SORT_GROUP, CLPRIM_MERGE_STREAM="tiles[,probes[,group]]"
// and CLPRIM_MERGE_CPU_TUNE="chunks,run" override the shapes.
struct merge_policy {
    bool cpu = false;
    std::size_t group = 256;  // gpu: work-items per work-group of the merge rounds (a power of two)
    std::size_t sort_group = 512; // gpu: work-items per work-group of the tile sort (group * 2^k)
    std::size_t wide_group = 0; // gpu: sort_group of the tile sort built for it (0: none), see below
    int wide = 0;               // gpu: take that kernel where it runs (0), always (1), never (-1)
    std::size_t elems = 17;   // gpu: keys per work-item (odd: strided local accesses conflict-free)
    std::string options;      // gpu: extra build options (CLPRIM_MERGE_OPTIONS)
    std::size_t chunks = 1;   // cpu: work-items (chunks of the first stage, pieces of each round)
    std::size_t run = 16;     // cpu: keys per insertion-sorted run
    std::size_t streams = 2;  // cpu: independent merges a work-item steps together (merge_cpu.cl; 1: none)
    std::size_t streams_min = 256; // cpu: merges of fewer outputs take the single loop
    std::size_t round_piece = 32768; // cpu: at most this many outputs per piece of a round (taken in turn)
    bool vec = true; // cpu: merge_cpu.cl's 16-key AVX-512 merge where it applies (uint keys alone, ascending)
    // gpu rounds: merge_partition + merge_global (stream_tiles = 0, the default), or where forced
    // merge_stream (merge_stream.cl: one launch per round, each work-group finds its own piece
    // and streams through `stream_tiles` tiles of round_group * elems outputs; 2.3x slower on the
    // H100, docs/RESULTS.md "s4-merge"). probes: positions per step of the work-group's search.
    // round_group: merge_stream's work-group (<= group: two tiles of keys and values must fit
    // local memory).
    std::size_t stream_tiles = 0;
    std::size_t stream_groups = 0; // > 0: work-groups per compute unit instead (merge_stream_span)
    std::size_t probes = 8;
    std::size_t round_group = 256;
    // gpu rounds' split search (the partition before merge_global, merge_path_search.cl):
    // split_probes 0: merge_partition (one binary co-rank search per tile start, merge_sort.cl);
    // else merge_partition_search: split_probes positions per search step, shared by split_items
    // work-items per tile start, work-groups of split_group, after a bracket from split_samples
    // samples of each run in local memory (0: none). CLPRIM_MERGE_SPLIT overrides. H100, merge of
    // two 2^26 uint halves (docs/RESULTS.md, "#30 (s5-merge)", "#30 (s6-merge)"): binary
    // 0.236-0.240 ms, 1024 whole-run samples 0.227-0.240, the work-group's piece windowed from
    // 256 samples first (split_ends 2, the public merge's default) 0.226-0.234; more samples, more
    // probes, exact ends (split_ends 1), gathered samples (split_gather) or the hidden partition
    // (split_lead, 0.30) were slower. k-ary steps in that window ("#30 (s8-merge)"): the partition
    // 0.028 -> 0.034 / 0.042 ms at 7 / 15 probes (the GPU's random reads, ~33 G/s, are the limit).
    std::size_t split_probes = 1, split_items = 1, split_samples = 1024, split_group = 256;
    // split_lead > 0: the partition's latency hidden behind merging (merge_global_split): the
    // first split_lead / 64 of a round's tiles get their starts from the partition kernel, then
    // one launch merges them while its leading work-groups search the other starts, then one
    // launch merges the rest. 0: partition, then merge_global.
    std::size_t split_lead = 0;
    // split_ends: with samples, each work-group samples the whole runs (0), or only the piece of
    // both runs between its first and last tile start, found first exactly (1) or within windows
    // from 256 samples of the whole runs (2).
    std::size_t split_ends = 0;
    // split_gather > 0 (a power of two; split_ends 0 or 2): in a round of one pair
    // of runs (the public merge, the sort's last round), one small launch first gathers every
    // split_gather-th key of both runs into a contiguous array (merge_split_gather); the partition
    // reads its local samples from there (in L2) and brackets each diagonal a second time from it
    // (within 1.5 split_gather keys) before the search in the runs. 0: off.
    std::size_t split_gather = 0;
    // split_kary > 0 (split_items 1, split_probes > 1): only the first split_kary steps of the
    // window's search take split_probes probes, the rest are binary (-DMERGE_SPLIT_KARY).
    std::size_t split_kary = 0;
    // The public merge on GPUs: clFlush after the partition's launch (bit 1), after the merge
    // kernel's (bit 2), so that the device starts before the host's next work. CLPRIM_MERGE_FLUSH.
    // Off: no gain on the H100 (2^26: 0.2405 / 0.2358 against 0.2356-0.2368, "#30 (s8-merge)").
    unsigned flush = 0;
    // The public merge: the partition's and merge_global's scalar arguments set only where they
    // changed since the kernel's last launch (merge_arg_memo). CLPRIM_MERGE_ARGS=changed|all.
    bool arg_memo = true;
    // The public merge's persistent walk (merge_walk.cl, one launch, no partition kernel):
    // walk_per_cu work-groups per compute unit (0: off, the split kernels), each owning an equal
    // span of whole tiles (walk_tiles > 0: that many tiles each instead), its start found by a
    // search of walk_probes positions a step shared by the work-group. CLPRIM_MERGE_WALK overrides.
    std::size_t walk_per_cu = 0, walk_probes = 32, walk_tiles = 0;
    bool walk_stage = false; // the outputs staged in a tile of their own (two barriers a step, not four)
    // The next windows double-buffered in local memory instead of registers (NVIDIA: asynchronous
    // copies, 4- and 8-byte keys; elsewhere plain copies, for tests).
    bool walk_async = false;
    // The public merge on NVIDIA: the partition kernel first warms L2 with this many keys of the
    // start of both runs (prefetch.global.L2; 0: off). CLPRIM_MERGE_PREFETCH overrides.
    std::size_t l2_prefetch = 0;
    // The public merge's partition overlapped with merging in one launch (merge_overlap.cl): this
    // many searcher work-groups find the tile starts chunk after chunk while the other work-groups
    // merge tiles as their starts appear (0: off). Only for merges of fewer than 2^32 outputs
    // (32-bit co-ranks in the slots). CLPRIM_MERGE_OVERLAP overrides.
    std::size_t overlap = 0;
    // merge_overlap's searchers: probes per step of a start's search in its window (a work-item's
    // own, all in flight together: fewer dependent round trips, each slow while the merges stream),
    // on NVIDIA a register cap for the whole kernel (-cl-nv-maxrregcount, 0: none; the merge
    // needs 56, the searchers' loads more), and the samples' loads a work-item has in flight.
    // CLPRIM_MERGE_OVERLAP's second to fourth numbers.
    std::size_t overlap_probes = 1, overlap_regs = 0, overlap_samples_in_flight = 8;
    // merge_overlap's searchers that start at once (the others when the first chunk is out; 0: all).
    // CLPRIM_MERGE_OVERLAP's fifth number.
    std::size_t overlap_eager = 0;
    bool overlap_twice = false; // CLPRIM_MERGE_OVERLAP_TWICE=1 (measurements, merge.cpp)
};

// Local memory of merge_walk's work-group: the two windows of `tile` keys (plus one; with `stage`
// a tile of staged outputs after them), then `tile` values (aligned for them).
// With `async` two pairs of windows (2 (2 tile + 1) keys), then with `stage` the staged tile.
inline std::size_t merge_walk_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes, bool stage, bool async = false)
{
    const std::size_t keys = async ? 2 * (2 * tile + 1) + (stage ? tile : 0) : (stage ? 3 : 2) * tile + 1;
    return round_up(keys * kbytes, std::max<std::size_t>(8, vbytes)) + tile * vbytes;
}

// The partition kernel's local memory (merge_partition_search): the samples of both runs, then
// one count per work-item (split_items > 1).
inline std::size_t merge_split_local_bytes(const merge_policy& p, std::size_t kbytes)
{
    return std::max<std::size_t>(8, 2 * p.split_samples * kbytes);
}
inline std::size_t merge_split_flag_bytes(const merge_policy& p)
{
    return p.split_items > 1 || p.split_samples > 0 ? p.split_group * 4 : 4;
}

// The build options of the split search (merge_path_search.cl, joined into every GPU-path program).
// The cpu path's outputs per piece of a round over n outputs: `chunks` pieces, or more of at most
// round_piece outputs, taken in turn by the work-groups (merge_sort.cl's merge_cpu_round).
inline std::size_t merge_cpu_piece(const merge_policy& p, std::size_t n)
{
    return std::max<std::size_t>(1, std::min(ceil_div(n, std::max<std::size_t>(1, p.chunks)), p.round_piece));
}

// The cpu path's build options (merge_cpu.cl's streams where more than one; its 16-key AVX-512
// merge unless turned off).
inline std::string merge_cpu_options(const merge_policy& p)
{
    return p.streams > 1 ? " -DMERGE_CPU_STREAMS=" + std::to_string(p.streams) +
                               " -DMERGE_CPU_STREAMS_MIN=" + std::to_string(p.streams_min) + (p.vec ? "" : " -DMCS_NO_VEC")
                         : std::string();
}

inline std::string merge_split_options(const merge_policy& p)
{
    return " -DMERGE_SPLIT_PROBES=" + std::to_string(std::max<std::size_t>(1, p.split_probes)) +
           " -DMERGE_SPLIT_ITEMS=" + std::to_string(p.split_items) +
           (p.split_kary > 0 ? " -DMERGE_SPLIT_KARY=" + std::to_string(p.split_kary) : std::string());
}

// Local memory of one merge round's work-group (merge_global): the keys (tile + 1), then the values.
inline std::size_t merge_round_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return round_up((tile + 1) * kbytes, std::max<std::size_t>(8, vbytes)) + tile * vbytes; // values aligned for V
}

// Local memory of merge_stream's work-group: two windows of `tile` keys, then two of values.
inline std::size_t merge_stream_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return round_up(2 * tile * kbytes, std::max<std::size_t>(8, vbytes)) + 2 * tile * vbytes;
}

// Local memory of the GPU kernels, in bytes, for tiles of `tile` keys: the tile sort holds the
// keys (plus one look-ahead slot) and, with values, a 32-bit index per key; afterwards the
// values alone. The merge round holds the keys and the values side by side.
inline std::size_t tile_sort_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    const std::size_t merging = round_up((tile + 1) * kbytes, 8) + (vbytes ? tile * 4 : 0); // room for 8-aligned indices
    return round_up(std::max(merging, tile * vbytes), 8);
}
inline std::size_t merge_local_bytes(std::size_t tile, std::size_t kbytes, std::size_t vbytes)
{
    return std::max(tile_sort_local_bytes(tile, kbytes, vbytes), merge_round_local_bytes(tile, kbytes, vbytes));
}


// two_ranges: the public merge's one round over two ranges (merge.cpp), else the merge sort's.
inline merge_policy select_merge_policy(const device_profile& profile, std::size_t n, std::size_t kbytes, std::size_t vbytes,
                                        bool two_ranges = false)
{
    merge_policy p;
    // The public merge windows each work-group's piece of both runs from 256 whole-run samples
    // first (split_ends 2): H100, two 2^26 uint halves (docs/RESULTS.md, "#30 (s6-merge)"): the
    // partition 0.032-0.033 -> 0.028 ms, wall 0.226-0.240 -> 0.226-0.234 over two rounds. The sort's
    // rounds keep whole-run samples (split_ends 0: with 2 its total was unchanged, 3.751 / 3.756 ms).
    p.split_ends = two_ranges ? 2 : 0;
    p.cpu = profile.is_cpu();
    if (const auto forced = knob_choice("CLPRIM_MERGE_PATH", {"cpu", "gpu"})) p.cpu = *forced == 0;
    // gpu: 256 work-items; keys per work-item by the registers a work-item holds while it merges
    // (a key and, with values, a 32-bit index per output): 17 for 32-bit keys alone, 11 for 32-bit
    // keys with values or 64-bit keys alone, 7 for 64-bit keys with values. H100, 2^26 random
    // uint keys (docs/DEVELOPERS.md): 256 x 17 (14 rounds) 4.30-4.45 ms, 512 x 17 (13) 4.30-4.42,
    // 512 x 11 4.26-4.52, 256 x 13 4.36-4.57, 128 x 17 4.43; uint -> uint pairs: 256 x 11 8.5-8.7 ms,
    // 256 x 13 9.2-11.5, 256 x 17 16.8 (the merge kernel at 128+ registers: one work-group per SM).
    p.group = 256;
    const std::size_t words = kbytes / 4 + (vbytes ? 1 : 0);
    p.elems = words <= 1 ? 17 : words == 2 ? 11 : 7;
    const auto gpu_tune = knob_numbers("CLPRIM_MERGE_GPU_TUNE", 1, 2, 1, 1024); // "group[,elems]"
    if (gpu_tune) {
        if (((*gpu_tune)[0] & ((*gpu_tune)[0] - 1)) == 0) p.group = (*gpu_tune)[0];
        if (gpu_tune->size() == 2 && (*gpu_tune)[1] <= 64) p.elems = (*gpu_tune)[1];
    }
    // The tile must fit the device's local memory (queried, never assumed): fewer work-items first.
    const std::size_t local = profile.local_mem_size;
    while (p.group > 1 && merge_local_bytes(p.group * p.elems, kbytes, vbytes) > local) p.group /= 2;
    while (p.elems > 1 && merge_local_bytes(p.group * p.elems, kbytes, vbytes) > local) --p.elems;
    // No larger than the input needs.
    p.group = std::min(p.group, next_pow2(ceil_div(n, p.elems)));
    // The tile sort takes twice the round's work-group where its local memory and the kernel allow
    // (CLPRIM_MERGE_SORT_GROUP overrides): its runs of 2 * group * elems keys save one global round
    // (a sweep over the data) for one more merge level in local memory. On the H100 the tile sort
    // kernel allows 256 work-items (its registers), so it runs 256 x 17 there: 0.71 ms, then 14
    // rounds of 0.19 ms + 0.027 ms (partition) at 2^26 uint keys.
    p.sort_group = p.group * 2;
    if (tile_sort_local_bytes(p.sort_group * p.elems, kbytes, vbytes) > local) p.sort_group = p.group;
    if (const auto sg = knob_number("CLPRIM_MERGE_SORT_GROUP", 1, 1024)) {
        const std::size_t g = *sg;
        if (g >= p.group && g <= 1024 && (g & (g - 1)) == 0 && tile_sort_local_bytes(g * p.elems, kbytes, vbytes) <= local)
            p.sort_group = g;
    }
    // With values, a tile sort built for sort_group work-items (merge_tile_sort_wide), used where
    // the plain kernel's query allows fewer: at 512 x 11 on the H100, 2^26 uint -> uint, the tile
    // sort takes 1.12 -> 1.22 ms and saves a round (0.39 ms): 6.97 -> 6.70 ms. Keys alone stay with
    // the plain kernel (512 x 17 built so: 3.75 -> 3.95 ms, its registers capped at 128).
    // CLPRIM_MERGE_WIDE=on|off: take it wherever it is built (no query, no probe; tests force it on
    // devices whose plain kernel already takes sort_group) or never.
    if (vbytes && p.sort_group > p.group) p.wide_group = p.sort_group;
    if (const auto w = knob_choice("CLPRIM_MERGE_WIDE", {"auto", "on", "off"})) p.wide = *w == 1 ? 1 : *w == 2 ? -1 : 0;
    p.sort_group = std::min(p.sort_group, std::max(p.group, next_pow2(ceil_div(n, p.elems))));
    // The rounds: merge_partition + merge_global, or merge_stream where forced with stream_tiles
    // tiles per work-group and probes positions per search step (CLPRIM_MERGE_STREAM=
    // "tiles[,probes[,group]]", tiles 0: the split kernels). H100, 2^26 uint, merge of two halves:
    // split kernels 0.233-0.243 ms, merge_stream 0.44-0.76 ms over every shape tried (docs/RESULTS.md,
    // "s4-merge"). merge_stream's two windows of keys and values must fit local memory: fewer
    // work-items where they do not.
    // A third number caps the rounds' work-group (a power of two, at most the tile sort's).
    std::size_t round_cap = p.group;
    if (const auto st = knob_numbers("CLPRIM_MERGE_STREAM", 1, 3, 0, 4096)) {
        p.stream_tiles = (*st)[0];
        if (st->size() >= 2 && (*st)[1] >= 1 && (*st)[1] <= 128) p.probes = (*st)[1];
        if (st->size() == 3 && (*st)[2] >= 1) round_cap = std::min(p.group, floor_pow2((*st)[2]));
    }
    // CLPRIM_MERGE_STREAM_GROUPS=<per compute unit>: every round spread over that many work-groups
    // per compute unit instead of stream_tiles tiles each (0: tiles).
    if (const auto g = knob_number("CLPRIM_MERGE_STREAM_GROUPS", 0, 1024)) p.stream_groups = *g;
    if (p.stream_groups > 0 && p.stream_tiles == 0) p.stream_tiles = 1; // merge_stream, spread by groups
    p.round_group = round_cap;
    while (p.round_group > 1 && merge_stream_local_bytes(p.round_group * p.elems, kbytes, vbytes) + 1024 > local)
        p.round_group /= 2;
    // The split search (CLPRIM_MERGE_SPLIT="probes[,items[,samples[,group[,lead[,ends[,gather[,kary]]]]]]]",
    // probes 0: the binary merge_partition): items a power of two dividing probes, group a power
    // of two, lead in 64ths of the tiles, ends 0, 1 or 2, gather a power of two (0: off), kary
    // the window's k-ary steps before binary ones (0: all k-ary).
    if (const auto sp = knob_numbers("CLPRIM_MERGE_SPLIT", 1, 8, 0, 1 << 16)) {
        const auto& v = *sp;
        p.split_probes = std::min<std::size_t>(v[0], 64);
        p.split_items = v.size() >= 2 ? std::max<std::size_t>(1, floor_pow2(v[1])) : 1;
        if (v.size() >= 3) p.split_samples = v[2];
        if (v.size() >= 4) p.split_group = std::max<std::size_t>(1, floor_pow2(std::min<std::size_t>(v[3], 1024)));
        if (v.size() >= 5) p.split_lead = std::min<std::size_t>(v[4], 63);
        p.split_ends = v.size() >= 6 ? std::min<std::size_t>(v[5], 2) : 0; // (unnamed: whole runs, as before)
        if (v.size() >= 7) p.split_gather = v[6] ? floor_pow2(v[6]) : 0;
        if (v.size() >= 8) p.split_kary = std::min<std::size_t>(v[7], 16);
        while (p.split_items > 1 && (p.split_items > std::max<std::size_t>(1, p.split_probes) ||
                                     std::max<std::size_t>(1, p.split_probes) % p.split_items))
            p.split_items /= 2;
    }
    p.split_group = std::max(p.split_group, p.split_items);
    // The persistent walk (the public merge only):
    // CLPRIM_MERGE_WALK="per_cu[,probes[,tiles[,stage[,async]]]]" (per_cu 0: the split kernels;
    // tiles 0: spread by per_cu).
    if (const auto w = knob_numbers("CLPRIM_MERGE_WALK", 1, 5, 0, 1 << 20)) {
        p.walk_per_cu = (*w)[0];
        if (w->size() >= 2) p.walk_probes = std::max<std::size_t>(1, std::min<std::size_t>((*w)[1], 1024));
        if (w->size() >= 3) p.walk_tiles = (*w)[2];
        if (w->size() >= 4) p.walk_stage = (*w)[3] != 0;
        if (w->size() >= 5) p.walk_async = (*w)[4] != 0;
    }
    // The public merge's defaults on NVIDIA (H100, docs/RESULTS.md "#30 (s7-merge)"):
    //  - 32-bit keys alone: the persistent walk with cp.async windows where each of its work-groups (6 per
    //    SM, 128 work-items: the two pairs of windows fit 48 KiB) takes one tile: merge_global's
    //    shape without the partition launch (uint 2^16 / 2^18 / 2^20: 0.023-0.025 / 0.023-0.024 /
    //    0.025-0.026 ms against the split pair's 0.051 / 0.032-0.033 / 0.031-0.033). Larger merges
    //    keep the split pair (walk 0.28-0.30 ms at 2^26 against 0.227-0.237), merge_by_key too
    //    (uint -> uint 2^20: walk 0.039, split pair 0.036). The partition's L2 warm-up
    //    (l2_prefetch) measured no gain at 2^24 and 2^26 and stays off.
    if (two_ranges && !p.cpu && profile.nvidia && !knob_text("CLPRIM_MERGE_WALK") && !knob_text("CLPRIM_MERGE_SPLIT") &&
        p.stream_tiles == 0) {
        if (vbytes == 0 && kbytes == 4 && n <= std::max<std::size_t>(1, profile.compute_units) * 6 * 128 * p.elems) {
            p.walk_per_cu = 6;
            p.walk_async = true;
        }
    }
    if (!two_ranges) p.walk_per_cu = 0;
    if (const auto f = knob_number("CLPRIM_MERGE_FLUSH", 0, 3)) p.flush = unsigned(*f);
    if (!two_ranges) p.flush = 0;
    if (const auto m = knob_choice("CLPRIM_MERGE_ARGS", {"changed", "all"})) p.arg_memo = *m == 0;
    if (const auto k = knob_number("CLPRIM_MERGE_PREFETCH", 0, std::size_t(1) << 30)) p.l2_prefetch = *k;
    if (!two_ranges || !profile.nvidia) p.l2_prefetch = 0;
    // The partition overlapped with merging (merge_overlap.cl) on NVIDIA for 32-bit keys alone where
    // the walk is not taken: 32 searchers, binary window searches, the kernel capped at 64
    // registers (the merge's 56 and four work-groups an SM: uncapped the searchers' code takes it
    // to 130 and one), the samples' loads four at a time (keys alone: 8, below), every searcher at once.
    // H100, 2^26 uint: kernel 0.2105-0.2127 ms against the split pair's 0.2154-0.2158 (docs/RESULTS.md,
    // "#30 (s9-overlap)").
    // merge_by_key of 32-bit keys and values takes it too, uncapped (the merge itself needs more than
    // 64 registers there; uint -> uint 2^26: 0.4034 ms against 0.4134-0.4139, 2^24 0.1285 against 0.1323-0.1399).
    if (two_ranges && !p.cpu && profile.nvidia && p.walk_per_cu == 0 && p.stream_tiles == 0 && kbytes == 4 && vbytes <= 4 &&
        !knob_text("CLPRIM_MERGE_SPLIT")) {
        p.overlap = 32;
        p.overlap_probes = 1;
        p.overlap_regs = vbytes == 0 ? 64 : 0;
        p.overlap_samples_in_flight = 4;
        // Keys alone read the samples 8 at a time (and merge 19 a work-item, below).
        if (vbytes == 0) p.overlap_samples_in_flight = 8;
    }
    if (const auto o = knob_numbers("CLPRIM_MERGE_OVERLAP", 1, 5, 0, 4096)) { // "searchers[,probes[,regs[,sample loads[,eager]]]]"
        p.overlap = (*o)[0];
        if (o->size() >= 2) p.overlap_probes = std::max<std::size_t>(1, std::min<std::size_t>((*o)[1], 16));
        if (o->size() >= 3) p.overlap_regs = (*o)[2];
        if (o->size() >= 4) p.overlap_samples_in_flight = std::max<std::size_t>(1, std::min<std::size_t>((*o)[3], 16));
        if (o->size() >= 5) p.overlap_eager = (*o)[4];
    }
    if (const auto t = knob_number("CLPRIM_MERGE_OVERLAP_TWICE", 0, 1)) p.overlap_twice = *t == 1;
    if (!two_ranges || p.cpu || p.stream_tiles > 0 || p.walk_per_cu > 0 || (std::uint64_t(n) >> 32) != 0) p.overlap = 0;
    // Where merge_overlap runs on NVIDIA for 32-bit keys alone, it merges 19 keys a work-item
    // (tiles of 256 x 19: fewer tile starts to search, the merge still under the 64-register cap).
    // H100, 2^26 uint, kernels (docs/RESULTS.md, "#30 (s11)"): 17 0.2124-0.2127 ms, 19 0.2080-0.2085,
    // 21 0.2136, 23 0.2448, 25 0.2687 (spills), 15 0.2172, 13 0.2237; at 19 the samples 4 / 8 / 16
    // at a time 0.2084-0.2085 / 0.2064-0.2068 / 0.2076-0.2077 (2^24 0.0667 / 0.0651-0.0652 /
    // 0.0655-0.0659, against 0.0671-0.0673 at 17).
    if (p.overlap > 0 && profile.nvidia && kbytes == 4 && vbytes == 0 && !gpu_tune && merge_local_bytes(p.group * 19, kbytes, vbytes) <= local)
        p.elems = 19;
    while (p.split_samples > 0 && merge_split_local_bytes(p, kbytes) + merge_split_flag_bytes(p) + 1024 > local)
        p.split_samples /= 2;
    // CLPRIM_MERGE_OPTIONS adds build options (measurements). No register cap: with the full-tile
    // rounds (merge_sort.cl) every cap tried was slower on the H100 (2^26 uint -> uint, a round:
    // uncapped 0.359 ms, 48 regs 0.378, 40 0.519, 32 0.806; keys alone at 32: 0.23 -> 0.55 ms).
    p.options = knob_options("CLPRIM_MERGE_OPTIONS");

    // Measured on PoCL (2-core AMD EPYC, 2^24 uint keys): see docs/DEVELOPERS.md.
    p.chunks = 4 * std::max<std::size_t>(1, profile.compute_units);
    p.run = 16;
    if (const auto tune = knob_numbers("CLPRIM_MERGE_CPU_TUNE", 1, 2, 1)) { // "chunks[,run]"
        p.chunks = (*tune)[0];
        if (tune->size() == 2 && (*tune)[1] <= 64) p.run = (*tune)[1];
    }
    p.chunks = std::max<std::size_t>(1, std::min(p.chunks, ceil_div(n, 4 * p.run))); // no tiny chunks
    // CLPRIM_MERGE_CPU_STREAMS="streams[,min]": the cpu merges' streams (1..8; 1: merge_sort.cl's
    // single loop) and the least outputs a merge needs to take them (tests: small).
    if (const auto st = knob_numbers("CLPRIM_MERGE_CPU_STREAMS", 1, 2, 1, 1u << 30)) {
        p.streams = std::min<std::size_t>(8, (*st)[0]);
        if (st->size() == 2) p.streams_min = (*st)[1];
    }
    // CLPRIM_MERGE_CPU_PIECE=N: the most outputs of a round's piece (measurements, tests).
    if (const auto pc = knob_number("CLPRIM_MERGE_CPU_PIECE", 1, 1u << 30)) p.round_piece = *pc;
    // CLPRIM_MERGE_CPU_VEC=0|1: merge_cpu.cl's 16-key merge (with streams only; measurements, tests).
    if (const auto v = knob_number("CLPRIM_MERGE_CPU_VEC", 0, 1)) p.vec = *v == 1;
    return p;
}

} // namespace detail
} // namespace clprim
