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

} // namespace clprim

// copy_if's count_result overload (the count stays on the device) is the by-key family's
// partition: clprim/selection.hpp.
#include <clprim/selection.hpp>
