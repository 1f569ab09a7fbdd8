#pragma once
// Where a one-value read lands: 64 bytes of pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped once
// and left mapped) per host thread and context. A blocking read into it needs no staging copy on
// discrete GPUs: H100, a value-returning reduce of 2^10 uint took 0.0232 ms a call reading there
// against 0.0285 reading into the caller's (pageable) variable. Used by reduce (its result) and
// copy_if (its count). Private to the primitives layer; defined in reduce.cpp.
#include <clprim/config.hpp>

namespace clprim {
namespace detail {

// nullptr where pinned memory cannot be had (the caller then reads into its own variable).
void* pinned_result_word(const bc::context& context, bc::command_queue& queue);

} // namespace detail
} // namespace clprim
