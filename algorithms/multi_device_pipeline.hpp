#pragma once
// The multi-device sort's transfer pipeline (multi_device_pipeline.cpp): tasks (host elements
// uploaded one segment after another, sorted on a device by the radix sort, downloaded to a
// destination) run on workers, one per queue given. A worker has a few slots (device buffers of
// one task each) and two host threads: the uploader takes the next task whenever a slot is free,
// uploads it on the worker's upload queue, enqueues the sort on the sort queue once the upload
// has ended and hands the slot with the sort's marker event to the downloader, which waits for
// it, downloads on the download queue and frees the slot. So the
// upload of one task, the sort of another and the download of a third overlap, in both copy
// directions at once. Pinned staging goes through small mapped CL_MEM_ALLOC_HOST_PTR blocks
// (a ring per direction, kept per context and device for the next call): host threads copy a
// block in while the previous one is in flight.
// Private to the algorithms layer.
#include "multi_device_policy.hpp"

#include <clprim/multi_device.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace clprim {
namespace detail {

struct pipeline_task {
    std::vector<std::pair<std::size_t, std::size_t>> segments; // (first element, count) of the source
    std::size_t dst = 0;                                       // first element of the destination
    std::size_t size = 0;                                      // elements in all
};

struct host_arrays {
    char* keys = nullptr;
    char* values = nullptr; // null: keys alone
};

class pipeline_workers {
public:
    // One worker per queue (the queues' in_order_scopes are held by the caller), each with `slots`
    // device buffers of `capacity` keys (and values). Allocation failures throw here, before
    // anything is enqueued.
    pipeline_workers(std::vector<bc::command_queue*> sort_queues, const multi_device_request& request,
                     const multi_device_policy& policy, std::size_t slots, std::size_t capacity);
    ~pipeline_workers();
    pipeline_workers(const pipeline_workers&) = delete;
    pipeline_workers& operator=(const pipeline_workers&) = delete;

    // Runs every task, reading src and writing dst, and returns when all are done. On an error
    // every queue is finished (no transfer writes host memory any more) before it is rethrown.
    // host_task (optional): a host thread takes tasks from the back of the list and runs
    // host_task(index) while the devices take them from the front.
    void run(const std::vector<pipeline_task>& tasks, host_arrays src, host_arrays dst,
             const std::function<void(std::size_t)>& host_task = {});

private:
    struct worker;
    std::vector<std::unique_ptr<worker>> workers_;
    const multi_device_request& request_;
    const multi_device_policy& policy_;
};

} // namespace detail
} // namespace clprim
