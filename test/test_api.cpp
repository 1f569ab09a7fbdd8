// The public contract (API.md) as code: every name and signature, the default arguments and the
// error hierarchy, checked by the compiler; then each entry point called once with its defaults.
#define BOOST_TEST_MODULE clprim_api
#include "clprim_test_fixture.hpp"

#include <type_traits>

using namespace clprim_test;

namespace api_check {

using clprim::bitonic_variant;
using clprim::reduce_op;
using clprim::reduce_variant;
using clprim::scan_algorithm;
using clprim::sort_algorithm;
using clprim::sort_order;
template <class T>
using it = bc::buffer_iterator<T>;

static_assert(std::is_base_of_v<std::runtime_error, clprim::error>);
static_assert(std::is_base_of_v<clprim::error, clprim::invalid_argument_error>);
static_assert(std::is_base_of_v<clprim::error, clprim::unsupported_error>);
static_assert(std::is_base_of_v<clprim::error, clprim::build_error>);
static_assert(std::is_same_v<decltype(std::declval<clprim::build_error>().log), std::string>);
static_assert(std::is_constructible_v<clprim::error, std::string>);

[[maybe_unused]] bc::device (*const p_default_device)() = &clprim::default_device;
[[maybe_unused]] cl_uint (*const p_reduce)(it<cl_uint>, it<cl_uint>, bc::command_queue&, reduce_op, reduce_variant) =
    &clprim::reduce<cl_uint>;
[[maybe_unused]] void (*const p_inclusive)(it<cl_int>, it<cl_int>, it<cl_int>, bc::command_queue&, scan_algorithm) =
    &clprim::inclusive_scan<cl_int>;
[[maybe_unused]] void (*const p_exclusive)(it<cl_long>, it<cl_long>, it<cl_long>, bc::command_queue&, cl_long,
                                           scan_algorithm) = &clprim::exclusive_scan<cl_long>;
[[maybe_unused]] void (*const p_histogram)(it<cl_float>, it<cl_float>, it<cl_uint>, std::size_t, cl_float, cl_float,
                                           bc::command_queue&) = &clprim::histogram<cl_float>;
[[maybe_unused]] void (*const p_sort)(it<cl_uint>, it<cl_uint>, bc::command_queue&, sort_algorithm, sort_order) =
    &clprim::sort<cl_uint>;
[[maybe_unused]] void (*const p_sort_by_key)(it<cl_uint>, it<cl_uint>, it<cl_double>, bc::command_queue&,
                                             sort_algorithm, sort_order) = &clprim::sort_by_key<cl_uint, cl_double>;
[[maybe_unused]] void (*const p_radix)(it<cl_ulong>, it<cl_ulong>, bc::command_queue&, sort_order) =
    &clprim::radix_sort<cl_ulong>;
[[maybe_unused]] void (*const p_radix_by_key)(it<cl_int>, it<cl_int>, it<cl_float>, bc::command_queue&, sort_order) =
    &clprim::radix_sort_by_key<cl_int, cl_float>;
[[maybe_unused]] void (*const p_bitonic)(it<cl_float>, it<cl_float>, bc::command_queue&, sort_order, bitonic_variant) =
    &clprim::bitonic_sort<cl_float>;
[[maybe_unused]] void (*const p_odd_even)(it<cl_int>, it<cl_int>, bc::command_queue&, sort_order) =
    &clprim::odd_even_sort<cl_int>;
[[maybe_unused]] void (*const p_merge)(it<cl_double>, it<cl_double>, bc::command_queue&, sort_order) =
    &clprim::merge_sort<cl_double>;

// Every enumerator the contract names.
[[maybe_unused]] constexpr reduce_op ops[] = {reduce_op::sum, reduce_op::min, reduce_op::max};
[[maybe_unused]] constexpr reduce_variant variants[] = {
    reduce_variant::reduce0, reduce_variant::reduce1, reduce_variant::reduce2, reduce_variant::reduce3,
    reduce_variant::reduce4, reduce_variant::reduce5, reduce_variant::reduce6, reduce_variant::fast};
[[maybe_unused]] constexpr scan_algorithm scans[] = {scan_algorithm::hillis_steele, scan_algorithm::blelloch,
                                                     scan_algorithm::fast};
[[maybe_unused]] constexpr sort_order orders[] = {sort_order::ascending, sort_order::descending};
[[maybe_unused]] constexpr sort_algorithm sorts[] = {sort_algorithm::radix, sort_algorithm::bitonic,
                                                     sort_algorithm::odd_even, sort_algorithm::merge,
                                                     sort_algorithm::boost_compute};
[[maybe_unused]] constexpr bitonic_variant bitonics[] = {bitonic_variant::global, bitonic_variant::local,
                                                        bitonic_variant::fused, bitonic_variant::transpose};

} // namespace api_check

BOOST_FIXTURE_TEST_SUITE(api, fixture)

// The version from project(VERSION), through the generated <clprim/config.hpp>.
static_assert(CLPRIM_VERSION == CLPRIM_VERSION_MAJOR * 10000 + CLPRIM_VERSION_MINOR * 100 + CLPRIM_VERSION_PATCH);
BOOST_AUTO_TEST_CASE(version_macros_agree)
{
    BOOST_TEST(std::string(CLPRIM_VERSION_STRING) == std::to_string(CLPRIM_VERSION_MAJOR) + "." +
                                                       std::to_string(CLPRIM_VERSION_MINOR) + "." +
                                                       std::to_string(CLPRIM_VERSION_PATCH));
}

// Each entry point with only the required arguments (the defaults of API.md), on small data.
BOOST_AUTO_TEST_CASE(defaults_work)
{
    const std::vector<cl_uint> host{5, 3, 9, 1, 7, 3};
    auto v = to_device(host, queue);
    BOOST_TEST(clprim::reduce(v.begin(), v.end(), queue) == 28u);

    auto out = to_device(std::vector<cl_uint>(host.size()), queue);
    clprim::inclusive_scan(v.begin(), v.end(), out.begin(), queue);
    BOOST_TEST(to_host(out, queue) == (std::vector<cl_uint>{5, 8, 17, 18, 25, 28}), boost::test_tools::per_element());
    clprim::exclusive_scan(v.begin(), v.end(), out.begin(), queue);
    BOOST_TEST(to_host(out, queue) == (std::vector<cl_uint>{0, 5, 8, 17, 18, 25}), boost::test_tools::per_element());

    auto counts = to_device(std::vector<cl_uint>(2, 0), queue);
    clprim::histogram(v.begin(), v.end(), counts.begin(), 2, 0u, 10u, queue);
    BOOST_TEST(to_host(counts, queue) == (std::vector<cl_uint>{3, 3}), boost::test_tools::per_element());

    const std::vector<cl_uint> sorted{1, 3, 3, 5, 7, 9};
    auto sort_with = [&](auto&& sort_call) {
        auto d = to_device(host, queue);
        sort_call(d);
        return to_host(d, queue) == sorted;
    };
    BOOST_TEST(sort_with([&](auto& d) { clprim::sort(d.begin(), d.end(), queue); }));
    BOOST_TEST(sort_with([&](auto& d) { clprim::radix_sort(d.begin(), d.end(), queue); }));
    BOOST_TEST(sort_with([&](auto& d) { clprim::bitonic_sort(d.begin(), d.end(), queue); }));
    BOOST_TEST(sort_with([&](auto& d) { clprim::odd_even_sort(d.begin(), d.end(), queue); }));
    BOOST_TEST(sort_with([&](auto& d) { clprim::merge_sort(d.begin(), d.end(), queue); }));

    auto keys = to_device(host, queue);
    auto vals = to_device(std::vector<cl_int>{0, 1, 2, 3, 4, 5}, queue);
    clprim::sort_by_key(keys.begin(), keys.end(), vals.begin(), queue);
    BOOST_TEST(to_host(vals, queue) == (std::vector<cl_int>{3, 1, 5, 0, 4, 2}), boost::test_tools::per_element());
    clprim::radix_sort_by_key(keys.begin(), keys.end(), vals.begin(), queue, clprim::sort_order::descending);
    BOOST_TEST(to_host(keys, queue) == (std::vector<cl_uint>{9, 7, 5, 3, 3, 1}), boost::test_tools::per_element());
    BOOST_TEST(to_host(vals, queue) == (std::vector<cl_int>{2, 4, 0, 1, 5, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
