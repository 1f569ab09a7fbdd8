#pragma once
/// \file
/// \brief Sorting host data with every device of a list of queues, also data larger than one
/// device's memory: chunks sorted on the devices with transfers overlapped, then a k-way merge of
/// the sorted runs at exact splits.
#include <clprim/sort_types.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace clprim {

namespace detail {
// The host data of one multi-device sort, type-erased: keys (and values travelling with them).
struct multi_device_request {
    void* keys = nullptr;
    element_type key_type = element_type::uint32;
    void* values = nullptr; // null: keys alone
    element_type value_type = element_type::uint32;
    std::size_t size = 0;
    sort_order order = sort_order::ascending;
};
void multi_device_sort_impl(const multi_device_request& request, std::vector<bc::command_queue>& queues);
} // namespace detail

/// \addtogroup sorts
/// @{

/// \brief Sorts host data with every device of `queues` (one queue per device, or several queues
/// of one device: they share its memory); the data may be larger than any device's memory.
///
/// Data that fits the devices (within the scratch pool's cap, `CLPRIM_SCRATCH_LIMIT_MB`, and the
/// devices' largest allocation) is sorted as one chunk per queue. Larger data is cut into chunks;
/// each device takes the next chunk when it has room, with several chunks in flight per device so
/// that the upload of one, the radix sort of another and the download of a third overlap. More
/// than one sorted run is
/// then merged: the output is cut into balanced pieces at exact splits (co-ranks over the runs),
/// and each piece is merged on a device or on the host with all cores (the policy decides;
/// `CLPRIM_MULTI_MERGE=device|host` forces it). More than one run needs one temporary host copy
/// of the data. Stable (equal keys keep their input order); floats by IEEE-754 total order.
/// Returns when `data` is sorted. On an error the data is a permutation of its input or sorted.
/// \param data the host keys, sorted in place.
/// \param queues the queues whose devices sort (the calls' commands run on their devices; the
///        queues may be out of order).
/// \param order ascending or descending.
/// \throws invalid_argument_error when `queues` is empty.
template <class T>
void multi_device_sort(std::vector<T>& data, std::vector<bc::command_queue>& queues,
                       sort_order order = sort_order::ascending)
{
    detail::multi_device_request r;
    r.keys = data.data();
    r.key_type = detail::element_type_of<T>();
    r.size = data.size();
    r.order = order;
    detail::multi_device_sort_impl(r, queues);
}

/// \brief The same for keys with values: values[i] travels with keys[i], equal keys keep their
/// input order.
/// \param keys the host keys, sorted in place.
/// \param values as many values, of any element type, permuted with their keys.
/// \param queues the queues whose devices sort.
/// \param order ascending or descending.
/// \throws invalid_argument_error when `queues` is empty or the sizes differ.
template <class K, class V>
void multi_device_sort_by_key(std::vector<K>& keys, std::vector<V>& values,
                              std::vector<bc::command_queue>& queues,
                              sort_order order = sort_order::ascending)
{
    if (keys.size() != values.size())
        throw invalid_argument_error("clprim::multi_device_sort_by_key: " + std::to_string(keys.size()) + " keys but " +
                                     std::to_string(values.size()) + " values");
    detail::multi_device_request r;
    r.keys = keys.data();
    r.key_type = detail::element_type_of<K>();
    r.values = values.data();
    r.value_type = detail::element_type_of<V>();
    r.size = keys.size();
    r.order = order;
    detail::multi_device_sort_impl(r, queues);
}

/// @}

} // namespace clprim
