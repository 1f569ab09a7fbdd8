#pragma once
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

namespace clprim {

enum class scan_algorithm { hillis_steele, blelloch, fast };

namespace detail {
// Scans in into out (same length; out may equal in). init (size_of(type) bytes) is added to
// every element of an exclusive scan; ignored for an inclusive one.
void scan_impl(const buffer_range& in, const buffer_range& out, element_type type, bool inclusive,
               const void* init, scan_algorithm algorithm, bc::command_queue& queue);
} // namespace detail

// result[i] = first[0] + ... + first[i]. result == first (in place) is allowed.
template <class T>
void inclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue,
                    scan_algorithm algorithm = scan_algorithm::fast)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::inclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::inclusive_scan");
    const T init{};
    detail::scan_impl(in, out, detail::element_type_of<T>(), true, &init, algorithm, queue);
}

// result[i] = init + first[0] + ... + first[i-1]. result == first (in place) is allowed.
template <class T>
void exclusive_scan(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                    bc::buffer_iterator<T> result, bc::command_queue& queue, T init = T(0),
                    scan_algorithm algorithm = scan_algorithm::fast)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::exclusive_scan");
    const auto out = detail::checked_output(result, in.size, queue, "clprim::exclusive_scan");
    detail::scan_impl(in, out, detail::element_type_of<T>(), false, &init, algorithm, queue);
}

} // namespace clprim
