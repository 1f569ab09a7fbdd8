// Bench case "queue_order" (diagnostic, prints to stdout, adds no rows): what ordering a clprim
// call on an out-of-order queue costs (lib/queue_order.cpp: a marker, a flush and a barrier at
// each end of the call, on the caller's queue and an in-order companion). Per size up to 2^24: the
// median wall time of reduce, exclusive_scan, radix_sort and merge_sort on the context's in-order queue and on
// an out-of-order one, and for the sorts how long the call takes to return against how long until
// its result is there (on both queues the merge sort returns before the device is done). First, the host time of an in_order_scope on an
// in-order queue, which enqueues nothing.
#include "bench_framework.hpp"

#include <clprim/detail/queue_order.hpp>

#include <chrono>
#include <cstdio>
#include <random>

namespace {

double host_ms(const std::function<void()>& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

CLPRIM_BENCH(queue_order)
{
    namespace bc = boost::compute;
    bc::command_queue& in_order = ctx.queue;
    if ((ctx.device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES) &
         CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0) {
        std::printf("queue_order: the device has no out-of-order queues\n");
        return;
    }
    bc::command_queue ooo(ctx.ctx, ctx.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);

    const int scopes = 100000;
    const double scope_ms = host_ms([&] {
        for (int i = 0; i < scopes; ++i) clprim::detail::in_order_scope s(in_order);
    });
    std::printf("queue_order: in_order_scope on an in-order queue: %.1f ns each (one clGetCommandQueueInfo, no command)\n",
                scope_ms * 1e6 / scopes);
    std::printf("%10s %-14s %12s %12s %9s\n", "n", "call", "in-order ms", "out-of-order", "extra ms");

    for (std::size_t n : ctx.sizes) {
        if (n > (std::size_t(1) << 24)) continue;
        std::mt19937 rng(7);
        std::vector<cl_uint> host(n);
        for (auto& x : host) x = cl_uint(rng());
        bc::vector<cl_uint> input(host.begin(), host.end(), in_order), work(n, ctx.ctx), out(n, ctx.ctx);
        in_order.finish();
        auto row = [&](const char* name, double a, double b) {
            std::printf("%10zu %-14s %12.4f %12.4f %9.4f\n", n, name, a, b, b - a);
        };
        cl_uint sink = 0;
        double t[2];
        int i = 0;
        for (bc::command_queue* q : {&in_order, &ooo})
            t[i++] = clprim_bench::median_ms(*q, [&] { sink += clprim::reduce(input.begin(), input.end(), *q); }, ctx.repeat);
        row("reduce", t[0], t[1]);
        i = 0;
        for (bc::command_queue* q : {&in_order, &ooo})
            t[i++] = clprim_bench::median_ms(*q, [&] { clprim::exclusive_scan(input.begin(), input.end(), out.begin(), *q); },
                                             ctx.repeat);
        row("exclusive_scan", t[0], t[1]);
        // The radix sort waits for one value (which digits vary) mid-call; the merge sort waits for nothing.
        for (const char* name : {"radix_sort", "merge_sort"}) {
            const bool radix = name[0] == 'r';
            double returned[2] = {0, 0};
            i = 0;
            for (bc::command_queue* q : {&in_order, &ooo}) {
                std::vector<double> back;
                t[i] = clprim_bench::median_ms(
                    *q, [&] { bc::copy(input.begin(), input.end(), work.begin(), *q); },
                    [&] {
                        back.push_back(host_ms([&] {
                            if (radix) clprim::radix_sort(work.begin(), work.end(), *q);
                            else clprim::merge_sort(work.begin(), work.end(), *q);
                        }));
                    },
                    ctx.repeat);
                std::sort(back.begin(), back.end());
                returned[i++] = back[back.size() / 2];
            }
            row(name, t[0], t[1]);
            std::printf("%10zu %-14s %12.4f %12.4f   (ms until the call returned)\n", n, "  returned", returned[0],
                        returned[1]);
        }
        (void)sink;
    }
}
