#pragma once
// Where a one-value read lands: 64 bytes of pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped once
// and left mapped) per host thread and context. A blocking read into it needs no staging copy on
// discrete GPUs: H100, a value-returning reduce of 2^10 uint took 0.0232 ms a call reading there
// against 0.0285 reading into the caller's (pageable) variable. Used by reduce (its result) and
// copy_if (its count). Private to the primitives layer; defined in reduce_pinned.cpp.
#include <clprim/config.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

// nullptr where pinned memory cannot be had (the caller then reads into its own variable).
void* pinned_result_word(const bc::context& context, bc::command_queue& queue);

// Reads `bytes` at (from, offset) into result: mode 0 a blocking read straight into result, 1 a
// blocking read into the pinned word then a copy, 2 a non-blocking read into it, clFinish, a copy
// (1 and 2 read straight into result where no pinned word can be had).
void read_one_value(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
                    std::size_t bytes, void* result, int mode);

} // namespace detail
} // namespace clprim
