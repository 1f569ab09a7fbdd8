#pragma once
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/operator_source.hpp>
#include <clprim/error.hpp>

#include <string>
#include <type_traits>

namespace clprim {

enum class reduce_op { sum, min, max };
// reduce0..reduce4: the classic progression (interleaved addressing with divergent branches;
// interleaved without divergence; sequential addressing; first add during load; last wavefront
// unrolled); reduce5: complete unrolling; reduce6: many elements per work-item; fast: the best
// the library has for the device.
enum class reduce_variant { reduce0, reduce1, reduce2, reduce3, reduce4, reduce5, reduce6, fast };

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

// Reduces [first, last) with op and waits for the value. Empty range: the identity (0 for sum,
// the type's max for min, lowest for max). Integer sums wrap like OpenCL arithmetic.
template <class T>
T reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& queue,
         reduce_op op = reduce_op::sum, reduce_variant variant = reduce_variant::fast)
{
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    T result{};
    detail::reduce_impl(range, detail::element_type_of<T>(), op, variant, queue, &result);
    return result;
}

// The reduction written to *result (a one-element range of the queue's context, outside the
// input); does not wait, so calls chain on the queue without a host round trip.
template <class T>
void reduce(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::buffer_iterator<T> result,
            bc::command_queue& queue, reduce_op op = reduce_op::sum)
{
    const auto range = detail::checked_range(first, last, queue, "clprim::reduce");
    const auto out = detail::checked_output(result, 1, queue, "clprim::reduce");
    detail::reduce_to_device_impl(range, out, detail::element_type_of<T>(), op, queue);
}

// Reduces [first, last) with any associative Boost.Compute binary function object over T
// (bc::plus<T>(), bc::max<T>(), bc::bit_xor<T>(), a BOOST_COMPUTE_FUNCTION, ...) whose identity
// element is identity; waits for the value. The operator is rendered into the library's kernels
// (one program per operator source, cached). Elements are combined left to right (earlier
// elements as the left operand) unless clprim::is_commutative<BinaryFunction> says the order does
// not matter (true for the commutative built-ins), which allows the fastest kernels.
// Empty range: identity.
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

// The same, written to *result (a one-element range of the queue's context); does not wait.
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

} // namespace clprim
