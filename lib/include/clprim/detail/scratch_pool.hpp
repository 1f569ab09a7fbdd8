#pragma once
// Temporary device buffers reused from one call to the next on the same command queue.
//
// A sort of 2^26 keys needs two 256 MiB temporaries; allocating and releasing them on every call
// cost about 0.9 ms on the H100 (a quarter of the sort). A call takes its temporaries through a
// scratch_lease; when the lease ends (the call has enqueued its work) the buffers go back to the
// pool of that queue. On an in-order queue the next call's commands run after this call's, so a
// buffer is never used by two calls at once; out-of-order queues get fresh buffers every time.
// The pool keeps at most scratch_limit_bytes() in all (CLPRIM_SCRATCH_LIMIT_MB, default a quarter
// of the device's global memory; 0 disables it); clprim::release_scratch_memory() empties it.
// (clprim calls on out-of-order queues run on an in-order companion queue, queue_order.hpp, and
// so are pooled under it.)
//
// Out of device memory: a buffer that cannot be had (CL_MEM_OBJECT_ALLOCATION_FAILURE,
// CL_OUT_OF_RESOURCES or CL_OUT_OF_HOST_MEMORY, at creation or at first use) makes the lease
// release the whole pool (after waiting for the queues whose buffers it drops, so that their
// memory is really free) and try once more; if that fails too it throws out_of_device_memory, a
// clprim::error saying how many bytes were wanted. Some drivers (NVIDIA's) allocate a buffer only
// when a command first uses it, so a fresh buffer is touched at once (a one-byte blocking write on
// a private queue): the failure then comes here, before the algorithm has enqueued anything that
// writes the caller's data, and not from a kernel launch half-way through. Pool hits cost nothing
// of this.
#include <clprim/config.hpp>

#include <cstddef>
#include <vector>

namespace clprim {
namespace detail {

class scratch_lease {
public:
    explicit scratch_lease(const bc::command_queue& queue);
    ~scratch_lease();
    scratch_lease(const scratch_lease&) = delete;
    scratch_lease& operator=(const scratch_lease&) = delete;

    // A buffer of at least bytes (read-write), held until the lease ends; contents undefined.
    bc::buffer buffer(std::size_t bytes);

private:
    bc::buffer allocate(std::size_t bytes);

    bc::command_queue queue_;
    std::size_t limit_; // scratch_limit_bytes() when the lease began
    bool pooled_;
    std::vector<bc::buffer> taken_;
};

// A fresh device buffer of bytes with the lease's handling of a full device (touched at once,
// one retry after releasing the pool, then out_of_device_memory naming the bytes, and `held`
// bytes the call already holds), for buffers kept outside the pool (lookback_slots.hpp).
bc::buffer allocate_device_buffer(const bc::command_queue& queue, std::size_t bytes, std::size_t held = 0);

// Bytes the pool may keep (all queues together).
std::size_t scratch_limit_bytes(const bc::device& device);
// Bytes the pool keeps now.
std::size_t scratch_pooled_bytes();

// Test hook: after the next `after` buffer allocations of scratch leases (pool misses, retries
// included), the n following ones fail as if the device were out of memory, so the retry, the
// error and where in an algorithm an allocation may fail can be tested on any device.
void scratch_fail_next(unsigned n, unsigned after = 0);

} // namespace detail
} // namespace clprim
