#pragma once
// What the sort suites share: the host reference (std::stable_sort by the total order), a device
// range between two guard elements, so a sort that writes outside its range is caught, and the
// keys and key-value checks built on them.
#include "clprim_test_fixture.hpp"

namespace clprim_test {

template <class T>
std::vector<T> reference(std::vector<T> v, clprim::sort_order order)
{
    if (order == clprim::sort_order::ascending) std::stable_sort(v.begin(), v.end(), total_less<T>);
    else std::stable_sort(v.begin(), v.end(), [](T a, T b) { return total_less(b, a); });
    return v;
}

// A device buffer holding [guard, data..., guard]; the sort sees only the middle.
template <class T>
struct guarded_vector {
    bc::vector<T> dev;
    T guard;
    std::size_t n;
    guarded_vector(const std::vector<T>& host, T g, bc::command_queue& q)
        : dev(host.size() + 2, q.get_context()), guard(g), n(host.size())
    {
        std::vector<T> all(host.size() + 2, g);
        std::copy(host.begin(), host.end(), all.begin() + 1);
        bc::copy(all.begin(), all.end(), dev.begin(), q);
    }
    bc::buffer_iterator<T> first() { return dev.begin() + 1; }
    bc::buffer_iterator<T> last() { return dev.begin() + 1 + n; }
    std::vector<T> result(bc::command_queue& q, bool& guards_ok)
    {
        auto all = to_host(dev, q);
        guards_ok = std::memcmp(&all.front(), &guard, sizeof(T)) == 0 && std::memcmp(&all.back(), &guard, sizeof(T)) == 0;
        return std::vector<T>(all.begin() + 1, all.end() - 1);
    }
};

// Sorts make_data<T>(n, d) between guards with sort(first, last, queue) and checks the result
// bit for bit against the stable reference, and that the guards are untouched.
template <class T, class Sort>
void check_sorted_keys(std::size_t n, distribution d, clprim::sort_order order, Sort&& sort,
                       const std::string& label = "")
{
    auto& q = device_under_test::get().queue;
    const auto data = make_data<T>(n, d);
    guarded_vector<T> v(data, std::numeric_limits<T>::max(), q);
    sort(v.first(), v.last(), q);
    bool guards_ok = false;
    const auto got = v.result(q, guards_ok);
    const long diff = first_difference(got, reference(data, order));
    BOOST_TEST(guards_ok, "guard overwritten");
    BOOST_TEST(diff == -1, type_label<T>() << " n=" << n << " " << name_of(d) << " "
                                           << (order == clprim::sort_order::ascending ? "asc" : "desc") << " "
                                           << label << ": first difference at " << diff);
}

// Sorts (make_data<K>(n, d), values = input positions) between guards with
// sort(keys_first, keys_last, values_first, queue). Checks the guards, the keys bit for bit
// against the stable reference and the values: with stable, exactly the stable order's input
// positions; otherwise a permutation in which every value sits beside its own key.
template <class K, class V, class SortByKey>
void check_sorted_pairs(std::size_t n, distribution d, clprim::sort_order order, bool stable, SortByKey&& sort,
                        const std::string& label = "")
{
    auto& q = device_under_test::get().queue;
    const auto keys = make_data<K>(n, d);
    std::vector<V> vals(n);
    for (std::size_t i = 0; i < n; ++i) vals[i] = static_cast<V>(i);
    guarded_vector<K> kv(keys, K(7), q);
    guarded_vector<V> vv(vals, V(3), q);
    sort(kv.first(), kv.last(), vv.first(), q);
    bool kg = false, vg = false;
    const auto got_k = kv.result(q, kg);
    const auto got_v = vv.result(q, vg);
    const std::string what = std::string(type_label<K>()) + "/" + type_label<V>() + " n=" + std::to_string(n) + " " + name_of(d) +
                             (order == clprim::sort_order::ascending ? " asc " : " desc ") + label;
    BOOST_TEST((kg && vg), what << ": guard overwritten");
    BOOST_TEST(first_difference(got_k, reference(keys, order)) == -1, what << ": keys wrong");
    if (stable) {
        // Stable reference: the input positions sorted by key, ties by position.
        std::vector<std::size_t> idx(n);
        for (std::size_t i = 0; i < n; ++i) idx[i] = i;
        if (order == clprim::sort_order::ascending)
            std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return total_less(keys[a], keys[b]); });
        else
            std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return total_less(keys[b], keys[a]); });
        std::vector<V> want_v(n);
        for (std::size_t i = 0; i < n; ++i) want_v[i] = static_cast<V>(idx[i]);
        const long dv = first_difference(got_v, want_v);
        BOOST_TEST(dv == -1, what << ": not stable, first value difference at " << dv);
    } else {
        std::vector<char> seen(n, 0);
        bool ok = true;
        for (std::size_t i = 0; i < n && ok; ++i) {
            const auto idx = static_cast<std::size_t>(got_v[i]);
            ok = idx < n && !seen[idx] && std::memcmp(&keys[idx], &got_k[i], sizeof(K)) == 0;
            if (ok) seen[idx] = 1;
        }
        BOOST_TEST(ok, what << ": values do not follow their keys");
    }
}

} // namespace clprim_test
