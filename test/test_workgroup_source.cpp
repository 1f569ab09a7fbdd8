// clprim::workgroup_source() from a user's point of view: a program built from nothing but the
// returned text and the user's kernels (no clprim file, no build option), the clprim_wg_*
// building blocks for uint and, through CLPRIM_WG_DEFINE, int/long/ulong/float/double, on
// work-groups of non-power-of-two sizes, against host references.
#define BOOST_TEST_MODULE clprim_workgroup_source
#include "clprim_test_fixture.hpp"

using namespace clprim_test;

namespace {

// Every kernel: one work-group per launch-group, x = in[gid]; outputs per work-item.
const char* user_source = R"CLC(
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if !IS_UINT
CLPRIM_WG_DEFINE(TYPE)
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

__kernel void blocks(__global const TYPE* in, __global TYPE* red, __global TYPE* inc, __global TYPE* exc,
                     __global TYPE* tot, __local TYPE* scratch)
{
    const size_t gid = get_global_id(0);
    const TYPE x = in[gid];
    /* back to back on one scratch */
    red[gid] = CAT(clprim_wg_reduce_, TYPE)(x, scratch);
    inc[gid] = CAT(clprim_wg_inclusive_scan_, TYPE)(x, scratch);
    TYPE t;
    exc[gid] = CAT(clprim_wg_exclusive_scan_, TYPE)(x, scratch, &t);
    tot[gid] = t;
}

__kernel void hist(__global const uint* in, uint num_bins, __global uint* counts, __local uint* bins)
{
    clprim_wg_histogram_clear(bins, num_bins);
    clprim_wg_histogram_add(bins, num_bins, in[get_global_id(0)] % num_bins);
    clprim_wg_histogram_flush(bins, num_bins, counts);
}
)CLC";

template <class T>
bc::program build(bc::context& context)
{
    std::string options = std::string("-DTYPE=") + bc::type_name<T>() + " -DIS_UINT=" +
                          (std::is_same_v<T, cl_uint> ? "1" : "0");
    if (std::is_same_v<T, cl_double>) options += " -DUSE_FP64";
    bc::program p = bc::program::create_with_source(clprim::workgroup_source() + user_source, context);
    try {
        p.build(options);
    } catch (const bc::opencl_error&) {
        BOOST_FAIL("user program failed to build:\n" << p.build_log());
    }
    return p;
}

const std::vector<std::size_t> wg_sizes{1, 3, 7, 33, 100, 255, 256, 257};

template <class T>
void check_blocks(bc::command_queue& queue, bc::context& context, const bc::device& device)
{
    bc::program program = build<T>(context);
    bc::kernel k = program.create_kernel("blocks");
    const std::size_t max_wg = k.get_work_group_info<std::size_t>(device, CL_KERNEL_WORK_GROUP_SIZE);
    for (std::size_t wg : wg_sizes) {
        if (wg > max_wg) continue;
        const std::size_t groups = 3, n = wg * groups;
        std::vector<T> in(n);
        for (std::size_t i = 0; i < n; ++i) in[i] = T((i * 7 + 3) % 11); // small: float sums exact
        bc::vector<T> d = to_device(in, queue), red(n, context), inc(n, context), exc(n, context), tot(n, context);
        k.set_args(d.get_buffer(), red.get_buffer(), inc.get_buffer(), exc.get_buffer(), tot.get_buffer());
        // CLPRIM_WG_SCRATCH(wg) elements: 2*wg + (2*wg >> 5) + 1.
        k.set_arg(5, (2 * wg + ((2 * wg) >> 5) + 1) * sizeof(T), nullptr);
        queue.enqueue_1d_range_kernel(k, 0, n, wg);
        const auto hr = to_host(red, queue), hi = to_host(inc, queue), he = to_host(exc, queue), ht = to_host(tot, queue);
        for (std::size_t g = 0; g < groups; ++g) {
            T run = 0, sum = 0;
            for (std::size_t l = 0; l < wg; ++l) sum += in[g * wg + l];
            for (std::size_t l = 0; l < wg; ++l) {
                const std::size_t i = g * wg + l;
                BOOST_TEST(hr[i] == sum, type_label<T>() << " wg=" << wg << " reduce at " << i);
                BOOST_TEST(he[i] == run, type_label<T>() << " wg=" << wg << " exclusive at " << i);
                run += in[i];
                BOOST_TEST(hi[i] == run, type_label<T>() << " wg=" << wg << " inclusive at " << i);
                BOOST_TEST(ht[i] == sum, type_label<T>() << " wg=" << wg << " total at " << i);
            }
        }
    }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(workgroup_source, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_and_scans, T, all_types)
{
    if (!type_runs_here<T>()) return;
    check_blocks<T>(queue, context, device);
}

BOOST_AUTO_TEST_CASE(histogram)
{
    bc::program program = build<cl_uint>(context);
    bc::kernel k = program.create_kernel("hist");
    const std::size_t max_wg = k.get_work_group_info<std::size_t>(device, CL_KERNEL_WORK_GROUP_SIZE);
    for (std::size_t wg : wg_sizes) {
        if (wg > max_wg) continue;
        for (cl_uint bins : {1u, 5u, 300u}) {
            const std::size_t n = wg * 5;
            const auto in = make_data<cl_uint>(n, distribution::random);
            std::vector<cl_uint> expected(bins, 1u); // counts are added to
            for (cl_uint x : in) ++expected[x % bins];
            bc::vector<cl_uint> d = to_device(in, queue);
            bc::vector<cl_uint> counts = to_device(std::vector<cl_uint>(bins, 1u), queue);
            k.set_args(d.get_buffer(), bins, counts.get_buffer());
            k.set_arg(3, bins * sizeof(cl_uint), nullptr);
            queue.enqueue_1d_range_kernel(k, 0, n, wg);
            BOOST_TEST(to_host(counts, queue) == expected, "wg=" << wg << " bins=" << bins);
        }
    }
}

// The library builds its own kernels from the same text: the source it hands out is exactly the
// embedded files (one definition).
BOOST_AUTO_TEST_CASE(same_code_as_the_library)
{
    const std::string s = clprim::workgroup_source();
    BOOST_TEST(s.find("wg_exclusive_scan_hs_##NAME") != std::string::npos);
    BOOST_TEST(s.find("CLPRIM_DEFINE_WORKGROUP_REDUCE") != std::string::npos);
    BOOST_TEST(s.find("wg_hist_flush_add") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
