#pragma once
/// \file
/// \brief Reductions: sum, min, max, or any associative Boost.Compute operator, to the host or
/// to a device-side result.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <string>
#include <type_traits>

namespace clprim {

/// \addtogroup reductions
/// @{

/// The built-in reduction operators.
enum class reduce_op {
    sum, ///< `a + b` (integers wrap like OpenCL arithmetic); identity 0
    min, ///< the smaller; identity the type's largest value
    max  ///< the larger; identity the type's lowest value
};

/// \brief The reduction kernels, a teaching progression (Harris's "Optimizing parallel reduction")
/// plus the library's own.
enum class reduce_variant {
    reduce0, ///< interleaved addressing with divergent branches
    reduce1, ///< interleaved addressing without divergence
    reduce2, ///< sequential addressing
    reduce3, ///< first add during load
    reduce4, ///< last wavefront unrolled
    reduce5, ///< complete unrolling
    reduce6, ///< many elements per work-item
    fast     ///< the best the library has for the device (the default)
};
/// @}

namespace detail {
// Reduces in (of type) and writes the single result (size_of(type) bytes) to *result.
void reduce_impl(const buffer_range& in, element_type type, reduce_op op, reduce_variant variant,
                 bc::command_queue& queue, void* result);
// Reduces in into the one-element device range result; enqueues only.
void reduce_to_device_impl(const buffer_range& in, const buffer_range& result, element_type type, reduce_op op,
                           bc::command_queue& queue);
// Reduces in with the generated operator op_file (operator_source.hpp) into *host_result (waits)
// or into device_result (enqueues only). commutative: the operator may see elements in any order.
void reduce_generated_impl(const buffer_range& in, element_type type, const std::string& op_file, bool commutative,
                           const void* identity, bc::command_queue& queue, void* host_result,
                           const buffer_range* device_result);
} // namespace detail

/// \addtogroup reductions
/// @{

/// \brief Reduces [first, last) with a built-in operator and waits for the value.
///
/// Empty range: the identity (0 for sum, the type's max for min, lowest for max). Integer sums
/// wrap like OpenCL arithmetic.
/// \tparam T cl_char, cl_uchar, cl_short, cl_ushort, cl_int, cl_uint, cl_long, cl_ulong, cl_float, or
/// cl_double on fp64 devices (8/16-bit sums wrap in the type).
/// \param first,last the range, in the queue's context.
/// \param queue the command queue the work runs on.
/// \param op sum, min or max.
/// \param variant which kernel; the default `fast` is the library's best for the device.
/// \return the reduction.
/// \throws invalid_argument_error for a bad range, unsupported_error for double without fp64.
template <class T>
T reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
         reduce_op op = reduce_op::sum, reduce_variant variant = reduce_variant::fast)
{
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    T result{};
    detail::reduce_impl(range, detail::element_type_of<T>(), op, variant, queue, &result);
    return result;
}

/// \brief The reduction written to *result on the device; does not wait, so calls chain on the
/// queue without a host round trip.
/// \param first,last the range.
/// \param result a one-element range of the queue's context, outside the input.
/// \param queue the command queue the work is enqueued on.
/// \param op sum, min or max.
template <class T>
void reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
            bc::command_queue& queue, reduce_op op = reduce_op::sum)
{
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    const auto out = detail::checked_output(result, 1, queue, "clprim::reduce");
    detail::reduce_to_device_impl(range, out, detail::element_type_of<T>(), op, queue);
}

/// \brief Reduces [first, last) with any associative Boost.Compute binary function object and
/// waits for the value.
///
/// The operator is rendered into the library's kernels (one program per operator source,
/// cached). Elements are combined left to right (earlier elements as the left operand) unless
/// is_commutative says the order does not matter (true for the commutative built-ins), which
/// allows the fastest kernels. Empty range: identity.
/// \param first,last the range.
/// \param queue the command queue the work runs on.
/// \param op `bc::plus<T>()`, `bc::max<T>()`, `bc::bit_xor<T>()`, a `BOOST_COMPUTE_FUNCTION`, ...
///        (see is_function_object).
/// \param identity the operator's identity element: `op(identity, x) == x`.
/// \return the reduction.
template <class T, class BinaryFunction>
T reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
         BinaryFunction op, detail::nondeduced_t<T> identity)
{
    detail::check_function_object<BinaryFunction>();
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    const std::string file = detail::binary_operator_file<T>(op, identity);
    T result{};
    detail::reduce_generated_impl(range, detail::element_type_of<T>(), file, is_commutative<BinaryFunction>::value,
                                  &identity, queue, &result, nullptr);
    return result;
}

/// \brief The same, written to *result on the device; does not wait.
/// \param first,last the range.
/// \param result a one-element range of the queue's context, outside the input.
/// \param queue the command queue the work is enqueued on.
/// \param op an associative Boost.Compute binary function object.
/// \param identity the operator's identity element.
template <class T, class BinaryFunction>
void reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
            bc::command_queue& queue, BinaryFunction op, detail::nondeduced_t<T> identity)
{
    detail::check_function_object<BinaryFunction>();
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    const auto out = detail::checked_output(result, 1, queue, "clprim::reduce");
    const std::string file = detail::binary_operator_file<T>(op, identity);
    detail::reduce_generated_impl(range, detail::element_type_of<T>(), file, is_commutative<BinaryFunction>::value,
                                  &identity, queue, nullptr, &out);
}

/// @}

} // namespace clprim
