// The pinned result word and the one-value read forms (reduce_pinned.hpp).
#include "reduce_pinned.hpp"

#include <boost/compute/buffer.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/exception.hpp>

#include <chrono>
#include <cstring>
#include <map>

#include <sched.h>

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
    // The last context asked for, without the map's search (a thread's calls mostly share one).
    thread_local cl_context last_context = nullptr;
    thread_local void* last_ptr = nullptr;
    if (context.get() == last_context && last_ptr != nullptr) return last_ptr;
    word& w = (*words)[context.get()];
    if (w.ptr == nullptr && w.buffer.get() == nullptr) {
        try {
            w.buffer = bc::buffer(context, 64, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
            w.ptr = queue.enqueue_map_buffer(w.buffer, CL_MAP_READ | CL_MAP_WRITE, 0, 64);
        } catch (const bc::opencl_error&) {
            w.ptr = nullptr;
        }
    }
    last_context = context.get();
    last_ptr = w.ptr;
    return w.ptr;
}

namespace {

void check(cl_int err)
{
    if (err != CL_SUCCESS) BOOST_THROW_EXCEPTION(bc::opencl_error(err));
}

// Waits for `done` (released here) by polling its status; yield: sched_yield() between polls.
// After 2 ms of polling the wait blocks in the driver (a long kernel should not cost a core).
void spin_on(cl_event done, bool yield)
{
    cl_int status = CL_QUEUED;
    cl_int err = CL_SUCCESS;
    const auto start = std::chrono::steady_clock::now();
    for (unsigned polls = 0;; ++polls) {
        err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
        if (err != CL_SUCCESS || status <= CL_COMPLETE) break; // complete (0) or failed (< 0)
        if (yield) sched_yield();
        if ((polls & 63) == 63 && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(2)) {
            err = clWaitForEvents(1, &done);
            if (err == CL_SUCCESS)
                err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
            break;
        }
    }
    clReleaseEvent(done);
    check(err);
    if (status < 0) check(status);
}

} // namespace

void read_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset, std::size_t bytes, void* result,
                value_read form)
{
    const cl_command_queue q = queue.get();
    if (form == value_read::plain || form == value_read::flush_plain || form == value_read::plain_event) {
        if (form == value_read::flush_plain) check(clFlush(q));
        cl_event e = nullptr;
        check(clEnqueueReadBuffer(q, from.get(), CL_TRUE, offset, bytes, result, 0, nullptr,
                                  form == value_read::plain_event ? &e : nullptr));
        if (e) clReleaseEvent(e);
        return;
    }
    void* pinned = pinned_result_word(context, queue);
    if (pinned == nullptr) {
        check(clEnqueueReadBuffer(q, from.get(), CL_TRUE, offset, bytes, result, 0, nullptr, nullptr));
        return;
    }
    switch (form) {
    case value_read::pinned:
        check(clEnqueueReadBuffer(q, from.get(), CL_TRUE, offset, bytes, pinned, 0, nullptr, nullptr));
        break;
    case value_read::flush_async:
        check(clFlush(q));
        // fall through
    case value_read::async:
        check(clEnqueueReadBuffer(q, from.get(), CL_FALSE, offset, bytes, pinned, 0, nullptr, nullptr));
        check(clFinish(q));
        break;
    default: { // spin, spin_yield, wait, flush_spin
        if (form == value_read::flush_spin) check(clFlush(q));
        cl_event done = nullptr;
        check(clEnqueueReadBuffer(q, from.get(), CL_FALSE, offset, bytes, pinned, 0, nullptr, &done));
        const cl_int err = clFlush(q);
        if (err != CL_SUCCESS) {
            clReleaseEvent(done);
            check(err);
        }
        if (form == value_read::wait) {
            const cl_int werr = clWaitForEvents(1, &done);
            clReleaseEvent(done);
            check(werr);
        } else {
            spin_on(done, form == value_read::spin_yield);
        }
        break;
    }
    }
    std::memcpy(result, pinned, bytes);
}

void read_one_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
                    std::size_t bytes, void* result, int mode)
{
    read_value(context, queue, from, offset, bytes, result,
               mode >= 0 && mode < value_read_forms ? value_read(mode) : value_read::plain);
}

} // namespace detail
} // namespace clprim
