// Every path of the radix and merge sorts forced on the device under test (issue #13): the CPU
// paths (chunked, one work-item per chunk) and the GPU paths (work-group tiles), through the
// environment knobs CLPRIM_RADIX_PATH=cpu|multipass and CLPRIM_MERGE_PATH=cpu|gpu, with the CPU
// paths' shapes varied (digit widths 4, 8 and 11 bits, write-combining lines, odd chunk counts,
// short runs). Each result is checked bit for bit against std::stable_sort by the total order
// (keys, and for sort_by_key the values: the stable order's input positions), so every path
// gives the same result. The default path of each device is what test_radix_sort and
// test_merge_sort run. The bitonic sort's fused variant: its GPU path (tile and rows launches,
// issue #14) forced with CLPRIM_BITONIC_PATH=gpu and shrunk with CLPRIM_BITONIC_TUNE, so that a
// few thousand keys take many rows launches of several chunks each (its CPU path is what
// test_bitonic_sort runs on CPU devices).
#define BOOST_TEST_MODULE clprim_sort_paths
#include "sort_test_support.hpp"

#include <clprim/bitonic_sort.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/radix_sort.hpp>

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace clprim_test;

namespace {

// env_override (clprim_test_fixture.hpp) sets a knob for one scope; nullptr unsets it.

const std::vector<std::size_t>& path_sizes()
{
    // 0, 1, primes, 2^k +- 1, and enough for several chunks of 4096 (the CPU paths' minimum).
    static const std::vector<std::size_t> s{0, 1, 2, 3, 31, 257, 4093, 4097, 10007, 65535, 65537, 131071};
    return s;
}

template <class K>
void radix_keys(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_keys<K>(n, d, order, [&](auto f, auto l, bc::command_queue& q) { clprim::radix_sort(f, l, q, order); },
                         label);
}

template <class K, class V>
void radix_pairs(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_pairs<K, V>(n, d, order, true, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::radix_sort_by_key(kf, kl, vf, q, order);
    }, label);
}

template <class K>
void merge_keys(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_keys<K>(n, d, order, [&](auto f, auto l, bc::command_queue& q) { clprim::merge_sort(f, l, q, order); },
                         label);
}

template <class K, class V>
void merge_pairs(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_pairs<K, V>(n, d, order, true, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::merge_sort_by_key(kf, kl, vf, q, order);
    }, label);
}

template <class K>
void bitonic_keys(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_keys<K>(n, d, order, [&](auto f, auto l, bc::command_queue& q) {
        clprim::bitonic_sort(f, l, q, order, clprim::bitonic_variant::fused);
    }, label);
}

template <class K, class V>
void bitonic_pairs(std::size_t n, distribution d, clprim::sort_order order, const std::string& label)
{
    check_sorted_pairs<K, V>(n, d, order, false, [&](auto kf, auto kl, auto vf, bc::command_queue& q) {
        clprim::bitonic_sort_by_key(kf, kl, vf, q, order, clprim::bitonic_variant::fused);
    }, label);
}

// The one order each key type runs in on the bitonic GPU path: int, ulong, float ascending;
// uint, long, double descending.
template <class K>
clprim::sort_order bitonic_order_of()
{
    const bool asc = std::is_same_v<K, cl_int> || std::is_same_v<K, cl_ulong> || std::is_same_v<K, cl_float>;
    return asc ? clprim::sort_order::ascending : clprim::sort_order::descending;
}

constexpr clprim::sort_order both_orders[] = {clprim::sort_order::ascending, clprim::sort_order::descending};

// The distributions that stress a path: random, duplicates (stability), all equal (skipped
// radix passes), the extremes and float specials (the total order).
const std::vector<distribution>& path_distributions()
{
    static const std::vector<distribution> d{distribution::random, distribution::few_distinct, distribution::all_equal,
                                             distribution::extremes, distribution::float_specials,
                                             distribution::reversed};
    return d;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(sort_paths, fixture)

// The radix sort's CPU path on this device, its default shape: every type, both orders, the
// sizes and distributions above.
BOOST_AUTO_TEST_CASE_TEMPLATE(radix_cpu_path_keys, K, all_types)
{
    if (!type_runs_here<K>()) return;
    env_override path("CLPRIM_RADIX_PATH", "cpu");
    env_override tune("CLPRIM_RADIX_CPU_TUNE", nullptr);
    for (auto order : both_orders)
        for (auto n : path_sizes())
            for (auto d : path_distributions()) radix_keys<K>(n, d, order, "radix cpu");
}

// The CPU path's shapes: digit widths (4, 8, 11 bits: 32-bit keys in 8, 4, 3 passes, the last
// digit narrower), chunk counts that do not divide n, write-combining lines of several lengths.
BOOST_AUTO_TEST_CASE(radix_cpu_path_shapes)
{
    env_override path("CLPRIM_RADIX_PATH", "cpu");
    const bool cpu = on_cpu();
    for (const char* shape : {"4,3,0", "8,5,0", "8,7,16", "11,3,8", "11,2,0", "8,1,4"}) {
        // Write-combining lines (a non-zero third field) are per-work-item buffers sized for a
        // CPU's cache; on the H100 their private memory makes the launch fail with
        // CL_OUT_OF_RESOURCES, so GPUs run the CPU path's other shapes only.
        if (!cpu && shape[std::strlen(shape) - 1] != '0') continue;
        env_override tune("CLPRIM_RADIX_CPU_TUNE", shape);
        const std::string label = std::string("radix cpu ") + shape;
        for (auto order : both_orders)
            for (std::size_t n : {std::size_t(2), std::size_t(4097), std::size_t(40009), std::size_t(65537)}) {
                radix_keys<cl_uint>(n, distribution::random, order, label);
                radix_keys<cl_float>(n, distribution::float_specials, order, label);
                radix_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order, label);
                if (type_runs_here<cl_ulong>()) {
                    radix_keys<cl_long>(n, distribution::extremes, order, label);
                    radix_pairs<cl_ulong, cl_uint>(n, distribution::few_distinct, order, label);
                    radix_pairs<cl_uint, cl_ulong>(n, distribution::random, order, label);
                }
            }
    }
}

// sort_by_key on the CPU path with every value type beside a spread of key types.
BOOST_AUTO_TEST_CASE(radix_cpu_path_pairs)
{
    env_override path("CLPRIM_RADIX_PATH", "cpu");
    env_override tune("CLPRIM_RADIX_CPU_TUNE", nullptr);
    for (auto order : both_orders)
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(10007), std::size_t(65537)})
            for (auto d : {distribution::few_distinct, distribution::all_equal, distribution::random}) {
                radix_pairs<cl_uint, cl_uint>(n, d, order, "radix cpu");
                radix_pairs<cl_int, cl_float>(n, d, order, "radix cpu");
                radix_pairs<cl_float, cl_int>(n, d, order, "radix cpu");
                if (type_runs_here<cl_ulong>()) {
                    radix_pairs<cl_uint, cl_ulong>(n, d, order, "radix cpu");
                    radix_pairs<cl_long, cl_long>(n, d, order, "radix cpu");
                    radix_pairs<cl_ulong, cl_uint>(n, d, order, "radix cpu");
                }
                if (type_runs_here<cl_double>()) {
                    radix_pairs<cl_double, cl_double>(n, d, order, "radix cpu");
                    radix_pairs<cl_uint, cl_double>(n, d, order, "radix cpu");
                }
            }
}

// The GPU (work-group tile) radix path forced on this device, so a CPU device still tests it.
BOOST_AUTO_TEST_CASE(radix_multipass_path)
{
    env_override path("CLPRIM_RADIX_PATH", "multipass");
    for (auto order : both_orders)
        for (std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(10007), std::size_t(65537)}) {
            radix_keys<cl_uint>(n, distribution::random, order, "radix multipass");
            radix_keys<cl_float>(n, distribution::float_specials, order, "radix multipass");
            radix_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order, "radix multipass");
        }
}

// Past 2^20: many chunks of the default shape, a partial last chunk.
BOOST_AUTO_TEST_CASE(radix_cpu_path_large)
{
    env_override path("CLPRIM_RADIX_PATH", "cpu");
    const std::size_t n = (std::size_t(1) << 20) + 3;
    radix_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending, "radix cpu 2^20+3");
    radix_keys<cl_float>(n, distribution::float_specials, clprim::sort_order::descending, "radix cpu 2^20+3");
    radix_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::ascending, "radix cpu 2^20+3");
    if (type_runs_here<cl_ulong>())
        radix_pairs<cl_ulong, cl_uint>(n, distribution::random, clprim::sort_order::descending, "radix cpu 2^20+3");
}

// The merge sort's CPU path: every type, both orders, the sizes and distributions above.
BOOST_AUTO_TEST_CASE_TEMPLATE(merge_cpu_path_keys, K, all_types)
{
    if (!type_runs_here<K>()) return;
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    env_override tune("CLPRIM_MERGE_CPU_TUNE", nullptr);
    for (auto order : both_orders)
        for (auto n : path_sizes())
            for (auto d : path_distributions()) merge_keys<K>(n, d, order, "merge cpu");
}

// Shapes: chunk counts (1: no round; 3 and 7: rounds whose pieces span pairs of runs and an odd
// run left over), runs of 1 (no insertion sort) and 32 keys. The run length is a build option, so
// each shape is a program per key/value type and order that PoCL builds: the shapes run on uint
// keys, and the pairs of every width on one shape whose run length is the default (7 chunks,
// runs of 16: the key programs are merge_cpu_path_keys' own).
BOOST_AUTO_TEST_CASE(merge_cpu_path_shapes_and_pairs)
{
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    const std::vector<std::size_t> sizes{2, 33, 4097, 40009};
    for (const char* shape : {"1,16", "3,1", "7,32", "16,8"}) {
        env_override tune("CLPRIM_MERGE_CPU_TUNE", shape);
        const std::string label = std::string("merge cpu ") + shape;
        for (auto order : both_orders)
            for (std::size_t n : sizes) merge_keys<cl_uint>(n, distribution::random, order, label);
    }
    {
        env_override tune("CLPRIM_MERGE_CPU_TUNE", "7,16");
        for (auto order : both_orders)
            for (std::size_t n : sizes) {
                const std::string label = "merge cpu 7,16";
                merge_keys<cl_float>(n, distribution::float_specials, order, label);
                merge_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order, label);
                merge_pairs<cl_int, cl_float>(n, distribution::all_equal, order, label);
                if (type_runs_here<cl_ulong>()) {
                    merge_pairs<cl_ulong, cl_uint>(n, distribution::few_distinct, order, label);
                    merge_pairs<cl_uint, cl_long>(n, distribution::random, order, label);
                }
                if (type_runs_here<cl_double>()) merge_pairs<cl_double, cl_double>(n, distribution::few_distinct, order, label);
            }
    }
    env_override tune("CLPRIM_MERGE_CPU_TUNE", nullptr);
    const std::size_t n = (std::size_t(1) << 20) + 3;
    merge_keys<cl_uint>(n, distribution::random, clprim::sort_order::ascending, "merge cpu 2^20+3");
    merge_pairs<cl_float, cl_uint>(n, distribution::float_specials, clprim::sort_order::descending, "merge cpu 2^20+3");
}

// The GPU (work-group tile) merge path forced on this device: its default tiles, and tiles of
// 32 x 5 keys (a few thousand keys take several merge rounds; test_merge_sort has more shapes).
BOOST_AUTO_TEST_CASE(merge_gpu_path)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    for (const char* shape : {static_cast<const char*>(nullptr), "32,5"}) {
        env_override tune("CLPRIM_MERGE_GPU_TUNE", shape);
        const std::string label = std::string("merge gpu ") + (shape ? shape : "default");
        // The default shape with keys and pairs in both orders; 32 x 5 (another build) on fewer
        // programs: test_merge_sort runs the tile shapes over every type.
        for (auto order : both_orders)
            for (std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(10007), std::size_t(65537)}) {
                merge_keys<cl_uint>(n, distribution::random, order, label);
                if (shape) continue;
                merge_keys<cl_float>(n, distribution::float_specials, order, label);
                merge_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order, label);
            }
        if (shape)
            for (std::size_t n : {std::size_t(257), std::size_t(10007)})
                merge_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, clprim::sort_order::descending, label);
    }
    // With values the tile sort may be the one built for twice the rounds' work-group
    // (merge_tile_sort_wide: GPUs whose driver reports less for the plain kernel); forced here, where
    // the device would not pick it. 10007 and 65537 pairs fill its tiles (2816 < n).
    env_override wide("CLPRIM_MERGE_WIDE", "on");
    for (auto order : both_orders)
        for (std::size_t n : {std::size_t(2817), std::size_t(10007), std::size_t(65537)})
            merge_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order, "merge gpu wide tile sort");
}

// The bitonic fused variant's GPU path with groups of 64 elements (4 work-items of 16 registers)
// and 2-element columns: 4097 keys (padded to 2^13) take stages 7..13 with one or two rows
// launches each (up to 5 row bits, chunks of 4 and 1, read and written directly) and a tile
// launch (chunks through local memory). Every type, sizes 0, 1, primes, 2^k +- 1; one order per
// type (both for 4- and 8-byte keys): each (type, order) is a program PoCL builds, for each
// work-group size, which is most of this suite's time there.
BOOST_AUTO_TEST_CASE_TEMPLATE(bitonic_gpu_path_keys, K, all_types)
{
    if (!type_runs_here<K>()) return;
    env_override path("CLPRIM_BITONIC_PATH", "gpu");
    env_override tune("CLPRIM_BITONIC_TUNE", "6,1");
    const auto order = bitonic_order_of<K>();
    for (std::size_t n : {0, 1, 2, 3, 31, 63, 65, 257, 1021, 4097})
        for (auto d : {distribution::random, distribution::few_distinct, distribution::reversed, distribution::extremes,
                       distribution::float_specials})
            bitonic_keys<K>(n, d, order, "bitonic gpu 6,1");
}

// Shapes: "6,3" (3 row bits, fewer than a work-item's 4 register bits: the first chunk of a rows
// launch mixes row and column bits), "9,2" (7 row bits: chunks of 4 and 3); with values, 64-bit
// keys and values; then the default shape past one tile of 2^13 (rows launches of full width).
BOOST_AUTO_TEST_CASE(bitonic_gpu_path_shapes_and_pairs)
{
    env_override path("CLPRIM_BITONIC_PATH", "gpu");
    const auto asc = clprim::sort_order::ascending, desc = clprim::sort_order::descending;
    // Each (shape, key type, value type, order) is a program; PoCL takes about ten seconds to
    // build one, so CPU devices split the key and value types between the two shapes (each shape
    // still sorts keys alone and pairs, 4- and 8-byte keys); GPUs run every type on both.
    const bool all = !on_cpu();
    for (const char* shape : {"6,3", "9,2"}) {
        env_override tune("CLPRIM_BITONIC_TUNE", shape);
        const std::string label = std::string("bitonic gpu ") + shape;
        const bool first = shape[0] == '6';
        for (std::size_t n : {std::size_t(2), std::size_t(33), std::size_t(4093), std::size_t(10007)}) {
            bitonic_keys<cl_uint>(n, distribution::random, bitonic_order_of<cl_uint>(), label);
            if (all || first) bitonic_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, asc, label);
            if (all || !first) bitonic_pairs<cl_float, cl_long>(n, distribution::float_specials, desc, label);
            if (type_runs_here<cl_ulong>()) {
                if (all || first) bitonic_keys<cl_long>(n, distribution::extremes, bitonic_order_of<cl_long>(), label);
                if (all || !first) bitonic_pairs<cl_ulong, cl_float>(n, distribution::few_distinct, desc, label);
            }
        }
    }
    env_override tune("CLPRIM_BITONIC_TUNE", nullptr);
    bitonic_keys<cl_uint>(65537, distribution::random, bitonic_order_of<cl_uint>(), "bitonic gpu 65537");
    bitonic_pairs<cl_float, cl_long>(65537, distribution::float_specials, desc, "bitonic gpu 65537");
}

BOOST_AUTO_TEST_SUITE_END()
