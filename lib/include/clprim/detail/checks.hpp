#pragma once
#include <clprim/config.hpp>
#include <clprim/detail/queue_order.hpp> // in_order_scope, opened by every entry point
#include <clprim/error.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <cstddef>
#include <new>
#include <string>
#include <utility>

namespace clprim {
namespace detail {

// A range as the non-template host code sees it: the buffer, where it starts and how long it is.
struct buffer_range {
    bc::buffer buffer;
    std::size_t offset = 0; // in elements
    std::size_t size = 0;   // in elements
};

// Validates [first, last) against queue: same buffer, first <= last, inside the buffer, same
// context as the queue. Throws invalid_argument_error naming who otherwise.
void check_range_impl(const bc::buffer& first_buf, std::size_t first_index,
                      const bc::buffer& last_buf, std::size_t last_index,
                      std::size_t element_size, const bc::command_queue& queue, const char* who);
// Validates a range of n elements starting at (buf, index) (an output or values range).
void check_output_impl(const bc::buffer& buf, std::size_t index, std::size_t n,
                       std::size_t element_size, const bc::command_queue& queue, const char* who);

template <class T>
buffer_range checked_range(bc::buffer_iterator<T> first, bc::buffer_iterator<T> last,
                           const bc::command_queue& queue, const char* who)
{
    check_range_impl(first.get_buffer(), first.get_index(), last.get_buffer(), last.get_index(),
                     sizeof(T), queue, who);
    return {first.get_buffer(), first.get_index(), last.get_index() - first.get_index()};
}

template <class T>
buffer_range checked_output(bc::buffer_iterator<T> first, std::size_t n,
                            const bc::command_queue& queue, const char* who)
{
    check_output_impl(first.get_buffer(), first.get_index(), n, sizeof(T), queue, who);
    return {first.get_buffer(), first.get_index(), n};
}

// A temporary could not be allocated, also after the scratch pool was released (scratch_pool.hpp).
// guarded() passes it on as a clprim::error named after the call.
struct out_of_device_memory : error {
    using error::error;
};

// Runs f, turning OpenCL and allocation failures into clprim::error naming what was being done.
[[noreturn]] void rethrow_as_clprim_error(const char* what);

template <class F>
decltype(auto) guarded(const char* what, F&& f)
{
    try {
        return std::forward<F>(f)();
    } catch (const out_of_device_memory& e) {
        throw clprim::error(std::string(what) + ": " + e.what());
    } catch (const clprim::error&) {
        throw;
    } catch (...) {
        rethrow_as_clprim_error(what);
    }
}

} // namespace detail
} // namespace clprim
