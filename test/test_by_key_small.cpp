// The by-key family's one-work-group path (primitives/by_key_small.cl), forced on every device
// (CLPRIM_BY_KEY_SMALL): reduce_by_key, the scans by key, run_length_encode, unique and
// partition_copy against host references at n = 1, 2, primes, the threshold - 1 / threshold /
// threshold + 1 (the last takes the device-wide path); every key type, cross value types,
// operators (max, a non-commutative one), float keys by their bits, runs of 1 / 1-15 / one run,
// the count overloads, results with guards, results too small, sub-ranges, an out-of-order
// queue, and a profiling queue that shows which kernel ran.
#define BOOST_TEST_MODULE clprim_by_key_small
#include "by_key_test_checks.hpp"
#include "host_operators.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <clprim/detail/kernel_launch.hpp>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(bool, small_odd, (cl_uint x), { return (x & 1u) != 0; });

// The sizes around a threshold of `most` elements (the last one past it).
std::vector<std::size_t> sizes_for(std::size_t most)
{
    std::vector<std::size_t> s{1, 2, 3, 31, 97, 255, 256, 257, 1021, 1024};
    for (std::size_t& x : s) x = std::min(x, most);
    s.push_back(most - 1);
    s.push_back(most);
    s.push_back(most + 1);
    return s;
}

template <class K, class V>
void reduce_sums(bc::command_queue& queue, const std::vector<std::size_t>& sizes, const std::string& tag)
{
    if (!type_runs_here<K>() || !type_runs_here<V>()) return;
    for (std::size_t n : sizes)
        for (const auto& s : run_shapes()) {
            const auto keys = run_keys<K>(n, std::min(s.min_run, n), std::min(s.max_run, n));
            check_reduce<K, V>(queue, keys, small_values<V>(n), true, bc::plus<V>(), add_wrap<V>, V(0),
                               tag + " " + type_label<K>() + "->" + type_label<V>() + " " + s.name);
        }
}

template <class T>
void rle_unique_shapes(bc::command_queue& queue, const std::vector<std::size_t>& sizes, const std::string& tag)
{
    if (!type_runs_here<T>()) return;
    for (std::size_t n : sizes)
        for (const auto& s : run_shapes())
            check_unique_rle<T>(queue, run_keys<T>(n, std::min(s.min_run, n), std::min(s.max_run, n)),
                                tag + " " + type_label<T>() + " " + s.name);
}

// The names of the kernels a call on a profiling queue ran.
template <class Call>
std::string kernels_of(bc::command_queue& pq, Call call)
{
    call(); // built before the record
    pq.finish();
    clprim::detail::kernel_profile(true);
    call();
    pq.finish();
    std::string names;
    for (const auto& t : clprim::detail::kernel_profile_report()) names += t.name + " ";
    clprim::detail::kernel_profile(false);
    return names;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(by_key_small, fixture)

// The path runs where the knob (or the policy) gives it the range, and not past its threshold,
// nor where a device-wide path is forced.
BOOST_AUTO_TEST_CASE(the_path_runs)
{
    bc::command_queue pq(context, device, CL_QUEUE_PROFILING_ENABLE);
    auto keys = to_device(run_keys<cl_uint>(1000, 1, 15), pq);
    auto vals = to_device(small_values<cl_uint>(1000), pq);
    bc::vector<cl_uint> ok(1000, context), ov(1000, context);
    auto call = [&] { clprim::reduce_by_key(keys.begin(), keys.end(), vals.begin(), ok.begin(), ov.begin(), pq); };
    {
        env_override on("CLPRIM_BY_KEY_SMALL", "4096");
        BOOST_TEST(kernels_of(pq, call).find("by_key_small") != std::string::npos);
        env_override path("CLPRIM_BY_KEY_PATH", "lookback");
        BOOST_TEST(kernels_of(pq, call).find("by_key_small") == std::string::npos);
    }
    {
        env_override on("CLPRIM_BY_KEY_SMALL", "999");
        BOOST_TEST(kernels_of(pq, call).find("by_key_small") == std::string::npos);
    }
    env_override off("CLPRIM_BY_KEY_SMALL", "0");
    BOOST_TEST(kernels_of(pq, call).find("by_key_small") == std::string::npos);
}

// Every key type with uint values, every run shape, around the default threshold (4096 = 256 x
// 16); uint around a small work-group's (64 = 32 x 2: rows of 1 and 2 a work-item).
BOOST_AUTO_TEST_CASE(reduce_by_key_every_key_type)
{
    for (const char* shape : {"4096", "64,32"}) {
        env_override on("CLPRIM_BY_KEY_SMALL", shape);
        const std::size_t most = std::string(shape) == "4096" ? 4096 : 64;
        const auto sizes = sizes_for(most);
        const std::string tag = shape;
        reduce_sums<cl_uint, cl_uint>(queue, sizes, tag);
        if (most == 64) continue; // (the small group: uint alone, fewer builds on GPUs)
        const std::vector<std::size_t> few{1, 2, 97, most - 1, most}; // (most + 1: uint above)
        reduce_sums<cl_char, cl_uint>(queue, few, tag);
        reduce_sums<cl_uchar, cl_uint>(queue, few, tag);
        reduce_sums<cl_short, cl_uint>(queue, few, tag);
        reduce_sums<cl_ushort, cl_uint>(queue, few, tag);
        reduce_sums<cl_int, cl_uint>(queue, few, tag);
        reduce_sums<cl_long, cl_uint>(queue, few, tag);
        reduce_sums<cl_ulong, cl_uint>(queue, few, tag);
        reduce_sums<cl_float, cl_uint>(queue, few, tag);
        reduce_sums<cl_double, cl_uint>(queue, few, tag);
    }
}

// Kernels fitted to n (CLPRIM_BY_KEY_SMALL_FIT=1: 4, 8 or 16 elements a work-item unrolled)
// instead of the one of 16 for every size.
BOOST_AUTO_TEST_CASE(fitted_rows)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    env_override fit("CLPRIM_BY_KEY_SMALL_FIT", "1");
    const std::vector<std::size_t> sizes{1, 2, 257, 1021, 1025, 2049, 4096};
    reduce_sums<cl_uint, cl_uint>(queue, sizes, "fitted");
    rle_unique_shapes<cl_uint>(queue, sizes, "fitted");
    for (std::size_t n : sizes)
        check_scans_with<cl_uint, cl_uint>(queue, run_keys<cl_uint>(n, 1, 15), small_values<cl_uint>(n), true,
                                           bc::plus<cl_uint>(), add_wrap<cl_uint>, 0u, 3u, "fitted");
}

// Value types of every size beside the keys (8-byte values: the scan's pairs of 12 bytes).
BOOST_AUTO_TEST_CASE(reduce_by_key_value_types)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    const std::vector<std::size_t> few{1, 257, 4095, 4096};
    reduce_sums<cl_uint, cl_double>(queue, few, "small");
    reduce_sums<cl_float, cl_long>(queue, few, "small");
    reduce_sums<cl_ulong, cl_float>(queue, few, "small");
    reduce_sums<cl_uint, cl_uchar>(queue, few, "small");
    reduce_sums<cl_short, cl_short>(queue, few, "small");
    reduce_sums<cl_double, cl_ulong>(queue, few, "small");
}

// Operators: max and a non-commutative one (order kept), reduce and both scans.
BOOST_AUTO_TEST_CASE(operators)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1021), std::size_t(4096), std::size_t(4097)}) {
        const auto keys = run_keys<cl_uint>(n, 1, 15);
        const std::vector<cl_uint> vals = make_data<cl_uint>(n, distribution::random);
        auto hmax = [](cl_uint a, cl_uint b) { return std::max(a, b); };
        check_reduce<cl_uint, cl_uint>(queue, keys, vals, false, bc::max<cl_uint>(), hmax, 0u, "max");
        check_reduce<cl_uint, cl_uint>(queue, keys, vals, false, affine_then, host_affine_then, affine_identity, "affine");
        check_scans_with<cl_uint, cl_uint>(queue, keys, vals, false, bc::max<cl_uint>(), hmax, 0u, 5u, "max");
        check_scans_with<cl_uint, cl_uint>(queue, keys, vals, false, affine_then, host_affine_then, affine_identity,
                                      (3u << 16) | 7u, "affine");
        const auto keys64 = run_keys<cl_ulong>(n, 1, 15);
        const std::vector<cl_ulong> vals64 = make_data<cl_ulong>(n, distribution::random);
        check_reduce<cl_ulong, cl_ulong>(queue, keys64, vals64, false, affine_then64, host_affine_then64, cl_ulong(1) << 32,
                                         "affine64");
    }
}

// Sum scans by key: key and value types, runs, in place, init.
BOOST_AUTO_TEST_CASE(scans_by_key)
{
    for (const char* shape : {"4096", "64,32"}) {
        env_override on("CLPRIM_BY_KEY_SMALL", shape);
        const std::size_t most = std::string(shape) == "4096" ? 4096 : 64;
        for (std::size_t n : sizes_for(most)) {
            for (const auto& s : run_shapes())
                check_scans_with<cl_uint, cl_uint>(queue, run_keys<cl_uint>(n, std::min(s.min_run, n), std::min(s.max_run, n)),
                                              small_values<cl_uint>(n), true, bc::plus<cl_uint>(), add_wrap<cl_uint>, 0u, 3u,
                                              std::string(shape) + " uint " + s.name);
            if (most == 64) continue; // (the small group: uint alone)
            check_scans_with<cl_float, cl_float>(queue, run_keys<cl_float>(n, 1, 15), small_values<cl_float>(n), true,
                                            bc::plus<cl_float>(), add_wrap<cl_float>, 0.0f, 0.5f, "float->float");
            if (type_runs_here<cl_double>())
                check_scans_with<cl_double, cl_double>(queue, run_keys<cl_double>(n, 1, 15), small_values<cl_double>(n), true,
                                                  bc::plus<cl_double>(), add_wrap<cl_double>, 0.0, 0.25, "double->double");
            check_scans_with<cl_long, cl_ulong>(queue, run_keys<cl_long>(n, 1, 15), small_values<cl_ulong>(n), true,
                                           bc::plus<cl_ulong>(), add_wrap<cl_ulong>, 0ul, 1ul, "long->ulong");
            check_scans_with<cl_uchar, cl_char>(queue, run_keys<cl_uchar>(n, 1, 15), small_values<cl_char>(n), true,
                                           bc::plus<cl_char>(), add_wrap<cl_char>, cl_char(0), cl_char(2), "uchar->char");
        }
    }
}

// run_length_encode and unique (where unique takes the by-key kernel), every element type.
BOOST_AUTO_TEST_CASE(run_length_and_unique)
{
    for (const char* shape : {"4096", "64,32"}) {
        env_override on("CLPRIM_BY_KEY_SMALL", shape);
        const std::size_t most = std::string(shape) == "4096" ? 4096 : 64;
        rle_unique_shapes<cl_uint>(queue, sizes_for(most), shape);
        if (most == 64) continue; // (the small group: uint alone)
        const std::vector<std::size_t> few{1, 2, 97, 1021}; // (up to the threshold and past it: uint above)
        rle_unique_shapes<cl_char>(queue, few, shape);
        rle_unique_shapes<cl_uchar>(queue, few, shape);
        rle_unique_shapes<cl_short>(queue, few, shape);
        rle_unique_shapes<cl_ushort>(queue, few, shape);
        rle_unique_shapes<cl_int>(queue, few, shape);
        rle_unique_shapes<cl_long>(queue, few, shape);
        rle_unique_shapes<cl_ulong>(queue, few, shape);
        rle_unique_shapes<cl_float>(queue, few, shape);
        rle_unique_shapes<cl_double>(queue, few, shape);
    }
}

// partition_copy and stable_partition where they take the by-key kernel.
BOOST_AUTO_TEST_CASE(partition)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    for (std::size_t n : sizes_for(4096)) {
        const std::vector<cl_uint> data = make_data<cl_uint>(n, distribution::random);
        std::vector<cl_uint> et, ef;
        for (cl_uint x : data) ((x & 1u) ? et : ef).push_back(x);
        auto d = to_device(data, queue);
        bc::vector<cl_uint> t = to_device(std::vector<cl_uint>(n + 2, 9u), queue), f = to_device(std::vector<cl_uint>(n + 2, 9u), queue);
        const std::size_t c = clprim::partition_copy(d.begin(), d.end(), t.begin() + 1, f.begin() + 1, queue, small_odd);
        BOOST_TEST(c == et.size(), "partition_copy n=" << n);
        const auto ht = to_host(t, queue), hf = to_host(f, queue);
        BOOST_TEST(bit_equal(std::vector<cl_uint>(ht.begin() + 1, ht.begin() + 1 + et.size()), et), "true group n=" << n);
        BOOST_TEST(bit_equal(std::vector<cl_uint>(hf.begin() + 1, hf.begin() + 1 + ef.size()), ef), "false group n=" << n);
        BOOST_TEST((ht.front() == 9u && ht[1 + et.size()] == 9u && hf.front() == 9u && hf[1 + ef.size()] == 9u),
                   "partition_copy n=" << n << ": wrote outside");
        const std::size_t s = clprim::stable_partition(d.begin(), d.end(), queue, small_odd);
        BOOST_TEST(s == et.size());
        std::vector<cl_uint> expected = et;
        expected.insert(expected.end(), ef.begin(), ef.end());
        BOOST_TEST(bit_equal(to_host(d, queue), expected), "stable_partition n=" << n);
    }
}

// Results too small for the runs: an error, nothing written past the room; and n = 0.
BOOST_AUTO_TEST_CASE(small_results_and_empty)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    std::vector<cl_uint> distinct(100);
    for (cl_uint i = 0; i < 100; ++i) distinct[i] = i;
    auto dk = to_device(distinct, queue);
    auto v = to_device(std::vector<cl_uint>(100, 1u), queue);
    bc::vector<cl_uint> room = to_device(std::vector<cl_uint>(12, 3u), queue);
    bc::vector<cl_uint> room2 = to_device(std::vector<cl_uint>(12, 3u), queue);
    BOOST_CHECK_THROW(clprim::reduce_by_key(dk.begin(), dk.end(), v.begin(), room.begin() + 1, room2.begin() + 1, queue),
                      clprim::invalid_argument_error);
    const auto h = to_host(room, queue), h2 = to_host(room2, queue);
    BOOST_TEST((h[0] == 3u && h2[0] == 3u));
    for (std::size_t i = 1; i < 12; ++i) BOOST_TEST((h[i] == cl_uint(i - 1) && h2[i] == 1u));
    BOOST_CHECK_THROW(clprim::run_length_encode(dk.begin(), dk.end(), room.begin() + 1, room2.begin() + 1, queue),
                      clprim::invalid_argument_error);
    bc::vector<cl_uint> ok(4, context), ov(4, context);
    BOOST_TEST(clprim::reduce_by_key(dk.begin(), dk.begin(), v.begin(), ok.begin(), ov.begin(), queue) == 0u);
    bc::vector<cl_ulong> c = to_device(std::vector<cl_ulong>{8}, queue);
    clprim::reduce_by_key(dk.begin(), dk.begin(), v.begin(), ok.begin(), ov.begin(), c.begin(), queue);
    BOOST_TEST(to_host(c, queue)[0] == 0u);
}

// Sub-ranges of larger buffers (keys, values and results at offsets) on an out-of-order queue.
BOOST_AUTO_TEST_CASE(sub_ranges_out_of_order_queue)
{
    env_override on("CLPRIM_BY_KEY_SMALL", "4096");
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(4096)}) check_sub_ranges(queue, ooo, n);
}

BOOST_AUTO_TEST_SUITE_END()
