// clprim::min_element / max_element: a one-launch reduce over (key, index) pairs
// (primitives/min_max_element.cl: the last work-group folds the partial pairs), then one read of
// the index: the path of reduce's value-returning call (one launch, only the changed arguments
// set, a per-queue word for the result, the read form of reduce_pinned.hpp that reduce uses).
#include "reduce_pinned.hpp"
#include "reduce_policy.hpp"
#include "stream_block.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/queue_state.hpp>
#include <clprim/min_max_element.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

// The shape, in one place: on GPUs 256 work-items, 4 work-groups per compute unit (enough loads in
// flight to stream at memory speed; H100, 2^26 uint, kernel time 0.0971-0.0974 ms against
// 0.0996-0.1008 with 8, three processes: docs/RESULTS.md, s6-reduce); elsewhere work-groups of one work-item, 4 per compute unit,
// each a long sequential loop (no barriers: PoCL runs a work-group's items as loops); at most
// 4096 partial pairs.
struct min_max_policy {
    std::size_t wg = 256;
    std::size_t groups_per_cu = 4;
    bool contiguous = false; // a contiguous chunk per work-item instead of a grid stride
};

min_max_policy select_min_max_policy(const device_profile& profile)
{
    min_max_policy p;
    p.wg = profile.is_gpu() ? 256 : 1;
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

// The arguments last set on a kernel (kernels are per host thread, so no lock): a call sets again
// only those that changed (each clSetKernelArg is a driver call); the caller's buffer at every call
// (a released buffer's handle may come back naming a new one), the state buffer when it is another
// (by serial: release_scratch_memory() drops the states, and a new one may get an old handle).
struct mm_args {
    bool valid = false;
    cl_ulong state = 0; // the state buffer's serial
    cl_ulong off = 0, n = 0, chunk = 0, cap = 0;
};

struct min_max_kernels {
    bc::kernel partial;
    std::size_t wg = 1, groups = 1;
    bool contiguous = false;
    mm_args set;
};

min_max_kernels make_kernels(const bc::command_queue& queue, const queue_info& info, element_type type, bool largest)
{
    min_max_kernels k;
    const device_profile& profile = *info.profile;
    const min_max_policy policy = select_min_max_policy(profile);
    bc::program program = stream_program(info.context, info.device, {"stream_block.cl", "min_max_element.cl"},
                                         type_options(type, "T") + " -DMM_MAX=" + (largest ? "1" : "0") +
                                             knob_options("CLPRIM_MIN_MAX_OPTIONS"));
    (void)queue;
    k.partial = program.create_kernel("mm_partial");
    const auto lp = limits_for(k.partial, info.device);
    k.wg = floor_pow2(std::max<std::size_t>(1, std::min(policy.wg, lp.max_work_group_size)));
    k.contiguous = policy.contiguous;
    k.groups = std::min<std::size_t>(4096, policy.groups_per_cu * std::max<std::size_t>(1, profile.compute_units));
    return k;
}

min_max_kernels& cached_kernels(const bc::command_queue& queue, const queue_info& info, element_type type,
                                bool largest)
{
    using key = std::tuple<cl_context, cl_device_id, int, bool, int, std::string>;
    thread_local std::map<key, min_max_kernels> cache;
    // The knobs that change the build or the shape, read only where one may be set
    // (knobs_with_prefix: no search of the environment per knob at every call).
    int forced_path = -1;
    std::string knob_key;
    if (knobs_with_prefix("CLPRIM_MIN_MAX")) {
        if (const auto forced = knob_choice("CLPRIM_MIN_MAX_PATH", {"stride", "chunks"})) forced_path = int(*forced);
        knob_key = knob_options("CLPRIM_MIN_MAX_OPTIONS") + ";" + knob_text("CLPRIM_MIN_MAX_TUNE").value_or("");
    }
    const key k{info.context.get(), info.device.id(), int(type), largest, forced_path, knob_key};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(k, make_kernels(queue, info, type, largest)).first;
    return it->second;
}

// How the index comes back: as reduce's value (select_reduce_read: flush_spin on GPUs, plain or
// async on CPUs); CLPRIM_MIN_MAX_READ=0..9 picks one of reduce_pinned.hpp's forms instead
// (measurements).
value_read index_read(bool small, bool gpu)
{
    if (knobs_with_prefix("CLPRIM_MIN_MAX"))
        if (const auto v = knob_number("CLPRIM_MIN_MAX_READ", 0, value_read_forms - 1)) return value_read(*v);
    return select_reduce_read(small, gpu);
}

} // namespace

std::size_t min_max_element_impl(const buffer_range& in, element_type type, bool largest, bc::command_queue& user_queue)
{
    const char* who = largest ? "clprim::max_element" : "clprim::min_element";
    if (in.size == 0) throw invalid_argument_error(std::string(who) + ": the range is empty");
    require_type_support(type, user_queue, who); // no driver query (queue_info.hpp)
    in_order_scope scope(user_queue);
    bc::command_queue& queue = scope.queue();
    cl_ulong index = 0;
    guarded(who, [&] {
        const queue_info& info = info_of(queue); // no driver query on this thread's last queues
        const bc::context context = info.context;
        const bool gpu = info.profile->is_gpu();
        min_max_kernels& k = cached_kernels(queue, info, type, largest);
        const std::size_t groups = std::max<std::size_t>(1, std::min(k.groups, ceil_div(in.size, k.wg * 64))); // >= 64 elements a work-item
        const cl_ulong chunk = k.contiguous ? ceil_div(in.size, groups * k.wg) : 0;
        // One buffer per queue (queue_state.hpp), no scratch lease: word 0 the work-groups'
        // counter (0 between launches: the last work-group sets it back), word 1 the index, then
        // room for k.groups partial pairs (indices, then keys of up to 8 bytes).
        const cl_ulong cap = k.groups;
        queue_state st = take_queue_state(queue, "min_max_element", (2 + 2 * cap) * sizeof(cl_ulong));
        // The state's counter: the buffer's serial, given when it is new (a kernel's arguments
        // name the buffer until then; a handle alone could be a released buffer's reused).
        if (st.fresh) {
            static std::atomic<cl_ulong> serials{0};
            const cl_ulong zero = 0;
            queue.enqueue_fill_buffer(st.buffer, &zero, sizeof zero, 0, sizeof zero);
            st.counter = ++serials;
            st.fresh = false;
        }
        bc::kernel& kern = k.partial;
        mm_args& last = k.set;
        const bool all = !last.valid || last.state != st.counter;
        last.valid = false; // until every argument below is set (a throw leaves them unknown)
        set_kernel_args_from(kern, 0, in.buffer);
        if (all || last.off != in.offset) set_kernel_args_from(kern, 1, cl_ulong(in.offset));
        if (all || last.n != in.size) set_kernel_args_from(kern, 2, cl_ulong(in.size));
        if (all || last.chunk != chunk) set_kernel_args_from(kern, 3, chunk);
        if (all) set_kernel_args_from(kern, 4, st.buffer);
        if (all || last.cap != cap) set_kernel_args_from(kern, 5, cap);
        if (all) set_kernel_args_from(kern, 6, local_bytes{k.wg * size_of(type)}, local_bytes{k.wg * sizeof(cl_ulong)});
        last.state = st.counter;
        last.off = in.offset;
        last.n = in.size;
        last.chunk = chunk;
        last.cap = cap;
        last.valid = true;
        launch_1d(queue, kern, groups * k.wg, k.wg);
        read_value(context, queue, st.buffer, sizeof(cl_ulong), sizeof index, &index, index_read(groups == 1, gpu));
    });
    return std::size_t(index);
}

} // namespace detail
} // namespace clprim
