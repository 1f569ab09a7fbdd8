#pragma once
// What the sort suites share: the host reference (std::stable_sort by the total order) and a
// device range between two guard elements, so a sort that writes outside its range is caught.
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

} // namespace clprim_test
