#pragma once
// One word of a device result (a by-key count, min/max_element's index) to the host: the one
// round trip those calls make. Through this host thread's pinned word where there is one
// (reduce_pinned.hpp: no staging copy on discrete GPUs). CLPRIM_BY_KEY_READ picks the form
// (measurements): 0 a blocking read into the caller's variable, 1 a blocking read into the pinned
// word, 2 (default) a non-blocking read into it, then clFinish. Private to the primitives layer.
#include "reduce_pinned.hpp"

#include <clprim/detail/knobs.hpp>

#include <cstddef>
#include <cstring>

namespace clprim {
namespace detail {

inline void read_result_word(bc::command_queue& queue, const bc::buffer& from, std::size_t bytes, void* result)
{
    const std::size_t mode = knob_number("CLPRIM_BY_KEY_READ", 0, 2).value_or(2);
    void* pinned = mode == 0 ? nullptr : pinned_result_word(queue.get_context(), queue);
    if (pinned == nullptr) {
        queue.enqueue_read_buffer(from, 0, bytes, result);
        return;
    }
    if (mode == 2) {
        queue.enqueue_read_buffer_async(from, 0, bytes, pinned);
        queue.finish();
    } else {
        queue.enqueue_read_buffer(from, 0, bytes, pinned);
    }
    std::memcpy(result, pinned, bytes);
}

} // namespace detail
} // namespace clprim
