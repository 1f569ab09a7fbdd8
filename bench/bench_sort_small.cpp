// Bench case "sort_small_probe" (diagnostic, prints to stdout, adds no rows): where the time of
// a small radix sort (the one-launch path, algorithms/sort_small.*) goes, per kernel variant, for
// uint keys and uint -> uint pairs at each size up to what the path takes: the wall time per call
// (the call, then clFinish; median, input restored untimed before each), the kernel's device time
// (profiling events) and the host time of the call alone (it returns before the device is done).
// Beside them, the wall time of an empty one-group kernel on the same queue: the floor.
// CLPRIM_SORT_SMALL_SWEEP="kernel,items;..." lists the variants (kernel registers|network|warp, items
// per work-item for registers and warp); default "registers,8;registers,4;registers,16;network,0".
#include "bench_framework.hpp"

#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <sstream>

namespace {

namespace bc = boost::compute;

double median_of(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void probe_one(clprim_bench::context& ctx, bc::command_queue& prof, std::size_t n, bool pairs, const std::string& label)
{
    auto& q = ctx.queue;
    std::mt19937 rng(static_cast<unsigned>(n));
    std::vector<cl_uint> host(n);
    for (auto& x : host) x = rng();
    bc::vector<cl_uint> source(host.begin(), host.end(), q), keys(n, ctx.ctx), values(pairs ? n : 0, ctx.ctx);
    std::vector<cl_uint> iota(n);
    for (std::size_t i = 0; i < n; ++i) iota[i] = cl_uint(i);
    bc::vector<cl_uint> vsource(iota.begin(), iota.end(), q);
    auto prepare = [&](bc::command_queue& on) {
        bc::copy(source.begin(), source.end(), keys.begin(), on);
        if (pairs) bc::copy(vsource.begin(), vsource.end(), values.begin(), on);
        on.finish();
    };
    auto call = [&](bc::command_queue& on) {
        if (pairs) clprim::radix_sort_by_key(keys.begin(), keys.end(), values.begin(), on);
        else clprim::radix_sort(keys.begin(), keys.end(), on);
    };
    const int reps = std::max(ctx.repeat, 20);
    prepare(q);
    call(q); // builds the program
    q.finish();
    std::vector<double> wall, host_call;
    for (int i = 0; i < reps; ++i) {
        prepare(q);
        const auto t0 = std::chrono::steady_clock::now();
        call(q);
        const auto t1 = std::chrono::steady_clock::now();
        q.finish();
        const auto t2 = std::chrono::steady_clock::now();
        host_call.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        wall.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
    }
    std::vector<cl_uint> got(n), want = host;
    bc::copy(keys.begin(), keys.end(), got.begin(), q);
    std::sort(want.begin(), want.end());
    const bool right = got == want;
    prepare(prof);
    call(prof);
    prof.finish();
    clprim::detail::kernel_profile(true);
    for (int i = 0; i < reps; ++i) {
        prepare(prof);
        call(prof);
        prof.finish();
    }
    const auto times = clprim::detail::kernel_profile_report();
    clprim::detail::kernel_profile(false);
    std::size_t launches = 0;
    for (const auto& t : times) launches += t.launches;
    std::printf("sort_small_probe %-10s n=%-6zu %-18s wall %.4f ms  kernels %.4f ms (%.1f launches)  host call %.4f ms  %s\n",
                pairs ? "uint->uint" : "uint", n, label.c_str(), median_of(wall),
                clprim_bench::kernel_ms_per_call(times, reps), double(launches) / reps, median_of(host_call),
                right ? "right" : "WRONG");
}

} // namespace

CLPRIM_BENCH(sort_small_probe)
{
    bc::command_queue prof(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    {
        bc::program p = bc::program::build_with_source("__kernel void clprim_probe_empty(__global uint* o) { }", ctx.ctx);
        bc::kernel empty = p.create_kernel("clprim_probe_empty");
        bc::buffer word(ctx.ctx, 16);
        empty.set_arg(0, word);
        const double ms = clprim_bench::median_ms(ctx.queue, [&] { ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256); },
                                                  std::max(ctx.repeat, 50));
        std::printf("sort_small_probe floor: empty kernel + clFinish %.4f ms\n", ms);
        // Host time of the pieces of a small call (microseconds each, mean over many): what the
        // library's host side costs beside the driver's enqueue.
        const int many = 2000;
        auto per_call_us = [&](const std::function<void()>& f) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < many; ++i) f();
            const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / many;
            ctx.queue.finish();
            return us;
        };
        cl_device_id id = nullptr;
        const double get_device = per_call_us([&] { (void)ctx.queue.get_device(); });
        const double queue_info = per_call_us(
            [&] { clGetCommandQueueInfo(ctx.queue.get(), CL_QUEUE_DEVICE, sizeof id, &id, nullptr); });
        const double set_arg = per_call_us([&] { empty.set_arg(0, word); });
        const double enqueue_event = per_call_us([&] { ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256); });
        const std::size_t g = 256;
        const double enqueue_raw = per_call_us(
            [&] { clEnqueueNDRangeKernel(ctx.queue.get(), empty.get(), 1, nullptr, &g, &g, 0, nullptr, nullptr); });
        bc::vector<cl_uint> one(1, ctx.ctx);
        const double sort_one = per_call_us([&] { clprim::radix_sort(one.begin(), one.end(), ctx.queue); });
        std::printf("sort_small_probe host us: queue.get_device() %.3f, clGetCommandQueueInfo %.3f, clSetKernelArg "
                    "(buffer) %.3f, enqueue with event %.3f, enqueue without event %.3f, radix_sort of 1 key (checks, "
                    "scope, no launch) %.3f\n",
                    get_device, queue_info, set_arg, enqueue_event, enqueue_raw, sort_one);
    }
    std::string sweep = "registers,8;registers,4;registers,16;network,0";
    if (const auto s = clprim::detail::knob_text("CLPRIM_SORT_SMALL_SWEEP")) sweep = *s;
    for (std::size_t n : ctx.sizes) {
        if (n > 16384) continue; // CLPRIM_SORT_SMALL_MAX's range
        std::stringstream list(sweep);
        std::string item;
        while (std::getline(list, item, ';')) {
            const auto comma = item.find(',');
            const std::string kernel = item.substr(0, comma);
            const std::string items = comma == std::string::npos ? "" : item.substr(comma + 1);
            clprim::detail::scoped_knob path("CLPRIM_RADIX_PATH", "small");
            clprim::detail::scoped_knob k("CLPRIM_SORT_SMALL", kernel);
            clprim::detail::scoped_knob e("CLPRIM_SORT_SMALL_ITEMS", items == "0" ? "" : items);
            clprim::detail::scoped_knob m("CLPRIM_SORT_SMALL_MAX", std::to_string(std::max<std::size_t>(n, 2)));
            for (bool pairs : {false, true}) probe_one(ctx, prof, n, pairs, item);
        }
    }
}
