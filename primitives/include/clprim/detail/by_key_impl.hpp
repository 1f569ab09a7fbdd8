#pragma once
// The one non-template entry of the by-key and selection family (primitives/by_key.cpp): every
// public function of by_key.hpp and selection.hpp is a call of by_key_impl with a mode.
#include <clprim/config.hpp>
#include <clprim/detail/checks.hpp>
#include <clprim/detail/element_type.hpp>

#include <cstddef>
#include <string>

namespace clprim {
namespace detail {

// The epilogue of the segmented scan (primitives/by_key.cl, BK_MODE).
enum class by_key_mode { reduce = 1, scan = 2, unique = 3, run_length = 4, partition = 5 };

struct by_key_call {
    by_key_mode mode = by_key_mode::reduce;
    buffer_range keys;   // the keys (the elements for unique and partition)
    buffer_range values; // reduce, scan: the values (n of them); else unused
    buffer_range out1;   // keys_result / unique's result / true_result (size = its room)
    buffer_range out2;   // values_result / the scan's result / counts_result / false_result
    element_type key_type = element_type::uint32;
    element_type value_type = element_type::uint32; // the element type for partition
    std::string op_file;         // generated operator over value_type (its identity inside; empty:
                                 // the sum), or the predicate over key_type (partition)
    const void* init = nullptr;  // the exclusive scan's init (value_type bytes)
    bool inclusive = false;
    const buffer_range* count_result = nullptr; // one cl_ulong: the count on the device, no wait
};

// Runs the call. Returns the count (read back once at the end) when count_result is null and the
// mode has one (not the scans); 0 otherwise. who names the public function in errors.
std::size_t by_key_impl(const by_key_call& call, bc::command_queue& queue, const char* who);

// Partitions range in place (stable): partition_copy into scratch, then copied back. Returns
// the size of the first group (read back) when count_result is null, else writes it there.
std::size_t stable_partition_impl(const buffer_range& range, element_type type, const std::string& pred_file,
                                  const buffer_range* count_result, bc::command_queue& queue);

// Runs call with the caller's count_result (null: the count is returned), checked against queue.
inline std::size_t by_key_run(by_key_call& call, const bc::buffer_iterator<cl_ulong>* count_result,
                              bc::command_queue& queue, const char* who)
{
    buffer_range count;
    if (count_result) {
        count = checked_output(*count_result, 1, queue, who);
        call.count_result = &count;
    }
    return by_key_impl(call, queue, who);
}

// The room a result range has from its iterator to the end of its buffer, in elements.
template <class T>
std::size_t room_of(const bc::buffer_iterator<T>& it)
{
    const std::size_t size = it.get_buffer().get() ? it.get_buffer().size() / sizeof(T) : 0;
    return size > it.get_index() ? size - it.get_index() : 0;
}

} // namespace detail
} // namespace clprim
