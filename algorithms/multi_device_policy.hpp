#pragma once
// The multi-device sort's tuning, in one place (algorithms/multi_device_sort.cpp): chunks in flight
// per queue, the chunk size (memory cap, largest allocation, the pipeline's wish for several
// chunks per queue), where the final merge runs, how host data reaches the devices. The knobs'
// overrides are read here. Measurements behind the defaults: docs/RESULTS.md (multi_device).
// Private to the algorithms layer.
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace clprim {
namespace detail {

// Where the sorted runs are merged: on the devices (each output piece's sub-runs uploaded,
// sorted there by the stable radix sort, which merges them in (key, run, position) order, and
// downloaded into place, pipelined like the chunks) or on the host (a k-way merge per piece,
// threads over pieces).
// `both`: the devices take pieces from the front, a host thread (with hybrid_host_threads
// helpers) merges pieces from the back.
enum class multi_merge { device, host, both };

// How host data reaches a device: `direct` reads and writes the caller's (pageable) memory with
// clEnqueueWrite/ReadBuffer; `pinned` goes through rings of small mapped CL_MEM_ALLOC_HOST_PTR
// blocks, filled and emptied by host threads (memcpy) while the previous blocks are in flight.
enum class multi_staging { direct, pinned };

struct multi_device_policy {
    std::size_t slots = 3;                        // chunks in flight per queue (upload, sort, download)
    std::size_t chunks_per_queue = 8;             // chunks wanted per queue, so that the pipeline fills
    std::size_t min_chunk_keys = std::size_t(1) << 22; // ... but not smaller than this (launch costs)
    std::size_t max_chunk_keys = (std::size_t(1) << 30) - (std::size_t(1) << 16); // one sort's keys (the one-sweep range on GPUs)
    std::size_t forced_chunk_keys = 0;            // CLPRIM_MULTI_CHUNK (0: none): caps the chunk
    std::size_t memory_fraction_32nds = 30;       // of the cap for chunk buffers, the rest for the sort's own scratch
    multi_merge merge = multi_merge::host;
    multi_staging staging = multi_staging::direct;
    std::size_t host_threads = 1;                 // the host merge's threads
    std::size_t copy_threads = 1;                 // threads per pinned-staging memcpy
    std::size_t staging_block_bytes = std::size_t(64) << 20; // pinned staging: one transfer's block
    std::size_t staging_blocks = 4;               // ... blocks per direction and queue
    std::size_t host_pieces_per_thread = 4;       // host merge: pieces per thread (load balance)
    std::size_t hybrid_host_threads = 1;          // `both`: the host's merge threads beside the transfers
};

// profiles: one per queue given. GPUs (any device that is not a CPU) merge on the devices and
// stage through pinned memory; CPU devices (PoCL) read host memory directly and merge on the host.
// CLPRIM_MULTI_MERGE=device|host|both, CLPRIM_MULTI_STAGING=direct|pinned, CLPRIM_MULTI_CHUNK=<keys>,
// CLPRIM_MULTI_TUNE=<slots 1..8>[,<chunks per queue>[,<min chunk keys>]] and
// CLPRIM_MULTI_STAGING_TUNE=<block KiB>[,<blocks>[,<copy threads>]]
// override.
inline multi_device_policy select_multi_device_policy(const std::vector<device_profile>& profiles)
{
    multi_device_policy p;
    const bool any_gpu = std::any_of(profiles.begin(), profiles.end(), [](const device_profile& d) { return !d.is_cpu(); });
    p.merge = any_gpu ? multi_merge::device : multi_merge::host;
    p.staging = any_gpu ? multi_staging::pinned : multi_staging::direct;
    const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
    p.host_threads = cores;
    p.hybrid_host_threads = std::max<std::size_t>(1, cores / 2);
    p.copy_threads = std::max<std::size_t>(1, std::min<std::size_t>(8, cores / (2 * std::max<std::size_t>(1, profiles.size()))));
    if (const auto m = knob_choice("CLPRIM_MULTI_MERGE", {"device", "host", "both"})) p.merge = multi_merge(*m);
    if (const auto s = knob_choice("CLPRIM_MULTI_STAGING", {"direct", "pinned"})) p.staging = multi_staging(*s);
    if (const auto c = knob_number("CLPRIM_MULTI_CHUNK", 1, std::size_t(1) << 40)) p.forced_chunk_keys = *c;
    if (const auto t = knob_numbers("CLPRIM_MULTI_TUNE", 1, 3, 1, std::size_t(1) << 40)) {
        p.slots = std::min<std::size_t>(8, (*t)[0]);
        if (t->size() > 1) p.chunks_per_queue = (*t)[1];
        if (t->size() > 2) p.min_chunk_keys = (*t)[2];
    }
    if (const auto t = knob_numbers("CLPRIM_MULTI_STAGING_TUNE", 1, 3, 1, std::size_t(1) << 22)) {
        p.staging_block_bytes = (*t)[0] << 10;
        if (t->size() > 1) p.staging_blocks = std::max<std::size_t>(2, (*t)[1]);
        if (t->size() > 2) p.copy_threads = (*t)[2];
    }
    return p;
}

} // namespace detail
} // namespace clprim
