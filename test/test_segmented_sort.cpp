// clprim::segmented_sort / segmented_sort_by_key: every length mix of issue #29 in small form,
// empty segments, offsets[0] > 0 with guards before and after, cl_ulong offsets, duplicates for
// stability (against std::stable_sort per segment, values = original positions), every key type
// in both orders, float specials (by bits), an out-of-order queue, malformed offsets (guards
// untouched), both paths forced.
#define BOOST_TEST_MODULE clprim_segmented_sort
#include "clprim_test_fixture.hpp"
#include "segments_test_support.hpp"

#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <cstring>
#include <sstream>

using namespace clprim_test;

namespace {

constexpr std::size_t guard_count = 4;

bool on_cpu() { return clprim::detail::profile_of(device_under_test::get().device).is_cpu(); }


// The host reference: every well-formed segment stably sorted in the library's order.
template <class K, class V, class Offset>
void host_sort(std::vector<K>& keys, std::vector<V>* values, const std::vector<Offset>& offsets, clprim::sort_order order)
{
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
        const std::size_t b = offsets[s], e = offsets[s + 1];
        std::vector<std::size_t> idx(e - b);
        for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = b + i;
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
            return order == clprim::sort_order::ascending ? total_less(keys[x], keys[y]) : total_less(keys[y], keys[x]);
        });
        std::vector<K> k(idx.size());
        std::vector<V> v(values ? idx.size() : 0);
        for (std::size_t i = 0; i < idx.size(); ++i) {
            k[i] = keys[idx[i]];
            if (values) v[i] = (*values)[idx[i]];
        }
        std::copy(k.begin(), k.end(), keys.begin() + b);
        if (values) std::copy(v.begin(), v.end(), values->begin() + b);
    }
}

// Sorts keys (and values = each key's position, so stability shows) between guards, by key or
// not, and checks guards, and (unless malformed) the result against host_sort.
template <class K, class Offset, class V = cl_uint>
void check(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<Offset>& offsets,
           clprim::sort_order order, bool by_key, const std::string& label, bool malformed = false)
{
    const std::size_t n = keys.size(), S = offsets.size() - 1;
    std::vector<K> kg(n + 2 * guard_count);
    for (std::size_t i = 0; i < guard_count; ++i) kg[i] = kg[n + guard_count + i] = K(3 + i);
    std::copy(keys.begin(), keys.end(), kg.begin() + guard_count);
    std::vector<V> vg(n + 2 * guard_count);
    for (std::size_t i = 0; i < vg.size(); ++i) vg[i] = V(i - guard_count);
    std::vector<Offset> og(S + 1 + 2, Offset(1));
    std::copy(offsets.begin(), offsets.end(), og.begin() + 1);
    bc::vector<K> dk = to_device(kg, queue);
    bc::vector<V> dv = to_device(vg, queue);
    bc::vector<Offset> d_o = to_device(og, queue);
    if (by_key)
        clprim::segmented_sort_by_key(dk.begin() + guard_count, dk.begin() + guard_count + n, dv.begin() + guard_count,
                                      d_o.begin() + 1, d_o.begin() + 2 + S, queue, order);
    else
        clprim::segmented_sort(dk.begin() + guard_count, dk.begin() + guard_count + n, d_o.begin() + 1,
                               d_o.begin() + 2 + S, queue, order);
    const auto hk = to_host(dk, queue);
    const auto hv = to_host(dv, queue);
    BOOST_TEST(to_host(d_o, queue) == og, label << ": the offsets changed");
    bool guards = true;
    for (std::size_t i = 0; i < guard_count; ++i) {
        guards = guards && hk[i] == kg[i] && hk[n + guard_count + i] == kg[n + guard_count + i];
        guards = guards && hv[i] == vg[i] && hv[n + guard_count + i] == vg[n + guard_count + i];
    }
    BOOST_TEST(guards, label << ": wrote outside the ranges");
    if (!by_key) BOOST_TEST(bit_equal(hv, vg), label << ": keys-only sort wrote the values");
    if (malformed) {
        // Any order inside, but the range still holds the same keys (a permutation) where
        // segments overlap nothing; here only count what is not a key any more.
        return;
    }
    std::vector<K> ek = keys;
    std::vector<V> ev(vg.begin() + guard_count, vg.begin() + guard_count + n);
    host_sort(ek, by_key ? &ev : nullptr, offsets, order);
    std::vector<K> gk(hk.begin() + guard_count, hk.begin() + guard_count + n);
    std::vector<V> gv(hv.begin() + guard_count, hv.begin() + guard_count + n);
    const long dkey = first_difference(gk, ek);
    BOOST_TEST(dkey == -1, label << ": keys differ first at " << dkey << " of " << n);
    if (by_key) {
        const long dval = first_difference(gv, ev);
        BOOST_TEST(dval == -1, label << ": values (stability) differ first at " << dval << " of " << n);
    }
}

std::vector<mix_case> mixes()
{
    const bool big = !on_cpu();
    return standard_mixes(big ? (std::size_t(1) << 22) : (std::size_t(1) << 17), big ? 100000 : 10000);
}

// count long segments (first + i * step keys) each followed by a short one (i % short_mod keys);
// n: the keys before them on entry, all keys on return.
std::vector<std::size_t> long_then_short(std::size_t count, std::size_t first, std::size_t step, std::size_t short_mod,
                                         std::size_t& n)
{
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < count; ++i) {
        lengths.push_back(first + i * step);
        lengths.push_back(i % short_mod);
    }
    for (std::size_t l : lengths) n += l;
    return lengths;
}

// Keys with many duplicates (stability shows), over the type's order.
template <class K>
std::vector<K> dup_keys(std::size_t n, std::uint64_t seed = 11)
{
    return make_data<K>(n, distribution::few_distinct, seed);
}


// Keys whose bits vary only under `mask` (the rest one random pattern): the CPU path's radix sort
// skips the passes of the digits that are the same in every key of a segment (one pass left:
// an odd count, through the scratch first; two: even).
template <class K>
std::vector<K> masked_keys(std::size_t n, std::uint64_t mask, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    const std::uint64_t fixed = rng();
    std::vector<K> v(n);
    for (auto& x : v) {
        const std::uint64_t bits = (fixed & ~mask) | (rng() & mask);
        std::memcpy(&x, &bits, sizeof(K)); // the low bytes (little-endian host)
    }
    return v;
}

// Segment lengths around the CPU path's thresholds (rank sort up to 64 keys, the radix sort
// above, one work-item up to 4096 keys at these sizes, the long path beyond), and empties.
const std::vector<std::size_t> cpu_threshold_lengths = {0,  1,   2,   3,   15,   16,   17,   31,   32,   33,   63,   64, 65,
                                                        0,  100, 255, 256, 257,  1023, 1024, 1025, 4095, 4096, 4097, 2,  5};

using cpu_key_types = boost::mpl::list<cl_char, cl_uchar, cl_short, cl_ushort, cl_int, cl_uint, cl_long, cl_ulong,
                                       cl_float, cl_double>;

} // namespace

BOOST_FIXTURE_TEST_SUITE(segmented_sort, fixture)

BOOST_AUTO_TEST_CASE(length_mixes_both_paths)
{
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        for (const auto& m : mixes()) {
            const auto lengths = segment_lengths(m.mix, m.n, m.len);
            for (std::size_t base : {std::size_t(0), std::size_t(7)}) {
                const std::string label = std::string(path) + " " + name_of(m.mix) + " n=" + std::to_string(m.n) +
                                          " len=" + std::to_string(m.len) + " base=" + std::to_string(base);
                const auto offsets = offsets_from_lengths<cl_uint>(lengths, base);
                check(queue, make_data<cl_uint>(m.n + base + 2, distribution::random), offsets,
                      clprim::sort_order::ascending, false, label + " keys");
                check(queue, dup_keys<cl_uint>(m.n + base + 2), offsets, clprim::sort_order::ascending, true,
                      label + " pairs");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_key_type_both_orders, K, all_types)
{
    if (!type_runs_here<K>()) return;
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        const std::size_t n = 30011;
        const auto lengths = segment_lengths(seg_mix::with_empties, n, 200);
        const auto offsets = offsets_from_lengths<cl_uint>(lengths, 3);
        // Each path sorts pairs in one order and keys alone in the other (a program each: PoCL
        // compiles every one, so not the whole product), on float specials / extremes and on
        // duplicates (stability).
        const bool gpu = std::string(path) == "gpu";
        for (auto order : {clprim::sort_order::ascending, clprim::sort_order::descending}) {
            const bool by_key = gpu == (order == clprim::sort_order::ascending);
            const std::string label = std::string(path) + " " + type_label<K>() +
                                      (order == clprim::sort_order::ascending ? " asc" : " desc") +
                                      (by_key ? " pairs" : " keys");
            const distribution d = std::is_floating_point_v<K> ? distribution::float_specials : distribution::extremes;
            check(queue, make_data<K>(n + 5, d), offsets, order, by_key, label + " specials");
            check(queue, dup_keys<K>(n + 5), offsets, order, by_key, label + " duplicates");
        }
    }
}

BOOST_AUTO_TEST_CASE(large_segments_every_type_once)
{
    // Segments longer than a work-group's tile go to the radix sort: keys and pairs of 64-bit
    // keys and a descending float case cross that boundary.
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        const std::size_t n = 200003;
        const auto offsets = offsets_from_lengths<cl_uint>(segment_lengths(seg_mix::few_large, n, 0), 0);
        check(queue, dup_keys<cl_long>(n), offsets, clprim::sort_order::ascending, true, std::string(path) + " long pairs");
        check(queue, make_data<cl_float>(n, distribution::float_specials), offsets, clprim::sort_order::descending, true,
              std::string(path) + " float desc pairs");
    }
}

BOOST_AUTO_TEST_CASE(many_long_segments_each_way)
{
    // More than a few segments longer than a work-group's tile (GPU path) or than one work-item
    // sorts (CPU path: 4096), with tiny segments between them, each way the long ones go: one
    // segmented LSD radix sort (partial last tiles, every key width), its top-digit pass followed
    // by a segmented sort of the digits' sub-segments (msd), packed (segment, key) words in one
    // radix sort (32-bit keys; others fall to the LSD), one radix call each.
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        for (const char* mode : {"lsd", "msd", "packed", "calls"}) {
            env_override force_long("CLPRIM_SEGMENTED_LONG", mode);
            const std::size_t len = 5001, count = 12; // both paths' tiles are 4096 or less
            std::size_t n = 5;
            const auto lengths = long_then_short(count, len, 1031, 4, n);
            const auto offsets = offsets_from_lengths<cl_uint>(lengths, 5);
            const std::string p = std::string(path) + " " + mode;
            check(queue, dup_keys<cl_uint>(n), offsets, clprim::sort_order::ascending, true, p + " uint pairs");
            check(queue, make_data<cl_float>(n, distribution::float_specials), offsets, clprim::sort_order::descending,
                  false, p + " float desc keys");
            if (std::string(mode) == "calls") continue; // the radix sort's own suites cover the rest
            check(queue, dup_keys<cl_int>(n), offsets, clprim::sort_order::descending, true, p + " int desc pairs");
            check(queue, dup_keys<cl_ulong>(n), offsets, clprim::sort_order::ascending, true, p + " ulong pairs");
            if (type_runs_here<cl_double>())
                check(queue, make_data<cl_double>(n, distribution::float_specials), offsets,
                      clprim::sort_order::ascending, false, p + " double keys");
        }
    }
}

BOOST_AUTO_TEST_CASE(small_tiles_every_path)
{
    // The GPU path with a tile of 256 (CLPRIM_SEGMENTED_TUNE): every size class, and more than a
    // few long segments in the segmented LSD (several tiles of 256 each, the last one partial)
    // and packed, at a size Oclgrind runs.
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override tune("CLPRIM_SEGMENTED_TUNE", "32,256,1"); // LSD tiles of 256 keys too
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < 12; ++i) {
        lengths.push_back(257 + i * 61);
        lengths.push_back((i * 37) % 200);
        lengths.push_back(i % 3);
    }
    std::size_t n = 2;
    for (std::size_t l : lengths) n += l;
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 2);
    for (const char* mode : {"lsd", "msd", "packed"}) {
        env_override force_long("CLPRIM_SEGMENTED_LONG", mode);
        const std::string p = std::string("small tiles ") + mode;
        check(queue, dup_keys<cl_uint>(n), offsets, clprim::sort_order::ascending, true, p + " uint pairs");
        check(queue, make_data<cl_uint>(n, distribution::random), offsets, clprim::sort_order::descending, false,
              p + " uint desc keys");
        check(queue, dup_keys<cl_long>(n), offsets, clprim::sort_order::descending, true, p + " long desc pairs");
    }
}

BOOST_AUTO_TEST_CASE(tiny_segments_both_ways)
{
    // The GPU path's smallest class sorted by segment number outside the binning (a warp each:
    // keys alone, by local memory here instead of NVIDIA's shuffles; segsort_local's direct mode)
    // or binned like the others, in mixes where tiny segments sit between longer ones.
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    for (const char* way : {"warp", "direct", "binned"}) {
        env_override tiny("CLPRIM_SEGMENTED_TINY", way);
        for (seg_mix mix : {seg_mix::tiny, seg_mix::power_law, seg_mix::with_empties}) {
            const std::size_t n = 6007; // (Oclgrind runs it)
            const auto offsets = offsets_from_lengths<cl_uint>(segment_lengths(mix, n, 40), 3);
            const std::string p = std::string("tiny ") + way + " " + name_of(mix);
            check(queue, dup_keys<cl_uint>(n + 3), offsets, clprim::sort_order::ascending, true, p + " uint pairs");
            check(queue, make_data<cl_float>(n + 3, distribution::float_specials), offsets,
                  clprim::sort_order::descending, false, p + " float desc keys");
            check(queue, dup_keys<cl_short>(n + 3), offsets, clprim::sort_order::ascending, false, p + " short keys");
            check(queue, make_data<cl_uint>(n + 3, distribution::random), offsets, clprim::sort_order::ascending,
                  false, p + " uint keys");
        }
    }
}

BOOST_AUTO_TEST_CASE(msd_digits)
{
    // The MSD form's one pass on the digit that ends at the highest differing bit (span) or on
    // the top digit: keys of few bits (all in one top-digit bucket), all equal, negative and
    // positive small 64-bit ints (differing in the top bit once sortable), 64-bit keys of 44
    // bits, in long segments of the small tile (256) between short ones.
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override tune("CLPRIM_SEGMENTED_TUNE", "32,256,1");
    env_override force_long("CLPRIM_SEGMENTED_LONG", "msd");
    std::size_t n = 3;
    const auto lengths = long_then_short(12, 700, 97, 5, n);
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 3);
    for (const char* digit : {"span", "top"}) {
        env_override d("CLPRIM_SEGMENTED_MSD_DIGIT", digit);
        const std::string p = std::string("msd ") + digit;
        auto small = make_data<cl_uint>(n, distribution::random);
        for (auto& x : small) x %= 1000;
        check(queue, small, offsets, clprim::sort_order::ascending, true, p + " small uint pairs");
        check(queue, std::vector<cl_uint>(n, 77u), offsets, clprim::sort_order::ascending, true, p + " equal pairs");
        // (The key types and orders of small_tiles_every_path: no program of its own on PoCL.)
        auto longs = make_data<cl_long>(n, distribution::random);
        for (auto& x : longs) x %= 300;
        check(queue, longs, offsets, clprim::sort_order::descending, true, p + " small long desc pairs");
        for (auto& x : longs) x = std::int64_t(std::uint64_t(x) >> 20);
        check(queue, longs, offsets, clprim::sort_order::descending, true, p + " long desc pairs");
    }
}

BOOST_AUTO_TEST_CASE(binning_both_ways)
{
    // Inputs longer than the tile: the scout (class counts and long ranges read first, the lists
    // made after the long sorts only where a listed class has segments, or always while the
    // counts come back: early) and the lists made first; mixes with long,
    // tiny, middle and empty segments, and long plus empty ones only (no lists then).
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        for (const char* bin : {"scout", "early", "lists"}) {
            env_override force_bin("CLPRIM_SEGMENTED_BIN", bin);
            for (seg_mix mix : {seg_mix::few_large, seg_mix::power_law, seg_mix::empty_plus_one, seg_mix::tiny}) {
                const std::size_t n = 40009;
                const auto offsets = offsets_from_lengths<cl_uint>(segment_lengths(mix, n, 3000), 2);
                const std::string p = std::string(path) + " " + bin + " " + name_of(mix);
                check(queue, dup_keys<cl_uint>(n + 2), offsets, clprim::sort_order::ascending, true, p + " uint pairs");
                check(queue, make_data<cl_uint>(n + 2, distribution::random), offsets, clprim::sort_order::ascending,
                      false, p + " uint keys");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(more_long_ranges_than_the_first_read)
{
    // More long segments (1100, tile 256) than the first read brings (1024): the rest come in a
    // second read, in the scout's arrival order and in list order.
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override tune("CLPRIM_SEGMENTED_TUNE", "32,256,1");
    std::size_t n = 0;
    const auto lengths = long_then_short(1100, 257, 1, 3, n);
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 0);
    for (const char* bin : {"scout", "lists"}) {
        env_override force_bin("CLPRIM_SEGMENTED_BIN", bin);
        check(queue, dup_keys<cl_uint>(n), offsets, clprim::sort_order::ascending, true, std::string(bin) + " uint pairs");
    }
}

BOOST_AUTO_TEST_CASE(allocation_failures_leave_data)
{
    // Every temporary a fresh allocation (pool off), the i-th one failing (and its retry): the
    // call either throws out_of_device_memory with the keys and values as they were, or sorts
    // them. Many long segments (longer than the tile) and short ones by the MSD form, and one
    // long segment among empty ones (a radix sort call). (The lsd form's later passes scan into
    // temporaries after its odd passes wrote the caller's range, and several radix calls each
    // take their own: with the pool on they find the first ones' buffers; with it off they can
    // fail half-way, so they are not here.)
    env_override limit("CLPRIM_SCRATCH_LIMIT_MB", "0");
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    std::size_t n_many = 1;
    const auto many = long_then_short(10, 9001, 103, 5, n_many);
    std::vector<std::size_t> one(2000, 0);
    one[1000] = 20011;
    for (const char* mode : {"msd", "one"}) {
        env_override force_long("CLPRIM_SEGMENTED_LONG", "msd");
        const bool single = std::string(mode) == "one";
        const std::size_t n = single ? 20012 : n_many;
        const auto offsets = offsets_from_lengths<cl_uint>(single ? one : many, 1);
        const auto keys = make_data<cl_uint>(n, distribution::random);
        std::vector<cl_uint> vals(n);
        for (std::size_t i = 0; i < n; ++i) vals[i] = cl_uint(i);
        std::vector<cl_uint> want_k(keys.begin() + 1, keys.end()), want_v(vals.begin() + 1, vals.end());
        std::vector<cl_uint> off_from0(offsets.size());
        for (std::size_t i = 0; i < offsets.size(); ++i) off_from0[i] = offsets[i] - 1;
        host_sort(want_k, &want_v, off_from0, clprim::sort_order::ascending);
        want_k.insert(want_k.begin(), keys[0]);
        want_v.insert(want_v.begin(), vals[0]);
        bool threw = true;
        for (unsigned after = 0; threw && after < 64; ++after) {
            clprim::release_scratch_memory();
            bc::vector<cl_uint> dk = to_device(keys, queue), dv = to_device(vals, queue);
            bc::vector<cl_uint> d_o = to_device(offsets, queue);
            const std::string what = std::string(mode) + " (allocation " + std::to_string(after) + " fails)";
            clprim::detail::scratch_fail_next(2, after);
            threw = false;
            try {
                clprim::segmented_sort_by_key(dk.begin(), dk.end(), dv.begin(), d_o.begin(), d_o.end(), queue);
            } catch (const clprim::error& e) {
                threw = true;
                BOOST_TEST(std::string(e.what()).find("out of device memory") != std::string::npos, what << ": " << e.what());
            }
            clprim::detail::scratch_fail_next(0);
            BOOST_TEST(first_difference(to_host(dk, queue), threw ? keys : want_k) == -1,
                       what << (threw ? ": keys changed" : ": keys wrong"));
            BOOST_TEST(first_difference(to_host(dv, queue), threw ? vals : want_v) == -1,
                       what << (threw ? ": values changed" : ": values wrong"));
        }
        BOOST_TEST(!threw, mode << ": still failing after 64 allocations");
    }
}

BOOST_AUTO_TEST_CASE(ulong_offsets)
{
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        for (seg_mix mix : {seg_mix::power_law, seg_mix::tiny, seg_mix::few_large}) {
            const std::size_t n = 100003;
            const auto offsets = offsets_from_lengths<cl_ulong>(segment_lengths(mix, n, 0), 11);
            check(queue, dup_keys<cl_uint>(n + 11), offsets, clprim::sort_order::descending, true,
                  std::string(path) + " ulong offsets " + name_of(mix));
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_and_edge_cases)
{
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        const std::string p(path);
        check(queue, std::vector<cl_uint>{}, std::vector<cl_uint>{0, 0, 0}, clprim::sort_order::ascending, true, p + " n=0");
        check(queue, dup_keys<cl_uint>(10), std::vector<cl_uint>{0}, clprim::sort_order::ascending, true,
              p + " no segments");
        check(queue, dup_keys<cl_uint>(100), std::vector<cl_uint>{5, 5, 6, 6, 40, 40, 41, 99}, clprim::sort_order::ascending,
              true, p + " empties, singles, gaps");
        check(queue, dup_keys<cl_uint>(1), std::vector<cl_uint>{0, 1}, clprim::sort_order::ascending, true, p + " n=1");
    }
}

BOOST_AUTO_TEST_CASE(malformed_offsets_stay_inside)
{
    for (const char* path : {"gpu", "cpu"}) {
        env_override force("CLPRIM_SEGMENTED_PATH", path);
        const std::size_t n = 100000;
        const std::string p(path);
        const auto keys = make_data<cl_uint>(n, distribution::random);
        check(queue, keys, std::vector<cl_uint>{50, 10, 90000, 5, 0xffffffffu, 3, cl_uint(n + 1), 0, 20, 40},
              clprim::sort_order::ascending, true, p + " decreasing and beyond", true);
        std::vector<cl_uint> overlapping;
        for (int i = 0; i < 60; ++i) overlapping.push_back(i % 2 ? cl_uint(i % 4 == 1 ? n : 3000) : 0u);
        check(queue, keys, overlapping, clprim::sort_order::ascending, true, p + " overlapping", true);
        check(queue, keys, std::vector<cl_ulong>{0, ~cl_ulong(0), 1, ~cl_ulong(0) - 5, cl_ulong(n)},
              clprim::sort_order::descending, false, p + " ulong beyond", true);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cpu_path_thresholds_every_key_type, K, cpu_key_types)
{
    // The CPU path's kernel (segmented_sort_cpu.cl) on every key type: lengths around its
    // thresholds between guards (offsets[0] > 0), pairs ascending on duplicates (stability) and
    // keys descending (extremes / float specials), all-equal keys (no pass) and keys equal but in
    // one byte or in two (passes skipped: odd and even counts). Elsewhere than on CPU devices
    // (the path forced on a GPU) the pairs only: a program less per type to compile.
    if (!type_runs_here<K>()) return;
    env_override force("CLPRIM_SEGMENTED_PATH", "cpu");
    const auto offsets = offsets_from_lengths<cl_uint>(cpu_threshold_lengths, 9);
    const std::size_t n = offsets.back() + 3;
    const std::string t = "cpu " + type_label<K>();
    const auto asc = clprim::sort_order::ascending, desc = clprim::sort_order::descending;
    const distribution d = std::is_floating_point_v<K> ? distribution::float_specials : distribution::extremes;
    const bool keys_too = on_cpu();
    check(queue, dup_keys<K>(n), offsets, asc, true, t + " asc pairs duplicates");
    check(queue, make_data<K>(n, d), offsets, asc, true, t + " asc pairs specials");
    check(queue, make_data<K>(n, distribution::all_equal), offsets, asc, true, t + " asc pairs all equal");
    if (keys_too) {
        check(queue, make_data<K>(n, distribution::random), offsets, desc, false, t + " desc keys random");
        check(queue, make_data<K>(n, d), offsets, desc, false, t + " desc keys specials");
        check(queue, make_data<K>(n, distribution::sorted), offsets, desc, false, t + " desc keys sorted");
    }
    for (std::uint64_t mask : {0xffull, 0xff0000ull, 0xff00ffull, 0xf000000000000f00ull}) {
        std::ostringstream m;
        m << std::hex << mask;
        check(queue, masked_keys<K>(n, mask, mask), offsets, asc, true, t + " asc pairs mask " + m.str());
        if (keys_too)
            check(queue, masked_keys<K>(n, mask, mask + 1), offsets, desc, false, t + " desc keys mask " + m.str());
    }
}

BOOST_AUTO_TEST_CASE(cpu_path_limits_and_values)
{
    // The CPU path's thresholds moved by CLPRIM_SEGMENTED_CPU (rank sort up to 1, 16 or 33 keys;
    // one work-item up to 1024, 64 or 8192 keys, the long path beyond; one work-item; 8192: the
    // radix sort through the work-item's own scratch up to 4096 keys, 4097 through the
    // segment's own positions), values of 1, 2, 4 and 8 bytes, and the
    // default limit for one work-item (max(4096, n / (4 compute units))) at +-1.
    env_override force("CLPRIM_SEGMENTED_PATH", "cpu");
    const auto offsets = offsets_from_lengths<cl_uint>(cpu_threshold_lengths, 1);
    const std::size_t n = offsets.back() + 1;
    const auto asc = clprim::sort_order::ascending, desc = clprim::sort_order::descending;
    for (const char* tune : {"1,1024", "16,64,1", "33", "64,8192"}) {
        env_override t("CLPRIM_SEGMENTED_CPU", tune);
        const std::string p = std::string("cpu ") + tune;
        check(queue, dup_keys<cl_uint>(n), offsets, asc, true, p + " uint pairs");
        check(queue, make_data<cl_float>(n, distribution::float_specials), offsets, desc, true, p + " float desc pairs");
        check(queue, masked_keys<cl_ulong>(n, 0xff00ull, 5), offsets, asc, false, p + " ulong keys one pass");
    }
    check<cl_uint, cl_uint, cl_ulong>(queue, dup_keys<cl_uint>(n), offsets, asc, true, "cpu ulong values");
    check<cl_int, cl_uint, cl_uchar>(queue, dup_keys<cl_int>(n), offsets, desc, true, "cpu uchar values");
    check<cl_double, cl_uint, cl_ushort>(queue, dup_keys<cl_double>(n), offsets, asc, true, "cpu ushort values");
    const std::size_t cu = std::max<std::size_t>(1, clprim::detail::profile_of(device).compute_units);
    const std::size_t limit = 8192, total = 4 * cu * limit; // the default limit is total / (4 cu)
    std::vector<std::size_t> lengths = {limit - 1, 3, limit, 70, limit + 1};
    std::size_t used = 0;
    for (std::size_t l : lengths) used += l;
    for (; used + 1000 <= total; used += 1000) lengths.push_back(1000);
    lengths.push_back(total - used);
    check(queue, dup_keys<cl_uint>(total), offsets_from_lengths<cl_uint>(lengths, 0), asc, true, "cpu default limit");
}

BOOST_AUTO_TEST_CASE(cpu_path_malformed_offsets)
{
    // Overlapping and decreasing offsets whose segments the CPU path's rank sort and radix sort
    // take at once (several work-items on the same keys): any order, nothing outside touched.
    env_override force("CLPRIM_SEGMENTED_PATH", "cpu");
    const std::size_t n = 3000;
    const auto keys = make_data<cl_uint>(n, distribution::random);
    const std::vector<cl_uint> bad = {0, 50, 10, 60, 20, 1000, 500, 1500, 1490, 1540, 2999, 3000, 0, 2000, 40, 7000};
    check(queue, keys, bad, clprim::sort_order::ascending, true, "cpu overlapping pairs", true);
    check(queue, make_data<cl_ulong>(n, distribution::random), bad, clprim::sort_order::descending, false,
          "cpu overlapping ulong keys", true);
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (seg_mix mix : {seg_mix::few_large, seg_mix::with_empties}) {
        const std::size_t n = 100007;
        check(ooo, dup_keys<cl_uint>(n), offsets_from_lengths<cl_uint>(segment_lengths(mix, n, 100), 0),
              clprim::sort_order::ascending, true, std::string("out-of-order ") + name_of(mix));
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    bc::vector<cl_uint> k(100, context);
    bc::vector<cl_uint> o(11, context);
    BOOST_CHECK_THROW(clprim::segmented_sort_by_key(k.begin(), k.end(), k.begin() + 10, o.begin(), o.end(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::segmented_sort(k.begin(), k.end(), o.begin(), o.begin(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::segmented_sort(k.begin() + 5, k.begin(), o.begin(), o.end(), queue),
                      clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_SUITE_END()
