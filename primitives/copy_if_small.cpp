// Host side of copy_if's one-work-group path (copy_if_small.hpp, copy_if_small.cl). A small
// call's wall time is mostly the driver's (docs/RESULTS.md, "#27 (s5-small)"): no driver query
// here beyond info_of's, and only the kernel arguments that changed are set again.
#include "copy_if_small.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

constexpr std::size_t small_max_rows = 32;

// The path's largest range and work-group size (CLPRIM_COPY_IF_SMALL="max[,wg]").
struct small_shape {
    std::size_t most = 4096;
    std::size_t wg = 256;
};

small_shape shape_of()
{
    small_shape s;
    if (knobs_with_prefix("CLPRIM_COPY_IF_")) {
        // A forced path or tile shape is that path's, at every size (tests, measurements).
        if (knob_text("CLPRIM_COPY_IF_PATH") || knob_text("CLPRIM_COPY_IF_TUNE")) s.most = 0;
        if (const auto m = knob_numbers("CLPRIM_COPY_IF_SMALL", 1, 2, 0, 8192)) {
            s.most = (*m)[0];
            if (m->size() > 1) s.wg = std::max<std::size_t>(32, floor_pow2(std::max<std::size_t>(1, (*m)[1])));
        }
    }
    s.most = std::min(s.most, s.wg * small_max_rows);
    return s;
}

// One build per (context, device, type, predicate, rows, form), with the arguments it was last
// given.
struct small_kernel {
    bc::kernel kernel;
    std::size_t wg = 0; // 0: the device cannot run it
    bool set = false;
    cl_ulong4 at{};   // (in_off, out_off, capacity, count_off)
    cl_ulong2 at2{};  // (out2_off, capacity2)
    cl_uint n = 0;
    cl_mem count_word = nullptr; // ours only (a word that lives as long as the thread)
};

small_kernel make_kernel(const queue_info& info, element_type type, const std::string& pred_file, std::size_t want_wg,
                         std::size_t rows, small_form form)
{
    small_kernel k;
    const std::size_t wg = std::min(want_wg, floor_pow2(std::max<std::size_t>(1, info.profile->max_work_group_size)));
    if (wg < 32) return k;
    const std::string options = type_options(type, "T") + " -DCS_WG=" + std::to_string(wg) + " -DCS_ROWS=" +
                                std::to_string(rows) + (info.profile->nvidia ? " -DCS_VOTE" : "") +
                                (form == small_form::unique      ? " -DCS_UNIQUE"
                                 : form == small_form::partition ? " -DCS_PARTITION"
                                                                 : "");
    bc::program program = form == small_form::unique
                              ? primitives_program(info.context, {"copy_if_small.cl"}, options)
                              : primitives_program(info.context, {pred_file, "copy_if_small.cl"}, options);
    k.kernel = program.create_kernel("copy_if_small");
    if (limits_for(k.kernel, info.device).max_work_group_size >= wg) k.wg = wg;
    return k;
}

small_kernel& cached_kernel(const queue_info& info, element_type type, const std::string& pred_file, std::size_t wg,
                            std::size_t rows, small_form form)
{
    using key = std::tuple<cl_context, cl_device_id, int, std::size_t, std::string, std::size_t, int>;
    thread_local std::map<key, small_kernel> cache;
    // This thread's last kernel first (a loop of small calls: no key of strings built).
    thread_local const key* last_key = nullptr;
    thread_local small_kernel* last_kernel = nullptr;
    const cl_context ctx = info.context.get();
    const cl_device_id dev = info.device.id();
    if (last_key && std::get<0>(*last_key) == ctx && std::get<1>(*last_key) == dev && std::get<2>(*last_key) == int(type) &&
        std::get<3>(*last_key) == rows && std::get<5>(*last_key) == wg && std::get<6>(*last_key) == int(form) &&
        std::get<4>(*last_key) == pred_file)
        return *last_kernel;
    key k{ctx, dev, int(type), rows, pred_file, wg, int(form)};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(std::move(k), make_kernel(info, type, pred_file, wg, rows, form)).first;
    last_key = &it->first;
    last_kernel = &it->second;
    return it->second;
}

} // namespace

std::size_t copy_if_small_max(const device_profile& profile)
{
    (void)profile;
    return shape_of().most;
}

bool copy_if_small_launch(const buffer_range& in, const buffer_range& out, element_type type, const std::string& pred_file,
                          const bc::buffer& count_buffer, std::size_t count_offset, bool count_is_ours,
                          bc::command_queue& queue, small_form form, const buffer_range* out2)
{
    const queue_info& info = info_of(queue);
    const std::size_t wg = shape_of().wg;
    const std::size_t groups_rows = std::max<std::size_t>(1, (in.size + wg - 1) / wg);
    std::size_t rows = 1;
    while (rows < groups_rows) rows *= 2;
    if (rows > small_max_rows) return false;
    small_kernel& k = cached_kernel(info, type, form == small_form::unique ? std::string() : pred_file, wg, rows, form);
    if (k.wg == 0 || in.size > k.wg * rows) return false;
    bc::kernel& kernel = k.kernel;
    const bool all = !k.set;
    k.set = false; // until every argument below is set (a throw leaves them unknown)
    // Buffers every call (a released buffer's handle may come back for another one), but the
    // count word where it is this thread's own; the scalars packed and set where they changed.
    cl_ulong4 at{};
    at.s[0] = in.offset;
    at.s[1] = out.offset;
    at.s[2] = out.size;
    at.s[3] = count_offset;
    set_kernel_args_from(kernel, 0, in.buffer, out.buffer);
    if (all || !count_is_ours || k.count_word != count_buffer.get()) set_kernel_args_from(kernel, 2, count_buffer);
    if (all || std::memcmp(&k.at, &at, sizeof at) != 0) set_kernel_args_from(kernel, 3, at);
    if (all || k.n != cl_uint(in.size)) set_kernel_args_from(kernel, 4, cl_uint(in.size));
    if (form == small_form::partition) {
        cl_ulong2 at2{};
        at2.s[0] = out2->offset;
        at2.s[1] = out2->size;
        set_kernel_args_from(kernel, 5, out2->buffer);
        if (all || std::memcmp(&k.at2, &at2, sizeof at2) != 0) set_kernel_args_from(kernel, 6, at2);
        k.at2 = at2;
    }
    k.at = at;
    k.n = cl_uint(in.size);
    k.count_word = count_is_ours ? count_buffer.get() : nullptr;
    k.set = true;
    launch_1d(queue, kernel, k.wg, k.wg);
    return true;
}

} // namespace detail
} // namespace clprim
