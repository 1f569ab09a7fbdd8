// The work-group scan building blocks of primitives/workgroup_scan.cl, each on its own through a
// unit kernel: work-group sizes that are and are not powers of two, several groups, two calls in
// a row on the same scratch, every element type, and the uint names the radix sort relies on.
#define BOOST_TEST_MODULE clprim_workgroup_scan
#include "clprim_test_fixture.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/kernel_registry.hpp>
#include <clprim/detail/primitives_kernels.hpp>

using namespace clprim_test;
namespace cd = clprim::detail;

namespace {

// which: 0 inclusive Hillis-Steele, 1 exclusive Hillis-Steele, 2 exclusive Blelloch, 3 the fast
// exclusive one; 4..7 the same through the uint names (the program's T is then uint or not).
const char* unit_kernel_source = R"CLC(
// One kernel per building block. Each work-item scans a[i], then, with the same scratch, b[i];
// the uint versions (U) convert to uint and back.
#define UNIT_KERNEL(NAME, CALL, SCRATCH, ST)                                                      \
    __kernel void NAME(__global const T* a, __global const T* b, __global T* out_a,               \
                       __global T* out_b, __global T* totals, __local ST* SCRATCH)                \
    {                                                                                              \
        const size_t i = get_global_id(0);                                                         \
        ST x = (ST)a[i], t = (ST)0;                                                                \
        out_a[i] = (T)(CALL);                                                                      \
        totals[2 * i] = (T)t;                                                                      \
        x = (ST)b[i];                                                                              \
        t = (ST)0;                                                                                 \
        out_b[i] = (T)(CALL);                                                                      \
        totals[2 * i + 1] = (T)t;                                                                  \
    }
UNIT_KERNEL(unit_0, wg_inclusive_scan_hs_T(x, scratch), scratch, T)
UNIT_KERNEL(unit_1, wg_exclusive_scan_hs_T(x, scratch, &t), scratch, T)
UNIT_KERNEL(unit_2, wg_exclusive_scan_blelloch_T(x, scratch, &t), scratch, T)
UNIT_KERNEL(unit_3, wg_exclusive_scan_T(x, scratch, &t), scratch, T)
UNIT_KERNEL(unit_4, wg_inclusive_scan_hs_uint(x, scratch), scratch, uint)
UNIT_KERNEL(unit_5, wg_exclusive_scan_hs_uint(x, scratch, &t), scratch, uint)
UNIT_KERNEL(unit_6, wg_exclusive_scan_blelloch_uint(x, scratch, &t), scratch, uint)
UNIT_KERNEL(unit_7, wg_exclusive_scan_uint(x, scratch, &t), scratch, uint)
)CLC";

bc::program unit_program(cd::element_type type)
{
    static bool registered = false;
    if (!registered) {
        cd::register_kernel_source("test_wg_scan_unit.cl", unit_kernel_source);
        registered = true;
    }
    auto& d = device_under_test::get();
    return cd::primitives_program(d.context, {"workgroup_scan.cl", "test_wg_scan_unit.cl"},
                                  cd::type_options(type, "T"));
}

std::size_t scratch_elements(std::size_t n) { return 2 * n + ((2 * n) >> 5) + 1; }

// Small integer values, so that float sums are exact in any order.
template <class T>
std::vector<T> unit_data(std::size_t n, std::uint64_t seed, bool small)
{
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        if (small || std::is_floating_point_v<T>) x = static_cast<T>(static_cast<long>(rng() % 2001) - 1000);
        else x = static_cast<T>(rng());
    }
    return v;
}

template <class T>
void check_unit(std::size_t wg, int which)
{
    auto& d = device_under_test::get();
    const auto type = cd::element_type_of<T>();
    bc::program program = unit_program(type);
    bc::kernel k = program.create_kernel("unit_" + std::to_string(which));
    const auto lim = cd::limits_for(k, d.device);
    const bool via_uint = which >= 4;
    const std::size_t local_bytes = scratch_elements(wg) * (via_uint ? sizeof(cl_uint) : sizeof(T));
    if (wg > lim.max_work_group_size || local_bytes > lim.local_mem_size) {
        BOOST_TEST_MESSAGE("work-group size " << wg << " above this device's limit: skipped");
        return;
    }
    const std::size_t groups = 3;
    const std::size_t n = wg * groups;
    const auto ha = unit_data<T>(n, 11 + wg, via_uint);
    const auto hb = unit_data<T>(n, 97 + wg, via_uint);
    auto da = to_device(ha, d.queue);
    auto db = to_device(hb, d.queue);
    bc::vector<T> oa(n, d.context), ob(n, d.context), tot(2 * n, d.context);
    k.set_arg(0, da.get_buffer());
    k.set_arg(1, db.get_buffer());
    k.set_arg(2, oa.get_buffer());
    k.set_arg(3, ob.get_buffer());
    k.set_arg(4, tot.get_buffer());
    if (via_uint) k.set_arg(5, bc::local_buffer<cl_uint>(scratch_elements(wg)));
    else k.set_arg(5, bc::local_buffer<T>(scratch_elements(wg)));
    d.queue.enqueue_1d_range_kernel(k, 0, n, wg);
    const auto ra = to_host(oa, d.queue);
    const auto rb = to_host(ob, d.queue);
    const auto rt = to_host(tot, d.queue);

    const bool inclusive = which == 0 || which == 4;
    bool ok = true;
    for (int pass = 0; pass < 2 && ok; ++pass) {
        const auto& in = pass == 0 ? ha : hb;
        const auto& got = pass == 0 ? ra : rb;
        for (std::size_t g = 0; g < groups && ok; ++g) {
            // Host reference in the arithmetic the device uses (uint wraps for the uint names).
            cl_uint su = 0;
            T s = T(0);
            for (std::size_t l = 0; l < wg && ok; ++l) {
                const std::size_t i = g * wg + l;
                T expect;
                if (via_uint) {
                    if (inclusive) su += static_cast<cl_uint>(in[i]);
                    expect = static_cast<T>(su);
                    if (!inclusive) su += static_cast<cl_uint>(in[i]);
                } else {
                    if (inclusive) s = static_cast<T>(s + in[i]);
                    expect = s;
                    if (!inclusive) s = static_cast<T>(s + in[i]);
                }
                if (got[i] != expect) {
                    BOOST_ERROR("which=" << which << " type=" << type_label<T>() << " wg=" << wg << " call "
                                         << pass << ": element " << i << " is " << got[i] << ", expected "
                                         << expect);
                    ok = false;
                }
            }
            if (!inclusive && ok) {
                const T total = via_uint ? static_cast<T>(su) : s;
                for (std::size_t l = 0; l < wg; ++l)
                    if (rt[2 * (g * wg + l) + pass] != total) {
                        BOOST_ERROR("which=" << which << " type=" << type_label<T>() << " wg=" << wg
                                             << ": total in item " << l << " of group " << g << " is "
                                             << rt[2 * (g * wg + l) + pass] << ", expected " << total);
                        ok = false;
                        break;
                    }
            }
        }
    }
}

// Every size for uint; the other types (the same code under another macro type) on a spread of
// sizes that still covers 1, non-powers of two and both sides of 256. PoCL compiles a kernel
// once per work-group size, so the full cross product would dominate the suite's time.
const std::vector<std::size_t> wg_sizes{1, 2, 3, 7, 31, 32, 33, 64, 100, 128, 255, 256, 257, 1000, 1024};
const std::vector<std::size_t> wg_sizes_other_types{1, 3, 33, 256, 257};

} // namespace

BOOST_FIXTURE_TEST_SUITE(workgroup_scan, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(each_building_block, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const auto& sizes = std::is_same_v<T, cl_uint> ? wg_sizes : wg_sizes_other_types;
    for (int which = 0; which < 4; ++which)
        for (auto wg : sizes) check_unit<T>(wg, which);
}

// The uint functions the radix sort calls, from programs whose T is and is not uint.
BOOST_AUTO_TEST_CASE(uint_names)
{
    for (int which = 4; which < 8; ++which)
        for (auto wg : wg_sizes_other_types) {
            check_unit<cl_uint>(wg, which);
            check_unit<cl_long>(wg, which);
        }
}

// The largest work-group the device allows for the unit kernel.
BOOST_AUTO_TEST_CASE(device_maximum)
{
    bc::kernel k = unit_program(cd::element_type::uint32).create_kernel("unit_0");
    const auto lim = cd::limits_for(k, device);
    const std::size_t wg = std::min<std::size_t>(lim.max_work_group_size, 4096);
    for (int which = 0; which < 4; ++which) check_unit<cl_uint>(wg, which);
}

BOOST_AUTO_TEST_SUITE_END()
