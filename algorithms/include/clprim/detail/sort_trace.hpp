#pragma once
// A hook for the teaching tools (examples/sort_steps): an observer that the sorts call between
// their launches, so that a tool can read back and print what the DEVICE computed at each step.
// Not part of the public API. The observer is per thread and null by default; with no observer a
// call site costs one thread-local load and a branch per launch. Observers must not enqueue work
// that changes the buffers they are shown; reading them (on the same queue) is what they are for.
//
//   struct printer : clprim::detail::sort_observer { void bitonic_pass(...) override { ... } };
//   printer p;
//   clprim::detail::scoped_sort_observer watch(&p);   // until the end of the scope
//   clprim::bitonic_sort(v.begin(), v.end(), queue, order, clprim::bitonic_variant::global);
#include <clprim/detail/checks.hpp>

#include <boost/compute/buffer.hpp>
#include <boost/compute/command_queue.hpp>

#include <cstddef>

namespace clprim {
namespace detail {

class sort_observer {
public:
    virtual ~sort_observer() = default;

    // Bitonic sort, global (textbook) variant: after the pass of stage k (blocks of k) with
    // distance j: the mirror pass i <-> i ^ (k - 1) when 2j == k, else i <-> i + j (i & j == 0);
    // the smaller key goes to the lower index. keys: the caller's range (keys in their own form).
    virtual void bitonic_pass(bc::command_queue&, const buffer_range& /*keys*/, std::size_t /*k*/, std::size_t /*j*/) {}

    // Merge sort: after the tile sort (round 0, runs of the tile size) and after every merge round
    // (runs of run_length). keys[offset, offset + n) holds the keys as sortable bits (sort_key_order.cl)
    // unless in_key_form (after the last step, in the caller's range).
    virtual void merge_round(bc::command_queue&, unsigned /*round*/, std::size_t /*run_length*/, const bc::buffer& /*keys*/,
                             std::size_t /*offset*/, std::size_t /*n*/, bool /*in_key_form*/)
    {
    }
    // Merge sort: elements per work-item and work-group size to use instead of the library's
    // (0 = the library's): small tiles, so that a few keys still take several merge rounds.
    virtual std::size_t merge_elems() const { return 0; }
    virtual std::size_t merge_group() const { return 0; }

    // Radix sort, multi-pass (count / scan / scatter) path, one call per step of each pass over
    // the digit at `shift`: counts (after the count kernel: table[d * tiles + t] = keys of tile t
    // with digit d), offsets (after the exclusive scan of that table: where tile t's keys with
    // digit d go) and scattered (keys[offset, offset + n) after the scatter, sortable bits unless
    // in_key_form).
    enum class radix_step { counts, offsets, scattered };
    virtual void radix_pass(bc::command_queue&, radix_step, unsigned /*shift*/, const bc::buffer& /*table*/,
                            std::size_t /*tiles*/, std::size_t /*radix*/, const bc::buffer& /*keys*/,
                            std::size_t /*offset*/, std::size_t /*n*/, bool /*in_key_form*/)
    {
    }
};

inline sort_observer*& sort_observer_slot()
{
    static thread_local sort_observer* current = nullptr;
    return current;
}

// The calling thread's observer, or null (the usual case).
inline sort_observer* sort_trace() { return sort_observer_slot(); }

// Installs an observer for the calling thread until the end of the scope.
class scoped_sort_observer {
public:
    explicit scoped_sort_observer(sort_observer* o) : previous_(sort_observer_slot()) { sort_observer_slot() = o; }
    ~scoped_sort_observer() { sort_observer_slot() = previous_; }
    scoped_sort_observer(const scoped_sort_observer&) = delete;
    scoped_sort_observer& operator=(const scoped_sort_observer&) = delete;

private:
    sort_observer* previous_;
};

} // namespace detail
} // namespace clprim
