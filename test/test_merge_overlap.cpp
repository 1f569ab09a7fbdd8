// The public merge's partition overlapped with merging in one launch (CLPRIM_MERGE_OVERLAP=
// searchers, merge_overlap.cl), against std::merge bit for bit: one searcher and several, more
// searchers than chunks, tiles of 4 x 3 keys (thousands of tile starts in chunks of four, far more
// work-groups than a device runs at once) and the default shape; the decoupled fallback taken by
// every merging work-group that finds a start missing (CLPRIM_LOOKBACK=fallback: one read, then
// its own search); sizes 0, 1, around the tile and the chunk, primes, 2^k +- 1; adversarial
// splits; every key width, both orders, values; sub-ranges between guards; the look-back epoch
// wrapping between calls; an out-of-order queue.
#define BOOST_TEST_MODULE clprim_merge_overlap
#include "merge_test_checks.hpp"

#include <clprim/detail/lookback_slots.hpp>

using namespace clprim_test;
using namespace clprim_test::merge_checks;

namespace {

// Sizes around the tile T = 12 and a chunk of four starts (48 outputs), split several ways.
std::vector<std::pair<std::size_t, std::size_t>> tiny_tile_sizes()
{
    std::vector<std::pair<std::size_t, std::size_t>> sizes(size_pairs.begin(), size_pairs.end());
    for (std::size_t n : {11, 12, 13, 47, 48, 49, 97, 191, 192, 193, 3073})
        for (std::size_t n1 : {std::size_t(0), n / 3, n / 2, n - 1}) sizes.emplace_back(n1, n - n1);
    return sizes;
}

void overlap_matrix(bc::command_queue& q, bool other_types)
{
    for (auto s : tiny_tile_sizes())
        for (auto d : {distribution::random, distribution::all_equal})
            check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, q);
    adversarial_splits(q);
    check_merge<cl_uint>(20000, 5, distribution::few_distinct, order_t::descending, q);
    if (!other_types) return;
    check_merge<cl_float>(4095, 4097, distribution::float_specials, order_t::descending, q);
    check_merge<cl_ulong>(1000, 1017, distribution::random, order_t::ascending, q);
    check_merge<cl_uchar>(3001, 999, distribution::few_distinct, order_t::ascending, q);
    check_pairs<cl_uint, cl_uint>(4095, 4097, distribution::few_distinct, order_t::descending, q);
    check_pairs<cl_ulong, cl_uint>(3001, 1000, distribution::random, order_t::ascending, q);
    check_pairs<cl_float, cl_ulong>(73, 36, distribution::float_specials, order_t::ascending, q);
    check_pairs<cl_uint, cl_uchar>(1000, 3001, distribution::few_distinct, order_t::ascending, q);
    check_pairs<cl_int, cl_ushort>(3001, 777, distribution::random, order_t::descending, q);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(merge_overlap, fixture)

// Tiles of 4 x 3: one searcher for every chunk (its chunks in turn), two, seven, and more than
// there are chunks, binary and 3- and 7-probe steps in the windows, the samples' loads 8 (the
// default), 1 and 16 at a time, all searchers starting at once or only the first one or two; the starts waited for (the default) and missing ones searched by the merging
// work-groups themselves (the fallback).
BOOST_AUTO_TEST_CASE(tiny_tiles)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* lookback : {"wait", "fallback"})
        for (const char* searchers : {"1", "2,3", "7,7,0,1,2", "4096,1,0,16,1"}) {
            // (the fallback on two of the shapes, the other types on the 3-probe windows waited for
            // and the 7-probe ones with the fallback: fewer programs to build)
            const bool fallback = std::strcmp(lookback, "fallback") == 0;
            if (fallback && (std::strcmp(searchers, "2,3") == 0 || std::strcmp(searchers, "4096,1,0,16,1") == 0))
                continue;
            env_override lb("CLPRIM_LOOKBACK", lookback);
            env_override o("CLPRIM_MERGE_OVERLAP", searchers);
            overlap_matrix(queue, std::strcmp(searchers, fallback ? "7,7,0,1,2" : "2,3") == 0);
        }
}

// Samples of the whole runs (ends 0) and exact ends (1) instead of the windows from samples (2,
// the default), and no samples at all: the searchers' other modes (CLPRIM_MERGE_SPLIT's third and
// sixth numbers).
BOOST_AUTO_TEST_CASE(searcher_modes)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    env_override o("CLPRIM_MERGE_OVERLAP", "3");
    for (const char* split : {"1,1,8,256,0,0", "1,1,16,256,0,1", "1,1,0", "1,1,8,256,0,2"}) {
        env_override sp("CLPRIM_MERGE_SPLIT", split);
        for (auto s : size_pairs)
            for (auto d : {distribution::random, distribution::few_distinct})
                check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, queue);
        adversarial_splits(queue);
    }
}

// The default shape (256 x 17 for 32-bit keys where the device allows): larger merges, several
// searchers, both lookback modes; keys and values; NVIDIA's shape for keys alone (256 x 19, the
// samples read 8 at a time) on every device; then the policy's own choice, no knob.
BOOST_AUTO_TEST_CASE(default_shape)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    const std::size_t big = std::size_t(1) << (on_gpu() ? 23 : 19);
    for (const char* lookback : {"wait", "fallback"})
        for (const char* searchers : {"1", "16"}) {
            env_override lb("CLPRIM_LOOKBACK", lookback);
            env_override o("CLPRIM_MERGE_OVERLAP", searchers);
            check_merge<cl_uint>(big, big + 3, distribution::random, order_t::ascending, queue);
            check_merge<cl_uint>(65537, 30011, distribution::few_distinct, order_t::descending, queue);
            check_merge<cl_uint>(big / 2 + 1, 7, distribution::random, order_t::ascending, queue);
            check_pairs<cl_uint, cl_uint>(big / 4 + 1, big / 3, distribution::few_distinct, order_t::ascending, queue);
        }
    {
        env_override tune("CLPRIM_MERGE_GPU_TUNE", "256,19");
        env_override o("CLPRIM_MERGE_OVERLAP", "16,1,0,8");
        check_merge<cl_uint>(big + 1, big - 1, distribution::random, order_t::ascending, queue);
        check_merge<cl_float>(65537, 30011, distribution::float_specials, order_t::descending, queue);
    }
    // The policy's own choice (on NVIDIA: this kernel for 32-bit keys past the walk's sizes and for
    // 32-bit keys with values up to 4 bytes), no knob.
    env_override none("CLPRIM_MERGE_OVERLAP", nullptr);
    check_merge<cl_uint>(big, big - 5, distribution::few_distinct, order_t::descending, queue);
    check_merge<cl_float>(big / 2, big / 2 + 1, distribution::float_specials, order_t::ascending, queue);
    check_pairs<cl_uint, cl_uchar>(4097, 65537, distribution::random, order_t::ascending, queue);
    check_pairs<cl_float, cl_ushort>(30011, 1000, distribution::float_specials, order_t::descending, queue);
    check_pairs<cl_int, cl_float>(big / 8, big / 8 + 7, distribution::few_distinct, order_t::ascending, queue);
}

// The look-back epoch wraps between two calls (the slots are zero-filled then); the calls
// before and after it and one of another shape in between read only their own starts.
BOOST_AUTO_TEST_CASE(epoch_wrap_and_out_of_order_queue)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    env_override o("CLPRIM_MERGE_OVERLAP", "2");
    clprim::detail::set_next_lookback_epoch(queue, clprim::detail::max_lookback_epoch - 1);
    for (int i = 0; i < 4; ++i) {
        check_merge<cl_uint>(1000 + 97 * i, 501, distribution::random, order_t::ascending, queue);
        check_merge<cl_uint>(30011, 65537, distribution::few_distinct, order_t::ascending, queue);
    }
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    check_merge<cl_uint>(1000, 501, distribution::random, order_t::ascending, ooo);
    check_pairs<cl_uint, cl_uint>(333, 1000, distribution::few_distinct, order_t::descending, ooo);
}

BOOST_AUTO_TEST_SUITE_END()
