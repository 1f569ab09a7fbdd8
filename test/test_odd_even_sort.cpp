// Odd-even transposition sort (O(n^2): sizes up to a few thousand): every key type x both orders x
// sizes 0..4097 x the distributions (float specials included) against std::stable_sort with the
// total order, bit for bit; every path (one local-memory launch; blocks of phases over tiles with
// halos, ping-ponging through scratch; the leftover phases as global passes), at the device's own
// tile size and at tiny forced ones (CLPRIM_ODD_EVEN_WINDOW) that spread a few hundred elements
// over dozens of tiles; sort_by_key (values follow their keys); guards untouched.
#define BOOST_TEST_MODULE clprim_odd_even_sort
#include "sort_test_support.hpp"

#include <clprim/odd_even_sort.hpp>

#include <cstdlib>

using namespace clprim_test;

namespace {

template <class T>
void check_keys(std::size_t n, distribution d, clprim::sort_order order, const std::string& label = "")
{
    check_sorted_keys<T>(n, d, order, [&](auto first, auto last, bc::command_queue& q) { clprim::odd_even_sort(first, last, q, order); }, label);
}

template <class K, class V>
void check_pairs(std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_pairs<K, V>(n, d, order, false, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::odd_even_sort_by_key(kf, kl, vf, q, order);
    });
}

// Sets CLPRIM_ODD_EVEN_WINDOW (elements one work-group holds in local memory) for its lifetime and
// restores the caller's setting after. A window of W elements gives tiles of W/2 positions with
// halos of W/4 (phases per block); W < 4 leaves only global passes; the one-launch path takes at
// most W elements.
struct forced_window : env_override {
    explicit forced_window(std::size_t w) : env_override("CLPRIM_ODD_EVEN_WINDOW", std::to_string(w)) {}
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(odd_even_sort, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(small_sizes_distributions_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000})
            for (auto d : all_distributions()) check_keys<T>(n, d, order);
}

// 2049..4097 exceed the one-launch path on every device (at most 8 elements per work-item of at
// most 256): the tiled path at the device's own tile size (2 x work-group size, halos up to half
// that: 9 tiles at 4097 with 256 work-items). With 256 work-items the sizes give odd and even
// block counts (result in scratch or in place), with and without leftover global phases; reversed
// input makes elements cross every tile.
BOOST_AUTO_TEST_CASE_TEMPLATE(few_thousand, T, all_types)
{
    if (!type_runs_here<T>()) return;
    check_keys<T>(4095, distribution::random, clprim::sort_order::ascending);
    check_keys<T>(4096, distribution::float_specials, clprim::sort_order::descending);
    check_keys<T>(4097, distribution::reversed, clprim::sort_order::ascending);
    check_keys<T>(2049, distribution::few_distinct, clprim::sort_order::descending);
    check_keys<T>(3001, distribution::reversed, clprim::sort_order::descending);
}

// Tiny forced windows: tiles of 2, 4, 6 and 20 positions with halos (phases per block) of at most
// 1, 2, 3 and 10, so a few hundred elements lie on dozens of tiles and reversed input must cross
// all of them; window 2 leaves every phase to the global passes. The sizes give leftover global
// phases or none, and odd or even block counts, depending on the window.
BOOST_AUTO_TEST_CASE(forced_small_tiles)
{
    using clprim::sort_order;
    for (std::size_t w : {2, 4, 8, 12, 40}) {
        const forced_window fw(w);
        const std::string label = "window " + std::to_string(w);
        for (std::size_t n : {2, 3, 5, 8, 9, 17, 40, 41, 64, 65, 200, 257}) {
            for (auto d : {distribution::reversed, distribution::random, distribution::few_distinct})
                check_keys<cl_uint>(n, d, sort_order::ascending, label);
            check_keys<cl_float>(n, distribution::float_specials, sort_order::descending, label);
            check_keys<cl_long>(n, distribution::reversed, sort_order::descending, label);
            BOOST_TEST_CONTEXT(label) {
                check_pairs<cl_uint, cl_uint>(n, distribution::reversed, sort_order::ascending);
                check_pairs<cl_float, cl_long>(n, distribution::float_specials, sort_order::descending);
            }
        }
    }
}

// Every key type on a forced window of 12 (tiles of 6, up to 3 phases per block: odd numbers
// everywhere), both orders, ranges of 21 and 100 tiles.
BOOST_AUTO_TEST_CASE_TEMPLATE(forced_small_tiles_all_types, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const forced_window fw(12);
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {121, 600})
            for (auto d : {distribution::reversed, distribution::random, distribution::float_specials})
                check_keys<T>(n, d, order, "window 12");
}

BOOST_AUTO_TEST_CASE(sort_by_key_pairs)
{
    const bool fp64 = type_runs_here<cl_double>();
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {0, 1, 2, 33, 1000, 3001, 4097}) {
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
