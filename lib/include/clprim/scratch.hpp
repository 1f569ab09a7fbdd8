#pragma once
/// \file
/// \brief The scratch pool: device memory that clprim keeps between calls, and how to release it.
#include <clprim/config.hpp>

namespace clprim {

/// \addtogroup runtime
/// @{

/// \brief Releases every temporary device buffer clprim keeps between calls.
///
/// clprim keeps the temporary device buffers of its algorithms (a sort's ping-pong buffers, as
/// large as the range it sorts, twice with values; a scan's partial sums) between calls, for the
/// next call on the same command queue: allocating them on every call cost a 2^26-key radix sort
/// a quarter of its time on an H100. So after a sort of n keys, about 2n keys' worth of device
/// memory stays taken until the program ends or this is called.
///   - `CLPRIM_SCRATCH_LIMIT_MB` caps what is kept, all queues together (read at each call;
///     default: a quarter of the device's global memory; 0 keeps nothing).
///   - When a temporary cannot be allocated, clprim releases the pool itself and tries once more;
///     if the device is still out of memory the call throws clprim::error saying how many bytes it
///     needed, before anything has written the caller's data.
///
/// This releases all kept buffers (and the queues they were kept for, the device state kept per
/// queue by the single-pass scan and the one-sweep radix sort, and the in-order companion queues
/// of out-of-order queues); calls in flight are not affected.
void release_scratch_memory();

/// @}

} // namespace clprim
