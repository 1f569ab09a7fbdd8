#pragma once
// How one value of a call (reduce's result, a count, an index) comes to the host, in one place:
// the pinned word it may land in (64 bytes of CL_MEM_ALLOC_HOST_PTR memory, mapped once and left
// mapped, per host thread and context: no staging copy on discrete GPUs) and the forms of the read
// and of the wait for it. Every form gives the same value; measurements pick one per device kind
// (reduce_policy.hpp; docs/RESULTS.md, "#27 (s5-small)"). Used by reduce (its result) and copy_if
// (its count, through count_read.hpp). Private to the primitives layer; defined in
// reduce_pinned.cpp.
#include <clprim/config.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// nullptr where pinned memory cannot be had (the caller then reads into its own variable).
void* pinned_result_word(const bc::context& context, bc::command_queue& queue);

// The forms (CLPRIM_REDUCE_READ takes their numbers):
//   plain (0)       a blocking clEnqueueReadBuffer straight into the caller's variable;
//   pinned (1)      a blocking read into the pinned word, then a copy;
//   async (2)       a non-blocking read into the pinned word, clFinish, a copy;
//   flush_async (3) clFlush first (the kernel is submitted before the read's own enqueue work),
//                   then as async;
//   spin (4)        a non-blocking read into the pinned word with an event, clFlush, then the host
//                   polls the event's status in a loop (after 2 ms it blocks in clWaitForEvents):
//                   the host thread never sleeps in the driver;
//   spin_yield (5)  as spin, with sched_yield() between polls;
//   wait (6)        a non-blocking read with an event, clFlush, clWaitForEvents;
//   plain_event (7) as plain, with an event made and released (Boost.Compute's
//                   enqueue_read_buffer: what reduce did before; for measurements);
//   flush_plain (8) clFlush, then as plain;
//   flush_spin (9)  clFlush first (the kernel starts while the host enqueues the read), then as
//                   spin.
// Without a pinned word the pinned forms read into the caller's variable (blocking).
enum class value_read { plain, pinned, async, flush_async, spin, spin_yield, wait, plain_event, flush_plain, flush_spin };
constexpr int value_read_forms = 10;

// Reads `bytes` at (from, offset) into result in the given form.
void read_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset, std::size_t bytes, void* result,
                value_read form);

// Reads `bytes` at (from, offset) into result: mode = a value_read's number (above).
void read_one_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
                    std::size_t bytes, void* result, int mode);

} // namespace detail
} // namespace clprim
