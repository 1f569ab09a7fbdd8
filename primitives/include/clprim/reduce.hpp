#pragma once
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

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

} // namespace clprim
