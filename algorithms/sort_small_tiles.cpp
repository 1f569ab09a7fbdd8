// Host side of the few-tiles radix sort (sort_small_tiles.cl): one launch per 8-bit digit, no
// histogram launch, no clearing command (the status words stay with the queue), no host round
// trip.
#include "sort_small_tiles.hpp"
#include "sort_small_policy.hpp"
#include "sort_support.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <map>
#include <string>
#include <vector>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

constexpr std::size_t radix = 256;
constexpr std::size_t max_passes = 8; // ST_MAX_PASSES
constexpr std::size_t counts_words = max_passes * radix + max_passes; // one half: later-pass counts, tile counters
constexpr std::size_t region_words = sort_small_tiles_max_tiles * radix; // one region of look-back slots

// Local memory of sort_small_tiles_pass (bytes), as the kernel declares it.
std::size_t pass_local_bytes(const sort_request& r, std::size_t wg, std::size_t kpt)
{
    const std::size_t key = size_of(r.key_type), passes = key;
    std::size_t bytes = wg * kpt * (key + (r.has_values ? size_of(r.value_type) : 0));
    bytes += (wg / 32) * radix * 4 + 3 * radix * 4 + (2 * wg + (2 * wg) / 32 + 1) * 4 + 8 + (passes - 1) * radix * 4;
    return bytes;
}

// One kernel object per pass (each keeps its arguments from call to call, kernel_arg_memo).
struct tiles_kernel {
    std::vector<bc::kernel> pass;
    std::vector<kernel_arg_memo> args;
    std::size_t wg = 0, kpt = 0;
    std::size_t tile() const { return wg * kpt; }
};

// Keys per work-item: the policy's, fewer where the tile does not fit local memory.
std::size_t fitting_kpt(const sort_request& r, const device_profile& profile, const sort_small_policy& pol)
{
    std::size_t kpt = pol.tiles_kpt;
    while (kpt > 1 && pass_local_bytes(r, pol.tiles_wg, kpt) > profile.local_mem_size) --kpt;
    return pass_local_bytes(r, pol.tiles_wg, kpt) <= profile.local_mem_size ? kpt : 0;
}

// Per host thread, per (context, device, types, order, tile shape). NVIDIA devices whose compiler
// takes the inline PTX of the warp-vote ranking get it; others (and a refused build) the portable one.
tiles_kernel& cached_kernel(const bc::command_queue& queue, const small_queue_ids& ids, const device_profile& profile,
                            const sort_small_policy& pol, const sort_request& r)
{
    const std::size_t kpt = fitting_kpt(r, profile, pol);
    const std::string lookback = lookback_build_options(); // CLPRIM_LOOKBACK=fallback: every tile takes it
    using key = std::tuple<cl_context, cl_device_id, int, int, int, std::size_t, std::size_t, bool, std::string>;
    thread_local std::map<key, tiles_kernel> cache;
    const key k{ids.context, ids.device, int(r.key_type), r.has_values ? int(r.value_type) : -1, int(r.order),
                pol.tiles_wg, kpt, pol.tiles_ballot, lookback};
    auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    const std::size_t passes = size_of(r.key_type);
    const std::string options = sort_build_options(r) + " -DST_WG=" + std::to_string(pol.tiles_wg) +
                                " -DST_KPT=" + std::to_string(kpt) + " -DST_PASSES=" + std::to_string(passes) + " -DWARP_RANK_BITS=8" + lookback;
    const std::vector<std::string> files{"sort_key_order.cl", "workgroup_scan.cl", "lookback.cl", "warp_rank.cl", "sort_small_tiles.cl"};
    bc::program program;
    bool built = false;
    if (profile.nvidia && pol.tiles_ballot) {
        try {
            program = algorithms_program(queue.get_context(), files, options + " -DWARP_RANK_VOTES -DLB_NANOSLEEP");
            built = true;
        } catch (const build_error&) {
        }
    }
    if (!built) program = algorithms_program(queue.get_context(), files, options);
    tiles_kernel t;
    for (std::size_t p = 0; p < passes; ++p) t.pass.push_back(program.create_kernel("sort_small_tiles_pass"));
    small_require_group(t.pass[0], ids.device, pol.tiles_wg, "the few-tiles sort's kernel");
    t.args.resize(passes);
    t.wg = pol.tiles_wg;
    t.kpt = kpt;
    return cache.emplace(k, std::move(t)).first->second;
}

} // namespace

std::size_t sort_small_tiles_tile(const sort_request& r, const device_profile& profile, const sort_small_policy& pol)
{
    if (size_of(r.key_type) < 2) return 0; // one pass: an odd count (see sort_small_tiles.cl)
    if (pol.tiles_wg > profile.max_work_group_size) return 0;
    return pol.tiles_wg * fitting_kpt(r, profile, pol);
}

void sort_small_tiles(const sort_request& r, bc::command_queue& queue, const small_queue_ids& ids,
                      const device_profile& profile, const sort_small_policy& pol)
{
    tiles_kernel& k = cached_kernel(queue, ids, profile, pol, r);
    const std::size_t n = r.keys.size;
    const std::size_t key_size = size_of(r.key_type), value_size = r.has_values ? size_of(r.value_type) : 0;
    const std::size_t passes = key_size; // 8-bit digits: 2, 4 or 8, an even number
    const std::size_t tiles = ceil_div(n, k.tile());

    // Status words: two halves of later-pass counts, then two regions of look-back slots. Between
    // calls region 0 reads zero, and the half the next call uses is zero (this call's pass 0
    // clears it). A new or grown buffer is zero-filled once. Locked while this call enqueues.
    queue_state st = take_queue_state(queue, "sort_small_tiles", (2 * counts_words + 2 * region_words) * sizeof(cl_uint));
    if (st.fresh) {
        const cl_uint zero = 0;
        queue.enqueue_fill_buffer(st.buffer, &zero, sizeof zero, 0, st.buffer.size());
        st.fresh = false;
    }
    const std::size_t half = std::size_t(st.counter & 1);
    const std::size_t slots_at = 2 * counts_words;

    // Scratch first: a call that fails here has touched no status word (the next call uses the
    // same clean half). The counter moves once pass 0, which clears the next call's half, is out.
    scratch_lease scratch(queue);
    const bc::buffer keys_a = scratch.buffer(n * key_size), keys_b = scratch.buffer(n * key_size);
    bc::buffer values_a = keys_a, values_b = keys_b;
    if (r.has_values) {
        values_a = scratch.buffer(n * value_size);
        values_b = scratch.buffer(n * value_size);
    }
    const sort_place caller = sort_place::caller(r);
    const sort_place a{keys_a, values_a, 0, 0}, b{keys_b, values_b, 0, 0};
    // A launch refused after pass 0 leaves this call's slots and counts dirty: the next call
    // zero-fills the whole buffer first (fresh).
    try {
        for (std::size_t p = 0; p < passes; ++p) {
            // caller -> a -> b -> a ... -> caller (an even number of passes ends where it started).
            // Pass p clears region (p + 1) % 2 for the pass after it, the last pass region 0 for the
            // next call (the pass that used it has finished: same in-order queue).
            const sort_place& from = p == 0 ? caller : (p % 2 == 1 ? a : b);
            const sort_place& to = p + 1 == passes ? caller : (p % 2 == 0 ? a : b);
            k.args[p].set(k.pass[p], from.k, cl_ulong(from.koff), to.k, cl_ulong(to.koff),
                   from.v, cl_ulong(from.voff), to.v, cl_ulong(to.voff), cl_uint(n), cl_uint(p), st.buffer,
                   cl_ulong(half * counts_words), cl_ulong((1 - half) * counts_words), cl_ulong(slots_at + (p % 2) * region_words),
                   cl_ulong(slots_at + ((p + 1) % 2) * region_words)); // the last pass clears region 0
            launch_1d(queue, k.pass[p], tiles * k.wg, k.wg);
            if (p == 0) ++st.counter;
        }
    } catch (...) {
        st.fresh = true;
        throw;
    }
}

} // namespace detail
} // namespace clprim
