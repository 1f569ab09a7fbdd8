#pragma once
/// \file
/// \brief Distributed sort over the ranks of an MPI communicator (target `clprim::mpi`, built
/// where CMake finds MPI; the rest of clprim never needs MPI).
///
/// Each rank sorts its local keys on its own device (clprim's stable radix sort), reads the sorted
/// run to the host, and the ranks choose exact global splitters together by distributed
/// selection over the key bits (one `MPI_Allreduce` of p - 1 counts per bit; ties split by
/// (rank, index)). One all-to-all exchange of the pieces follows (through host buffers: OpenCL
/// has no device pointers MPI could use), and each rank merges the p runs it received on its
/// device. Afterwards rank r holds global positions [r*N/p, (r+1)*N/p).
#include <clprim/sort_types.hpp>

#include <boost/compute/container/vector.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

namespace clprim {

namespace detail {

// Seconds per stage of one clprim::mpi sort on this rank (detail::mpi_sort_timed fills it; the
// stages wait for the device then, so the figures are the stages' own).
struct mpi_sort_stats {
    double check = 0;      // the collective argument check
    double local_sort = 0; // the local radix sort on the device
    double to_host = 0;    // reading the sorted run to the host
    double splitters = 0;  // distributed selection of the p - 1 splitters
    double exchange = 0;   // counts, then the all-to-all of keys (and values)
    double merge = 0;      // upload of the p runs and their merge on the device
    double total = 0;
    std::uint64_t global_n = 0;        // N, keys on all ranks
    unsigned selection_rounds = 0;     // MPI_Allreduce rounds of the splitter search
    unsigned exchange_rounds = 0;      // all-to-all rounds (more than one past the per-round cap)
};

// floor(q * n / p) without overflow (q <= p < 2^32): where rank q's share of n keys begins.
inline std::uint64_t mpi_share_boundary(std::uint64_t q, std::uint64_t n, std::uint64_t p)
{
    return q * (n / p) + q * (n % p) / p;
}

// What mpi_sort_impl receives. error: an argument check of this rank that failed (rethrown after
// the ranks have agreed that one failed, so no rank waits in a collective for it).
struct mpi_sort_request {
    buffer_range keys, values;
    element_type key_type = element_type::uint32;
    element_type value_type = element_type::uint32;
    bool has_values = false;
    sort_order order = sort_order::ascending;
    std::exception_ptr error;
};

// Resizes the caller's vector(s) to n elements (contents undefined) and returns their new ranges.
using mpi_resize_fn = std::function<void(std::size_t n, buffer_range& keys, buffer_range& values)>;

void mpi_sort_impl(mpi_sort_request& request, const mpi_resize_fn& resize, bc::command_queue& queue,
                   MPI_Comm comm, const char* who, mpi_sort_stats* stats);

// Resizes without keeping the contents (a larger vector is allocated anew, exactly n).
template <class T>
buffer_range mpi_resize_vector(bc::vector<T>& v, std::size_t n, bc::command_queue& queue)
{
    if (n <= v.capacity()) v.resize(n, queue);
    else {
        v = bc::vector<T>(queue.get_context()); // the old buffer goes first
        v = bc::vector<T>(n, queue.get_context());
    }
    return {v.get_buffer(), 0, v.size()};
}

template <class K, class V>
void mpi_sort_vectors(bc::vector<K>& keys, bc::vector<V>* values, bc::command_queue& queue, MPI_Comm comm,
                      sort_order order, const char* who, mpi_sort_stats* stats)
{
    mpi_sort_request r;
    try {
        r.keys = checked_range(keys.begin(), keys.end(), queue, who);
        r.key_type = element_type_of<K>();
        r.order = order;
        if (values) {
            if (!keys.empty() && values->get_buffer().get() == keys.get_buffer().get())
                throw invalid_argument_error(std::string(who) + ": keys and values are the same vector");
            if (values->size() != keys.size())
                throw invalid_argument_error(std::string(who) + ": " + std::to_string(values->size()) + " values for " +
                                             std::to_string(keys.size()) + " keys");
            r.values = checked_range(values->begin(), values->end(), queue, who);
            r.value_type = element_type_of<V>();
            r.has_values = true;
        }
    } catch (const error&) {
        r.error = std::current_exception();
    }
    const mpi_resize_fn resize = [&](std::size_t n, buffer_range& k, buffer_range& v) {
        k = mpi_resize_vector(keys, n, queue);
        if (values) v = mpi_resize_vector(*values, n, queue);
    };
    mpi_sort_impl(r, resize, queue, comm, who, stats);
}

// clprim::mpi::sort with the stage times in stats (examples/mpi_sort).
template <class T>
void mpi_sort_timed(bc::vector<T>& local, bc::command_queue& queue, MPI_Comm comm, sort_order order,
                    mpi_sort_stats& stats)
{
    mpi_sort_vectors<T, T>(local, nullptr, queue, comm, order, "clprim::mpi::sort", &stats);
}

// clprim::mpi::sort_by_key with the stage times in stats.
template <class K, class V>
void mpi_sort_by_key_timed(bc::vector<K>& keys, bc::vector<V>& values, bc::command_queue& queue, MPI_Comm comm,
                           sort_order order, mpi_sort_stats& stats)
{
    mpi_sort_vectors<K, V>(keys, &values, queue, comm, order, "clprim::mpi::sort_by_key", &stats);
}

} // namespace detail

/// \brief Sorts spread over the ranks of an MPI communicator (`#include <clprim/mpi.hpp>`, CMake
/// target `clprim::mpi`).
namespace mpi {

/// \addtogroup sorts
/// @{

/// \brief Distributed sort over the ranks of `comm`, each rank with its own device and its local
/// keys in `local` on that device.
///
/// On return the ranks hold, in rank order, the globally sorted sequence, balanced: rank r holds
/// global positions [r*N/p, (r+1)*N/p) (N keys in all, p ranks), so `local` is resized (a larger
/// vector gets a new buffer). The key order is clprim's: integers by value, floats by IEEE-754
/// total order (-0.0 before +0.0, NaNs by their bits). Any p, any local sizes (0 included).
///
/// Collective: every rank of `comm` calls it (MPI must be initialised). The ranks first agree
/// whether every rank's arguments are good: if one rank's are not (another context than the
/// queue's), that rank throws invalid_argument_error and every other rank throws one too, naming
/// it, before anything is enqueued or sent. A device or host failure later on one rank is
/// likewise made known to all ranks at the next agreement point (after the local sort and before
/// the exchange), so no rank is left waiting; a failure in the final merge is that rank's own.
/// The call waits for the device before the exchange; the final merge is enqueued on `queue`.
/// \param local this rank's keys; the rank's share of the sorted sequence on return.
/// \param queue the command queue of this rank's device (the vector's context).
/// \param comm the communicator whose ranks take part.
/// \param order ascending or descending.
template <class T>
void sort(bc::vector<T>& local, bc::command_queue& queue, MPI_Comm comm, sort_order order = sort_order::ascending)
{
    detail::mpi_sort_vectors<T, T>(local, nullptr, queue, comm, order, "clprim::mpi::sort", nullptr);
}

/// \brief sort() of keys with values travelling with them; stable: equal keys keep the order of
/// (rank, index) of the input.
///
/// `local_values` holds one value per key (as many as `local_keys`, else every rank throws
/// invalid_argument_error) and is resized with the keys.
/// \param local_keys this rank's keys; its share of the sorted keys on return.
/// \param local_values one value per key, permuted with the keys.
/// \param queue the command queue of this rank's device.
/// \param comm the communicator whose ranks take part.
/// \param order ascending or descending.
template <class K, class V>
void sort_by_key(bc::vector<K>& local_keys, bc::vector<V>& local_values, bc::command_queue& queue, MPI_Comm comm,
                 sort_order order = sort_order::ascending)
{
    detail::mpi_sort_vectors<K, V>(local_keys, &local_values, queue, comm, order, "clprim::mpi::sort_by_key", nullptr);
}

/// @}

} // namespace mpi
} // namespace clprim
