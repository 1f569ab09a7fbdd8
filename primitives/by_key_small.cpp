// Host side of the by-key family's one-work-group path (by_key_small.hpp, by_key_small.cl). A
// small call's wall time is mostly the driver's: no driver query here beyond info_of's, one
// program lookup per thread's last kernel, and only the kernel arguments that changed are set again.
#include "by_key_small.hpp"

#include "by_key_policy.hpp"
#include "count_read.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/detail/queue_info.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

// One build per (context, device, mode, types, operator, work-group, rows), with the arguments it
// was last given.
struct small_kernel {
    bc::kernel kernel;
    std::size_t wg = 0; // 0: the device cannot run it
    bool set = false;
    cl_ulong8 at{};
    cl_uint4 nrf{};
    unsigned char init[8] = {};
};

small_kernel make_kernel(const queue_info& info, const by_key_call& call, std::size_t wg, std::size_t rows, bool shfl,
                         int diag)
{
    small_kernel k;
    if (wg > info.profile->max_work_group_size) return k;
    const std::string options = type_options(call.key_type, "K") + " " + type_options(call.value_type, "V") +
                                " -DBK_MODE=" + std::to_string(int(call.mode)) + " -DBK_ITEMS=1 -DSK_WG=" +
                                std::to_string(wg) + " -DSK_ROWS=" + std::to_string(rows) +
                                (shfl ? " -DBK_PTX -DBK_SHFL_SCAN" : "") + (diag ? " -DSK_DIAG=" + std::to_string(diag) : "");
    std::vector<std::string> files{"workgroup_segmented.cl", "by_key.cl", "by_key_warp.cl", "by_key_small.cl"};
    if (!call.op_file.empty()) files.insert(files.begin(), call.op_file);
    bc::program program = primitives_program(info.context, files, options);
    k.kernel = program.create_kernel("by_key_small");
    if (limits_for(k.kernel, info.device).max_work_group_size >= wg) k.wg = wg;
    return k;
}

small_kernel& cached_kernel(const queue_info& info, const by_key_call& call, std::size_t wg, std::size_t rows, bool shfl,
                            int diag)
{
    using key = std::tuple<cl_context, cl_device_id, int, int, int, std::string, std::size_t, std::size_t, bool, int>;
    thread_local std::map<key, small_kernel> cache;
    // This thread's last kernel first (a loop of small calls: no key with a string built).
    thread_local const key* last_key = nullptr;
    thread_local small_kernel* last_kernel = nullptr;
    const cl_context ctx = info.context.get();
    const cl_device_id dev = info.device.id();
    if (last_key && std::get<0>(*last_key) == ctx && std::get<1>(*last_key) == dev &&
        std::get<2>(*last_key) == int(call.mode) && std::get<3>(*last_key) == int(call.key_type) &&
        std::get<4>(*last_key) == int(call.value_type) && std::get<6>(*last_key) == wg && std::get<7>(*last_key) == rows &&
        std::get<8>(*last_key) == shfl && std::get<9>(*last_key) == diag && std::get<5>(*last_key) == call.op_file)
        return *last_kernel;
    key k{ctx, dev, int(call.mode), int(call.key_type), int(call.value_type), call.op_file, wg, rows, shfl, diag};
    auto it = cache.find(k);
    if (it == cache.end()) it = cache.emplace(std::move(k), make_kernel(info, call, wg, rows, shfl, diag)).first;
    last_key = &it->first;
    last_kernel = &it->second;
    return it->second;
}

} // namespace

bool by_key_small_launch(const by_key_call& call, bool write_count, bc::command_queue& queue, buffer_range* count_word)
{
    const std::size_t n = call.keys.size;
    const queue_info& info = info_of(queue);
    const by_key_small_shape shape = select_by_key_small(*info.profile);
    if (n == 0 || n > shape.most) return false;
    // The kernel's register arrays: for the path's largest range (a power of two a work-item),
    // or fitted to this call's n (by_key_policy.hpp); the call's rows are what its n needs.
    std::size_t max_rows = 1;
    while (shape.wg * max_rows < shape.most) max_rows *= 2;
    std::size_t rows = max_rows;
    if (shape.fit_rows) {
        rows = 4;
        while (shape.wg * rows < n) rows *= 2;
        rows = std::min(rows, max_rows);
    }
    *count_word = call.count_result ? *call.count_result : buffer_range{result_device_word(info.context), 0, 1};
    small_kernel& k = cached_kernel(info, call, shape.wg, rows, shape.shfl_scan && shape.wg % 32 == 0, shape.diag);
    if (k.wg == 0) return false;
    const bool values = call.mode == by_key_mode::reduce || call.mode == by_key_mode::scan;
    const bc::buffer& vals = values ? call.values.buffer : call.keys.buffer;
    const bc::buffer& out1 = call.out1.size ? call.out1.buffer : call.keys.buffer;
    const bc::buffer& out2 = call.out2.size ? call.out2.buffer : call.keys.buffer;
    cl_ulong8 at{};
    at.s[0] = call.keys.offset;
    at.s[1] = values ? call.values.offset : 0;
    at.s[2] = call.out1.offset;
    at.s[3] = call.out1.size;
    at.s[4] = call.out2.offset;
    at.s[5] = call.out2.size;
    at.s[6] = count_word->offset;
    cl_uint4 nrf{};
    nrf.s[0] = cl_uint(n);
    nrf.s[1] = cl_uint((n + k.wg - 1) / k.wg);
    nrf.s[2] = (call.inclusive ? 1u : 0u) | (write_count ? 2u : 0u); // BK_INCLUSIVE, BK_WRITE_COUNT (by_key.cl)
    unsigned char init[8] = {};
    const std::size_t velem = size_of(call.value_type);
    if (call.init) std::memcpy(init, call.init, velem);
    const bool all = !k.set;
    k.set = false; // until every argument below is set (a throw leaves them unknown)
    // Buffers every call (a released buffer's handle may come back for another one), the rest
    // where it changed.
    set_kernel_args_from(k.kernel, 0, call.keys.buffer, vals, out1, out2, count_word->buffer);
    if (all || std::memcmp(&k.at, &at, sizeof at) != 0) set_kernel_args_from(k.kernel, 5, at);
    if (all || std::memcmp(&k.nrf, &nrf, sizeof nrf) != 0) set_kernel_args_from(k.kernel, 6, nrf);
    if (all || std::memcmp(k.init, init, velem) != 0) set_kernel_args_from(k.kernel, 7, raw_value{velem, init});
    k.at = at;
    k.nrf = nrf;
    std::memcpy(k.init, init, sizeof init);
    k.set = true;
    launch_1d(queue, k.kernel, k.wg, k.wg);
    return true;
}

} // namespace detail
} // namespace clprim
