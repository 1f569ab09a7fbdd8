// The radix sort: each stage on its own (digit count, scan layout, rank and scatter), then whole
// sorts of every key type, both orders, the standard sizes and distributions against
// std::stable_sort with the total order, bit for bit; sort_by_key stability; the range's
// neighbours untouched; skipped passes; bad input.
#define BOOST_TEST_MODULE clprim_radix_sort
#include "clprim_test_fixture.hpp"

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/element_type.hpp>

#include <cstdlib>
#include <cstring>
#include <numeric>

using namespace clprim_test;
namespace cd = clprim::detail;

namespace {

constexpr std::size_t guard = 3; // sentinels on each side of the sorted range

template <class T>
T sentinel()
{
    if constexpr (std::is_floating_point_v<T>) return T(-12345.5);
    else return T(0x5A5A5A5A);
}

// The order a stable sort must give: positions of the input in output order.
template <class K>
std::vector<std::size_t> reference_permutation(const std::vector<K>& keys, bool descending)
{
    std::vector<std::size_t> p(keys.size());
    std::iota(p.begin(), p.end(), std::size_t(0));
    std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) {
        return descending ? total_less(keys[b], keys[a]) : total_less(keys[a], keys[b]);
    });
    return p;
}

template <class T>
std::vector<T> with_guards(const std::vector<T>& v)
{
    std::vector<T> g(v.size() + 2 * guard, sentinel<T>());
    std::copy(v.begin(), v.end(), g.begin() + guard);
    return g;
}

// Sorts keys (between sentinels) on the device; true if the result is the stable reference bit
// for bit and the sentinels are untouched.
template <class K>
bool check_sort(const std::vector<K>& keys, bool descending, bc::command_queue& queue, const std::string& what)
{
    // Keys that tie in the total order are equal bit for bit, so sorting the keys themselves gives
    // the stable result (and takes a fraction of the index sort's time at 2^28).
    std::vector<K> expect = keys;
    if (descending) std::sort(expect.begin(), expect.end(), [](K a, K b) { return total_less(b, a); });
    else std::sort(expect.begin(), expect.end(), [](K a, K b) { return total_less(a, b); });

    auto d = to_device(with_guards(keys), queue);
    clprim::radix_sort(d.begin() + guard, d.end() - guard, queue,
                       descending ? clprim::sort_order::descending : clprim::sort_order::ascending);
    const auto got = to_host(d, queue);
    const std::vector<K> body(got.begin() + guard, got.end() - guard);
    const long diff = first_difference(body, expect);
    bool guards_ok = true;
    for (std::size_t i = 0; i < guard; ++i)
        guards_ok = guards_ok && bit_equal(std::vector<K>{got[i]}, std::vector<K>{sentinel<K>()}) &&
                    bit_equal(std::vector<K>{got[got.size() - 1 - i]}, std::vector<K>{sentinel<K>()});
    if (diff >= 0) BOOST_TEST_MESSAGE(what << ": first difference at " << diff);
    BOOST_TEST(diff == -1, what);
    BOOST_TEST(guards_ok, what << ": elements outside the range changed");
    return diff == -1 && guards_ok;
}

// sort_by_key with values = input indices (as V): keys as the reference, values its permutation.
template <class K, class V>
void check_sort_by_key(const std::vector<K>& keys, bool descending, bc::command_queue& queue, const std::string& what)
{
    const auto perm = reference_permutation(keys, descending);
    std::vector<K> expect_keys(keys.size());
    std::vector<V> values(keys.size()), expect_values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        values[i] = static_cast<V>(i);
        expect_keys[i] = keys[perm[i]];
        expect_values[i] = static_cast<V>(perm[i]);
    }
    auto dk = to_device(with_guards(keys), queue);
    auto dv = to_device(with_guards(values), queue);
    clprim::radix_sort_by_key(dk.begin() + guard, dk.end() - guard, dv.begin() + guard, queue,
                              descending ? clprim::sort_order::descending : clprim::sort_order::ascending);
    const auto gk = to_host(dk, queue);
    const auto gv = to_host(dv, queue);
    BOOST_TEST(first_difference(std::vector<K>(gk.begin() + guard, gk.end() - guard), expect_keys) == -1, what);
    BOOST_TEST(first_difference(std::vector<V>(gv.begin() + guard, gv.end() - guard), expect_values) == -1,
               what << ": values (stability)");
    BOOST_TEST(bit_equal(std::vector<K>(gk.begin(), gk.begin() + guard), std::vector<K>(guard, sentinel<K>())), what);
    BOOST_TEST(bit_equal(std::vector<V>(gv.end() - guard, gv.end()), std::vector<V>(guard, sentinel<V>())), what);
}

const char* order_name(bool descending) { return descending ? "descending" : "ascending"; }

// The stage kernels, built as radix_sort.cpp builds them but with a small tile (WG 64 x KPT 4)
// so a few thousand keys make several tiles and a partial one.
constexpr std::size_t stage_wg = 64, stage_kpt = 4, stage_tile = stage_wg * stage_kpt, radix = 256;

bc::program stage_program(bc::context& context, bool has_values, bool descending, const std::string& variant = "")
{
    std::string o = cd::type_options(cd::element_type::uint32, "K") + " -DWG=" + std::to_string(stage_wg) +
                    " -DKPT=" + std::to_string(stage_kpt) + " -DRADIX_BITS=8";
    if (has_values) o += " -DHAS_VALUES -DV=uint";
    if (descending) o += " -DSORT_DESCENDING";
    o += variant;
    return cd::algorithms_program(
        context, {"sort_key_order.cl", "workgroup_scan.cl", "workgroup_histogram.cl", "radix_sort.cl"}, o);
}

// Host digit-major table: t[d * groups + g] = keys of tile g with digit d at shift.
std::vector<cl_uint> host_counts(const std::vector<cl_uint>& keys, unsigned shift)
{
    const std::size_t groups = (keys.size() + stage_tile - 1) / stage_tile;
    std::vector<cl_uint> t(radix * groups, 0);
    for (std::size_t i = 0; i < keys.size(); ++i) ++t[((keys[i] >> shift) & 255u) * groups + i / stage_tile];
    return t;
}

void run_count(bc::kernel& k, const bc::vector<cl_uint>& keys, std::size_t offset, std::size_t n, unsigned shift,
               bc::vector<cl_uint>& counts, bc::vector<cl_uint>& mask, bc::command_queue& queue)
{
    const std::size_t groups = (n + stage_tile - 1) / stage_tile;
    k.set_arg(0, keys.get_buffer());
    k.set_arg(1, cl_ulong(offset));
    k.set_arg(2, cl_uint(n));
    k.set_arg(3, cl_uint(1)); // uint keys: the sortable bits are the keys
    k.set_arg(4, cl_uint(shift));
    k.set_arg(5, counts.get_buffer());
    k.set_arg(6, mask.get_buffer());
    k.set_arg(7, cl_uint(1));
    queue.enqueue_1d_range_kernel(k, 0, groups * stage_wg, stage_wg);
}

// sort_by_key with 16-byte vector values (uint4: the input index and three words made from it),
// between guards: keys as the stable reference, every value beside its key in stable order.
void check_sort_by_key_uint4(const std::vector<cl_uint>& keys, bool descending, bc::command_queue& queue,
                             const std::string& what)
{
    const auto perm = reference_permutation(keys, descending);
    auto value_of = [](std::size_t i) { return bc::uint4_(cl_uint(i), ~cl_uint(i), cl_uint(i * 3u), 0xC0FFEEu); };
    std::vector<bc::uint4_> values(keys.size() + 2 * guard, bc::uint4_(7u, 7u, 7u, 7u));
    for (std::size_t i = 0; i < keys.size(); ++i) values[guard + i] = value_of(i);
    auto dk = to_device(with_guards(keys), queue);
    auto dv = to_device(values, queue);
    clprim::radix_sort_by_key(dk.begin() + guard, dk.end() - guard, dv.begin() + guard, queue,
                              descending ? clprim::sort_order::descending : clprim::sort_order::ascending);
    const auto gk = to_host(dk, queue);
    const auto gv = to_host(dv, queue);
    std::vector<cl_uint> expect_keys(keys.size());
    long bad_value = -1;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        expect_keys[i] = keys[perm[i]];
        const bc::uint4_ want = value_of(perm[i]);
        if (bad_value < 0 && std::memcmp(&gv[guard + i], &want, sizeof want) != 0) bad_value = long(i);
    }
    bool guards_ok = true;
    for (std::size_t i = 0; i < guard; ++i)
        for (const bc::uint4_& g : {gv[i], gv[gv.size() - 1 - i]}) guards_ok = guards_ok && g == bc::uint4_(7u, 7u, 7u, 7u);
    BOOST_TEST(first_difference(std::vector<cl_uint>(gk.begin() + guard, gk.end() - guard), expect_keys) == -1, what);
    BOOST_TEST(bad_value == -1, what << ": values (stability), first difference at " << bad_value);
    BOOST_TEST(guards_ok, what << ": values outside the range changed");
}

// The one-sweep rankings this device has: the portable one, and NVIDIA's where it runs.
std::vector<std::string> onesweep_rankings()
{
    std::vector<std::string> paths{"onesweep_portable"};
    if (cd::profile_of(device_under_test::get().device).nvidia) paths.push_back("onesweep");
    return paths;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(radix_sort, fixture)

// Stage 1: radix_count gives the digit-major (digit x tile) table and the OR/AND of the keys.
BOOST_AUTO_TEST_CASE(stage_digit_count)
{
    auto program = stage_program(context, false, false);
    auto k = program.create_kernel("radix_count");
    for (std::size_t n : {std::size_t(1), stage_tile - 1, stage_tile, 5 * stage_tile + 77}) {
        auto keys = make_data<cl_uint>(n, distribution::random, 7);
        keys[0] = 0x01020304u; // known bits for the mask
        auto d = to_device(with_guards(keys), queue);
        const std::size_t groups = (n + stage_tile - 1) / stage_tile;
        for (unsigned shift : {0u, 8u, 24u}) {
            bc::vector<cl_uint> counts(radix * groups, context);
            bc::vector<cl_uint> mask(4, context);
            const std::vector<cl_uint> init{0u, 0u, ~0u, ~0u};
            bc::copy(init.begin(), init.end(), mask.begin(), queue);
            run_count(k, d, guard, n, shift, counts, mask, queue);
            BOOST_TEST(to_host(counts, queue) == host_counts(keys, shift), "n " << n << " shift " << shift);
            cl_uint any = 0, all = ~0u;
            for (auto x : keys) any |= x, all &= x;
            const auto m = to_host(mask, queue);
            BOOST_TEST(m[0] == any);
            BOOST_TEST(m[2] == all);
        }
    }
}

// Stage 2: the device-wide exclusive scan of that table gives every (digit, tile) its first output
// slot: keys of smaller digits, then keys of the same digit in earlier tiles.
BOOST_AUTO_TEST_CASE(stage_scan_layout)
{
    auto program = stage_program(context, false, false);
    auto k = program.create_kernel("radix_count");
    const std::size_t n = 9 * stage_tile + 5;
    const auto keys = make_data<cl_uint>(n, distribution::few_distinct, 3);
    auto d = to_device(keys, queue);
    const std::size_t groups = (n + stage_tile - 1) / stage_tile;
    bc::vector<cl_uint> counts(radix * groups, context);
    bc::vector<cl_uint> mask(4, context);
    run_count(k, d, 0, n, 16, counts, mask, queue);
    const cl_uint zero = 0;
    const cd::buffer_range table{counts.get_buffer(), 0, counts.size()};
    cd::scan_impl(table, table, cd::element_type::uint32, false, &zero, clprim::scan_algorithm::fast, queue);
    const auto offsets = to_host(counts, queue);
    for (std::size_t dg = 0; dg < radix; ++dg)
        for (std::size_t g = 0; g < groups; ++g) {
            std::size_t expect = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t di = (keys[i] >> 16) & 255u;
                if (di < dg || (di == dg && i / stage_tile < g)) ++expect;
            }
            if (offsets[dg * groups + g] != expect) {
                BOOST_TEST(offsets[dg * groups + g] == expect, "digit " << dg << " tile " << g);
                return;
            }
        }
}

// Stage 3: radix_scatter ranks every tile by digit (stable) and writes each key (and its value) to
// its slot: one pass is a stable partition by that digit. Also converts keys in and out. Every
// kernel variant (radix_sort.cl: packed rank counters, values staged in local memory, blocked loads).
BOOST_AUTO_TEST_CASE(stage_rank_and_scatter)
{
    for (const std::string variant : {"", " -DRANK_PACKED", " -DSTAGE_VALUES", " -DBLOCKED_LOAD",
                                     " -DRANK_PACKED -DSTAGE_VALUES -DBLOCKED_LOAD"})
    for (bool descending : {false, true}) {
        BOOST_TEST_CONTEXT("variant '" << variant << "'")
        {
        auto program = stage_program(context, true, descending, variant);
        auto count = program.create_kernel("radix_count");
        auto scatter = program.create_kernel("radix_scatter");
        for (std::size_t n : {std::size_t(2), stage_tile + 1, 7 * stage_tile - 3}) {
            const unsigned shift = 8;
            const auto keys = make_data<cl_uint>(n, distribution::random, 11);
            std::vector<cl_uint> values(n);
            std::iota(values.begin(), values.end(), 0u);
            // Reference: stable partition by the digit of the sortable bits.
            std::vector<std::size_t> p(n);
            std::iota(p.begin(), p.end(), std::size_t(0));
            auto digit = [&](cl_uint x) { return ((descending ? ~x : x) >> shift) & 255u; };
            std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) { return digit(keys[a]) < digit(keys[b]); });

            auto dk = to_device(with_guards(keys), queue);
            auto dv = to_device(with_guards(values), queue);
            bc::vector<cl_uint> out(n + 2 * guard, sentinel<cl_uint>(), queue);
            bc::vector<cl_uint> vout(n + 2 * guard, sentinel<cl_uint>(), queue);
            const std::size_t groups = (n + stage_tile - 1) / stage_tile;
            bc::vector<cl_uint> counts(radix * groups, context);
            bc::vector<cl_uint> mask(4, context);
            count.set_arg(0, dk.get_buffer());
            count.set_arg(1, cl_ulong(guard));
            count.set_arg(2, cl_uint(n));
            count.set_arg(3, cl_uint(1));
            count.set_arg(4, cl_uint(shift));
            count.set_arg(5, counts.get_buffer());
            count.set_arg(6, mask.get_buffer());
            count.set_arg(7, cl_uint(0));
            queue.enqueue_1d_range_kernel(count, 0, groups * stage_wg, stage_wg);
            const cl_uint zero = 0;
            const cd::buffer_range table{counts.get_buffer(), 0, counts.size()};
            cd::scan_impl(table, table, cd::element_type::uint32, false, &zero, clprim::scan_algorithm::fast, queue);
            scatter.set_arg(0, dk.get_buffer());
            scatter.set_arg(1, cl_ulong(guard));
            scatter.set_arg(2, out.get_buffer());
            scatter.set_arg(3, cl_ulong(guard));
            scatter.set_arg(4, cl_uint(n));
            scatter.set_arg(5, cl_uint(1)); // convert in and out: the keys come back as keys
            scatter.set_arg(6, cl_uint(1));
            scatter.set_arg(7, cl_uint(shift));
            scatter.set_arg(8, counts.get_buffer());
            scatter.set_arg(9, dv.get_buffer());
            scatter.set_arg(10, cl_ulong(guard));
            scatter.set_arg(11, vout.get_buffer());
            scatter.set_arg(12, cl_ulong(guard));
            queue.enqueue_1d_range_kernel(scatter, 0, groups * stage_wg, stage_wg);
            std::vector<cl_uint> ek(n), ev(n);
            for (std::size_t i = 0; i < n; ++i) ek[i] = keys[p[i]], ev[i] = cl_uint(p[i]);
            const auto gk = to_host(out, queue), gv = to_host(vout, queue);
            BOOST_TEST(std::vector<cl_uint>(gk.begin() + guard, gk.end() - guard) == ek, "n " << n << " " << order_name(descending));
            BOOST_TEST(std::vector<cl_uint>(gv.begin() + guard, gv.end() - guard) == ev, "n " << n << " " << order_name(descending));
            BOOST_TEST(gk[0] == sentinel<cl_uint>());
            BOOST_TEST(gk[n + 2 * guard - 1] == sentinel<cl_uint>());
            BOOST_TEST(gv[n + 2 * guard - 1] == sentinel<cl_uint>());
        }
        }
    }
}

// Every type, both orders, every standard size up to 65537 and every distribution.
BOOST_AUTO_TEST_CASE_TEMPLATE(all_sizes_and_distributions, K, all_types)
{
    if (!type_runs_here<K>()) return;
    for (bool descending : {false, true})
        for (std::size_t n : standard_sizes(false))
            for (distribution dist : all_distributions())
                check_sort(make_data<K>(n, dist), descending, queue,
                           type_label<K>() + " n " + std::to_string(n) + " " + name_of(dist) + " " + order_name(descending));
}

// Past 2^20 (more tiles than a scan block, partial last tile), for a spread of combinations.
BOOST_AUTO_TEST_CASE_TEMPLATE(large, K, all_types)
{
    if (!type_runs_here<K>()) return;
    const std::size_t n = (std::size_t(1) << 20) + 3;
    const bool descending = std::is_signed_v<K> || std::is_floating_point_v<K>;
    const distribution dist = std::is_floating_point_v<K> ? distribution::float_specials : distribution::random;
    check_sort(make_data<K>(n, dist), descending, queue, type_label<K>() + " 2^20+3 " + name_of(dist));
}

// sort_by_key: values (input indices) travel with their keys; equal keys keep their order.
BOOST_AUTO_TEST_CASE(by_key_stability)
{
    // One program per (key type, order, value width): a spread of pairs and orders, not all.
    auto pairs = [&](auto key, auto value, std::vector<bool> orders) {
        using K = decltype(key);
        using V = decltype(value);
        if (!type_runs_here<K>() || !type_runs_here<V>()) return;
        for (bool descending : orders)
            for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65537)})
                for (distribution dist : {distribution::few_distinct, distribution::all_equal, distribution::random,
                                          distribution::float_specials})
                    check_sort_by_key<K, V>(make_data<K>(n, dist), descending, queue,
                                            type_label<K>() + "->" + type_label<V>() + " n " + std::to_string(n) + " " +
                                                name_of(dist) + " " + order_name(descending));
    };
    pairs(cl_uint{}, cl_uint{}, {false, true});
    pairs(cl_float{}, cl_ulong{}, {true});
    pairs(cl_long{}, cl_float{}, {false});
    pairs(cl_double{}, cl_int{}, {true});
    pairs(cl_int{}, cl_double{}, {false});
    pairs(cl_ulong{}, cl_long{}, {true});
}

BOOST_AUTO_TEST_CASE(by_key_large)
{
    const std::size_t n = (std::size_t(1) << 20) + 3;
    check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), false, queue,
                                        "uint->uint 2^20+3 few_distinct");
}

// Whole sorts with the kernel variants the host picks (CLPRIM_RADIX_VARIANT bits: packed rank
// counters, staged values, blocked loads; 0 on CPU devices, 7 on GPUs), whichever device runs the
// suite, restoring the caller's setting after. (stage_rank_and_scatter checks each bit alone.)
BOOST_AUTO_TEST_CASE(kernel_variants)
{
    for (const char* v : {"0", "7"}) {
        const env_override variant("CLPRIM_RADIX_VARIANT", v);
        const std::string tag = std::string("variant ") + v + " ";
        for (std::size_t n : {std::size_t(4097), std::size_t(100003)}) {
            check_sort(make_data<cl_uint>(n, distribution::random), false, queue, tag + "uint n " + std::to_string(n));
            check_sort(make_data<cl_float>(n, distribution::float_specials), true, queue, tag + "float n " + std::to_string(n));
            check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), false, queue,
                                                tag + "uint->uint n " + std::to_string(n));
            if (type_runs_here<cl_ulong>()) {
                check_sort_by_key<cl_ulong, cl_uint>(make_data<cl_ulong>(n, distribution::random), true, queue,
                                                     tag + "ulong->uint n " + std::to_string(n));
                check_sort_by_key<cl_uint, cl_ulong>(make_data<cl_uint>(n, distribution::random), false, queue,
                                                     tag + "uint->ulong n " + std::to_string(n));
            }
        }
    }
}

// The one-sweep path (one kernel per digit chained by decoupled look-back) forced on the device
// under test, with NVIDIA's warp-vote ranking where the device has it and the portable ranking
// everywhere (PoCL included: its work-groups also run to completion, so the look-back's spin is
// safe there). The large case has far more tiles than the device runs at once (about 11K tiles of
// 6144 keys on a GPU, which runs about 660 at once; 171 on a CPU device, which runs a few), so
// tiles wait on running predecessors.
BOOST_AUTO_TEST_CASE(onesweep_paths)
{
    const bool gpu = on_gpu();
    std::vector<std::string> paths{"onesweep_portable"};
    if (on_nvidia()) paths.push_back("onesweep");
    for (const std::string& path : paths) {
        env_override force("CLPRIM_RADIX_PATH", path);
        auto keys_of = [&](auto key, std::vector<std::size_t> sizes) {
            using K = decltype(key);
            if (!type_runs_here<K>()) return;
            for (bool descending : {false, true})
                for (std::size_t n : sizes)
                    for (distribution dist : all_distributions())
                        check_sort(make_data<K>(n, dist), descending, queue,
                                   path + " " + type_label<K>() + " n " + std::to_string(n) + " " + name_of(dist) + " " +
                                       order_name(descending));
        };
        const std::vector<std::size_t> sizes{0, 1, 2, 33, 255, 4095, 4097, 65537};
        keys_of(cl_uint{}, sizes);
        keys_of(cl_int{}, sizes);
        keys_of(cl_float{}, sizes);
        keys_of(cl_ulong{}, {1, 4097, 65537});
        keys_of(cl_long{}, {2, 4095});
        keys_of(cl_double{}, {33, 65537});
        const std::size_t large = gpu ? (std::size_t(1) << 26) + 7 : (std::size_t(1) << 20) + 3;
        check_sort(make_data<cl_uint>(large, distribution::random), false, queue, path + " uint large random");
        check_sort(make_data<cl_float>(large, distribution::float_specials), true, queue, path + " float large specials");
        if (type_runs_here<cl_ulong>())
            check_sort(make_data<cl_ulong>(large / 4, distribution::random), true, queue, path + " ulong large/4 random");
        for (bool descending : {false, true})
            for (std::size_t n : {std::size_t(1), std::size_t(4097), std::size_t(65537)})
                for (distribution dist : {distribution::few_distinct, distribution::random, distribution::all_equal}) {
                    const std::string tag = path + " n " + std::to_string(n) + " " + name_of(dist) + " " + order_name(descending);
                    check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, dist), descending, queue, tag + " uint->uint");
                    check_sort_by_key<cl_uint, cl_ulong>(make_data<cl_uint>(n, dist), descending, queue, tag + " uint->ulong");
                    check_sort_by_key<cl_float, cl_double>(make_data<cl_float>(n, dist), descending, queue, tag + " float->double");
                    check_sort_by_key<cl_ulong, cl_uint>(make_data<cl_ulong>(n, dist), descending, queue, tag + " ulong->uint");
                }
        check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(large, distribution::random), false, queue,
                                            path + " uint->uint large random");
        // Digits that are the same for every key (the NVIDIA build copies such passes).
        std::mt19937 rng(11);
        std::vector<cl_uint> low(70001), same(70001, 0xDEADBEEFu);
        for (auto& x : low) x = 0xAB000000u | (rng() & 0xFFu);
        for (bool descending : {false, true}) {
            check_sort(low, descending, queue, path + " only the low digit varies");
            check_sort(same, descending, queue, path + " no digit varies");
            check_sort_by_key<cl_uint, cl_uint>(low, descending, queue, path + " pairs, only the low digit varies");
        }
    }
}

// The one-launch path for small ranges (sort_small.cl: a bitonic network over (key, index) pairs
// in one work-group's local memory), forced on the device under test: every key type, both
// orders, keys alone and pairs (stability: the index breaks ties), sizes from 2 to the largest it
// takes (sizes it cannot take fall back to the device's own choice).
BOOST_AUTO_TEST_CASE(small_path)
{
    env_override force("CLPRIM_RADIX_PATH", "small");
    const std::vector<std::size_t> sizes{2, 3, 31, 32, 33, 255, 257, 1000, 2047, 2048, 4095, 4096};
    auto keys_of = [&](auto key) {
        using K = decltype(key);
        if (!type_runs_here<K>()) return;
        for (bool descending : {false, true})
            for (std::size_t n : sizes)
                for (distribution dist : {distribution::random, distribution::few_distinct, distribution::float_specials})
                    check_sort(make_data<K>(n, dist), descending, queue,
                               "small " + type_label<K>() + " n " + std::to_string(n) + " " + name_of(dist) + " " +
                                   order_name(descending));
    };
    keys_of(cl_uint{});
    keys_of(cl_int{});
    keys_of(cl_float{});
    keys_of(cl_ulong{});
    keys_of(cl_long{});
    keys_of(cl_double{});
    for (bool descending : {false, true})
        for (std::size_t n : {std::size_t(2), std::size_t(777), std::size_t(4096)}) {
            const std::string tag = "small pairs n " + std::to_string(n) + " " + order_name(descending);
            check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), descending, queue, tag + " uint->uint");
            check_sort_by_key<cl_float, cl_double>(make_data<cl_float>(n, distribution::few_distinct), descending, queue,
                                                   tag + " float->double");
            check_sort_by_key<cl_ulong, cl_uint>(make_data<cl_ulong>(n, distribution::all_equal), descending, queue,
                                                 tag + " ulong->uint");
        }
}

// The look-back's decoupled fallback (lookback.cl, radix_onesweep.cl): with CLPRIM_LOOKBACK=fallback
// every tile counts its predecessor's digits from that tile's keys and takes the fallback at any
// empty slot instead of waiting; the sorts must come out the same. Keys and pairs, 4- and 8-byte
// keys, both orders, every ranking the device has, with thousands of tiles on the GPU.
BOOST_AUTO_TEST_CASE(onesweep_fallback_every_tile)
{
    const bool gpu = on_gpu();
    env_override fallback("CLPRIM_LOOKBACK", "fallback");
    std::vector<std::string> paths{"onesweep_portable"};
    if (on_nvidia()) paths.push_back("onesweep");
    for (const std::string& path : paths) {
        env_override force("CLPRIM_RADIX_PATH", path);
        std::vector<std::size_t> sizes{1, 4097, 65537, (std::size_t(1) << 20) + 3};
        if (gpu) sizes.push_back((std::size_t(1) << 24) + 7); // about 2700 tiles: four times what an H100 runs at once
        for (std::size_t n : sizes)
            for (bool descending : {false, true}) {
                const std::string tag = path + " fallback n " + std::to_string(n) + " " + order_name(descending);
                check_sort(make_data<cl_uint>(n, distribution::random), descending, queue, tag + " uint");
                check_sort(make_data<cl_float>(n, distribution::float_specials), descending, queue, tag + " float");
                check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), descending, queue,
                                                    tag + " uint->uint");
                if (type_runs_here<cl_ulong>() && n < (std::size_t(1) << 26))
                    check_sort(make_data<cl_ulong>(n, distribution::random), descending, queue, tag + " ulong");
            }
    }
}

// The one-sweep status words stay with the queue from call to call (radix_onesweep.cpp: each
// call's histogram clears the info half the next call uses, each pass the next pass's slots): calls
// whose sizes move the slot regions, 4-pass and 8-pass keys sharing the halves, pairs, an
// out-of-order queue (its in-order companion keeps the state), then two host threads sorting on
// one queue at once (each call holds the state while it enqueues) and on a queue each.
BOOST_AUTO_TEST_CASE(onesweep_state_across_calls)
{
    std::vector<std::string> paths{"onesweep_portable"};
    if (on_nvidia()) paths.push_back("onesweep");
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    const bool has_ooo = (ooo.get_properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    for (const std::string& path : paths) {
        env_override force("CLPRIM_RADIX_PATH", path);
        for (int round = 0; round < 2; ++round)
            for (std::size_t n : {std::size_t(200003), std::size_t(1), std::size_t(4097), std::size_t(65537), std::size_t(33)}) {
                const std::string tag = path + " round " + std::to_string(round) + " n " + std::to_string(n);
                check_sort(make_data<cl_uint>(n, distribution::random, n + round), false, queue, tag + " uint");
                if (type_runs_here<cl_ulong>())
                    check_sort(make_data<cl_ulong>(n / 2 + 1, distribution::random, n), true, queue, tag + " ulong");
                check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct, n), round == 1, queue,
                                                    tag + " uint->uint");
                if (has_ooo) check_sort(make_data<cl_uint>(n, distribution::random, n + 7), false, ooo, tag + " out of order");
            }

        for (bool shared_queue : {true, false}) {
            const auto failure = run_on_two_threads(
                context, device, shared_queue ? &queue : nullptr, 6, [&](int who, bc::command_queue& q, int round) {
                    const std::size_t n = (round % 2 ? 70001 : 300007) + std::size_t(who) * 13;
                    auto host = make_data<cl_uint>(n, distribution::random, std::uint64_t(who * 100 + round));
                    auto d = to_device(host, q);
                    clprim::radix_sort(d.begin(), d.end(), q);
                    std::sort(host.begin(), host.end());
                    const long diff = first_difference(to_host(d, q), host);
                    return diff < 0 ? std::string() : "round " + std::to_string(round) + " n=" + std::to_string(n) +
                                                           ": first difference at " + std::to_string(diff);
                });
            for (int who = 0; who < 2; ++who)
                BOOST_TEST(failure[who].empty(),
                           path << (shared_queue ? ", one queue" : ", own queues") << ", thread " << who << ": " << failure[who]);
        }
    }
}

// Portions (radix_onesweep.cpp, radix_onesweep_pass.cl): a pass over more keys than a portion is
// one launch per portion, each portion's digit starts carried from the one before by its last
// tile. Tiles of 1024 keys (CLPRIM_ONESWEEP_TUNE=256,4) and portions of 2048 (CLPRIM_ONESWEEP_PORTION,
// two tiles), so that sizes around k portions (k*P - 1, k*P, k*P + 1) are small: every key type,
// pairs with 1-byte keys (one pass, from a copy) and 4-, 8- and 16-byte values (stability: few
// distinct keys), values wider than the keys staged over the keys'
// local array, the look-back's fallback taken by every tile, and portions of two default tiles;
// both orders across the cases, guards around every range. Each line is one program to build (on
// PoCL a cold build is seconds), so each covers what the others do not.
BOOST_AUTO_TEST_CASE(onesweep_portions)
{
    constexpr std::size_t P = 2048;
    const std::vector<std::size_t> around{P - 1, P, P + 1, 3 * P - 1, 3 * P, 3 * P + 1, 7 * P + 555};
    for (const std::string& path : onesweep_rankings()) {
        env_override force("CLPRIM_RADIX_PATH", path);
        {
            env_override tune("CLPRIM_ONESWEEP_TUNE", "256,4");
            env_override portion("CLPRIM_ONESWEEP_PORTION", std::to_string(P));
            auto keys_of = [&](auto key, bool descending, distribution dist) {
                using K = decltype(key);
                if (!type_runs_here<K>()) return;
                for (std::size_t n : around)
                    check_sort(make_data<K>(n, dist), descending, queue,
                               path + " portions " + type_label<K>() + " n " + std::to_string(n) + " " + order_name(descending));
            };
            keys_of(cl_uint{}, false, distribution::random);
            keys_of(cl_int{}, true, distribution::random);
            keys_of(cl_float{}, true, distribution::float_specials);
            keys_of(cl_short{}, false, distribution::random);
            keys_of(cl_ushort{}, true, distribution::random);
            keys_of(cl_uchar{}, false, distribution::random); // the counting sort: no pass kernel
            keys_of(cl_ulong{}, true, distribution::random);
            keys_of(cl_long{}, false, distribution::random);
            keys_of(cl_double{}, false, distribution::float_specials);
            for (std::size_t n : around) {
                const std::string tag = path + " portions n " + std::to_string(n);
                check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), true, queue,
                                                    tag + " uint->uint descending");
                check_sort_by_key<cl_char, cl_uint>(make_data<cl_char>(n, distribution::random), false, queue,
                                                    tag + " char->uint ascending");
                check_sort_by_key_uint4(make_data<cl_uint>(n, distribution::few_distinct), false, queue,
                                        tag + " uint->uint4 ascending");
                if (type_runs_here<cl_double>())
                    check_sort_by_key<cl_float, cl_double>(make_data<cl_float>(n, distribution::few_distinct), true,
                                                           queue, tag + " float->double descending");
            }
            // Values wider than the keys staged over the keys' local array (V_OVER_KEYS).
            {
                env_override over("CLPRIM_ONESWEEP_VALUE_OVER_KEYS", "1");
                for (std::size_t n : {P + 1, 7 * P + 555}) {
                    const std::string tag = path + " portions, values over keys, n " + std::to_string(n);
                    check_sort_by_key_uint4(make_data<cl_uint>(n, distribution::few_distinct), true, queue,
                                            tag + " uint->uint4 descending");
                    check_sort_by_key<cl_ushort, cl_uint>(make_data<cl_ushort>(n, distribution::few_distinct), false, queue,
                                                          tag + " ushort->uint ascending");
                }
            }
            // Every tile takes the look-back's fallback (its predecessor's digits counted from the
            // keys of that tile of the portion).
            env_override fallback("CLPRIM_LOOKBACK", "fallback");
            for (std::size_t n : {3 * P + 1, 7 * P + 555})
                check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(n, distribution::few_distinct), true, queue,
                                                    path + " portions, fallback, n " + std::to_string(n) + " uint->uint");
        }
        // The default tile, two tiles a portion.
        env_override portion("CLPRIM_ONESWEEP_PORTION", "12288");
        check_sort_by_key<cl_uint, cl_uint>(make_data<cl_uint>(100003, distribution::random), true, queue,
                                            path + " portions of two default tiles uint->uint");
    }
}

// More than 2^30 - 1 keys on GPUs with the memory: the one-sweep sort in portions at the default
// portion (2^31 + 4099 uint keys: 3 portions a pass; 2^30 + 4099 uint -> uint pairs: 2). Checked in
// O(n) with cheap streaming host loops: keys alone ascend and hold the input's keys (equal sums of
// the keys and of their squares, mod 2^64); pairs: values are input positions (equal mixed sums),
// each beside its own key (recomputed from the position), equal keys in input order. Keys are i
// times an odd constant, xor-folded.
BOOST_AUTO_TEST_CASE(beyond_2_30_on_gpus)
{
    if (!cd::profile_of(device).is_gpu()) return;
    const std::size_t n = (std::size_t(1) << 31) + 4099, np = (std::size_t(1) << 30) + 4099;
    if (device.global_memory_size() < 3 * n * sizeof(cl_uint) || device.max_memory_alloc_size() < n * sizeof(cl_uint)) {
        BOOST_TEST_MESSAGE("beyond_2_30_on_gpus: skipped, the device has too little memory");
        return;
    }
    auto key_of = [](std::size_t i) { return cl_uint(i * 0x9E3779B1u) ^ cl_uint(i >> 27); };
    {
        std::vector<cl_uint> host(n);
        cl_ulong sum = 0, squares = 0;
        for (std::size_t i = 0; i < n; ++i) {
            host[i] = key_of(i);
            sum += host[i];
            squares += cl_ulong(host[i]) * host[i];
        }
        bc::buffer d(context, n * sizeof(cl_uint));
        queue.enqueue_write_buffer(d, 0, n * sizeof(cl_uint), host.data());
        clprim::radix_sort(bc::buffer_iterator<cl_uint>(d, 0), bc::buffer_iterator<cl_uint>(d, n), queue);
        queue.enqueue_read_buffer(d, 0, n * sizeof(cl_uint), host.data());
        std::size_t descents = 0;
        cl_ulong got_sum = 0, got_squares = 0;
        for (std::size_t i = 0; i < n; ++i) {
            descents += i > 0 && host[i] < host[i - 1];
            got_sum += host[i];
            got_squares += cl_ulong(host[i]) * host[i];
        }
        BOOST_TEST(descents == 0u, "2^31 + 4099 uint keys");
        BOOST_TEST(got_sum == sum, "2^31 + 4099 uint keys");
        BOOST_TEST(got_squares == squares, "2^31 + 4099 uint keys");
    }
    {
        // Values are the input positions; each key is recomputed from its value (no gather), and
        // the values are a permutation by equal mixed sums (with every value below np).
        auto pair_key = [&](std::size_t i) { return key_of(i) >> 4; }; // repeats: stability matters
        auto mix = [](cl_ulong x) {
            x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ull;
            return x ^ (x >> 27);
        };
        std::vector<cl_uint> keys(np), values(np);
        cl_ulong want_mix = 0;
        for (std::size_t i = 0; i < np; ++i) {
            keys[i] = pair_key(i);
            values[i] = cl_uint(i);
            want_mix += mix(i);
        }
        bc::buffer dk(context, np * sizeof(cl_uint)), dv(context, np * sizeof(cl_uint));
        queue.enqueue_write_buffer(dk, 0, np * sizeof(cl_uint), keys.data());
        queue.enqueue_write_buffer(dv, 0, np * sizeof(cl_uint), values.data());
        clprim::radix_sort_by_key(bc::buffer_iterator<cl_uint>(dk, 0), bc::buffer_iterator<cl_uint>(dk, np),
                                  bc::buffer_iterator<cl_uint>(dv, 0), queue, clprim::sort_order::descending);
        queue.enqueue_read_buffer(dk, 0, np * sizeof(cl_uint), keys.data());
        queue.enqueue_read_buffer(dv, 0, np * sizeof(cl_uint), values.data());
        std::size_t bad = 0;
        cl_ulong got_mix = 0;
        for (std::size_t i = 0; i < np; ++i) {
            const cl_uint v = values[i];
            const bool ok = v < np && pair_key(v) == keys[i] &&
                            (i == 0 || keys[i] < keys[i - 1] || (keys[i] == keys[i - 1] && v > values[i - 1]));
            bad += !ok;
            got_mix += mix(v);
        }
        BOOST_TEST(got_mix == want_mix, "2^30 + 4099 uint -> uint pairs: the values are not the input positions");
        BOOST_TEST(bad == 0u, "2^30 + 4099 uint -> uint pairs, descending");
    }
}

// 2^28 + 1 keys (1 GiB of uint keys, 43691 one-sweep tiles of 6144 keys) on GPU devices: the largest size
// the issue names, far past what the device runs at once. Skipped on CPU devices (minutes there).
BOOST_AUTO_TEST_CASE(huge_on_gpus)
{
    if (!on_gpu()) return;
    const std::size_t n = (std::size_t(1) << 28) + 1;
    check_sort(make_data<cl_uint>(n, distribution::random), false, queue, "uint 2^28+1 random");
}

// Keys that differ only in some digits: the other passes are skipped (one pass, the copy-aside
// path; two non-adjacent passes; none at all).
BOOST_AUTO_TEST_CASE(skipped_passes)
{
    std::mt19937 rng(5);
    const std::size_t n = 5000;
    std::vector<cl_uint> low(n), high(n), split(n), same(n, 0xDEADBEEFu);
    for (std::size_t i = 0; i < n; ++i) {
        low[i] = 0xAB000000u | (rng() & 0xFFu);
        high[i] = (rng() & 0xFF000000u) | 0x123456u;
        split[i] = (rng() & 0x00FF00FFu) | 0x1000u;
    }
    for (bool descending : {false, true}) {
        check_sort(low, descending, queue, "only the low digit varies");
        check_sort(high, descending, queue, "only the high digit varies");
        check_sort(split, descending, queue, "digits 0 and 2 vary");
        check_sort(same, descending, queue, "no digit varies");
    }
    std::vector<cl_ulong> wide(n);
    for (auto& x : wide) x = (cl_ulong(rng() & 0xFF) << 56) | 77u;
    check_sort(wide, false, queue, "ulong: only the top digit varies");
}

BOOST_AUTO_TEST_CASE(bad_input_throws_before_anything_runs)
{
    const std::vector<cl_uint> host{5, 3, 9, 1};
    auto a = to_device(host, queue);
    auto b = to_device(host, queue);
    BOOST_CHECK_THROW(clprim::radix_sort(a.end(), a.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::radix_sort(a.begin(), b.end(), queue), clprim::invalid_argument_error);
    // Values shorter than the keys, and values overlapping the keys.
    bc::buffer short_values(context, 2 * sizeof(cl_uint));
    BOOST_CHECK_THROW(clprim::radix_sort_by_key(a.begin(), a.end(), bc::buffer_iterator<cl_uint>(short_values, 0), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::radix_sort_by_key(a.begin(), a.begin() + 2, a.begin() + 1, queue),
                      clprim::invalid_argument_error);
    BOOST_TEST(to_host(a, queue) == host);
    // Another context's buffer.
    bc::context other(device);
    bc::vector<cl_uint> foreign(4, other);
    BOOST_CHECK_THROW(clprim::radix_sort(foreign.begin(), foreign.end(), queue), clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_SUITE_END()
