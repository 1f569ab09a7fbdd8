// clprim::min_element / max_element: the first smallest / largest in the key order (floats by the
// IEEE-754 total order of their bits), every type, ties (first index), sub-ranges, an
// out-of-order queue, the empty range throwing; against a host scan.
#define BOOST_TEST_MODULE clprim_min_max_element
#include "clprim_test_fixture.hpp"

#include <clprim/detail/device_profile.hpp>

#include <cstring>

using namespace clprim_test;

namespace {

using four_byte_types = boost::mpl::list<cl_int, cl_uint, cl_float>;

template <class T>
std::size_t host_extreme(const std::vector<T>& v, bool largest)
{
    std::size_t best = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
        const bool better = largest ? total_less(v[best], v[i]) : total_less(v[i], v[best]);
        if (better) best = i;
    }
    return best;
}

std::vector<std::size_t> test_sizes()
{
    std::vector<std::size_t> s{1, 2, 31, 257, 1021, 4097, 65537};
    if (!clprim::detail::profile_of(device_under_test::get().device).is_cpu()) {
        s.push_back((std::size_t(1) << 20) + 3);
        s.push_back(std::size_t(1) << 26);
    }
    return s;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(min_max_element, fixture)

// Both loop shapes of the partial reduce (grid stride: GPUs; a chunk per work-item: CPUs).
BOOST_AUTO_TEST_CASE_TEMPLATE(every_type, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (const char* path : {"stride", "chunks"})
    for (std::size_t n : test_sizes())
        for (distribution d : all_distributions()) {
            if (n > 70000 && d != distribution::random && d != distribution::few_distinct) continue;
            env_override force("CLPRIM_MIN_MAX_PATH", path);
            const auto data = make_data<T>(n, d);
            auto dev = to_device(data, queue);
            const std::size_t mn = clprim::min_element(dev.begin(), dev.end(), queue);
            const std::size_t mx = clprim::max_element(dev.begin(), dev.end(), queue);
            BOOST_TEST(mn == host_extreme(data, false), path << " " << type_label<T>() << " " << name_of(d) << " n=" << n);
            BOOST_TEST(mx == host_extreme(data, true), path << " " << type_label<T>() << " " << name_of(d) << " n=" << n);
        }
}

// The grid stride's 16-byte loop (4-byte types): ties (first index), every key the worst one
// (the largest for min_element, the smallest for max_element: nothing better than the start),
// float bit patterns, sub-ranges that start unaligned (the element loop) and aligned.
BOOST_AUTO_TEST_CASE_TEMPLATE(stride_loop_edges, T, four_byte_types)
{
    env_override force("CLPRIM_MIN_MAX_PATH", "stride");
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1021), std::size_t(65537), std::size_t(300007)})
        for (distribution d : all_distributions()) {
            const auto data = make_data<T>(n, d);
            auto dev = to_device(data, queue);
            BOOST_TEST(clprim::min_element(dev.begin(), dev.end(), queue) == host_extreme(data, false),
                       type_label<T>() << " " << name_of(d) << " n=" << n);
            BOOST_TEST(clprim::max_element(dev.begin(), dev.end(), queue) == host_extreme(data, true),
                       type_label<T>() << " " << name_of(d) << " n=" << n);
            if (n < 8) continue;
            const std::vector<T> sub(data.begin() + 4, data.end() - 1);
            BOOST_TEST(clprim::min_element(dev.begin() + 4, dev.end() - 1, queue) == host_extreme(sub, false));
            const std::vector<T> odd(data.begin() + 1, data.end());
            BOOST_TEST(clprim::max_element(dev.begin() + 1, dev.end(), queue) == host_extreme(odd, true));
        }
    // The worst keys: the largest for min_element, the smallest for max_element (floats: the NaNs
    // with every payload bit set, positive and negative).
    using lim = std::numeric_limits<T>;
    T worst_min = lim::max(), worst_max = lim::lowest();
    if constexpr (std::is_floating_point_v<T>) {
        const cl_uint bits[2] = {0x7fffffffu, 0xffffffffu};
        std::memcpy(&worst_min, &bits[0], sizeof(T));
        std::memcpy(&worst_max, &bits[1], sizeof(T));
    }
    for (const T w : {worst_min, worst_max}) {
        const std::vector<T> all(100003, w);
        auto dev = to_device(all, queue);
        BOOST_TEST(clprim::min_element(dev.begin(), dev.end(), queue) == host_extreme(all, false));
        BOOST_TEST(clprim::max_element(dev.begin(), dev.end(), queue) == host_extreme(all, true));
    }
}

// -0.0 is below +0.0; a NaN with the sign bit is the smallest, one without the largest.
BOOST_AUTO_TEST_CASE(float_bits)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<cl_float> a{0.0f, -0.0f, 1.0f, -0.0f, 0.0f};
    auto da = to_device(a, queue);
    BOOST_TEST(clprim::min_element(da.begin(), da.end(), queue) == 1u);
    BOOST_TEST(clprim::max_element(da.begin(), da.end(), queue) == 2u);
    const std::vector<cl_float> b{1.0f, -nan, std::numeric_limits<float>::infinity(), nan, -nan};
    auto db = to_device(b, queue);
    BOOST_TEST(clprim::min_element(db.begin(), db.end(), queue) == 1u);
    BOOST_TEST(clprim::max_element(db.begin(), db.end(), queue) == 3u);
}

BOOST_AUTO_TEST_CASE(sub_range_out_of_order_and_empty)
{
    std::vector<cl_int> v(1000, 5);
    v[3] = -100; // outside the sub-range
    v[500] = -7;
    v[600] = -7;
    v[700] = 9;
    v[998] = 50; // outside
    auto d = to_device(v, queue);
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    BOOST_TEST(clprim::min_element(d.begin() + 10, d.begin() + 990, ooo) == 490u);
    BOOST_TEST(clprim::max_element(d.begin() + 10, d.begin() + 990, ooo) == 690u);
    BOOST_CHECK_THROW(clprim::min_element(d.begin() + 5, d.begin() + 5, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::max_element(d.end(), d.begin(), queue), clprim::invalid_argument_error);
}

// Every form of the index's read (CLPRIM_MIN_MAX_READ, reduce_pinned.hpp's ten), both shapes
// (one work-group writes the index itself; several, the last folds the pairs); calls alternating
// between two queues and after release_scratch_memory() (the per-queue state buffer dropped: a
// new one may get an old one's handle, and the kernel's arguments must follow it).
BOOST_AUTO_TEST_CASE(read_forms_queues_and_release)
{
    const auto data = make_data<cl_uint>(300007, distribution::random);
    const auto small = make_data<cl_float>(97, distribution::random);
    auto d = to_device(data, queue);
    auto ds = to_device(small, queue);
    const std::size_t want_min = host_extreme(data, false), want_max = host_extreme(data, true);
    const std::size_t small_min = host_extreme(small, false);
    bc::command_queue second(context, device);
    for (int form = 0; form < 10; ++form) {
        env_override read("CLPRIM_MIN_MAX_READ", std::to_string(form));
        bc::command_queue& q = form % 2 ? second : queue;
        BOOST_TEST(clprim::min_element(d.begin(), d.end(), q) == want_min, "form " << form);
        BOOST_TEST(clprim::max_element(d.begin(), d.end(), q) == want_max, "form " << form);
        BOOST_TEST(clprim::min_element(ds.begin(), ds.end(), q) == small_min, "form " << form << " small");
        BOOST_TEST(clprim::min_element(d.begin() + 1, d.end() - 1, q) ==
                       host_extreme(std::vector<cl_uint>(data.begin() + 1, data.end() - 1), false),
                   "form " << form << " sub-range");
        if (form % 4 == 3) clprim::release_scratch_memory();
    }
}

BOOST_AUTO_TEST_SUITE_END()
