#pragma once
/** \file clprim/search.hpp
 *  Vectorised binary search: lower_bound / upper_bound of many queries over one sorted range. */
#include <clprim/sort_types.hpp>

#include <type_traits>

namespace clprim {

namespace detail {
// sorted: the ascending range searched; values: the queries; result: one index per query.
void search_impl(const buffer_range& sorted, const buffer_range& values, const buffer_range& result,
                 element_type type, bool index64, bool upper, bc::command_queue& queue, const char* who);

template <class T, class Index>
void search(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> values_first,
            bc::buffer_iterator<T> values_last, bc::buffer_iterator<Index> result, bc::command_queue& queue,
            bool upper, const char* who)
{
    static_assert(std::is_same_v<Index, cl_uint> || std::is_same_v<Index, cl_ulong>,
                  "clprim::lower_bound / upper_bound: Index is cl_uint or cl_ulong");
    const buffer_range sorted = checked_range(first, last, queue, who);
    const buffer_range values = checked_range(values_first, values_last, queue, who);
    const buffer_range out = checked_output(result, values.size, queue, who);
    search_impl(sorted, values, out, element_type_of<T>(), sizeof(Index) == 8, upper, queue, who);
}
} // namespace detail

/// \addtogroup merge_search
/// @{

/// \brief For every value v of [values_first, values_last): result[i] = the index (from first) of
/// the first element of the ascending-sorted [first, last) that is not less than v, in the
/// library's key order (integers by value, floats by IEEE-754 total order).
///
/// Index is cl_uint or cl_ulong (cl_uint with a range longer than 2^32 - 1 is an
/// invalid_argument_error). result may not overlap the range or the values
/// (invalid_argument_error).
template <class T, class Index>
void lower_bound(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> values_first,
                 bc::buffer_iterator<T> values_last, bc::buffer_iterator<Index> result, bc::command_queue& queue)
{
    detail::search(first, last, values_first, values_last, result, queue, false, "clprim::lower_bound");
}

/// \brief As lower_bound(), but the first element greater than v.
template <class T, class Index>
void upper_bound(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> values_first,
                 bc::buffer_iterator<T> values_last, bc::buffer_iterator<Index> result, bc::command_queue& queue)
{
    detail::search(first, last, values_first, values_last, result, queue, true, "clprim::upper_bound");
}

/// @}

} // namespace clprim
