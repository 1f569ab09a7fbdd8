#pragma once
/// \file
/// \brief Stream compaction: the elements that pass a predicate, in their order.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <cstddef>
#include <string>

namespace clprim {

namespace detail {
// Copies the elements of in that pass the generated predicate pred_file (operator_source.hpp)
// to out (out.size = the room the caller's range has); returns how many pass.
std::size_t copy_if_impl(const buffer_range& in, const buffer_range& out, element_type type,
                         const std::string& pred_file, bc::command_queue& queue);
// The same, writing the count to count (one cl_ulong) on the device, without waiting; elements
// beyond out.size are not written.
void copy_if_count_impl(const buffer_range& in, const buffer_range& out, element_type type,
                        const std::string& pred_file, const buffer_range& count, bc::command_queue& queue);
} // namespace detail

/// \ingroup compaction
/// \brief Copies, in their order, the elements x of [first, last) for which `pred(x)` is true to
/// result; returns how many (waits for that count only).
///
/// A result in another context or overlapping the input is an invalid_argument_error before
/// anything is enqueued; one found too small once the count is known is an
/// invalid_argument_error too (the elements that fit were written, nothing past the end of its
/// buffer).
/// \param first,last the input range.
/// \param result where the kept elements go: room for every element that passes, not
///        overlapping the input.
/// \param queue the command queue the work runs on.
/// \param pred a Boost.Compute unary function object returning bool (a `BOOST_COMPUTE_FUNCTION`,
///        or a lambda such as `bc::lambda::_1 > 5`).
/// \return the number of elements copied.
template <class T, class Predicate>
std::size_t copy_if(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
                    bc::command_queue& queue, Predicate pred)
{
    detail::check_function_object<Predicate>();
    const auto in = detail::checked_range(first, last, queue, "clprim::copy_if");
    const std::size_t room = result.get_buffer().get() ? result.get_buffer().size() / sizeof(T) : 0;
    const auto out = detail::checked_output(result, room > result.get_index() ? room - result.get_index() : 0,
                                            queue, "clprim::copy_if");
    const std::string file = detail::predicate_file<T>(pred);
    return detail::copy_if_impl(in, out, detail::element_type_of<T>(), file, queue);
}

/// \ingroup compaction
/// \brief copy_if that writes the number of passing elements to *count_result on the device and
/// does not wait.
///
/// Elements beyond result's room are not written. count_result may not overlap the input or the
/// result.
/// \param first,last the input range.
/// \param result where the kept elements go, not overlapping the input.
/// \param count_result where the number of passing elements goes (one cl_ulong on the device).
/// \param queue the command queue the work is enqueued on (the call does not wait).
/// \param pred a Boost.Compute unary function object returning bool.
template <class T, class Predicate>
void copy_if(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
             bc::buffer_iterator<cl_ulong> count_result, bc::command_queue& queue, Predicate pred)
{
    const char* who = "clprim::copy_if";
    detail::check_function_object<Predicate>();
    const auto in = detail::checked_range(first, last, queue, who);
    const std::size_t room = result.get_buffer().get() ? result.get_buffer().size() / sizeof(T) : 0;
    const auto out = detail::checked_output(result, room > result.get_index() ? room - result.get_index() : 0, queue, who);
    const auto count = detail::checked_output(count_result, 1, queue, who);
    const std::string file = detail::predicate_file<T>(pred);
    detail::copy_if_count_impl(in, out, detail::element_type_of<T>(), file, count, queue);
}

} // namespace clprim

// (clprim/selection.hpp, included here as before, holds the rest of the selection family.)
#include <clprim/selection.hpp>
