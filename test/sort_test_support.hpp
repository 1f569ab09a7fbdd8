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

} // namespace clprim_test
