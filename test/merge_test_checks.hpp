#pragma once
// The merge suites' checks (test_merge, test_merge_overlap): sorted inputs, the three sub-ranges
// of one buffer between guards, merge / merge_by_key against std::merge with the total order
// (stable: the first range's equal keys first), bit for bit, adversarial splits, the size matrix.
#include "sort_test_support.hpp"

#include <clprim/merge.hpp>

namespace clprim_test {
namespace merge_checks {

using order_t = clprim::sort_order;

template <class T>
bool before(T a, T b, order_t order)
{
    return order == order_t::ascending ? total_less(a, b) : total_less(b, a);
}

template <class T>
std::vector<T> sorted_input(std::size_t n, distribution d, order_t order, std::uint64_t seed)
{
    auto v = make_data<T>(n, d, seed);
    std::stable_sort(v.begin(), v.end(), [&](T a, T b) { return before(a, b, order); });
    return v;
}

// One buffer: [g, a..., g, b..., g, out..., g]; merge sees the three sub-ranges.
template <class T>
struct layout {
    std::size_t n1, n2;
    std::size_t a() const { return 1; }
    std::size_t b() const { return n1 + 2; }
    std::size_t out() const { return n1 + n2 + 3; }
    std::size_t total() const { return 2 * (n1 + n2) + 4; }
};

template <class T>
std::vector<T> with_guards(const layout<T>& l, const std::vector<T>& a, const std::vector<T>& b, T g)
{
    std::vector<T> all(l.total(), g);
    std::copy(a.begin(), a.end(), all.begin() + l.a());
    std::copy(b.begin(), b.end(), all.begin() + l.b());
    return all;
}

template <class T>
bool guards_ok(const layout<T>& l, const std::vector<T>& all, T g)
{
    for (std::size_t i : {std::size_t(0), l.b() - 1, l.out() - 1, l.total() - 1})
        if (std::memcmp(&all[i], &g, sizeof(T)) != 0) return false;
    return true;
}

// The merge of the given sorted inputs (in `order`) checked against std::merge; what names the case.
template <class T>
void check_merge_of(const std::vector<T>& a, const std::vector<T>& b, order_t order, bc::command_queue& q, const char* what)
{
    const std::size_t n1 = a.size(), n2 = b.size();
    std::vector<T> expect(n1 + n2);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin(), [&](T x, T y) { return before(x, y, order); });
    const layout<T> l{n1, n2};
    const T g = std::numeric_limits<T>::max();
    auto dev = to_device(with_guards(l, a, b, g), q);
    clprim::merge(dev.begin() + l.a(), dev.begin() + l.a() + n1, dev.begin() + l.b(), dev.begin() + l.b() + n2,
                  dev.begin() + l.out(), q, order);
    const auto all = to_host(dev, q);
    const std::vector<T> got(all.begin() + l.out(), all.end() - 1);
    BOOST_TEST(guards_ok(l, all, g), "guard overwritten");
    const long diff = first_difference(got, expect);
    BOOST_TEST(diff == -1, type_label<T>() << " n1=" << n1 << " n2=" << n2 << " " << what << " "
                                           << (order == order_t::ascending ? "asc" : "desc") << ": first difference at " << diff);
    // The inputs are untouched.
    BOOST_TEST(bit_equal(std::vector<T>(all.begin() + l.a(), all.begin() + l.a() + n1), a));
    BOOST_TEST(bit_equal(std::vector<T>(all.begin() + l.b(), all.begin() + l.b() + n2), b));
}

template <class T>
void check_merge(std::size_t n1, std::size_t n2, distribution d, order_t order, bc::command_queue& q)
{
    check_merge_of(sorted_input<T>(n1, d, order, 1), sorted_input<T>(n2, d, order, 2), order, q, name_of(d));
}

// merge_by_key: values are the positions (the first range's 0..n1-1, then the second's), so the
// expected values are the stable merge's permutation.
template <class K, class V>
void check_pairs(std::size_t n1, std::size_t n2, distribution d, order_t order, bc::command_queue& q)
{
    const auto a = sorted_input<K>(n1, d, order, 3);
    const auto b = sorted_input<K>(n2, d, order, 4);
    const std::size_t n = n1 + n2;
    std::vector<std::pair<K, V>> pa(n1), pb(n2), expect(n);
    for (std::size_t i = 0; i < n1; ++i) pa[i] = {a[i], V(i)};
    for (std::size_t i = 0; i < n2; ++i) pb[i] = {b[i], V(n1 + i)};
    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), expect.begin(),
               [&](const auto& x, const auto& y) { return before(x.first, y.first, order); });
    std::vector<K> ek(n);
    std::vector<V> ev(n), va(n1), vb(n2);
    for (std::size_t i = 0; i < n; ++i) ek[i] = expect[i].first, ev[i] = expect[i].second;
    for (std::size_t i = 0; i < n1; ++i) va[i] = V(i);
    for (std::size_t i = 0; i < n2; ++i) vb[i] = V(n1 + i);
    const layout<K> lk{n1, n2};
    const layout<V> lv{n1, n2};
    const K gk = std::numeric_limits<K>::max();
    const V gv = std::numeric_limits<V>::max();
    auto keys = to_device(with_guards(lk, a, b, gk), q);
    auto vals = to_device(with_guards(lv, va, vb, gv), q);
    clprim::merge_by_key(keys.begin() + lk.a(), keys.begin() + lk.a() + n1, vals.begin() + lv.a(),
                         keys.begin() + lk.b(), keys.begin() + lk.b() + n2, vals.begin() + lv.b(),
                         keys.begin() + lk.out(), vals.begin() + lv.out(), q, order);
    const auto hk = to_host(keys, q);
    const auto hv = to_host(vals, q);
    BOOST_TEST(guards_ok(lk, hk, gk), "key guard overwritten");
    BOOST_TEST(guards_ok(lv, hv, gv), "value guard overwritten");
    const long dk = first_difference(std::vector<K>(hk.begin() + lk.out(), hk.end() - 1), ek);
    const long dv = first_difference(std::vector<V>(hv.begin() + lv.out(), hv.end() - 1), ev);
    BOOST_TEST(dk == -1, type_label<K>() << "->" << type_label<V>() << " n1=" << n1 << " n2=" << n2 << " "
                                         << name_of(d) << ": keys differ at " << dk);
    BOOST_TEST(dv == -1, type_label<K>() << "->" << type_label<V>() << " n1=" << n1 << " n2=" << n2 << " "
                                         << name_of(d) << ": values differ at " << dv);
}

// Adversarial splits of the merge path (uint, ascending): all of the first range before the
// second, all after, interleaved both ways, one range much longer.
inline void adversarial_splits(bc::command_queue& q)
{
    for (std::size_t n : {37u, 4097u}) {
        std::vector<cl_uint> lowv(n), high(n + 5), even(n), odd(n + 1);
        for (std::size_t i = 0; i < lowv.size(); ++i) lowv[i] = cl_uint(i);
        for (std::size_t i = 0; i < high.size(); ++i) high[i] = cl_uint(n + i);
        for (std::size_t i = 0; i < even.size(); ++i) even[i] = cl_uint(2 * i);
        for (std::size_t i = 0; i < odd.size(); ++i) odd[i] = cl_uint(2 * i + 1);
        check_merge_of(lowv, high, order_t::ascending, q, "first before second");
        check_merge_of(high, lowv, order_t::ascending, q, "second before first");
        check_merge_of(even, odd, order_t::ascending, q, "interleaved");
        check_merge_of(odd, even, order_t::ascending, q, "interleaved, odd first");
    }
    check_merge<cl_uint>(3, 20000, distribution::random, order_t::ascending, q);
}

inline const std::vector<std::pair<std::size_t, std::size_t>> size_pairs{
    {0, 0}, {0, 1}, {1, 0}, {0, 33}, {33, 0}, {1, 1}, {2, 3}, {17, 1000}, {1000, 17}, {4095, 4097}, {65537, 30011}};

template <class T>
void keys_matrix(order_t order, bc::command_queue& q)
{
    for (auto s : size_pairs)
        for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal, distribution::float_specials})
            check_merge<T>(s.first, s.second, d, order, q);
}


} // namespace merge_checks
} // namespace clprim_test
