#pragma once
// One word of a device result (a by-key count, copy_if's count) to the host: the one
// round trip those calls make. Through this host thread's pinned word where there is one
// (reduce_pinned.hpp: no staging copy on discrete GPUs). Used by the by-key family,
// copy_if (min/max_element read like reduce's value: select_reduce_read, reduce_pinned.hpp). Private to the primitives layer.
#include "reduce_pinned.hpp"

#include <clprim/detail/knobs.hpp>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>

namespace clprim {
namespace detail {

// The device word a value-returning call's kernel writes its result into (a count, an index),
// one per host thread and context, instead of one from a scratch lease per call (the lease's
// lock, free list and bookkeeping cost about as much host time as the rest of a small call's
// setup, and it comes before the launch). Safe to share between calls: a host thread's calls run
// one after the other and each reads its word back (blocking, or clFinish) before it returns;
// other threads have words of their own. Never destroyed, like the pinned word: no releases at
// exit after the runtime is gone (64 bytes per thread and context).
inline const bc::buffer& result_device_word(const bc::context& context)
{
    thread_local std::map<cl_context, bc::buffer>* words = new std::map<cl_context, bc::buffer>;
    bc::buffer& word = (*words)[context.get()];
    if (word.get() == nullptr) word = bc::buffer(context, 64);
    return word;
}

// How a result word comes back (measurements pick; every form gives the same value): a blocking
// read into the caller's variable (plain), a blocking read into the pinned word (pinned), the same
// after a clFinish (finish), or a non-blocking read into the pinned word, then clFinish (async).
// flush_pinned / flush_async: the same as pinned / async after a clFlush, so that the kernel is
// submitted before the host does the read's own enqueue work (the kernel's run overlaps it; a
// blocking read or clFinish flushes only once the read is enqueued).
// spin: flush, a non-blocking read into the pinned word with an event, then the host polls the
// event's status instead of blocking in the driver (tried against round 0's bimodal blocking
// reads on the H100; in round 2 no faster than flush_async, stable_partition at 2^10 slower:
// docs/RESULTS.md, s4-copyif); polling stops after 2 ms for a blocking wait.
enum class result_read { plain, pinned, finish, async, flush_pinned, flush_async, spin };

// clEnqueueReadBuffer of the word at offset 0 without an event (Boost.Compute's enqueue_read_buffer
// makes one per call, which cost about 2 us of host time through NVIDIA's driver:
// kernel_launch.cpp).
inline void read_word_no_event(bc::command_queue& queue, const bc::buffer& from, std::size_t bytes, void* to,
                               bool blocking)
{
    const cl_int err =
        clEnqueueReadBuffer(queue.get(), from.get(), blocking ? CL_TRUE : CL_FALSE, 0, bytes, to, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) BOOST_THROW_EXCEPTION(bc::opencl_error(err));
}

inline void read_result_word(bc::command_queue& queue, const bc::buffer& from, std::size_t bytes, void* result,
                             result_read mode)
{
    if (mode == result_read::flush_pinned || mode == result_read::flush_async || mode == result_read::spin) {
        queue.flush();
        if (mode != result_read::spin) mode = mode == result_read::flush_pinned ? result_read::pinned : result_read::async;
    }
    void* pinned = mode == result_read::plain ? nullptr : pinned_result_word(queue.get_context(), queue);
    if (pinned == nullptr) {
        read_word_no_event(queue, from, bytes, result, true);
        return;
    }
    if (mode == result_read::spin) {
        cl_event done = nullptr;
        cl_int err = clEnqueueReadBuffer(queue.get(), from.get(), CL_FALSE, 0, bytes, pinned, 0, nullptr, &done);
        if (err == CL_SUCCESS) err = clFlush(queue.get());
        cl_int status = CL_QUEUED;
        const auto start = std::chrono::steady_clock::now();
        while (err == CL_SUCCESS) {
            err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
            if (err != CL_SUCCESS || status <= CL_COMPLETE) break; // complete (0) or failed (< 0)
            if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(2)) {
                err = clWaitForEvents(1, &done);
                if (err == CL_SUCCESS) err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
                break;
            }
        }
        if (done) clReleaseEvent(done);
        if (err == CL_SUCCESS && status < 0) err = status;
        if (err != CL_SUCCESS) BOOST_THROW_EXCEPTION(bc::opencl_error(err));
        std::memcpy(result, pinned, bytes);
        return;
    }
    if (mode == result_read::async) {
        read_word_no_event(queue, from, bytes, pinned, false);
        queue.finish();
    } else {
        if (mode == result_read::finish) queue.finish();
        read_word_no_event(queue, from, bytes, pinned, true);
    }
    std::memcpy(result, pinned, bytes);
}

// The by-key family's form: CLPRIM_BY_KEY_READ=0 plain, 1 pinned, 2 async,
// 3 flush then pinned, 4 flush then async (the default), 5 spin. H100, 2^10, one run: spin
// against async took 1.5-4.3 us off reduce_by_key, run_length_encode, partition_copy and
// min_element, and flush_async and spin were alike where both were measured (unique); spin
// made stable_partition (two kernels, then the read) 9 us slower (docs/RESULTS.md, s4-copyif).
inline void read_result_word(bc::command_queue& queue, const bc::buffer& from, std::size_t bytes, void* result)
{
    static const result_read forms[] = {result_read::plain,        result_read::pinned,      result_read::async,
                                        result_read::flush_pinned, result_read::flush_async, result_read::spin};
    read_result_word(queue, from, bytes, result, forms[knob_number("CLPRIM_BY_KEY_READ", 0, 5).value_or(4)]);
}

} // namespace detail
} // namespace clprim
