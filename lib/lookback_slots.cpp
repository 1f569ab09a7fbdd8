// Look-back status slots per in-order queue, tagged by epoch (see clprim/detail/lookback_slots.hpp),
// kept as the queue's state "lookback_slots" (queue_state.hpp).
#include <clprim/detail/lookback_slots.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/queue_state.hpp>

namespace clprim {
namespace detail {

lookback_slots take_lookback_slots(const bc::command_queue& queue, std::size_t words)
{
    queue_state st = take_queue_state(queue, "lookback_slots", std::max<std::size_t>(words, 2) * sizeof(cl_ulong));
    // The counter is the next epoch: 0 when the buffer is new; past the last epoch it wraps, and
    // the words of the epochs about to be reused must go.
    bool fill = st.fresh;
    if (st.counter == 0 || st.counter > max_lookback_epoch) {
        st.counter = 1;
        fill = true;
    }
    // (A fill enqueued here runs before this call's kernel: same in-order queue. If enqueueing it
    // throws, `fresh` stays set and the next call tries again.)
    if (fill) {
        const cl_ulong zero = 0;
        bc::command_queue q = queue;
        q.enqueue_fill_buffer(st.buffer, &zero, sizeof zero, 0, st.buffer.size());
        st.fresh = false;
    }
    lookback_slots r;
    r.buffer = st.buffer;
    r.epoch = cl_uint(st.counter++);
    return r;
}

std::string lookback_build_options()
{
    return knob_choice("CLPRIM_LOOKBACK", {"wait", "fallback"}).value_or(0) == 1 ? " -DLB_FALLBACK_POLLS=0 -DLB_FALLBACK_FIRST"
                                                                                : "";
}

void set_next_lookback_epoch(const bc::command_queue& queue, cl_uint next)
{
    queue_state st = take_queue_state(queue, "lookback_slots", 16);
    st.counter = next;
}

} // namespace detail
} // namespace clprim
