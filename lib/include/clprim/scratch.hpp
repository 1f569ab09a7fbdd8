#pragma once
#include <clprim/config.hpp>

namespace clprim {

// clprim keeps the temporary device buffers of its algorithms (a sort's ping-pong buffers, a
// scan's partial sums) for the next call on the same command queue, up to CLPRIM_SCRATCH_LIMIT_MB
// (default: a quarter of the device's global memory; 0 keeps none). This releases all of them,
// and the queues they were kept for. Calls in flight are not affected.
void release_scratch_memory();

} // namespace clprim
