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
    bc::command_queue queue_;
    std::size_t limit_; // scratch_limit_bytes() when the lease began
    bool pooled_;
    std::vector<bc::buffer> taken_;
};

// Bytes the pool may keep (all queues together).
std::size_t scratch_limit_bytes(const bc::device& device);
// Bytes the pool keeps now.
std::size_t scratch_pooled_bytes();

} // namespace detail
} // namespace clprim
