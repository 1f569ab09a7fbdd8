// 8/16-bit element types (cl_char, cl_uchar, cl_short, cl_ushort) through every function that
// takes element types, against host references: the radix sort on every path (onesweep, multipass,
// cpu, small) and the merge, bitonic and odd-even sorts, keys alone and with values (stable), both
// orders, extremes (-128, 127, 0, 255, -32768, ...); then reduce, the scans (sums wrap in the type),
// copy_if, histogram, the by-key family, min/max_element, lower/upper_bound, merge, top_k and the
// segmented sort and reduce. A matrix, not the full cross product: the radix paths take all four
// types (one and two digit passes, signed and unsigned), the rest cl_char and cl_ushort.
#define BOOST_TEST_MODULE clprim_small_types
#include "sort_test_support.hpp"

#include <clprim/clprim.hpp>

#include <numeric>

using namespace clprim_test;

namespace {

using order_t = clprim::sort_order;
using small_types = boost::mpl::list<cl_char, cl_uchar, cl_short, cl_ushort>;
// Where the digit count does not matter (comparison sorts, the primitives): one signed 8-bit and
// one unsigned 16-bit type, so the suite builds half the programs.
using two_types = boost::mpl::list<cl_char, cl_ushort>;

const std::vector<std::size_t>& sort_sizes()
{
    static const std::vector<std::size_t> s{0, 1, 2, 31, 257, 4097, 65537};
    return s;
}

const std::vector<distribution>& sort_distributions()
{
    static const std::vector<distribution> d{distribution::random, distribution::extremes, distribution::few_distinct};
    return d;
}

// Each (type, order, keys or pairs) is one program to build: the matrix takes keys ascending and
// pairs descending for every type, and the other two for one signed and one unsigned type
// (cl_char, cl_ushort: one and two digits), not the full product.
template <class T>
bool all_combinations()
{
    return std::is_same_v<T, cl_char> || std::is_same_v<T, cl_ushort>;
}

// Keys and key-value pairs (values = input positions, checked for stability) sorted by `sort`
// and `sort_by_key`, over the sizes and distributions above (on devices that are not CPUs, one
// larger size too).
template <class T, class Sort, class SortByKey>
void check_sort_path(Sort&& sort, SortByKey&& sort_by_key, bool stable, const std::string& label,
                     std::size_t max_n = std::size_t(-1), bool all = all_combinations<T>())
{
    auto sizes = sort_sizes();
    if ((device_under_test::get().device.type() & CL_DEVICE_TYPE_CPU) == 0) sizes.push_back((std::size_t(1) << 22) + 3);
    for (std::size_t n : sizes) {
        if (n > max_n) continue;
        for (distribution d : sort_distributions()) {
            if (n > 5000 && d != distribution::random) continue; // large sizes: random keys only
            for (order_t o : {order_t::ascending, order_t::descending}) {
                const bool keys = o == order_t::ascending || all;
                const bool pairs = o == order_t::descending || all;
                if (keys) check_sorted_keys<T>(n, d, o, [&](auto f, auto l, auto& q) { sort(f, l, q, o); }, label);
                if (pairs)
                    check_sorted_pairs<T, cl_uint>(n, d, o, stable,
                                                   [&](auto f, auto l, auto v, auto& q) { sort_by_key(f, l, v, q, o); }, label);
            }
        }
    }
}

template <class T>
void check_radix_path(const char* path, std::size_t max_n = std::size_t(-1))
{
    env_override p("CLPRIM_RADIX_PATH", path);
    check_sort_path<T>([](auto f, auto l, auto& q, order_t o) { clprim::radix_sort(f, l, q, o); },
                       [](auto f, auto l, auto v, auto& q, order_t o) { clprim::radix_sort_by_key(f, l, v, q, o); }, true,
                       std::string("radix ") + path, max_n);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(small_types_suite, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(radix_onesweep, T, small_types)
{
    check_radix_path<T>("onesweep");
}

// The textbook and one-launch paths: one type of each digit count (the four types above share
// their code; only the key transform differs by sign).
BOOST_AUTO_TEST_CASE_TEMPLATE(radix_multipass, T, two_types)
{
    check_radix_path<T>("multipass");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(radix_cpu, T, small_types)
{
    check_radix_path<T>("cpu");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(radix_small, T, two_types)
{
    check_radix_path<T>("small", 4096);
}

// The default path of the device (what sort() takes), and the 8-bit extremes in place.
BOOST_AUTO_TEST_CASE(sort_default_extremes)
{
    const std::vector<cl_char> c{127, -128, 0, -1, 1, -128, 127, 5};
    auto dc = to_device(c, queue);
    clprim::sort(dc.begin(), dc.end(), queue);
    const std::vector<cl_char> want_c{-128, -128, -1, 0, 1, 5, 127, 127};
    BOOST_TEST(bit_equal(to_host(dc, queue), want_c));
    const std::vector<cl_ushort> u{65535, 0, 256, 255, 1, 65535};
    auto du = to_device(u, queue);
    clprim::sort(du.begin(), du.end(), queue, clprim::sort_algorithm::radix, order_t::descending);
    const std::vector<cl_ushort> want_u{65535, 65535, 256, 255, 1, 0};
    BOOST_TEST(bit_equal(to_host(du, queue), want_u));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(merge_sort_paths, T, two_types)
{
    for (const char* path : {"gpu", "cpu"}) {
        if (std::string(path) == "cpu" && !std::is_same_v<T, cl_ushort>) continue; // the CPU path: one type
        env_override p("CLPRIM_MERGE_PATH", path);
        check_sort_path<T>([](auto f, auto l, auto& q, order_t o) { clprim::merge_sort(f, l, q, o); },
                           [](auto f, auto l, auto v, auto& q, order_t o) {
                               clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::merge, o);
                           },
                           true, std::string("merge ") + path, 4097, false); // its programs are slow to build on PoCL
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bitonic_and_odd_even, T, two_types)
{
    // Every variant for one type, the default (fused) for all.
    for (auto variant : {clprim::bitonic_variant::fused, clprim::bitonic_variant::global, clprim::bitonic_variant::local,
                         clprim::bitonic_variant::transpose}) {
        if (variant != clprim::bitonic_variant::fused && !std::is_same_v<T, cl_char>) continue;
        for (std::size_t n : {std::size_t(0), std::size_t(33), std::size_t(4097)})
            check_sorted_keys<T>(n, distribution::random, order_t::descending,
                                 [&](auto f, auto l, auto& q) { clprim::bitonic_sort(f, l, q, order_t::descending, variant); },
                                 "bitonic");
    }
    check_sorted_keys<T>(1000, distribution::extremes, order_t::ascending,
                         [&](auto f, auto l, auto& q) { clprim::odd_even_sort(f, l, q, order_t::ascending); }, "odd_even");
    check_sorted_pairs<T, cl_uint>(3000, distribution::random, order_t::ascending, false,
                                   [&](auto f, auto l, auto v, auto& q) {
                                       clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::bitonic, order_t::ascending);
                                   },
                                   "bitonic pairs");
}

// Small keys as values, and small values with wide keys.
BOOST_AUTO_TEST_CASE(small_values)
{
    for (const char* path : {"onesweep", "cpu"}) {
        env_override p("CLPRIM_RADIX_PATH", path);
        check_sorted_pairs<cl_uint, cl_ushort>(4097, distribution::random, order_t::ascending, true,
                                               [](auto f, auto l, auto v, auto& q) { clprim::radix_sort_by_key(f, l, v, q); }, path);
        check_sorted_pairs<cl_ulong, cl_ushort>(4097, distribution::few_distinct, order_t::descending, true,
                                                [](auto f, auto l, auto v, auto& q) {
                                                    clprim::radix_sort_by_key(f, l, v, q, order_t::descending);
                                                },
                                                path);
    }
    // 8-bit values can only hold positions < 256.
    check_sorted_pairs<cl_short, cl_uchar>(250, distribution::random, order_t::ascending, true,
                                           [](auto f, auto l, auto v, auto& q) { clprim::radix_sort_by_key(f, l, v, q); }, "uchar values");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(reduce_and_scans, T, two_types)
{
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const auto data = make_data<T>(n, distribution::random);
        auto d = to_device(data, queue);
        // Sums wrap in the type (as OpenCL arithmetic does).
        T sum = 0, mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
        for (T x : data) {
            sum = T(sum + x);
            mn = std::min(mn, x);
            mx = std::max(mx, x);
        }
        BOOST_TEST(clprim::reduce(d.begin(), d.end(), queue) == sum, "sum n=" << n);
        BOOST_TEST(clprim::reduce(d.begin(), d.end(), queue, clprim::reduce_op::min) == mn, "min n=" << n);
        BOOST_TEST(clprim::reduce(d.begin(), d.end(), queue, clprim::reduce_op::max) == mx, "max n=" << n);
        BOOST_TEST(clprim::reduce(d.begin(), d.end(), queue, bc::bit_xor<T>(), T(0)) ==
                       std::accumulate(data.begin(), data.end(), T(0), [](T a, T b) { return T(a ^ b); }),
                   "xor n=" << n);
        bc::vector<T> one(1, context);
        clprim::reduce(d.begin(), d.end(), one.begin(), queue, clprim::reduce_op::sum);
        BOOST_TEST(to_host(one, queue)[0] == sum);

        std::vector<T> inc(n), exc(n);
        T acc = 0;
        for (std::size_t i = 0; i < n; ++i) {
            exc[i] = T(acc + T(3));
            acc = T(acc + data[i]);
            inc[i] = acc;
        }
        bc::vector<T> out(n, context);
        for (auto alg : {clprim::scan_algorithm::fast, clprim::scan_algorithm::blelloch}) {
            if (alg != clprim::scan_algorithm::fast && !std::is_same_v<T, cl_char>) continue;
            clprim::inclusive_scan(d.begin(), d.end(), out.begin(), queue, alg);
            BOOST_TEST(bit_equal(to_host(out, queue), inc), "inclusive n=" << n);
            clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue, T(3), alg);
            BOOST_TEST(bit_equal(to_host(out, queue), exc), "exclusive n=" << n);
        }
        std::vector<T> incmax(n);
        T m = std::numeric_limits<T>::lowest();
        for (std::size_t i = 0; i < n; ++i) incmax[i] = m = std::max(m, data[i]);
        clprim::inclusive_scan(d.begin(), d.end(), out.begin(), queue, bc::max<T>(), std::numeric_limits<T>::lowest());
        BOOST_TEST(bit_equal(to_host(out, queue), incmax), "max scan n=" << n);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(copy_if_histogram_min_max, T, two_types)
{
    using bc::lambda::_1;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const auto data = make_data<T>(n, distribution::random);
        auto d = to_device(data, queue);
        std::vector<T> want;
        for (T x : data)
            if (x > T(10)) want.push_back(x);
        bc::vector<T> out(n, context);
        const std::size_t got = clprim::copy_if(d.begin(), d.end(), out.begin(), queue, _1 > T(10));
        BOOST_TEST(got == want.size());
        auto h = to_host(out, queue);
        h.resize(got);
        BOOST_TEST(bit_equal(h, want), "copy_if n=" << n);

        // Histogram over the whole range of the type (upper is exclusive: the largest value falls out).
        const T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
        const std::size_t bins = 7;
        std::vector<cl_uint> hist(bins, 0);
        for (T x : data)
            if (x >= lo && x < hi) ++hist[std::size_t((std::int64_t(x) - lo) * std::int64_t(bins) / (std::int64_t(hi) - lo))];
        bc::vector<cl_uint> dh(bins, context);
        bc::fill(dh.begin(), dh.end(), 0u, queue);
        clprim::histogram(d.begin(), d.end(), dh.begin(), bins, lo, hi, queue);
        BOOST_TEST(to_host(dh, queue) == hist, "histogram n=" << n);

        const std::size_t mn = std::min_element(data.begin(), data.end()) - data.begin();
        const std::size_t mx = std::max_element(data.begin(), data.end()) - data.begin();
        BOOST_TEST(clprim::min_element(d.begin(), d.end(), queue) == mn);
        BOOST_TEST(clprim::max_element(d.begin(), d.end(), queue) == mx);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(by_key_family, T, two_types)
{
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        auto keys = make_data<T>(n, distribution::few_distinct);
        std::sort(keys.begin(), keys.begin() + n / 2); // runs of several lengths
        const auto vals = make_data<T>(n, distribution::random, 99);
        auto dk = to_device(keys, queue);
        auto dv = to_device(vals, queue);
        std::vector<T> rk, rv, us, scan(n);
        std::vector<cl_uint> rc;
        for (std::size_t i = 0; i < n; ++i) {
            const bool start = i == 0 || keys[i] != keys[i - 1];
            if (start) {
                rk.push_back(keys[i]);
                rv.push_back(vals[i]);
                rc.push_back(1);
            } else {
                rv.back() = T(rv.back() + vals[i]);
                ++rc.back();
            }
            scan[i] = rv.back();
        }
        bc::vector<T> ok(n, context), ov(n, context);
        const std::size_t runs = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), queue);
        BOOST_TEST(runs == rk.size());
        auto hk = to_host(ok, queue), hv = to_host(ov, queue);
        hk.resize(runs);
        hv.resize(runs);
        BOOST_TEST(bit_equal(hk, rk), "reduce_by_key keys n=" << n);
        BOOST_TEST(bit_equal(hv, rv), "reduce_by_key values n=" << n);
        clprim::inclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), ov.begin(), queue);
        BOOST_TEST(bit_equal(to_host(ov, queue), scan), "inclusive_scan_by_key n=" << n);
        const std::size_t u = clprim::unique(dk.begin(), dk.end(), ok.begin(), queue);
        hk = to_host(ok, queue);
        hk.resize(u);
        BOOST_TEST(bit_equal(hk, rk), "unique n=" << n);
        bc::vector<cl_uint> counts(n, context);
        const std::size_t r = clprim::run_length_encode(dk.begin(), dk.end(), ok.begin(), counts.begin(), queue);
        auto hc = to_host(counts, queue);
        hc.resize(r);
        BOOST_TEST(hc == rc, "run_length_encode n=" << n);
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(search_merge_top_k, T, two_types)
{
    const std::size_t n = 5000;
    for (order_t o : {order_t::ascending, order_t::descending}) {
        auto a = reference(make_data<T>(n, distribution::random, 1), o);
        auto b = reference(make_data<T>(n / 3, distribution::extremes, 2), o);
        auto da = to_device(a, queue), db = to_device(b, queue);
        bc::vector<T> out(a.size() + b.size(), context);
        clprim::merge(da.begin(), da.end(), db.begin(), db.end(), out.begin(), queue, o);
        std::vector<T> want(a.size() + b.size());
        if (o == order_t::ascending) std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
        else std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin(), [](T x, T y) { return y < x; });
        BOOST_TEST(bit_equal(to_host(out, queue), want), "merge");

        const auto data = make_data<T>(n, distribution::random, 3);
        auto dd = to_device(data, queue);
        for (std::size_t k : {std::size_t(1), std::size_t(100), n}) {
            bc::vector<T> top(k, context);
            clprim::top_k(dd.begin(), dd.end(), k, top.begin(), queue, o);
            auto ref = reference(data, o);
            ref.resize(k);
            BOOST_TEST(bit_equal(to_host(top, queue), ref), "top_k k=" << k);
        }
    }
    auto sorted = reference(make_data<T>(n, distribution::random, 4), order_t::ascending);
    const auto queries = make_data<T>(3000, distribution::extremes, 5);
    auto ds = to_device(sorted, queue), dq = to_device(queries, queue);
    bc::vector<cl_uint> res(queries.size(), context);
    clprim::lower_bound(ds.begin(), ds.end(), dq.begin(), dq.end(), res.begin(), queue);
    std::vector<cl_uint> want(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i)
        want[i] = cl_uint(std::lower_bound(sorted.begin(), sorted.end(), queries[i]) - sorted.begin());
    BOOST_TEST(to_host(res, queue) == want, "lower_bound");
    clprim::upper_bound(ds.begin(), ds.end(), dq.begin(), dq.end(), res.begin(), queue);
    for (std::size_t i = 0; i < queries.size(); ++i)
        want[i] = cl_uint(std::upper_bound(sorted.begin(), sorted.end(), queries[i]) - sorted.begin());
    BOOST_TEST(to_host(res, queue) == want, "upper_bound");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(segments, T, two_types)
{
    const std::size_t n = 20000;
    const auto data = make_data<T>(n, distribution::random);
    std::vector<cl_uint> offs{0, 0, 1, 17, 300, 5000, 5001, 20000};
    for (const char* path : {"gpu", "cpu"}) {
        env_override p("CLPRIM_SEGMENTED_PATH", path);
        for (order_t o : {order_t::ascending, order_t::descending}) {
            auto d = to_device(data, queue);
            auto doffs = to_device(offs, queue);
            std::vector<cl_uint> pos(n);
            std::iota(pos.begin(), pos.end(), 0u);
            auto dv = to_device(pos, queue);
            clprim::segmented_sort_by_key(d.begin(), d.end(), dv.begin(), doffs.begin(), doffs.end(), queue, o);
            std::vector<T> want = data;
            std::vector<cl_uint> want_v = pos;
            for (std::size_t s = 0; s + 1 < offs.size(); ++s) {
                std::vector<cl_uint> idx(pos.begin() + offs[s], pos.begin() + offs[s + 1]);
                std::stable_sort(idx.begin(), idx.end(), [&](cl_uint a, cl_uint b) {
                    return o == order_t::ascending ? data[a] < data[b] : data[b] < data[a];
                });
                for (std::size_t i = 0; i < idx.size(); ++i) {
                    want[offs[s] + i] = data[idx[i]];
                    want_v[offs[s] + i] = idx[i];
                }
            }
            BOOST_TEST(bit_equal(to_host(d, queue), want), "segmented_sort keys " << path);
            BOOST_TEST(to_host(dv, queue) == want_v, "segmented_sort values (stable) " << path);
        }
        auto d = to_device(data, queue);
        auto doffs = to_device(offs, queue);
        bc::vector<T> res(offs.size() - 1, context);
        clprim::segmented_reduce(d.begin(), d.end(), doffs.begin(), doffs.end(), res.begin(), queue);
        std::vector<T> want(offs.size() - 1, T(0));
        for (std::size_t s = 0; s + 1 < offs.size(); ++s)
            for (std::size_t i = offs[s]; i < offs[s + 1]; ++i) want[s] = T(want[s] + data[i]);
        BOOST_TEST(bit_equal(to_host(res, queue), want), "segmented_reduce " << path);
    }
}

BOOST_AUTO_TEST_CASE(out_of_order_queue_and_sub_ranges)
{
    bc::command_queue ooq(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    check_sorted_pairs<cl_short, cl_uint>(65537, distribution::random, order_t::descending, true,
                                          [&](auto f, auto l, auto v, auto&) {
                                              clprim::radix_sort_by_key(f, l, v, ooq, order_t::descending);
                                              ooq.finish();
                                          },
                                          "out-of-order queue");
}

BOOST_AUTO_TEST_SUITE_END()
