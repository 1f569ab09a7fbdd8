// top_k / top_k_by_key against the first k of std::stable_sort with the total order (values =
// input positions, so ties must go to the earlier element): every key type, both orders, k = 0,
// 1, small, about n / 2, n - 1 and n, distributions full of ties (all equal, few distinct) and
// float specials; results between guards; both paths forced (CLPRIM_TOPK_PATH=select|sort, and
// tiny grids); k > n and overlapping outputs rejected; an out-of-order queue.
#define BOOST_TEST_MODULE clprim_top_k
#include "sort_test_support.hpp"

#include <clprim/top_k.hpp>

using namespace clprim_test;

namespace {

using order_t = clprim::sort_order;

template <class K, class V>
void check_top_k(std::size_t n, std::size_t k, distribution d, order_t order, bool by_key, bc::command_queue& q)
{
    const auto keys = make_data<K>(n, d, 11);
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
        return order == order_t::ascending ? total_less(keys[a], keys[b]) : total_less(keys[b], keys[a]);
    });
    std::vector<K> ek(k);
    std::vector<V> ev(k), values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = V(i);
    for (std::size_t i = 0; i < k; ++i) ek[i] = keys[perm[i]], ev[i] = V(perm[i]);
    auto dk = to_device(keys, q);
    auto dv = to_device(values, q);
    guarded_vector<K> rk(std::vector<K>(k, K(3)), std::numeric_limits<K>::max(), q);
    guarded_vector<V> rv(std::vector<V>(k, V(3)), std::numeric_limits<V>::max(), q);
    if (by_key) clprim::top_k_by_key(dk.begin(), dk.end(), dv.begin(), k, rk.first(), rv.first(), q, order);
    else clprim::top_k(dk.begin(), dk.end(), k, rk.first(), q, order);
    bool gk = false, gv = false;
    const auto got_k = rk.result(q, gk);
    const auto got_v = rv.result(q, gv);
    BOOST_TEST(gk, "key guard overwritten");
    BOOST_TEST(gv, "value guard overwritten");
    const long diff = first_difference(got_k, ek);
    BOOST_TEST(diff == -1, type_label<K>() << " n=" << n << " k=" << k << " " << name_of(d) << " "
                                           << (order == order_t::ascending ? "asc" : "desc") << ": keys differ at " << diff);
    if (by_key) {
        const long dvd = first_difference(got_v, ev);
        BOOST_TEST(dvd == -1, type_label<K>() << "->" << type_label<V>() << " n=" << n << " k=" << k << " "
                                              << name_of(d) << ": values differ at " << dvd);
    }
    BOOST_TEST(bit_equal(to_host(dk, q), keys), "input changed");
}

std::vector<std::size_t> ks_for(std::size_t n)
{
    std::vector<std::size_t> ks{0};
    for (std::size_t k : {std::size_t(1), std::size_t(2), std::size_t(100), n / 2, n - 1, n})
        if (k <= n && k > 0 && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
    return ks;
}

template <class K, class V>
void matrix(order_t order, bool by_key, std::vector<distribution> ds)
{
    auto& q = device_under_test::get().queue;
    for (std::size_t n : {0, 1, 2, 33, 1000, 65537})
        for (std::size_t k : ks_for(n))
            for (auto d : ds) check_top_k<K, V>(n, k, d, order, by_key, q);
}

const std::vector<distribution> tie_heavy{distribution::random, distribution::few_distinct, distribution::all_equal,
                                          distribution::float_specials};

} // namespace

BOOST_FIXTURE_TEST_SUITE(top_k, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_type_both_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {order_t::descending, order_t::ascending}) matrix<T, cl_uint>(order, false, tie_heavy);
}

BOOST_AUTO_TEST_CASE(by_key_values)
{
    const bool fp64 = type_runs_here<cl_double>();
    matrix<cl_uint, cl_uint>(order_t::descending, true, tie_heavy);
    matrix<cl_float, cl_ulong>(order_t::ascending, true, tie_heavy);
    matrix<cl_long, cl_float>(order_t::descending, true, {distribution::few_distinct, distribution::extremes});
    if (fp64) matrix<cl_int, cl_double>(order_t::ascending, true, {distribution::few_distinct});
}

BOOST_AUTO_TEST_CASE(larger_sizes)
{
    auto& q = queue;
    const std::size_t big = std::size_t(1) << (on_gpu() ? 24 : 20);
    for (std::size_t k : {std::size_t(100), std::size_t(1) << 14})
        check_top_k<cl_uint, cl_uint>(big + 3, k, distribution::random, order_t::descending, true, q);
    check_top_k<cl_float, cl_uint>(big - 1, 1000, distribution::float_specials, order_t::ascending, true, q);
    check_top_k<cl_int, cl_uint>(big, 5000, distribution::all_equal, order_t::descending, true, q);
    check_top_k<cl_ulong, cl_uint>(big, 777, distribution::sorted, order_t::descending, false, q);
}

// Both paths on this device; the select path also on a grid of one tiny work-group (every
// grid-stride loop runs many rounds) and of many, its survivors sorted by the radix sorts or in
// local memory.
BOOST_AUTO_TEST_CASE(paths_forced)
{
    {
        env_override path("CLPRIM_TOPK_PATH", "sort");
        matrix<cl_uint, cl_uint>(order_t::descending, true, tie_heavy);
        matrix<cl_double, cl_uint>(order_t::ascending, false, {distribution::float_specials});
    }
    env_override path("CLPRIM_TOPK_PATH", "select");
    matrix<cl_int, cl_uint>(order_t::ascending, true, {distribution::few_distinct, distribution::reversed});
    for (const char* tune : {"1,1", "32,16"}) {
        env_override t("CLPRIM_TOPK_TUNE", tune);
        // The survivors by the two radix sorts (small: 1) and by the local sort (4096).
        env_override small("CLPRIM_TOPK_SMALL", tune[0] == '1' ? "1" : "4096");
        for (std::size_t n : {1, 2, 33, 4097})
            for (std::size_t k : ks_for(n)) {
                check_top_k<cl_uint, cl_uint>(n, k, distribution::few_distinct, order_t::descending, true, queue);
                check_top_k<cl_float, cl_uint>(n, k, distribution::float_specials, order_t::descending, true, queue);
            }
    }
}

// The select path's threshold: the smallest sample (need = 1: fewer than k elements pass the
// filter, the second read takes the rest), every element a candidate (need > samples), few
// samples, and the default around filter tile edges (wg * 16 elements).
BOOST_AUTO_TEST_CASE(threshold_forced)
{
    env_override path("CLPRIM_TOPK_PATH", "select");
    for (const char* tune : {"64,1,4096,1", "64,1,64,1", "64,2,64,65536", "64,3,16,2"}) {
        env_override t("CLPRIM_TOPK_TUNE", tune);
        for (std::size_t n : {4, 1023, 4097, 65537})
            for (std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(100), n / 4}) {
                if (k > n) continue;
                check_top_k<cl_uint, cl_uint>(n, k, distribution::random, order_t::descending, true, queue);
                check_top_k<cl_int, cl_uint>(n, k, distribution::few_distinct, order_t::ascending, true, queue);
            }
        check_top_k<cl_double, cl_uint>(65537, 1000, distribution::float_specials, order_t::descending, true, queue);
        check_top_k<cl_long, cl_uint>(65537, 77, distribution::sorted, order_t::ascending, true, queue);
    }
    // Groups of 256 (the GPUs' shape: the last group's parallel scan of the digit's counts).
    {
        env_override t("CLPRIM_TOPK_TUNE", "256,2");
        for (std::size_t n : {1023, 65537})
            for (std::size_t k : {std::size_t(1), std::size_t(100), n / 4})
                check_top_k<cl_uint, cl_uint>(n, k, distribution::few_distinct, order_t::descending, true, queue);
    }
    // Survivors past the local sort: 8-byte keys by the two radix sorts, 4-byte ones as composites.
    check_top_k<cl_long, cl_uint>(65537, 5000, distribution::few_distinct, order_t::descending, true, queue);
    check_top_k<cl_double, cl_uint>(40000, 3000, distribution::float_specials, order_t::ascending, true, queue);
    check_top_k<cl_int, cl_uint>(40000, 3000, distribution::few_distinct, order_t::ascending, true, queue);
    for (std::size_t n : {16383, 16384, 16385, 32769})
        for (std::size_t k : {std::size_t(1), std::size_t(2000), n / 4}) {
            check_top_k<cl_uint, cl_uint>(n, k, distribution::random, order_t::ascending, true, queue);
            check_top_k<cl_float, cl_uint>(n, k, distribution::all_equal, order_t::descending, true, queue);
        }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    bc::vector<cl_uint> a(100, context), v(100, context), r(100, context), rv(100, context);
    BOOST_CHECK_THROW(clprim::top_k(a.begin(), a.begin() + 10, 11, r.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::top_k(a.begin(), a.begin() + 50, 5, a.begin() + 45, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::top_k_by_key(a.begin(), a.begin() + 50, v.begin(), 5, r.begin(), r.begin() + 2, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::top_k_by_key(a.begin(), a.begin() + 50, v.begin(), 5, r.begin(), v.begin() + 49, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::top_k(a.begin(), a.begin() + 50, 5, r.begin() + 96, queue), clprim::invalid_argument_error);
    clprim::top_k(a.begin(), a.begin() + 50, 50, a.begin() + 50, queue); // adjacent is fine
    clprim::top_k(a.begin(), a.begin(), 0, r.begin(), queue);
    queue.finish();
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (auto path : {"select", "sort"}) {
        env_override p("CLPRIM_TOPK_PATH", path);
        check_top_k<cl_uint, cl_uint>(70001, 100, distribution::few_distinct, order_t::descending, true, ooo);
        check_top_k<cl_uint, cl_uint>(1000, 1, distribution::random, order_t::ascending, false, ooo);
    }
}

BOOST_AUTO_TEST_SUITE_END()
