#pragma once
// What a call asks of its queue at every call (the queue's properties, context and device, the
// device's profile), from one place. This host thread's last two queues are kept (retained, so
// that their handles name no other queue while kept; a call on an out-of-order queue asks about it
// and its in-order companion) with the answers, so that a thread's calls on one queue (the usual
// case) make no driver query for them: each query, and each Boost.Compute context or device
// object made from one (a retain and a release, or a sub-device query), is a driver call, and a
// small call's whole host time is a few microseconds (docs/RESULTS.md, "#27 (s5-small)").
// Queue properties, context and device never change for a queue.
#include <clprim/config.hpp>
#include <clprim/detail/device_profile.hpp>

namespace clprim {
namespace detail {

struct queue_info {
    bc::command_queue queue; // kept: the handle is not reused while this thread keeps it
    cl_command_queue_properties properties = 0;
    bc::context context;
    bc::device device;
    const device_profile* profile = nullptr;
};

// The answers for queue. The reference is valid until this thread's next info_of call (take what
// is needed from it at once).
const queue_info& info_of(const bc::command_queue& queue);

} // namespace detail
} // namespace clprim
