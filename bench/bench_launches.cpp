// Bench case "launches": kernel launches per call of the primitives whose small-n time is launch
// cost (issue #27: every primitive at 2^10 should be one launch where it fits one tile), printed;
// counted by the library's kernel profile (every launch goes through detail::launch_1d) on a
// profiling queue, one call after a warm-up call. And the floor under every small call, as rows
// (wall time per call, median, the bench's usual harness: the call, then clFinish):
//   launches / empty_kernel:      one launch of an empty kernel (one work-group of 256);
//   launches / empty_kernel_read: the same, then a blocking read of 8 bytes (what a call that
//                                 returns a value, like reduce or copy_if, cannot go below);
//   launches / empty_kernel_read_pinned, _read_async, _finish_read: the same 8 bytes into
//                                 pinned memory: blocking; non-blocking then clFinish; clFinish
//                                 then blocking.
#include "bench_framework.hpp"

#include <boost/compute/functional.hpp>
#include <boost/compute/lambda.hpp>

#include <random>

namespace {

namespace bc = boost::compute;

template <class F>
std::size_t launches_of(bc::command_queue& q, F call)
{
    call(); // builds the programs
    q.finish();
    clprim::detail::kernel_profile(true);
    call();
    q.finish();
    std::size_t launches = 0;
    for (const auto& t : clprim::detail::kernel_profile_report()) launches += t.launches;
    clprim::detail::kernel_profile(false);
    return launches;
}

} // namespace

CLPRIM_BENCH(launches)
{
    {
        static const char* empty_src = "__kernel void clprim_bench_empty(__global ulong* p) { }";
        bc::program program = bc::program::build_with_source(empty_src, ctx.ctx);
        bc::kernel empty = program.create_kernel("clprim_bench_empty");
        bc::buffer word(ctx.ctx, sizeof(cl_ulong));
        empty.set_arg(0, word);
        cl_ulong host_word = 0;
        auto add = [&](const char* name, double ms) {
            clprim_bench::result r;
            r.group = "launches";
            r.name = name;
            r.type = "none";
            r.n = 1;
            r.ms = ms;
            r.gbps = 0;
            r.baseline = false;
            r.correct = true;
            ctx.add(r);
        };
        const int reps = std::max(ctx.repeat, 50);
        add("empty_kernel", clprim_bench::median_ms(
                                ctx.queue, [&] { ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256); }, reps));
        add("empty_kernel_read", clprim_bench::median_ms(
                                     ctx.queue,
                                     [&] {
                                         ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256);
                                         ctx.queue.enqueue_read_buffer(word, 0, sizeof host_word, &host_word);
                                     },
                                     reps));
        // The same 8 bytes other ways (how a value-returning call may wait): into pinned memory
        // (a CL_MEM_ALLOC_HOST_PTR buffer mapped once), blocking; non-blocking then clFinish;
        // clFinish first, then the blocking read.
        bc::buffer pinned_buf(ctx.ctx, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        void* pinned = ctx.queue.enqueue_map_buffer(pinned_buf, CL_MAP_READ | CL_MAP_WRITE, 0, 64);
        add("empty_kernel_read_pinned", clprim_bench::median_ms(
                                            ctx.queue,
                                            [&] {
                                                ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256);
                                                ctx.queue.enqueue_read_buffer(word, 0, sizeof host_word, pinned);
                                            },
                                            reps));
        add("empty_kernel_read_async", clprim_bench::median_ms(
                                           ctx.queue,
                                           [&] {
                                               ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256);
                                               ctx.queue.enqueue_read_buffer_async(word, 0, sizeof host_word, pinned);
                                               ctx.queue.finish();
                                           },
                                           reps));
        add("empty_kernel_finish_read", clprim_bench::median_ms(
                                            ctx.queue,
                                            [&] {
                                                ctx.queue.enqueue_1d_range_kernel(empty, 0, 256, 256);
                                                ctx.queue.finish();
                                                ctx.queue.enqueue_read_buffer(word, 0, sizeof host_word, pinned);
                                            },
                                            reps));
        ctx.queue.enqueue_unmap_buffer(pinned_buf, pinned);
        ctx.queue.finish();
    }
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    std::printf("launches per call (kernels enqueued by one call)\n%-28s %12s %9s\n", "primitive", "n", "launches");
    for (std::size_t n : ctx.sizes) {
        std::mt19937 rng{static_cast<unsigned>(n)};
        std::vector<cl_uint> host(n);
        for (auto& x : host) x = rng();
        bc::vector<cl_uint> data(host.begin(), host.end(), q), work(n, ctx.ctx), out(n, ctx.ctx);
        auto fresh = [&] { bc::copy(data.begin(), data.end(), work.begin(), q); };
        auto row = [&](const char* what, std::size_t launches) { std::printf("%-28s %12zu %9zu\n", what, n, launches); };
        row("reduce (value)", launches_of(q, [&] { (void)clprim::reduce(data.begin(), data.end(), q); }));
        row("exclusive_scan", launches_of(q, [&] { clprim::exclusive_scan(data.begin(), data.end(), out.begin(), q); }));
        row("inclusive_scan max", launches_of(q, [&] {
                clprim::inclusive_scan(data.begin(), data.end(), out.begin(), q, bc::max<cl_uint>(), cl_uint(0));
            }));
        using bc::lambda::_1;
        row("copy_if half", launches_of(q, [&] { (void)clprim::copy_if(data.begin(), data.end(), out.begin(), q, (_1 & 1u) == 1u); }));
        bc::vector<cl_ulong> count(1, ctx.ctx);
        row("copy_if half count_result", launches_of(q, [&] {
                clprim::copy_if(data.begin(), data.end(), out.begin(), count.begin(), q, (_1 & 1u) == 1u);
            }));
        row("unique", launches_of(q, [&] { (void)clprim::unique(data.begin(), data.end(), out.begin(), q); }));
        row("reduce_by_key", launches_of(q, [&] {
                (void)clprim::reduce_by_key(data.begin(), data.end(), data.begin(), out.begin(), work.begin(), q);
            }));
        row("min_element", launches_of(q, [&] { (void)clprim::min_element(data.begin(), data.end(), q); }));
        row("radix_sort uint", launches_of(q, [&] {
                fresh();
                clprim::radix_sort(work.begin(), work.end(), q);
            }));
    }
}
