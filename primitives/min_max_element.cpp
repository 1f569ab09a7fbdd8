// clprim::min_element / max_element: a one-launch reduce over (key, index) pairs
// (primitives/min_max_element.cl: the last work-group folds the partial pairs), then one read of
// the index (count_read.hpp).
#include "count_read.hpp"
#include "stream_block.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/min_max_element.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

// The shape, in one place: on GPUs 256 work-items, 8 work-groups per compute unit (enough loads in
// flight to stream at memory speed); elsewhere work-groups of one work-item, 4 per compute unit,
// each a long sequential loop (no barriers: PoCL runs a work-group's items as loops); at most
// 4096 partial pairs.
struct min_max_policy {
    std::size_t wg = 256;
    std::size_t groups_per_cu = 8;
    bool contiguous = false; // a contiguous chunk per work-item instead of a grid stride
};

min_max_policy select_min_max_policy(const device_profile& profile)
{
    min_max_policy p;
    p.wg = profile.is_gpu() ? 256 : 1;
    p.groups_per_cu = profile.is_gpu() ? 8 : 4;
    p.contiguous = !profile.is_gpu();
    // CLPRIM_MIN_MAX_PATH=stride|chunks forces one loop shape (tests run both on PoCL).
    if (const auto forced = knob_choice("CLPRIM_MIN_MAX_PATH", {"stride", "chunks"})) {
        p.contiguous = *forced == 1;
        p.wg = *forced == 1 ? 1 : 64;
    }
    // CLPRIM_MIN_MAX_TUNE=wg[,groups_per_cu] (measurements).
    if (const auto t = knob_numbers("CLPRIM_MIN_MAX_TUNE", 1, 2, 1)) {
        p.wg = (*t)[0];
        if (t->size() > 1) p.groups_per_cu = (*t)[1];
    }
    return p;
}

struct min_max_kernels {
    bc::kernel partial;
    std::size_t wg = 1, groups = 1;
    bool contiguous = false;
};

min_max_kernels make_kernels(const bc::command_queue& queue, element_type type, bool largest)
{
    min_max_kernels k;
    const bc::device device = queue.get_device();
    const device_profile& profile = profile_of(device);
    const min_max_policy policy = select_min_max_policy(profile);
    bc::program program = stream_program(queue.get_context(), device, {"stream_block.cl", "min_max_element.cl"},
                                             type_options(type, "T") + " -DMM_MAX=" + (largest ? "1" : "0") +
                                                 knob_options("CLPRIM_MIN_MAX_OPTIONS"));
    k.partial = program.create_kernel("mm_partial");
    const auto lp = limits_for(k.partial, device);
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min(policy.wg, lp.max_work_group_size)));
    k.contiguous = policy.contiguous;
    k.groups = std::min<std::size_t>(4096, policy.groups_per_cu * std::max<std::size_t>(1, profile.compute_units));
    return k;
}

min_max_kernels& cached_kernels(const bc::command_queue& queue, element_type type, bool largest)
{
    using key = std::tuple<cl_context, cl_device_id, int, bool, int, std::string>;
    thread_local std::map<key, min_max_kernels> cache;
    const auto forced = knob_choice("CLPRIM_MIN_MAX_PATH", {"stride", "chunks"});
    const key k{queue.get_context().get(), queue.get_device().get(), int(type), largest, forced ? int(*forced) : -1,
                knob_options("CLPRIM_MIN_MAX_OPTIONS") + ";" + knob_text("CLPRIM_MIN_MAX_TUNE").value_or("")};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, type, largest)).first;
    return it->second;
}

} // namespace

std::size_t min_max_element_impl(const buffer_range& in, element_type type, bool largest, bc::command_queue& user_queue)
{
    const char* who = largest ? "clprim::max_element" : "clprim::min_element";
    if (in.size == 0) throw invalid_argument_error(std::string(who) + ": the range is empty");
    require_type_support(type, user_queue.get_device(), who);
    in_order_scope scope(user_queue);
    bc::command_queue& queue = scope.queue();
    cl_ulong index = 0;
    guarded(who, [&] {
        min_max_kernels& k = cached_kernels(queue, type, largest);
        const std::size_t elem = size_of(type);
        const std::size_t groups = std::max<std::size_t>(1, std::min(k.groups, ceil_div(in.size, k.wg * 64))); // >= 64 elements a work-item
        scratch_lease lease(queue);
        const bc::buffer pk = lease.buffer(groups * elem);
        const bc::buffer pi = lease.buffer(groups * sizeof(cl_ulong));
        const bc::buffer result = lease.buffer(sizeof(cl_ulong));
        const cl_ulong chunk = k.contiguous ? ceil_div(in.size, groups * k.wg) : 0;
        // The work-groups' counter: word 0 of the queue's look-back slots (zero between launches:
        // the last work-group sets it back, as a look-back's last tile does).
        const lookback_slots counter = take_lookback_slots(queue, 1);
        launch(queue, k.partial, groups * k.wg, k.wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size), chunk, pk, pi,
               result, counter.buffer, local_bytes{k.wg * elem}, local_bytes{k.wg * sizeof(cl_ulong)});
        // CLPRIM_MIN_MAX_READ=0|1|2 (plain, pinned, async: count_read.hpp) for measurements; by
        // default the by-key family's form.
        static const result_read forms[] = {result_read::plain, result_read::pinned, result_read::async};
        if (const auto form = knob_number("CLPRIM_MIN_MAX_READ", 0, 2))
            read_result_word(queue, result, sizeof index, &index, forms[*form]);
        else
            read_result_word(queue, result, sizeof index, &index);
    });
    return std::size_t(index);
}

} // namespace detail
} // namespace clprim
