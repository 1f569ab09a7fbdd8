// The radix sort's one-launch path for ranges that fit one work-group (algorithms/sort_small.*),
// forced with CLPRIM_RADIX_PATH=small on the device under test: the registers kernel (elements
// in registers, local memory between groups of steps) at several elements per work-item, and the
// network kernel (every step in local memory); every key type (8, 16, 32, 64 bits, signed,
// float, double), both orders, keys alone and pairs (stable: values are input positions), scalar
// and vector values, sizes 0, 1, primes and 2^k +- 1 up to and past the largest range it takes
// (larger ranges fall back to the device's own path), one guard element on each side of every
// range, and an out-of-order queue. Sizes are chosen so that few padded sizes (one program each)
// are built: PoCL compiles every one.
#define BOOST_TEST_MODULE clprim_sort_small
#include "sort_test_support.hpp"

#include <clprim/clprim.hpp>

#include <numeric>

using namespace clprim_test;

namespace {

using order_t = clprim::sort_order;

const std::vector<order_t> both_orders{order_t::ascending, order_t::descending};
const std::vector<order_t> up_only{order_t::ascending}, down_only{order_t::descending};

// Each (type, order, padded size) is a program PoCL compiles for a second or two: the cases
// below take one order per type where the other adds nothing new.
template <class K>
void keys_sizes(const std::vector<std::size_t>& sizes, const std::vector<distribution>& dists, const std::string& label,
                const std::vector<order_t>& orders = both_orders)
{
    if (!type_runs_here<K>()) return;
    for (order_t o : orders)
        for (std::size_t n : sizes)
            for (distribution d : dists)
                check_sorted_keys<K>(n, d, o, [&](auto f, auto l, auto& q) { clprim::radix_sort(f, l, q, o); }, label);
}

template <class K, class V>
void pairs_sizes(const std::vector<std::size_t>& sizes, distribution d, const std::string& label,
                 const std::vector<order_t>& orders = both_orders)
{
    if (!type_runs_here<K>() || !type_runs_here<V>()) return;
    for (order_t o : orders)
        for (std::size_t n : sizes)
            check_sorted_pairs<K, V>(n, d, o, true,
                                     [&](auto f, auto l, auto v, auto& q) { clprim::radix_sort_by_key(f, l, v, q, o); },
                                     label);
}

// Vector values (random bytes, the position in the first bytes): the values must come out in the
// stable order, bit for bit.
template <class K, class V>
void vector_pairs(std::size_t n, order_t o, const std::string& label)
{
    auto& q = device_under_test::get().queue;
    const auto keys = make_data<K>(n, distribution::few_distinct);
    std::vector<V> vals(n);
    std::mt19937_64 rng(n);
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char b[sizeof(V)];
        for (auto& x : b) x = static_cast<unsigned char>(rng());
        std::memcpy(b, &i, 4);
        std::memcpy(static_cast<void*>(&vals[i]), b, sizeof(V));
    }
    guarded_vector<K> kv(keys, K(7), q);
    V g;
    std::memset(static_cast<void*>(&g), 0x5a, sizeof g);
    guarded_vector<V> vv(vals, g, q);
    clprim::radix_sort_by_key(kv.first(), kv.last(), vv.first(), q, o);
    bool kg = false, vg = false;
    const auto got_k = kv.result(q, kg);
    const auto got_v = vv.result(q, vg);
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return o == order_t::ascending ? total_less(keys[a], keys[b]) : total_less(keys[b], keys[a]);
    });
    std::vector<K> want_k(n);
    std::vector<V> want_v(n);
    for (std::size_t i = 0; i < n; ++i) {
        want_k[i] = keys[idx[i]];
        want_v[i] = vals[idx[i]];
    }
    const std::string what = type_label<K>() + " n=" + std::to_string(n) + " " + std::to_string(sizeof(V)) + "-byte values " + label;
    BOOST_TEST((kg && vg), what << ": guard overwritten");
    BOOST_TEST(first_difference(got_k, want_k) == -1, what << ": keys wrong");
    BOOST_TEST(first_difference(got_v, want_v) == -1, what << ": values wrong or not stable");
}

// Runs checks (given a label) at 2, 4, 16 and 32 elements per work-item of the kernel. A forced
// shape needs n / items work-items in one group: where the built kernel allows fewer (the H100
// gives the registers kernel 256), clprim says so with unsupported_error and sorts nothing; those
// shapes are skipped, and at least one shape must have run everywhere.
template <class F>
void items_shapes(const std::string& kernel, F checks)
{
    int ran = 0;
    for (const char* items : {"2", "4", "16", "32"}) {
        env_override e("CLPRIM_SORT_SMALL_ITEMS", items);
        const std::string label = kernel + " items " + items;
        try {
            checks(label);
            ++ran;
        } catch (const clprim::unsupported_error& x) {
            BOOST_TEST_MESSAGE(label << ": not on this device (" << x.what() << ")");
        }
    }
    BOOST_TEST(ran > 0);
}

const std::vector<distribution>& key_dists()
{
    static const std::vector<distribution> d{distribution::random, distribution::extremes, distribution::few_distinct};
    return d;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(sort_small_suite, fixture)

// The registers kernel (the default) on every key type: uint at many sizes (padded sizes 2 to
// 4096), the other types at a prime, 2^10 and the largest range (padded sizes 4, 1024, 4096).
BOOST_AUTO_TEST_CASE(registers_every_key_type)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    env_override kernel("CLPRIM_SORT_SMALL", "registers");
    keys_sizes<cl_uint>({0, 1, 2, 3, 5, 31, 33, 63, 255, 257, 1021, 1023, 1024, 1025, 2039, 4093, 4095, 4096},
                        {distribution::random, distribution::few_distinct}, "registers", up_only);
    keys_sizes<cl_uint>({3, 1021, 4096}, {distribution::random, distribution::few_distinct}, "registers", down_only);
    keys_sizes<cl_uint>({1024, 4096}, {distribution::sorted, distribution::reversed, distribution::all_equal,
                                       distribution::extremes}, "registers", up_only);
    const std::vector<std::size_t> sizes{3, 1021, 4096};
    keys_sizes<cl_int>(sizes, key_dists(), "registers", up_only);
    keys_sizes<cl_float>(sizes, {distribution::random, distribution::float_specials}, "registers", down_only);
    keys_sizes<cl_char>(sizes, key_dists(), "registers", up_only);
    keys_sizes<cl_uchar>(sizes, key_dists(), "registers", down_only);
    keys_sizes<cl_short>(sizes, key_dists(), "registers", down_only);
    keys_sizes<cl_ushort>(sizes, key_dists(), "registers", up_only);
    keys_sizes<cl_long>({3, 1021, 2048}, key_dists(), "registers", down_only);
    keys_sizes<cl_ulong>({3, 1021, 2048}, key_dists(), "registers", up_only);
    keys_sizes<cl_double>({3, 1021, 2048}, {distribution::random, distribution::float_specials}, "registers", both_orders);
}

// Pairs: the index packed beside 8/16-bit keys (4 bytes), 32-bit keys (8 bytes), or (key, index)
// in 16 bytes for 64-bit keys; few distinct keys, so stability is tested; scalar values of 1 to 8
// bytes and vector values of 8, 16 and 32 bytes.
BOOST_AUTO_TEST_CASE(registers_pairs)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    env_override kernel("CLPRIM_SORT_SMALL", "registers");
    pairs_sizes<cl_uint, cl_uint>({2, 3, 1021, 1024, 4093, 4096}, distribution::few_distinct, "registers");
    pairs_sizes<cl_uint, cl_uint>({4096}, distribution::all_equal, "registers");
    pairs_sizes<cl_float, cl_double>({1021, 4096}, distribution::float_specials, "registers", down_only);
    pairs_sizes<cl_char, cl_uint>({1021, 4096}, distribution::few_distinct, "registers", up_only);
    pairs_sizes<cl_ushort, cl_uchar>({1021, 4096}, distribution::extremes, "registers", down_only);
    pairs_sizes<cl_long, cl_ushort>({3, 1021, 2048}, distribution::few_distinct, "registers", up_only);
    pairs_sizes<cl_double, cl_ulong>({1021, 2048}, distribution::float_specials, "registers", down_only);
    vector_pairs<cl_uint, bc::int2_>(1021, order_t::ascending, "registers");
    vector_pairs<cl_uint, bc::uint4_>(4096, order_t::descending, "registers");
    vector_pairs<cl_uint, bc::long4_>(1021, order_t::ascending, "registers");
}

// Elements per work-item: 2 (the widest group the device allows) to 32 (remaps the rarest), keys
// and pairs, at a padded size of 1024 and 4096.
BOOST_AUTO_TEST_CASE(registers_items_per_work_item)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    env_override kernel("CLPRIM_SORT_SMALL", "registers");
    items_shapes("registers", [](const std::string& label) {
        check_sorted_keys<cl_uint>(1021, distribution::random, order_t::ascending,
                                   [](auto f, auto l, auto& q) { clprim::radix_sort(f, l, q); }, label);
        check_sorted_keys<cl_uint>(4096, distribution::few_distinct, order_t::ascending,
                                   [](auto f, auto l, auto& q) { clprim::radix_sort(f, l, q); }, label);
        check_sorted_pairs<cl_uint, cl_uint>(4093, distribution::few_distinct, order_t::descending, true,
                                             [](auto f, auto l, auto v, auto& q) {
                                                 clprim::radix_sort_by_key(f, l, v, q, order_t::descending);
                                             },
                                             label);
    });
}

// The network kernel (CLPRIM_SORT_SMALL=network): every step through local memory.
BOOST_AUTO_TEST_CASE(network_kernel)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    env_override kernel("CLPRIM_SORT_SMALL", "network");
    keys_sizes<cl_uint>({2, 3, 1021, 4096}, {distribution::random, distribution::few_distinct}, "network", up_only);
    keys_sizes<cl_ulong>({1021, 2048}, key_dists(), "network", down_only);
    pairs_sizes<cl_uint, cl_uint>({1021, 4096}, distribution::few_distinct, "network");
    pairs_sizes<cl_ushort, cl_uint>({1021}, distribution::few_distinct, "network", up_only);
}

// The warp kernel (CLPRIM_SORT_SMALL=warp, sort_small_warp.cl): steps between work-items by warp
// shuffles on NVIDIA, through local memory elsewhere; every key width, keys and pairs (the packed
// index of 8/16- and 32-bit keys, the (key, index) pair of 64-bit keys), both orders, sizes up to
// the largest range and past it, and elements per work-item from 2 to 32.
BOOST_AUTO_TEST_CASE(warp_kernel)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    env_override kernel("CLPRIM_SORT_SMALL", "warp");
    keys_sizes<cl_uint>({0, 1, 2, 3, 31, 33, 257, 1021, 1023, 1024, 1025, 4093, 4096, 4097},
                        {distribution::random, distribution::few_distinct}, "warp", up_only);
    keys_sizes<cl_uint>({1021}, {distribution::random}, "warp", down_only);
    keys_sizes<cl_uint>({1024}, {distribution::sorted, distribution::reversed, distribution::all_equal}, "warp", up_only);
    keys_sizes<cl_float>({1021}, {distribution::random, distribution::float_specials}, "warp", up_only);
    keys_sizes<cl_uchar>({1021}, key_dists(), "warp", up_only);
    keys_sizes<cl_short>({1021}, key_dists(), "warp", down_only);
    keys_sizes<cl_ulong>({3, 1021}, key_dists(), "warp", up_only);
    keys_sizes<cl_double>({1021}, {distribution::float_specials}, "warp", down_only);
    pairs_sizes<cl_uint, cl_uint>({3, 1021, 1024}, distribution::few_distinct, "warp");
    pairs_sizes<cl_uint, cl_uint>({4096}, distribution::few_distinct, "warp", up_only);
    pairs_sizes<cl_ushort, cl_uint>({1021}, distribution::few_distinct, "warp", up_only);
    pairs_sizes<cl_long, cl_ushort>({1021}, distribution::few_distinct, "warp", down_only);
    pairs_sizes<cl_double, cl_ulong>({1021}, distribution::float_specials, "warp", up_only);
    // 64-bit keys with values at 2048: 32 KiB a copy, one local copy where 64 KiB do not fit.
    pairs_sizes<cl_ulong, cl_uint>({2047}, distribution::few_distinct, "warp", down_only);
    vector_pairs<cl_uint, bc::uint4_>(1021, order_t::descending, "warp");
    items_shapes("warp", [](const std::string& label) {
        check_sorted_keys<cl_uint>(1021, distribution::random, order_t::ascending,
                                   [](auto f, auto l, auto& q) { clprim::radix_sort(f, l, q); }, label);
        check_sorted_pairs<cl_ulong, cl_uint>(1021, distribution::few_distinct, order_t::descending, true,
                                              [](auto f, auto l, auto v, auto& q) {
                                                  clprim::radix_sort_by_key(f, l, v, q, order_t::descending);
                                              },
                                              label);
    });
}

// The largest range one work-group takes: 4096 by default; past it (or where local memory is
// short, 64-bit keys with values) the few-tiles path, or with that off (CLPRIM_SORT_SMALL_TILES=0)
// the device's own path runs; CLPRIM_SORT_SMALL_MAX moves the limit (8192 keys alone fit 32 KiB of
// local memory, 16384 pairs do not and fall back). Past 65536 keys the device's own path runs.
BOOST_AUTO_TEST_CASE(limits_and_fallback)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    {
        env_override no_tiles("CLPRIM_SORT_SMALL_TILES", "0");
        keys_sizes<cl_uint>({4097}, {distribution::random}, "past the limit", up_only);
        env_override max("CLPRIM_SORT_SMALL_MAX", "8192");
        keys_sizes<cl_uint>({8191, 8192}, {distribution::random}, "max 8192", up_only);
        pairs_sizes<cl_uint, cl_uint>({16381}, distribution::few_distinct, "max 8192, past it", up_only);
    }
    {
        env_override max("CLPRIM_SORT_SMALL_MAX", "256");
        keys_sizes<cl_uint>({257}, {distribution::random}, "max 256, the few-tiles path past it", up_only);
    }
    keys_sizes<cl_uint>({65537}, {distribution::random}, "past the few-tiles path", up_only);
}

// The few-tiles path (sort_small_tiles.cl, CLPRIM_SORT_SMALL_TILES): ranges past one work-group,
// one launch per digit pass, with digit totals found by look-back in pass 0. Keys of 16, 32 and
// 64 bits, pairs (stable, scalar and vector values), one and many tiles, partial last tiles, both
// orders; small tiles (256 x 1 keys) for many tiles; calls of different tile counts and key widths
// back to back (the status words stay with the queue); every tile taking the decoupled fallback.
// (The tiles kernel takes PoCL seconds to build: seven programs here; the H100 run covers more.)
BOOST_AUTO_TEST_CASE(few_tiles)
{
    // Each (type, order, shape) is a program PoCL compiles for seconds: one order per type here.
    const order_t up = order_t::ascending, down = order_t::descending;
    auto keys = [](auto key, std::size_t n, distribution d, order_t o, const std::string& label) {
        using K = decltype(key);
        if (type_runs_here<K>())
            check_sorted_keys<K>(n, d, o, [&](auto f, auto l, auto& q) { clprim::radix_sort(f, l, q, o); }, label);
    };
    auto pairs = [](auto key, auto value, std::size_t n, distribution d, order_t o, const std::string& label) {
        using K = decltype(key);
        using V = decltype(value);
        check_sorted_pairs<K, V>(n, d, o, true,
                                 [&](auto f, auto l, auto v, auto& q) { clprim::radix_sort_by_key(f, l, v, q, o); }, label);
    };
    env_override path("CLPRIM_RADIX_PATH", "small");
    {
        env_override tiles("CLPRIM_SORT_SMALL_TILES", "65536");
        for (std::size_t n : {std::size_t(4097), std::size_t(65536)})
            for (distribution d : {distribution::random, distribution::few_distinct}) keys(cl_uint{}, n, d, up, "tiles");
        keys(cl_short{}, 30011, distribution::extremes, down, "tiles");
        keys(cl_ulong{}, 9001, distribution::random, up, "tiles");
        pairs(cl_uint{}, cl_uint{}, 6143, distribution::few_distinct, down, "tiles");
        pairs(cl_uint{}, cl_uint{}, 30011, distribution::few_distinct, down, "tiles");
        vector_pairs<cl_uint, bc::uint4_>(8191, up, "tiles");
        keys(cl_uchar{}, 5000, distribution::random, up, "tiles: 8-bit keys take another path");
    }
    {
        env_override tiles("CLPRIM_SORT_SMALL_TILES", "16384,1");
        env_override max("CLPRIM_SORT_SMALL_MAX", "256");
        for (std::size_t n : {std::size_t(257), std::size_t(3001), std::size_t(16383), std::size_t(16384)})
            keys(cl_uint{}, n, distribution::random, up, "tiles 256 x 1");
        env_override fallback("CLPRIM_LOOKBACK", "fallback");
        keys(cl_uint{}, 5001, distribution::random, up, "tiles 256 x 1, every tile's fallback");
        keys(cl_uint{}, 16384, distribution::few_distinct, up, "tiles 256 x 1, every tile's fallback");
    }
}

// Sub-ranges at odd offsets inside a larger buffer on an out-of-order queue: the neighbours stay
// as they were, the sort finishes before what the caller enqueues after it.
BOOST_AUTO_TEST_CASE(sub_ranges_on_an_out_of_order_queue)
{
    env_override path("CLPRIM_RADIX_PATH", "small");
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    const auto all = make_data<cl_uint>(3000, distribution::random, 99);
    bc::vector<cl_uint> d(all.begin(), all.end(), queue);
    queue.finish();
    for (std::size_t off : {std::size_t(1), std::size_t(7)}) {
        const std::size_t n = 1021;
        clprim::radix_sort(d.begin() + off, d.begin() + off + n, ooo);
        std::vector<cl_uint> got(all.size());
        bc::copy(d.begin(), d.end(), got.begin(), ooo);
        ooo.finish();
        std::vector<cl_uint> want = all;
        std::sort(want.begin() + off, want.begin() + off + n);
        BOOST_TEST(first_difference(got, want) == -1, "offset " << off);
        bc::copy(all.begin(), all.end(), d.begin(), queue);
        queue.finish();
    }
}

BOOST_AUTO_TEST_SUITE_END()
