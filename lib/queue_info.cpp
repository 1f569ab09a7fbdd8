// info_of (see clprim/detail/queue_info.hpp): this host thread's last queue and its answers.
#include <clprim/detail/queue_info.hpp>

#include <utility>

namespace clprim {
namespace detail {

const queue_info& info_of(const bc::command_queue& queue)
{
    // The last two queues (a call on an out-of-order queue asks about the user's queue and its
    // in-order companion, queue_order.hpp), most recent first. Released when the thread ends, so
    // that a pool's passing threads keep no queue (and context) alive; at the end of the process,
    // thread-local objects go before static ones and before the libraries' own teardown.
    thread_local queue_info kept[2];
    if (queue.get() != nullptr) {
        if (kept[0].queue.get() == queue.get()) return kept[0];
        if (kept[1].queue.get() == queue.get()) {
            std::swap(kept[0], kept[1]);
            return kept[0];
        }
    }
    queue_info fresh;
    fresh.properties = queue.get_info<cl_command_queue_properties>(CL_QUEUE_PROPERTIES);
    fresh.context = queue.get_context();
    fresh.device = queue.get_device();
    fresh.profile = &profile_of(fresh.device);
    fresh.queue = queue;
    kept[1] = std::move(kept[0]);
    kept[0] = std::move(fresh);
    return kept[0];
}

} // namespace detail
} // namespace clprim
