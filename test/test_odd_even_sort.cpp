// Odd-even transposition sort (O(n^2): sizes up to a few thousand): every key type x both orders x
// sizes 0..4097 x the distributions (float specials included) against std::stable_sort with the
// total order, bit for bit; both paths (one local-memory launch, and a launch per phase once the
// range outgrows a work-group); sort_by_key (values follow their keys); guards untouched.
#define BOOST_TEST_MODULE clprim_odd_even_sort
#include "sort_test_support.hpp"

#include <clprim/odd_even_sort.hpp>

using namespace clprim_test;

namespace {

template <class T>
void check_keys(std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_keys<T>(n, d, order, [&](auto first, auto last, bc::command_queue& q) { clprim::odd_even_sort(first, last, q, order); });
}

template <class K, class V>
void check_pairs(std::size_t n, distribution d, clprim::sort_order order)
{
    auto& q = device_under_test::get().queue;
    const auto keys = make_data<K>(n, d);
    std::vector<V> vals(n);
    for (std::size_t i = 0; i < n; ++i) vals[i] = static_cast<V>(i);
    guarded_vector<K> kv(keys, K(7), q);
    guarded_vector<V> vv(vals, V(3), q);
    clprim::odd_even_sort_by_key(kv.first(), kv.last(), vv.first(), q, order);
    bool kg = false, vg = false;
    const auto got_k = kv.result(q, kg);
    const auto got_v = vv.result(q, vg);
    BOOST_TEST((kg && vg), "guard overwritten");
    BOOST_TEST(first_difference(got_k, reference(keys, order)) == -1,
               type_label<K>() << "/" << type_label<V>() << " n=" << n << " keys wrong");
    // Not stable: each value is a distinct input index, and it must sit beside its own key.
    std::vector<char> seen(n, 0);
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i) {
        const auto idx = static_cast<std::size_t>(got_v[i]);
        ok = idx < n && !seen[idx] && std::memcmp(&keys[idx], &got_k[i], sizeof(K)) == 0;
        if (ok) seen[idx] = 1;
    }
    BOOST_TEST(ok, type_label<K>() << "/" << type_label<V>() << " n=" << n << " " << name_of(d)  << ": values do not follow their keys");
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(odd_even_sort, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(small_sizes_distributions_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000})
            for (auto d : all_distributions()) check_keys<T>(n, d, order);
}

// 4095..4097 exceed one work-group's tile on every device we know: the launch-per-phase path.
BOOST_AUTO_TEST_CASE_TEMPLATE(few_thousand, T, all_types)
{
    if (!type_runs_here<T>()) return;
    check_keys<T>(4095, distribution::random, clprim::sort_order::ascending);
    check_keys<T>(4096, distribution::float_specials, clprim::sort_order::descending);
    check_keys<T>(4097, distribution::reversed, clprim::sort_order::ascending);
    check_keys<T>(2049, distribution::few_distinct, clprim::sort_order::descending);
}

BOOST_AUTO_TEST_CASE(sort_by_key_pairs)
{
    const bool fp64 = type_runs_here<cl_double>();
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {0, 1, 2, 33, 1000, 4097}) {
            check_pairs<cl_uint, cl_uint>(n, distribution::random, order);
            check_pairs<cl_int, cl_ulong>(n, distribution::few_distinct, order);
            check_pairs<cl_float, cl_long>(n, distribution::float_specials, order);
            if (fp64) check_pairs<cl_double, cl_int>(n, distribution::float_specials, order);
        }
}

BOOST_AUTO_TEST_CASE(bad_input_throws_before_enqueue)
{
    auto data = make_data<cl_int>(100, distribution::random);
    auto v = to_device(data, queue);
    BOOST_CHECK_THROW(clprim::odd_even_sort(v.begin() + 10, v.begin() + 5, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::odd_even_sort(v.begin(), v.begin() + 200, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::odd_even_sort_by_key(v.begin(), v.begin() + 50, v.begin() + 20, queue), clprim::invalid_argument_error);
    bc::vector<cl_uint> short_vals(10, context);
    BOOST_CHECK_THROW(clprim::odd_even_sort_by_key(v.begin(), v.end(), short_vals.begin(), queue), clprim::invalid_argument_error);
    BOOST_TEST(bit_equal(to_host(v, queue), data));
}

BOOST_AUTO_TEST_SUITE_END()
