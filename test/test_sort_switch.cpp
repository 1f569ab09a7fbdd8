// The sort switch: every sort_algorithm through clprim::sort / clprim::sort_by_key on a few sizes
// and types, against std::stable_sort by the total order; bad input leaves the data untouched.
#define BOOST_TEST_MODULE clprim_sort_switch
#include "sort_test_support.hpp"

using namespace clprim_test;

namespace {

const clprim::sort_algorithm all_algorithms[] = {clprim::sort_algorithm::radix, clprim::sort_algorithm::bitonic,
                                                 clprim::sort_algorithm::odd_even, clprim::sort_algorithm::merge,
                                                 clprim::sort_algorithm::boost_compute};

const char* name_of(clprim::sort_algorithm a)
{
    switch (a) {
    case clprim::sort_algorithm::radix: return "radix";
    case clprim::sort_algorithm::bitonic: return "bitonic";
    case clprim::sort_algorithm::odd_even: return "odd_even";
    case clprim::sort_algorithm::merge: return "merge";
    case clprim::sort_algorithm::boost_compute: return "boost_compute";
    }
    return "?";
}

std::vector<std::size_t> switch_sizes(clprim::sort_algorithm a)
{
    if (a == clprim::sort_algorithm::odd_even) return {0, 1, 2, 33, 257, 1000};
    return {0, 1, 2, 33, 257, 1000, 4097, 65537};
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(sort_switch, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_algorithm_sorts, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (const auto alg : all_algorithms)
        for (const auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
            for (const std::size_t n : switch_sizes(alg)) {
                // Boost.Compute keeps its own order on NaN and -0.0: give it data without them.
                const auto dist = alg == clprim::sort_algorithm::boost_compute ? distribution::random
                                                                               : distribution::float_specials;
                const auto host = make_data<T>(n, dist, 99);
                auto dev = to_device(host, queue);
                clprim::sort(dev.begin(), dev.end(), queue, alg, order);
                const auto got = to_host(dev, queue);
                const auto want = reference(host, order);
                BOOST_TEST(bit_equal(got, want), name_of(alg) << " " << type_label<T>() << " n=" << n
                                                              << (order == clprim::sort_order::ascending ? " asc" : " desc")
                                                              << " first difference at " << first_difference(got, want));
            }
}

BOOST_AUTO_TEST_CASE(every_algorithm_sorts_by_key)
{
    for (const auto alg : all_algorithms)
        for (const auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
            for (const std::size_t n : switch_sizes(alg)) {
                const auto keys = make_data<cl_int>(n, distribution::few_distinct, 7);
                std::vector<cl_uint> values(n);
                for (std::size_t i = 0; i < n; ++i) values[i] = cl_uint(i);
                auto dk = to_device(keys, queue);
                auto dv = to_device(values, queue);
                clprim::sort_by_key(dk.begin(), dk.end(), dv.begin(), queue, alg, order);
                const auto got_k = to_host(dk, queue);
                const auto got_v = to_host(dv, queue);
                BOOST_TEST(bit_equal(got_k, reference(keys, order)), name_of(alg) << " n=" << n);
                // Every value still sits with its own key and none is lost or doubled.
                bool paired = true;
                std::vector<bool> seen(n, false);
                for (std::size_t i = 0; i < n; ++i) {
                    paired = paired && got_v[i] < n && !seen[got_v[i]] && keys[got_v[i]] == got_k[i];
                    if (got_v[i] < n) seen[got_v[i]] = true;
                }
                BOOST_TEST(paired, name_of(alg) << " n=" << n);
                const bool stable = alg == clprim::sort_algorithm::radix || alg == clprim::sort_algorithm::merge;
                if (stable) {
                    for (std::size_t i = 1; i < n; ++i)
                        if (got_k[i] == got_k[i - 1] && got_v[i] < got_v[i - 1]) {
                            BOOST_ERROR(name_of(alg) << " is not stable at " << i << ", n=" << n);
                            break;
                        }
                }
            }
}

BOOST_AUTO_TEST_CASE(sorts_a_subrange_only)
{
    for (const auto alg : all_algorithms) {
        const auto host = make_data<cl_uint>(1000, distribution::random, 5);
        auto dev = to_device(host, queue);
        clprim::sort(dev.begin() + 100, dev.begin() + 900, queue, alg);
        const auto got = to_host(dev, queue);
        auto want = host;
        std::stable_sort(want.begin() + 100, want.begin() + 900);
        BOOST_TEST(bit_equal(got, want), name_of(alg));
    }
}

BOOST_AUTO_TEST_CASE(bad_input_is_rejected_and_data_untouched)
{
    const auto host = make_data<cl_uint>(100, distribution::random, 3);
    auto a = to_device(host, queue);
    auto b = to_device(host, queue);
    for (const auto alg : all_algorithms) {
        BOOST_CHECK_THROW(clprim::sort(a.begin() + 10, a.begin() + 5, queue, alg), clprim::invalid_argument_error);
        BOOST_CHECK_THROW(clprim::sort(a.begin(), b.end(), queue, alg), clprim::invalid_argument_error);
        // Values overlapping the keys, and values too short for the keys.
        BOOST_CHECK_THROW(clprim::sort_by_key(a.begin(), a.begin() + 50, a.begin() + 25, queue, alg),
                          clprim::invalid_argument_error);
        BOOST_CHECK_THROW(clprim::sort_by_key(a.begin(), a.end(), b.begin() + 1, queue, alg),
                          clprim::invalid_argument_error);
        bc::context other(device);
        bc::command_queue other_queue(other, device);
        BOOST_CHECK_THROW(clprim::sort(a.begin(), a.end(), other_queue, alg), clprim::invalid_argument_error);
    }
    BOOST_TEST(bit_equal(to_host(a, queue), host));
    BOOST_TEST(bit_equal(to_host(b, queue), host));
}

BOOST_AUTO_TEST_SUITE_END()
