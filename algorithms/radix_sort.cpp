// Host side of the radix sort: the argument checks and the path choice (choose_radix_path, below):
// the one-sweep sort on GPUs (radix_onesweep.cpp), one launch for small ranges (sort_small.cpp),
// the chunked CPU sort on CPU devices (radix_sort_cpu.cpp), or the textbook multi-pass LSD sort
// (radix_multipass.cpp).
#include "radix_multipass.hpp"
#include "radix_onesweep.hpp"
#include "radix_policy.hpp"
#include "radix_sort_cpu.hpp"
#include "sort_small.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_limits.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/queue_info.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace clprim {
namespace detail {

namespace {

// The path (radix_policy.hpp: select_radix_path).
radix_path choose_radix_path(const bc::command_queue& queue, const device_profile& profile, const sort_request& r)
{
    const std::size_t n = r.keys.size;
    return select_radix_path(profile, n <= sort_small_max_keys(r, queue), n <= onesweep_max_keys,
                             [&] { return onesweep_match_any_available(queue); });
}

} // namespace

void radix_sort_impl(const sort_request& r, bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    const char* who = r.has_values ? "clprim::radix_sort_by_key" : "clprim::radix_sort";
    // The queue's profile without a driver query on this thread's last queues (a small sort's
    // host time is a few microseconds: docs/RESULTS.md, "#27 (s5-small)").
    const device_profile& profile = *info_of(queue).profile;
    require_type_support(r.key_type, queue, who);
    if (r.has_values) require_type_support(r.value_type, queue, who);
    const std::size_t n = r.keys.size;
    // Kernels index tiles with 32-bit unsigned integers (and the digit counts are uint).
    if (n > std::size_t(std::numeric_limits<cl_uint>::max()) - (std::size_t(1) << 16))
        throw invalid_argument_error(std::string(who) + ": more than 2^32 - 2^16 keys");
    if (n < 2) return;
    const radix_path path = choose_radix_path(queue, profile, r);
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
