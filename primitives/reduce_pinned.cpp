// The pinned result word (reduce_pinned.hpp) and the one-value read through it.
#include "reduce_pinned.hpp"

#include <boost/compute/buffer.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/context.hpp>

#include <cstring>
#include <map>

namespace clprim {
namespace detail {

void* pinned_result_word(const bc::context& context, bc::command_queue& queue)
{
    // Per host thread (so no lock), per context; the buffer keeps its context alive, so a key's
    // handle is never reused by another context.
    struct word {
        bc::buffer buffer;
        void* ptr = nullptr;
    };
    // Never destroyed (like the reduction's pool): no releases at exit after the runtime is gone.
    thread_local std::map<cl_context, word>* words = new std::map<cl_context, word>;
    word& w = (*words)[context.get()];
    if (w.ptr == nullptr && w.buffer.get() == nullptr) {
        try {
            w.buffer = bc::buffer(context, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
            w.ptr = queue.enqueue_map_buffer(w.buffer, CL_MAP_READ | CL_MAP_WRITE, 0, 64);
        } catch (const bc::opencl_error&) {
            w.ptr = nullptr;
        }
    }
    return w.ptr;
}

void read_one_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
                    std::size_t bytes, void* result, int mode)
{
    void* pinned = mode == 0 ? nullptr : pinned_result_word(context, queue);
    if (pinned == nullptr) {
        queue.enqueue_read_buffer(from, offset, bytes, result);
        return;
    }
    if (mode == 2) {
        queue.enqueue_read_buffer_async(from, offset, bytes, pinned);
        queue.finish();
    } else {
        queue.enqueue_read_buffer(from, offset, bytes, pinned);
    }
    std::memcpy(result, pinned, bytes);
}

} // namespace detail
} // namespace clprim
