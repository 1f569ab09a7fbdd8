// Bitonic sort, all four variants: every key type x both orders x the standard sizes and
// distributions (float specials included) against std::stable_sort with the total order, bit for
// bit; sort_by_key (values travel with their keys); guards just outside the range untouched.
// The fused variant gets the full matrix; global and local a smaller one (they share the network).
// On GPUs fused is the group-kernel path (tile and rows launches, issue #14); on CPU devices it is
// the CPU path (bitonic_sort_cpu.*), and test_sort_paths forces the GPU path there with tiny shapes.
// The local variant runs one launch per pass, in local memory for distances below its tile (2 x
// work-group size: 512 with 256 work-items), so sizes from 1000 up span several tiles and every
// stage from 4 up has several local passes; local_variant_several_tiles adds the distributions
// that move elements farthest. The transpose variant gets the full matrix too (it shares the fused
// variant's program), and again with tiles forced tiny (CLPRIM_BITONIC_TILE), where a stage's
// row-spanning distances need two or three transposes each.
#define BOOST_TEST_MODULE clprim_bitonic_sort
#include "sort_test_support.hpp"

#include <clprim/bitonic_sort.hpp>

#include <cstdlib>

using namespace clprim_test;

namespace {

constexpr clprim::bitonic_variant all_variants[] = {clprim::bitonic_variant::global, clprim::bitonic_variant::local,
                                                   clprim::bitonic_variant::fused, clprim::bitonic_variant::transpose};

const char* name_of(clprim::bitonic_variant v)
{
    switch (v) {
    case clprim::bitonic_variant::global: return "global";
    case clprim::bitonic_variant::local: return "local";
    case clprim::bitonic_variant::fused: return "fused";
    case clprim::bitonic_variant::transpose: return "transpose";
    }
    return "?";
}

// Sets CLPRIM_BITONIC_TILE (the largest tile, in elements, of the fused and transpose variants)
// for its lifetime and restores the caller's setting after.
struct forced_tile : env_override {
    explicit forced_tile(std::size_t t) : env_override("CLPRIM_BITONIC_TILE", std::to_string(t)) {}
};

template <class T>
void check_keys(clprim::bitonic_variant variant, std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_keys<T>(n, d, order, [&](auto first, auto last, bc::command_queue& q) { clprim::bitonic_sort(first, last, q, order, variant); }, name_of(variant));
}

template <class K, class V>
void check_pairs(clprim::bitonic_variant variant, std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_pairs<K, V>(n, d, order, false, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::bitonic_sort_by_key(kf, kl, vf, q, order, variant);
    }, name_of(variant));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(bitonic_sort, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(fused_all_sizes_distributions_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (auto n : standard_sizes(false))
            for (auto d : all_distributions()) check_keys<T>(clprim::bitonic_variant::fused, n, d, order);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(transpose_all_sizes_distributions_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (auto n : standard_sizes(false))
            for (auto d : all_distributions()) check_keys<T>(clprim::bitonic_variant::transpose, n, d, order);
}

// Tiles of 8 and 16 elements (rows of 3 or 4 index bits): sizes up to 2^15 have stages with up to
// 12 row-spanning distance bits, so one stage takes up to four transposes out and back; the
// transposes' own tiles are then smaller than their usual 2^10 elements. Keys and pairs.
BOOST_AUTO_TEST_CASE(transpose_variant_tiny_tiles)
{
    using clprim::sort_order;
    const auto tr = clprim::bitonic_variant::transpose;
    for (std::size_t tile : {8, 16}) {
        forced_tile force(tile);
        for (std::size_t n : {9, 17, 100, 1000, 4097, 30001})
            for (auto d : {distribution::random, distribution::reversed, distribution::few_distinct, distribution::float_specials}) {
                check_keys<cl_uint>(tr, n, d, sort_order::ascending);
                check_keys<cl_float>(tr, n, d, sort_order::descending);
            }
        check_keys<cl_long>(tr, 4097, distribution::extremes, sort_order::descending);
        check_pairs<cl_uint, cl_uint>(tr, 30001, distribution::few_distinct, sort_order::ascending);
        check_pairs<cl_float, cl_long>(tr, 1000, distribution::float_specials, sort_order::descending);
    }
}

// The variants share the key order and its descending form (sort_key_order.cl), so descending
// runs for two key types only here, which keeps the number of programs PoCL must build down.
BOOST_AUTO_TEST_CASE_TEMPLATE(global_and_local_variants, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const std::size_t sizes[] = {0, 1, 2, 3, 31, 33, 255, 257, 1000, 4095, 4097};
    const bool both_orders = std::is_same_v<T, cl_int> || std::is_same_v<T, cl_double>;
    for (auto variant : {clprim::bitonic_variant::global, clprim::bitonic_variant::local})
        for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending}) {
            if (order == clprim::sort_order::descending && !both_orders) continue;
            for (auto n : sizes)
                for (auto d : {distribution::random, distribution::few_distinct, distribution::float_specials})
                    check_keys<T>(variant, n, d, order);
        }
}

// The local variant over ranges of 2 to about 60 tiles (512 elements with 256 work-items), where
// stages have both global passes and several local passes, on the inputs that move elements
// farthest (reversed) or not at all (sorted, all equal), with and without values.
BOOST_AUTO_TEST_CASE(local_variant_several_tiles)
{
    using clprim::sort_order;
    const auto local = clprim::bitonic_variant::local;
    for (std::size_t n : {1025, 8193, 30001})
        for (auto d : {distribution::reversed, distribution::sorted, distribution::all_equal, distribution::extremes}) {
            check_keys<cl_uint>(local, n, d, sort_order::ascending);
            check_keys<cl_int>(local, n, d, sort_order::descending);
        }
    check_pairs<cl_uint, cl_uint>(local, 8193, distribution::reversed, sort_order::ascending);
    check_pairs<cl_float, cl_long>(local, 30001, distribution::float_specials, sort_order::descending);
}

BOOST_AUTO_TEST_CASE(variants_at_larger_sizes)
{
    for (auto variant : all_variants) {
        check_keys<cl_uint>(variant, 65537, distribution::random, clprim::sort_order::ascending);
        check_keys<cl_float>(variant, 65537, distribution::float_specials, clprim::sort_order::descending);
    }
    check_keys<cl_uint>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::random, clprim::sort_order::ascending);
    check_keys<cl_int>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::reversed, clprim::sort_order::descending);
    check_keys<cl_float>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::float_specials, clprim::sort_order::ascending);
    check_keys<cl_ulong>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::few_distinct, clprim::sort_order::ascending);
    check_keys<cl_uint>(clprim::bitonic_variant::local, (1u << 20) + 3, distribution::random, clprim::sort_order::ascending);
    check_keys<cl_uint>(clprim::bitonic_variant::transpose, (1u << 20) + 3, distribution::random, clprim::sort_order::ascending);
    check_keys<cl_ulong>(clprim::bitonic_variant::transpose, (1u << 20) + 3, distribution::reversed, clprim::sort_order::descending);
    if (type_runs_here<cl_double>())
        check_keys<cl_double>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::float_specials, clprim::sort_order::descending);
}

// n > 2^24 pads to 2^25: about 20 s on a 2-core PoCL, so there only when CLPRIM_TEST_LARGE is set;
// always on GPUs.
BOOST_AUTO_TEST_CASE(above_two_to_the_24)
{
    if (!on_gpu() && !clprim::detail::knob_text("CLPRIM_TEST_LARGE")) {
        BOOST_TEST_MESSAGE("CPU device: n > 2^24 case skipped (set CLPRIM_TEST_LARGE to run it)");
        return;
    }
    check_keys<cl_uint>(clprim::bitonic_variant::fused, (1u << 24) + 5, distribution::random, clprim::sort_order::ascending);
    check_pairs<cl_uint, cl_uint>(clprim::bitonic_variant::fused, (1u << 24) + 5, distribution::few_distinct, clprim::sort_order::descending);
    // Stages above 2^22 have more row-spanning distances than a transpose takes (two per stage).
    check_keys<cl_uint>(clprim::bitonic_variant::transpose, (1u << 24) + 5, distribution::random, clprim::sort_order::ascending);
    check_pairs<cl_float, cl_uint>(clprim::bitonic_variant::transpose, (1u << 23) + 1, distribution::float_specials, clprim::sort_order::descending);
}

// Key/value type pairs (each one program per variant and order: orders alternate to keep the
// number of builds down; all pairs run through the fused variant, two through global and local).
BOOST_AUTO_TEST_CASE(sort_by_key_pairs)
{
    using clprim::sort_order;
    const bool fp64 = type_runs_here<cl_double>();
    const auto asc = sort_order::ascending, desc = sort_order::descending;
    for (auto variant : all_variants)
        for (std::size_t n : {0, 1, 2, 33, 1000, 4097}) {
            check_pairs<cl_uint, cl_uint>(variant, n, distribution::random, asc);
            check_pairs<cl_float, cl_long>(variant, n, distribution::float_specials, desc);
            if (variant != clprim::bitonic_variant::fused && variant != clprim::bitonic_variant::transpose) continue;
            check_pairs<cl_uint, cl_uint>(variant, n, distribution::few_distinct, desc);
            check_pairs<cl_int, cl_ulong>(variant, n, distribution::few_distinct, asc);
            check_pairs<cl_ulong, cl_float>(variant, n, distribution::extremes, desc);
            if (fp64) {
                check_pairs<cl_double, cl_int>(variant, n, distribution::float_specials, asc);
                check_pairs<cl_long, cl_double>(variant, n, distribution::random, desc);
            }
        }
    check_pairs<cl_uint, cl_uint>(clprim::bitonic_variant::fused, 65537, distribution::few_distinct, asc);
    check_pairs<cl_float, cl_long>(clprim::bitonic_variant::fused, (1u << 20) + 3, distribution::float_specials, desc);
}

BOOST_AUTO_TEST_CASE(bad_input_throws_before_enqueue)
{
    auto data = make_data<cl_int>(100, distribution::random);
    auto v = to_device(data, queue);
    BOOST_CHECK_THROW(clprim::bitonic_sort(v.begin() + 10, v.begin() + 5, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::bitonic_sort(v.begin(), v.begin() + 200, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::bitonic_sort(v.begin(), v.end(), queue, clprim::sort_order::ascending,
                                           static_cast<clprim::bitonic_variant>(42)),
                      clprim::invalid_argument_error);
    // Values overlapping keys in the same buffer.
    BOOST_CHECK_THROW(clprim::bitonic_sort_by_key(v.begin(), v.begin() + 50, v.begin() + 20, queue), clprim::invalid_argument_error);
    // Values too short.
    bc::vector<cl_uint> short_vals(10, context);
    BOOST_CHECK_THROW(clprim::bitonic_sort_by_key(v.begin(), v.end(), short_vals.begin(), queue), clprim::invalid_argument_error);
    BOOST_TEST(bit_equal(to_host(v, queue), data));
}

BOOST_AUTO_TEST_SUITE_END()
