// in_order_scope (see clprim/detail/queue_order.hpp): companion in-order queues for the user's
// out-of-order ones, joined to them by a marker and a barrier at each end of a call.
#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/error.hpp>

#include <map>
#include <mutex>
#include <string>

namespace clprim {
namespace detail {

namespace {

struct companion_entry {
    bc::command_queue user; // kept alive so its handle cannot name a later queue
    bc::command_queue companion;
};

struct companion_state {
    std::mutex mutex;
    std::map<cl_command_queue, companion_entry> queues;
};

companion_state& companions()
{
    static companion_state* s = new companion_state; // never destroyed, like the scratch pool
    return *s;
}

[[noreturn]] void fail(cl_int err, const char* doing)
{
    throw clprim::error(std::string("clprim: ") + doing + " (ordering a call on an out-of-order queue): OpenCL error " +
                        bc::opencl_error::to_string(err) + " (" + std::to_string(err) + ")");
}

bc::command_queue companion_for(const bc::command_queue& user, cl_command_queue_properties props)
{
    companion_state& s = companions();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.queues.find(user.get());
    if (it != s.queues.end()) return it->second.companion;
    cl_int err = CL_SUCCESS;
    const cl_command_queue q = clCreateCommandQueue(user.get_context().get(), user.get_device().id(),
                                                    props & CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) fail(err, "creating an in-order companion queue");
    companion_entry e{user, bc::command_queue(q, false)};
    s.queues.emplace(user.get(), e);
    return e.companion;
}

} // namespace

in_order_scope::in_order_scope(bc::command_queue& queue) : user_(queue)
{
    // Asked of the driver once per queue and thread (queue_info.hpp): a call on an in-order
    // queue costs nothing here.
    cl_command_queue_properties props = 0;
    try {
        props = info_of(queue).properties;
    } catch (const bc::opencl_error& e) {
        fail(e.error_code(), "querying the queue's properties");
    }
    if ((props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0) return;
    cl_int err = CL_SUCCESS;

    bc::command_queue companion = companion_for(queue, props);
    // Start after everything enqueued before on the user's queue: a marker with an empty wait list
    // completes when all of them have; the flush lets it start although it is waited for from
    // another queue.
    cl_event started = nullptr;
    err = clEnqueueMarkerWithWaitList(queue.get(), 0, nullptr, &started);
    if (err != CL_SUCCESS) fail(err, "enqueuing a marker on the caller's queue");
    err = clFlush(queue.get());
    if (err == CL_SUCCESS) err = clEnqueueBarrierWithWaitList(companion.get(), 1, &started, nullptr);
    clReleaseEvent(started);
    if (err != CL_SUCCESS) fail(err, "making the companion queue wait for the caller's queue");
    companion_ = companion;
}

in_order_scope::~in_order_scope()
{
    if (!companion_.get()) return;
    // Everything the user enqueues from now on starts after the companion's last command. A
    // destructor cannot throw: where the asynchronous way fails, wait on the host instead.
    cl_event done = nullptr;
    cl_int err = clEnqueueMarkerWithWaitList(companion_.get(), 0, nullptr, &done);
    if (err == CL_SUCCESS) err = clFlush(companion_.get());
    if (err == CL_SUCCESS) err = clEnqueueBarrierWithWaitList(user_.get(), 1, &done, nullptr);
    if (err != CL_SUCCESS) {
        if (done) clWaitForEvents(1, &done);
        else clFinish(companion_.get());
    }
    if (done) clReleaseEvent(done);
}

void release_companion_queues()
{
    companion_state& s = companions();
    std::map<cl_command_queue, companion_entry> dropped;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        dropped.swap(s.queues);
    }
}

} // namespace detail
} // namespace clprim
