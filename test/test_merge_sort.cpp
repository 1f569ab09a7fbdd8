// Merge sort: every key type x both orders x the standard sizes and distributions (float specials
// included) against std::stable_sort with the total order, bit for bit; sort_by_key checked for
// stability (values = input indices must equal the stable reference's permutation, descending
// too); sizes past several merge rounds and above 2^24; guards just outside the range untouched.
// The GPU path (tile sort, merge rounds) is also forced on any device (CLPRIM_MERGE_PATH=gpu,
// so PoCL runs it too), with tiny tiles (CLPRIM_MERGE_GPU_TUNE="group,elems") so that a few
// thousand keys take many merge rounds, tiles of odd and even lengths, ragged last tiles.
#define BOOST_TEST_MODULE clprim_merge_sort
#include "sort_test_support.hpp"

#include <clprim/merge_sort.hpp>

#include <cstdlib>
#include <string>

using namespace clprim_test;

namespace {

template <class T>
void check_keys(std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_keys<T>(n, d, order, [&](auto first, auto last, bc::command_queue& q) { clprim::merge_sort(first, last, q, order); });
}

template <class K, class V>
void check_pairs(std::size_t n, distribution d, clprim::sort_order order)
{
    check_sorted_pairs<K, V>(n, d, order, true, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::merge_sort_by_key(kf, kl, vf, q, order);
    });
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(merge_sort, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(all_sizes_distributions_orders, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (auto n : standard_sizes(false))
            for (auto d : all_distributions()) check_keys<T>(n, d, order);
}

BOOST_AUTO_TEST_CASE(larger_sizes)
{
    for (std::size_t n : {(1u << 14) + 1, (1u << 17) - 1, (1u << 20) + 3}) {
        check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
        check_keys<cl_float>(n, distribution::float_specials, clprim::sort_order::descending);
    }
    check_keys<cl_int>((1u << 20) + 3, distribution::reversed, clprim::sort_order::ascending);
    check_keys<cl_ulong>((1u << 20) + 3, distribution::few_distinct, clprim::sort_order::descending);
    check_keys<cl_long>((1u << 20) + 3, distribution::sorted, clprim::sort_order::descending);
    if (type_runs_here<cl_double>())
        check_keys<cl_double>((1u << 20) + 3, distribution::float_specials, clprim::sort_order::ascending);
}

// About a minute on a busy 2-core PoCL: there only when CLPRIM_TEST_LARGE is set; always on GPUs.
BOOST_AUTO_TEST_CASE(above_two_to_the_24)
{
    if (!on_gpu() && !clprim::detail::knob_text("CLPRIM_TEST_LARGE")) {
        BOOST_TEST_MESSAGE("CPU device: n > 2^24 case skipped (set CLPRIM_TEST_LARGE to run it)");
        return;
    }
    check_pairs<cl_uint, cl_uint>((1u << 24) + 5, distribution::few_distinct, clprim::sort_order::descending);
    check_keys<cl_uint>((1u << 24) + 5, distribution::random, clprim::sort_order::ascending);
}

BOOST_AUTO_TEST_CASE(sort_by_key_is_stable)
{
    const bool fp64 = type_runs_here<cl_double>();
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending}) {
        for (std::size_t n : {0, 1, 2, 33, 1000, 4097, 65537}) {
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order);
            check_pairs<cl_int, cl_ulong>(n, distribution::few_distinct, order);
            check_pairs<cl_float, cl_long>(n, distribution::float_specials, order);
            check_pairs<cl_ulong, cl_float>(n, distribution::extremes, order);
            if (fp64) {
                check_pairs<cl_double, cl_int>(n, distribution::float_specials, order);
                check_pairs<cl_long, cl_double>(n, distribution::all_equal, order);
            }
        }
        check_pairs<cl_uint, cl_uint>((1u << 20) + 3, distribution::few_distinct, order);
    }
    check_pairs<cl_float, cl_ulong>((1u << 20) + 3, distribution::float_specials, clprim::sort_order::descending);
}

// The GPU path's kernels on this device: every type, both orders, merge tiles of 4 x 3 = 12 keys
// after a tile sort of 8 x 3 = 24 (a prime n of 10007 takes 9 rounds, most tiles straddle
// nothing, the last is ragged).
BOOST_AUTO_TEST_CASE_TEMPLATE(gpu_path_keys_tiny_tiles, T, all_types)
{
    if (!type_runs_here<T>()) return;
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending})
        for (std::size_t n : {0, 1, 2, 3, 11, 12, 13, 31, 257, 4093, 4097, 10007})
            for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal,
                           distribution::reversed, distribution::extremes, distribution::float_specials})
                check_keys<T>(n, d, order);
}

// sort_by_key on the GPU path: values follow their keys and stay stable, every key and value
// width, through tiles of one key per work-item and of odd counts. (Each type pair, order and
// shape is a program that PoCL compiles cold in CI, about 7 s each: hence one order per pair.)
BOOST_AUTO_TEST_CASE(gpu_path_pairs_shapes)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    const bool fp64 = type_runs_here<cl_double>();
    const auto asc = clprim::sort_order::ascending, desc = clprim::sort_order::descending;
    // One key per work-item (wg 2: tiles of 2, a dozen rounds), then 16 x 7.
    {
        env_override tune("CLPRIM_MERGE_GPU_TUNE", "2,1");
        for (std::size_t n : {0, 1, 2, 33, 1000, 4097}) {
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, asc);
            check_pairs<cl_int, cl_ulong>(n, distribution::all_equal, desc);
        }
    }
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "16,7");
    for (std::size_t n : {0, 1, 2, 33, 1000, 4097}) {
        check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, desc);
        check_pairs<cl_float, cl_long>(n, distribution::float_specials, asc);
        check_pairs<cl_ulong, cl_float>(n, distribution::few_distinct, desc);
        if (fp64) check_pairs<cl_double, cl_int>(n, distribution::float_specials, asc);
    }
}

// The tile sort's work-group against the rounds' (CLPRIM_MERGE_SORT_GROUP): equal (runs of one
// merge tile), and four times (runs of four), so a pair of runs spans 2 or 8 merge tiles; sizes
// around those runs, odd and even round counts.
BOOST_AUTO_TEST_CASE(gpu_path_tile_sort_shapes)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* sort_group : {"4", "16"}) {
        env_override sg("CLPRIM_MERGE_SORT_GROUP", sort_group);
        for (std::size_t n : {0, 1, 11, 12, 13, 47, 48, 49, 95, 97, 1000, 10007}) {
            check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending);
        }
    }
}

// The rounds' kernel (merge_stream) in several shapes: work-groups of one tile and of many (capped
// at a pair of runs in the early rounds), a count that is no power of two (taken as 2), searches of
// one and of many probes per step, a work-group capped below the tile sort's (5,3,2), and the split
// kernels (CLPRIM_MERGE_STREAM=0).
BOOST_AUTO_TEST_CASE(gpu_path_stream_shapes)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* stream : {"1,1", "3,2", "64,16", "5,3,2", "0"}) {
        env_override st("CLPRIM_MERGE_STREAM", stream);
        for (std::size_t n : {0, 1, 13, 97, 1000, 10007}) {
            check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending);
        }
    }
    // Work-groups per compute unit instead of tiles (CLPRIM_MERGE_STREAM_GROUPS).
    for (const char* groups : {"1", "3"}) {
        env_override g("CLPRIM_MERGE_STREAM_GROUPS", groups);
        for (std::size_t n : {97, 10007}) {
            check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending);
        }
    }
}

// The rounds' split searches (CLPRIM_MERGE_SPLIT, as in test_merge): the binary merge_partition,
// merge_partition_search with samples (work-groups whose tile starts lie in one pair of runs:
// the later rounds) and without, probes shared by work-items and a work-item's own, the
// partition hidden behind merging (merge_global_split), and the last round's samples gathered
// first (merge_split_gather).
BOOST_AUTO_TEST_CASE(gpu_path_split_searches)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* split : {"0", "1,1,4,4", "1,1,64", "3,1,8,8", "4,4,16,16", "2,2,0,8", "1,1,4,4,16", "0,1,0,8,32", "1,1,64,16,0,1", "1,1,32,8,16,2",
                              "1,1,64,16,0,0,16", "1,1,32,8,0,2,4"}) {
        env_override sp("CLPRIM_MERGE_SPLIT", split);
        for (std::size_t n : {97, 10007}) {
            check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending);
        }
        if (std::string(split) == "1,1,64" || std::string(split) == "1,1,4,4,16")
            check_pairs<cl_uint, cl_uint>(65537, distribution::few_distinct, clprim::sort_order::descending);
        if (type_runs_here<cl_ulong>()) check_keys<cl_ulong>(10007, distribution::few_distinct, clprim::sort_order::descending);
    }
}

// The GPU path's default shape (the policy's tiles, thousands of keys) over several rounds.
BOOST_AUTO_TEST_CASE(gpu_path_default_shape)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", nullptr);
    for (std::size_t n : {std::size_t(4352), std::size_t(65537), (std::size_t(1) << 17) + 3}) {
        check_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending);
        check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending);
        if (type_runs_here<cl_ulong>())
            check_pairs<cl_ulong, cl_long>(n, distribution::few_distinct, clprim::sort_order::ascending);
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws_before_enqueue)
{
    auto data = make_data<cl_int>(100, distribution::random);
    auto v = to_device(data, queue);
    BOOST_CHECK_THROW(clprim::merge_sort(v.begin() + 10, v.begin() + 5, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge_sort(v.begin(), v.begin() + 200, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge_sort_by_key(v.begin(), v.begin() + 50, v.begin() + 20, queue), clprim::invalid_argument_error);
    bc::vector<cl_uint> short_vals(10, context);
    BOOST_CHECK_THROW(clprim::merge_sort_by_key(v.begin(), v.end(), short_vals.begin(), queue), clprim::invalid_argument_error);
    BOOST_TEST(bit_equal(to_host(v, queue), data));
}

BOOST_AUTO_TEST_SUITE_END()
