#pragma once
/** \file clprim/min_max_element.hpp
 *  min_element / max_element: the index of the first smallest / largest element in the key order
 *  the sorts use (floats by the IEEE-754 total order of their bits), by a reduce over
 *  (key, index) pairs.
 */
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

#include <cstddef>

namespace clprim {

namespace detail {
// The index (from in.offset) of the first smallest (largest: largest) element; in.size >= 1.
std::size_t min_max_element_impl(const buffer_range& in, element_type type, bool largest, bc::command_queue& queue);
} // namespace detail

/// \addtogroup by_key
/// @{

/// \brief The index (from first) of the first smallest element of [first, last) in the key order;
/// an empty range is an invalid_argument_error.
template <class T>
std::size_t min_element(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::min_element");
    return detail::min_max_element_impl(in, detail::element_type_of<T>(), false, queue);
}

/// \brief The index (from first) of the first largest element of [first, last) in the key order; an
/// empty range is an invalid_argument_error.
template <class T>
std::size_t max_element(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue)
{
    const auto in = detail::checked_range(first, last, queue, "clprim::max_element");
    return detail::min_max_element_impl(in, detail::element_type_of<T>(), true, queue);
}

/// @}

} // namespace clprim
