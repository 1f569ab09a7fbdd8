// Host side of the radix sort: the argument checks and the path choice (choose_radix_path, below):
// the one-sweep sort on GPUs (radix_onesweep.cpp), one launch for small ranges (sort_small.cpp),
// the chunked CPU sort on CPU devices (radix_sort_cpu.cpp), or the textbook multi-pass LSD sort
// (radix_multipass.cpp).
#include "radix_multipass.hpp"
#include "radix_onesweep.hpp"
#include "radix_sort_cpu.hpp"
#include "sort_small.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace clprim {
namespace detail {

namespace {

// Which radix sort runs (the one place where that is chosen):
//  - onesweep (radix_onesweep.cpp): every device that is not a CPU (GPUs and accelerators of any
//    vendor), n < 2^30. One read and one write of the keys per 8-bit digit, chained across
//    work-groups by decoupled look-back with its fallback (lookback.cl): a tile whose predecessor
//    stalls counts that tile's digits itself, so no forward progress between work-groups is
//    assumed. Ranks with NVIDIA's match.any where the compiler takes inline PTX, else portably
//    (onesweep_portable).
//  - small (sort_small.cpp): the same devices, n up to what one work-group's local memory holds
//    (4096 4-byte keys): one launch, a bitonic network over (key, index) pairs, where the
//    one-sweep path's five launches would cost more than the keys.
//  - cpu (radix_sort_cpu.cpp): CPU devices: a contiguous chunk per work-item, no barriers.
//  - multipass (radix_multipass.cpp): Zagha & Blelloch's count / scan / scatter per digit, the textbook
//    algorithm: n >= 2^30 on GPUs (the look-back counts hold 30 bits).
// CLPRIM_RADIX_PATH=onesweep|onesweep_portable|multipass|cpu|small forces a path (for tests and
// measurements; onesweep falls back to onesweep_portable where match.any is not available, small
// to the device's choice where n does not fit).
enum class radix_path { onesweep, onesweep_portable, multipass, cpu, small };

radix_path choose_radix_path(const bc::command_queue& queue, const sort_request& r)
{
    const bc::device device = queue.get_device();
    const std::size_t n = r.keys.size;
    const bool fits_onesweep = n <= onesweep_max_keys;
    auto onesweep = [&] {
        return onesweep_match_any_available(queue) ? radix_path::onesweep : radix_path::onesweep_portable;
    };
    const bool fits_small = n <= sort_small_max_keys(r, queue);
    if (const auto forced = knob_choice("CLPRIM_RADIX_PATH", {"onesweep", "onesweep_portable", "multipass", "cpu", "small"})) {
        const radix_path p = radix_path(*forced);
        if (p == radix_path::cpu || p == radix_path::multipass) return p;
        if (p == radix_path::small && fits_small) return p;
        if (p != radix_path::small && fits_onesweep) return p == radix_path::onesweep ? onesweep() : radix_path::onesweep_portable;
    }
    const device_profile& profile = profile_of(device);
    if (profile.is_cpu()) return radix_path::cpu;
    if (fits_small) return radix_path::small;
    if (fits_onesweep) return onesweep();
    return radix_path::multipass;
}

} // namespace

void radix_sort_impl(const sort_request& r, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    const char* who = r.has_values ? "clprim::radix_sort_by_key" : "clprim::radix_sort";
    const bc::device device = queue.get_device();
    require_type_support(r.key_type, device, who);
    if (r.has_values) require_type_support(r.value_type, device, who);
    const std::size_t n = r.keys.size;
    // Kernels index tiles with 32-bit unsigned integers (and the digit counts are uint).
    if (n > std::size_t(std::numeric_limits<cl_uint>::max()) - (std::size_t(1) << 16))
        throw invalid_argument_error(std::string(who) + ": more than 2^32 - 2^16 keys");
    if (n < 2) return;
    const radix_path path = choose_radix_path(queue, r);
    if (path == radix_path::cpu) return radix_sort_cpu_impl(r, queue);
    if (path == radix_path::small) return guarded(who, [&] { sort_small(r, queue); });
    if (path == radix_path::onesweep || path == radix_path::onesweep_portable) {
        return guarded(who, [&] {
            radix_sort_onesweep(r, queue,
                                path == radix_path::onesweep ? onesweep_ranking::match_any : onesweep_ranking::portable);
        });
    }

    guarded(who, [&] { radix_sort_multipass(r, queue); });
}

} // namespace detail
} // namespace clprim
