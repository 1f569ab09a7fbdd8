// merge / merge_by_key against std::merge with the total order (stable: the first range's equal
// keys first), bit for bit: every key type, both orders, either range empty, ties and float
// specials; inputs and outputs as sub-ranges of one buffer between guards; both paths forced
// (CLPRIM_MERGE_PATH=cpu|gpu, tiny GPU tiles so a few thousand keys span many tiles); values of
// every width following their keys; overlapping outputs rejected before anything runs; an
// out-of-order queue.
#define BOOST_TEST_MODULE clprim_merge
#include "merge_test_checks.hpp"

using namespace clprim_test;
using namespace clprim_test::merge_checks;

BOOST_FIXTURE_TEST_SUITE(merge, fixture)

// Every key type, both orders, on the path the device takes.
BOOST_AUTO_TEST_CASE_TEMPLATE(keys_default_path, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : {order_t::ascending, order_t::descending}) keys_matrix<T>(order, queue);
}

BOOST_AUTO_TEST_CASE(larger_sizes)
{
    const std::size_t big = std::size_t(1) << (on_gpu() ? 24 : 20);
    check_merge<cl_uint>(big, big + 3, distribution::random, order_t::ascending, queue);
    check_merge<cl_float>(big - 1, 1000, distribution::float_specials, order_t::descending, queue);
    check_pairs<cl_uint, cl_uint>(big + 1, big / 3, distribution::few_distinct, order_t::ascending, queue);
}

// Both paths forced: the CPU one (one co-rank piece per work-item, few pieces and many), the GPU
// one with tiny tiles (4 x 3 = 12 outputs per work-group: thousands of tiles, ragged last tile)
// and with its default shape.
BOOST_AUTO_TEST_CASE(paths_forced)
{
    const bool fp64 = type_runs_here<cl_double>();
    {
        env_override path("CLPRIM_MERGE_PATH", "gpu");
        {
            env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
            keys_matrix<cl_uint>(order_t::ascending, queue);
            keys_matrix<cl_float>(order_t::descending, queue);
            keys_matrix<cl_long>(order_t::ascending, queue);
            if (fp64) keys_matrix<cl_double>(order_t::descending, queue);
            for (auto s : size_pairs) {
                check_pairs<cl_uint, cl_uint>(s.first, s.second, distribution::few_distinct, order_t::descending, queue);
                check_pairs<cl_float, cl_ulong>(s.first, s.second, distribution::float_specials, order_t::ascending, queue);
            }
        }
        keys_matrix<cl_uint>(order_t::ascending, queue);
        check_pairs<cl_uint, cl_uint>(65537, 30011, distribution::few_distinct, order_t::descending, queue);
        check_pairs<cl_int, cl_uint>((1u << 18) + 3, 77777, distribution::few_distinct, order_t::ascending, queue);
    }
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    for (const char* tune : {"1,16", "7,16"}) {
        env_override t("CLPRIM_MERGE_CPU_TUNE", tune);
        keys_matrix<cl_int>(order_t::descending, queue);
        for (auto s : size_pairs)
            check_pairs<cl_uint, cl_uint>(s.first, s.second, distribution::few_distinct, order_t::ascending, queue);
    }
}

// The GPU rounds' kernel (merge_stream) in several shapes: one tile per work-group and many, a
// ragged tile count (3), searches of one, two and many probes per step, and the split kernels
// (CLPRIM_MERGE_STREAM=0), a work-group capped below the tile sort's (5,3,2); tiles of 4 x 3 keys so that a
// few thousand keys take hundreds of steps.
BOOST_AUTO_TEST_CASE(stream_shapes_forced)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* stream : {"1,1", "3,2", "64,16", "5,3,2", "0"}) {
        env_override st("CLPRIM_MERGE_STREAM", stream);
        for (auto s : size_pairs)
            for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal})
                check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, queue);
        check_merge<cl_float>(4095, 4097, distribution::float_specials, order_t::descending, queue);
        check_pairs<cl_uint, cl_ulong>(4095, 4097, distribution::few_distinct, order_t::descending, queue);
        check_pairs<cl_ulong, cl_uint>(1000, 17, distribution::random, order_t::ascending, queue);
    }
    // Work-groups per compute unit instead of tiles (spans of any length, a ragged last step in
    // every work-group).
    for (const char* groups : {"1", "3"}) {
        env_override g("CLPRIM_MERGE_STREAM_GROUPS", groups);
        for (auto s : size_pairs) check_merge<cl_uint>(s.first, s.second, distribution::few_distinct, order_t::ascending, queue);
        check_pairs<cl_uint, cl_ulong>(4095, 4097, distribution::random, order_t::descending, queue);
    }
    // Probes wider than the work-group (work-items take several), default tiles.
    env_override st("CLPRIM_MERGE_STREAM", "5,100");
    check_merge<cl_uint>(65537, 30011, distribution::random, order_t::ascending, queue);
}

// The split searches before merge_global (CLPRIM_MERGE_SPLIT="probes,items,samples,group"): the
// binary merge_partition (0), merge_partition_search without samples and with few (brackets
// many keys wide) or many (narrow) per run, from the work-group's piece of both runs (a sixth
// number 1 or 2) or from the whole runs (the default), probes shared by work-items (4,4), a work-item's
// own k-ary probes (3,1), tiny work-groups, and the partition hidden behind merging (a fifth
// number: merge_global_split), the whole runs' samples gathered first (a seventh: merge_split_gather,
// every 2nd or 8th key; whole-run samples or the pieces' from them); tiles of 4 x 3 keys, so
// thousands of tile starts.
BOOST_AUTO_TEST_CASE(split_searches_forced)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    const std::vector<std::pair<std::size_t, std::size_t>> sizes{{0, 1}, {1, 0}, {2, 3}, {17, 1000}, {1000, 17}, {4095, 4097}, {65537, 30011}};
    const char* splits[] = {"0", "1,1,0", "1,1,8", "1,1,8,4", "3,1,16,8", "4,4,8,8", "4,4,4096,4", "1,1,8,4,16", "4,4,8,8,40",
                            "0,1,0,128,32", "1,1,8,4,0,1", "4,4,16,16,8,1", "1,1,8,4,0,2", "4,4,64,8,16,2",
                            "1,1,8,4,0,0,2", "4,4,64,8,0,0,8", "1,1,16,8,0,2,2"};
    for (std::size_t si = 0; si < std::size(splits); ++si) {
        env_override sp("CLPRIM_MERGE_SPLIT", splits[si]);
        for (auto s : sizes)
            for (auto d : {distribution::random, distribution::all_equal})
                check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, queue);
        // The other order and key and value types on every other variant: each kind of search
        // (binary, probes and items, the lead, exact ends, windows, the gathered samples) is among
        // them, and each type is a program of its own to build on PoCL.
        if (si % 2) continue;
        check_merge<cl_uint>(65537, 30011, distribution::few_distinct, order_t::descending, queue);
        check_merge<cl_float>(4095, 4097, distribution::float_specials, order_t::descending, queue);
        check_pairs<cl_uint, cl_ulong>(4095, 4097, distribution::few_distinct, order_t::descending, queue);
        check_pairs<cl_ulong, cl_uint>(30011, 1000, distribution::random, order_t::ascending, queue);
    }
}

// The partition's window searches of session 8 (#30): k-ary steps in the piece's window (all of
// them: "15,1,...,0,2"; the first one or two, then binary: an eighth number), the sample brackets
// one after the other (-DMERGE_SPLIT_PAIRED=0) or side by side (the default), a partition
// work-group of one (work-item 0 windows both ends), the flushes (CLPRIM_MERGE_FLUSH) and the
// arguments' memo (CLPRIM_MERGE_ARGS), on tiles
// of 4 x 3 keys: sizes around the tile and the sample windows, adversarial splits (all of one range
// before the other, interleaved, all keys equal, one range much longer, one empty), both orders,
// keys and values, an out-of-order queue.
BOOST_AUTO_TEST_CASE(split_windows_forced)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    std::vector<std::pair<std::size_t, std::size_t>> sizes(size_pairs.begin(), size_pairs.end());
    for (std::size_t n : {11, 12, 13, 47, 48, 49, 767, 768, 769, 3073})
        for (std::size_t n1 : {std::size_t(0), n / 3, n / 2, n - 1}) sizes.emplace_back(n1, n - n1);
    const char* variants[][3] = {{"15,1,8,4,0,2", "", "0"},
                                 {"7,1,16,8,0,2,0,1", "", "1"},
                                 {"3,1,8,4,0,2,0,2", " -DMERGE_SPLIT_PAIRED=0", "3"},
                                 {"1,1,8,1,0,2", "", "2"}};
    for (std::size_t vi = 0; vi < std::size(variants); ++vi) {
        const auto& v = variants[vi];
        env_override sp("CLPRIM_MERGE_SPLIT", v[0]);
        env_override op("CLPRIM_MERGE_OPTIONS", v[1]);
        env_override fl("CLPRIM_MERGE_FLUSH", v[2]);
        for (auto s : sizes)
            for (auto d : {distribution::random, distribution::all_equal})
                check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, queue);
        adversarial_splits(queue);
        if (vi % 2) continue; // the other order on two of them, 64-bit keys with values on one (fewer builds)
        check_merge<cl_uint>(20000, 5, distribution::few_distinct, order_t::descending, queue);
        if (vi > 0) continue;
        check_pairs<cl_ulong, cl_uint>(3001, 1000, distribution::random, order_t::ascending, queue);
        check_pairs<cl_ulong, cl_uint>(4095, 4097, distribution::few_distinct, order_t::ascending, queue);
    }
    // The kernels' arguments set only where they changed (CLPRIM_MERGE_ARGS, the default) between
    // calls of other sizes, offsets and orders, and in full in between (the memo forgets then).
    // (on variant 0's split search: its programs are built already)
    env_override sp0("CLPRIM_MERGE_SPLIT", variants[0][0]);
    const std::pair<std::size_t, std::size_t> shapes[] = {{1000, 501}, {333, 1000}, {4095, 4097}};
    std::size_t turn = 0;
    for (const char* args : {"changed", "all", "changed", "changed", "all", "changed"}) {
        env_override m("CLPRIM_MERGE_ARGS", args);
        for (std::size_t i = 0; i < 2; ++i, ++turn) // each block ends on another shape than the one before
            check_merge<cl_uint>(shapes[turn % 3].first, shapes[turn % 3].second, distribution::random, order_t::ascending, queue);
    }
    // The flushes, also on an out-of-order queue.
    env_override fl("CLPRIM_MERGE_FLUSH", "3");
    check_merge<cl_uint>(65537, 30011, distribution::random, order_t::ascending, queue);
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    check_merge<cl_uint>(1000, 501, distribution::random, order_t::ascending, ooo);
    check_pairs<cl_ulong, cl_uint>(333, 1000, distribution::few_distinct, order_t::ascending, ooo);
}

// The persistent walk (CLPRIM_MERGE_WALK="per_cu[,probes[,tiles[,stage[,async]]]]", merge_walk.cl) on
// tiles of 4 x 3 keys: work-groups per compute unit (spans spread evenly), a given count of tiles
// per work-group (1, 3: sizes around the tile T = 12 and the span C = 36 and their multiples),
// binary and many-probe start searches, outputs staged in a tile of their own (stage 1), the next
// windows double-buffered in local memory (async 1; cp.async on NVIDIA), both;
// adversarial splits: all of the first range before the second, all after, interleaved, all keys
// equal, one range much longer; keys and values (32-bit indices, 64-bit keys), both orders; an
// out-of-order queue.
BOOST_AUTO_TEST_CASE(walk_forced)
{
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    env_override tune("CLPRIM_MERGE_GPU_TUNE", "4,3");
    std::vector<std::pair<std::size_t, std::size_t>> sizes(size_pairs.begin(), size_pairs.end() - 1);
    for (std::size_t n : {11, 12, 13, 35, 36, 37, 71, 72, 73, 108, 109})
        for (std::size_t n1 : {std::size_t(0), n / 3, n / 2, n - 1}) sizes.emplace_back(n1, n - n1);
    for (const char* walk : {"1", "3,1", "2,32,1", "1,32,3", "1,1,1000", "2,32,0,1", "1,1,3,1", "1,32,3,0,1", "2,1,0,1,1"}) {
        env_override w("CLPRIM_MERGE_WALK", walk);
        for (auto s : sizes)
            for (auto d : {distribution::random, distribution::all_equal})
                check_merge<cl_uint>(s.first, s.second, d, order_t::ascending, queue);
        adversarial_splits(queue);
        // Other key types and values on four of the shapes (fewer programs to build).
        if (std::strcmp(walk, "1") != 0 && std::strcmp(walk, "1,1,3,1") != 0 && std::strcmp(walk, "1,32,3,0,1") != 0 &&
            std::strcmp(walk, "2,1,0,1,1") != 0)
            continue;
        check_merge<cl_float>(4095, 4097, distribution::float_specials, order_t::descending, queue);
        check_merge<cl_ulong>(1000, 1017, distribution::random, order_t::ascending, queue);
        check_pairs<cl_uint, cl_uint>(4095, 4097, distribution::few_distinct, order_t::descending, queue);
        check_pairs<cl_uint, cl_ulong>(73, 36, distribution::all_equal, order_t::ascending, queue);
        check_pairs<cl_ulong, cl_uint>(3001, 1000, distribution::random, order_t::ascending, queue);
    }
    env_override w("CLPRIM_MERGE_WALK", "2");
    check_merge<cl_uint>(65537, 30011, distribution::few_distinct, order_t::descending, queue);
    // An out-of-order queue (the register and the double-buffered windows).
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (const char* walk : {"1,32,3", "1,32,3,0,1"}) {
        env_override w2("CLPRIM_MERGE_WALK", walk);
        check_merge<cl_uint>(1000, 501, distribution::random, order_t::ascending, ooo);
        check_pairs<cl_uint, cl_uint>(333, 1000, distribution::few_distinct, order_t::descending, ooo);
    }
}

// Values of every width follow their keys (on the device's own path).
BOOST_AUTO_TEST_CASE(merge_by_key_types)
{
    const bool fp64 = type_runs_here<cl_double>();
    for (auto order : {order_t::ascending, order_t::descending})
        for (auto s : size_pairs) {
            check_pairs<cl_uint, cl_uint>(s.first, s.second, distribution::few_distinct, order, queue);
            check_pairs<cl_int, cl_ulong>(s.first, s.second, distribution::all_equal, order, queue);
            check_pairs<cl_float, cl_long>(s.first, s.second, distribution::float_specials, order, queue);
            check_pairs<cl_ulong, cl_float>(s.first, s.second, distribution::few_distinct, order, queue);
            if (fp64) check_pairs<cl_double, cl_int>(s.first, s.second, distribution::float_specials, order, queue);
        }
}

BOOST_AUTO_TEST_CASE(overlapping_outputs_throw)
{
    std::vector<cl_uint> h(100);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = cl_uint(i % 10);
    auto v = to_device(h, queue);
    bc::vector<cl_uint> vals(100, context);
    bc::vector<cl_uint> out(100, context);
    bc::vector<cl_uint> out_v(100, context);
    auto b = v.begin();
    // result over the first range, over the second, partly over the end of the first.
    BOOST_CHECK_THROW(clprim::merge(b, b + 10, b + 20, b + 30, b, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge(b, b + 10, b + 20, b + 30, b + 15, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge(b, b + 10, b + 20, b + 30, b + 9, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge(b + 10, b + 5, b + 20, b + 30, out.begin(), queue), clprim::invalid_argument_error);
    // too small an output buffer
    BOOST_CHECK_THROW(clprim::merge(b, b + 60, b + 60, b + 100, out.begin() + 1, queue), clprim::invalid_argument_error);
    // merge_by_key: values output over the keys output, over an input's values
    auto vb = vals.begin();
    BOOST_CHECK_THROW(clprim::merge_by_key(b, b + 10, vb, b + 10, b + 20, vb + 10, out.begin(), out.begin() + 5, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::merge_by_key(b, b + 10, vb, b + 10, b + 20, vb + 10, out.begin(), vb + 15, queue),
                      clprim::invalid_argument_error);
    // Adjacent but not overlapping is fine; nothing above changed the data.
    clprim::merge(b, b + 10, b + 10, b + 20, out.begin(), queue);
    clprim::merge_by_key(b, b + 10, vb, b + 10, b + 20, vb + 10, out.begin(), out_v.begin(), queue);
    BOOST_TEST(bit_equal(to_host(v, queue), h));
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (std::size_t n : {1000u, 70001u}) {
        check_merge<cl_uint>(n, n / 2 + 1, distribution::random, order_t::ascending, ooo);
        check_pairs<cl_uint, cl_uint>(n / 3, n, distribution::few_distinct, order_t::descending, ooo);
    }
}

BOOST_AUTO_TEST_SUITE_END()
